"""E5, the application workload (seed 002, "AcidState vs. The World"): four operations on four
corpora per engine, and the seed's headline claims tested with intervals.

`compute(runs, figures_dir, baseline)` returns the table (operation x corpus x engine, mean
[low, high]), the claims (each supported / refuted / inconclusive / untestable here, by `verdicts.py`,
with the numbers), the figure and the paper blocks. Which cells are AcidState, MongoDB or SQLite
is read from engine names (`acidstate/*`, `ferretdb/*` or `mongodb/*`, `sqlite/*`), and the
`-O` comparison from runtime names (a Haskell runtime whose name says O0 against its optimised
twin), so cells another worker adds are picked up as they appear.
"""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from harness.analysis import wording
from harness.analysis.figures.app import OPERATIONS, plot_app
from harness.analysis.runset import RunSet
from harness.analysis.stats.intervals import combine_log_ratios
from harness.analysis.stats.resample import CELL_KEYS
from harness.studies import runspread, verdicts as v
from harness.studies.findings import spread_of
from harness.studies.common import BASELINE, StudyResult, excluded_cells, family_table, figure_link, protocol_text

PREFIX = "app."
CORPORA = ("SM", "MD", "LG", "LG2")
SELECTS = ("app.list_users", "app.query_user")
#: what seed 002 calls AcidState's "lookups" ("An IxSet lookup is actually just that fast", of selecting users by
#: id): the user query, not the listing
LOOKUP = "app.query_user"

#: what seed 002 reported (its own machine, Haskell, criterion; prose, not tables): the seed's numbers
SEED = {
    "acid_select": "AcidState's list and select in the low double-digit microseconds",
    #: "low double-digit microseconds": tens of µs, at most about 30 µs
    "acid_select_max_s": 30e-6,
    "acid_margin": 8.0,
    "others": "the other engines in the high single / low double-digit milliseconds",
    "mongo_next": 3.0,
    "optimisation": 2.0,
    "acid_lookup_optimisation": 5.0,
    #: "the vast majority of time spent inserting a user goes to generating the scrypt hash": read as more than
    #: 80% of it, a hashed insertion taking more than 5x an unhashed one (1 / (1 - 0.8))
    "scrypt_share": 0.8,
}


def _param(params: str, key: str, default: str = "") -> str:
    for part in str(params).split(","):
        k, _, v = part.partition("=")
        if k == key:
            return v
    return default


def is_acid(engine: str) -> bool:
    return engine.startswith("acidstate/")


def is_mongo(engine: str) -> bool:
    return engine.startswith(("ferretdb/", "mongodb/"))


def is_sqlite(engine: str) -> bool:
    return engine.startswith("sqlite/") and "native" not in engine


def unoptimised(runtime: str) -> bool:
    return "O0" in runtime


def app_cells(summary: pd.DataFrame) -> pd.DataFrame:
    """The valid E5 cells with operation, corpus, hash and a series label (engine, and its
    runtime when it is not CPython)."""
    df = summary[summary["benchmark"].str.startswith(PREFIX) & (summary["status"] == "ok")
                 & summary["mean_s"].notna()].copy()
    if df.empty:
        return df
    df["operation"] = df["benchmark"]
    df["corpus"] = df["params"].map(lambda p: _param(p, "corpus", "SM"))
    df["hash"] = df["params"].map(lambda p: _param(p, "hash", ""))
    df["series"] = [e if str(r).startswith("cpython") else f"{e}@{r}" for e, r in zip(df["engine"], df["runtime"])]
    df["row"] = [op.replace(PREFIX, "") + (" (scrypt)" if h == "on" else "") for op, h in zip(df["operation"],
                                                                                             df["hash"])]
    return df.reset_index(drop=True)


def scrypt_marker(table: pd.DataFrame) -> str:
    """The end of the caption's corpus list: the "(scrypt)" marker's definition only when a row of `table`
    carries it, else a full stop."""
    marked = len(table) and "operation" in table and table["operation"].astype(str).str.endswith(" (scrypt)").any()
    return "; \"(scrypt)\": the password hashed in the timed region. " if marked else ". "


def e5_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Rows: operation x corpus; columns: series; values: mean [low, high]."""
    if cells.empty:
        return pd.DataFrame()
    order = {op.replace(PREFIX, ""): i for i, op in enumerate(OPERATIONS)}
    rows = []
    for (row, corpus), d in cells.groupby(["row", "corpus"], sort=False):
        out: dict[str, Any] = {"operation": row, "corpus": corpus}
        for r in d.itertuples():
            out[r.series] = wording.time_interval(r.mean_s, r.ci_low_s, r.ci_high_s, trim=True, unit_at="end",
                                                   no_ci=" (no CI)")
        rows.append(out)
    t = pd.DataFrame(rows)
    t["_o"] = t["operation"].map(lambda r: (order.get(r.split(" ")[0], 9), r))
    t["_c"] = t["corpus"].map(lambda c: CORPORA.index(c) if c in CORPORA else 9)
    series = sorted(cells["series"].unique())
    return t.sort_values(["_o", "_c"]).drop(columns=["_o", "_c"])[["operation", "corpus", *series]].fillna("")\
        .reset_index(drop=True)


class _Ratios:
    """Ratios of cell means with 99% t intervals on the log scale, from the cells' own reductions."""

    def __init__(self, runs: RunSet, cells: pd.DataFrame) -> None:
        self.keys = {i: tuple(r) for i, r in zip(cells.index, cells[CELL_KEYS].itertuples(index=False, name=None))}
        self.boots = runs.boots(list(self.keys.values()))
        self.confidence = runs.confidence
        self.spread = spread_of(runs)  # what the intervals hold beyond one run ("" for one run's)

    def __call__(self, num: Any, den: Any) -> tuple[float, float, float]:
        return self.geomean([(num, den)])

    def geomean(self, pairs: list[tuple[Any, Any]]) -> tuple[float, float, float]:
        """The geometric mean of the (num, den) pairs' time ratios, with its interval (one pair: its ratio)."""
        boots = [(self.boots.get(self.keys[a]), self.boots.get(self.keys[b])) for a, b in pairs]
        if not boots or any(a is None or b is None for a, b in boots):
            return math.nan, math.nan, math.nan
        return combine_log_ratios(boots, self.confidence)


Interval = tuple[float, float, float]
Ratio = Callable[[Any, Any], Interval]


def spread(rs: list[Interval], what: str = "cells") -> str:
    """The range of the estimates of several ratios, and how many (`what`: cells, pairs)."""
    ok = sorted(r[0] for r in rs if math.isfinite(r[0]))
    if not ok:
        return "not measured"
    if len(ok) == 1:  # one cell: its estimate, not a range
        one = {"cells": "cell", "pairs of cells": "pair of cells", "pairs": "pair"}.get(what, what)
        return f"estimate {ok[0]:.3g}x (1 {one})"
    return f"estimates {ok[0]:.3g}x to {ok[-1]:.3g}x over {len(ok)} {what}"


def _claim(claim: str, verdict: v.Verdict, evidence: str = "",
           cells: list[tuple[str, Interval, v.Verdict]] | None = None) -> dict[str, Any]:
    """A claim's row: its words, verdict and evidence, and (`cells`) each cell's label, interval and verdict
    where the verdict is a rule over cells (`sensitivity.py` says which cells an alternative reading moves)."""
    return {"claim": claim, "verdict": verdict, "evidence": evidence, "cells": cells or []}


#: the cells where seed 002's "wins by 8x" comparison holds: AcidState against the seed's contenders that we
#: run the seed's way, through its Haskell bindings (HDBC-sqlite3; PostgreSQL, also run through HDBC here, was
#: never the seed's, and its MongoDB and MySQL have no like-for-like cell), on every corpus measured (the
#: seed's claim spans all four)
ACID_CONTENDERS = ("sqlite/hdbc",)
ACID_CORPORA = CORPORA


def acid_pairs(cells: pd.DataFrame, ratio: Ratio, operations: tuple[str, ...] = SELECTS,
               seed_build: bool | None = True) -> list[tuple[str, str, str, Interval]]:
    """(operation, corpus, runtime, ratio) per AcidState cell of `operations` on the corpora ACID_CORPORA:
    the next fastest of the seed's contenders run through HDBC (ACID_CONTENDERS) on AcidState's runtime and
    build, time / AcidState's. `seed_build`: True keeps the seed's `ghc --make` build (-O0) only, False the
    optimised builds only, None both."""
    out = []
    acid = cells[cells["engine"].map(is_acid) & cells["operation"].isin(operations) & cells["corpus"].isin(ACID_CORPORA)]
    for i, a in acid.iterrows():
        if seed_build is not None and unoptimised(str(a["runtime"])) != seed_build:
            continue
        # the seed compared Haskell back-ends: the next fastest on AcidState's own runtime and build
        others = cells[(cells["operation"] == a["operation"]) & (cells["corpus"] == a["corpus"])
                       & (cells["params"] == a["params"]) & cells["engine"].isin(ACID_CONTENDERS)
                       & (cells["runtime"].astype(str) == str(a["runtime"]))]
        if not others.empty:
            out.append((str(a["operation"]), str(a["corpus"]), str(a["runtime"]), ratio(others["mean_s"].idxmin(), i)))
    return out


