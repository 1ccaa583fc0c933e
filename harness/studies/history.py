"""E7, history across runs (after seed 003's nightly JRuby benchmarks tracked in Codespeed).

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
from harness.studies.common import StudyResult, figure_link, heading_of

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
        pairs = same_commit_pairs(table, tags)
        # the pairs' range is Section 1.1's (abstract-e7) and Section 9's: the methods give the campaign's own pair
        out["between-run-method"] = between_run_sentence(pair, "One run's verdicts rest on one run's intervals")
        where = section_of(paper_path, "between-run-method") or "the methods"
        out.update({name: between_run_pointer(pair, subject, where) for name, subject in CROSS_RUN_TABLES.items()})
        out["abstract-e7"] = abstract(pair, same_commit_all(table), pairs)
        out["campaign-history-runs"] = campaign_runs_sentence(pair)
        out["e7-pair-timing"] = pair_timing_sentence(pair_timing(pairs, tags)) or "_No commit was run twice._"
        if fig is not None:
            out["e7-history-figure"] = figure_link(
                f"E7 history: mean and {confidence:.0%} CI per run in commit order (log scale), significant changes "
                "marked (each mark gives the change of the processes' median, the quantity `compare` tests)"
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
            f"`{pair['commit']}` and are kept in data/reference-history/ with the older points of the timeline, "
            "which earlier sessions made.")


#: the tables whose intervals come from one run set beside numbers from elsewhere (a seed's, or
#: another run's) and carry a pointer to the methods' sentence: block name -> what the pointer says the
#: table sets side by side. The methods (Section 2.5) say it once for every such table; only the
#: verdicts, which rest on it most, point back to it (the seeds' tables once each repeated it).
CROSS_RUN_TABLES = {
    "between-run-seeds": "The verdict table draws each verdict from the intervals of one study's run",
}


#: how two consecutive points of the timeline relate, read from `history.what_changed`'s text
PAIR_KINDS = {"commits": "commit ", "same": "same commit", "uncommitted": "uncommitted changes"}


def pair_kind(changed: str) -> str:
    """'commits' (two different commits), 'same' (one commit, both trees clean) or 'uncommitted' (one
    commit, the later point made with uncommitted changes, so its code may differ: counted as neither)."""
    text = str(changed)
    return next((k for k, prefix in PAIR_KINDS.items() if text.startswith(prefix)), "commits")


def _compared(table: pd.DataFrame, kind: str | None = None) -> pd.DataFrame:
    """The compared rows (a cell against the previous run that measured it), of one `pair_kind` if given."""
    compared = table[table["p_value"].notna()]
    if kind is None:
        return compared
    return compared[compared["changed"].map(pair_kind) == kind]


def _same_commit(table: pd.DataFrame) -> pd.DataFrame:
    """The compared rows whose run measured the same commit as the run before it, both trees clean."""
    return _compared(table, "same")


def timeline_counts(table: pd.DataFrame, tags: list[history.RunTag] | None = None) -> dict:
    """Every count of E7's points, commits and pairs, from one place: points (runs), commits, how many
    points were made with uncommitted changes (labelled dirty) and at how many commits, and per
    `pair_kind` the consecutive pairs of points and their cell comparisons. The dirty points count as
    points of their commit; a pair of one commit with uncommitted changes counts as neither a change of
    commit nor the machine alone."""
    if tags is not None:
        runs = [(t.run_id, t.commit, bool(t.dirty)) for t in tags]
    else:
        first = table.drop_duplicates("run_id")
        runs = list(zip(first["run_id"], first["commit"],
                        first.get("dirty", pd.Series(False, index=first.index)).fillna(False).astype(bool)))
    compared = _compared(table)
    kinds = compared["changed"].map(pair_kind) if len(compared) else pd.Series(dtype=str)
    out = {"points": len(runs), "commits": len({c for _, c, _ in runs}),
           "dirty_points": sum(d for _, _, d in runs), "dirty_commits": len({c for _, c, d in runs if d}),
           "pairs": int(compared["run_id"].nunique()) if len(compared) else 0, "comparisons": len(compared)}
    for kind in PAIR_KINDS:
        rows = compared[kinds == kind] if len(compared) else compared
        out[f"{kind}_pairs"] = int(rows["run_id"].nunique()) if len(rows) else 0
        out[f"{kind}_comparisons"] = len(rows)
    return out


def points_sentence(c: dict, cells: int) -> str:
    """How many points of how many cells at how many commits (`timeline_counts`)."""
    return f"{c['points']} points (runs) of the same {cells} cells at {c['commits']} commit{'' if c['commits'] == 1 else 's'}"


def dirty_clause(c: dict) -> str:
    """Whether the points made with uncommitted changes are among those counted (`timeline_counts`)."""
    if not c["dirty_points"]:
        return ""
    return (f"; {c['dirty_points']} of the points, at {c['dirty_commits']} of the commits, were made with "
            "uncommitted changes (labelled dirty), counted among them")


def pairs_sentence(c: dict) -> str:
    """The consecutive pairs of points by kind, with their cell comparisons (`timeline_counts`)."""
    text = (f"{c['pairs']} pairs of consecutive points: {c['commits_pairs']} of different commits "
            f"({c['commits_comparisons']} cell comparisons), {c['same_pairs']} of one commit with clean trees "
            f"({c['same_comparisons']})")
    if c["uncommitted_pairs"]:
        text += (f" and {c['uncommitted_pairs']} of one commit with uncommitted changes "
                 f"({c['uncommitted_comparisons']}), counted as neither (their code may differ)")
    return text


def _top_pair(pairs: list[dict] | None) -> str:
    """', in 338b797's pair, made at a median load of 18.2 on 2 CPUs': the pair that moved most."""
    if not pairs:
        return ""
    top = max(pairs, key=lambda p: p["largest_pct"])
    load = "" if math.isnan(top["load"]) else f", made at a median load of {top['load']:.1f} on {top['cpus'] or '?'} CPUs"
    return f" (in {top['commit']}'s pair{load})"


