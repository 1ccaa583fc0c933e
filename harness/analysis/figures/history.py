"""The history timeline: one panel per cell, runs in commit order, each with its interval.

Codespeed's timeline view, drawn for print: each run is a point at its place in commit order
(labelled with its commit and the commit's date), its error bar the cell's interval from that run
alone, as computed (asymmetric: the bootstrap on the log scale is not symmetric, so neither is the
bar). A significant change from the previous run (compare's test) is marked on the later run:
an upward triangle for a slowdown, a downward one for a speed-up, with the change in percent.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import FIGURE_WIDTH_IN, PALETTE, SMALL_TEXT, save, subplots, time_unit

SLOWER = PALETTE[3]  # vermillion
FASTER = PALETTE[0]  # blue
CELL = ["benchmark", "params", "engine", "runtime"]


def _tick(commit: str | None, date: str | None, dirty: bool | None) -> str:
    c = (commit or "?")[:7] + ("+" if dirty else "")
    return f"{c}  {(date or '')[5:16].replace('T', ' ')}"


def plot_history(history: pd.DataFrame, path: Path | str, alpha: float = 0.05) -> Path | None:
    """Draw the timeline of `history` (analysis.history.HISTORY_COLUMNS) to `path` (PNG, SVG beside);
    None when no cell has a mean."""
    h = history[history["mean_s"].notna()]
    if h.empty:
        return None
    cells = list(h.groupby(CELL, sort=True))
    # one column at the page's width while the cells are few: each run's tick label and change mark
    # has room (two columns printed them at 5 pt and on top of each other)
    ncols = 1 if len(cells) <= 4 else 2
    nrows = math.ceil(len(cells) / ncols)
    positions = sorted(history["position"].unique())
    ticks = history.drop_duplicates("position").set_index("position")
    labels = [_tick(ticks.loc[p, "commit"], ticks.loc[p, "commit_date"], ticks.loc[p, "dirty"]) for p in positions]
    fig, axes = subplots(nrows, ncols, figsize=(FIGURE_WIDTH_IN, (2.2 if ncols == 1 else 2.6) * nrows + 1.2),
                         squeeze=False, sharex=True)
    for ax in axes.flat[len(cells):]:
        ax.set_visible(False)
    for i, (key, g) in enumerate(cells):
        ax = axes.flat[i]
        scale, unit = time_unit(g["mean_s"])
        x = g["position"].to_numpy()
        m = g["mean_s"].to_numpy() / scale
        lo = g["ci_low_s"].to_numpy() / scale
        hi = g["ci_high_s"].to_numpy() / scale
        ax.plot(x, m, color="grey", lw=0.6, zorder=1)
        has = np.isfinite(lo) & np.isfinite(hi)
        if has.any():
            ax.errorbar(x[has], m[has], yerr=np.vstack([m[has] - lo[has], hi[has] - m[has]]), fmt="o",
                        color=PALETTE[6], elinewidth=0.8, ms=3.5, zorder=2)
        if (~has).any():  # a mean without an interval (too few processes): an open marker, no bar
            ax.plot(x[~has], m[~has], "o", mfc="white", color=PALETTE[6], ms=3.5, zorder=2)
        sig = g["significant"].astype(bool).to_numpy()
        delta = g["delta_pct"].to_numpy()
        top = np.where(has, hi, m)
        for xi, ti, d, s in zip(x, top, delta, sig):
            if not s:
                continue
            slower = d > 0
            ax.plot(xi, ti, marker="^" if slower else "v", color=SLOWER if slower else FASTER, ms=6, ls="none",
                    zorder=3, transform=ax.transData)
            ax.annotate(f"{d:+.0f}%", (xi, ti), textcoords="offset points", xytext=(0, 6), ha="center",
                        fontsize=SMALL_TEXT, color=SLOWER if slower else FASTER)
        # log scale: the early runs, made at loads up to several times the CPUs, are ten times slower than the
        # later ones, and a linear axis squashed every later point onto its floor
        ax.set_yscale("log")
        floor = np.nanmin(np.where(has & (lo > 0), lo, m))
        ax.set_ylim(bottom=max(floor / 1.6, 1e-12), top=max(np.nanmax(np.where(has, hi, m)) * 2.2, 1e-12))
        bench, params, engine, runtime = key
        ax.set_title(f"{bench} [{params}], {engine} ({runtime})" if ncols == 1 else
                     f"{bench} [{params}]\n{engine} ({runtime})", loc="left")
        ax.set_ylabel(f"time per operation ({unit})")
        ax.set_xticks(positions, labels, rotation=35, ha="right", rotation_mode="anchor")
        ax.set_xlim(min(positions) - 0.5, max(positions) + 0.5)
        if i + ncols >= len(cells):  # the lowest panel of its column: label the runs (commit, commit date UTC)
            ax.tick_params(axis="x", labelbottom=True)
    conf = float(history["confidence"].dropna().iloc[0]) if history["confidence"].notna().any() else 0.99
    method = str(history["method"].dropna().iloc[0]) if history["method"].notna().any() else ""
    fig.suptitle(f"History: mean and {conf:.0%} CI per run ({method}), runs in commit order, log scale;\n"
                 f"▲ slower / ▼ faster than the previous run (Mann-Whitney U, p <= {alpha:g})",
                 x=0.01, ha="left")
    fig.tight_layout()
    return save(fig, path)
