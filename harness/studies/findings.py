"""Findings as sentences generated from intervals, so the prose never claims more than the data.

A comparison of two cells is a time ratio with its interval (the harness's default: each cell's
log variance combined, t on the log scale). The wording follows the interval: "faster" only when
the whole interval lies below 1, "slower" only when it lies above 1, and otherwise "cannot be
told apart", with the interval given either way.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from harness.analysis.stats import CellBoot, combine_log_ratios, parse_baseline

if TYPE_CHECKING:
    from harness.analysis.runset import RunSet


def num(x: float) -> str:
    """A ratio to three significant digits, trailing zeros kept (0.0412, 1.20, 12.3, 123)."""
    if not math.isfinite(x):
        return "n/a"
    return f"{x:#.3g}".rstrip(".") if abs(x) < 1000 else f"{x:,.0f}"


def verdict(low: float, high: float) -> str:
    """'faster' (interval of the time ratio below 1), 'slower' (above 1), 'same' or 'unknown'."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "unknown"
    if high < 1:
        return "faster"
    if low > 1:
        return "slower"
    return "same"


def ratio_sentence(subject: str, other: str, ratio: float, low: float, high: float, confidence: float = 0.99,
                   what: str = "", note: str = "", spread: str = "") -> str:
    """One sentence comparing `subject` with `other` from the time ratio subject/other [low, high].

    Faster: "A is 2.1 [1.6, 2.8] times faster than B" (the speedup other/subject and its interval);
    slower: "A is 1.5 [1.2, 1.9] times slower than B"; an interval including 1: "A and B cannot be
    told apart", with the ratio; no interval: says so. `spread`: what the interval holds beyond one run
    ("with the run-to-run spread"), said after "CI".
    """
    conf = (f"{note}, {confidence:.0%}" if note else f"{confidence:.0%}") + " CI" + (f" {spread}" if spread else "")
    where = f" {what}" if what else ""
    v = verdict(low, high)
    if v == "faster":
        return (f"{subject} is {num(1 / ratio)} [{num(1 / high)}, {num(1 / low)}] times faster than {other}{where} "
                f"({conf}).")
    if v == "slower":
        return f"{subject} is {num(ratio)} [{num(low)}, {num(high)}] times slower than {other}{where} ({conf})."
    if v == "same":
        return (f"{subject} and {other} cannot be told apart{where}: the time ratio is {num(ratio)} "
                f"[{num(low)}, {num(high)}], which includes 1 ({conf}).")
    if math.isfinite(ratio):
        return f"{subject} takes {num(ratio)} times the time of {other}{where}, with no interval (too few processes)."
    return f"{subject} and {other} cannot be compared{where}: one of them has no valid timings."


#: the words a reader meets first (the abstract) for the configurations it names; elsewhere the
#: paper writes a configuration as the tables do, `engine/driver@runtime`
PLAIN_NAMES = {
    "sqlite/native-c@c": "a C program calling SQLite directly",
    "sqlite/sqlite3@cpython": "Python's sqlite3 module on CPython",
    "sqlite/sqlite3@pypy": "Python's sqlite3 module on PyPy",
    "sqlite/apsw@cpython": "the apsw driver on CPython",
    "duckdb@cpython": "DuckDB from CPython",
    "ramsql/go@go": "RamSQL",
    "sqlite/glebarez@go": "SQLite from Go (the seed's pure-Go driver)",
    "sqlite/go@go": "SQLite from Go through cgo",
}


#: an engine/driver in words, for `plain_name`'s fallback (main-text captions carry no identifiers)
DRIVER_WORDS = {
    "sqlite/sqlite3": "Python's sqlite3 module",
    "sqlite/apsw": "apsw (SQLite)",
    "sqlite/native-c": "SQLite from C",
    "sqlite/hdbc": "HDBC-sqlite3 (SQLite)",
    "sqlite/persistent": "persistent-sqlite (SQLite)",
    "sqlite/glebarez": "SQLite from Go (pure-Go glebarez/go-sqlite)",
    "sqlite/go": "SQLite from Go through cgo",
    "duckdb": "DuckDB",
    "mariadb/mysqlclient": "mysqlclient (MariaDB)",
    "mariadb/pymysql": "PyMySQL (MariaDB)",
    "postgresql/psycopg": "psycopg (PostgreSQL)",
    "postgresql/hdbc": "HDBC-postgresql (PostgreSQL)",
    "postgresql/simple": "postgresql-simple (PostgreSQL)",
    "h2/jdbc": "H2 over JDBC",
    "acidstate/acid-state": "acid-state",
    "ferretdb/pymongo": "pymongo to FerretDB",
    "ramsql/go": "RamSQL",
}