def same_commit_pair(table: pd.DataFrame) -> dict | None:
    """The most recent two runs of one commit (the reference campaign's E7 and E7b, which bracket the
    campaign's other studies): their commit, how many cells they share, how many moved significantly, and the largest
    move of a median between them, in percent (with `ratio_pct` and `mean_pct`, the largest moves of a
    within-run ratio of means and of a cell's mean: what the studies report). None when no commit was run twice."""
    same = _same_commit(table)
    if same.empty:
        return None
    pair = same[same["run_id"] == same["run_id"].max()]
    previous = str(pair["previous_run_id"].iloc[0]) if "previous_run_id" in pair else "?"
    return {"commit": str(pair["commit"].iloc[0] or "?")[:7], "cells": len(pair),
            "runs": (previous, str(pair["run_id"].iloc[0])), "apart": _apart(table, previous, pair),
            "ratio_pct": ratio_move(table, previous, str(pair["run_id"].iloc[0])),
            "mean_pct": mean_move(table, previous, str(pair["run_id"].iloc[0])),
            "significant": int(pair["significant"].astype(bool).sum()),
            "largest_pct": float(pair["delta_pct"].abs().max())}


def same_commit_pairs(table: pd.DataFrame, tags: list | None = None) -> list[dict]:
    """Every pair of consecutive runs of one commit with clean trees in the history, oldest first, each
    as `same_commit_pair` gives the latest one, plus `load` (the higher of the two runs' median 1-minute
    load averages before a process; NaN when not recorded), `cpus` and `busy` (load above the CPUs)."""
    same = _same_commit(table)
    if same.empty:
        return []
    cpus = {t.run_id: t.cpus for t in (tags or []) if getattr(t, "cpus", None)}
    load = (table.drop_duplicates("run_id").set_index("run_id")["loadavg"] if "loadavg" in table
            else pd.Series(dtype=float))
    out = []
    for run, pair in same.groupby("run_id", sort=True):
        previous = str(pair["previous_run_id"].iloc[0]) if "previous_run_id" in pair else "?"
        loads = [float(load.get(r)) for r in (previous, str(run)) if pd.notna(load.get(r, math.nan))]
        lv = max(loads) if loads else math.nan
        c = cpus.get(str(run)) or cpus.get(previous)
        out.append({"commit": str(pair["commit"].iloc[0] or "?")[:7], "cells": len(pair),
                    "runs": (previous, str(run)), "apart": _apart(table, previous, pair),
                    "ratio_pct": ratio_move(table, previous, str(run)),
                    "mean_pct": mean_move(table, previous, str(run)),
                    "significant": int(pair["significant"].astype(bool).sum()),
                    "largest_pct": float(pair["delta_pct"].abs().max()),
                    "load": lv, "cpus": c, "busy": bool(c and not math.isnan(lv) and lv > c)})
    return out


