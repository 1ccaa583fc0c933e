"""Light inline-SVG plots for interactive views (the explorer): written as text in milliseconds.

Why not matplotlib here: laying out an Axes (tick labels, titles, legend) costs 0.2-1 s per
panel on a loaded machine, so a view with several panels took seconds to redraw. These plots
draw the same data as `warmup.plot_run_sequence` (same palette, one
colour per engine or process, one marker per runtime, the warm-up class as the line style)
with fixed margins and no text measuring. The paper's figures still come from matplotlib.
"""
from __future__ import annotations

import math
from html import escape

import numpy as np
import pandas as pd

from harness.analysis.figures.style import PALETTE, time_unit

#: longest run sequence drawn per process; longer ones are thinned for display only (caption says so)
MAX_POINTS = 300
#: warm-up class -> SVG dash pattern (flat solid, warm-up dashed, slowdown dotted, none dash-dot)
CLASS_DASH = {"flat": "", "warm-up": "5,3", "slowdown": "1.5,2", "no steady state": "6,2,1.5,2"}
_FONT = 'font-family="DejaVu Sans,Arial,sans-serif"'


def _colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _marker(kind: int, x: float, y: float, colour: str, r: float = 3.0) -> str:
    """Circle, square, triangle up, diamond, triangle down (as `style.MARKERS`), filled."""
    k = kind % 5
    if k == 0:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{colour}"/>'
    if k == 1:
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}" fill="{colour}"/>'
    pts = {2: [(0, -r * 1.2), (r * 1.1, r * 0.8), (-r * 1.1, r * 0.8)], 3: [(0, -r * 1.3), (r, 0), (0, r * 1.3), (-r, 0)],
           4: [(0, r * 1.2), (r * 1.1, -r * 0.8), (-r * 1.1, -r * 0.8)]}[k]
    return f'<polygon points="{" ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in pts)}" fill="{colour}"/>'


