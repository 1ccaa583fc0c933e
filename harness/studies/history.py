"""E7, history across runs (seed 003's nightly benchmarks tracked in Codespeed).

Unlike the other studies this one does not pool its runs into one RunSet: each run is one point
on the timeline, estimated alone, and consecutive runs are compared (`analysis.history`).
`compute(run_dirs, figures_dir, ...)` draws the timeline figure and returns the tables, the
generated sentences and the paper blocks; the notebook `notebooks/history.py` shows them.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from harness.analysis import history
from harness.analysis.figures.history import plot_history
from harness.analysis.markdown import to_markdown
from harness.analysis.runset import runs_under
from harness.fsutil import PROJECT_ROOT
from harness.studies.common import StudyResult, figure_link

#: the committed history runs `make paper` renders E7 from (data/reference/ holds the main runs)
REFERENCE_HISTORY = PROJECT_ROOT / "data" / "reference-history"


def default_runs() -> list[Path]:
    """The committed history runs, in run-id order (the timeline orders them by commit)."""
    return runs_under(REFERENCE_HISTORY)


def wide_table(shown: pd.DataFrame) -> pd.DataFrame:
    """`history.display_table`'s long table (a row per cell and run) as one row per run and one
    column per cell, each value `mean [CI]; change`: the same numbers in about a quarter of the rows."""
    if shown.empty:
        return shown
    mean = next(c for c in shown.columns if c.startswith("mean ["))
    val = [f"{m}; {c}" if c else str(m) for m, c in zip(shown[mean], shown["change vs previous"])]
    keys = ["#", "commit", "commit date (UTC)"]
    wide = shown.assign(_v=val).pivot_table(index=keys, columns="cell", values="_v", aggfunc="first", sort=False)
    cells = list(dict.fromkeys(shown["cell"]))
    return wide.reindex(columns=cells).fillna("").reset_index().sort_values("#").reset_index(drop=True)


def compute(run_dirs: Iterable[Path | str], figures_dir: Path | str, benchmarks: str | None = None,
            engines: str | None = None, method: str | None = None, confidence: float = 0.99,
            resamples: int = 10000, alpha: float = 0.05) -> StudyResult:
    figures_dir = Path(figures_dir)
    table, tags = history.timeline(run_dirs, benchmarks, engines, method=method, confidence=confidence,
                                   resamples=resamples, alpha=alpha)
    runs = history.runs_table(tags, table)
    fig = plot_history(table, figures_dir / "e7_history.png", alpha=alpha)
    text = findings(table, tags, alpha)
    shown = history.display_table(table)
    caption = "Table: E7, " + history.caption(table, alpha)

    def blocks(paper_path: Path) -> dict[str, str]:
        out = {"e7-history-text": text,
               "e7-history-runs": to_markdown(runs) + "\n\nTable: E7, the runs on the timeline (noisy: processes "
                                  "during which other programs used more than their threshold of CPU; load: median "
                                  "1-minute load average before each process; not measured: the run's code did "
                                  "not record them).",
               "e7-history-table": to_markdown(wide_table(shown)) + "\n\n" + caption
                                   + " One row per run, one column per cell (each cell: mean [CI]; change)."}
        pair = same_commit_pair(table)
        out["between-run-method"] = between_run_sentence(pair, "Every interval of this paper is one run's")
        out.update({name: between_run_pointer(pair, subject) for name, subject in CROSS_RUN_TABLES.items()})
        out["abstract-e7"] = abstract(pair, same_commit_all(table))
        out["campaign-history-runs"] = campaign_runs_sentence(pair)
        if fig is not None:
            out["e7-history-figure"] = figure_link(
                f"E7 history: mean and {confidence:.0%} CI per run in commit order, significant changes marked"
                + figure_takeaway(table), fig, paper_path)
        return out

    return StudyResult(tables={"timeline": table, "runs": runs, "shown": shown}, text={"findings": text},
                       figures={"timeline": fig}, make_blocks=blocks)


#: how `compare` (and so the timeline) calls a change significant
TEST_NAME = "a two-sided Mann-Whitney U test on the processes' means"


def campaign_runs_sentence(pair: dict | None) -> str:
    """Section 2.5's line on E7: which two history runs the campaign made (the same-commit pair)."""
    if pair is None:
        return "E7 has no two runs of one commit in these runs."
    a, b = pair["runs"]
    return (f"E7's two points of the campaign, `{a}` and `{b}`, were {_made(pair)} at commit "
            f"`{pair['commit']}` and are kept in data/reference-history/ with the older points of the timeline "
            "(Appendix B.8), which earlier sessions made.")


