"""Seed 001's H2 line: the seed's constants quoted, ours read from the family table's geomean row."""
from __future__ import annotations

import math

import pandas as pd

from harness.studies import seed001_h2


def _table(ratio: float, low: float, high: float) -> pd.DataFrame:
    return pd.DataFrame([
        {"benchmark": "tpch.q01", "engine": "h2/jdbc", "runtime": "jvm-17", "ratio": 2.0, "ratio_ci_low": 1.5,
         "ratio_ci_high": 2.5, "n": 10, "ratio_note": ""},
        {"benchmark": "geomean", "engine": "h2/jdbc", "runtime": "jvm-17", "ratio": ratio, "ratio_ci_low": low,
         "ratio_ci_high": high, "n": 21, "ratio_note": ""},
        {"benchmark": "geomean", "engine": "duckdb", "runtime": "cpython3.11", "ratio": 0.5, "ratio_ci_low": 0.4,
         "ratio_ci_high": 0.6, "n": 22, "ratio_note": ""}])


def test_ours_beside_the_seeds_constant():
    line = seed001_h2.comparison(_table(12.34, 10.0, 15.0), "tpch.", "sqlite/sqlite3@cpython")
    assert "6.172x ± 0.1484" in line and "Q19 timed out" in line
    assert "**12.340x** [10.000, 15.000]" in line and "21 tpch.* benchmarks" in line
    assert f"({12.34 / 6.172:.2f} times the seed's)" in line
    micro = seed001_h2.comparison(_table(3.0, 2.0, 4.0), "micro.", "sqlite/sqlite3@cpython")
    assert "30.283x ± 0.3563" in micro


def test_no_h2_or_no_interval_says_so():
    line = seed001_h2.comparison(None, "micro.", "sqlite/sqlite3@cpython")
    assert "Ours: no valid micro.* cells of h2/jdbc" in line
    line = seed001_h2.comparison(_table(3.0, math.nan, math.nan), "tpch.", "sqlite/sqlite3@cpython")
    assert "(no interval: too few processes)" in line