def _dash(pattern: str) -> str:
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def _text(x: float, y: float, s: str, size: float = 10, anchor: str = "start", colour: str = "#222", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}" {_FONT}'
            f'{" " + extra if extra else ""}>{escape(str(s))}</text>')


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About `n` round ticks covering [lo, hi] (1, 2, 2.5, 5 x 10^k steps)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else []
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + i * step, 12) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Ticks 1, 2, 5 x 10^k inside [lo, hi], thinned to the decades when there are many."""
    ticks = [m * 10.0 ** k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for m in (1, 2, 5)]
    ticks = [t for t in ticks if lo <= t <= hi]
    return ticks if len(ticks) <= 8 else [t for t in ticks if math.isclose(math.log10(t) % 1, 0, abs_tol=1e-9)] or ticks


def _fmt(v: float) -> str:
    return f"{v:g}"


def ratio_svg(table: pd.DataFrame, baseline: str, caption: str, colours: dict[str, int] | None = None,
              width: int = 760) -> str | None:
    """Dot plot of `ratio` with [ratio_ci_low, ratio_ci_high] per benchmark (rows) and series
    (engine, runtime), log x axis, dashed line at 1; None when no row has a ratio. `colours`
    fixes each engine's colour index so toggling engines does not recolour the others."""
    t = table[table["ratio"].notna() & (table["ratio"] > 0)]
    if t.empty:
        return None
    label = t["benchmark"].where(t["benchmark"] != "geomean", "geometric mean")
    benches = sorted(set(label) - {"geometric mean"}) + (["geometric mean"] if "geomean" in set(t["benchmark"]) else [])
    engines = sorted(t["engine"].unique())
    colours = colours or {e: i for i, e in enumerate(engines)}
    runtimes = sorted(t["runtime"].astype(str).unique())
    series = list(t.assign(label=label).groupby(["engine", "runtime"], sort=True))
    lows = t["ratio_ci_low"].where(t["ratio_ci_low"] > 0, t["ratio"])
    highs = t["ratio_ci_high"].where(t["ratio_ci_high"] > 0, t["ratio"])
    lo, hi = float(min(lows.min(), t["ratio"].min(), 1.0)), float(max(highs.max(), t["ratio"].max(), 1.0))
    lo, hi = lo / 1.15, hi * 1.15
    row_h, left = max(22, 4 * len(series) + 8), 12 + 6.2 * max(len(b) for b in benches)  # room to dodge series
    legend_w = 12 + 6.2 * max(len(f"{e} ({r})") for (e, r), _ in series) + 18
    top, plot_h = 30, row_h * len(benches)
    top_legend = top + 15 * len(series)
    height_min = top_legend + 10
    height = max(top + plot_h + 42, height_min)
    x0, x1 = left, width - legend_w - 10
    lx = lambda v: x0 + (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (x1 - x0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
           _text(4, 14, caption, 10.5, extra='font-weight="bold"')]
    for i, b in enumerate(benches):
        y = top + row_h * (i + 0.5)
        out.append(_text(x0 - 6, y + 3.5, b, 9.5, "end"))
        if i % 2 == 0:
            out.append(f'<rect x="{x0:.1f}" y="{top + row_h * i:.1f}" width="{x1 - x0:.1f}" height="{row_h}" fill="#f4f4f4"/>')
    for v in _log_ticks(lo, hi):
        x = lx(v)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#ddd" stroke-width="0.6"/>')
        out.append(_text(x, top + plot_h + 13, _fmt(v), 9, "middle"))
    out.append(f'<line x1="{lx(1.0):.1f}" x2="{lx(1.0):.1f}" y1="{top}" y2="{top + plot_h}" stroke="grey" '
               f'stroke-dasharray="4,3"/>')
    out.append(f'<line x1="{x0}" x2="{x1:.1f}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#444" stroke-width="0.6"/>')
    out.append(_text((x0 + x1) / 2, top + plot_h + 30, f"time / time of {baseline} (log scale; < 1 is faster)", 9.5,
                     "middle"))
    step = 0.7 * row_h / max(1, len(series))
    for j, ((engine, runtime), g) in enumerate(series):
        c, mk = _colour(colours.get(engine, j)), runtimes.index(str(runtime))
        out.append(f'<g class="series" data-engine="{escape(engine)}" data-runtime="{escape(str(runtime))}">')
        for b, r, low, high in zip(g["label"], g["ratio"], g["ratio_ci_low"], g["ratio_ci_high"]):
            y = top + row_h * (benches.index(b) + 0.5) + (j - (len(series) - 1) / 2) * step
            if pd.notna(low) and pd.notna(high) and low > 0:
                out.append(f'<line x1="{lx(low):.1f}" x2="{lx(high):.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{c}" '
                           f'stroke-width="1.2"/>')
            out.append(_marker(mk, lx(r), y, c))
        out.append("</g>")
        ly = top + 8 + 15 * j
        out.append(_marker(mk, x1 + 18, ly - 3.5, c))
        out.append(_text(x1 + 27, ly, f"{engine} ({runtime})", 9.5))
    out.append("</svg>")
    return "".join(out)


def thin(n: int, limit: int = MAX_POINTS) -> int:
    """Stride that keeps at most `limit` of `n` points (1: all of them)."""
    return max(1, math.ceil(n / limit))


def sequence_svg(cell: pd.DataFrame, warmup: pd.DataFrame, title: str, width: int = 460, height: int = 210) -> str | None:
    """Wall time per iteration of ONE cell's valid rows (`cell`: process, iteration, wall_ns),
    one colour per process, the process's warm-up class (`warmup`: process, warmup,
    steady_iteration, steady_start) as the dash pattern, a dotted vertical line where its steady
    state starts. Sequences longer than MAX_POINTS are thinned for display (the title says so)."""
    v = cell.sort_values(["process", "iteration"])
    if v.empty:
        return None
    scale, unit = time_unit(v["wall_ns"].to_numpy() / 1e9)
    y = v["wall_ns"].to_numpy() / 1e9 / scale
    ymin, ymax = float(np.nanmin(y)), float(np.nanmax(y))
    pad = (ymax - ymin) * 0.08 or abs(ymax) * 0.05 or 1.0
    ylo, yhi = ymin - pad, ymax + pad
    it = v["iteration"].to_numpy(dtype=float)
    xlo, xhi = float(it.min()), float(it.max())
    if xhi == xlo:
        xlo, xhi = xlo - 1, xhi + 1
    procs = sorted(v["process"].unique())
    left, right, bottom = 52, 10, 30
    top = 20 + 10 * math.ceil(min(len(procs), 6) / 3)  # title, then up to two legend rows of three
    px = lambda a: left + (a - xlo) / (xhi - xlo) * (width - left - right)
    py = lambda a: top + (yhi - a) / (yhi - ylo) * (height - top - bottom)
    stride = thin(int(v.groupby("process").size().max()))
    if stride > 1:
        title += f" (every {stride}th iteration shown; display only)"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
           _text(4, 12, title, 9, extra='font-weight="bold"')]
    for t in _nice_ticks(ylo, yhi, 4):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#e4e4e4" '
                   f'stroke-width="0.6"/>')
        out.append(_text(left - 4, py(t) + 3, _fmt(t), 8.5, "end"))
    for t in _nice_ticks(xlo, xhi, 6):
        if float(t).is_integer():
            out.append(_text(px(t), height - bottom + 12, f"{int(t)}", 8.5, "middle"))
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" y2="{height - bottom}" stroke="#444" '
               f'stroke-width="0.6"/><line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#444" '
               f'stroke-width="0.6"/>')
    out.append(_text((left + width - right) / 2, height - 4, "iteration", 8.5, "middle"))
    out.append(_text(10, (top + height - bottom) / 2, f"wall time ({unit})", 8.5, "middle",
                     extra=f'transform="rotate(-90 10 {(top + height - bottom) / 2:.1f})"'))
    classes = dict(zip(warmup["process"], zip(warmup["warmup"], warmup["steady_iteration"], warmup["steady_start"])))
    for i, (proc, g) in enumerate(v.groupby("process", sort=True)):
        c = _colour(i)
        cls, steady_it, steady_start = classes.get(proc, ("", float("nan"), float("nan")))
        g = g.iloc[::thin(len(g))]  # each process thinned only if it is itself long
        xs, ys = px(g["iteration"].to_numpy(dtype=float)), py(g["wall_ns"].to_numpy() / 1e9 / scale)
        dash = CLASS_DASH.get(cls, "")
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(xs, ys))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="1.1" opacity="0.9"'
                   f'{_dash(dash)}/>')
        if len(xs) <= 60:
            out.extend(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="1.8" fill="{c}"/>' for a, b in zip(xs, ys))
        if pd.notna(steady_it) and pd.notna(steady_start) and steady_start > 0:
            out.append(f'<line x1="{px(steady_it):.1f}" x2="{px(steady_it):.1f}" y1="{top}" y2="{height - bottom}" '
                       f'stroke="{c}" stroke-dasharray="1,2" stroke-width="0.9"/>')
        if i < 6:
            lx, ly = left + (i % 3) * 135, 24 + 10 * (i // 3)
            out.append(f'<line x1="{lx}" x2="{lx + 14}" y1="{ly - 3}" y2="{ly - 3}" stroke="{c}" stroke-width="1.5"'
                       f'{_dash(dash)}/>')
            out.append(_text(lx + 17, ly, f"process {proc}: {cls}", 7.5))
    if len(procs) > 6:
        out.append(_text(width - right, 34, f"+{len(procs) - 6} more processes", 7.5, "end"))
    out.append("</svg>")
    return "".join(out)

