"""The five seeds' claims in one table: each quoted, the seed's number beside ours, one verdict.

Each claim is a function of the runs that returns a `Claim`; its verdict comes from the rules of
`verdicts.py` applied to our intervals, never typed in. The seeds' numbers are quoted from their
texts (they live in `seeds.py`, `app.SEED`, `inserts.SEED`, `ramsql.SEED_SEC_PER_OP` and here as
quoted sentences), labelled as the seed's. Claims whose substitute here differs from what the seed
measured are *untestable here*, and the verdict says how it differs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import pandas as pd

from harness.studies import app, inserts, ramsql
from harness.studies import verdicts as v
from harness.studies.findings import cells as cells_of, num
from harness.studies.seeds import PY, C, SEEDS

if TYPE_CHECKING:
    from harness.analysis.runset import RunSet

#: the seeds, cited by author, title and year (the references list of paper.md has them in full)
CITE = {
    "000": "Hellsten, \"Benchmarking sqlite-simple\" (2013)",
    "001": "Bolz, Kurilova, Tratt, \"Making an Embedded DBMS JIT-friendly\" (2016)",
    "002": "\"Haskell Profiling: Third Impact, or, AcidState vs. The World\" (2013)",
    "003": "Joe, \"Some SQLite 3.7 Benchmarks\" (2010)",
    "004": "Roullon, \"Benchmarking RamSQL\" (2023)",
}

Interval = tuple[float, float, float]
NONE: Interval = (math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class Claim:
    """One row of the verdict table: the seed, its claim quoted, its number, ours, the verdict."""

    seed: str
    quote: str
    seed_number: str
    ours: str
    verdict: v.Verdict


def show(r: Interval, unit: str = "x") -> str:
    """`est [low, high]` of a positive ratio; no bounds when there is no valid interval."""
    est, lo, hi = r
    if not math.isfinite(est):
        return "not measured"
    if not v.valid(lo, hi):
        return f"{num(est)}{unit} (no interval)"
    return f"{num(est)}{unit} [{num(lo)}, {num(hi)}]"


def inverse(r: Interval) -> Interval:
    """b/a from a/b: the estimate and bounds inverted (bounds swap)."""
    est, lo, hi = r
    return 1 / est, 1 / hi, 1 / lo


def decide(r: Interval, rule: Callable[[float, float], v.Verdict]) -> v.Verdict:
    """`rule` on the interval of `r`, or untestable here when these runs do not measure it at all."""
    if not math.isfinite(r[0]):
        return v.untestable("these runs have no cell that measures it")
    return rule(r[1], r[2])


def ratio_at(runs: RunSet, benchmark: str, a: str, b: str, params: str, benchmark_b: str | None = None) -> Interval:
    """time(a) / time(b) of one benchmark at `params` (or of a's `benchmark` over b's `benchmark_b`,
    where a seed timed two different programs), with its interval (t on the log scale)."""
    from harness.analysis.stats import combine_log_ratios

    ca, cb = cells_of(runs, benchmark, a), cells_of(runs, benchmark_b or benchmark, b)
    if params not in ca or params not in cb:
        return NONE
    boots = runs.boots([ca[params], cb[params]])
    x, y = boots.get(ca[params]), boots.get(cb[params])
    return combine_log_ratios([(x, y)], runs.confidence) if x is not None and y is not None else NONE


# --- seed 000 ---------------------------------------------------------------------------------

def seed000_c_vs_python(runs: RunSet) -> Claim:
    """Native C reads rows about 2.76x as fast as Python's sqlite3 (6,891,798 vs 2,500,000 rows/s)."""
    seed = {s.key: s for s in SEEDS["000"][1]}["c_vs_py"]
    # the seed's two programs: C stepped and folded; its bench.py called fetchall() and summed the list
    r = ratio_at(runs, "bindings.select_all", PY, C, "n=10000", benchmark_b="bindings.select_fold")
    return Claim("000", "native sqlite (C) 6,891,798 rows/s; \"a Python reimplementation ... at 2.5M rows/s\"",
                 f"{seed.shown} (C / Python)", show(r) + " (sqlite3@cpython select_all time, fetchall then a sum "
                 "as the seed's bench.py / native-c select_fold time, step and column as the seed's C; "
                 "N = 10,000)", decide(r, lambda lo, hi: v.about(lo, hi, seed.value)))


def seed000_sqlite_simple(_: RunSet) -> Claim:
    """sqlite-simple's optimisations took it from 53K to over 2M rows/s: its binding is not here."""
    return Claim("000", "sqlite-simple went \"from 53K to 750K rows/s\" and, after the direct-sqlite work, to "
                 "2,208,862 rows/s (fold_)", "2,208,862 rows/s", "—", v.untestable(
                     "sqlite-simple and direct-sqlite are not packaged in Debian, so no cell runs them; "
                     "persistent-sqlite stands in for direct-sqlite in the Haskell E1 runs"))


# --- seed 001 ---------------------------------------------------------------------------------