def runtime_words(runtime: str) -> str:
    """`cpython3.11.7` -> CPython, `haskell-O2-ghc9.0.2` -> GHC 9.0.2 -O2, `jvm-17` -> the JVM."""
    r = str(runtime)
    if r.startswith("haskell"):
        opt = r.split("-")[1] if r.count("-") >= 2 else ""
        ghc = r.rsplit("ghc", 1)[-1] if "ghc" in r else ""
        return " ".join(x for x in ("GHC", ghc, f"-{opt}" if opt else "") if x)
    for prefix, word in (("cpython", "CPython"), ("pypy", "PyPy"), ("jvm", "the JVM"), ("go", "Go"), ("c", "C")):
        if r.startswith(prefix):
            return word
    return r


def plain_name(spec: str) -> str:
    """A configuration in words (`PLAIN_NAMES`), else `driver on runtime` from `engine/driver@runtime`
    (`DRIVER_WORDS`, `runtime_words`)."""
    if spec in PLAIN_NAMES:
        return PLAIN_NAMES[spec]
    engine, _, runtime = spec.partition("@")
    family = runtime_words(runtime) if runtime else ""
    if family in ("CPython", "PyPy", "C", "Go") and f"{engine}@{family.lower()}" in PLAIN_NAMES:
        return PLAIN_NAMES[f"{engine}@{family.lower()}"]
    words = DRIVER_WORDS.get(engine, engine.split("/")[-1])
    return f"{words} on {family}" if runtime else words


def _sentence_case(s: str) -> str:
    return s[:1].upper() + s[1:]


def _matches(key: tuple, engine: str, runtime: str | None) -> bool:
    return key[2] == engine and (runtime is None or str(key[3]).startswith(runtime))


def cells(runs: RunSet, benchmark: str, spec: str) -> dict[str, tuple]:
    """params -> cell key of `benchmark` on `spec` (`ENGINE` or `ENGINE@RUNTIME`)."""
    engine, runtime = parse_baseline(spec)
    return {k[1]: k for k in runs.samples if k[0] == benchmark and _matches(k, engine, runtime)}


def _boot(runs: RunSet, key: tuple, alt: bool = False) -> CellBoot | None:
    """A cell's reduction, or (`alt`) its reduction from the other choice of iterations."""
    return (runs.alt_boots if alt else runs.boots)([key]).get(key)


def pair_ratio(runs: RunSet, benchmark: str, a: str, b: str, alt: bool = False) -> tuple[float, float, float] | None:
    """(time ratio a/b, low, high) of one benchmark (its first params present on both), or None; `alt`: from
    the other choice of iterations (every iteration where the runs read steady states)."""
    ca, cb = cells(runs, benchmark, a), cells(runs, benchmark, b)
    common = sorted(set(ca) & set(cb))
    if not common:
        return None
    x, y = _boot(runs, ca[common[0]], alt), _boot(runs, cb[common[0]], alt)
    if x is None or y is None:
        return None
    return combine_log_ratios([(x, y)], runs.confidence)


def family_specs(runs: RunSet, prefix: str) -> list[str]:
    """Every ENGINE@RUNTIME-FAMILY with timings in the family (e.g. sqlite/sqlite3@cpython)."""
    return sorted({f"{k[2]}@{str(k[3]).rstrip('0123456789.').split('-', 1)[0]}"
                   for k in runs.samples if k[0].startswith(prefix)})


def common_cells(runs: RunSet, prefix: str, specs: list[str]) -> set[tuple[str, str]]:
    """The (benchmark, params) of the family that every one of `specs` ran: the one subset over which
    geometric means of several engines or runtimes are comparable with each other."""
    out: set[tuple[str, str]] | None = None
    for spec in specs:
        have = {(bench, params) for bench in {k[0] for k in runs.samples if k[0].startswith(prefix)}
                for params in cells(runs, bench, spec)}
        out = have if out is None else out & have
    return out or set()


