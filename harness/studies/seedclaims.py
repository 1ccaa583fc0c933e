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
    "001": "the SQPyte paper (2016)",
    "002": "\"Haskell Profiling: Third Impact, or, AcidState vs. The World\" (2013)",
    "003": "Joe, \"Some SQLite 3.7 Benchmarks\" (2010)",
    "004": "\"Benchmarking RamSQL\"",
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


def ratio_at(runs: RunSet, benchmark: str, a: str, b: str, params: str) -> Interval:
    """time(a) / time(b) of one benchmark at `params`, with its interval (t on the log scale)."""
    from harness.analysis.stats import combine_log_ratios

    ca, cb = cells_of(runs, benchmark, a), cells_of(runs, benchmark, b)
    if params not in ca or params not in cb:
        return NONE
    boots = runs.boots([ca[params], cb[params]])
    x, y = boots.get(ca[params]), boots.get(cb[params])
    return combine_log_ratios([(x, y)], runs.confidence) if x is not None and y is not None else NONE


# --- seed 000 ---------------------------------------------------------------------------------

def seed000_c_vs_python(runs: RunSet) -> Claim:
    """Native C reads rows about 2.76x as fast as Python's sqlite3 (6,891,798 vs 2,500,000 rows/s)."""
    seed = {s.key: s for s in SEEDS["000"][1]}["c_vs_py"]
    r = ratio_at(runs, "bindings.select_fold", PY, C, "n=10000")
    return Claim("000", "native sqlite (C) 6,891,798 rows/s; \"a Python reimplementation ... at 2.5M rows/s\"",
                 f"{seed.shown} (C / Python)", show(r) + " (sqlite3@cpython time / native-c time, select_fold, "
                 "N = 10,000)", v.about(r[1], r[2], seed.value))


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

def _app(runs: RunSet) -> tuple[pd.DataFrame, Callable[..., Interval]] | None:
    cells = app.app_cells(runs.summary)
    if cells.empty:
        return None
    return cells, app._Ratios(runs, cells)


def spread(rs: list[Interval], what: str = "cells") -> str:
    """The range of the estimates of several ratios, and how many (`what`: cells, pairs)."""
    ok = sorted(r[0] for r in rs if math.isfinite(r[0]))
    return f"estimates {num(ok[0])}x to {num(ok[-1])}x over {len(ok)} {what}" if ok else "not measured"


def acid_margins(cells: pd.DataFrame, ratio: Callable[..., Interval]) -> list[Interval]:
    """Per AcidState list/select cell: next fastest other engine's time / AcidState's."""
    out = []
    acid = cells[cells["engine"].map(app.is_acid) & cells["operation"].isin(app.SELECTS)]
    for i, a in acid.iterrows():
        others = cells[(cells["operation"] == a["operation"]) & (cells["corpus"] == a["corpus"])
                       & ~cells["engine"].map(app.is_acid)]
        if not others.empty:
            out.append(ratio(others["mean_s"].idxmin(), i))
    return out


def seed002_acid(runs: RunSet) -> Claim:
    """AcidState wins its selects by 8x or more (every list/select cell)."""
    quote = "AcidState: \"the benchmarks it wins, it wins by an 8x or larger margin\" (list and select)"
    got = _app(runs)
    if got is None:
        return Claim("002", quote, ">= 8x", "not measured", v.untestable("no app.* cells in these runs"))
    rs = acid_margins(*got)
    verdict = v.every_cell(v.at_least(r[1], r[2], app.SEED["acid_margin"]) for r in rs)
    return Claim("002", quote, ">= 8x", f"next fastest engine's time / AcidState's per operation x corpus x build: "
                 f"{spread(rs)}", verdict)


