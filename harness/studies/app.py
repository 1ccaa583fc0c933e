"""E5, the application workload (seed 002, "AcidState vs. The World"): four operations on four
corpora per engine, and the seed's headline claims tested with intervals.

`compute(runs, figures_dir, baseline)` returns the table (operation x corpus x engine, mean
[low, high]), the claims (each supported / not supported / inconclusive / not testable here,
with the numbers), the figure and the paper blocks. Which cells are AcidState, MongoDB or SQLite
is read from engine names (`acidstate/*`, `ferretdb/*` or `mongodb/*`, `sqlite/*`), and the
`-O` comparison from runtime names (a Haskell runtime whose name says O0 against its optimised
twin), so cells another worker adds are picked up as they appear.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from harness.analysis.figures.app import OPERATIONS, plot_app
from harness.analysis.runset import RunSet
from harness.analysis.stats.intervals import combine_log_ratios
from harness.analysis.stats.resample import CELL_KEYS
from harness.studies.common import StudyResult, excluded_cells, family_table, figure_link, protocol_text

PREFIX = "app."
CORPORA = ("SM", "MD", "LG", "LG2")
SELECTS = ("app.list_users", "app.query_user")

#: what seed 002 reported (its own machine, Haskell, criterion; prose, not tables): the seed's numbers
SEED = {
    "acid_select": "AcidState's list and select in the low double-digit microseconds",
    "acid_select_max_s": 100e-6,
    "acid_margin": 8.0,
    "others": "the other engines in the high single / low double-digit milliseconds",
    "mongo_next": 3.0,
    "optimisation": 2.0,
    "acid_lookup_optimisation": 5.0,
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


def fmt_time(mean: float, lo: float, hi: float) -> str:
    scale, unit = next(((s, u) for s, u in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")) if mean >= s), (1e-9, "ns"))

    def f(v: float) -> str:
        return f"{v / scale:.3g}" if math.isfinite(v) else "?"

    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{f(mean)} {unit} (no CI)"
    return f"{f(mean)} [{f(lo)}, {f(hi)}] {unit}"


def e5_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Rows: operation x corpus; columns: series; values: mean [low, high]."""
    if cells.empty:
        return pd.DataFrame()
    order = {op.replace(PREFIX, ""): i for i, op in enumerate(OPERATIONS)}
    rows = []
    for (row, corpus), d in cells.groupby(["row", "corpus"], sort=False):
        out: dict[str, Any] = {"operation": row, "corpus": corpus}
        for r in d.itertuples():
            out[r.series] = fmt_time(r.mean_s, r.ci_low_s, r.ci_high_s)
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

    def __call__(self, num: Any, den: Any) -> tuple[float, float, float]:
        a, b = self.boots.get(self.keys[num]), self.boots.get(self.keys[den])
        if a is None or b is None:
            return math.nan, math.nan, math.nan
        return combine_log_ratios([(a, b)], self.confidence)


def _iv(r: tuple[float, float, float]) -> str:
    est, lo, hi = r
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{est:.3g}x (no CI)"
    return f"{est:.3g}x [{lo:.3g}, {hi:.3g}]"


def _verdict(held: int, failed: int, total: int) -> str:
    if total == 0:
        return "not testable here"
    if held == total:
        return "supported"
    if failed > 0:
        return "not supported"
    return "inconclusive at this precision"


def claim_acid(cells: pd.DataFrame, ratio: _Ratios) -> dict[str, str]:
    claim = (f"AcidState's selects take microseconds (seed: {SEED['acid_select']}) and it wins them by "
             f">= {SEED['acid_margin']:.0f}x")
    acid = cells[cells["engine"].map(is_acid) & cells["operation"].isin(SELECTS)]
    if acid.empty:
        return {"claim": claim, "verdict": "not testable here",
                "evidence": "no AcidState cells in these runs (engines named acidstate/*, from the Haskell worker)"}
    held = failed = total = 0
    bits = []
    for i, a in acid.iterrows():
        others = cells[(cells["operation"] == a["operation"]) & (cells["corpus"] == a["corpus"])
                       & ~cells["engine"].map(is_acid)]
        us = a["ci_high_s"] < SEED["acid_select_max_s"]
        total += 1
        if others.empty:
            bits.append(f"{a['row']} {a['corpus']}: {fmt_time(a['mean_s'], a['ci_low_s'], a['ci_high_s'])}, "
                        "no other engine to compare")
            held += us
            failed += a["ci_low_s"] >= SEED["acid_select_max_s"]
            continue
        j = others["mean_s"].idxmin()
        r = ratio(j, i)
        ok = us and r[1] >= SEED["acid_margin"]
        bad = a["ci_low_s"] >= SEED["acid_select_max_s"] or r[2] < SEED["acid_margin"]
        held += ok
        failed += bad
        bits.append(f"{a['row']} {a['corpus']}: {fmt_time(a['mean_s'], a['ci_low_s'], a['ci_high_s'])}, "
                    f"next fastest {others.loc[j, 'series']} {_iv(r)} slower")
    return {"claim": claim, "verdict": _verdict(held, failed, total), "evidence": "; ".join(bits)}


