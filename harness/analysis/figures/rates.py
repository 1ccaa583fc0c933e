"""Rows/s bar charts (seed 000's two charts): every engine, driver and runtime; native C vs bindings."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.summary import rate_of
from harness.analysis.figures.style import FIGURE_WIDTH_IN, SMALL_TEXT, cell_label, colour, save, subplots


def e1_rows(summary: pd.DataFrame, benchmark: str = "bindings.select_fold") -> pd.DataFrame:
    """E1 cells of one benchmark with its rate and the rate's CI (N / mean CI, bounds swapped):
    `rows_per_s[_low|_high]`, or `queries_per_s[...]` for a benchmark that counts queries."""
    df = summary[(summary["benchmark"] == benchmark) & summary["mean_s"].notna()].copy()
    if df.empty:
        return df
    column = rate_of(benchmark)[0]  # rows_per_s, or queries_per_s for point queries
    if column not in df:
        df[column] = np.nan
    n = df[column] * df["mean_s"]
    # time intervals have positive bounds (log scale) or none at all (too few processes: nan)
    df[f"{column}_low"] = n / df["ci_high_s"]
    df[f"{column}_high"] = n / df["ci_low_s"]
    return df.sort_values(column, ascending=False)


def plot_rows_per_s(summary: pd.DataFrame, path: Path | str, method: str = "",
                    title: str = "E1: SELECT id FROM testdata consumed by the client") -> Path:
    """Horizontal bars of rows/s per engine/driver/runtime with CI error bars, one panel per variant,
    stacked (fastest at the top), drawn at the page's width so that the labels print at their size."""
    benches = [b for b in ("bindings.select_fold", "bindings.select_all") if b in set(summary["benchmark"])]
    bars = max([len(e1_rows(summary, b)) for b in benches] or [1])
    panels = max(1, len(benches))
    fig, axes = subplots(panels, 1, figsize=(FIGURE_WIDTH_IN, panels * (0.2 * bars + 1.2)), squeeze=False,
                         layout="constrained")
    for ax, bench in zip(axes[:, 0], benches):
        df = e1_rows(summary, bench)
        if df.empty:
            continue
        y = df["rows_per_s"].to_numpy() / 1e6
        high = df["rows_per_s_high"].to_numpy() / 1e6
        low = df["rows_per_s_low"].to_numpy() / 1e6
        unbounded = ~(np.isfinite(high) & np.isfinite(low))
        err = np.vstack([np.where(unbounded, 0.0, y - low), np.where(unbounded, 0.0, high - y)])
        labels = [cell_label(r) for _, r in df.iterrows()]
        pos = np.arange(len(y))[::-1]  # the fastest (first row) at the top
        ax.barh(pos, y, xerr=err, capsize=3, color=colour(0), error_kw={"elinewidth": 0.8})
        top = 1.6 * float(np.max(y))
        for i in range(len(y)):
            if unbounded[i]:
                ax.annotate("no CI (< 3 processes)", (min(y[i], top), pos[i]), xytext=(3, 0),
                            textcoords="offset points", ha="left", va="center", fontsize=SMALL_TEXT)
            elif high[i] > top:
                ax.annotate(f"CI to {high[i]:.3g}", (0.97 * top, pos[i]), ha="right", va="center", fontsize=SMALL_TEXT)
        ax.set_xlim(0, top)
        ax.set_yticks(pos, labels)
        if ax is axes[-1, 0]:  # one axis label, under the last panel: never into the next title
            ax.set_xlabel("million rows/s (higher is better)")
        ax.set_title(bench.replace("bindings.", "E1 "))
        ax.grid(axis="x", alpha=0.3)
    ci = f"99% CI ({method})" if method else "99% CI"
    fig.suptitle(f"{title};\nerror bars {ci}")
    return save(fig, path)


def plot_native_vs_bindings(summary: pd.DataFrame, path: Path | str, method: str = "") -> Path | None:
    """Seed 000's first chart: SQLite reached natively from C and through each binding/runtime.
    None without a native C cell with a time: without its bar the chart is not what its title says."""
    sqlite = summary[summary["engine"].str.startswith("sqlite/")]
    native = sqlite[(sqlite["engine"] == "sqlite/native-c") & sqlite["mean_s"].notna()] if "mean_s" in sqlite else sqlite
    if sqlite.empty or native.empty:
        return None
    return plot_rows_per_s(sqlite, path, method=method,
                           title="E1, native C vs bindings: SQLite from C and through each binding")