NO_SQPYTE = ("we have no SQPyte (SQLite's interpreter in RPython, inlined into PyPy): PyPy here calls stock "
             "SQLite through its cffi sqlite3 module, so nothing is inlined across the boundary")


def seed001_inlining(_: RunSet) -> Claim:
    """The headline: inlining across the boundary speeds programs up 3.4x."""
    return Claim("001", "programs that interact with SQLite \"can be significantly optimized – by a factor of 3.4 "
                 "in our benchmarks – by inlining across the PL / DBMS boundary\"", "3.367 ± 0.0648 (Figure 16)",
                 "—", v.untestable(NO_SQPYTE))


def seed001_tpch(_: RunSet) -> Claim:
    """SQPyte is 2.2% faster than SQLite on TPC-H."""
    return Claim("001", "SQPyte \"is 2.2% faster than SQLite on the widely used TPC-H benchmark suite\"",
                 "1.022 ± 0.0151 (Figure 11)", "—", v.untestable(NO_SQPYTE))


# --- seed 002 ---------------------------------------------------------------------------------

def _app(runs: RunSet) -> tuple[pd.DataFrame, Callable[..., Interval]]:
    cells = app.app_cells(runs.summary)
    return cells, (app._Ratios(runs, cells) if not cells.empty else None)


#: seed 002's claims, computed by the E5 study (`app.claims`) and quoted with its number here
SEED002_NUMBERS = (">= 8x", "below 100 µs", "no number", f"about 1/{app.SEED['mongo_next']:.0f}", "no number",
                   f"about {app.SEED['optimisation']:g}x", f"about {app.SEED['acid_lookup_optimisation']:g}x")


def seed002(runs: RunSet) -> list[Claim]:
    """Seed 002's claims as the E5 study words and decides them."""
    items = app.claims(*_app(runs))
    return [Claim("002", c["claim"], n, c["evidence"] or "—", c["verdict"]) for c, n in zip(items, SEED002_NUMBERS)]


# --- seed 003 ---------------------------------------------------------------------------------

def _grid(runs: RunSet) -> pd.DataFrame:
    df = inserts.cells(runs.summary)
    return inserts.grid_findings(runs, df) if not df.empty else pd.DataFrame()


def sync_verdicts(grid: pd.DataFrame, above_rows: int) -> tuple[list[v.Verdict], list[str]]:
    """Per engine and N > above_rows: delete+full time / delete+off time > 1."""
    out, shown = [], []
    if grid.empty or "sync_cost" not in grid:
        return out, shown
    for r in grid[grid["rows"] > above_rows].itertuples(index=False):
        if isinstance(r.sync_cost, tuple):
            out.append(v.above(r.sync_cost[1], r.sync_cost[2]))
            shown.append(f"{r.engine} N = {r.rows:,}: {show(r.sync_cost)}")
    return out, shown


def on_storage(verdict: v.Verdict, substitute: str, what: str = "") -> v.Verdict:
    """A claim about the cost of syncing is untestable here when the files' storage is not the
    seed's kind of device (`inserts.sync_substitute` says how); otherwise its intervals decide."""
    return v.untestable(what + substitute) if substitute else verdict


def seed003_sync(runs: RunSet) -> Claim:
    above_rows = inserts.SEED["even_up_to_rows"]
    vs, shown = sync_verdicts(_grid(runs), above_rows)
    return Claim("003", f"\"After {above_rows:,}, the insertion benchmarks with synchronous off are faster than their "
                 "default synchronous counterparts\"", "no number (charts only)",
                 "delete+full time / delete+off time: " + ("; ".join(shown) or f"no grid cell above N = "
                                                          f"{above_rows:,}"),
                 on_storage(v.every_cell(vs), inserts.sync_substitute(inserts.grid_storage(runs))))


def memory_off_verdicts(grid: pd.DataFrame) -> tuple[list[v.Verdict], list[str]]:
    """Per engine at its largest N: the best other setting's time / memory+off's > 1."""
    out, shown = [], []
    if grid.empty:
        return out, shown
    for _, r in grid.sort_values("rows").groupby("engine").tail(1).iterrows():
        runner = r.get("runner_up_vs_fastest")
        mo = r.get("memory_off_vs_fastest")
        if isinstance(runner, tuple):
            ratio = runner  # memory+off is the fastest mean: runner-up / memory+off
        elif isinstance(mo, tuple):
            ratio = inverse(mo)  # the fastest other / memory+off
        else:
            continue
        out.append(v.above(ratio[1], ratio[2]))
        shown.append(f"{r['engine']} N = {int(r['rows']):,}: {show(ratio)}")
    return out, shown


def seed003_memory_off(runs: RunSet) -> Claim:
    vs, shown = memory_off_verdicts(_grid(runs))
    return Claim("003", "\"Journal mode set to memory and synchronous off offered the best performance\"",
                 "no number (charts only)", "fastest other setting's time / memory+off's: " + ("; ".join(shown)
                                                                                             or "no grid"),
                 on_storage(v.every_cell(vs), inserts.sync_substitute(inserts.grid_storage(runs)),
                            "the settings it ranks differ in what they sync, and "))


