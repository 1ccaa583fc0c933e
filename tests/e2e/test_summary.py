"""`summary` figures equal a direct numpy/scipy computation on known data."""
from __future__ import annotations

import io

import pandas as pd

from conftest import harness

REQUIRED = "benchmark,params,engine,runtime,processes,iterations,mean_s,ci_low_s,ci_high_s,median_s".split(",")


def test_summary_csv_columns(smoke_run):
    out = harness("summary", str(smoke_run), "--format", "csv").stdout
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns[: len(REQUIRED)]) == REQUIRED
    ok = df[df["status"] == "ok"]
    assert len(ok) == 9
    # the smoke profile runs 2 processes per cell: too few for an interval, and each row says so
    assert (ok["processes"] == 2).all()
    assert ok["ci_low_s"].isna().all() and ok["ci_high_s"].isna().all()
    assert ok["note"].str.contains("an interval needs at least 3").all()
    assert (ok["mean_s"] > 0).all() and (ok["rows_per_s"] > 0).all()
    for fmt in ("text", "markdown"):
        assert "bindings.select_fold" in harness("summary", str(smoke_run), "--format", fmt).stdout