#: the tables whose intervals come from one run set beside numbers from elsewhere (a seed's, or
#: another run's): block name -> what the sentence says the table sets side by side
CROSS_RUN_TABLES = {
    "between-run-e1": "Seed 000's table sets our rows/s, from one run, beside the seed's",
    "between-run-e3": "Seed 001's table sets our ratios, from one run, beside the seed's",
    "between-run-e5": "The E5 claims table judges the seed's claims by the intervals of one run",
    "between-run-e6": "The E6 table sets the worker's run beside the seed's numbers and our two `go test` sessions",
    "between-run-e4": "Seed 003's table sets our cells, from one run, beside the seed's",
    "between-run-seeds": "The verdict table draws each verdict from the intervals of one study's run",
}


def _same_commit(table: pd.DataFrame) -> pd.DataFrame:
    """The compared rows whose run measured the same commit as the run before it."""
    compared = table[table["p_value"].notna()]
    return compared[compared["changed"].astype(str).str.startswith("same commit")]


def same_commit_pair(table: pd.DataFrame) -> dict | None:
    """The most recent two runs of one commit (the reference campaign's E7 and E7b, which bracket the
    campaign's other studies): their commit, how many cells they share, how many moved significantly, and the largest
    move of a median between them, in percent. None when no commit was run twice."""
    same = _same_commit(table)
    if same.empty:
        return None
    pair = same[same["run_id"] == same["run_id"].max()]
    previous = str(pair["previous_run_id"].iloc[0]) if "previous_run_id" in pair else "?"
    return {"commit": str(pair["commit"].iloc[0] or "?")[:7], "cells": len(pair),
            "runs": (previous, str(pair["run_id"].iloc[0])), "apart": _apart(table, previous, pair),
            "ratio_pct": ratio_move(table, previous, str(pair["run_id"].iloc[0])),
            "significant": int(pair["significant"].astype(bool).sum()),
            "largest_pct": float(pair["delta_pct"].abs().max())}


def ratio_move(table: pd.DataFrame, a: str, b: str) -> float:
    """The largest change, in percent, between runs `a` and `b` of a within-run ratio: each benchmark's
    mean time on one engine over its mean on another (every pair of engines both runs measured), the
    kind of number the studies report; NaN when the runs share no benchmark on two engines."""
    need = {"run_id", "benchmark", "engine", "mean_s"}
    if not need <= set(table.columns):
        return math.nan

    def ratios(run: str) -> dict[tuple, float]:
        d = table[(table["run_id"] == run) & table["mean_s"].notna()]
        out = {}
        for bench, g in d.groupby("benchmark"):
            m = dict(zip(g["engine"], g["mean_s"].astype(float)))
            for x, y in itertools.combinations(sorted(m), 2):
                if m[y] > 0:
                    out[(bench, x, y)] = m[x] / m[y]
        return out

    ra, rb = ratios(a), ratios(b)
    moves = [abs(rb[k] / ra[k] - 1) * 100 for k in ra if k in rb and ra[k] > 0]
    return max(moves) if moves else math.nan


def _apart(table: pd.DataFrame, previous: str, pair: pd.DataFrame) -> str:
    """How far apart two runs started, in words ("27 s apart", "41 minutes apart"); "" when unknown."""
    if "started" not in table or "run_id" not in table:
        return ""
    times = pd.to_datetime(table.drop_duplicates("run_id").set_index("run_id")["started"], utc=True, errors="coerce")
    a, b = times.get(previous), times.get(str(pair["run_id"].iloc[0]))
    if a is None or b is None or pd.isna(a) or pd.isna(b):
        return ""
    gap = abs((b - a).total_seconds())
    return f"{gap:.0f} s apart" if gap < 120 else f"{gap / 60:.0f} minutes apart"


def _made(pair: dict) -> str:
    """How the pair was made, for a sentence: "made 41 minutes apart" (else "made one after the other")."""
    return f"made {pair['apart']}" if pair.get("apart") else "made one after the other"