def pairs_range_text(pairs: list[dict]) -> str:
    """Over every clean same-commit pair of the history: the range of the largest moves (ratio of
    means, mean) and which pair moved most, with its load; '' when there are fewer than two pairs."""
    if len(pairs) < 2:
        return ""

    def rng(key: str) -> str:
        v = [p[key] for p in pairs if not math.isnan(p.get(key, math.nan))]
        return f"{min(v):.0f}% to {max(v):.0f}%" if v else ""

    top = max(pairs, key=largest_move)
    load = ("" if math.isnan(top["load"]) else
            f", made at a median load of {top['load']:.1f} on {top['cpus'] or '?'} CPUs")
    sig = ", ".join(f"{p['commit']} {p['significant']} of {p['cells']}" for p in pairs)
    # each quantity named: a ratio of means and a mean (what the studies report), a median (what the test
    # compares and the abstract's largest move is)
    said = [t for t in (f"a ratio of means by {rng('ratio_pct')}" if rng("ratio_pct") else "",
                        f"a mean by {rng('mean_pct')}" if rng("mean_pct") else "",
                        f"a median by {rng('largest_pct')}" if rng("largest_pct") else "") if t]
    moved = ", ".join(said[:-1]) + (" and " if len(said) > 1 else "") + said[-1]
    return (f"over all {len(pairs)} clean same-commit pairs of the history, the largest moves were {moved}, "
            f"most in {top['commit']}'s pair{load}; significant moves: {sig}")


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
    # the larger of the two directions (x/y and y/x move by +17% and -15% alike): which engine is the
    # numerator is an accident of their names' order
    moves = [max(abs(q - 1), abs(1 / q - 1)) * 100 for q in (rb[k] / ra[k] for k in ra if k in rb and ra[k] > 0)
             if q > 0]
    return max(moves) if moves else math.nan


def mean_move(table: pd.DataFrame, a: str, b: str) -> float:
    """The largest change, in percent, of a cell's mean between runs `a` and `b` (the cells both ran);
    NaN when they share none or the table has no means."""
    need = {"run_id", "benchmark", "engine", "mean_s"}
    if not need <= set(table.columns):
        return math.nan

    def means(run: str) -> dict[tuple, float]:
        d = table[(table["run_id"] == run) & table["mean_s"].notna()]
        return {(r.benchmark, r.engine): float(r.mean_s) for r in d.itertuples()}

    ma, mb = means(a), means(b)
    moves = [abs(mb[k] / ma[k] - 1) * 100 for k in ma if k in mb and ma[k] > 0]
    return max(moves) if moves else math.nan


def moves_text(pair: dict, test: str = "") -> str:
    """What two runs of one commit moved, to follow "moved": the studies' own quantities first (a
    within-run ratio of two engines' means, a cell's mean), then the medians the test compares, with
    how many of those moves were significant."""
    parts = []
    r, m = pair.get("ratio_pct", math.nan), pair.get("mean_pct", math.nan)
    if not math.isnan(r):
        parts.append(f"a ratio of two engines' means within a run by up to {r:.0f}%")
    if not math.isnan(m):
        parts.append(f"a cell's mean by up to {m:.0f}%")
    parts.append(f"the medians of the same {pair['cells']} cells by up to {pair['largest_pct']:.0f}% "
                 f"({pair['significant']} of {pair['cells']} moves significant{test})")
    return ", ".join(parts[:-1]) + (", and " if len(parts) > 1 else "") + parts[-1]


def largest_move(pair: dict) -> float:
    """The largest of the pair's moves (ratio, mean, median), in percent: the short lines quote it."""
    vals = [pair.get(k, math.nan) for k in ("ratio_pct", "mean_pct", "largest_pct")]
    return max(v for v in vals if not math.isnan(v))


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


def between_run_sentence(pair: dict | None, subject: str, pairs: list[dict] | None = None) -> str:
    """One sentence for a table whose intervals are one run's: they cover the variation within a run
    (processes, iterations) only, and the two runs of one commit show the size of what they leave out."""
    if pair is None:
        return (f"{subject}: such an interval covers the variation within a run (processes and iterations) only; no "
                "commit was run twice, so the difference between runs it leaves out is not measured here.")
    return (f"{subject}: such an interval covers the variation within a run (processes and iterations) only, not the "
            f"difference between runs, which two runs of one commit ({pair['commit']}, Section 9), {_made(pair)}, "
            f"moved " + moves_text(pair) + (f"; {pairs_range_text(pairs)}" if pairs_range_text(pairs or []) else "")
            + ".")


