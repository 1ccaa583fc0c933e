"""E5's figure: time per operation for each corpus and engine, one panel per operation (log scale)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import colour, marker, save, subplots

OPERATIONS = ("app.insert_user", "app.list_users", "app.insert_item", "app.query_user")


#: at most this many series share one panel (more cannot be told apart by colour and marker)
MAX_SERIES = 6


def series_groups(series: list[str]) -> list[tuple[str, list[str]]]:
    """The series (`engine@runtime`) in rows of at most MAX_SERIES: CPython's SQL drivers, then the
    Haskell -O2 stores with the MongoDB wire, then the -O0 builds; a longer group is split."""
    def kind(s: str) -> int:
        engine, _, runtime = s.partition("@")
        if runtime.startswith("haskell-O0"):
            return 2
        if runtime.startswith("haskell") or engine.startswith("ferretdb"):
            return 1
        return 0
    names = ("Python drivers, SQL engines", "Haskell (-O2) and the MongoDB wire protocol", "Haskell -O0 builds")
    out = []
    for k, name in enumerate(names):
        members = [s for s in series if kind(s) == k]
        chunks = [members[i:i + MAX_SERIES] for i in range(0, len(members), MAX_SERIES)]
        out += [(name if len(chunks) == 1 else f"{name} ({n + 1} of {len(chunks)})", c) for n, c in enumerate(chunks)]
    return out


def plot_app(cells: pd.DataFrame, path: Path | str, corpora: tuple[str, ...], method: str = "") -> Path | None:
    """`cells`: one row per valid cell with operation, corpus, series (engine@runtime), mean_s,
    ci_low_s, ci_high_s. Markers at the mean, bars the interval (none where there is none). One row
    of panels per group of at most MAX_SERIES series, one column per operation; a series keeps its
    colour and marker in every panel."""
    if cells.empty:
        return None
    series = sorted(cells["series"].unique())
    groups = series_groups(series)
    fig, axes = subplots(len(groups), len(OPERATIONS), figsize=(3.0 * len(OPERATIONS), 2.5 * len(groups) + 0.6),
                         squeeze=False, sharey=True)
    means = cells["mean_s"].to_numpy() * 1e3
    for row, (title, members) in zip(axes, groups):
        width = 0.8 / max(1, len(members))
        for ax, op in zip(row, OPERATIONS):
            df = cells[cells["operation"] == op]
            for j, s in enumerate(members):
                d = df[df["series"] == s]
                if d.empty:
                    continue
                g = series.index(s)
                x = np.array([corpora.index(c) for c in d["corpus"]]) - 0.4 + width * (j + 0.5)
                y = d["mean_s"].to_numpy() * 1e3
                lo, hi = d["ci_low_s"].to_numpy() * 1e3, d["ci_high_s"].to_numpy() * 1e3
                ok = np.isfinite(lo) & np.isfinite(hi)
                err = np.vstack([np.where(ok, y - lo, 0.0), np.where(ok, hi - y, 0.0)])
                ax.errorbar(x, y, yerr=err, fmt=marker(g), color=colour(g), label=s, elinewidth=0.8, markersize=3.5)
            ax.set_yscale("log")
            ax.minorticks_off()  # decades only: minor ticks over eight decades were most of the drawing time
            ax.set_xticks(range(len(corpora)), corpora)
            ax.set_title(f"{op.replace('app.', '')}", fontsize=8)
        row[0].set_ylabel(f"{title}\nms per operation", fontsize=7)
        handles, labels = [], []
        for ax in row:
            for hh, ll in zip(*ax.get_legend_handles_labels()):
                if ll not in labels:
                    handles.append(hh)
                    labels.append(ll)
        row[-1].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=6)
    # a wide interval can span decades; the axis follows the means, longer bars run off the panel
    axes[0][0].set_ylim(float(np.min(means)) / 20, float(np.max(means)) * 20)
    for ax in axes[-1]:
        ax.set_xlabel("corpus")
    ci = f"99% CI ({method})" if method else "99% CI"
    fig.suptitle(f"E5, seed 002's application workload: mean time per operation (log; lower is better), bars {ci}",
                 fontsize=9)
    return save(fig, path)