def geomean_ratio(runs: RunSet, prefix: str, a: str, b: str,
                  only: set[tuple[str, str]] | None = None, alt: bool = False) -> tuple[float, float, float, int]:
    """(geometric mean over the family's benchmarks of the time ratio a/b, low, high, benchmarks),
    over the (benchmark, params) in `only` when given (a subset common to every side compared); `alt`:
    from the other choice of iterations (every iteration where the runs read steady states)."""
    pairs = []
    for bench in sorted({k[0] for k in runs.samples if k[0].startswith(prefix)}):
        ca, cb = cells(runs, bench, a), cells(runs, bench, b)
        for params in sorted(set(ca) & set(cb)):
            if only is not None and (bench, params) not in only:
                continue
            x, y = _boot(runs, ca[params], alt), _boot(runs, cb[params], alt)
            if x is not None and y is not None:
                pairs.append((x, y))
    if not pairs:
        return math.nan, math.nan, math.nan, 0
    return (*combine_log_ratios(pairs, runs.confidence), len(pairs))


def compare(runs: RunSet, benchmark: str, a: str, b: str, what: str = "", plain: bool = False) -> str:
    """The sentence for one benchmark, or '' when either side is missing; `plain` names the two
    configurations in words (`plain_name`), as the abstract does."""
    r = pair_ratio(runs, benchmark, a, b)
    if not r:
        return ""
    if plain:
        text = _sentence_case(ratio_sentence(plain_name(a), plain_name(b), *r, confidence=runs.confidence, what=what,
                                             spread=spread_of(runs)))
    else:
        text = ratio_sentence(a, b, *r, confidence=runs.confidence, what=what, spread=spread_of(runs))
    return text + dagger(runs, benchmark, a, b, r)


def spread_of(runs: RunSet) -> str:
    """What `runs`' intervals hold beyond one run ("with the run-to-run spread", `runspread.Widened`), or ""."""
    return str(getattr(type(runs), "spread", "") or "")


def spread_words(runs: RunSet, lead: str = " ") -> str:
    """`spread_of` for a label, after `lead` ("99% CI with the run-to-run spread"); "" for one run's intervals."""
    return f"{lead}{spread}" if (spread := spread_of(runs)) else ""


def interval_side(lo: float, hi: float) -> int:
    """Which way an interval of a time ratio says: 1 above 1, -1 below, 0 straddling (or none)."""
    return (lo > 1) - (hi < 1) if math.isfinite(lo) and math.isfinite(hi) else 0


def disagrees(r: tuple[float, float, float], alt: tuple[float, float, float]) -> bool:
    """The tables' † rule: warm-up changes the answer when either estimate lies outside the other's interval,
    or the two intervals lie on different sides of 1."""
    if not (alt and all(map(math.isfinite, (*r, *alt)))):
        return False
    outside = not (r[1] <= alt[0] <= r[2]) or not (alt[1] <= r[0] <= alt[2])
    return outside or interval_side(*r[1:]) != interval_side(*alt[1:])


def dagger(runs: RunSet, benchmark: str, a: str, b: str, r: tuple[float, float, float]) -> str:
    """` †: counting every iteration, 1.69 [1.46, 1.96] times slower.` when the other choice of iterations
    changes the answer by the tables' rule (`disagrees`), "" otherwise."""
    if not hasattr(runs, "alt_boots"):
        return ""
    alt = pair_ratio(runs, benchmark, a, b, alt=True)
    return said_dagger(runs, r, alt)


def _g3(x: float) -> str:
    """Three significant digits, trailing zeros kept (`1.00`, `2.00`, `137`), as the intervals beside them."""
    return f"{x:#.3g}".rstrip(".")


def said_dagger(runs: RunSet, r: tuple[float, float, float], alt: tuple[float, float, float] | None,
                always: bool = False) -> str:
    """The † sentence for a ratio `r` and its estimate from the other choice of iterations `alt`; `always`: the
    other estimate said even where it gives the same answer (a JIT's ratio, whose reader wants both)."""
    other = "every iteration" if getattr(runs, "steady_state", True) else "steady states only"
    if alt and always and all(map(math.isfinite, alt[:3])) and not disagrees(r, alt[:3]):
        return f" Counting {other}, the same answer: {_g3(alt[0])} [{_g3(alt[1])}, {_g3(alt[2])}]."
    if not alt or not disagrees(r, alt[:3]):
        return ""
    side = interval_side(*alt[1:])
    said = (f"{_g3(alt[0])} [{_g3(alt[1])}, {_g3(alt[2])}] times slower" if side > 0 else
            f"{_g3(1 / alt[0])} [{_g3(1 / alt[2])}, {_g3(1 / alt[1])}] times faster" if side < 0 else
            f"the two cannot be told apart, {_g3(alt[0])} [{_g3(alt[1])}, {_g3(alt[2])}]")
    return f" †: counting {other}, {said}."