def acid_margins(cells: pd.DataFrame, ratio: Ratio, seed_build: bool | None = True) -> list[Interval]:
    """The ratios of `acid_pairs` over the list and select cells (the seed's build only, by default)."""
    return [r for *_, r in acid_pairs(cells, ratio, seed_build=seed_build)]


def _shown(r: Interval) -> str:
    return f"{r[0]:.3g}x [{r[1]:.3g}, {r[2]:.3g}]" if v.valid(r[1], r[2]) else f"{r[0]:.3g}x (no interval)"


def pair_text(pairs: list[tuple[str, str, str, Interval]]) -> str:
    """`list_users SM 4.32x [3.1, 6.0]; ...` for the cells a note names."""
    return "; ".join(f"{op.replace(PREFIX, '')} {corpus}: {_shown(r)}" for op, corpus, _, r in pairs)


def acid_corpora(cells: pd.DataFrame) -> list[str]:
    """The corpora at which some AcidState cell was measured, in the seed's order."""
    have = set(cells.loc[cells["engine"].map(is_acid), "corpus"]) if len(cells) else set()
    return [c for c in ACID_CORPORA if c in have]


def acid_scope(cells: pd.DataFrame) -> str:
    """What the 8x verdict covers and what it leaves out, from the cells."""
    engines = sorted({str(e) for e in cells.get("engine", []) if not is_acid(str(e))} - set(ACID_CONTENDERS))
    measured = acid_corpora(cells)
    unmeasured = [c for c in ACID_CORPORA if c not in measured]
    return (f"decided over {', '.join(ACID_CONTENDERS)} (HDBC-sqlite3, the seed's own binding) on corpora "
            f"{', '.join(measured)}; left out: " + (f"the other {len(engines)} engine"
            f"{'s' if len(engines) > 1 else ''} of E5 (a Python driver adds an interpreter the seed never had, "
            "FerretDB is not MongoDB, and the seed never ran PostgreSQL)" if engines else "no other engine")
            + (f", and corpora {', '.join(unmeasured)} (not measured in these runs)" if unmeasured else ""))


def acid_verdict_scope(cells: pd.DataFrame) -> str:
    """What the AcidState verdicts cover, said in the verdict itself."""
    return (f"at corpora {', '.join(acid_corpora(cells))}, against HDBC-SQLite only, on the seed's build "
            "(`ghc --make`, -O0)")


def claim_acid(cells: pd.DataFrame, ratio: Ratio, line: float | None = None, seed_build: bool = True) -> dict[str, Any]:
    """AcidState wins its selects by 8x or more: every list/select cell in the claim's scope, on the seed's
    build (`ghc --make`, no -O: our -O0), the next fastest contender's time / AcidState's at least 8 (a
    straddling interval is inconclusive); the optimised builds' cells are context, and each refuting cell's margin
    is said. `line` and `seed_build` are for the alternative readings of `sensitivity.py` (another line; the
    optimised builds' cells)."""
    claim = "AcidState: \"the benchmarks it wins, it wins by an 8x or larger margin\" (list and select)"
    pairs = acid_pairs(cells, ratio, seed_build=seed_build) if len(cells) else []
    if not pairs:
        return _claim(claim, v.untestable("no AcidState cell of the seed's build (-O0) beside HDBC-sqlite3's on "
                                          "any corpus in these runs"))
    line = SEED["acid_margin"] if line is None else line
    verdicts = [v.at_least(r[1], r[2], line) for *_, r in pairs]
    inner = v.every_cell(verdicts)
    refuting = [p for p, x in zip(pairs, verdicts) if x.word == v.REFUTED]
    verdict = v.Verdict(inner.word, f"{acid_verdict_scope(cells)}: {inner.why}", inner.detectable)
    rs = [r for *_, r in pairs]
    evidence = (f"sqlite/hdbc time / AcidState's per operation x corpus, {pairs[0][2]} (the seed's `ghc --make`): "
                f"{spread(rs)}; " + (f"the refuting cells' margins (below {line:g}x, the whole interval): "
                                     f"{pair_text(refuting)}; " if refuting else "")
                + f"{acid_scope(cells)}")
    optimised = acid_pairs(cells, ratio, seed_build=False)
    if optimised and seed_build:
        evidence += (f". The optimised builds ({builds_text(optimised)}), as context: "
                     f"{spread([r for *_, r in optimised])} ({pair_text(optimised)})")
    return _claim(claim, verdict, evidence, cells=[(pair_text([p]).split(": ")[0], p[3], x)
                                                   for p, x in zip(pairs, verdicts)])


def builds_text(pairs: list[tuple[str, str, str, Interval]]) -> str:
    """Which optimised build each corpus of `pairs` has: `-O2 at SM, MD; -O1 at LG2`."""
    by: dict[str, list[str]] = {}
    for _, corpus, runtime, _ in pairs:
        flag = f"-{optimisation_flag(runtime)}" if optimisation_flag(runtime) else str(runtime)
        if corpus not in by.setdefault(flag, []):
            by[flag].append(corpus)
    return "; ".join(f"{flag} at {', '.join(sorted(cs, key=CORPORA.index))}" for flag, cs in sorted(by.items(), reverse=True))


def claim_acid_narrow(cells: pd.DataFrame, ratio: Ratio) -> dict[str, Any]:
    """The benchmarks AcidState loses, it loses narrowly: read on the 8x claim's cells (every operation, the
    seed's build, corpora SM and MD, against HDBC-sqlite3). A loss is a cell whose contender / AcidState
    interval lies wholly below 1; each loss is decided by `verdicts.narrowly`. No loss: nothing to read."""
    claim = ("AcidState: \"The benchmarks it loses, it loses narrowly\" (its footnote: \"Except that MongoDB is "
             "significantly better at item insertion\" near 1k users)")
    pairs = acid_pairs(cells, ratio, OPERATIONS) if len(cells) else []
    if not pairs:
        return _claim(claim, v.untestable("no AcidState cell of the seed's build (-O0) beside HDBC-sqlite3's on "
                                          "any corpus in these runs"))
    losses = [(op, c, rt, r) for op, c, rt, r in pairs if v.valid(r[1], r[2]) and r[2] < 1]
    rs = [r for *_, r in pairs]
    evidence = (f"sqlite/hdbc time / AcidState's, every operation, {pairs[0][2]}: {spread(rs)}"
                f"{'; losses: ' + pair_text(losses) if losses else ''}")
    if not losses:
        return _claim(claim, v.untestable(
            "on the 8x claim's cells (every operation, against HDBC-sqlite3, the one contender run the seed's way, "
            f"{acid_verdict_scope(cells).replace(', against HDBC-SQLite only', '')}) AcidState loses no cell: no interval of "
            "sqlite/hdbc time / AcidState's lies below 1, so there is no loss to call narrow; the seed's losses were "
            "to MongoDB, its footnote says, and FerretDB does not stand in for MongoDB"), evidence)
    # AcidState's time / the winner's: a loss is narrow when it stays below the band of `verdicts.narrowly`
    verdict = v.every_cell(v.narrowly(1 / r[2], 1 / r[1]) for *_, r in losses)
    return _claim(claim, v.Verdict(verdict.word, f"{acid_verdict_scope(cells)}: {verdict.why}", verdict.detectable),
                  evidence)


