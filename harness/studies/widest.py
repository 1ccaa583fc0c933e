"""The widest interval of a study, diagnosed from its raw timings.

A cell whose interval spans orders of magnitude is read by a reader as noise or as a bug. Where it comes
from the warm-up policy (a process with no steady state keeps every iteration, Section 2.4), the paper
says so from the timings: which cell, how many of its processes kept every iteration, and how much
slower each process's first iteration was than the rest. Computed, never typed in, so it follows the data.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from harness.analysis.stats.resample import CELL_KEYS
from harness.analysis.stats.warmup import process_keys, warmup_analysis
from harness.analysis.wording import plain, time_interval

if TYPE_CHECKING:
    from harness.analysis.runset import RunSet

#: an interval whose high bound is this many times its low one is said to span orders of magnitude
WIDE = 10.0


def widest_cell(summary: pd.DataFrame, prefix: str) -> pd.Series | None:
    """The row of `summary` among benchmarks starting with `prefix` whose interval is widest (high / low),
    or None when no such cell has a positive interval."""
    if summary.empty:
        return None
    s = summary[summary["benchmark"].astype(str).str.startswith(prefix)]
    s = s[(s["ci_low_s"] > 0) & np.isfinite(s["ci_high_s"])]
    if s.empty:
        return None
    return s.loc[(s["ci_high_s"] / s["ci_low_s"]).idxmax()]


def first_iteration_ratios(raw: pd.DataFrame) -> list[float]:
    """Per process of `raw` (one cell's iterations): its first valid iteration's time over the median of
    the rest; processes with fewer than two valid iterations give none."""
    out = []
    ok = raw[raw["check_ok"].astype(bool)].sort_values(process_keys(raw) + ["iteration"])
    for _, p in ok.groupby(process_keys(ok)):
        t = p["wall_ns"].to_numpy(dtype=float)
        if len(t) >= 2 and np.median(t[1:]) > 0:
            out.append(float(t[0] / np.median(t[1:])))
    return out


def note(runs: RunSet, prefix: str = "app.", section: str = "Section 2.4") -> str:
    """`*The widest cell.* ...` for the study of benchmarks starting with `prefix`: the cell, its interval, how
    many processes kept every iteration for want of a steady state, and the first iteration against the rest
    in each; "" when no cell's interval spans an order of magnitude."""
    row = widest_cell(runs.summary, prefix)
    if row is None or row["ci_high_s"] / row["ci_low_s"] < WIDE:
        return ""
    raw = runs.raw_of(row["benchmark"])
    raw = raw[(raw[CELL_KEYS] == row[CELL_KEYS]).all(axis=1)]
    classes = warmup_analysis(raw)["warmup"].tolist() if not raw.empty else []
    kept = sum(c == "no steady state" for c in classes)
    ratios = first_iteration_ratios(raw)
    params = str(row["params"]).replace(";", ", ") or "its default parameters"
    cell = (f"{row['engine']}'s {row['benchmark'].split('.', 1)[-1]} at {params} on {row['runtime']}, "
            f"{time_interval(row['mean_s'], row['ci_low_s'], row['ci_high_s'])}")
    text = f"*The widest cell.* {cell}, spans {plain(row['ci_high_s'] / row['ci_low_s'], 2)} times from bound to bound"
    if not kept:
        return text + " with every process at a steady state: its processes differ among themselves."
    slow = [r for r in ratios if r >= WIDE]
    who = "one process" if kept == 1 else f"{kept} processes"
    out = [f"{text}, because of {who} of its {len(classes)}."]
    if slow:
        share = "In every process" if len(slow) == len(ratios) else f"In {len(slow)} of its {len(ratios)} processes"
        why = " (by our inference, acid-state forcing its state)" if "acid" in row["engine"] else ""
        out.append(f"{share} the first iteration takes {plain(min(slow), 2)} to {plain(max(slow), 2)} times the "
                   f"median of the rest{why}: the detector leaves it out as warm-up where it finds a steady state, "
                   f"but in {who} the later iterations never settled, so it found none and kept every iteration "
                   f"({section}).")
    else:
        out.append(f"The detector found no steady state in {who}, which kept every iteration ({section}).")
    out.append("The cell is shown as measured, and a claim over it can only be inconclusive there.")
    return " ".join(out)
