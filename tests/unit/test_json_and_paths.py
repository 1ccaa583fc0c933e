"""`--format json` on summary, table and compare; load_runs takes a path, a string or a list."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from harness import cli, store
from harness.analysis import jsonout, simdata


def _run(tmp_path, seed=1):
    df = simdata.simulate_run(benchmarks=2, engines=("e/a", "e/b"), processes=3, iterations=5, seed=seed)
    return store.write_imported_run(tmp_path, df, {"machine": {}})


def test_load_runs_takes_a_string_a_path_or_a_list(tmp_path):
    run = _run(tmp_path)
    n = len(store.load_runs([run]))
    assert len(store.load_runs(str(run))) == len(store.load_runs(run)) == n == 2 * 2 * 3 * 5
    assert len(store.load_process_records(str(run))) == 12
    assert len(store.load_runs([run, str(run)])) == n  # named twice, counted once


def test_json_values_are_plain():
    df = pd.DataFrame({"a": [np.float64(1.5), np.nan], "b": pd.array([1, None], dtype="Int64"), "c": ["x", None]})
    out = json.loads(jsonout.to_json(df, method="m"))
    assert out == {"method": "m", "rows": [{"a": 1.5, "b": 1, "c": "x"}, {"a": None, "b": None, "c": None}]}


def test_summary_table_compare_json(tmp_path, capsys):
    a, b = _run(tmp_path, 1), _run(tmp_path, 2)
    assert cli.main(["summary", str(a), "--format", "json", "--resamples", "200"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["method"] == "process-bootstrap" and len(s["rows"]) == 4
    r = s["rows"][0]
    assert r["ci_low_s"] <= r["mean_s"] <= r["ci_high_s"]
    assert cli.main(["table", str(a), "--baseline", "e/a", "--format", "json", "--resamples", "200"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert t["baseline"] == "e/a" and any(row["benchmark"] == "geomean" for row in t["rows"])
    assert all(math.isfinite(row["ratio"]) for row in t["rows"] if row["engine"] == "e/b")
    assert cli.main(["compare", str(a), str(b), "--format", "json"]) == 0
    c = json.loads(capsys.readouterr().out)
    assert c["alpha"] == 0.05 and {"delta_pct", "p_value", "significant"} <= set(c["rows"][0])
