"""How every figure looks and is written, in one place: one style, vector + raster, same bytes.

Every figure module draws through `subplots()` (which applies STYLE) and writes through `save()`,
so fonts, sizes and colours are the same in every figure, and each figure is written twice: an
SVG (vector, what a journal prints) beside a 200-dpi PNG (what Markdown viewers show). Both are
deterministic: the SVG's ids are salted with a fixed string and neither file records a date or a
software version, so redrawing the same data gives the same bytes and regenerating the paper
changes nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from harness.fsutil import replacing

PNG_DPI = 200
PNG_METADATA = {"Software": None}
SVG_METADATA = {"Date": None, "Creator": None}

#: Okabe & Ito's colour-blind-safe palette (pale yellow last: weak on white): one colour per series everywhere
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"]
#: markers for a second categorical dimension (runtime, warm-up class), distinct in greyscale
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]

#: the paper prints a figure at most PRINT_WIDTH_IN wide (its text column, 46em of 10.5-pt body text,
#: `studies.paper_pdf.CSS`); a figure drawn at that width or narrower prints at its own size, so these
#: sizes are the printed ones: ticks and legends 8.5 pt, labels 9 pt, beside 10.5-pt body text and
#: 9-pt captions. A wider figure is scaled down and its text with it: figures are drawn FIGURE_WIDTH_IN wide.
PRINT_WIDTH_IN = 6.7
FIGURE_WIDTH_IN = 6.5
#: text inside a plot (annotations, heat-map squares), where a tick's size would not fit
SMALL_TEXT = 8

STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.fontsize": 8.5,
    "legend.title_fontsize": 8.5,
    "figure.titlesize": 9.5,
    "figure.labelsize": 9,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,  # grid lines behind bars and markers
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.0,
    "lines.markersize": 4,
    "errorbar.capsize": 3,
    "legend.frameon": False,
    "svg.hashsalt": "crossings",
    "svg.fonttype": "path",  # text as outlines: renders the same without the font installed
    "savefig.bbox": "tight",
}


def _rc() -> dict[str, Any]:
    from cycler import cycler

    return {**STYLE, "axes.prop_cycle": cycler(color=PALETTE)}


def apply() -> None:
    """Use the non-interactive backend and the project style for figures drawn after this."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update(_rc())


def subplots(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """`plt.subplots` in the project style (every figure module starts here)."""
    apply()
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kwargs)


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def marker(i: int) -> str:
    """The i-th series' marker; past the palette's length the marker shifts, so no two of the
    first len(PALETTE) * len(MARKERS) series share both colour and marker."""
    return MARKERS[(i + i // len(PALETTE)) % len(MARKERS)]


TIME_UNITS = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]


def time_unit(seconds: Any) -> tuple[float, str]:
    """(scale, name) of the largest unit in which the median of `seconds` is at least 1, so one
    axis shows one unit with readable numbers."""
    import numpy as np

    x = np.asarray(seconds, dtype=float)
    x = x[np.isfinite(x) & (x > 0)]
    m = float(np.median(x)) if len(x) else 1.0
    return next(((s, n) for s, n in TIME_UNITS if m >= s), TIME_UNITS[-1])


def plain_number(value: float, compact: bool = False) -> str:
    """A log axis's tick as a reader writes it: 0.01, 0.5, 1, 10, 1,000 (never 10^k); `compact`
    writes thousands and millions as 1k, 100k, 1M (for a narrow axis whose ticks would collide)."""
    import math

    if not math.isfinite(value) or value <= 0:
        return ""
    if compact and value >= 1000:
        big, suffix = (1e6, "M") if value >= 1e6 else (1e3, "k")
        return plain_number(value / big) + suffix
    digits = max(0, -math.floor(math.log10(value) + 1e-9))
    return f"{value:,.{digits}f}"


def log_axis(ax: Any, which: str = "x", compact: bool = False) -> None:
    """Put `ax`'s `which` axis ("x", "y" or "both") on a log scale labelled with plain numbers:
    ticks at 1, 10, 100 (and 2 and 5 between them when the data span two decades or less, so a
    narrow axis still has ticks), no minor ticks; `compact` labels as `plain_number(compact=True)`.
    Call it after plotting (it reads the limits)."""
    import math

    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    for name in ("x", "y") if which == "both" else (which,):
        axis = ax.xaxis if name == "x" else ax.yaxis
        (ax.set_xscale if name == "x" else ax.set_yscale)("log")
        lo, hi = sorted(ax.get_xlim() if name == "x" else ax.get_ylim())
        if not (lo > 0 and math.isfinite(hi)):
            continue
        subs = (1,) if math.log10(hi / lo) > 2 else (1, 2, 5)
        ticks = [s * 10.0 ** k for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
                 for s in subs if lo <= s * 10.0 ** k <= hi]
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: plain_number(v, compact)))
        axis.set_minor_locator(NullLocator())


def save(fig: Any, path: Path | str) -> Path:
    """Write `fig` as PNG at `path` and as SVG beside it (same stem), deterministically; close it.

    Returns the PNG's path (the SVG is `path.with_suffix(".svg")`).
    """
    import matplotlib
    import matplotlib.pyplot as plt

    path = Path(path).with_suffix(".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    # each file is written beside its name and renamed over it: a reader (or a crash) never meets
    # half a figure, and notebooks running at once never see each other's partial files
    with matplotlib.rc_context({"svg.hashsalt": STYLE["svg.hashsalt"], "svg.fonttype": STYLE["svg.fonttype"]}):
        with replacing(path, sync=False) as tmp:
            fig.savefig(tmp, format="png", dpi=PNG_DPI, metadata=PNG_METADATA, bbox_inches="tight")
        with replacing(path.with_suffix(".svg"), sync=False) as tmp:
            fig.savefig(tmp, format="svg", metadata=SVG_METADATA, bbox_inches="tight")
    plt.close(fig)
    return path


def svg_of(png: Path | str) -> Path:
    """The SVG `save` wrote beside a PNG."""
    return Path(png).with_suffix(".svg")


def cell_label(row: pd.Series) -> str:
    """A cell as one tick label, `engine (runtime)`: one line, so a bar needs one line of height."""
    return f"{row['engine']} ({row['runtime']})"