def corpora_of(cells: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(measured, not measured) of the seed's corpora, in the seed's order."""
    have = set(cells["corpus"]) if len(cells) else set()
    return [c for c in CORPORA if c in have], [c for c in CORPORA if c not in have]


def corpora_text(cells: pd.DataFrame) -> str:
    """`; on corpora SM, MD (LG, LG2 not measured)` for a claim's evidence."""
    have, missing = corpora_of(cells)
    return (f"; on corpora {', '.join(have)}" + (f" ({', '.join(missing)} not measured)" if missing else "")) if have else ""


def only_measured(verdict: v.Verdict, cells: pd.DataFrame) -> v.Verdict:
    """A claim about every corpus that held on the corpora measured is not decided for the others:
    supported becomes inconclusive (a refutation on one corpus stands)."""
    have, missing = corpora_of(cells)
    if verdict.word != v.SUPPORTED or not missing:
        return verdict
    return v.Verdict(v.INCONCLUSIVE, f"supported on {', '.join(have)}; {', '.join(missing)} not measured")


def claim_acid_micro(cells: pd.DataFrame, ratio: Ratio) -> dict[str, Any]:
    """AcidState's lists and selects take microseconds: every cell's time below 30 µs (the limit /
    time interval above 1)."""
    claim = "AcidState \"consistently posts list and select numbers in the low double-digit microseconds\""
    limit = SEED["acid_select_max_s"]
    acid = cells[cells["engine"].map(is_acid) & cells["operation"].isin(SELECTS)] if len(cells) else cells
    if acid.empty:
        return _claim(claim, v.untestable("no AcidState cells in these runs"))
    rs = [(limit / a.mean_s, limit / a.ci_high_s, limit / a.ci_low_s) for a in acid.itertuples()]
    verdict = v.every_cell(v.above(r[1], r[2]) for r in rs)
    return _claim(claim, verdict, f"mean time per list/select cell: {acid['mean_s'].min() * 1e6:.3g} to "
                                  f"{acid['mean_s'].max() * 1e6:,.0f} µs over {len(acid)} cells (limit "
                                  f"{limit * 1e6:.0f} µs)")


INSERTIONS = ("app.insert_user", "app.insert_item")


def corpus_pairs(cells: pd.DataFrame, operations: tuple[str, ...]) -> list[tuple[Any, Any, str]]:
    """(AcidState's cell at the largest corpus measured, the same operation, build and hash at the smallest,
    label) per operation of `operations`, on the seed's build (-O0, `ghc --make`)."""
    if not len(cells):
        return []
    acid = cells[cells["engine"].map(is_acid) & cells["runtime"].astype(str).map(unoptimised)
                 & cells["operation"].isin(operations)]
    keys = [k for k in ("operation", "runtime", "hash") if k in acid]
    out = []
    for _, g in acid.groupby(keys, sort=False):
        have = [c for c in CORPORA if c in set(g["corpus"])]
        if len(have) < 2:
            continue
        big, small = g.index[g["corpus"] == have[-1]][0], g.index[g["corpus"] == have[0]][0]
        row = g.loc[big].get("row") or str(g.loc[big, "operation"]).replace(PREFIX, "")
        out.append((big, small, f"{row} {have[-1]} / {have[0]}"))
    return out


def claim_acid_corpus(cells: pd.DataFrame, ratio: Ratio, selects: tuple[str, ...] = (LOOKUP,)) -> dict[str, Any]:
    """AcidState's "insertion speed goes down a bit based on corpus size, but selection speed is always the same
    range": on the seed's build, its time at the largest corpus measured over its time at the smallest, per
    insertion (user and item) a bit above 1 (`verdicts.a_bit_above`), and for the selection (the user query, the
    seed's "lookups"; `selects` another reading) about 1; every cell must hold (the seed says "always")."""
    claim = ("AcidState: \"insertion speed goes down a bit based on corpus size, but selection speed is always the "
             "same range of extremely low numbers\"")
    ins, sel = corpus_pairs(cells, INSERTIONS), corpus_pairs(cells, selects)
    if not ins or not sel:
        return _claim(claim, v.untestable("AcidState's insertions and user query are not measured at two corpora on "
                                          "the seed's build (-O0) in these runs"))
    ins_calls = [(label, r, v.a_bit_above(r[1], r[2])) for label, r in ((lb, ratio(i, j)) for i, j, lb in ins)]
    sel_calls = [(label, r, v.about(r[1], r[2], 1.0)) for label, r in ((lb, ratio(i, j)) for i, j, lb in sel)]
    evidence = ("AcidState's time at the largest corpus / at the smallest, on the seed's build (-O0; \"a bit\" read "
                f"as below {v.ABOUT:g}x, \"the same range\" as within {v.ABOUT:g}x of 1): "
                + ", ".join(f"{label} {_shown(r)}" for label, r, _ in ins_calls + sel_calls))
    return _claim(claim, v.every_cell(c for *_, c in ins_calls + sel_calls), evidence, cells=ins_calls + sel_calls)


FERRETDB = ("MongoDB is reached through FerretDB (MongoDB's wire protocol over PostgreSQL); the seed's manual "
            "auto-increment counts the accounts (`count`) before each insert, ours asks for the largest id, and "
            "FerretDB answers either by scanning the collection")


def claim_mongo(cells: pd.DataFrame, ratio: Ratio) -> dict[str, Any]:
    """MongoDB outperforms all comers at user insertion: untestable with FerretDB (see FERRETDB)."""
    return _claim("\"MongoDB consistently outperforms all comers when it comes to user insertion\"",
                  v.untestable(FERRETDB))


def claim_push(cells: pd.DataFrame, ratio: Ratio) -> dict[str, Any]:
    """`$push` item insertion in about 1/3 of the next contender's time: untestable with FerretDB."""
    have = len(cells) and bool((cells["engine"].map(is_mongo) & (cells["operation"] == "app.insert_item")).any())
    how = ("the claim is about item insertion with `$push` (the seed's bullet on MongoDB, not its footnote), "
           "not user insertion, and "
           "FerretDB stands in for MongoDB: its `$push` is an update of a JSONB document in PostgreSQL, and no "
           "substitution rule covers another engine behind MongoDB's protocol")
    return _claim(f"item insertion with `$push`: MongoDB takes \"about 1/{SEED['mongo_next']:.0f} the time of the "
                  "next contender until we get up to the 50k corpus\"",
                  v.untestable(how if have else how + "; no item-insertion cell of FerretDB in these runs"))


def claim_mysql(cells: pd.DataFrame, ratio: Ratio) -> dict[str, Any]:
    """MySQL, at the seed's 100-user corpus only, "marginally better than AcidState on insertion and very
    marginally better than SQLite on selection": no MySQL is run the seed's way here (HDBC-mysql from Haskell)."""
    return _claim("MySQL (at 100 users, the only corpus it completed): \"it performs marginally better than "
                  "AcidState on insertion and very marginally better than SQLite on selection\"",
                  v.untestable("no MySQL or MariaDB cell is run through the seed's Haskell back-end (HDBC-mysql, "
                               "which Debian does not package); our MariaDB cells are Python drivers, another driver "
                               "and runtime"))


def sqlite_loses(cells: pd.DataFrame, ratio: Ratio, runtime: str,
                 labels: list[tuple[str, Interval, v.Verdict]] | None = None) -> tuple[list[v.Verdict], list[Interval]]:
    """Per operation x corpus on `runtime`: HDBC-sqlite3's time / AcidState's (the seed's contender we
    run as the seed did) > 1, one verdict per cell, and every pair's ratio; each cell's label, interval and
    verdict appended to `labels` when given."""
    same = cells[cells["runtime"].astype(str) == runtime]
    out, rs = [], []
    for i, s in same[same["engine"] == "sqlite/hdbc"].iterrows():
        # the seed's contenders only: AcidState (its MongoDB is untestable with FerretDB, its MySQL ran
        # the tiny benchmark alone, and it never ran PostgreSQL)
        others = same[(same["operation"] == s["operation"]) & (same["params"] == s["params"])
                      & same["engine"].map(is_acid)]
        pairs = [ratio(i, j) for j in others.index]
        rs += pairs
        if pairs:
            out.append(v.every_cell(v.above(r[1], r[2]) for r in pairs))
            if labels is not None:
                labels += [(f"{s.get('row', str(s['operation']).replace(PREFIX, ''))} {s['corpus']}", r,
                            v.above(r[1], r[2]))
                           for r in pairs]
    return out, rs


def claim_sqlite(cells: pd.DataFrame, ratio: Ratio, measured_corpora: bool = False,
                 measured_contenders: bool = False) -> dict[str, Any]:
    """SQLite loses everywhere, tested with the seed's binding (HDBC-sqlite3) against the seed's other
    engines built the seed's way (`ghc --make`, no -O). Slower than AcidState in every cell is not yet the
    claim: corpora not measured and contenders with no like-for-like cell keep it inconclusive, unless the
    alternative readings of `sensitivity.py` take the claim as about the measured corpora
    (`measured_corpora`) or the measured contenders (`measured_contenders`) only."""
    claim = "\"SQLite loses in every category at every corpus size, but not by as much as I was expecting\""
    runtimes = sorted({str(r) for r, e in zip(cells.get("runtime", []), cells.get("engine", []))
                       if e == "sqlite/hdbc" and unoptimised(str(r))})
    if not runtimes:
        return _claim(claim, v.untestable("no sqlite/hdbc (HDBC-sqlite3, the seed's binding) cell without -O"))
    labels: list[tuple[str, Interval, v.Verdict]] = []
    vs, rs = sqlite_loses(cells, ratio, runtimes[0], labels)
    verdict = v.every_cell(vs)
    have, missing = corpora_of(cells)
    gaps = ([f"{', '.join(missing)} not measured"] if missing and not measured_corpora else []) + (
        [] if measured_contenders else ["MongoDB and MySQL, the seed's other contenders, have no like-for-like cell"])
    if verdict.word == v.SUPPORTED and gaps:  # slower than AcidState everywhere is not yet slower than every contender
        verdict = v.Verdict(v.INCONCLUSIVE, f"slower than AcidState in every cell on {', '.join(have)}, but "
                                            + ", and ".join(gaps))
    elif verdict.word == v.INCONCLUSIVE and gaps:  # what else keeps it open is said too
        verdict = v.Verdict(v.INCONCLUSIVE, f"{verdict.why}; and " + ", and ".join(gaps), verdict.detectable)
    return _claim(claim, verdict, cells=labels, evidence=
                  f"sqlite/hdbc time / AcidState's on {runtimes[0]} (the seed's `ghc --make`; its other contenders, MongoDB "
                  f"and MySQL, have no like-for-like cell here): "
                  f"{spread(rs, 'pairs of cells')}{corpora_text(cells)}"
                  + ("; user insertion with the password's scrypt hash, as the seed timed it" if hashed(cells) else ""))


def optimisation_index_pairs(cells: pd.DataFrame, only_acid: bool, build: str | None = None) -> list[tuple[Any, Any]]:
    """(-O0 cell, optimised twin) index pairs of the cells measured with both builds (`only_acid`: AcidState's
    lookups only, the IxSet lookup of a user by id, `LOOKUP`); `build` ("O1", "O2") keeps the optimised twins
    of that flag only."""
    out = []
    low = cells[cells["runtime"].astype(str).map(unoptimised)] if len(cells) else cells
    if only_acid and len(low):
        low = low[low["engine"].map(is_acid) & (low["operation"] == LOOKUP)]
    for i, c in low.iterrows():
        twins = cells[(cells["benchmark"] == c["benchmark"]) & (cells["params"] == c["params"])
                      & (cells["engine"] == c["engine"]) & ~cells["runtime"].astype(str).map(unoptimised)
                      & (cells["runtime"].astype(str).str[:3] == str(c["runtime"])[:3])]
        if build is not None:
            twins = twins[twins["runtime"].astype(str).map(lambda r: optimisation_flag(r) == build)]
        out += [(i, j) for j in twins.index]
    return out


def optimisation_pairs(cells: pd.DataFrame, ratio: Ratio, only_acid: bool, build: str | None = None) -> list[Interval]:
    """-O0 time / optimised time of each cell measured with both builds (see `optimisation_index_pairs`)."""
    return [ratio(i, j) for i, j in optimisation_index_pairs(cells, only_acid, build)]


def optimisation_flag(runtime: str) -> str:
    """The -O level a Haskell runtime was built with: `haskell-O1-ghc9.0.2` -> "O1" ("" if none is named)."""
    for part in str(runtime).split("-"):
        if len(part) == 2 and part[0] == "O" and part[1].isdigit():
            return part
    return ""


#: the seed's unoptimised corpus that LG-O (`ghc -O --make`, 50,000 users, user #45678) is set beside
SEED_OPTIMISED_AGAINST = "LG2"
#: what the seed's `ghc -O` is: GHC's -O means -O1 (runtime `haskell-O1`)
SEED_OPTIMISED_BUILD = "O1"


def _geo_spread(rs: list[Interval], ratio: Ratio | None = None, pairs: list[tuple[Any, Any]] | None = None) -> str:
    """The cells' geometric mean and the range of their ratios: with its interval where `ratio` can combine the
    `pairs` (the same estimate the abstract and the sensitivity table give), else of the point estimates."""
    g = ratio.geomean(pairs) if pairs and hasattr(ratio, "geomean") else None
    if g is not None and all(math.isfinite(x) for x in g):
        return f"geometric mean {g[0]:.3g}x [{g[1]:.3g}, {g[2]:.3g}]; {spread(rs)}"
    ok = [r[0] for r in rs if math.isfinite(r[0]) and r[0] > 0]
    geo = f"geometric mean {math.exp(sum(map(math.log, ok)) / len(ok)):.3g}x; " if ok else ""
    return f"{geo}{spread(rs)}"


def hash_bound(cells: pd.DataFrame) -> pd.Series:
    """The user-insertion cells timed with the password's scrypt hash (all of them where the cells do not say):
    most of their time is cryptonite's C code (the scrypt claim's row measures how much), which no GHC flag
    compiles, so they cannot show what `ghc -O` does."""
    if not len(cells) or "operation" not in cells:
        return pd.Series(False, index=cells.index)
    ins = cells["operation"] == "app.insert_user"
    return ins & (cells["hash"].astype(str) != "off") if "hash" in cells else ins


def claim_optimisation(cells: pd.DataFrame, ratio: Ratio, only_acid: bool = False, pooled: bool = False,
                       without_insertion: bool = True) -> dict[str, Any]:
    """`ghc -O` about halves most numbers (about 5x for AcidState lookups), read as the seed measured it:
    at LG2 (its LG-O's corpus and user), -O0 time / -O1 time (`ghc -O`), most cells' whole interval within
    the band of "about". The -O0 / -O2 pairs at the other corpora are context, never the decision. The cells
    whose time is the scrypt hash's (`hash_bound`) are left out: a claim about GHC's optimiser is not read on
    C code it does not compile. `pooled` (an alternative reading of `sensitivity.py`): the geometric mean over
    those cells, with its interval, against the band instead of the cells one by one. `without_insertion=False`
    (another): the hashed cells counted too."""
    left_out = hash_bound(cells) if without_insertion else pd.Series(False, index=cells.index)
    cells = cells[~left_out] if len(cells) else cells
    if only_acid:
        claim, value = "`ghc -O` \"improves AcidState lookups by about 5x\"", SEED["acid_lookup_optimisation"]
    else:
        claim, value = "\"The ghc optimization flag approximately halves most numbers\"", SEED["optimisation"]
    rs = optimisation_pairs(cells, ratio, only_acid)
    if not rs:
        return _claim(claim, v.untestable("no pair of Haskell builds with and without optimisation (-O0) here"))
    at_seed = cells[cells["corpus"] == SEED_OPTIMISED_AGAINST] if len(cells) else cells
    at_pairs = optimisation_index_pairs(at_seed, only_acid, SEED_OPTIMISED_BUILD)
    at = [ratio(i, j) for i, j in at_pairs]
    elsewhere = cells[cells["corpus"] != SEED_OPTIMISED_AGAINST] if len(cells) else cells
    o2_pairs = optimisation_index_pairs(elsewhere, only_acid, "O2")
    o2 = [ratio(i, j) for i, j in o2_pairs]
    o2_corpora = ", ".join(corpora_of(elsewhere)[0])
    context = (f"-O0 time / -O2 time at {o2_corpora}, as context: {_geo_spread(o2, ratio, o2_pairs)}" if o2 else "")
    if at:
        evidence = (f"{SEED_OPTIMISED_AGAINST}, -O0 time / -O1 time (the seed's `ghc -O`; seed: about {value:g}x): "
                    f"{_geo_spread(at, ratio, at_pairs)}" + (f"; {context}" if context else "")
                    + ("; user insertion with the scrypt hash left out (its time is C code no GHC flag compiles)"
                       if left_out.any() and not only_acid else ""))
    else:
        evidence = f"-O0 time / optimised time (seed: about {value:g}x): {_geo_spread(rs)}{corpora_text(cells)}"
    have, _ = corpora_of(cells)
    # the seed's only optimised build, LG-O, ran at its 50k corpus with user #45678: its match is LG2
    # (same corpus and user, `ghc --make`), not LG (user #42); only pairs at LG2 are the seed's test
    if SEED_OPTIMISED_AGAINST not in have:
        return _claim(claim, v.untestable("the seed compared `ghc --make` with `ghc -O --make` at its 50k corpus "
                                          f"only ({SEED_OPTIMISED_AGAINST} against LG-O, both user #45678), which "
                                          "these runs do not measure; ours is -O0 against -O2 at the smaller "
                                          "corpora, a contrast, not the seed's test"),
                      evidence)
    if not at:
        return _claim(claim, v.untestable(f"no pair of -O0 and -O1 builds (the seed's `ghc --make` and `ghc -O "
                                          f"--make`) at {SEED_OPTIMISED_AGAINST}, the seed's corpus for LG-O"),
                      evidence)
    if pooled and hasattr(ratio, "geomean"):
        g = ratio.geomean(at_pairs)
        return _claim(claim, v.about(g[1], g[2], value), f"{g[0]:.3g}x [{g[1]:.3g}, {g[2]:.3g}] over {len(at)} cells")
    names = series_labels(cells)

    def label(i: Any) -> str:
        c = cells.loc[i]
        series = c.get("series", f"{c['engine']}@{c['runtime']}")
        op = c.get("row") or str(c.get("operation", c.get("benchmark", ""))).replace(PREFIX, "")
        return f"{op} {names.get(series, series).split(' on ')[0]}"

    calls = [(label(i), r, v.about(r[1], r[2], value)) for (i, _), r in zip(at_pairs, at)]
    return _claim(claim, v.most_cells(call for _, _, call in calls), evidence, cells=calls)


def scrypt_pairs(cells: pd.DataFrame) -> list[tuple[Any, Any, str]]:
    """(hashed cell, the same store, build and corpus without the hash, label) for every user-insertion cell
    measured with the password's scrypt hash (hash=on) that has an unhashed twin."""
    if not hashed(cells):
        return []
    ins = cells[cells["operation"] == "app.insert_user"]
    names = series_labels(cells)
    out = []
    for i, c in ins[ins["hash"] == "on"].iterrows():
        twins = ins[(ins["hash"] != "on") & (ins["engine"] == c["engine"]) & (ins["runtime"] == c["runtime"])
                    & (ins["corpus"] == c["corpus"])]
        series = c.get("series", f"{c['engine']}@{c['runtime']}")
        out += [(i, j, f"{names.get(series, series)} {c['corpus']}") for j in twins.index]
    return out


#: our scrypt's cost parameter N (`OUR_HASHER`): its work, N x r block mixes, is linear in it
SCRYPT_LOG2_N = 14


def at_cost(r: tuple[float, float, float], cost: float) -> tuple[float, float, float]:
    """The time ratio hashed / unhashed, its interval too, had the hash cost `cost` times ours: the hash's part
    (ratio - 1) scales with scrypt's work, the insertion around it does not."""
    return tuple(1 + (x - 1) * cost for x in r)  # type: ignore[return-value]


def claim_scrypt(cells: pd.DataFrame, ratio: Ratio, share: float | None = None, cost: float = 1.0) -> dict[str, Any]:
    """"The vast majority of time spent inserting a user goes to generating the scrypt hash": per store, build
    and corpus, user insertion's time with the hash over its time without it, above 1 / (1 - share) (share:
    the seed's "vast majority", read as 80%, unless an alternative reading gives another) in every cell.
    `cost` (for `sensitivity.py`): the hash as if scrypt's N were `cost` times ours (`at_cost`), since the seed
    names no parameters."""
    if cost != 1.0:
        ratio = _Scaled(ratio, cost)
    share = SEED["scrypt_share"] if share is None else share
    line = 1 / (1 - share)
    claim = "\"The vast majority of time spent inserting a user goes to generating the scrypt hash\""
    pairs = scrypt_pairs(cells)
    if not pairs:
        return _claim(claim, v.untestable("no pair of user-insertion cells with and without the password's scrypt "
                                          "hash (app.insert_user hash=on and hash=off) in these runs"))
    labels = [(label, r, v.above(r[1], r[2], line)) for (i, j, label), r in
              ((p, ratio(p[0], p[1])) for p in pairs)]
    rs = [r for _, r, _ in labels]
    lows = [r[1] for r in rs if math.isfinite(r[1]) and r[1] > 0]
    least = (f"; the hash's share of the time is at least {1 - 1 / min(lows):.0%} in every cell"
             if lows and min(lows) > 1 else "")
    return _claim(claim, v.every_cell(vs for _, _, vs in labels), cells=labels,
                  evidence=f"user insertion's time with the hash / without it, per store, build and corpus (the "
                           f"seed's \"vast majority\" read as more than {share:.0%} of the time: above {line:.3g}x): "
                           f"{spread(rs, 'cells')}{least}")


class _Scaled:
    """A `Ratio` whose ratios are read as if the hash cost `cost` times ours (`at_cost`); only hashed / unhashed
    pairs are asked of it."""

    def __init__(self, ratio: Ratio, cost: float) -> None:
        self._ratio, self._cost = ratio, cost

    def __call__(self, num: Any, den: Any) -> tuple[float, float, float]:
        return at_cost(self._ratio(num, den), self._cost)


#: seed 002's setting, from its text ("a 64-bit Debian Wheezy machine running on top of a Core i3", March
#: 2013, `ghc --make`); the library versions it does not state
SEED_SETTING = v.Setting(engine="acid-state, SQLite (HDBC-sqlite3), MongoDB and MySQL of March 2013 (versions unstated)",
                         driver="GoGet's back-end ported to each store",
                         runtime="GHC of Debian Wheezy (7.4; unstated)",
                         operation="the GoGet back-end's user insertion, listing, item insertion and user query",
                         hardware="a Core i3 under Debian Wheezy")


def our_setting(cells: pd.DataFrame, runs: Any = None) -> v.Setting:
    """Our E5 setting: the versions the manifests recorded, the GHC versions of the cells' runtimes."""
    from harness.studies.envtable import engine_versions, our_machine, version_of

    vs = engine_versions(runs)
    ghcs = sorted({str(r).rsplit("ghc", 1)[-1] for r in (cells["runtime"] if "runtime" in cells else [])
                   if "ghc" in str(r)})
    return v.Setting(engine=(f"acid-state {version_of(vs, 'acidstate/acid-state', 'acid-state')}, SQLite "
                             f"{version_of(vs, 'sqlite/hdbc', 'sqlite')} (HDBC-sqlite3 "
                             f"{version_of(vs, 'sqlite/hdbc', 'HDBC-sqlite3')}), FerretDB for MongoDB, no MySQL"),
                     driver=SEED_SETTING.driver,
                     runtime="GHC " + (", ".join(ghcs) if ghcs else "unrecorded"),
                     operation=SEED_SETTING.operation, hardware=our_machine(runs))


#: the claims that are absolute numbers (times on the seed's machine), never decided by ours
ABSOLUTE = ("claim_acid_micro",)


#: the claims about MongoDB or MySQL: MongoDB's stand-in (FerretDB on CPython) is another engine, which no
#: substitution covers, and no MySQL is run the seed's way
MONGO_CLAIMS = ("claim_mongo", "claim_push", "claim_mysql")

#: the operations each claim's cells time (its key -> names), and how the seed's user insertion differs from
#: ours: the seed hashed the password with scrypt inside it. Our main E5 runs insert with hash=off (the stores'
#: work alone); where the runs hold user insertion with the hash too (app.insert_user hash=on, scrypt by
#: cryptonite with the same parameters, rule S4), a claim's user-insertion cells are those, as the seed timed
#: them (`seed_insertion`); without them, a claim whose cells include user insertion times another operation
CLAIM_OPERATIONS = {
    "claim_acid": ("listing", "user query"), "claim_acid_narrow": ("listing", "user query", "item insertion"),
    "claim_acid_micro": ("listing", "user query"), "claim_mongo": ("user insertion",),
    "claim_push": ("item insertion",),
    "claim_sqlite": ("user insertion", "listing", "item insertion", "user query"),
    "claim_optimisation": ("user insertion", "listing", "item insertion", "user query"),
    "claim_optimisation_acid": ("user query",), "claim_scrypt": ("user insertion",),
    "claim_acid_corpus": ("user insertion", "item insertion", "user query"),
    "claim_mysql": ("user insertion", "item insertion", "user query"),
}
SEED_USER_INSERTION = "user insertion with the password's scrypt hash"
OUR_USER_INSERTION = "user insertion without the hash (hash=off)"
#: who computes the hash (part of the driver: the libraries the back-end calls), the seed's and ours
SEED_HASHER = "the hash by a library the seed does not name (parameters unstated)"
OUR_HASHER = "the hash by cryptonite with the `scrypt` package's default parameters (N = 2^14, r = 8, p = 1)"


def hashed(cells: pd.DataFrame) -> bool:
    """Whether the cells hold user insertion with the password's scrypt hash (hash=on), as the seed timed it."""
    return bool(len(cells)) and "hash" in cells and bool(
        ((cells["operation"] == "app.insert_user") & (cells["hash"] == "on")).any())


def seed_insertion(cells: pd.DataFrame) -> pd.DataFrame:
    """The cells as the seed timed its operations: where user insertion was measured with the password's scrypt
    hash (hash=on), its cells without the hash are left out (the seed's user insertion always hashed);
    otherwise the cells as they are."""
    if not hashed(cells):
        return cells
    return cells[(cells["operation"] != "app.insert_user") | (cells["hash"] == "on")]


def operation_of(key: str, seed: bool, hashed_cells: bool = False, listing: bool = True) -> str:
    """The GoGet back-end operations a claim's cells time, the seed's or ours (`hashed_cells`: ours include
    user insertion with the hash; `listing` False: the listing left out of both, see `LISTING`)."""
    ops = CLAIM_OPERATIONS.get(key, ("user insertion", "listing", "item insertion", "user query"))
    ops = ops if listing else tuple(op for op in ops if op != "listing")
    ours = SEED_USER_INSERTION if hashed_cells else OUR_USER_INSERTION
    named = [(SEED_USER_INSERTION if seed else ours) if op == "user insertion" else op for op in ops]
    against = ", against user insertion without the hash" if key == "claim_scrypt" else ""
    return "GoGet back-end's " + ", ".join(named) + against


def stores_setting(setting: v.Setting) -> v.Setting:
    """A setting narrowed to the stores the AcidState and SQLite claims compare (acid-state and SQLite
    through HDBC-sqlite3): their MongoDB and MySQL are not part of those claims' cells."""
    from dataclasses import replace

    return replace(setting, engine=setting.engine.split(", FerretDB")[0].replace(", MongoDB and MySQL", ""))


#: seed 002's claims in the seed's order: each claim function with its parameters
CLAIMS: tuple[tuple[Callable[..., dict[str, Any]], dict[str, Any]], ...] = (
    (claim_acid, {}), (claim_acid_narrow, {}), (claim_acid_micro, {}), (claim_acid_corpus, {}), (claim_mongo, {}),
    (claim_push, {}), (claim_sqlite, {}), (claim_optimisation, {}), (claim_optimisation, {"only_acid": True}),
    (claim_mysql, {}))


def claims(cells: pd.DataFrame, ratio: Ratio, runs: Any = None) -> list[dict[str, Any]]:
    """Seed 002's claims in the seed's order, each decided by verdicts.py on today's stack
    (`verdicts.on_todays_stack`): ours run newer releases of the same libraries and GHC (substitution
    S1); the MongoDB claims name their engine difference, which no substitution covers. (The family-wise
    reading of a refutation is `seedclaims.family_wise_claims`', over every seed's claims.)"""
    ours = our_setting(cells, runs)
    return [on_stack(f, cells, ratio, ours, **kw) for f, kw in CLAIMS]


#: the listing: the seed's AcidState "list and select numbers in the low double-digit microseconds" at 50,000
#: users cannot have walked the list (it checked its lookups for thunk time, not its listing), while our worker
#: forces every user it lists; the two are different operations, so a claim over several operations is decided
#: without the list cells (a claim about the listing alone is untestable for its absolute number anyway)
LISTING = "app.list_users"
LISTING_LEFT_OUT = ("the listing left out: the seed's took tens of µs at 50,000 users, so, we infer, it cannot have "
                    "walked the list, while ours forces every user listed")


def without_listing(key: str) -> bool:
    """Whether a claim's cells leave the listing out (`LISTING`): one decided over the listing and other
    operations. The claim about AcidState's microseconds keeps its list cells: an absolute number, it decides
    nothing here, and its context is the list and select cells it names."""
    ops = CLAIM_OPERATIONS.get(key, ())
    return "listing" in ops and len(ops) > 1 and key not in ABSOLUTE


def on_stack(f: Callable[..., dict[str, Any]], cells: pd.DataFrame, ratio: Ratio, ours: v.Setting,
             with_listing: bool = False, **kw: Any) -> dict[str, Any]:
    """One claim of seed 002 (`f(cells, ratio, **kw)`) with its verdict on today's stack, as `claims` gives
    it; `sensitivity.py` calls it with a claim's alternative reading (`kw`; `with_listing`: the list cells
    counted too, which a claim over several operations otherwise leaves out, `LISTING`). The claim's `key` is
    the function's name (and `_acid` for the AcidState reading of the optimisation claim)."""
    key = f.__name__ + ("_acid" if kw.get("only_acid") else "")
    unlisted = without_listing(key) and not with_listing and len(cells) and "operation" in cells
    if unlisted:
        cells = cells[cells["operation"] != LISTING]
    inserts = "user insertion" in CLAIM_OPERATIONS.get(key, ())
    mongo = f.__name__ in MONGO_CLAIMS
    hashed_cells = inserts and not mongo and hashed(cells)  # FerretDB's insertions were never hashed
    # the scrypt claim compares user insertion with and without the hash; the others time it as the seed did
    c = f(seed_insertion(cells) if hashed_cells and key != "claim_scrypt" else cells, ratio, **kw)
    c["key"] = key
    if unlisted:
        c["evidence"] = (f"{c['evidence']}; " if c["evidence"] else "") + LISTING_LEFT_OUT
        if c["verdict"].word != v.UNTESTABLE:  # the verdict says what it was decided on
            c["verdict"] = replace(c["verdict"], why=f"{c['verdict'].why}; the listing left out (the evidence says why)"
                                   if c["verdict"].why else "the listing left out (the evidence says why)")
    c["measured"] = c["verdict"]  # what the interval alone would say, kept for the record
    theirs, mine = (SEED_SETTING, ours) if mongo else (stores_setting(SEED_SETTING), stores_setting(ours))
    theirs = replace(theirs, operation=operation_of(key, seed=True, listing=not unlisted),
                     driver=f"{theirs.driver}, {SEED_HASHER}" if inserts else theirs.driver)
    mine = replace(mine, operation=operation_of(key, seed=False, hashed_cells=hashed_cells, listing=not unlisted),
                   driver=f"{mine.driver}, {OUR_HASHER}" if hashed_cells else mine.driver)
    uses = () if mongo else ("S1", "S4") if hashed_cells else ("S1",)
    c["verdict"] = v.on_todays_stack(theirs, mine, lambda: c["verdict"], uses=uses, absolute=f.__name__ in ABSOLUTE)
    return c


def claims_markdown(items: list[dict[str, Any]], method: str) -> str:
    lines = ["| seed 002's claim | here | evidence |", "|---|---|---|"]
    lines += [f"| {c['claim']} | {v.cell_text(c['verdict']).replace('|', '/')} | {c['evidence']} |" for c in items]
    return ("\n".join(lines) + f"\n\nTable: E5, seed 002's headline claims against these runs. Ratios are of cell "
            f"means with 99% intervals (t on the log scale from each cell's {method} reduction); verdicts by "
            "`harness/studies/verdicts.py` (Section 10), by the rule every seed's claims pass: a claim is decided "
            "on today's stack when every difference from the seed's setting is covered by a declared substitution "
            "(here S1: newer releases of acid-state, HDBC-sqlite3, SQLite and GHC), and an absolute time never "
            "decides; otherwise it is untestable here, what no rule covers said. A decided claim about every cell is "
            "refuted by one refuting cell, and a straddling "
            "interval is inconclusive. The seed's numbers are its own prose (Haskell, criterion, a Core i3 in "
            "2013).")


def series_labels(cells: pd.DataFrame) -> dict[str, str]:
    """series -> its plain name (`findings.plain_name` of engine@runtime), for figures and captions."""
    from harness.studies.findings import plain_name

    if cells.empty or "engine" not in cells or "runtime" not in cells:
        return {}
    pairs = [f"{e}@{r}" for e, r in zip(cells["engine"], cells["runtime"])]
    series = cells["series"] if "series" in cells else pairs  # cells made by hand may carry no series label
    return {s: plain_name(p) for s, p in zip(series, pairs)}


def app_takeaway(cells: pd.DataFrame, ratio: Ratio | None = None, members: list[str] | None = None) -> str:
    """The figure's point, from the cells: per operation at the largest corpus measured for every store, the store
    with the lowest mean among `members` (all series when None) against the runner-up, by the ratio
    runner-up / fastest with its interval (`ratio`): "fastest" only when that interval excludes 1.
    Overlapping bars are never read as a test. Without `ratio`, only the estimates are said."""
    corpus, clause = takeaway_clause(cells, ratio, members)
    if not clause:
        return ""
    among = "Among these, at" if members is not None else "At"
    return f"{among} corpus {corpus}, {clause}."


def largest_common_corpus(cells: pd.DataFrame) -> str:
    """The largest corpus at which every series of `cells` was measured (a comparison among all of them);
    the largest measured at all when they share none; "" for no cell. E5 measures its 50,000-user corpus
    for two engines only, so a group's findings stay where its every store was measured."""
    if cells.empty:
        return ""
    present = [k for k in CORPORA if k in set(cells["corpus"])]
    every = [k for k in present if set(cells.loc[cells["corpus"] == k, "series"]) == set(cells["series"])]
    return (every or present)[-1] if present else ""


def takeaway_clause(cells: pd.DataFrame, ratio: Ratio | None = None,
                    members: list[str] | None = None) -> tuple[str, str]:
    """(the largest corpus every series was measured at, what `app_takeaway` says of it without its opening words);
    ("", "") when there is nothing to say."""
    if cells.empty:
        return "", ""
    c = cells[(cells["hash"] != "on") & cells["mean_s"].notna()] if "hash" in cells else cells[cells["mean_s"].notna()]
    if members is not None:
        c = c[c["series"].isin(members)]
    corpus = largest_common_corpus(c)
    if not corpus:
        return "", ""
    big = c[c["corpus"] == corpus]
    names = series_labels(cells)
    parts, seen = [], []  # seen: (first, second, ratio, called) per operation
    for op in OPERATIONS:
        d = big[big["operation"] == op].sort_values("mean_s")
        if d.empty:
            continue
        name = op.replace("app.", "")
        first = names.get(d["series"].iloc[0], d["series"].iloc[0])
        if len(d) == 1:
            parts.append(f"{name}: only {first} measured")
            continue
        second = names.get(d["series"].iloc[1], d["series"].iloc[1])
        r = ratio(d.index[1], d.index[0]) if ratio is not None else (
            float(d["mean_s"].iloc[1] / d["mean_s"].iloc[0]), math.nan, math.nan)
        if not (math.isfinite(r[1]) and math.isfinite(r[2])):
            parts.append(f"{name}: {first} has the lowest mean, {second} next ({r[0]:.3g}x; no interval)")
            seen.append((first, second, r, None))
        elif r[1] > 1:
            parts.append(f"{name}: {first} is fastest, {second} next at {r[0]:.3g}x [{r[1]:.3g}, {r[2]:.3g}]")
            seen.append((first, second, r, True))
        else:
            parts.append(f"{name}: {first} and {second} cannot be told apart ({r[0]:.3g}x [{r[1]:.3g}, {r[2]:.3g}] "
                         "includes 1)")
            seen.append((first, second, r, False))
    if not parts:
        return "", ""
    short = _uniform_takeaway(seen, len(parts))
    return corpus, short or "; ".join(parts)


def findings_paragraph(cells: pd.DataFrame, ratio: Ratio | None, groups: list[tuple[str, list[str]]],
                       confidence: float = 0.99) -> str:
    """Section 7's findings in prose: for each figure's group of drivers (title, members), what its
    caption's takeaway says (`takeaway_clause`), so the main text states them, not only the captions."""
    said = [(title, *takeaway_clause(cells, ratio, members)) for title, members in groups]
    said = [(title, corpus, clause) for title, corpus, clause in said if clause]
    if not said:
        return "_no valid app.* cells in these runs_"
    corpora = sorted({corpus for _, corpus, _ in said}, key=CORPORA.index)
    where = (f"at corpus {corpora[0]}, the largest measured for every store" if len(corpora) == 1
             else "each at its largest corpus measured for every store (" + ", ".join(corpora) + ")")
    return (f"What the figures show, {where} (a store is called fastest only where the {confidence:.0%} "
            "interval of the runner-up's time over its own excludes 1). "
            + " ".join(f"{title}: {clause}." for title, _, clause in said))


def findings_table(cells: pd.DataFrame, ratio: Ratio | None, groups: list[tuple[str, list[str]]],
                   confidence: float = 0.99, method: str = "") -> str:
    """Section 7's main-text table: per figure group (title, members) and operation at the largest
    measured corpus, the store with the lowest mean, that mean, the runner-up and the ratio
    runner-up / fastest with its interval, and whether that interval lets it be called fastest."""
    if cells.empty or ratio is None:
        return ""
    c = cells[(cells["hash"] != "on") & cells["mean_s"].notna()] if "hash" in cells else cells[cells["mean_s"].notna()]
    names = series_labels(cells)
    level = f"{confidence:.0%}"
    lines = ["| drivers | operation | lowest mean | its time [" + level + " CI] | runner-up | runner-up / lowest ["
             + level + " CI] |", "|---|---|---|---|---|---|"]
    corpora: set[str] = set()
    for title, members in groups:
        g = c[c["series"].isin(members)]
        corpus = largest_common_corpus(g)
        if not corpus:
            continue
        corpora.add(corpus)
        big = g[g["corpus"] == corpus]
        label = f"{title}, corpus {corpus}"  # said on the group's first row only
        for op in OPERATIONS:
            d = big[big["operation"] == op].sort_values("mean_s")
            if d.empty:
                continue
            first = d.iloc[0]
            mean = wording.time_interval(first["mean_s"], first.get("ci_low_s"), first.get("ci_high_s"), trim=True,
                                         unit_at="end", no_ci=" (no CI)")
            if len(d) < 2:
                runner, r_text = "—", "—"
            else:
                runner = names.get(d["series"].iloc[1], d["series"].iloc[1])
                r = ratio(d.index[1], d.index[0])
                if math.isfinite(r[1]) and math.isfinite(r[2]):
                    verdict = "fastest" if r[1] > 1 else "not told apart"
                    r_text = f"{r[0]:.3g}x [{r[1]:.3g}, {r[2]:.3g}]: {verdict}"
                else:
                    r_text = f"{r[0]:.3g}x (no interval)"
            lines.append(f"| {label} | {op.replace(PREFIX, '')} | {names.get(first['series'], first['series'])} | "
                         f"{mean} | {runner} | {r_text} |")
            label = ""
    if len(lines) == 2:
        return ""
    where = ", ".join(sorted(corpora, key=CORPORA.index))
    return ("\n".join(lines) + f"\n\nTable: E5 at corpus {where} (each group at the largest measured for every store of it, "
            "named on its first row), per group of drivers "
            "(one figure each) and operation: the store with the lowest mean time, and the runner-up's time over "
            f"its own with the {level} interval" + (f" ({method})" if method else "")
            + "; \"fastest\" only where that interval excludes 1. Every cell is in Appendix B.6.")


def _uniform_takeaway(seen: list[tuple], n: int) -> str:
    """One clause when every operation says the same (one store fastest in all, or the two fastest
    never told apart), with the range of the ratios; "" otherwise (each operation is then said)."""
    if len(seen) != n or n < 2:
        return ""
    lo, hi = min(x[2][0] for x in seen), max(x[2][0] for x in seen)
    span = f"{lo:.3g}x" if f"{lo:.3g}" == f"{hi:.3g}" else f"{lo:.3g}x to {hi:.3g}x"
    if all(x[3] is True for x in seen) and len({x[0] for x in seen}) == 1:
        return (f"{seen[0][0]} is fastest at all {n} operations, the runner-up {span} as slow "
                "(each ratio's interval excludes 1)")
    if all(x[3] is False for x in seen):
        return (f"the two fastest cannot be told apart at any of the {n} operations (runner-up / fastest "
                f"{span}, each interval includes 1)")
    return ""


def builds_note(cells: pd.DataFrame) -> str:
    """What a figure's -O1 points are, when it draws them beside -O0's."""
    rts = {str(r) for r in cells.get("runtime", [])}
    if not any(optimisation_flag(r) == SEED_OPTIMISED_BUILD for r in rts) or not any(map(unoptimised, rts)):
        return ""
    return (f"The -O1 points are seed 002's `ghc -O --make` build beside its `ghc --make` (-O0) at "
            f"{SEED_OPTIMISED_AGAINST}, the pair its -O claims compare (Section 10). ")


def figure_caption(cells: pd.DataFrame, ratio: Ratio | None, title: str, members: list[str], method: str,
                   corpora: tuple[str, ...] = CORPORA, first: bool = True) -> str:
    """A figure's caption: which group, its takeaway (ratio-based), the method (in full in the `first` of the
    E5 figures, the others point to it), the corpora not drawn and those drawn for some of its stores only."""
    mine = cells[cells["series"].isin(members)] if len(cells) else cells
    have, missing = corpora_of(mine)
    not_drawn = f" Not drawn (not measured): {', '.join(missing)}." if missing else ""
    names = series_labels(cells)
    own_first = build_groups(title, members)[0][1]  # the takeaway compares one build's stores
    own = mine[mine["series"].isin(own_first)] if len(mine) else mine
    others = " (and their -O1 builds)" if builds_note(mine) else ""  # drawn beside the -O0 points
    for k in have:
        some = sorted(set(own.loc[own["corpus"] == k, "series"]))
        if some and len(some) < len(set(own["series"])):
            not_drawn += f" {k} was measured for {' and '.join(names.get(x, x) for x in some)}{others} only."
    how = (f"Bars: 99% CIs ({method}); \"fastest\" only where the 99% interval of runner-up / fastest excludes 1."
           if first else "Bars and \"fastest\" as in the first E5 figure.")
    return (f"E5, {title}: mean time per operation, log scale. {app_takeaway(cells, ratio, own_first)} "
            f"{builds_note(mine)}{how}{not_drawn}")


def build_groups(title: str, members: list[str]) -> list[tuple[str, list[str]]]:
    """A figure's group split by Haskell build, so a finding compares stores of one build only: the -O0
    figure also draws the -O1 cells (the seed's `ghc -O`) beside them, which are not its contenders."""
    flags: dict[str, list[str]] = {}
    for m in members:
        flags.setdefault(optimisation_flag(m.partition("@")[2]), []).append(m)
    if len([f for f in flags if f]) < 2:  # one build (stores of no build, e.g. FerretDB, go with it)
        return [(title, members)]
    first = min(f for f in flags if f)
    flags[first] = flags.pop("", []) + flags[first]
    return [(f"Haskell -{flag} builds" + (" (seed 002's `ghc -O`)" if flag == SEED_OPTIMISED_BUILD else ""), ms)
            for flag, ms in sorted(flags.items())]


def abstract(cells: pd.DataFrame, ratio: Any, groups: list[tuple[str, list[str]]]) -> str:
    """Section 1.1's E5 sentences: what the seed's own build (-O0) shows among the Haskell stores at the
    largest corpus they all ran, and what `ghc -O` (-O1) against -O0 does at LG2, the seed's corpus for it,
    as geometric means with their intervals beside the seed's numbers."""
    if cells.empty or ratio is None:
        return "_no valid app.* cells in these runs_"
    out = []
    seed_build = [m for title, m in groups if m and all(unoptimised(x.partition("@")[2]) for x in m)]
    if seed_build:
        corpus, clause = takeaway_clause(cells, ratio, seed_build[0])
        if clause:
            out.append(f"From Haskell, built as seed 002 built its stores (`ghc --make`, -O0), at corpus {corpus}: "
                       f"{clause}.")
    seeds = seed_insertion(cells)  # the -O claims' own cells (user insertion hashed, where it was measured)
    at = seeds[seeds["corpus"] == SEED_OPTIMISED_AGAINST]
    # the claim's cell set: without the listing (`LISTING`) and the hash-bound insertions (`hash_bound`)
    at = at[~hash_bound(at) & (at["operation"] != LISTING)] if len(at) and "operation" in at else at
    every = optimisation_index_pairs(at, False, SEED_OPTIMISED_BUILD)
    lookups = optimisation_index_pairs(at, True, SEED_OPTIMISED_BUILD)
    if every and hasattr(ratio, "geomean"):
        g, lk = ratio.geomean(every), ratio.geomean(lookups) if lookups else (math.nan,) * 3
        spread = getattr(ratio, "spread", "")
        out.append(f"At the seed's 50,000-user corpus {SEED_OPTIMISED_AGAINST}, `ghc -O` (-O1) against -O0 divides "
                   f"the time by {_shown(g)} over the claim's {len(every)} cells of AcidState and HDBC-SQLite "
                   f"(Section 10; geometric mean, {getattr(ratio, 'confidence', 0.99):.0%} CI"
                   f"{' ' + spread if spread else ''}; the seed: about "
                   f"{SEED['optimisation']:g}x)"
                   + (f", and AcidState's lookups by {_shown(lk)} (the seed: about "
                      f"{SEED['acid_lookup_optimisation']:g}x)" if lookups else "") + ".")
    return " ".join(out) or "_no valid app.* cells in these runs_"


def ratios_summary(ratio_table: pd.DataFrame | None, baseline: str, method: str) -> str:
    """The paper's short form of the E5 ratio table: each engine's geometric mean of its cells' time
    ratios to `baseline`, with how many cells; the per-cell table (which divides the means table by
    one column) stays in the notebook."""
    from harness.studies.findings import plain_name

    if ratio_table is None or ratio_table.empty or "benchmark" not in ratio_table:
        return "_no valid app.* cells with the baseline in these runs_"
    geo = ratio_table[ratio_table["benchmark"] == "geomean"]
    cells = ratio_table[ratio_table["benchmark"] != "geomean"]
    lines = ["| engine | runtime | time / baseline's, geometric mean [99% CI] | cells |", "|---|---|---|---|"]
    from harness.analysis.stats import is_baseline

    for r in geo.sort_values("ratio").itertuples():
        if not math.isfinite(float(r.ratio)) or is_baseline(r.engine, r.runtime, baseline):
            continue
        # the cells with a ratio: a cell the baseline never ran (corpus LG2) has none and is not in the mean
        n = int(((cells["engine"] == r.engine) & (cells["runtime"].astype(str) == str(r.runtime))
                 & pd.to_numeric(cells["ratio"], errors="coerce").notna()).sum())
        lines.append(f"| {r.engine} | {r.runtime} | {float(r.ratio):.3g} [{float(r.ratio_ci_low):.3g}, "
                     f"{float(r.ratio_ci_high):.3g}] | {n} |")
    return ("\n".join(lines) + f"\n\nTable: E5, each engine's time relative to {plain_name(baseline)}, geometric "
            f"mean over the app.* cells it ran (99% CI, {method}); not comparable across rows where the cells "
            "differ. The per-cell ratios, with the warm-up marks, are the E5 notebook's ratio table "
            "(`notebooks/app.ipynb`, regenerated by `make paper`); they divide the means of the table above by "
            "one column, so they are not repeated here.")


def compute(runs: RunSet, figures_dir: Path | str, baseline: str = BASELINE) -> StudyResult:
    figures_dir = Path(figures_dir)
    summary = runs.summary
    cells = app_cells(summary)
    method = runs.method
    table = e5_table(cells)
    ratio = _Ratios(runs, cells) if not cells.empty else None
    one = runspread.one_run(runs)  # the claims are decided on one run's intervals, as Section 10's table
    items = claims(cells, _Ratios(one, cells), one) if ratio is not None else []
    drawn = cells[cells["hash"] != "on"] if not cells.empty else cells
    figs = plot_app(drawn, figures_dir / "e5_app.png", CORPORA, method + runspread.means_spread(runs),
                    series_labels(cells))
    excluded = excluded_cells(summary, PREFIX)
    from harness.analysis.markdown import to_markdown

    table_md = (to_markdown(table, keep=2, max_columns=9) if not table.empty  # operation, corpus repeated
                else "_no valid app.* cells in these runs_") + (
        f"\n\nTable: E5, mean time per operation with its 99% CI ({method} method{runspread.means_spread(runs)}) per "
        "corpus and engine "
        "(SM: only the target, user #42, where the seed started from empty tables; MD: 1,000 users, #789; LG: 50,000, #42; LG2: 50,000, #45678"
        + (f"; {', '.join(corpora_of(cells)[1])} not measured" if corpora_of(cells)[1] else "") + ")"
        + scrypt_marker(table) + excluded)
    claims_md = claims_markdown(items, method) if items else "_no valid app.* cells in these runs_"
    ratio_table, ratio_md = family_table(runs, PREFIX, baseline, exclusions="The app.* cells excluded are listed once, "
                                         "under the E5 table of mean times above.")
    raw = runs.raw_of(PREFIX + "*")
    app_runs = set(raw["run_id"]) if "run_id" in raw else set()
    protocol = protocol_text([d for d in runs.run_dirs if Path(d).name in app_runs] or runs.run_dirs, shared=False)

    def blocks(paper_path: Path) -> dict[str, str]:
        out = {"e5-protocol": protocol, "e5-table": table_md, "e5-claims": claims_md,
               "e5-ratios": ratios_summary(ratio_table, baseline, method)}
        groups = [g for title, members, _ in figs for g in build_groups(title, members)]
        # what the figures show, as a table (its caption says how "fastest" is called); prose without one
        # its -O numbers are the claims' cells, with the run-to-run spread the replicates measured
        out["abstract-e5"] = abstract(cells, _Ratios(runspread.with_spread(runs), cells) if ratio is not None else None,
                                      groups)
        out["e5-findings"] = (findings_table(drawn, ratio, groups, runs.confidence, method)
                              or findings_paragraph(drawn, ratio, groups, runs.confidence))
        if figs:
            out["e5-figure"] = "\n\n".join(figure_link(figure_caption(drawn, ratio, title, members, method,
                                                                        first=k == 0), f, paper_path)
                                             for k, (title, members, f) in enumerate(figs))
        return out

    return StudyResult(tables={"cells": cells, "e5": table, "claims": pd.DataFrame(items), "ratios": ratio_table},
                       text={"claims": claims_md, "table": table_md, "ratios": ratio_md}, figures={f"app_{Path(f).stem.replace('e5_app_', '')}": f for _, _, f in figs},
                       make_blocks=blocks)
