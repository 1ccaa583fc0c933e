"""A benchmark family at a glance: per engine and runtime, every benchmark's ratio to the baseline
(small dots) and the family's geometric mean with its interval (a diamond with error bars).

Why: a per-query table of TPC-H is 22 rows by eight engines; what a reader needs first is where
each engine sits and how much the queries spread around its mean. One row per engine, log scale,
so a ratio and its inverse sit equally far from 1.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import FIGURE_WIDTH_IN, colour, log_axis, save, subplots


def _label(engine: str, runtime: str) -> str:
    family = str(runtime).rstrip("0123456789.").split("-", 1)[0]
    return f"{engine} ({family})"


def plot_family(table: pd.DataFrame, path: Path | str, baseline: str, what: str, method: str = "") -> Path | None:
    """The figure of one family table (tables.CSV_COLUMNS with `geomean` rows); None when it has
    no ratio besides the baseline's own."""
    from harness.analysis.stats import is_baseline

    if table is None or table.empty:
        return None
    base = np.array([is_baseline(e, r, baseline) for e, r in zip(table["engine"], table["runtime"])], dtype=bool)
    t = table[table["ratio"].notna().to_numpy() & ~base]
    geo = t[t["benchmark"] == "geomean"]
    if geo.empty:
        return None
    geo = geo.sort_values("ratio")
    rows = [(e, r) for e, r in zip(geo["engine"], geo["runtime"])]
    fig, ax = subplots(figsize=(FIGURE_WIDTH_IN, 0.9 + 0.42 * len(rows)), layout="constrained")
    for i, (engine, runtime) in enumerate(rows):
        y = len(rows) - 1 - i
        per = t[(t["engine"] == engine) & (t["runtime"] == runtime) & (t["benchmark"] != "geomean")]
        jitter = np.linspace(-0.18, 0.18, max(1, len(per)))
        ax.scatter(per["ratio"], y + jitter, s=7, color=colour(i), alpha=0.45, linewidths=0)
        g = geo[(geo["engine"] == engine) & (geo["runtime"] == runtime)].iloc[0]
        lo, hi = g["ratio_ci_low"], g["ratio_ci_high"]
        err = None if not (np.isfinite(lo) and np.isfinite(hi)) else [[g["ratio"] - lo], [hi - g["ratio"]]]
        ax.errorbar([g["ratio"]], [y], xerr=err, fmt="D", color="black", ms=5, elinewidth=1.0, zorder=3)
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    log_axis(ax, "x")  # plain-number ticks (1, 10, 100), not 10^k
    ax.set_yticks(range(len(rows)), [_label(e, r) for e, r in rows][::-1])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(f"time / time of {baseline} (log scale; < 1 is faster)")
    conf = float(t["confidence"].iloc[0]) if "confidence" in t and len(t) else 0.99
    ax.set_title(f"{what}: dots, each benchmark;\ndiamond, geometric mean with {conf:.0%} CI"
                 + (f" ({method})" if method else ""), loc="left")
    return save(fig, path)


def plot_seed_beside_ours(table: pd.DataFrame, seed: dict[str, float], path: Path | str, engine: str,
                          baseline: str, title: str) -> Path | None:
    """Per benchmark: our ratio of `engine` to `baseline` with its interval (filled) beside the seed's
    ratio for the same benchmark (open circle, no interval: the seed printed none for it)."""
    if table is None or table.empty:
        return None
    t = table[(table["engine"] == engine) & (table["benchmark"] != "geomean") & table["ratio"].notna()]
    if t.empty:
        return None
    t = t.sort_values("benchmark")
    names = list(t["benchmark"])
    fig, ax = subplots(figsize=(FIGURE_WIDTH_IN, 0.9 + 0.24 * len(names)), layout="constrained")
    y = np.arange(len(names))[::-1]
    lo, hi = t["ratio_ci_low"].to_numpy(float), t["ratio_ci_high"].to_numpy(float)
    r = t["ratio"].to_numpy(float)
    ok = np.isfinite(lo) & np.isfinite(hi)
    ax.errorbar(r[ok], y[ok], xerr=[r[ok] - lo[ok], hi[ok] - r[ok]], fmt="o", color=colour(0), ms=4,
                elinewidth=0.9, label="ours, 99% CI")
    if (~ok).any():
        ax.plot(r[~ok], y[~ok], "o", color=colour(0), ms=4)
    sx = [seed.get(b, np.nan) for b in names]
    ax.plot(sx, y, "o", mfc="none", color=colour(1), ms=5, label="seed 001")
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    log_axis(ax, "x")  # plain-number ticks (1, 10, 100), not 10^k
    ax.set_yticks(y, [b.split(".", 1)[1] for b in names])
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(f"time of {engine} / time of {baseline} (log scale)")
    ax.set_title(title, loc="left")
    # below the axis label, outside the frame: inside it covered the last queries' points
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    return save(fig, path)
