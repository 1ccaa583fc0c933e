"""Cost relative to a baseline against counted boundary crossings (the SQPyte paper's claim)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import save


def plot_ratio_vs_crossings(table: pd.DataFrame, summary: pd.DataFrame, path: Path | str, baseline: str) -> Path:
    """Ratio to the baseline (with CI) against crossings per operation, one series per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from harness.analysis.stats import is_baseline

    base = [is_baseline(e, r, baseline) for e, r in zip(table["engine"], table["runtime"])]
    t = table[(table["benchmark"] != "geomean") & ~pd.Series(base, index=table.index) & table["ratio"].notna()]
    counts = summary[["benchmark", "params", "engine", "crossings"]].dropna().drop_duplicates(
        ["benchmark", "params", "engine"])
    t = t.merge(counts, on=["benchmark", "params", "engine"], how="inner")
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for (engine, runtime), g in t.groupby(["engine", "runtime"], sort=True):
        g = g.sort_values("crossings")
        # no interval (too few processes): no bar rather than a made-up one
        err = np.nan_to_num(np.vstack([g["ratio"] - g["ratio_ci_low"], g["ratio_ci_high"] - g["ratio"]]), nan=0.0)
        ax.errorbar(g["crossings"], g["ratio"], yerr=err, fmt="o-", capsize=3, label=f"{engine} ({runtime})")
    # name each benchmark once, along the bottom, at its crossing count
    import matplotlib.transforms as mtransforms

    below = mtransforms.blended_transform_factory(ax.transData, ax.transAxes)
    # benchmarks whose counts differ by a few crossings share one label
    spot = t["crossings"].astype(float).map(lambda c: float(f"{c:.2g}"))
    names = t.groupby(spot)["benchmark"].agg(lambda b: " / ".join(sorted({x.split(".", 1)[-1] for x in b})))
    for x, label in names.items():
        ax.text(x, 0.02, label, transform=below, fontsize=7, ha="center", va="bottom", rotation=90,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.7, "pad": 1})
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("crossings per operation (counted)")
    ax.set_ylabel(f"time relative to {baseline} (log; < 1 is faster)")
    ax.set_title("E2: cost relative to the baseline against boundary crossings", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    if len(t):
        ax.legend(fontsize=7)
    return save(fig, path)
