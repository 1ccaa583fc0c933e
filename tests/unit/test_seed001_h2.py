"""Seed 001's H2 line, like for like: H2 / SQLite in the seed's tables and ours, over the same benchmarks."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.studies import seed001_h2


def _table(ratio: float, low: float, high: float, benches=("tpch.q01", "tpch.q02")) -> pd.DataFrame:
    rows = [{"benchmark": b, "engine": "h2/jdbc", "runtime": "jvm-17", "ratio": 2.0, "ratio_ci_low": 1.5,
             "ratio_ci_high": 2.5, "n": 10, "ratio_note": ""} for b in benches]
    rows += [{"benchmark": "geomean", "engine": "h2/jdbc", "runtime": "jvm-17", "ratio": ratio, "ratio_ci_low": low,
              "ratio_ci_high": high, "n": len(benches), "ratio_note": ""},
             {"benchmark": "geomean", "engine": "duckdb", "runtime": "cpython3.11", "ratio": 0.5, "ratio_ci_low": 0.4,
              "ratio_ci_high": 0.6, "n": 22, "ratio_note": ""}]
    return pd.DataFrame(rows)


def test_the_seeds_geomean_is_taken_over_the_benchmarks_we_measured():
    g, k = seed001_h2.seed_geomean(["tpch.q01", "tpch.q02"])
    assert k == 2 and g == pytest.approx(math.sqrt((13.168 / 8.715) * (12.890 / 0.305)))
    # Q19 timed out in the seed: it is not in the seed's mean
    g19, k19 = seed001_h2.seed_geomean(["tpch.q01", "tpch.q19"])
    assert k19 == 1 and g19 == pytest.approx(13.168 / 8.715)
    # all six micro-benchmarks: the seed's H2 / SQLite (not its printed H2 / SQPyte, 30.283)
    six = ["micro.select", "micro.innerjoin", "micro.pythonjoin", "micro.pyfunction", "micro.pyaggregate",
           "micro.filltable"]
    g6, k6 = seed001_h2.seed_geomean(six)
    assert k6 == 6 and 8.5 < g6 < 9.5


def test_ours_beside_the_seeds_ratio_over_the_same_benchmarks():
    line = seed001_h2.comparison(_table(12.34, 10.0, 15.0), "tpch.")
    seed = math.sqrt((13.168 / 8.715) * (12.890 / 0.305))
    assert "**12.34x** [10.00, 15.00]" in line and "2 tpch.* benchmarks" in line
    assert f"**{seed:.2f}x**" in line and "over sqlite/sqlite3@pypy" in line
    line19 = seed001_h2.comparison(_table(3.0, 2.0, 4.0, ("tpch.q01", "tpch.q19")), "tpch.")
    assert "over the same 1" in line19 and "Not in the seed's mean: tpch.q19" in line19


def test_no_h2_or_no_interval_says_so():
    line = seed001_h2.comparison(None, "micro.")
    assert "No valid micro.* cells of h2/jdbc" in line
    line = seed001_h2.comparison(_table(3.0, math.nan, math.nan), "tpch.")
    assert "(no interval: too few processes)" in line


def test_the_verdict_tables_h2_rows_get_ours_beside_the_seeds_as_context():
    tpch = _table(12.34, 10.0, 15.0, ("tpch.q01", "tpch.q15"))
    text = seed001_h2.verdict_context({"tpch.": tpch, "micro.": None})
    assert "decides nothing" in text and "12.34x [10.00, 15.00] over TPC-H (2 benchmarks" in text
    assert f"2x [1.5, 2.5] on Query 15 (the seed's: {0.009 / 20.881:.3g}x, H2 2,320 times faster)" in text
    assert "micro-benchmarks" not in text
    assert "no context" in seed001_h2.verdict_context({})
