"""Small HTML pieces for a self-contained static page: escaped text, tables, embedded figures.

Nothing here fetches anything: figures become data URIs and the style sheet is inline, so the
page can be mailed, archived or opened offline and shows exactly what was computed.
"""
from __future__ import annotations

import base64
import html
import math
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

CSS = """
body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 14px; color: #111; margin: 0 auto;
       max-width: 1200px; padding: 1em 2em; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; vertical-align: top; }
th { background: #f0f0f0; text-align: left; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
caption { caption-side: bottom; text-align: left; font-size: 12px; color: #444; padding-top: 4px; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 12px; color: #444; }
.warn { background: #fff4e5; border-left: 4px solid #e69f00; padding: 0.5em 1em; }
.ok { background: #eef7ee; border-left: 4px solid #009e73; padding: 0.5em 1em; }
code { background: #f4f4f4; padding: 0 2px; }
details { margin: 0.5em 0; } summary { cursor: pointer; font-weight: bold; }
"""

UNITS = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]


def esc(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def inline_markdown(text: str) -> str:
    """Escape `text`, then render `code` spans and paragraphs (all the Markdown the studies' prose uses
    besides tables)."""
    out = []
    for para in re.split(r"\n\s*\n", text.strip()):
        body = re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(para))
        body = re.sub(r"(?<![\w*])_([^_]+)_(?![\w*])", r"<em>\1</em>", body)
        out.append(f"<p>{body}</p>")
    return "\n".join(out)


def unit_for(seconds: Iterable[float]) -> tuple[float, str]:
    """The largest unit in which the smallest positive value is at least 1."""
    vals = [v for v in seconds if v is not None and isinstance(v, (int, float)) and math.isfinite(v) and v > 0]
    if not vals:
        return 1.0, "s"
    m = min(vals)
    return next(((s, n) for s, n in UNITS if m >= s), UNITS[-1])


def sig(x: float, digits: int = 3) -> str:
    """`x` with `digits` significant digits, no exponent for everyday magnitudes."""
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return "∞" if isinstance(x, float) and math.isinf(x) and x > 0 else "—"
    if x == 0:
        return "0"
    if not 1e-3 <= abs(x) < 1e9:
        return f"{x:.{digits}g}"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def interval(value: float, low: float, high: float, scale: float = 1.0, unit: str = "") -> str:
    """`value unit [low, high]`: the interval's ends as they are (bootstrap intervals are not
    symmetric, so no ±)."""
    if value is None or not isinstance(value, (int, float)) or not math.isfinite(value):
        return "—"
    u = f" {unit}" if unit else ""
    if low is None or high is None or not all(isinstance(v, (int, float)) and not math.isnan(v) for v in (low, high)):
        return f"{sig(value / scale)}{u}"
    return f"{sig(value / scale)}{u} [{sig(low / scale)}, {sig(high / scale)}]"


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], caption: str = "",
          numeric: Sequence[bool] | None = None, raw: bool = False) -> str:
    """An HTML table; cells are escaped unless `raw`; `numeric` columns are right-aligned."""
    numeric = list(numeric or [False] * len(header))
    cell = (lambda v: str(v)) if raw else esc
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        tds = "".join(f'<td class="num">{cell(v)}</td>' if numeric[i] else f"<td>{cell(v)}</td>"
                      for i, v in enumerate(row))
        body.append(f"<tr>{tds}</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def data_uri(path: Path | str) -> str:
    path = Path(path)
    mime = {".svg": "image/svg+xml", ".png": "image/png"}[path.suffix.lower()]
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def figure(path: Path | str, caption: str) -> str:
    """A figure embedded as a data URI (the SVG beside a PNG when there is one) with its caption."""
    path = Path(path)
    svg = path.with_suffix(".svg")
    src = data_uri(svg if svg.exists() else path)
    return f'<figure><img src="{src}" alt="{esc(caption)}"><figcaption>{esc(caption)}</figcaption></figure>'


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{esc(title)}</title>\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")
