"""Run-sequence plots per process with the detected steady-state start (krun-style warm-up)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from harness.analysis import stats
from harness.analysis.figures.style import save

_COLOURS = {"flat": "tab:blue", "warm-up": "tab:orange", "slowdown": "tab:red", "no steady state": "tab:gray"}


def plot_run_sequence(df: pd.DataFrame, ax: Any = None, **steady_kwargs: float) -> Any:
    """Wall time per iteration, one line per process, of ONE cell; a dashed line marks where each
    process's steady state starts; the legend gives each process's warm-up class.

    Pass the rows of a single cell (benchmark, params, engine, runtime). Invalid iterations are
    left out, as in the statistics. Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    cells = df[stats.CELL_KEYS].drop_duplicates()
    if len(cells) != 1:
        raise ValueError(f"plot_run_sequence needs the rows of one cell, got {len(cells)} cells")
    w = stats.warmup_analysis(df, **steady_kwargs)
    v = df[df["check_ok"].astype(bool)].sort_values(["process", "iteration"])
    for (proc, g), row in zip(v.groupby("process", sort=True), w.sort_values("process").itertuples()):
        colour = _COLOURS.get(row.warmup, "black")
        ax.plot(g["iteration"], g["wall_ns"] / 1e9, lw=1, color=colour, alpha=0.8,
                label=f"process {proc}: {row.warmup}")
        if pd.notna(row.steady_iteration) and row.steady_start > 0:
            ax.axvline(row.steady_iteration, color=colour, ls="--", lw=0.8)
    key = cells.iloc[0]
    title = f"{key.benchmark} {key.params} — {key.engine} ({key.runtime})".replace("  ", " ")
    ax.set(xlabel="iteration", ylabel="wall time (s)", title=title)
    ax.legend(fontsize="small", frameon=False)
    return ax


def plot_run_sequences(raw: pd.DataFrame, path: Path | str, benchmark: str) -> Path | None:
    """krun-style run-sequence plots: one panel per cell of `benchmark`, one line per process."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = raw[(raw["benchmark"] == benchmark) & raw["check_ok"]]
    cells = df[["benchmark", "params", "engine", "runtime"]].drop_duplicates().sort_values(["engine", "runtime"])
    if cells.empty:
        return None
    n = len(cells)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.2 * rows), squeeze=False)
    for ax, key in zip(axes.flat, cells.itertuples(index=False)):
        cell = df[(df["engine"] == key.engine) & (df["runtime"] == key.runtime) & (df["params"] == key.params)]
        plot_run_sequence(cell, ax=ax)
        ax.title.set_fontsize(8)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.tight_layout()
    return save(fig, path)