def claim_mongo(cells: pd.DataFrame, ratio: _Ratios) -> dict[str, str]:
    claim = (f"MongoDB is fastest at user insertion (seed: about 1/{SEED['mongo_next']:.0f} the time of the next "
             "contender up to the 50k corpus)")
    mongo = cells[cells["engine"].map(is_mongo) & (cells["operation"] == "app.insert_user")]
    if mongo.empty:
        return {"claim": claim, "verdict": "not testable here",
                "evidence": "no MongoDB-wire cells (ferretdb/*) in these runs"}
    held = failed = total = 0
    bits = []
    for i, m in mongo.iterrows():
        others = cells[(cells["operation"] == m["operation"]) & (cells["params"] == m["params"])
                       & ~cells["engine"].map(is_mongo)]
        if others.empty:
            continue
        total += 1
        rs = {j: ratio(j, i) for j in others.index}
        held += all(r[1] > 1 for r in rs.values())
        failed += any(r[2] < 1 for r in rs.values())
        j = others["mean_s"].idxmin()
        bits.append(f"{m['row']} {m['corpus']}: fastest other {others.loc[j, 'series']} takes {_iv(rs[j])} "
                    f"{m['series']}'s time; {sum(r[2] < 1 for r in rs.values())} of {len(rs)} engines are "
                    "significantly faster")
    return {"claim": claim, "verdict": _verdict(held, failed, total), "evidence": "; ".join(bits)}


def claim_sqlite(cells: pd.DataFrame, ratio: _Ratios) -> dict[str, str]:
    claim = "SQLite loses in every category at every corpus size, but narrowly (seed: no number)"
    sq = cells[cells["engine"] == "sqlite/sqlite3"]
    if sq.empty:
        return {"claim": claim, "verdict": "not testable here", "evidence": "no sqlite/sqlite3 cells in these runs"}
    held = failed = total = 0
    last, margins, first = [], [], []
    for i, s in sq.iterrows():
        others = cells[(cells["operation"] == s["operation"]) & (cells["params"] == s["params"])
                       & ~cells["engine"].map(is_sqlite)]
        if others.empty:
            continue
        total += 1
        rs = {j: ratio(i, j) for j in others.index}
        ok = all(r[1] > 1 for r in rs.values())
        held += ok
        failed += any(r[2] < 1 for r in rs.values())
        if all(r[2] < 1 for r in rs.values()):
            first.append(f"{s['row']} {s['corpus']}")
        if ok:
            j = others["mean_s"].idxmax()
            margins.append(rs[j][0])
            last.append(f"{s['row']} {s['corpus']} ({_iv(rs[j])} the slowest other, {others.loc[j, 'series']})")
    ev = (f"sqlite/sqlite3 is significantly slower than every non-SQLite engine in {held} of {total} "
          f"operation x corpus cells")
    ev += (": " + "; ".join(last) if last else "") + "."
    if first:
        ev += (f" It is significantly faster than every non-SQLite engine in {len(first)} of {total}: "
               + ", ".join(first) + ".")
    if margins:
        ev += f" Where it is last, its median margin over the next slowest is {pd.Series(margins).median():.2f}x."
    return {"claim": claim, "verdict": _verdict(held, failed, total), "evidence": ev}


