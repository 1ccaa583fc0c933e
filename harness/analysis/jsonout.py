"""Tables as JSON for programs (`--format json`): every number as computed, in seconds, no rounding.

Text and Markdown round for people; a script that post-processes results wants the raw values
and the options that produced them, so each command prints one object: its context (runs,
method, confidence, ...) and `rows`, one object per row, with missing values as null.
"""
from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd


def _plain(v: Any) -> Any:
    """A JSON-native value: numpy scalars unwrapped, NaN/NA/NaT as None."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): _plain(v) for k, v in zip(df.columns, row)} for row in df.itertuples(index=False, name=None)]


def to_json(df: pd.DataFrame, **context: Any) -> str:
    """`{...context, "rows": [...]}`, indented, keys in column order."""
    return json.dumps({**{k: _plain(v) if not isinstance(v, (list, dict)) else v for k, v in context.items()},
                       "rows": records(df)}, indent=2, ensure_ascii=False)
