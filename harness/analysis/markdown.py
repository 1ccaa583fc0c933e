"""Plain pipe tables for the paper and notebooks (no extra dependency)."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import pandas as pd


def cell(value: Any) -> str:
    """One table cell's text: `|` escaped (an unescaped pipe would split the cell and shift every
    column after it) and line breaks folded into spaces (a newline would end the row)."""
    return " ".join(str(value).replace("\\|", "|").replace("|", "\\|").split())


def pipe_table(header: Sequence[Any], rows: Iterable[Sequence[Any]], align: Sequence[str] | None = None) -> str:
    """A pipe table from a header and rows; `align` gives each column's rule (`---`, `:---`, `---:`)."""
    rules = list(align) if align else ["---"] * len(header)
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join(rules) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


#: the widest table that still fits a PDF page (wider ones run off its margin)
MAX_COLUMNS = 9


def split_table(header: Sequence[Any], rows: Iterable[Sequence[Any]], align: Sequence[str] | None = None,
                keep: int = 1, max_columns: int = MAX_COLUMNS) -> str:
    """`pipe_table`, cut into tables of at most `max_columns` columns when wider: each repeats the
    first `keep` columns (what names a row) and gets an even share of the others, so no part runs
    off the page and the last is not a stub."""
    header, rows = list(header), [list(r) for r in rows]
    rules = list(align) if align else ["---"] * len(header)
    rest = len(header) - keep
    if len(header) <= max_columns or rest <= 0 or max_columns <= keep:
        return pipe_table(header, rows, rules)
    parts = -(-rest // (max_columns - keep))
    size = -(-rest // parts)
    out = []
    for start in range(keep, len(header), size):
        cols = list(range(keep)) + list(range(start, min(start + size, len(header))))
        out.append(pipe_table([header[i] for i in cols], ([r[i] for i in cols] for r in rows),
                              [rules[i] for i in cols]))
    return "\n\n".join(out)


def to_markdown(df: pd.DataFrame, keep: int = 1, max_columns: int | None = None) -> str:
    """A plain pipe table (no extra dependency); with `max_columns`, cut as `split_table` does."""
    if df.empty:
        return "_no data_"
    if max_columns:
        return split_table(list(df.columns), df.itertuples(index=False), keep=keep, max_columns=max_columns)
    return pipe_table(list(df.columns), df.itertuples(index=False))
