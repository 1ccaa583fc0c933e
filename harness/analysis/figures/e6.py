"""E6's figure: time per operation, RamSQL vs SQLite, the worker protocol beside `go test -bench`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.style import FIGURE_WIDTH_IN, colour, log_axis, marker, save, subplots, time_unit

SESSIONS = ("bench.txt", "newbench.txt")


def plot_per_op(side: pd.DataFrame, path: Path | str, method: str = "") -> Path:
    """One row per benchmark, log time axis: per engine the worker's mean with its CI (filled
    marker) and each go test session's (hollow markers), so disagreement between the ways in shows."""
    benches = list(dict.fromkeys(side["benchmark"]))
    engines = sorted(set(side["engine"]))
    fig, ax = subplots(figsize=(FIGURE_WIDTH_IN, 0.42 * len(benches) * len(engines) + 1.4),
                       layout="constrained")  # labels inside the page's width: printed unscaled
    scale, unit = time_unit(side["mean_s"])
    y = 0
    ticks, labels = [], []
    for bench in benches:
        for ei, engine in enumerate(engines):
            row = side[(side["benchmark"] == bench) & (side["engine"] == engine)]
            if row.empty:
                continue
            r = row.iloc[0]
            series = [("worker", r["mean_s"], r["low_s"], r["high_s"], 0)]
            series += [(f"go test {s}", r.get(f"{s}_mean_s", np.nan), r.get(f"{s}_low_s", np.nan),
                        r.get(f"{s}_high_s", np.nan), i + 1) for i, s in enumerate(SESSIONS)]
            for k, (name, m, lo, hi, mi) in enumerate(series):
                if not np.isfinite(m):
                    continue
                yy = y + (k - 1) * 0.22
                err = None
                if np.isfinite(lo) and np.isfinite(hi):
                    err = [[(m - lo) / scale], [(hi - m) / scale]]
                ax.errorbar([m / scale], [yy], xerr=err, fmt=marker(mi), color=colour(ei),
                            mfc=colour(ei) if k == 0 else "white", ms=4, elinewidth=0.8, capsize=2)
            ticks.append(y)
            labels.append(f"{bench.replace('ramsql.', '')} · {engine}")
            y += 1
        y += 0.4
    log_axis(ax, "x")  # plain-number ticks (1, 10, 100), not 10^k
    ax.set_yticks(ticks, labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"time per operation ({unit}, log scale)")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colour(i), lw=3, label=e) for i, e in enumerate(engines)]
    handles.append(Line2D([], [], color="grey", marker=marker(0), ls="", label="worker protocol"))
    handles += [Line2D([], [], color="grey", marker=marker(i + 1), mfc="white", ls="", label=f"go test {s}")
                for i, s in enumerate(SESSIONS)]
    ax.legend(handles=handles, loc="lower right")
    ci = f"99% CI ({method})" if method else "99% CI"
    ax.set_title(f"E6: RamSQL vs SQLite in Go, per operation;\nerror bars {ci}")
    return save(fig, path)