def between_run_sentence(pair: dict | None, subject: str) -> str:
    """One sentence for a table whose intervals are one run's: they cover the variation within a run
    (processes, iterations) only, and the two runs of one commit show the size of what they leave out."""
    if pair is None:
        return (f"{subject}: its intervals cover the variation within a run (processes and iterations) only; no "
                "commit was run twice, so the difference between runs they leave out is not measured here.")
    return (f"{subject}: its intervals cover the variation within a run (processes and iterations) only, not the "
            f"difference between runs, which two runs of one commit ({pair['commit']}, Section 9), {_made(pair)}, "
            f"put at up to {pair['largest_pct']:.0f}% on the medians of the same {pair['cells']} "
            f"cells ({pair['significant']} of {pair['cells']} significant)" + _ratio_clause(pair) + ".")


def _ratio_clause(pair: dict) -> str:
    """What the pair did to a ratio within a run (the quantity the studies report), when measured."""
    r = pair.get("ratio_pct", math.nan)
    if math.isnan(r):
        return ""
    return (f"; a ratio of two engines' means within a run, the kind of number the studies report, moved by "
            f"up to {r:.0f}% between the same two runs")


def between_run_pointer(pair: dict | None, subject: str) -> str:
    """The short line under a table that sets one run's numbers beside others (Section 2.5 says the
    whole of it once): the size of what its intervals leave out."""
    if pair is None:
        return f"{subject}; no commit was run twice, so what one run's intervals leave out is not measured (Section 2.5)."
    return (f"{subject}; its intervals leave out the difference between runs, up to {pair['largest_pct']:.0f}% "
            "between two runs of one commit (Section 2.5).")


def figure_takeaway(table: pd.DataFrame) -> str:
    """The timeline's point: how many moves between commits were significant, against how far two
    runs of one commit moved (the machine alone)."""
    compared = table[table["p_value"].notna()]
    if compared.empty:
        return ""
    other = compared[~compared["changed"].astype(str).str.startswith("same commit")]
    text = f"; {int(other['significant'].astype(bool).sum())} of {len(other)} moves between commits are significant"
    pair = same_commit_pair(table)
    if pair is not None:
        text += (f", while the last two runs of one commit ({pair['commit']}) moved by up to "
                 f"{pair['largest_pct']:.0f}%, the machine alone")
    return text


def findings(table: pd.DataFrame, tags: list[history.RunTag], alpha: float = 0.05) -> str:
    """Generated sentences: what was run, how many changes were significant, and between which
    runs; every number read from the timeline."""
    cells = table.drop_duplicates(history.CELL)
    commits = [t.commit for t in tags]
    distinct = list(dict.fromkeys(commits))
    compared = table[table["p_value"].notna()]
    first, last = tags[0], tags[-1]
    parts = [(f"{len(tags)} runs of the same {len(cells)} cells, measuring {len(distinct)} commits from "
              f"{(first.commit or '?')[:7]} ({history.short_date(first.commit_date)}) to {(last.commit or '?')[:7]} "
              f"({history.short_date(last.commit_date)}); the runs were made between "
              f"{history.short_date(min(t.started or '' for t in tags))} and "
              f"{history.short_date(max(t.started or '' for t in tags))} UTC.")]
    same = compared["changed"].str.startswith("same commit")
    other = compared[~same]
    n_other = int(other["significant"].astype(bool).sum())
    parts.append(f"Between consecutive runs of different commits, {n_other} of {len(other)} comparisons "
                 f"{'is' if n_other == 1 else 'are'} significant at alpha = {alpha:g} ({TEST_NAME}; largest: "
                 + (", ".join(f"{r.benchmark} on {r.engine} {r.delta_pct:+.0f}% at {(r.commit or '?')[:7]}"
                              for r in other[other["significant"].astype(bool)]
                              .assign(a=lambda d: d["delta_pct"].abs()).nlargest(2, "a").itertuples())
                    or "none") + ").")
    calm = _calm_moves(other, table, tags)
    if calm is not None:
        n_calm, sig_calm, busy = calm
        parts.append(f"{busy} of those {len(other)} comparisons involve a run made while the machine's median load "
                     f"exceeded its CPUs (the early runs started minutes apart, beside each other): they measure "
                     f"contention as much as code. Between runs that were both calm, {sig_calm} of {n_calm} "
                     f"{'is' if sig_calm == 1 else 'are'} significant.")
    if same.any():
        twice = compared[same]
        for commit, pair in twice.groupby("commit", sort=False):
            n_sig = int(pair["significant"].astype(bool).sum())
            parts.append(f"Between the two runs of commit {(commit or '?')[:7]}, where nothing changed but the time "
                         f"they ran at, {n_sig} of {len(pair)} comparisons {'is' if n_sig == 1 else 'are'} significant"
                         + (f" (up to {pair[pair['significant'].astype(bool)]['delta_pct'].abs().max():.0f}%): a "
                            "change of that size between those runs is the machine's, not the code's."
                            if n_sig else "."))
    noisy = table["noisy"].dropna()
    if len(noisy) and noisy.sum() > 0:
        measured = table[table["noisy"].notna()]
        parts.append(f"{int(noisy.sum())} of the {int(measured['processes'].sum())} processes whose runs watched "
                     f"for it ran while other programs were busy.")
    loads = table.drop_duplicates("run_id")["loadavg"].dropna()
    cpus = sorted({t.cpus for t in tags if t.cpus})
    if len(loads):
        parts.append(f"Before each process the 1-minute load average was, per run, a median of {loads.min():.1f} to "
                     f"{loads.max():.1f} on a machine of {', '.join(map(str, cpus)) or '?'} CPUs "
                     f"({len(loads)} of {len(tags)} runs recorded it).")
    widest = table[table["mean_s"].notna() & table["ci_high_s"].notna()]
    if len(widest):
        half = (widest["ci_high_s"] - widest["ci_low_s"]) / 2 / widest["mean_s"] * 100
        parts.append(f"The intervals' half-widths range from {half.min():.0f}% to {half.max():.0f}% of the mean "
                     f"(median {half.median():.0f}%).")
    if compared.empty:
        parts.append("No cell was measured twice, so no change could be tested.")
    return "\n".join(f"- {p}" for p in parts)


