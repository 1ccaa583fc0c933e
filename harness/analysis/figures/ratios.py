"""Ratios to a baseline per benchmark: a dot plot with the intervals as computed (the explorer's view).

Benchmarks are categories, so each sits on its own row and nothing joins them; one colour per
engine, one marker per runtime, the series of one benchmark dodged vertically; log scale, so a
ratio and its inverse sit equally far from 1.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from harness.analysis.figures.style import colour, marker, subplots


def plot_ratios(table: pd.DataFrame, baseline: str, ax: Any = None) -> Any:
    """Dot plot of `ratio` with [ratio_ci_low, ratio_ci_high] per benchmark (rows) and engine;
    `table` is a ratio table (tables.CSV_COLUMNS) without the baseline's own rows. Returns the figure."""
    t = table[table["ratio"].notna()].copy()
    t["label"] = np.where(t["benchmark"] == "geomean", "geometric mean", t["benchmark"])
    benches = sorted(set(t["label"]) - {"geometric mean"}) + (["geometric mean"] if "geomean" in set(t["benchmark"]) else [])
    if ax is None:
        _, ax = subplots(figsize=(7, 0.9 + 0.32 * max(1, len(benches))))
    engines = sorted(t["engine"].unique())
    runtimes = sorted(t["runtime"].astype(str).unique())
    series = list(t.groupby(["engine", "runtime"], sort=True))
    step = 0.7 / max(1, len(series))
    for i, ((engine, runtime), g) in enumerate(series):
        y = np.array([len(benches) - 1 - benches.index(b) for b in g["label"]]) + (i - (len(series) - 1) / 2) * step
        err = np.vstack([g["ratio"] - g["ratio_ci_low"], g["ratio_ci_high"] - g["ratio"]])
        ax.errorbar(g["ratio"], y, xerr=err, fmt=marker(runtimes.index(str(runtime))), ls="none",
                    color=colour(engines.index(engine)), elinewidth=0.8, label=f"{engine} ({runtime})")
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yticks(range(len(benches)), benches[::-1])
    ax.set_ylim(-0.6, len(benches) - 0.4)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(f"time / time of {baseline} (log scale; < 1 is faster)")
    method = str(t["method"].iloc[0]) if len(t) else ""
    conf = float(t["confidence"].iloc[0]) if len(t) else 0.99
    ax.set_title(f"Ratio to {baseline}; error bars {conf:.0%} CI ({method} method)", loc="left")
    if len(series):
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax.figure
