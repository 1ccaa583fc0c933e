"""E5's figures: time per operation for each measured corpus and engine, one figure per group of at
most MAX_SERIES series, one panel per operation (log scale).

Only the corpora measured get a tick: an unmeasured corpus has no axis position, and no line joins
the points (corpora are categories; a line would draw a trend through points that do not exist).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import FIGURE_WIDTH_IN, colour, log_axis, marker, save, subplots

OPERATIONS = ("app.insert_user", "app.list_users", "app.insert_item", "app.query_user")


#: at most this many series share one panel (more cannot be told apart by colour and marker)
MAX_SERIES = 6

#: the groups' names and the file-name stem each figure is written under
GROUPS = (("Python drivers, SQL engines", "python"),
          ("Haskell (-O2) and the MongoDB wire protocol", "haskell"),
          ("Haskell -O0 builds, and -O1 where it ran", "haskell_o0"))


def _kind(s: str) -> int:
    engine, _, runtime = s.partition("@")
    if runtime.startswith("haskell-O0") or runtime.startswith("haskell-O1"):
        return 2
    if runtime.startswith("haskell") or engine.startswith("ferretdb"):
        return 1
    return 0


def series_groups(series: list[str]) -> list[tuple[str, list[str]]]:
    """The series (`engine@runtime`) in groups of at most MAX_SERIES: CPython's SQL drivers, then the
    Haskell -O2 stores with the MongoDB wire, then the -O0 builds with the -O1 ones (seed 002's `ghc -O`, set
    beside -O0 where both ran); a longer group is split."""
    return [(title, members) for title, _, members in series_files(series)]


def series_files(series: list[str]) -> list[tuple[str, str, list[str]]]:
    """(title, file stem, members) per group of at most MAX_SERIES series (see `series_groups`)."""
    out = []
    for k, (name, stem) in enumerate(GROUPS):
        members = [s for s in series if _kind(s) == k]
        chunks = [members[i:i + MAX_SERIES] for i in range(0, len(members), MAX_SERIES)]
        for n, c in enumerate(chunks):
            one = len(chunks) == 1
            out.append((name if one else f"{name} ({n + 1} of {len(chunks)})", stem if one else f"{stem}_{n + 1}", c))
    return out


def measured_corpora(cells: pd.DataFrame, corpora: tuple[str, ...]) -> list[str]:
    """The corpora with at least one cell, in `corpora`'s order (an unmeasured corpus gets no tick)."""
    have = set(cells["corpus"]) if len(cells) else set()
    return [c for c in corpora if c in have]


def plot_group(cells: pd.DataFrame, members: list[str], path: Path | str, corpora: list[str],
               labels: dict[str, str] | None = None, ylim: tuple[float, float] | None = None) -> Path:
    """One figure: a panel per operation, the `members` series dodged around each measured corpus,
    markers at the mean, bars the interval (none where there is none), no lines."""
    labels = labels or {}
    # the page's width for four panels (wider, the PDF scales the figure and its text down)
    fig, axes = subplots(1, len(OPERATIONS), figsize=(FIGURE_WIDTH_IN, 2.9), squeeze=False, sharey=True,
                         layout="constrained")
    width = 0.8 / max(1, len(members))
    for ax, op in zip(axes[0], OPERATIONS):
        df = cells[cells["operation"] == op]
        for j, s in enumerate(members):
            d = df[(df["series"] == s) & df["corpus"].isin(corpora)]
            if d.empty:
                continue
            x = np.array([corpora.index(c) for c in d["corpus"]]) - 0.4 + width * (j + 0.5)
            y = d["mean_s"].to_numpy() * 1e3
            lo, hi = d["ci_low_s"].to_numpy() * 1e3, d["ci_high_s"].to_numpy() * 1e3
            ok = np.isfinite(lo) & np.isfinite(hi)
            err = np.vstack([np.where(ok, y - lo, 0.0), np.where(ok, hi - y, 0.0)])
            ax.errorbar(x, y, yerr=err, fmt=marker(j), ls="none", color=colour(j), label=labels.get(s, s),
                        elinewidth=0.8, markersize=3.5)
        ax.set_yscale("log")
        ax.set_xticks(range(len(corpora)), corpora)
        ax.set_xlim(-0.6, len(corpora) - 0.4)
        ax.set_title(op.replace("app.", ""))
        ax.set_xlabel("corpus")
    axes[0][0].set_ylabel("ms per operation (log scale)")
    if ylim:
        axes[0][0].set_ylim(*ylim)
    log_axis(axes[0][0], "y")  # the panels share it: plain-number ticks, once the limits are final
    handles, names = [], []
    for ax in axes[0]:
        for hh, ll in zip(*ax.get_legend_handles_labels()):
            if ll not in names:
                handles.append(hh)
                names.append(ll)
    # under the panels, two names a row (three of the longest do not fit the page's width)
    fig.legend(handles, names, loc="outside lower center", ncol=min(2, max(1, len(names))))
    return save(fig, path)


def plot_app(cells: pd.DataFrame, path: Path | str, corpora: tuple[str, ...], method: str = "",
             labels: dict[str, str] | None = None) -> list[tuple[str, list[str], Path]]:
    """`cells`: one row per valid cell with operation, corpus, series (engine@runtime), mean_s,
    ci_low_s, ci_high_s. One figure per group of at most MAX_SERIES series (`series_files`), written
    beside `path` as `<stem>_<group>.png`; every figure has the same y range so they can be read side by
    side. Returns (title, members, path) per figure (none with no cells)."""
    if cells.empty:
        return []
    path = Path(path)
    means = cells["mean_s"].to_numpy() * 1e3
    ylim = (float(np.min(means)) / 20, float(np.max(means)) * 20)
    out = []
    for title, stem, members in series_files(sorted(cells["series"].unique())):
        # a corpus only some groups measured (E5's LG2: two engines) gets a tick in their figures only
        mine = measured_corpora(cells[cells["series"].isin(members)], corpora)
        p = plot_group(cells, members, path.with_name(f"{path.stem}_{stem}{path.suffix}"), mine, labels, ylim)
        out.append((title, members, p))
    return out
