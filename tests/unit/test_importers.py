"""Importers: csv, go test -bench, pyperf JSON, hyperfine JSON; malformed input -> DataError."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.analysis.importers import read_import

DATA = Path(__file__).parent.parent / "data"


def test_gobench_names_and_samples():
    df = read_import(DATA / "seed004_newbench.txt", "gobench", engine="go/ramsql")
    assert sorted(df.benchmark.unique())[:2] == ["RamSQLInsert10", "RamSQLSelect"]
    assert len(df) == 48 and (df.groupby("benchmark").process.nunique() == 6).all()
    assert (df.iteration == 0).all() and (df.engine == "go/ramsql").all() and (df.driver == "ramsql").all()
    setup = df[df.benchmark == "RamSQLSetup"].sort_values("process").wall_ns.tolist()
    assert setup[0] == pytest.approx(832.9)  # fractional ns kept


def test_gobench_errors(tmp_path):
    with pytest.raises(DataError, match="--engine"):
        read_import(DATA / "seed004_newbench.txt", "gobench")
    bad = tmp_path / "bad.txt"
    bad.write_text("goos: linux\nBenchmarkX-8   100   abc ns/op\n")
    with pytest.raises(DataError, match=r"bad.txt:2"):
        read_import(bad, "gobench", engine="go")


def test_csv_import_and_errors(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("benchmark,engine,process,iteration,seconds,runtime\nq1,sqlite,0,0,0.5,cpython3.11\n"
                 "q1,sqlite,0,1,0.25,cpython3.11\n")
    df = read_import(p, "csv")
    assert df.wall_ns.tolist() == [500000000, 250000000] and df.runtime.iloc[0] == "cpython3.11"
    assert df.params.iloc[0] == ""
    p.write_text("benchmark,engine,process,iteration,seconds\nq1,sqlite,0,0,0.5\nq1,sqlite,0,1,fast\n")
    with pytest.raises(DataError, match=r"t.csv:3: not a number"):
        read_import(p, "csv")
    p.write_text("benchmark,process,iteration,seconds\nq1,0,0,0.5\n")
    with pytest.raises(DataError, match="missing column"):
        read_import(p, "csv")
    assert read_import(p, "csv", engine="duckdb").engine.iloc[0] == "duckdb"


def test_pyperf_runs_are_processes(tmp_path):
    doc = {"version": "1.0", "metadata": {"python_implementation": "cpython", "python_version": "3.11.7"},
           "benchmarks": [{"metadata": {"name": "select", "unit": "second"},
                           "runs": [{"metadata": {}, "warmups": [[1, 0.5]]},
                                    {"warmups": [[1, 0.4]], "values": [0.1, 0.2, 0.3]},
                                    {"values": [0.15, 0.25, 0.35]}]}]}
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc))
    df = read_import(p, "pyperf", engine="sqlite/sqlite3")
    assert df.process.tolist() == [0, 0, 0, 1, 1, 1] and df.iteration.tolist() == [0, 1, 2] * 2
    assert df.runtime.iloc[0] == "cpython3.11"
    p.write_text('{"benchmarks": [\n  {"runs": [}\n]}')
    with pytest.raises(DataError, match=r"b.json:2: invalid JSON"):
        read_import(p, "pyperf")


def test_hyperfine_times_are_processes(tmp_path):
    doc = {"results": [{"command": "sqlite3 x.db 'select 1'", "mean": 0.01, "times": [0.01, 0.011, 0.009],
                        "exit_codes": [0, 1, 0]}]}
    p = tmp_path / "h.json"
    p.write_text(json.dumps(doc))
    df = read_import(p, "hyperfine", engine="sqlite/cli")
    assert df.process.tolist() == [0, 1, 2] and df.check_ok.tolist() == [True, False, True]
    p.write_text(json.dumps({"results": [{"command": "x"}]}))
    with pytest.raises(DataError, match="times"):
        read_import(p, "hyperfine")


def test_import_cli_writes_run_dir(tmp_path, capsys):
    from harness.cli import main
    from harness.store import load_runs

    rc = main(["import", str(DATA / "seed004_newbench.txt"), "--format", "gobench", "--engine", "go",
               "--out", str(tmp_path)])
    assert rc == 0
    run_dir = Path(capsys.readouterr().out.strip().splitlines()[-1])
    df = load_runs([run_dir])
    assert len(df) == 48 and set(df.engine) == {"go"}
    assert main(["import", str(tmp_path / "missing.csv"), "--format", "csv"]) == 2
    assert "missing.csv" in capsys.readouterr().err
