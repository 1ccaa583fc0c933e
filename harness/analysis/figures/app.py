"""E5's figure: time per operation for each corpus and engine, one panel per operation (log scale)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import colour, marker, save, subplots

OPERATIONS = ("app.insert_user", "app.list_users", "app.insert_item", "app.query_user")


def plot_app(cells: pd.DataFrame, path: Path | str, corpora: tuple[str, ...], method: str = "") -> Path | None:
    """`cells`: one row per valid cell with operation, corpus, series (engine@runtime), mean_s,
    ci_low_s, ci_high_s. Markers at the mean, bars the interval (none where there is none)."""
    if cells.empty:
        return None
    series = sorted(cells["series"].unique())
    fig, axes = subplots(1, len(OPERATIONS), figsize=(3.2 * len(OPERATIONS), 3.6), squeeze=False, sharey=True)
    width = 0.8 / max(1, len(series))
    for ax, op in zip(axes[0], OPERATIONS):
        df = cells[cells["operation"] == op]
        for j, s in enumerate(series):
            d = df[df["series"] == s]
            if d.empty:
                continue
            x = np.array([corpora.index(c) for c in d["corpus"]]) - 0.4 + width * (j + 0.5)
            y = d["mean_s"].to_numpy() * 1e3
            lo, hi = d["ci_low_s"].to_numpy() * 1e3, d["ci_high_s"].to_numpy() * 1e3
            ok = np.isfinite(lo) & np.isfinite(hi)
            err = np.vstack([np.where(ok, y - lo, 0.0), np.where(ok, hi - y, 0.0)])
            ax.errorbar(x, y, yerr=err, fmt=marker(j), color=colour(j), label=s, elinewidth=0.8, markersize=3.5)
        ax.set_yscale("log")
        ax.minorticks_off()  # decades only (the grid marks them): minor ticks over eight decades were most of the drawing time
        ax.set_xticks(range(len(corpora)), corpora)
        ax.set_title(op.replace("app.", ""))
        ax.set_xlabel("corpus")
    # a 3-process interval can span decades; the axis follows the means, longer bars run off the panel
    means = cells["mean_s"].to_numpy() * 1e3
    axes[0][0].set_ylim(float(np.min(means)) / 20, float(np.max(means)) * 20)
    axes[0][0].set_ylabel("ms per operation (log; lower is better)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        h, lab = ax.get_legend_handles_labels()
        for hh, ll in zip(h, lab):
            if ll not in labels:
                handles.append(hh)
                labels.append(ll)
    fig.subplots_adjust(bottom=0.2)
    fig.legend(handles, labels, loc="upper center", ncol=min(4, len(labels)), bbox_to_anchor=(0.5, 0.0),
               frameon=False)
    ci = f"99% CI ({method})" if method else "99% CI"
    fig.suptitle(f"E5, seed 002's application workload: mean time per operation, bars {ci} "
                 "(clipped at the panel's edges)", fontsize=9)
    return save(fig, path)
