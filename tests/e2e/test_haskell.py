"""The Haskell worker (runtimes `haskell`, `haskell-O0`): E1 cells through HDBC, persistent-sqlite,
HDBC-postgresql and postgresql-simple; a wrong answer caught; the build cache reused; E5 on
acid-state and HDBC-sqlite3 through the worker itself.

Without Debian's ghc and libraries the tests skip with the reason, unless
CROSSINGS_REQUIRE_RUNTIMES=1 (CI sets it): then they fail. The PostgreSQL test needs the
throwaway server too (CROSSINGS_REQUIRE_SERVERS).
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import harness, last_line, require
from harness import store
from harness.run.haskell import launcher
from harness.run.probe import probe
from helpers_servers import require_family

REQUIRE = "CROSSINGS_REQUIRE_RUNTIMES"
N = 1000  # the smoke profile's n for bindings.*


def need_haskell(runtime: str = "haskell") -> None:
    reason = launcher.unavailable_reason(runtime)
    if reason:
        require(REQUIRE, reason)


def run(tmp_path: Path, *args: str, check: bool = True) -> tuple[Path, subprocess.CompletedProcess]:
    proc = harness("run", "--profile", "smoke", "--out", str(tmp_path), "--no-progress", *args, check=check)
    return Path(last_line(proc.stdout)), proc


def test_haskell_e1_cells_run_on_both_builds_with_right_checksums(tmp_path):
    need_haskell("haskell")
    need_haskell("haskell-O0")
    run_dir, _ = run(tmp_path, "--benchmarks", "bindings.select_fold,bindings.select_all", "--engines",
                     "sqlite/hdbc,sqlite/persistent", "--runtimes", "haskell,haskell-O0", "--processes", "2",
                     "--iterations", "3")
    df = store.load_runs([run_dir])
    assert len(df) == 2 * 2 * 2 * 2 * 3  # benchmarks x engines x runtimes x processes x iterations
    assert set(df["runtime"].str.replace(r"ghc[0-9.]+$", "", regex=True)) == {"haskell-O2-", "haskell-O0-"}
    assert df["check_ok"].all()
    assert (df["crossings"] == N).all() and (df["values_converted"] == N).all()
    assert (df["wall_ns"] > 0).all() and (df["cpu_ns"] >= 0).all()
    assert df.groupby(["engine", "runtime", "benchmark"])["pid"].nunique().eq(2).all()
    m = store.read_manifest(run_dir)
    info = m["engines"]["sqlite/hdbc@haskell"]
    assert info["available"] and info["versions"]["ghc"] and info["versions"]["flags"] == "-O2"
    assert info["build"]["packages"]["HDBC-sqlite3"] and info["build"]["sources_sha256"]["Main.hs"]
    assert "HDBC-sqlite3" in info["versions"]["driver"] and info["versions"]["sqlite"]
    assert m["engines"]["sqlite/persistent@haskell-O0"]["versions"]["flags"] == "-O0"


def test_haskell_wrong_answer_is_invalid_and_unimplemented_is_not_applicable(tmp_path):
    need_haskell()
    run_dir, proc = run(tmp_path, "--benchmarks", "selftest.wrong,bindings.point_query", "--engines",
                        "sqlite/persistent", "--runtimes", "haskell", "--processes", "1", "--iterations", "2",
                        check=False)
    assert proc.returncode == 1, proc.stderr  # an invalid cell: exit status 1
    p = store.load_process_records([run_dir]).set_index("benchmark")
    assert p.loc["selftest.wrong", "status"] == "invalid"
    assert "expected 42, got 41" in p.loc["selftest.wrong", "reason"]
    assert p.loc["bindings.point_query", "status"] == "not_applicable"
    assert "no Haskell implementation of bindings.point_query" in p.loc["bindings.point_query", "reason"]


def test_haskell_postgresql_bindings_against_a_throwaway_server(tmp_path):
    need_haskell()
    require_family("postgresql")
    run_dir, _ = run(tmp_path, "--benchmarks", "bindings.select_fold,bindings.select_all", "--engines",
                     "postgresql/hdbc,postgresql/simple", "--runtimes", "haskell", "--processes", "1",
                     "--iterations", "2")
    p = store.load_process_records([run_dir])
    assert set(p["status"]) == {"ok"}, p[["benchmark", "engine", "status", "reason"]]
    df = store.load_runs([run_dir])
    assert set(df["engine"]) == {"postgresql/hdbc", "postgresql/simple"}
    assert df["check_ok"].all() and (df["crossings"] == N).all()
    m = store.read_manifest(run_dir)
    assert m["engines"]["postgresql/simple@haskell"]["versions"]["server"].startswith("PostgreSQL ")
    assert m["engines"]["postgresql/hdbc@haskell"]["versions"]["server"].startswith("PostgreSQL ")


def test_haskell_build_cache_is_reused():
    need_haskell("haskell-O0")
    first = launcher.build("haskell-O0")
    again = launcher.build("haskell-O0")
    assert again.info["cached"] is True and again.binary == first.binary
    assert again.info["key"] == first.info["key"] and again.info["build_seconds"] > 0
    assert again.binary.stat().st_mtime_ns == first.binary.stat().st_mtime_ns, "reused, not rebuilt"
    meta = json.loads(first.binary.with_name(first.binary.name + ".json").read_text())
    assert meta["flags"] == "-O0" and meta["ghc_version"] and meta["packages"]["acid-state"]


def test_haskell_probe_reports_versions_of_each_engine():
    need_haskell()
    acid = probe("acidstate/acid-state", "haskell")
    assert acid["available"], acid["reason"]
    assert "acid-state" in acid["versions"]["driver"] and "ixset" in acid["versions"]["driver"]
    assert set(acid["capabilities"]["benchmarks"]) == {"app.insert_user", "app.list_users", "app.insert_item",
                                                       "app.query_user"}
    hdbc = probe("sqlite/hdbc", "haskell")
    assert hdbc["available"] and hdbc["versions"]["sqlite"] and hdbc["build"]["ghc_version"]
    assert "app.list_users" in hdbc["capabilities"]["benchmarks"]
    assert "bindings.select_fold" in hdbc["capabilities"]["benchmarks"]


def test_missing_ghc_makes_haskell_cells_skip_with_the_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("CROSSINGS_GHC", "/nonexistent/ghc")
    monkeypatch.setenv("CROSSINGS_HASKELL_CACHE", str(tmp_path))
    info = probe("sqlite/hdbc", "haskell")
    assert info["available"] is False
    assert info["reason"].startswith("not available on haskell: no Haskell compiler")
    assert "libghc-hdbc-sqlite3-dev" in info["reason"]


@pytest.mark.parametrize("engine, runtime", [("sqlite/hdbc", "cpython"), ("acidstate/acid-state", "pypy"),
                                             ("sqlite/sqlite3", "haskell"), ("sqlite/native-c", "haskell-O0")])
def test_haskell_impossible_pairs_are_unavailable_with_a_reason(engine, runtime):
    info = probe(engine, runtime)
    assert info["available"] is False
    assert info["reason"].startswith(f"not available on {runtime}: ")


def _worker(tmp_path: Path, engine: str, benchmark: str, params: dict, iterations: int = 3) -> dict:
    """One Haskell worker process on a spec written here, as the runner would start it."""
    workdir = tmp_path / f"{engine.replace('/', '_')}-{benchmark}-{params.get('corpus', '')}"
    workdir.mkdir()
    spec = {"benchmark": benchmark, "params": params, "engine": engine, "engine_config": {},
            "iterations": iterations, "budget_s": None, "min_iterations": 2, "process": 0, "seed": 1,
            "workdir": str(workdir), "data": {}}
    (workdir / "spec.json").write_text(json.dumps(spec))
    argv = launcher.worker_argv("haskell", engine, str(workdir / "spec.json"), str(workdir / "result.json"))
    subprocess.run(argv, check=True, timeout=300)
    assert not list(workdir.glob("result.json.tmp*")), "written via a temporary file and renamed"
    return json.loads((workdir / "result.json").read_text())


@pytest.mark.parametrize("engine", ["acidstate/acid-state", "sqlite/hdbc"])
@pytest.mark.parametrize("benchmark", ["app.insert_user", "app.list_users", "app.insert_item", "app.query_user"])
def test_haskell_e5_operations_pass_their_checks(tmp_path, engine, benchmark):
    need_haskell()
    out = _worker(tmp_path, engine, benchmark, {"corpus": "MD", "hash": "off"})
    assert out["status"] == "ok", out["reason"]
    assert out["check_ok"] == [True] * 3 and len(out["wall_ns"]) == 3
    assert out["runtime"].startswith("haskell-O2-ghc")
    if benchmark == "app.list_users" and engine == "sqlite/hdbc":
        assert out["crossings"] == [1 + 1000] * 3 and out["values_converted"] == [3 * 1000] * 3


def test_haskell_e5_scrypt_hash_is_made_and_verified(tmp_path):
    need_haskell()
    out = _worker(tmp_path, "acidstate/acid-state", "app.insert_user", {"corpus": "SM", "hash": "on"}, iterations=2)
    assert out["status"] == "ok", out["reason"]
    plain = _worker(tmp_path, "sqlite/hdbc", "app.insert_user", {"corpus": "LG2", "hash": "off"}, iterations=2)
    assert plain["status"] == "ok", plain["reason"]
    assert min(out["wall_ns"]) > 0 and min(plain["wall_ns"]) > 0


def test_haskell_e5_on_postgresql_through_hdbc(tmp_path):
    need_haskell()
    require_family("postgresql")
    from harness.run.servers import run_servers

    with run_servers(["postgresql/hdbc"], progress=False) as configs:
        config = configs["postgresql/hdbc"]
        assert config.get("dsn"), config.get("unavailable")
        for benchmark in ("app.insert_user", "app.list_users", "app.insert_item", "app.query_user"):
            workdir = tmp_path / benchmark
            workdir.mkdir()
            spec = {"benchmark": benchmark, "params": {"corpus": "LG2"}, "engine": "postgresql/hdbc",
                    "engine_config": config, "iterations": 2, "budget_s": None, "min_iterations": 2,
                    "process": 0, "seed": 1, "workdir": str(workdir), "data": {}}
            (workdir / "spec.json").write_text(json.dumps(spec))
            argv = launcher.worker_argv("haskell", "postgresql/hdbc", str(workdir / "spec.json"),
                                        str(workdir / "result.json"))
            subprocess.run(argv, check=True, timeout=300)
            out = json.loads((workdir / "result.json").read_text())
            assert out["status"] == "ok" and out["check_ok"] == [True, True], (benchmark, out["reason"])
