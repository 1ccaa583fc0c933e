"""Plain pipe tables for the paper and notebooks (no extra dependency)."""
from __future__ import annotations

import pandas as pd


def to_markdown(df: pd.DataFrame) -> str:
    """A plain pipe table (no extra dependency)."""
    if df.empty:
        return "_no data_"
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)