def seed003_versions(_: RunSet) -> Claim:
    a, b = inserts.SEED["versions"]
    return Claim("003", f"SQLite {b} is faster than {a} on prepared inserts: \"a speedup of about 3 seconds\"",
                 f"about {inserts.SEED['version_speedup_s']:g} s", "—", v.untestable(
                     "our two SQLite versions come with two drivers (Python's sqlite3 and apsw), so a difference "
                     "mixes library and binding; the seed changed only the library under one C program"))


# --- seed 004 ---------------------------------------------------------------------------------

def seed004_select(runs: RunSet) -> Claim:
    """RamSQL's select over 10,000 rows is about 100x slower than SQLite's."""
    seed = ramsql.SEED_SEC_PER_OP["ramsql.select_10k"]
    seed_ratio = seed[ramsql.RAMSQL] / seed[ramsql.SQLITE]
    ratios = ramsql.engine_ratios(runs)
    hit = ratios[ratios["benchmark"] == "ramsql.select_10k_fixed"]
    r = tuple(float(x) for x in hit.iloc[0][["ratio", "low", "high"]]) if len(hit) else NONE
    as_seed = ratios[ratios["benchmark"] == "ramsql.select_10k"]
    r0 = tuple(float(x) for x in as_seed.iloc[0][["ratio", "low", "high"]]) if len(as_seed) else NONE
    seed_code = (f"; with the seed's own code {show(r0)}, {decide(r0, lambda lo, hi: v.about(lo, hi, 100.0)).word} "
                 "by the same rule, but there SQLite reads no row while RamSQL reads 29") if len(as_seed) else ""
    return Claim("004", "\"RamSQL SELECT is 100x slower than SQLite (7479µs vs 11µs)\"",
                 f"100x as written ({num(seed_ratio)}x from its own 7,479 µs / 11.05 µs)",
                 show(r) + " (select_10k_fixed: the seed's SQLite read no row, so the fixed select, 29 rows on both; "
                 "the verdict is on this one)" + seed_code,
                 decide(r, lambda lo, hi: v.about(lo, hi, 100.0)))


def seed004_change(_: RunSet) -> Claim:
    return Claim("004", "\"the change gains 10% on SELECT and INSERT\" (benchstat, two RamSQL commits)", "about 10%",
                 "—", v.untestable("we run one RamSQL version; our two `go test` sessions run the same code (an "
                                   "A/A comparison)"))


BEFORE_002: tuple[Callable[[RunSet], Claim], ...] = (seed000_c_vs_python, seed000_sqlite_simple, seed001_inlining,
                                                     seed001_tpch)
AFTER_002: tuple[Callable[[RunSet], Claim], ...] = (seed003_sync, seed003_memory_off, seed003_versions,
                                                    seed004_select, seed004_change)


def claims(runs: RunSet) -> list[Claim]:
    """Every claim of the five seeds against these runs, in seed order."""
    return [f(runs) for f in BEFORE_002] + seed002(runs) + [f(runs) for f in AFTER_002]


def markdown(items: list[Claim], confidence: float = 0.99, method: str = "process-bootstrap") -> str:
    """The verdict table (6 columns) and its caption."""
    lines = ["| seed | claim (quoted) | seed's number | ours [CI] | verdict |", "|---|---|---|---|---|"]
    for c in items:
        cell = str(c.verdict).replace("|", "\\|")
        lines.append(f"| {CITE[c.seed]} | {c.quote} | {c.seed_number} | {c.ours} | {cell} |")
    counts = v.counts(c.verdict for c in items)
    tally = ", ".join(f"{n} {w}" for w, n in counts.items() if n)
    return ("\n".join(lines) + f"\n\nTable: The seeds' claims against these runs ({tally}). Seed columns quote the "
            f"seeds; ours are {confidence:.0%} intervals ({method} method, t on the log scale for ratios). Each "
            "verdict is computed by `harness/studies/verdicts.py`: supported or refuted only when the whole "
            "interval lies on one side of the claim's line, inconclusive when it straddles (with the smallest "
            f"effect the interval could have detected), \"about X\" read as within {v.ABOUT:g}x of X; a claim about "
            "every cell is refuted by one refuting cell; untestable here when our substitute differs (said how).")


def abstract_sentence(items: list[Claim]) -> str:
    """One sentence for the abstract: how many of the seeds' claims got each verdict."""
    if not items:
        return "_No claim of the seeds could be tested against these runs._"
    counts = {w: sum(c.verdict.word == w for c in items) for w in v.WORDS}
    parts = [f"{n} {'is' if n == 1 else 'are'} {w}" for w, n in counts.items() if n]
    seeds = len({c.seed for c in items})
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return f"Of the {len(items)} claims of the {seeds} seeds that our runs speak to, {listed} (Section 10)."