def seed002_mongo_users(_: RunSet) -> Claim:
    return Claim("002", "\"MongoDB consistently outperforms all comers when it comes to user insertion\"",
                 "no number", "—", v.untestable(
                     "MongoDB is reached through FerretDB (MongoDB's wire protocol over PostgreSQL); the seed's "
                     "manual auto-increment asks for the largest id, which FerretDB answers by scanning the "
                     "collection, so the time grows with the corpus for a reason MongoDB does not have"))


def seed002_mongo_push(runs: RunSet) -> Claim:
    got = _app(runs)
    have = got is not None and bool((got[0]["engine"].map(app.is_mongo)
                                     & (got[0]["operation"] == "app.insert_item")).any())
    how = "FerretDB stands in for MongoDB, and its `$push` is an update of a JSONB document in PostgreSQL"
    if not have:
        how += "; no item-insertion cell of FerretDB in these runs"
    return Claim("002", "item insertion with `$push`: MongoDB takes \"about 1/3 the time of the next contender "
                 "until we get up to the 50k corpus\"", f"about 1/{app.SEED['mongo_next']:.0f}", "—",
                 v.untestable(how))


def sqlite_loses(cells: pd.DataFrame, ratio: Callable[..., Interval],
                 runtime: str) -> tuple[list[v.Verdict], list[Interval]]:
    """Per operation x corpus on `runtime`: HDBC-sqlite3's time / each other engine's > 1 in every
    pair (one verdict per cell), and every pair's ratio."""
    same = cells[cells["runtime"].astype(str) == runtime]
    out, rs = [], []
    for i, s in same[same["engine"] == "sqlite/hdbc"].iterrows():
        others = same[(same["operation"] == s["operation"]) & (same["params"] == s["params"])
                      & ~same["engine"].map(app.is_sqlite)]
        pairs = [ratio(i, j) for j in others.index]
        rs += pairs
        if pairs:
            out.append(v.every_cell(v.above(r[1], r[2]) for r in pairs))
    return out, rs


def seed002_sqlite(runs: RunSet) -> Claim:
    """SQLite (HDBC-sqlite3, the seed's binding) loses in every category at every corpus size."""
    quote = "\"SQLite loses in every category at every corpus size, but not by as much as I was expecting\""
    got = _app(runs)
    if got is None:
        return Claim("002", quote, "no number", "not measured", v.untestable("no app.* cells in these runs"))
    cells, ratio = got
    runtime = next((str(r) for r in sorted(cells["runtime"].astype(str).unique())
                    if app.unoptimised(r) and (cells["engine"] == "sqlite/hdbc").any()), "")
    vs, rs = sqlite_loses(cells, ratio, runtime)
    return Claim("002", quote, "no number", f"sqlite/hdbc (HDBC-sqlite3) time / each other engine's on {runtime} "
                 f"(the seed's `ghc --make`): {spread(rs, 'pairs of cells')}", v.every_cell(vs))


def optimisation_pairs(cells: pd.DataFrame, ratio: Callable[..., Interval], only_acid: bool) -> list[Interval]:
    """-O0 time / -O2 time of each cell measured with both builds."""
    out = []
    low = cells[cells["runtime"].astype(str).map(app.unoptimised)]
    if only_acid:
        low = low[low["engine"].map(app.is_acid) & low["operation"].isin(app.SELECTS)]
    for i, c in low.iterrows():
        twins = cells[(cells["benchmark"] == c["benchmark"]) & (cells["params"] == c["params"])
                      & (cells["engine"] == c["engine"]) & ~cells["runtime"].astype(str).map(app.unoptimised)
                      & (cells["runtime"].astype(str).str[:3] == str(c["runtime"])[:3])]
        out += [ratio(i, j) for j in twins.index]
    return out


def _geomean(rs: list[Interval]) -> str:
    ok = [r[0] for r in rs if math.isfinite(r[0]) and r[0] > 0]
    return (f"geometric mean of {len(ok)} cells' estimates {num(math.exp(sum(map(math.log, ok)) / len(ok)))}x; "
            f"{spread(rs)}") if ok else "not measured"