def between_run_pointer(pair: dict | None, subject: str, where: str = "Section 2.5") -> str:
    """The short line under a table that sets one run's numbers beside others: a pointer to `where` the
    between-run spread its intervals leave out is given (`between_run_sentence`, said once, in the
    methods), so the numbers of that spread are not repeated under every table."""
    if pair is None:
        return f"{subject}; no commit was run twice, so what one run's intervals leave out is not measured ({where})."
    return f"{subject} (between-run spread, which its intervals leave out: {where})."


def section_of(paper_path: Path | str | None, block: str) -> str:
    """'Section 2.5': the numbered heading a generated block sits under in the paper (`heading_of`)."""
    return heading_of(paper_path, block)


def _gap_words(seconds: float) -> str:
    """A gap in words: '21 s' under two minutes, else '5 minutes' (or '3.2 hours' from two hours)."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def pair_timing(pairs: list[dict], tags: list) -> list[dict]:
    """When the two runs of each clean same-commit pair ran, from the runs' recorded start and end times
    (`tags`, `history.RunTag`): `gap_s`, the seconds from the first run's end to the second's start;
    `between`, how many other runs of the history started in that gap; `longest_s`, the longer of the
    two runs' durations. A pair whose times were not recorded is left out."""
    def ts(value: object) -> pd.Timestamp | None:
        t = pd.to_datetime(value, utc=True, errors="coerce") if value else None
        return None if t is None or pd.isna(t) else t

    by_id = {t.run_id: t for t in tags}
    out = []
    for p in pairs:
        a, b = (by_id.get(r) for r in p["runs"])
        if a is None or b is None:
            continue
        a0, a1, b0, b1 = ts(a.started), ts(getattr(a, "ended", None)), ts(b.started), ts(getattr(b, "ended", None))
        if a0 is None or a1 is None or b0 is None:
            continue
        between = sum(1 for t in tags if t.run_id not in p["runs"] and ts(t.started) is not None
                      and a0 < ts(t.started) < b0)
        spans = [(a1 - a0).total_seconds()] + ([(b1 - b0).total_seconds()] if b1 is not None else [])
        out.append({"commit": p["commit"], "gap_s": max((b0 - a1).total_seconds(), 0.0), "between": between,
                    "longest_s": max(spans)})
    return out


def pair_timing_sentence(timing: list[dict]) -> str:
    """Section 9's line on what a same-commit pair measures: its two runs were made one right after the
    other (the gaps, from the runs' start and end times), so their difference is the host's drift over
    that short gap, not what changes between days; '' when no pair's times were recorded."""
    if not timing:
        return ""
    timing = sorted(timing, key=lambda t: t["gap_s"])
    parts = [f"{t['commit']}'s" + (" second run started" if k == 0 else "") + f" {_gap_words(t['gap_s'])} after"
             + (" its first ended" if k == 0 else "")
             + (f" ({t['between']} other run{'' if t['between'] == 1 else 's'} between them)"
                if t["between"] else "") for k, t in enumerate(timing)]
    widest = max(t["gap_s"] for t in timing)
    longest = max(t["longest_s"] for t in timing)
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"The two runs of each clean same-commit pair were made one soon after the other: {listed}; no run "
            f"took over {_gap_words(longest)}. A pair's difference therefore measures the host's short-term drift "
            f"only, over {_gap_words(widest)} at most, not what changes between days.")


def figure_takeaway(table: pd.DataFrame) -> str:
    """The timeline's point: how many moves between commits were significant, against how far two
    runs of one commit moved (the machine alone)."""
    if _compared(table).empty:
        return ""
    other = _compared(table, "commits")
    text = f"; {int(other['significant'].astype(bool).sum())} of {len(other)} moves between commits are significant"
    same = _same_commit(table)
    if len(same):
        text += (f", and {int(same['significant'].astype(bool).sum())} of {len(same)} between two runs of one "
                 "commit, where the code did not change")
    pair = same_commit_pair(table)
    if pair is not None:
        text += f" (the last such pair moved a mean or ratio by up to {largest_move(pair):.0f}%)"
    return text + (": a test within two runs leaves out what a run adds (Section 2.5), so a significant move is "
                   "the code's or the machine's")


