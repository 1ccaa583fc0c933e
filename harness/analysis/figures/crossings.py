"""Cost relative to a baseline against counted boundary crossings (the SQPyte paper's claim).

Each point is one benchmark on one engine: different benchmarks are different programs, so no
line joins them (a line would draw a trend between categories that does not exist). One colour
per engine, one marker per runtime; series are dodged a little sideways so their intervals do
not hide each other; benchmark names sit on the top axis, clear of the data.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import FIGURE_WIDTH_IN, colour, log_axis, marker, save, subplots

DODGE = 0.008  # decades between neighbouring series at one crossing count


def _benchmark_ticks(t: pd.DataFrame) -> pd.Series:
    """Crossing count -> benchmark names; counts within a few percent share one tick."""
    spot = t["crossings"].astype(float).map(lambda c: float(f"{c:.2g}"))
    return t.groupby(spot)["benchmark"].agg(lambda b: " / ".join(sorted({x.split(".", 1)[-1] for x in b})))


def plot_ratio_vs_crossings(table: pd.DataFrame, summary: pd.DataFrame, path: Path | str, baseline: str,
                            rho: str = "", spread: str = "") -> Path:
    """Ratio to the baseline with its (asymmetric) CI against crossings per operation, markers only;
    `rho` is no longer drawn: the rank correlation and its interval are in the caption (a title that
    long ran past the frame). `spread`: what the bars hold beyond one run ("with the run-to-run spread")."""
    from harness.analysis.stats import is_baseline

    base = [is_baseline(e, r, baseline) for e, r in zip(table["engine"], table["runtime"])]
    t = table[(table["benchmark"] != "geomean") & ~pd.Series(base, index=table.index) & table["ratio"].notna()]
    counts = summary[["benchmark", "params", "engine", "crossings"]].dropna().drop_duplicates(
        ["benchmark", "params", "engine"])
    t = t.merge(counts, on=["benchmark", "params", "engine"], how="inner")
    t = t[t["crossings"].astype(float) > 0]
    fig, ax = subplots(figsize=(FIGURE_WIDTH_IN, 4.8), layout="constrained")
    engines = sorted(t["engine"].unique())
    runtimes = sorted(t["runtime"].astype(str).unique())
    series = list(t.groupby(["engine", "runtime"], sort=True))
    for i, ((engine, runtime), g) in enumerate(series):
        shift = 10 ** (DODGE * (i - (len(series) - 1) / 2))
        # no interval (too few processes): no bar rather than a made-up one
        err = np.nan_to_num(np.vstack([g["ratio"] - g["ratio_ci_low"], g["ratio_ci_high"] - g["ratio"]]), nan=0.0)
        ax.errorbar(g["crossings"].astype(float) * shift, g["ratio"], yerr=err, fmt=marker(runtimes.index(str(runtime))),
                    ls="none", color=colour(engines.index(engine)), elinewidth=0.8, label=f"{engine} ({runtime})")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    log_axis(ax, "both")  # plain-number ticks (1, 10, 100), not 10^k
    ax.set_xlabel("crossings per operation (counted; log scale)")
    ax.set_ylabel(f"time / time of {baseline}\n(log scale; < 1 is faster)")
    ax.grid(alpha=0.3, which="both")
    if len(t):
        names = _benchmark_ticks(t)
        top = ax.secondary_xaxis("top")
        top.set_xticks(list(names.index), list(names.values), rotation=30, ha="left", rotation_mode="anchor")
        top.minorticks_off()
        # below the axes (outside: no point hidden), engines in columns: the figure keeps the page's width
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, borderaxespad=0.0,
                  columnspacing=1.2, handletextpad=0.3)
    method = str(t["method"].iloc[0]) if len(t) and "method" in t else "process-bootstrap"
    conf = float(t["confidence"].iloc[0]) if len(t) and "confidence" in t else 0.99
    # short: the test (rho with its interval) and the method are in the caption, not over the frame
    ax.set_title(f"E2: time relative to the baseline against crossings\n"
                 f"one point per benchmark and engine; bars {conf:.0%} CI ({method}{', ' + spread if spread else ''})",
                 loc="left", pad=8)
    return save(fig, path)


def plot_sweep(rows: list[tuple[str, float, float, float, float]], path: Path | str, conf: str) -> Path | None:
    """Study E2s: PyPy / CPython time against crossings per operation, one line per benchmark through the scale
    factors it ran (the same program at more data: here a line joins measured points of one benchmark only),
    bars the intervals (`conf` says which). `rows`: (benchmark, crossings, ratio, low, high)."""
    if not rows:
        return None
    t = pd.DataFrame(rows, columns=["benchmark", "crossings", "ratio", "low", "high"])
    fig, ax = subplots(figsize=(FIGURE_WIDTH_IN, 4.2), layout="constrained")
    for i, (bench, g) in enumerate(t.groupby("benchmark", sort=True)):
        g = g.sort_values("crossings")
        err = np.nan_to_num(np.vstack([g["ratio"] - g["low"], g["high"] - g["ratio"]]), nan=0.0)
        ax.errorbar(g["crossings"], g["ratio"], yerr=err, fmt=marker(i) + "-", color=colour(i), elinewidth=0.8,
                    lw=1.0, label=bench.split(".", 1)[-1])
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    log_axis(ax, "both")
    ax.set_xlabel("crossings per operation (counted; log scale)")
    ax.set_ylabel("time on PyPy / time on CPython\n(log scale; < 1: PyPy faster)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=4, borderaxespad=0.0)
    ax.set_title(f"E2s: PyPy / CPython on sqlite3 as each benchmark's data grow\nbars {conf}", loc="left", pad=8)
    return save(fig, path)