def seed002_optimisation(runs: RunSet, only_acid: bool = False) -> Claim:
    """`ghc -O` about halves most numbers (about 5x for AcidState lookups)."""
    if only_acid:
        quote, value = "`ghc -O` \"improves AcidState lookups by about 5x\"", app.SEED["acid_lookup_optimisation"]
    else:
        quote, value = "\"The ghc optimization flag approximately halves most numbers\"", app.SEED["optimisation"]
    got = _app(runs)
    rs = optimisation_pairs(*got, only_acid) if got is not None else []
    verdict = v.most_cells(v.about(r[1], r[2], value) for r in rs)
    return Claim("002", quote, f"about {value:g}x", f"-O0 time / -O2 time: {_geomean(rs)}", verdict)


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


def seed003_sync(runs: RunSet) -> Claim:
    above_rows = inserts.SEED["even_up_to_rows"]
    vs, shown = sync_verdicts(_grid(runs), above_rows)
    return Claim("003", f"\"After {above_rows:,}, the insertion benchmarks with synchronous off are faster than their "
                 "default synchronous counterparts\"", "no number (charts only)",
                 "delete+full time / delete+off time: " + ("; ".join(shown) or f"no grid cell above N = "
                                                          f"{above_rows:,}"), v.every_cell(vs))


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
                 v.every_cell(vs))


def seed003_versions(_: RunSet) -> Claim:
    a, b = inserts.SEED["versions"]
    return Claim("003", f"SQLite {b} is faster than {a} on prepared inserts: \"a speedup of about 3 seconds\"",
                 f"about {inserts.SEED['version_speedup_s']:g} s", "—", v.untestable(
                     "our two SQLite versions come with two drivers (Python's sqlite3 and apsw), so a difference "
                     "mixes library and binding; the seed changed only the library under one C program (and a "
                     f"Mann-Whitney test of 3 processes a side cannot reach p < 0.05: its smallest p is "
                     f"{v.rank_test_min_p(3, 3):.2g})"))


# --- seed 004 ---------------------------------------------------------------------------------

def seed004_select(runs: RunSet) -> Claim:
    """RamSQL's select over 10,000 rows is about 100x slower than SQLite's."""
    seed = ramsql.SEED_SEC_PER_OP["ramsql.select_10k"]
    seed_ratio = seed[ramsql.RAMSQL] / seed[ramsql.SQLITE]
    ratios = ramsql.engine_ratios(runs)
    hit = ratios[ratios["benchmark"] == "ramsql.select_10k_fixed"]
    r = tuple(float(x) for x in hit.iloc[0][["ratio", "low", "high"]]) if len(hit) else NONE
    return Claim("004", "\"RamSQL SELECT is 100x slower than SQLite (7479µs vs 11µs)\"",
                 f"100x as written ({num(seed_ratio)}x from its own 7,479 µs / 11.05 µs)", show(r) + " (select_10k_fixed: the seed's SQLite "
                 "read no row, so the fixed select, 29 rows on both)", v.about(r[1], r[2], 100.0))


def seed004_change(_: RunSet) -> Claim:
    return Claim("004", "\"the change gains 10% on SELECT and INSERT\" (benchstat, two RamSQL commits)", "about 10%",
                 "—", v.untestable("we run one RamSQL version; our two `go test` sessions run the same code (an "
                                   "A/A comparison)"))


CLAIMS: tuple[Callable[[RunSet], Claim], ...] = (
    seed000_c_vs_python, seed001_inlining, seed001_tpch, seed002_acid, seed002_mongo_users, seed002_mongo_push,
    seed002_sqlite, seed002_optimisation, lambda runs: seed002_optimisation(runs, only_acid=True),
    seed003_sync, seed003_memory_off, seed003_versions, seed004_select, seed004_change,
)


def claims(runs: RunSet) -> list[Claim]:
    """Every claim of the five seeds against these runs, in seed order."""
    return [f(runs) for f in CLAIMS]


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