def findings(table: pd.DataFrame, tags: list[history.RunTag], alpha: float = 0.05) -> str:
    """Generated sentences: what was run, how many changes were significant, and between which
    runs; every number read from the timeline."""
    cells = table.drop_duplicates(history.CELL)
    counts = timeline_counts(table, tags)
    compared = _compared(table)
    first, last = tags[0], tags[-1]
    parts = [(f"{points_sentence(counts, len(cells))}, from "
              f"{(first.commit or '?')[:7]} ({history.short_date(first.commit_date)}) to {(last.commit or '?')[:7]} "
              f"({history.short_date(last.commit_date)}); the runs were made between "
              f"{history.short_date(min(t.started or '' for t in tags))} and "
              f"{history.short_date(max(t.started or '' for t in tags))} UTC" + dirty_clause(counts) + ".")]
    dirty = compared[compared["changed"].map(pair_kind) == "uncommitted"]
    if len(compared):
        parts.append(pairs_sentence(counts)[0].upper() + pairs_sentence(counts)[1:]
                     + (f"; {int(dirty['significant'].astype(bool).sum())} of those {len(dirty)} are significant"
                        if len(dirty) else "") + ".")
    kinds = compared["changed"].map(pair_kind)
    same = kinds == "same"
    other = compared[kinds == "commits"]
    n_other = int(other["significant"].astype(bool).sum())
    parts.append(f"Between consecutive runs of different commits, {n_other} of {len(other)} comparisons "
                 f"{'is' if n_other == 1 else 'are'} significant at alpha = {alpha:g} ({TEST_NAME}; largest: "
                 + (", ".join(f"{r.benchmark} on {r.engine} {r.delta_pct:+.0f}% at {(r.commit or '?')[:7]}"
                              for r in other[other["significant"].astype(bool)]
                              .assign(a=lambda d: d["delta_pct"].abs()).nlargest(2, "a").itertuples())
                    or "none") + ").")
    machines = machine_moves(other, tags)
    if machines is not None:
        hosts, crossing, sig_crossing = machines
        parts.append(f"The history's runs were made on {len(hosts)} machines ({', '.join(hosts)}): {crossing} of those "
                     f"{len(other)} comparisons are between runs on different machines, {sig_crossing} of them "
                     "significant, so they measure the machine as much as the code.")
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
                         + (f" (medians up to {pair[pair['significant'].astype(bool)]['delta_pct'].abs().max():.0f}%): a "
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


def machine_moves(moves: pd.DataFrame, tags: list[history.RunTag]) -> tuple[list[str], int, int] | None:
    """(the machines the history's runs were made on (CPU model, from the manifests), comparisons between runs
    on different machines, how many of those significant); None when every run names one machine (or none)."""
    from harness.studies.common import cpu_model

    host = {t.run_id: cpu_model(t.run_dir) for t in tags}
    hosts = sorted({h for h in host.values() if h})
    if len(hosts) < 2 or moves.empty or "previous_run_id" not in moves:
        return None
    crossing = moves[[bool(host.get(a)) and bool(host.get(b)) and host.get(a) != host.get(b)
                      for a, b in zip(moves["run_id"], moves["previous_run_id"])]]
    return hosts, len(crossing), int(crossing["significant"].astype(bool).sum())


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


def abstract(pair: dict | None, every: dict | None = None, pairs: list[dict] | None = None) -> str:
    """The abstract's E7 sentence: how far two runs of one commit moved, beyond their intervals; with
    `every` (`same_commit_all`), the largest move over all runs of one commit in the history too."""
    if pair is None:
        return "_No commit was run twice in these runs._"
    text = (f"Two runs of one commit, {_made(pair)}, moved "
            f"{moves_text(pair, f' at alpha = 0.05, {TEST_NAME}')}.")
    if every is not None and every["cells"] > pair["cells"]:
        text += (f" Over every comparison of two runs of one commit with clean trees in the history ({every['cells']} cell moves, "
                 f"older runs included), the largest move of a median was {every['largest_pct']:.0f}%{_top_pair(pairs)} "
                 f"and {every['significant']} of {every['cells']} were significant.")
    return text
