"""Pieces of a self-contained static HTML page: numbers formatted for people, Markdown rendered
by markdown-it-py, tables, figures and the page itself from Jinja2 templates
(`analysis/templates/`: `report.html.j2`, `macros.html.j2`).

Nothing here fetches anything: figures become data URIs and the style sheet is inline, so the
page can be mailed, archived or opened offline and shows exactly what was computed. Text is
escaped by the templates (autoescape) and by markdown-it (raw HTML off); only pieces this module
rendered are passed on as trusted markup (plain `str` between the helpers, so that joining
them with other HTML never escapes it twice; `page` marks them safe).
"""
from __future__ import annotations

import base64
import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from markupsafe import Markup, escape

from harness.analysis.wording import sig

UNITS = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]


@functools.lru_cache(maxsize=1)
def _env():
    """The Jinja2 environment of the report templates, autoescaping everything not marked safe."""
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(loader=PackageLoader("harness.analysis", "templates"), autoescape=select_autoescape(["j2"]),
                       undefined=StrictUndefined, keep_trailing_newline=True)


@functools.lru_cache(maxsize=1)
def _markdown():
    """CommonMark with pipe tables and raw HTML off (a study's text is data, never markup)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _macro(name: str):
    return getattr(_env().get_template("macros.html.j2").module, name)


def esc(text: Any) -> str:
    return str(escape("" if text is None else str(text)))


def markdown(text: str) -> str:
    """`text` (the studies' Markdown: code spans, emphasis, lists, pipe tables) as HTML."""
    return _markdown().render(text or "").strip()


def unit_for(seconds: Iterable[float]) -> tuple[float, str]:
    """The largest unit in which the smallest positive value is at least 1."""
    vals = [v for v in seconds if v is not None and isinstance(v, (int, float)) and math.isfinite(v) and v > 0]
    if not vals:
        return 1.0, "s"
    m = min(vals)
    return next(((s, n) for s, n in UNITS if m >= s), UNITS[-1])


def readable(value: Any) -> str:
    """A manifest value for people: floats to 3 significant digits (a load average is `2.82, 2.10,
    1.95`, not `[2.82177734375, ...]`), lists joined by commas, missing values as `—`."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return sig(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(readable(v) for v in value) if value else "—"
    return str(value)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], caption: str = "",
          numeric: Sequence[bool] | None = None, raw: bool = False) -> str:
    """An HTML table; cells are escaped unless `raw`; `numeric` columns are right-aligned."""
    rows = [[Markup(v) if raw else v for v in row] for row in rows]
    return str(_macro("table")(list(header), rows, caption, list(numeric) if numeric else None))


def data_uri(path: Path | str) -> str:
    path = Path(path)
    mime = {".svg": "image/svg+xml", ".png": "image/png"}[path.suffix.lower()]
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def figure(path: Path | str, caption: str) -> str:
    """A figure embedded as a data URI (the SVG beside a PNG when there is one) with its caption."""
    path = Path(path)
    svg = path.with_suffix(".svg")
    return str(_macro("figure")(data_uri(svg if svg.exists() else path), caption))


@dataclass
class Section:
    """One heading of the page and its content (trusted HTML made by this module); `id` is its anchor."""

    title: str
    html: str
    level: int = 2
    id: str = ""


def anchor(title: str, taken: set[str]) -> str:
    """A unique, URL-safe id for a heading."""
    base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def page(title: str, sections: Sequence[Section], intro: str = "", noise: str = "", noise_ok: str = "") -> str:
    """The whole page: title, intro, the noise warning (or the sentence saying there was none), a
    table of contents and the sections."""
    taken: set[str] = set()
    for s in sections:
        s.id = s.id or anchor(s.title, taken)
        s.html = Markup(s.html)
    return _env().get_template("report.html.j2").render(
        title=title, intro=Markup(intro), noise=Markup(markdown(noise)) if noise else "",
        noise_ok=Markup(markdown(noise_ok)) if noise_ok else "", sections=sections)
