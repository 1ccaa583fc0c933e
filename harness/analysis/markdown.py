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


def to_markdown(df: pd.DataFrame) -> str:
    """A plain pipe table (no extra dependency)."""
    if df.empty:
        return "_no data_"
    return pipe_table(list(df.columns), df.itertuples(index=False))