def claim_optimisation(cells: pd.DataFrame, ratio: _Ratios) -> dict[str, str]:
    claim = (f"`ghc -O` about halves most times (seed: {SEED['optimisation']:.0f}x; AcidState lookups "
             f"{SEED['acid_lookup_optimisation']:.0f}x)")
    low = cells[cells["runtime"].astype(str).map(unoptimised)]
    pairs = []
    for i, c in low.iterrows():
        twins = cells[(cells["benchmark"] == c["benchmark"]) & (cells["params"] == c["params"])
                      & (cells["engine"] == c["engine"]) & ~cells["runtime"].astype(str).map(unoptimised)
                      & (cells["runtime"].astype(str).str[:3] == str(c["runtime"])[:3])]
        pairs += [(i, j) for j in twins.index]
    if not pairs:
        return {"claim": claim, "verdict": "not testable here",
                "evidence": "no pair of Haskell runtimes with and without optimisation (-O0) in these runs"}
    rs = [ratio(i, j) for i, j in pairs]
    halve = SEED["optimisation"]
    # a cell supports "halves" only when its whole interval says -O is faster (low > 1) and reaches
    # the seed's factor (high >= 2); it contradicts it when the whole interval lies below 2
    held = sum(r[1] > 1 and r[2] >= halve for r in rs)
    below = sum(r[2] < halve for r in rs)
    verdict = ("supported" if held * 2 > len(rs) else "not supported" if below * 2 >= len(rs)
               else "inconclusive at this precision")
    ev = (f"over {len(rs)} cells, the -O0 time / optimised time interval lies above 1 and reaches 2 in {held}, "
          f"lies entirely below 2 in {below}, and straddles in {len(rs) - held - below}; geometric mean of the "
          f"estimates {math.exp(sum(math.log(r[0]) for r in rs) / len(rs)):.2f}x")
    return {"claim": claim, "verdict": verdict, "evidence": ev}


def claims(cells: pd.DataFrame, ratio: _Ratios) -> list[dict[str, str]]:
    return [claim_acid(cells, ratio), claim_mongo(cells, ratio), claim_sqlite(cells, ratio),
            claim_optimisation(cells, ratio)]


def claims_markdown(items: list[dict[str, str]], method: str) -> str:
    lines = ["| seed 002's claim | here | evidence |", "|---|---|---|"]
    lines += [f"| {c['claim']} | **{c['verdict']}** | {c['evidence']} |" for c in items]
    return ("\n".join(lines) + f"\n\nTable: E5, seed 002's headline claims against these runs. Ratios are of cell "
            f"means with 99% intervals (t on the log scale from each cell's {method} reduction); a claim holds in "
            "a cell only when its whole interval does; \"inconclusive\" means some interval straddles the line. "
            "The seed's numbers are its own prose (Haskell, criterion, a Core i3 in 2013).")


def compute(runs: RunSet, figures_dir: Path | str, baseline: str = "sqlite/sqlite3@cpython") -> StudyResult:
    figures_dir = Path(figures_dir)
    summary = runs.summary
    cells = app_cells(summary)
    method = runs.method
    table = e5_table(cells)
    ratio = _Ratios(runs, cells) if not cells.empty else None
    items = claims(cells, ratio) if ratio is not None else []
    fig = plot_app(cells[cells["hash"] != "on"] if not cells.empty else cells, figures_dir / "e5_app.png",
                   CORPORA, method)
    excluded = excluded_cells(summary, PREFIX)
    from harness.analysis.markdown import to_markdown

    table_md = (to_markdown(table) if not table.empty else "_no valid app.* cells in these runs_") + (
        f"\n\nTable: E5, mean time per operation with its 99% CI ({method} method) per corpus and engine "
        "(SM: user #42 alone; MD: 1,000 users, #789; LG: 50,000, #42; LG2: 50,000, #45678); "
        f"\"(scrypt)\": the password hashed in the timed region. {excluded}")
    claims_md = claims_markdown(items, method) if items else "_no valid app.* cells in these runs_"
    ratio_table, ratio_md = family_table(runs, PREFIX, baseline)
    raw = runs.raw_of(PREFIX + "*")
    app_runs = set(raw["run_id"]) if "run_id" in raw else set()
    protocol = protocol_text([d for d in runs.run_dirs if Path(d).name in app_runs] or runs.run_dirs)

    def blocks(paper_path: Path) -> dict[str, str]:
        out = {"e5-protocol": protocol, "e5-table": table_md, "e5-claims": claims_md, "e5-ratios": ratio_md}
        if fig is not None:
            out["e5-figure"] = figure_link(f"E5 time per operation per corpus and engine, 99% CI ({method})", fig,
                                           paper_path)
        return out

    return StudyResult(tables={"cells": cells, "e5": table, "claims": pd.DataFrame(items), "ratios": ratio_table},
                       text={"claims": claims_md, "table": table_md, "ratios": ratio_md}, figures={"app": fig},
                       make_blocks=blocks)
