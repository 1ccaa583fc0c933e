"""E6's Go program end to end: runtime go through the worker protocol, a wrong answer caught, and
`go test -bench` sessions imported as runs. A missing Go toolchain skips these with the reason,
unless CROSSINGS_REQUIRE_RUNTIMES=1 (CI sets it): then they fail."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from conftest import harness, last_line, require

from harness import store
from harness.run.go import launcher

REQUIRE = "CROSSINGS_REQUIRE_RUNTIMES"


def need_go() -> None:
    info = launcher.probe("sqlite/go")
    if not info["available"]:
        require(REQUIRE, info["reason"])


def test_go_cells_run_fresh_processes_and_read_the_rows_the_sql_means(tmp_path):
    need_go()
    proc = harness("run", "--profile", "smoke", "--out", str(tmp_path), "--no-progress", "--benchmarks",
                   "ramsql.select,ramsql.select_fixed,ramsql.select_key", "--engines",
                   "ramsql/go,sqlite/glebarez,sqlite/go", "--runtimes", "go", "--param", "ops=5")
    run_dir = Path(last_line(proc.stdout))
    df = store.load_runs([run_dir])
    assert len(df.groupby(["benchmark", "engine"])) == 9
    assert df["check_ok"].all() and (df["wall_ns"] > 0).all() and (df["cpu_ns"] > 0).all()
    assert df["runtime"].str.match(r"go1\.\d+").all()
    assert set(df["process"]) == {0, 1, 2, 3, 4} and df.groupby(["benchmark", "engine", "process"])["pid"].nunique().eq(1).all()
    crossings = df.groupby(["benchmark", "engine"])["crossings"].first()
    # per operation: one statement plus the rows read; 5 operations per iteration
    assert crossings[("ramsql.select_fixed", "ramsql/go")] == 5 * (1 + 29)
    for sqlite in ("sqlite/glebarez", "sqlite/go"):  # the seed's pure-Go driver, and cgo
        assert crossings[("ramsql.select_fixed", sqlite)] == 5 * (1 + 29)
        assert crossings[("ramsql.select_key", sqlite)] == 5 * 2
        # the seed's table: SQLite stores NULL ids, so the seed's range select reads no row there
        assert crossings[("ramsql.select", sqlite)] == 5 * 1
    assert crossings[("ramsql.select", "ramsql/go")] == 5 * (1 + 29)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    build = manifest["engines"]["sqlite/go@go"]["build"]
    assert build["go_version"].startswith("go version go1.") and build["flags"] == "-tags libsqlite3 -trimpath"
    # each SQLite records its own library: the system's through cgo, modernc's translation in pure Go
    pure = manifest["engines"]["sqlite/glebarez@go"]["versions"]
    assert pure["github.com/glebarez/go-sqlite"].startswith("v1.") and pure["modernc.org/sqlite"].startswith("v1.")
    assert pure["sqlite"] != manifest["engines"]["sqlite/go@go"]["versions"]["sqlite"]


def test_a_wrong_answer_from_the_go_program_marks_the_cell_invalid(tmp_path):
    need_go()
    proc = harness("run", "--profile", "smoke", "--out", str(tmp_path), "--no-progress", "--benchmarks",
                   "selftest.wrong", "--engines", "sqlite/go", "--runtimes", "go", check=False)
    assert proc.returncode == 1, proc.stderr
    records = store.load_process_records([Path(last_line(proc.stdout))])
    assert set(records["status"]) == {"invalid"}
    assert records["reason"].str.contains("wrong result: iteration 0: operation 0: 29 rows").all()


def test_go_test_bench_sessions_import_as_runs_with_benchstat_beside(tmp_path):
    need_go()
    proc = harness("gobench", "--count", "3", "--benchtime", "5x", "--bench", "^Benchmark(SQLiteSelectKey|RamSQLSetup)$",
                   "--out", str(tmp_path), timeout=1800)
    dirs = [Path(line) for line in proc.stdout.strip().splitlines()[-2:]]
    first, second = (store.load_runs([d]) for d in dirs)
    assert set(first["engine"]) == {"gotest-1"} and set(second["engine"]) == {"gotest-2"}
    assert set(first["benchmark"]) == {"SQLiteSelectKey", "RamSQLSetup"}
    assert first.groupby("benchmark")["process"].nunique().eq(3).all() and (first["wall_ns"] > 0).all()
    folder = dirs[1] / "gobench"
    meta = json.loads((folder / "gobench.json").read_text())
    assert "-count 3" in meta["command"] and [s["file"] for s in meta["sessions"]] == ["bench.txt", "newbench.txt"]
    if "skipped" in meta["benchstat"]:  # no network for `go install` here: said, not hidden
        assert meta["benchstat"]["skipped"]
    else:
        assert "SQLiteSelectKey" in (folder / "benchstat.txt").read_text()
    # the raw lines re-import with `import --format gobench` to the same timings
    again = harness("import", str(folder / "bench.txt"), "--format", "gobench", "--engine", "gotest-1",
                    "--out", str(tmp_path / "again"))
    reimported = store.load_runs([Path(last_line(again.stdout))])
    key = ["benchmark", "process"]
    pd.testing.assert_series_equal(reimported.sort_values(key)["wall_ns"].reset_index(drop=True),
                                   first.sort_values(key)["wall_ns"].reset_index(drop=True))
