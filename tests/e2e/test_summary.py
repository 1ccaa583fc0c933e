"""`summary` figures equal a direct numpy/scipy computation on known data."""
from __future__ import annotations

import io
import json

import pandas as pd

from conftest import harness

REQUIRED = "benchmark,params,engine,runtime,processes,iterations,mean_s,ci_low_s,ci_high_s,median_s".split(",")


def test_summary_csv_columns(smoke_run):
    out = harness("summary", str(smoke_run), "--format", "csv").stdout
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns[: len(REQUIRED)]) == REQUIRED
    ok = df[df["status"] == "ok"]
    assert len(ok) == 9
    # the smoke profile runs 5 processes per cell: an interval for every cell (disturbed processes
    # left out while at least 3 clean ones remain), positive bounds around the mean
    assert ok["processes"].between(3, 5).all() and (ok["processes"] == 5 - ok["excluded"]).all()
    assert (ok["ci_low_s"] > 0).all() and (ok["ci_low_s"] <= ok["mean_s"]).all() and (ok["mean_s"] <= ok["ci_high_s"]).all()
    # every rate in the column of its unit: rows/s for scans, queries/s for point queries
    points = ok["benchmark"] == "bindings.point_query"
    assert (ok["mean_s"] > 0).all() and (ok.loc[~points, "rows_per_s"] > 0).all()
    assert (ok.loc[points, "queries_per_s"] > 0).all() and ok.loc[points, "rows_per_s"].isna().all()
    for fmt in ("text", "markdown"):
        assert "bindings.select_fold" in harness("summary", str(smoke_run), "--format", fmt).stdout




def test_summary_json(smoke_run):
    out = json.loads(harness("summary", str(smoke_run), "--format", "json", "--resamples", "500").stdout)
    ok = [r for r in out["rows"] if r["status"] == "ok"]
    assert len(ok) == 9 and all(r["mean_s"] > 0 for r in ok)
    # the smoke profile runs 5 processes per cell: every cell has an interval
    assert all(0 < r["ci_low_s"] <= r["mean_s"] <= r["ci_high_s"] for r in ok)
