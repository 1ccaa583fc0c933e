"""E4 end to end: a few inserts.* cells on sqlite3 and the C baseline, a wrong count caught on
both, the grid's settings reaching the C program, storage recorded, and `list` showing the family.

A missing C toolchain skips the C side with the reason, unless CROSSINGS_REQUIRE_RUNTIMES=1.
"""
from __future__ import annotations

from pathlib import Path

from conftest import harness, last_line, require

from harness import store
from harness.run.native import launcher

REQUIRE = "CROSSINGS_REQUIRE_RUNTIMES"


def engines_here() -> tuple[str, str]:
    info = launcher.probe("sqlite/native-c")
    if info["available"]:
        return "sqlite/sqlite3*,sqlite/native*", "cpython,c"
    require(REQUIRE, info["reason"])
    return "sqlite/sqlite3", "cpython"


def test_inserts_cells_measure_and_a_wrong_count_is_invalid(tmp_path):
    engines, runtimes = engines_here()
    proc = harness("run", "--profile", "smoke", "--benchmarks",
                   "inserts.autocommit,inserts.prepared,inserts.multirow,inserts.bulk,selftest.inserts_short",
                   "--engines", engines, "--runtimes", runtimes, "--param", "rows=10,600",
                   "--param", "synchronous=off", "--processes", "1", "--iterations", "2", "--out", str(tmp_path),
                   "--no-progress", check=False)
    assert proc.returncode == 1, proc.stderr  # the self-test's cells are invalid: exit status 1
    run_dir = Path(last_line(proc.stdout))
    p = store.load_process_records([run_dir])
    want_engines = {"sqlite/sqlite3"} | ({"sqlite/native-c"} if "c" in runtimes else set())
    assert set(p["engine"]) == want_engines
    for engine in want_engines:
        mine = p[p["engine"] == engine]
        ok = mine[mine["benchmark"].isin(["inserts.autocommit", "inserts.prepared", "inserts.multirow"])]
        assert len(ok) == 6 and (ok["status"] == "ok").all(), ok[["benchmark", "params", "status", "reason"]]
        bulk = mine[mine["benchmark"] == "inserts.bulk"]
        assert (bulk["status"] == "not_applicable").all()
        short = mine[mine["benchmark"] == "selftest.inserts_short"]
        assert (short["status"] == "invalid").all()
        assert set(short["reason"]) == {"wrong result: iteration 0: row count 9 != 10",
                                        "wrong result: iteration 0: row count 599 != 600"}
        assert all(s["kind"] in ("disk", "memory") and s["fstype"] for s in ok["storage"])
    raw = store.load_runs([run_dir])
    ok_raw = raw[raw["benchmark"].str.startswith("inserts.")]
    assert ok_raw["check_ok"].all()
    # statements per operation, counted the same by the C program and the Python worker
    counts = ok_raw.groupby(["benchmark", "params", "engine"])["crossings"].max().unstack("engine")
    assert (counts.nunique(axis=1) == 1).all(), counts


def test_grid_settings_and_datadir_reach_the_c_program(tmp_path):
    info = launcher.probe("sqlite/native-c")
    if not info["available"]:
        require(REQUIRE, info["reason"])
        return
    datadir = tmp_path / "data"
    datadir.mkdir()
    proc = harness("run", "--profile", "smoke", "--benchmarks", "inserts.transaction", "--engines",
                   "sqlite/native-c", "--runtimes", "c", "--param", "rows=50", "--param", "journal_mode=wal,memory",
                   "--param", "synchronous=normal", "--param", f"datadir={datadir}", "--processes", "1",
                   "--iterations", "2", "--out", str(tmp_path / "runs"), "--no-progress")
    run_dir = Path(last_line(proc.stdout))
    p = store.load_process_records([run_dir])
    assert len(p) == 2 and (p["status"] == "ok").all()
    assert {s["path"] for s in p["storage"]} == {str(datadir.resolve())}
    assert not any(datadir.iterdir()), "the C program left its database behind"


def test_list_shows_the_inserts_family():
    out = harness("list").stdout
    for name in ("inserts.autocommit", "inserts.transaction", "inserts.prepared", "inserts.multirow",
                 "inserts.bulk"):
        assert name in out
    assert "inserts " in out  # the profile