def _calm_moves(moves: pd.DataFrame, table: pd.DataFrame, tags: list[history.RunTag]) -> tuple[int, int, int] | None:
    """(comparisons between two calm runs, how many significant, comparisons touching a busy run): a
    run is busy when its median load average before a process exceeded the machine's CPUs; None when
    no comparison touches a busy run or the load was not recorded."""
    cpus = {t.run_id: t.cpus for t in tags if getattr(t, "cpus", None)}
    load = table.drop_duplicates("run_id").set_index("run_id")["loadavg"]
    busy = {r for r, v in load.items() if pd.notna(v) and r in cpus and float(v) > cpus[r]}
    if moves.empty or not busy or "previous_run_id" not in moves:
        return None
    touched = moves["run_id"].isin(busy) | moves["previous_run_id"].isin(busy)
    known = moves["run_id"].map(lambda r: pd.notna(load.get(r))) & moves["previous_run_id"].map(
        lambda r: pd.notna(load.get(r)))
    calm = moves[~touched & known]
    return len(calm), int(calm["significant"].astype(bool).sum()), int(touched.sum())


def same_commit_all(table: pd.DataFrame) -> dict | None:
    """Every comparison of two runs of one commit in the history (older runs included, whatever the
    machine's state then): how many, how many significant, and the largest move in percent."""
    same = _same_commit(table)
    if same.empty:
        return None
    return {"cells": len(same), "runs": int(same["run_id"].nunique()),
            "significant": int(same["significant"].astype(bool).sum()),
            "largest_pct": float(same["delta_pct"].abs().max())}


def abstract(pair: dict | None, every: dict | None = None) -> str:
    """The abstract's E7 sentence: how far two runs of one commit moved, beyond their intervals; with
    `every` (`same_commit_all`), the largest move over all runs of one commit in the history too."""
    if pair is None:
        return "_No commit was run twice in these runs._"
    text = (f"Two runs of one commit, {_made(pair)}, moved the medians of the same {pair['cells']} "
            f"cells by up to {pair['largest_pct']:.0f}% ({pair['significant']} of {pair['cells']} moves significant "
            f"at alpha = 0.05, {TEST_NAME})" + _ratio_clause(pair) + ".")
    if every is not None and every["cells"] > pair["cells"]:
        text += (f" Over every comparison of two runs of one commit in the history ({every['cells']} cell moves, "
                 f"older runs included), the largest move was {every['largest_pct']:.0f}% "
                 f"and {every['significant']} of {every['cells']} were significant.")
    return text
