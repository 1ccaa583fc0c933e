"""E4 figures (seed 003's charts): time and inserts/s against N on log axes, one line per
strategy and one panel per engine; and the journal_mode x synchronous grid as heat maps."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import FIGURE_WIDTH_IN, SMALL_TEXT, colour, log_axis, marker, save, subplots

STRATEGIES = ("autocommit", "transaction", "prepared", "multirow", "bulk")
JOURNALS = ("delete", "truncate", "persist", "memory", "wal", "off")
SYNCS = ("off", "normal", "full")


def _engine_label(engine: str, runtime_family: str) -> str:
    return f"{engine} ({runtime_family})"


def plot_scaling(cells: pd.DataFrame, path: Path | str, value: str = "time", method: str = "") -> Path | None:
    """Log-log lines against N, one per strategy, one panel per engine and runtime, with the
    99% interval as error bars. `value`: "time" (seconds per operation) or "rate" (inserts/s).
    `cells`: the study's cell table (columns strategy, rows, engine, runtime_family, mean_s,
    ci_low_s, ci_high_s, inserts_per_s, inserts_per_s_low, inserts_per_s_high)."""
    df = cells[cells["mean_s"].notna()]
    if df.empty:
        return None
    panels = sorted(set(zip(df["engine"], df["runtime_family"])))
    # three panels a row at the page's width: four (or the width to hold them) printed the ticks at 5 pt
    ncols = min(3, len(panels))
    nrows = (len(panels) + ncols - 1) // ncols
    fig, axes = subplots(nrows, ncols, figsize=(FIGURE_WIDTH_IN, 1.95 * nrows + 0.9), squeeze=False,
                         sharex=True, sharey=True, layout="constrained")
    handles = {}
    for ax, (engine, family) in zip(axes.flat, panels):
        sub = df[(df["engine"] == engine) & (df["runtime_family"] == family)]
        grid = sorted(set(cells.loc[(cells["engine"] == engine) & (cells["runtime_family"] == family), "rows"]))
        for i, strategy in enumerate(STRATEGIES):
            s = sub[sub["strategy"] == strategy].sort_values("rows")
            if s.empty:
                continue
            # every N of the panel's grid between the strategy's first and last: one it has no mean
            # for is a gap (NaN breaks the line), so no line is drawn across an N not measured
            span = [n for n in grid if s["rows"].min() <= n <= s["rows"].max()]
            s = s.set_index("rows").reindex(span).reset_index()
            x = s["rows"].to_numpy(dtype=float)
            if value == "time":
                y, lo, hi = (s[c].to_numpy(dtype=float) for c in ("mean_s", "ci_low_s", "ci_high_s"))
            else:
                y, lo, hi = (s[c].to_numpy(dtype=float) for c in
                             ("inserts_per_s", "inserts_per_s_low", "inserts_per_s_high"))
            err = np.vstack([np.where(np.isfinite(lo), y - lo, 0), np.where(np.isfinite(hi), hi - y, 0)])
            h = ax.errorbar(x, y, yerr=err, color=colour(i), marker=marker(i), label=strategy, capsize=2)
            handles[strategy] = h
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(_engine_label(engine, family))
    # the panels share both axes: plain-number ticks (1, 10, 100), decades only when they span more
    # than two (no minor ticks: those of seven log-log panels were two thirds of the drawing time)
    log_axis(axes.flat[0], "y")
    log_axis(axes.flat[0], "x", compact=True)  # 10, 1k, 1M: seven narrow panels, full numbers would collide
    for i, ax in enumerate(axes.flat[:len(panels)]):
        if i + ncols >= len(panels):  # the lowest panel of its column: its N ticks (none below it)
            ax.tick_params(axis="x", labelbottom=True)
    empty = list(axes.flat[len(panels):])
    for ax in empty:
        ax.axis("off")
    # one label per axis for the whole figure, not one per row and column
    fig.supxlabel("rows inserted (N, log scale)")
    fig.supylabel("seconds per operation (log scale)" if value == "time" else "inserts/s (log scale)")
    what = "time per operation" if value == "time" else "inserts per second"
    fig.suptitle(f"E4: {what} against N per strategy (mean, 99% CI, {method})" if method else f"E4: {what}")
    order = [s for s in STRATEGIES if s in handles]
    if empty:  # in the grid's empty corner, clear of every panel
        empty[0].legend([handles[s] for s in order], order, loc="center", title="strategy")
    else:
        fig.legend([handles[s] for s in order], order, loc="outside lower center", ncol=len(order))
    return save(fig, path)


def plot_journal_grid(grid: pd.DataFrame, path: Path | str, method: str = "") -> Path | None:
    """Heat maps of inserts/s, journal_mode (rows) x synchronous (columns), one per engine and N,
    each square labelled with its mean in thousands per second and the relative half-width of its
    99% interval (the uncertainty a colour cannot show). `grid`: cells with columns engine, rows,
    journal_mode, synchronous, inserts_per_s (and inserts_per_s_low/_high)."""
    df = grid[grid["inserts_per_s"].notna()]
    if df.empty:
        return None
    panels = sorted(set(zip(df["engine"], df["rows"])))
    ncols = min(3, len(panels))
    nrows = (len(panels) + ncols - 1) // ncols
    fig, axes = subplots(nrows, ncols, figsize=(FIGURE_WIDTH_IN, 3.0 * nrows + 0.7), squeeze=False,
                         layout="constrained")
    import matplotlib.colors as mcolors

    vals = df["inserts_per_s"].to_numpy(dtype=float)
    norm = mcolors.LogNorm(vmin=float(vals.min()), vmax=float(vals.max()))
    image = None
    for ax, (engine, n) in zip(axes.flat, panels):
        sub = df[(df["engine"] == engine) & (df["rows"] == n)]
        m = np.full((len(JOURNALS), len(SYNCS)), np.nan)
        for r in sub.itertuples():
            if r.journal_mode in JOURNALS and r.synchronous in SYNCS:
                m[JOURNALS.index(r.journal_mode), SYNCS.index(r.synchronous)] = r.inserts_per_s
        image = ax.imshow(m, cmap="viridis", norm=norm, aspect="auto")
        half = np.full_like(m, np.nan)
        if {"inserts_per_s_low", "inserts_per_s_high"} <= set(sub.columns):
            for r in sub.itertuples():
                if r.journal_mode in JOURNALS and r.synchronous in SYNCS and r.inserts_per_s > 0:
                    half[JOURNALS.index(r.journal_mode), SYNCS.index(r.synchronous)] = \
                        (r.inserts_per_s_high - r.inserts_per_s_low) / (2 * r.inserts_per_s)
        for (i, j), v in np.ndenumerate(m):
            if np.isfinite(v):
                h = half[i, j]
                label = f"{v / 1e3:.0f}k\n" + (f"±{100 * h:.0f}%" if np.isfinite(h) else "no CI")
                ax.text(j, i, label, ha="center", va="center", fontsize=SMALL_TEXT,
                        color="white" if norm(v) < 0.6 else "black")
        ax.set_xticks(range(len(SYNCS)), SYNCS)
        first_column = list(axes.flat).index(ax) % ncols == 0
        ax.set_yticks(range(len(JOURNALS)), JOURNALS if first_column else [""] * len(JOURNALS))
        ax.grid(False)
        ax.set_title(f"{engine}\nN = {int(n):,}")  # two lines: one ran into its neighbour's
        ax.set_xlabel("synchronous")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel("journal_mode")
    if image is not None:
        bar = fig.colorbar(image, ax=list(axes.flat), shrink=0.8, label="inserts/s (mean)")
        from matplotlib.ticker import FuncFormatter

        thousands = FuncFormatter(lambda v, _pos: f"{v / 1e3:,.0f}k")  # as the squares write it, not 9 x 10^5
        bar.ax.yaxis.set_major_formatter(thousands)
        bar.ax.yaxis.set_minor_formatter(thousands)
    fig.suptitle(f"E4: inserts.prepared, journal_mode x synchronous\n(means, ± half-width of the 99% CI; {method})"
                 if method else
                 "E4: journal_mode x synchronous")
    return save(fig, path)
