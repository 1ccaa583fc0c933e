"""PostgreSQL and MariaDB as real engines: throwaway servers, user DSNs, cleanup, secrets.

Real servers only: the tests start throwaway instances (Debian's postgresql and mariadb-server)
and run the E1 study on psycopg, pymysql and mysqlclient. Without them the tests skip with the
reason; with CROSSINGS_REQUIRE_SERVERS=1 (CI) a missing server fails instead.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, harness, last_line
from helpers_servers import grep_tree, leftovers, processes_mentioning, require_family

KNOWN_PW = "Kn0wnPassw0rdForTests7731"
WRONG_PW = "Wr0ngPassw0rdForTests4419"
E1_ENGINES = ("postgresql/psycopg", "mariadb/pymysql", "mariadb/mysqlclient")


# -- fixtures ---------------------------------------------------------------------------------------

@pytest.fixture()
def private_tmp():
    """A TMPDIR for one harness run, traversable (0711) by the servers' unprivileged users."""
    path = Path(tempfile.mkdtemp(prefix="servertest-", dir="/tmp"))
    os.chmod(path, 0o711)
    yield path
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def env_with_tmp(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROSSINGS_") or k == "CROSSINGS_REQUIRE_SERVERS"}
    env["TMPDIR"] = str(tmp)
    env.update(extra)
    return env


def assert_clean(tmp: Path) -> None:
    """No server or worker process mentions the run's TMPDIR, and nothing is left in it."""
    marker = f"{tmp}/crossings-"
    deadline = time.monotonic() + 10
    while processes_mentioning(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_mentioning(marker) == []
    assert leftovers(tmp) == []


@pytest.fixture(scope="module")
def pg_server():
    """A throwaway PostgreSQL with a known password, used as "the user's server" by DSN tests."""
    require_family("postgresql")
    from harness.run.servers import throwaway

    with throwaway("postgresql", password=KNOWN_PW) as server:
        yield server
    assert not server.record.get("directory") or not Path(server.record["directory"]).exists()


@pytest.fixture(scope="module")
def maria_server():
    require_family("mariadb")
    from harness.run.servers import throwaway

    with throwaway("mariadb", password=KNOWN_PW) as server:
        yield server


def records(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "processes").glob("*.json"))]


