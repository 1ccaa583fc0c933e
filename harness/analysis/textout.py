"""Text for a terminal: one number format and one table renderer for every command.

`summary`, `compare`, `history`, `plan` and `list` print through here, so a time reads the same
everywhere (`8.49 ms [7.61, 9.55]`: three significant digits, one unit per cell, both ends of the
interval) and every table fits the width (120 characters, fewer on a narrower terminal,
`CROSSINGS_WIDTH` to choose). Tables are drawn by rich (pinned in requirements.lock): it measures each cell,
wraps the columns that may wrap and keeps the numbers whole.
"""
from __future__ import annotations

import io
import math
import os
import shutil
import sys
from dataclasses import dataclass
from typing import Sequence

#: the widest line printed by default
DEFAULT_WIDTH = 120
TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def finite(x: object) -> bool:
    """Whether x is a finite number (None, NaN, text: no)."""
    try:
        return math.isfinite(float(x))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def digits3(x: float) -> str:
    """Three significant digits without exponent (8.49, 76.2, 412; 1234 stays whole)."""
    return f"{x:#.3g}".rstrip(".") if abs(x) < 1000 else f"{x:.0f}"


def time_unit(seconds: float) -> tuple[float, str]:
    """(scale, unit) in which `seconds` reads as 1 to 999."""
    if not finite(seconds) or seconds == 0:
        return 1.0, "s"
    return next(((f, u) for f, u in TIME_UNITS if abs(seconds) >= f), TIME_UNITS[-1])


def time_text(mean: float, low: float = math.nan, high: float = math.nan, unit_of: float | None = None) -> str:
    """`8.49 ms [7.61, 9.55]`: one unit, chosen from the mean (or from `unit_of`, so values that
    sit side by side share it), the interval's bounds in the same unit; the value alone without one."""
    if not finite(mean):
        return ""
    scale, unit = time_unit(unit_of if finite(unit_of) else mean)
    out = f"{digits3(mean / scale)} {unit}"
    if finite(low) and finite(high):
        out += f" [{digits3(low / scale)}, {digits3(high / scale)}]"
    return out


def rate_text(rate: float, unit: str) -> str:
    """`3.88 M rows/s`, `104 k queries/s`."""
    if not finite(rate):
        return ""
    for f, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate >= f:
            return f"{digits3(rate / f)} {prefix} {unit}"
    return f"{digits3(rate)} {unit}"


def seconds_text(seconds: float) -> str:
    """A duration for people: `0.42 s`, `38 s`, `12 min`, `3.2 h`."""
    if not finite(seconds):
        return ""
    if seconds < 1:
        return time_text(seconds)
    if seconds < 120:
        return f"{digits3(seconds)} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{digits3(seconds / 3600)} h"


def output_width() -> int:
    """`CROSSINGS_WIDTH` when set; else, on a terminal, its width (COLUMNS or what it reports) up
    to DEFAULT_WIDTH; DEFAULT_WIDTH when stdout is a pipe or a file (COLUMNS is ignored there:
    test runners and CI set it for their own output)."""
    env = os.environ.get("CROSSINGS_WIDTH", "")
    if env.isdigit() and int(env) >= 40:
        return int(env)
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed stdout
        tty = False
    if tty:
        return max(40, min(DEFAULT_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns))
    return DEFAULT_WIDTH


@dataclass(frozen=True)
class Col:
    """A column: its header, `left` or `right`, and whether its cells may wrap (numbers do not)."""

    header: str
    justify: str = "left"
    wrap: bool = True
    min_width: int | None = None


def table(columns: Sequence[Col | str], rows: Sequence[Sequence[object]], width: int | None = None,
          sections: Sequence[int] = ()) -> str:
    """Rows as an aligned table no wider than `width` (default `output_width()`): a header, a rule,
    the rows (a rule before each index in `sections`); cells that do not fit wrap within their
    column. Cells are plain text (brackets are not markup); None shows as empty."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    width = width or output_width()
    cols = [c if isinstance(c, Col) else Col(c) for c in columns]
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1), collapse_padding=True,
              expand=False)
    widths, wraps = _widths(cols, rows, width)
    for k, (c, may_wrap) in enumerate(zip(cols, wraps)):
        t.add_column(Text(c.header), justify=c.justify, no_wrap=not may_wrap,
                     overflow="fold" if may_wrap else "ellipsis", width=widths[k] if widths else None)
    starts = set(sections)
    for i, row in enumerate(rows):
        t.add_row(*[Text("" if v is None else str(v)) for v in row], end_section=(i + 1) in starts)
    out = io.StringIO()
    # force_jupyter=False: inside a notebook kernel rich would send the table to the notebook's display
    # and leave `out` empty, so the paper blocks that the notebooks write would lose their tables
    console = Console(file=out, width=width, color_system=None, force_terminal=False, force_jupyter=False,
                      markup=False, highlight=False, emoji=False, soft_wrap=False, legacy_windows=False)
    console.print(t, crop=False)
    lines = [line.rstrip() for line in out.getvalue().splitlines()]
    return "\n".join(_fit(line, width) for line in lines)


def _widths(cols: Sequence[Col], rows: Sequence[Sequence[object]], width: int) -> tuple[list[int] | None, list[bool]]:
    """(each column's width, or None when the table fits as it is; whether it may wrap). Too
    wide, the widest wrapping column gives a character at a time down to its longest word;
    still too wide, the one-line columns may wrap at their spaces
    (`9.45 ms` over `[4.33, 20.6]`); only then do words break, down to 6 characters."""
    def cells(k: int) -> list[str]:
        return [cols[k].header] + [str(r[k]) for r in rows if r[k] is not None]

    natural = [max(len(line) for c in cells(k) for line in (c.splitlines() or [""])) for k in range(len(cols))]
    words = [max((len(w) for c in cells(k) for w in c.split()), default=1) for k in range(len(cols))]
    room = width - 2 * (len(cols) - 1)
    if sum(natural) <= room:
        return None, [c.wrap for c in cols]
    widths = list(natural)
    wraps = [c.wrap for c in cols]

    def shrink(floor: list[int]) -> None:
        while sum(widths) > room:
            movable = [k for k in range(len(cols)) if wraps[k] and widths[k] > floor[k]]
            if not movable:
                return
            widths[max(movable, key=lambda k: (widths[k], k))] -= 1  # the widest; of equals, the later

    shrink([max(w, c.min_width or 0) for w, c in zip(words, cols)])
    if sum(widths) > room:
        wraps = [True] * len(cols)
        shrink([max(w, c.min_width or 0) for w, c in zip(words, cols)])
    shrink([min(6, n) for n in natural])
    return widths, wraps


def _fit(line: str, width: int) -> str:
    """A line rich could not narrow enough (columns that may not wrap): cut with an ellipsis."""
    return line if len(line) <= width else line[: width - 1] + "…"


def wrap(text: str, width: int | None = None, indent: str = "") -> str:
    """A paragraph wrapped to the width (captions, notes under a table)."""
    import textwrap

    return textwrap.fill(" ".join(str(text).split()), width=width or output_width(), subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=True)
