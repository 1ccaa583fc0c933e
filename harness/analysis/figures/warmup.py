"""Run-sequence plots per process with the detected steady-state start (krun-style warm-up)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from harness.analysis import stats
from harness.analysis.figures.style import FIGURE_WIDTH_IN, colour, save, subplots, time_unit

#: the warm-up class is drawn as a line style and a marker, so the colour is free for the process
CLASS_STYLE = {"flat": ("-", "o"), "warm-up": ("--", "^"), "slowdown": (":", "v"), "no steady state": ("-.", "x")}
#: up to this many processes the legend names each one; past it, each warm-up class with its count
LEGEND_PROCESSES = 8


def class_counts(w: pd.DataFrame) -> list[tuple[str, int]]:
    """(warm-up class, processes) in CLASS_STYLE's order, then any other class."""
    counts = w["warmup"].value_counts()
    classes = [k for k in CLASS_STYLE if k in counts] + [k for k in counts.index if k not in CLASS_STYLE]
    return [(k, int(counts[k])) for k in classes]


def plot_run_sequence(df: pd.DataFrame, ax: Any = None, panel: bool = False, **steady_kwargs: float) -> Any:
    """Wall time per iteration of ONE cell: one colour per process, the process's warm-up class as
    its line style and marker (flat solid/circle, warm-up dashed/triangle up, slowdown dotted/
    triangle down, no steady state dash-dot/cross); a thin vertical line in the process's colour
    marks where its steady state starts. The legend names each process up to
    LEGEND_PROCESSES processes; past that it names the classes, with how many processes are in each
    (thirty entries of "process 17: flat" hide the data and say less than "flat (28)").

    Pass the rows of a single cell (benchmark, params, engine, runtime). Invalid iterations are
    left out, as in the statistics. Returns the matplotlib Axes.

    `panel`: one panel of many (`run_sequence_figure`): no legend (the figure has one, for the
    classes' line styles), the class counts under the cell's name in the title, the unit alone as
    the y label (the figure labels its axes once).
    """
    if ax is None:
        _, ax = subplots(figsize=(7, 3.5))
    cells = df[stats.CELL_KEYS].drop_duplicates()
    if len(cells) != 1:
        raise ValueError(f"plot_run_sequence needs the rows of one cell, got {len(cells)} cells")
    w = stats.warmup_analysis(df, **steady_kwargs)
    v = df[df["check_ok"].astype(bool)].sort_values(["process", "iteration"])
    scale, unit = time_unit(v["wall_ns"] / 1e9)
    per_process = len(w) <= LEGEND_PROCESSES
    for i, ((proc, g), row) in enumerate(zip(v.groupby("process", sort=True), w.sort_values("process").itertuples())):
        ls, mk = CLASS_STYLE.get(row.warmup, ("-", "."))
        c = colour(i)
        ax.plot(g["iteration"], g["wall_ns"] / 1e9 / scale, ls=ls, marker=mk, ms=2.5, lw=0.9, color=c, alpha=0.9,
                label=f"process {proc}: {row.warmup}" if per_process else None)
        if pd.notna(row.steady_iteration) and row.steady_start > 0:
            ax.axvline(row.steady_iteration, color=c, ls=(0, (1, 2)), lw=0.8)
    key = cells.iloc[0]
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if panel:
        lines = [""]  # the counts, wrapped between classes (never inside "no steady state")
        for k, n in class_counts(w):
            item = f"{n} {k}"
            if lines[-1] and len(lines[-1]) + len(item) > 42:
                lines[-1] += ","
                lines.append("")
            lines[-1] += (", " if lines[-1] else "") + item
        counts = "\n".join(lines)
        ax.set_title(f"{key.engine} ({key.runtime})\n{counts}", loc="left")
        ax.set_ylabel(unit)
        return ax
    title = f"{key.benchmark} {key.params} — {key.engine} ({key.runtime})".replace("  ", " ")
    ax.set(xlabel="iteration", ylabel=f"wall time per iteration ({unit})", title=title)
    if per_process:
        ax.legend(fontsize=6, ncol=2 if len(w) > 3 else 1)
    else:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color="grey", ls=CLASS_STYLE.get(k, ("-", "."))[0],
                          marker=CLASS_STYLE.get(k, ("-", "."))[1], ms=2.5, lw=0.9,
                          label=f"{k} ({n} processes)") for k, n in class_counts(w)]
        ax.legend(handles=handles, fontsize=6, title=f"{len(w)} processes, one colour each", title_fontsize=6)
    return ax


def run_sequence_figure(raw: pd.DataFrame, benchmark: str) -> Any:
    """krun-style run-sequence plots: one panel per cell of `benchmark`, one colour per process;
    returns the figure, or None when the benchmark has no valid iterations."""
    df = raw[(raw["benchmark"] == benchmark) & raw["check_ok"]]
    cells = df[["benchmark", "params", "engine", "runtime"]].drop_duplicates().sort_values(["engine", "runtime"])
    if cells.empty:
        return None
    n = len(cells)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    # the page's width and at most about a page's height (9 in): the PDF neither scales the text
    # down nor splits the figure over two pages
    fig, axes = subplots(rows, cols, figsize=(FIGURE_WIDTH_IN, min(2.4, 8.7 / rows) * rows + 0.7), squeeze=False,
                         layout="constrained")
    for ax, key in zip(axes.flat, cells.itertuples(index=False)):
        cell = df[(df["engine"] == key.engine) & (df["runtime"] == key.runtime) & (df["params"] == key.params)]
        plot_run_sequence(cell, ax=ax, panel=True)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    from matplotlib.lines import Line2D

    # one legend for all panels: the classes' line styles (each panel's title counts its processes)
    handles = [Line2D([], [], color="grey", ls=ls, marker=mk, ms=3, lw=0.9, label=k)
               for k, (ls, mk) in CLASS_STYLE.items()]
    params = cells["params"].unique()
    name = f"{benchmark} {params[0]}" if len(params) == 1 else benchmark
    fig.legend(handles=handles, loc="outside upper center", ncol=len(handles),
               title=f"{name}: one colour per process, its warm-up class as")
    fig.supxlabel("iteration")
    fig.supylabel("wall time per iteration")
    return fig


def plot_run_sequences(raw: pd.DataFrame, path: Path | str, benchmark: str) -> Path | None:
    """`run_sequence_figure` written to `path` (PNG and SVG)."""
    fig = run_sequence_figure(raw, benchmark)
    return None if fig is None else save(fig, path)