def compare_family(runs: RunSet, prefix: str, a: str, b: str, label: str,
                   only: set[tuple[str, str]] | None = None, plain: bool = False, both: bool = False) -> str:
    """The sentence for a family's geometric mean (over `only` when given), or '' when there is
    nothing to compare (`plain`: the configurations in words, as in `compare`; `both`: the estimate from the
    other choice of iterations said even where it agrees, `said_dagger`'s `always`)."""
    r, lo, hi, n = geomean_ratio(runs, prefix, a, b, only)
    if not n:
        return ""
    # the tables' †: the geometric mean from the other choice of iterations, where it changes the answer
    mark = said_dagger(runs, (r, lo, hi), geomean_ratio(runs, prefix, a, b, only, alt=True)[:3], both) \
        if hasattr(runs, "alt_boots") else ""
    # with both estimates said, the first names its choice of iterations too
    what = f"over the {n} {label}" + (", warm-up left out where detected" if both and mark else "")
    if plain:
        return _sentence_case(ratio_sentence(plain_name(a), plain_name(b), r, lo, hi, runs.confidence,
                                             what=what, note="geometric mean of the time ratios",
                                             spread=spread_of(runs))) + mark
    return ratio_sentence(a, b, r, lo, hi, runs.confidence, what=what,
                          note="geometric mean of the time ratios", spread=spread_of(runs)) + mark


def count_verdicts(runs: RunSet, prefix: str, a: str, b: str) -> dict[str, int]:
    """How many of the family's benchmarks a is faster / slower / indistinguishable from b."""
    out = {"faster": 0, "slower": 0, "same": 0, "unknown": 0}
    for bench in sorted({k[0] for k in runs.samples if k[0].startswith(prefix)}):
        r = pair_ratio(runs, bench, a, b)
        if r:
            out[verdict(r[1], r[2])] += 1
    return out


def separated(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two intervals (low, high) are apart: each finite and neither touching the other."""
    if not all(math.isfinite(x) for x in (*a, *b)):
        return False
    return a[1] < b[0] or b[1] < a[0]


def extreme_phrase(items: list[tuple[str, float, float, float]], word: str = "fastest",
                   higher_wins: bool = False) -> str:
    """Which item is `word` ("fastest", "slowest", ...), said only as far as the intervals allow.

    `items`: (name, estimate, low, high); the winner has the lowest estimate (the highest with
    `higher_wins`). It is called `word` only when its interval is apart from every other's;
    otherwise the items whose intervals overlap the winner's are named "among the {word}, and cannot
    be told apart". Returns "" with no item that has an estimate."""
    rows = [r for r in items if math.isfinite(r[1])]
    if not rows:
        return ""
    rows.sort(key=lambda r: -r[1] if higher_wins else r[1])
    best, rest = rows[0], rows[1:]
    ties = [r for r in rest if not separated((best[2], best[3]), (r[2], r[3]))]
    if not rest:
        return f"{best[0]} is the only one measured"
    if not ties:
        return f"{best[0]} is {word}"
    if len(ties) > 3:  # a long list says less than the count
        return (f"{best[0]} is {word} by its estimate, but {len(ties)} others' intervals overlap its, so none can be "
                f"called {word}")
    names = ", ".join(r[0] for r in [best, *ties])
    return f"{names} are among the {word} and cannot be told apart (their intervals overlap)"


def subset_note(runs: RunSet, prefix: str, specs: list[str], common: set[tuple[str, str]], unit: str) -> str:
    """The sentence under geometric means taken over `common` (the cells every one of `specs` ran):
    how many, which, and the benchmarks left out with who lacks them."""
    names = sorted({b.replace(prefix, "") for b, _ in common})
    lacking: dict[str, list[str]] = {}
    for bench in sorted({k[0] for k in runs.samples if k[0].startswith(prefix)}):
        if bench.replace(prefix, "") not in names:
            lacking[bench.replace(prefix, "")] = [s for s in specs if not cells(runs, bench, s)]
    n = len(common)
    note = (f"Every geometric mean above is over the same {n} {unit}{'' if n == 1 else 's'} ({', '.join(names)}), "
            "the ones every engine here ran, so they can be set beside each other")
    if lacking:
        note += "; left out: " + "; ".join(f"{b} ({'no timings on ' + ', '.join(w) if w else 'other parameters'})"
                                          for b, w in lacking.items())
    return note + "."