def statuses(run_dir: Path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for r in records(run_dir):
        out.setdefault(r["engine"], set()).add(r["status"])
    return out


def wait_for(pred, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# -- availability without servers -------------------------------------------------------------------

def test_list_says_why_a_server_engine_cannot_run():
    env = dict(os.environ, CROSSINGS_POSTGRESQL_BIN="/nonexistent", CROSSINGS_MARIADB_BIN="/nonexistent")
    env.pop("CROSSINGS_POSTGRESQL_DSN", None)
    env.pop("CROSSINGS_MARIADB_DSN", None)
    out = harness("list", env=env).stdout

    def row(engine: str) -> str:
        """The engine's row of the table, its wrapped continuation lines joined."""
        lines = out.splitlines()
        i = next(k for k, line in enumerate(lines) if line.startswith(engine + " "))
        rest = [line for line in lines[i + 1:]]
        more = next((k for k, line in enumerate(rest) if not line.startswith(" ")), len(rest))
        return " ".join(" ".join([lines[i], *rest[:more]]).split())

    pg = row("postgresql/psycopg")
    assert "unavailable" in pg and "postgresql binaries not found: install Debian's postgresql, or give --dsn" in pg
    for engine in ("mariadb/pymysql", "mariadb/mysqlclient"):
        assert "mariadb binaries not found" in row(engine)


def test_missing_server_skips_its_cells_and_the_run_goes_on(tmp_path, private_tmp):
    env = env_with_tmp(private_tmp, CROSSINGS_POSTGRESQL_BIN="/nonexistent")
    proc = harness("run", "--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines",
                   "sqlite/sqlite3,postgresql/psycopg", "--out", str(tmp_path), "--no-progress", env=env)
    run_dir = Path(last_line(proc.stdout))
    st = statuses(run_dir)
    assert st["sqlite/sqlite3"] == {"ok"}
    assert st["postgresql/psycopg"] == {"skipped"}
    reasons = {r["reason"] for r in records(run_dir) if r["engine"] == "postgresql/psycopg"}
    assert any("postgresql binaries not found" in r for r in reasons), reasons
    assert "skipping cells: " in proc.stderr
    assert_clean(private_tmp)


def test_unreachable_dsn_skips_with_a_reason_and_no_password(tmp_path, private_tmp):
    pytest.importorskip("psycopg")
    dsn = f"postgresql://nobody:{WRONG_PW}@127.0.0.1:1/nothing"
    proc = harness("run", "--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines",
                   "sqlite/sqlite3,postgresql/psycopg", "--dsn", f"postgresql={dsn}", "--out", str(tmp_path),
                   "--no-progress", env=env_with_tmp(private_tmp))
    run_dir = Path(last_line(proc.stdout))
    assert statuses(run_dir) == {"sqlite/sqlite3": {"ok"}, "postgresql/psycopg": {"skipped"}}
    reason = [r["reason"] for r in records(run_dir) if r["engine"] == "postgresql/psycopg"][0]
    assert "cannot connect" in reason and "127.0.0.1" in reason
    assert WRONG_PW not in proc.stdout + proc.stderr
    assert grep_tree(run_dir, WRONG_PW) == []
    assert leftovers(private_tmp) == []  # nothing was started for a user's DSN


# -- throwaway servers -----------------------------------------------------------------------------

def test_e1_smoke_on_all_three_drivers_then_nothing_is_left(tmp_path, private_tmp):
    require_family("postgresql")
    require_family("mariadb")
    # the throwaway servers get a known password here, so the run directory can be searched for it
    env = env_with_tmp(private_tmp, CROSSINGS_THROWAWAY_PASSWORD=KNOWN_PW)
    proc = harness("run", "--profile", "smoke", "--benchmarks", "bindings.*", "--engines", "postgresql/*,mariadb/*",
                   "--out", str(tmp_path), "--no-progress", env=env, timeout=300)
    run_dir = Path(last_line(proc.stdout))
    st = statuses(run_dir)
    assert st == {e: {"ok"} for e in E1_ENGINES}, [r.get("reason") for r in records(run_dir)]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    servers = {s["family"]: s for s in manifest["servers"]}
    for family in ("postgresql", "mariadb"):
        s = servers[family]
        assert s["source"] == "throwaway" and s["settings_name"] == "throwaway-default"
        assert s["start_s"] > 0 and s["stop_s"] >= 0 and s["started"] and s["stopped"]
        assert s["exit_status"] == 0
    pg = manifest["engines"]["postgresql/psycopg@cpython"]
    assert pg["available"] and pg["capabilities"]["pq_impl"] in ("c", "binary")
    assert pg["server"]["settings"]["fsync"] == "on" and pg["server"]["transport"].startswith("unix socket")
    assert pg["versions"]["server"].startswith("PostgreSQL ")
    for engine in ("mariadb/pymysql", "mariadb/mysqlclient"):
        info = manifest["engines"][f"{engine}@cpython"]
        assert info["server"]["settings"]["innodb_flush_log_at_trx_commit"] == 1
        assert info["server"]["transport"].startswith("unix socket")
        assert info["versions"]["server"].startswith("MariaDB ")
    # the throwaway password never reaches the run directory (the DSN holds it; only redacted forms may appear)
    assert KNOWN_PW not in proc.stdout + proc.stderr
    assert grep_tree(run_dir, KNOWN_PW) == []
    assert_clean(private_tmp)


@pytest.mark.parametrize("when", ["during_start", "during_run"])
def test_ctrl_c_stops_the_servers(tmp_path, private_tmp, when):
    require_family("postgresql")
    require_family("mariadb")
    marker = f"{private_tmp}/crossings-"
    run = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "--profile", "smoke", "--benchmarks", "bindings.select_fold",
         "--engines", "postgresql/*,mariadb/pymysql", "--param", "n=200000", "--iterations", "50",
         "--out", str(tmp_path), "--no-progress"],
        cwd=ROOT, env=env_with_tmp(private_tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if when == "during_start":
            wait_for(lambda: any("postgres" in c or "mariadb" in c for _, c in processes_mentioning(marker)), 60,
                     "a server process")
        else:
            wait_for(lambda: any("spec.json" in c for _, c in processes_mentioning(marker)), 90,
                     "a worker process")
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=90)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 130, err
    assert_clean(private_tmp)
    if when == "during_run":
        run_dir = next(tmp_path.iterdir())
        manifest = json.loads((run_dir / "manifest.json").read_text())
        assert manifest["status"] == "interrupted"
        assert {s["family"] for s in manifest["servers"] if s.get("stopped")} == {"postgresql", "mariadb"}


def test_a_killed_worker_fails_its_process_and_the_servers_still_stop(tmp_path, private_tmp):
    require_family("postgresql")
    marker = f"{private_tmp}/crossings-"
    run = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "--profile", "smoke", "--benchmarks", "bindings.select_fold",
         "--engines", "postgresql/psycopg", "--param", "n=100000", "--iterations", "30", "--processes", "2",
         "--out", str(tmp_path), "--no-progress"],
        cwd=ROOT, env=env_with_tmp(private_tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        workers = wait_for(lambda: [p for p, c in processes_mentioning(marker) if "spec.json" in c], 90,
                           "a worker process")
        os.kill(workers[0], signal.SIGKILL)
        out, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 1, err  # the killed process failed: exit status 1, the run completed
    run_dir = Path(last_line(out))
    recs = records(run_dir)
    assert [r["status"] for r in recs].count("failed") == 1
    failed = [r for r in recs if r["status"] == "failed"][0]
    assert "killed by signal 9" in failed["reason"]
    assert_clean(private_tmp)


# -- the user's server by DSN ----------------------------------------------------------------------

def pg_dsn(server, password: str) -> str:
    return f"postgresql://crossings:{password}@/postgres?host={server.dir}&port={server.port}"


def maria_dsn(server, password: str) -> str:
    return f"mariadb://crossings:{password}@localhost/crossings?unix_socket={server.sock}"


def test_user_dsns_are_used_never_stopped_and_their_password_never_stored(tmp_path, private_tmp, pg_server,
                                                                           maria_server):
    env = env_with_tmp(private_tmp, CROSSINGS_MARIADB_DSN=maria_dsn(maria_server, KNOWN_PW))
    proc = harness("run", "--profile", "smoke", "--benchmarks", "bindings.*", "--engines",
                   "postgresql/*,mariadb/*", "--dsn", f"postgresql={pg_dsn(pg_server, KNOWN_PW)}",
                   "--out", str(tmp_path), "--no-progress", env=env, timeout=300)
    run_dir = Path(last_line(proc.stdout))
    assert statuses(run_dir) == {e: {"ok"} for e in E1_ENGINES}
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert {s["source"] for s in manifest["servers"]} == {"user"}
    assert manifest["engines"]["postgresql/psycopg@cpython"]["source"] == "user"
    assert KNOWN_PW not in proc.stdout + proc.stderr
    assert grep_tree(run_dir, KNOWN_PW) == []
    assert "***" in manifest["command"]  # the --dsn on the command line is recorded redacted
    assert leftovers(private_tmp) == []  # nothing started
    assert pg_server.proc.poll() is None and maria_server.proc.poll() is None  # nor stopped


def test_wrong_password_skips_cells_with_a_reason_that_holds_no_password(tmp_path, private_tmp, pg_server,
                                                                         maria_server):
    proc = harness("run", "--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines",
                   "sqlite/sqlite3,postgresql/*,mariadb/*",
                   "--dsn", f"postgresql={pg_dsn(pg_server, WRONG_PW)}",
                   "--dsn", f"mariadb={maria_dsn(maria_server, WRONG_PW)}",
                   "--out", str(tmp_path), "--no-progress", env=env_with_tmp(private_tmp), timeout=300)
    run_dir = Path(last_line(proc.stdout))
    st = statuses(run_dir)
    assert st["sqlite/sqlite3"] == {"ok"}
    for engine in E1_ENGINES:
        assert st[engine] == {"skipped"}
    reasons = {r["engine"]: r["reason"] for r in records(run_dir) if r["status"] == "skipped"}
    assert "password authentication failed" in reasons["postgresql/psycopg"]
    assert "Access denied" in reasons["mariadb/pymysql"] and "Access denied" in reasons["mariadb/mysqlclient"]
    assert WRONG_PW not in proc.stdout + proc.stderr
    assert grep_tree(run_dir, WRONG_PW) == []
    assert pg_server.proc.poll() is None and maria_server.proc.poll() is None


def test_a_sigkilled_harness_takes_its_servers_along_and_the_next_run_sweeps_their_directory(tmp_path,
                                                                                              private_tmp):
    require_family("postgresql")
    marker = f"{private_tmp}/crossings-"
    argv = [sys.executable, "-m", "harness", "run", "--profile", "smoke", "--benchmarks", "bindings.select_fold",
            "--engines", "postgresql/psycopg", "--out", str(tmp_path), "--no-progress"]
    run = subprocess.Popen(argv + ["--param", "n=100000", "--iterations", "30"], cwd=ROOT, env=env_with_tmp(private_tmp),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: any("spec.json" in c for _, c in processes_mentioning(marker)), 90, "a worker process")
    finally:
        run.kill()  # SIGKILL: no cleanup code of the harness runs
        run.wait()
    for pid, cmd in processes_mentioning(marker):
        if "spec.json" in cmd:  # the runner's orphaned worker (its own session): not the servers' business
            os.kill(pid, signal.SIGKILL)
    # PR_SET_PDEATHSIG: the server got its shutdown signal when the harness died
    wait_for(lambda: not processes_mentioning(f"{private_tmp}/crossings-postgresql-"), 30, "the server to stop")
    assert [d for d in leftovers(private_tmp) if d.startswith("crossings-postgresql-")]
    proc = harness(*argv[3:], env=env_with_tmp(private_tmp), timeout=300)
    assert "removed a stale throwaway server directory" in proc.stderr
    assert [d for d in leftovers(private_tmp) if not d.startswith("crossings-worker-")] == []
    assert processes_mentioning(marker) == []
