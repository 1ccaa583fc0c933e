"""Runtimes as a dimension: PyPy beside CPython, the C speed-of-light baseline, cycles per row.

A missing pypy3 or C toolchain skips its tests with the reason, unless CROSSINGS_REQUIRE_RUNTIMES=1
(CI sets it): then it fails.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import harness, last_line, require
from harness import store
from harness.protocol import canonical_params
from harness.run.native import launcher
from harness.run.probe import probe
from harness.run.runtimes import RUNTIMES

REQUIRE = "CROSSINGS_REQUIRE_RUNTIMES"
N = 1000  # the smoke profile's n for bindings.*


def need_pypy() -> None:
    if RUNTIMES["pypy"].unavailable_reason():
        require(REQUIRE, RUNTIMES["pypy"].unavailable_reason())


def need_c() -> None:
    info = launcher.probe("sqlite/native-c")
    if not info["available"]:
        require(REQUIRE, info["reason"])


def run(tmp_path: Path, *args: str) -> Path:
    proc = harness("run", "--profile", "smoke", "--out", str(tmp_path), "--no-progress", *args)
    return Path(last_line(proc.stdout))


def cell_rows(run_dir: Path) -> pd.DataFrame:
    return store.load_runs([run_dir])


def statuses(run_dir: Path) -> pd.DataFrame:
    p = store.load_process_records([run_dir])
    return p.drop_duplicates(["benchmark", "engine", "runtime_family"]).set_index(["engine", "runtime_family"])


# ---------------------------------------------------------------- PyPy


def test_pypy_cell_runs_sqlite3_and_skips_what_pypy_cannot_load(tmp_path):
    need_pypy()
    run_dir = run(tmp_path, "--benchmarks", "bindings.select_fold", "--engines", "sqlite/sqlite3,sqlite/apsw,duckdb",
                  "--runtimes", "cpython,pypy", "--processes", "2", "--iterations", "3")
    df = cell_rows(run_dir)
    pypy = df[df["runtime"].str.startswith("pypy")]
    assert set(pypy["engine"]) == {"sqlite/sqlite3"}
    assert len(pypy) == 2 * 3 and pypy["pid"].nunique() == 2
    assert pypy["check_ok"].all() and (pypy["crossings"] == N).all() and (pypy["values_converted"] == N).all()
    assert set(df[df["runtime"].str.startswith("cpython")]["engine"]) == {"sqlite/sqlite3", "sqlite/apsw", "duckdb"}
    st = statuses(run_dir)
    assert st.loc[("sqlite/apsw", "pypy"), "status"] == "skipped"
    assert st.loc[("sqlite/apsw", "pypy"), "reason"].startswith("not available on pypy: ")
    assert st.loc[("duckdb", "pypy"), "status"] == "skipped"
    assert st.loc[("duckdb", "pypy"), "reason"].startswith("not available on pypy: ")
    m = store.read_manifest(run_dir)
    assert m["engines"]["sqlite/sqlite3@pypy"]["runtime"].startswith("pypy3.9")


def test_missing_pypy_is_a_reason_not_a_crash(monkeypatch):
    monkeypatch.setenv("CROSSINGS_PYPY", "/nonexistent/pypy3")
    info = probe("sqlite/sqlite3", "pypy")
    assert info["available"] is False
    assert "CROSSINGS_PYPY=/nonexistent/pypy3 is not an executable file" in info["reason"]


# ---------------------------------------------------------------- impossible pairs


@pytest.mark.parametrize("engine, runtime", [
    ("sqlite/sqlite3", "c"), ("sqlite/apsw", "c"), ("duckdb", "c"), ("duckdb", "pypy"),
    ("sqlite/native-c", "cpython"), ("sqlite/native-c", "pypy"),
])
def test_impossible_pairs_are_unavailable_with_a_reason(engine, runtime):
    info = probe(engine, runtime)
    assert info["available"] is False
    assert info["reason"].startswith(f"not available on {runtime}: ")


def test_four_possible_cells_run_and_impossible_pairs_are_skipped(tmp_path):
    need_pypy()
    need_c()
    run_dir = run(tmp_path, "--benchmarks", "bindings.select_fold", "--engines", "sqlite/sqlite3,sqlite/native-c",
                  "--runtimes", "cpython,pypy,c", "--processes", "1", "--iterations", "2")
    df = cell_rows(run_dir)
    got = {(e, re.match(r"[a-z]+", r).group()) for e, r in zip(df["engine"], df["runtime"])}
    assert got == {("sqlite/sqlite3", "cpython"), ("sqlite/sqlite3", "pypy"), ("sqlite/native-c", "c")}
    st = statuses(run_dir)
    for engine, rt in [("sqlite/sqlite3", "c"), ("sqlite/native-c", "cpython"), ("sqlite/native-c", "pypy")]:
        assert st.loc[(engine, rt), "status"] == "skipped"
        assert st.loc[(engine, rt), "reason"].startswith(f"not available on {rt}: ")
    m = store.read_manifest(run_dir)
    assert set(m["process_counts"]) == {"ok", "skipped"}
    assert m["process_counts"]["ok"] == 3


# ---------------------------------------------------------------- C baseline


def test_c_cells_have_p_times_i_rows_and_right_checksum_and_crossings(tmp_path):
    need_c()
    run_dir = run(tmp_path, "--benchmarks", "bindings.*", "--engines", "sqlite/native-c", "--runtimes", "c",
                  "--processes", "2", "--iterations", "4")
    df = cell_rows(run_dir)
    assert set(df["benchmark"]) == {"bindings.select_fold", "bindings.select_all", "bindings.point_query"}
    for _, g in df.groupby("benchmark"):
        assert len(g) == 2 * 4
        assert sorted(g["process"].unique()) == [0, 1] and g["pid"].nunique() == 2
        assert sorted(g["iteration"]) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert df["runtime"].str.match(r"^c-(gcc|clang|cc)").all()
    assert (df["driver"] == "libsqlite3").all()
    assert df["check_ok"].all()
    scans = df[df["benchmark"] != "bindings.point_query"]
    assert (scans["crossings"] == N).all() and (scans["values_converted"] == N).all()
    points = df[df["benchmark"] == "bindings.point_query"]  # smoke: queries stays at its default 1000
    assert (points["crossings"] == 2 * 1000).all() and (points["values_converted"] == 2 * 1000).all()
    assert (df["wall_ns"] > 0).all() and (df["cpu_ns"] > 0).all()
    m = store.read_manifest(run_dir)
    c = m["engines"]["sqlite/native-c@c"]
    assert c["versions"]["sqlite"] and c["versions"]["compiler"] and c["versions"]["flags"]
    assert c["build"]["source_sha256"]


def test_c_point_query_counts_what_the_python_worker_counts(tmp_path):
    need_c()
    run_dir = run(tmp_path, "--benchmarks", "bindings.point_query", "--engines", "sqlite/sqlite3,sqlite/native-c",
                  "--runtimes", "cpython,c", "--processes", "2", "--iterations", "3",
                  "--param", "n=1000", "--param", "queries=100")
    p = store.load_process_records([run_dir])
    ran = p[p["status"] != "skipped"]
    assert set(ran["status"]) == {"ok"}, ran[["benchmark", "engine", "status", "reason"]]
    df = cell_rows(run_dir)
    c = df[df["engine"] == "sqlite/native-c"]
    assert len(c) == 2 * 3 and c["pid"].nunique() == 2
    assert c["runtime"].str.match(r"^c-(gcc|clang|cc)").all()
    assert c["check_ok"].all() and df["check_ok"].all()
    assert (c["crossings"] == 200).all() and (c["values_converted"] == 200).all()
    counts = df.groupby("engine")[["crossings", "values_converted"]].agg(["min", "max"])
    assert (counts.loc["sqlite/native-c"] == counts.loc["sqlite/sqlite3"]).all(), counts
    assert set(df["params"]) == {canonical_params({"n": 1000, "queries": 100})}


def test_c_point_query_argv_carries_n_and_queries(tmp_path):
    need_c()
    spec = tmp_path / "spec.json"
    spec.write_text('{"benchmark": "bindings.point_query", "params": {"n": 50, "queries": 7}, "iterations": 2,'
                    ' "workdir": "%s", "data": {}}' % tmp_path)
    result = tmp_path / "result.json"
    argv = launcher.worker_argv("sqlite/native-c", str(spec), str(result))
    assert argv[1:4] == ["bindings.point_query", "50:7", "2"]
    import json
    import subprocess

    subprocess.run(argv, check=True, timeout=60)
    out = json.loads(result.read_text())
    assert out["status"] == "ok" and out["check_ok"] == [True] * 2
    assert out["crossings"] == [14] * 2 and out["values_converted"] == [14] * 2


def test_c_result_file_matches_the_worker_format(tmp_path):
    need_c()
    b = launcher.build_for("sqlite/native-c")
    spec = tmp_path / "spec.json"
    spec.write_text('{"benchmark": "bindings.select_all", "params": {"n": 100}, "iterations": 3, "workdir": "%s",'
                    ' "data": {}}' % tmp_path)
    result = tmp_path / "result.json"
    argv = launcher.worker_argv("sqlite/native-c", str(spec), str(result))
    assert argv[0] == str(b.binary)
    import json
    import subprocess

    subprocess.run(argv, check=True, timeout=60)
    out = json.loads(result.read_text())
    assert out["schema"] == 1 and out["status"] == "ok" and out["reason"] == ""
    assert out["runtime"].startswith("c-") and isinstance(out["pid"], int)
    assert out["check_ok"] == [True] * 3 and out["crossings"] == [100] * 3 and out["values_converted"] == [100] * 3
    assert len(out["wall_ns"]) == len(out["cpu_ns"]) == 3
    assert not list(tmp_path.glob("result.json.tmp*")), "written via a temporary file and renamed"


def test_c_wrong_answer_is_invalid_and_unimplemented_is_not_applicable(tmp_path):
    need_c()
    proc = harness("run", "--profile", "smoke", "--benchmarks", "selftest.wrong,selftest.sleep", "--engines",
                   "sqlite/native-c", "--runtimes", "c", "--processes", "1", "--iterations", "2", "--out",
                   str(tmp_path), "--no-progress", check=False)
    assert proc.returncode == 1, proc.stderr  # an invalid cell: exit status 1
    run_dir = Path(last_line(proc.stdout))
    p = store.load_process_records([run_dir]).set_index("benchmark")
    assert p.loc["selftest.wrong", "status"] == "invalid"
    assert "expected 42, got 41" in p.loc["selftest.wrong", "reason"]
    assert p.loc["selftest.sleep", "status"] == "not_applicable"
    assert "no C implementation" in p.loc["selftest.sleep", "reason"]


def test_c_micro_benchmarks_count_what_the_python_worker_counts(tmp_path):
    need_c()
    run_dir = run(tmp_path, "--benchmarks", "micro.filltable,micro.select,micro.innerjoin", "--engines",
                  "sqlite/sqlite3,sqlite/native-c", "--runtimes", "cpython,c", "--processes", "1", "--iterations", "2",
                  "--param", "rows=2000")
    p = store.load_process_records([run_dir])
    ran = p[p["status"] != "skipped"]
    if "micro.select" not in set(ran["benchmark"]):  # TPC-H data could not be made here (tpchgen-cli)
        ran = ran[ran["benchmark"] == "micro.filltable"]
    assert set(ran["status"]) == {"ok"}, ran[["benchmark", "engine", "status", "reason"]]
    df = cell_rows(run_dir)
    assert df["check_ok"].all()
    counts = df.groupby(["benchmark", "engine"])[["crossings", "values_converted"]].max().unstack("engine")
    for col in ("crossings", "values_converted"):
        assert (counts[col]["sqlite/native-c"] == counts[col]["sqlite/sqlite3"]).all(), counts
    assert counts.loc["micro.filltable", ("crossings", "sqlite/native-c")] == 1 + 2000 + 1 + 2000


def test_build_cache_is_reused_and_keyed_on_source_and_flags(tmp_path):
    if not shutil.which(launcher.compiler()):
        require(REQUIRE, f"no C compiler {launcher.compiler()!r}")
    need_c()
    cache = tmp_path / "cache"
    first = launcher.build(flags=["-O2"], cache=cache)
    assert first.info["cached"] is False and first.binary.exists()
    mtime = first.binary.stat().st_mtime_ns
    again = launcher.build(flags=["-O2"], cache=cache)
    assert again.info["cached"] is True and again.binary == first.binary
    assert again.binary.stat().st_mtime_ns == mtime, "reused, not rebuilt"
    other_flags = launcher.build(flags=["-O1"], cache=cache)
    assert other_flags.binary != first.binary and other_flags.info["flags"] == "-O1"
    edited = tmp_path / "bench.c"
    edited.write_text(launcher.SOURCE.read_text() + "\n/* edited */\n")
    other_source = launcher.build(source=edited, flags=["-O2"], cache=cache)
    assert other_source.binary != first.binary
    assert len(list(cache.glob("bench-*.json"))) == 3


def test_missing_compiler_or_headers_make_c_unavailable_with_a_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("CROSSINGS_CC", "/nonexistent/cc")
    monkeypatch.setenv("CROSSINGS_NATIVE_CACHE", str(tmp_path))
    info = launcher.probe("sqlite/native-c")
    assert info["available"] is False
    assert info["reason"].startswith("not available on c: no C compiler")
    msg = launcher._explain_failure("bench.c:30:10: fatal error: sqlite3.h: No such file or directory", ["cc"])
    assert "libsqlite3-dev" in msg


# ---------------------------------------------------------------- cycles per row
