"""The protocol: P fresh processes x I iterations per cell, seeded interleaving, failures contained."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


from conftest import ROOT, harness, last_line
from harness import store
from harness.run.plan import interleave


def test_smoke_run_has_p_times_i_rows_per_cell_and_fresh_processes(smoke_run):
    df = store.load_runs([smoke_run])
    cells = df.groupby(["benchmark", "params", "engine", "runtime"])
    assert cells.ngroups == 9  # 3 benchmarks x 3 engines
    for _, g in cells:
        assert len(g) == 5 * 3
        assert g.groupby("process")["pid"].nunique().eq(1).all()
        assert g["pid"].nunique() == 5, "each process of a cell is a distinct fresh worker"
    assert df["pid"].nunique() == 45
    assert df["check_ok"].all()
    scans = df[df["benchmark"].isin(["bindings.select_fold", "bindings.select_all"])]
    assert (scans["crossings"] == 1000).all() and (scans["values_converted"] == 1000).all()
    points = df[df["benchmark"] == "bindings.point_query"]
    assert (points["crossings"] == 2000).all()
    assert (df["wall_ns"] > 0).all() and (df["cpu_ns"] >= 0).all()


def test_manifest_records_what_was_run(smoke_run):
    m = store.read_manifest(smoke_run)
    assert m["status"] == "complete"
    assert m["configuration"]["processes"] == 5 and m["configuration"]["iterations"] == 3
    assert m["machine"]["cpu"]["cores"] >= 1 and "loadavg_after" in m["machine"]
    engines = m["engines"]
    sqlite3_v = engines["sqlite/sqlite3@cpython"]["versions"]["sqlite"]
    apsw_v = engines["sqlite/apsw@cpython"]["versions"]["sqlite"]
    assert sqlite3_v and apsw_v  # each adapter reports the SQLite it links
    assert engines["duckdb@cpython"]["capabilities"]["aggregate_callbacks"] is False
    assert m["process_counts"]["ok"] == 45
    assert set(m["process_counts"]) <= {"ok", "skipped"}  # skipped: engine/runtime pairs that cannot run


def test_interleaving_is_a_seeded_permutation():
    a = interleave(5, 4, seed=1)
    assert sorted(a) == [(c, p) for c in range(5) for p in range(4)]
    assert a == interleave(5, 4, seed=1)
    assert a != interleave(5, 4, seed=2)
    assert a != sorted(a)


def test_run_order_follows_the_plan(smoke_run):
    plan = json.loads((smoke_run / "plan.json").read_text())
    assert [tuple(t[1:]) for t in plan["order"]] == interleave(len(plan["cells"]), 5, plan["seed"])
    records = store.load_process_records([smoke_run]).sort_values("started")
    assert records["seq"].tolist() == sorted(records["seq"].tolist())


def test_unknown_names_exit_2_and_list_valid_ones(tmp_path):
    p = harness("run", "--engines", "nosuchdb", "--out", str(tmp_path), check=False)
    assert p.returncode == 2
    assert "unknown engine nosuchdb" in p.stderr and "sqlite/apsw" in p.stderr
    assert "Traceback" not in p.stderr
    p = harness("run", "--benchmarks", "bindings.nope", "--out", str(tmp_path), check=False)
    assert p.returncode == 2
    assert "unknown benchmark" in p.stderr and "bindings.select_fold" in p.stderr
    p = harness("run", "--benchmarks", "bindings.*", "--param", "nn=3", "--out", str(tmp_path), check=False)
    assert p.returncode == 2 and "unknown parameter nn" in p.stderr and "queries" in p.stderr
    p = harness("run", "--benchmarks", "bindings.*", "--param", "n=abc", "--out", str(tmp_path), check=False)
    assert p.returncode == 2 and "expects a int" in p.stderr
    assert not any(tmp_path.iterdir()), "a refused run must leave no run directory behind"
    p = harness("summary", str(tmp_path / "missing"), check=False)
    assert p.returncode == 2 and "no such run directory" in p.stderr


def test_wrong_answer_crash_and_timeout_mark_their_cells(tmp_path):
    proc = harness("run", "--profile", "smoke", "--benchmarks", "selftest.wrong,selftest.crash,selftest.sleep",
                   "--engines", "sqlite/sqlite3", "--processes", "1", "--iterations", "2", "--param", "seconds=3",
                   "--timeout", "2", "--out", str(tmp_path), "--no-progress", check=False)
    assert proc.returncode == 1, proc.stderr  # cells failed: the run says so in its exit status
    assert "exit status 1: 1 timeout, 1 error, 1 invalid; nothing was measured" in proc.stderr
    run_dir = Path(last_line(proc.stdout))
    recs = store.load_process_records([run_dir]).set_index("benchmark")
    assert recs.loc["selftest.wrong", "status"] == "invalid"
    assert "expected 42, got 41" in recs.loc["selftest.wrong", "reason"]
    assert recs.loc["selftest.crash", "status"] == "error"
    assert "raised on purpose" in recs.loc["selftest.crash", "reason"]
    assert recs.loc["selftest.sleep", "status"] == "timeout"
    raw = store.load_runs([run_dir])
    assert not raw.loc[raw.benchmark == "selftest.wrong", "check_ok"].any()
    summary = harness("summary", str(run_dir), "--format", "csv").stdout
    assert "invalid" in summary and "timeout" in summary


def _worker_pids(marker: str, under: Path | None = None) -> list[int]:
    """Workers running `marker`; with `under`, only those whose spec lies there (the machine may
    be shared with other test sessions running the same benchmark)."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
            spec = [c for c in cmd if c.endswith(b"spec.json")]
            if under is not None and not spec[0].decode().startswith(str(under)):
                continue
            if any(b"harness.worker" in c for c in cmd) and spec and marker.encode() in Path(spec[0].decode()).read_bytes():
                pids.append(int(d.name))
        except (OSError, IndexError):
            continue
    return pids


def test_killed_worker_marks_its_cell_failed_and_the_run_completes(tmp_path):
    cmd = [sys.executable, "-m", "harness", "run", "--profile", "smoke", "--engines", "sqlite/sqlite3",
           "--benchmarks", "selftest.sleep,bindings.select_fold", "--param", "seconds=0.4", "--processes", "2",
           "--iterations", "3", "--out", str(tmp_path / "runs"), "--no-progress"]
    private_tmp = tmp_path / "tmp"  # only this run's workers are killed (the machine may be shared)
    private_tmp.mkdir()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, TMPDIR=str(private_tmp)))
    killed: list[int] = []

    def killer() -> None:
        deadline = time.time() + 60
        while time.time() < deadline and not killed:
            for pid in _worker_pids("selftest.sleep", private_tmp):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                break
            time.sleep(0.05)

    t = threading.Thread(target=killer)
    t.start()
    out, err = proc.communicate(timeout=120)
    t.join()
    assert proc.returncode == 1, err  # a failed process: exit status 1, the rest of the run completed
    assert killed, "no selftest.sleep worker was seen"
    run_dir = Path(last_line(out))
    recs = store.load_process_records([run_dir])
    sleep = recs[recs.benchmark == "selftest.sleep"]
    assert "failed" in set(sleep["status"])
    assert "killed by signal 9" in " ".join(sleep["reason"])
    fold = recs[recs.benchmark == "bindings.select_fold"]
    assert set(fold["status"]) == {"ok"} and len(fold) == 2
    assert store.read_manifest(run_dir)["status"] == "complete"


def test_ctrl_c_keeps_finished_processes_and_resume_completes(tmp_path):
    cmd = [sys.executable, "-m", "harness", "run", "--profile", "smoke", "--engines", "sqlite/sqlite3",
           "--benchmarks", "selftest.sleep", "--param", "seconds=0.3", "--processes", "6", "--iterations", "2",
           "--out", str(tmp_path), "--no-progress"]
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(private_tmp))
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 60
    run_dir = None
    while time.time() < deadline:
        dirs = [d for d in tmp_path.iterdir() if d.is_dir() and d != private_tmp]
        if dirs and len(list((dirs[0] / "processes").glob("*.json"))) >= 2:
            run_dir = dirs[0]
            break
        time.sleep(0.05)
    assert run_dir is not None
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    m = store.read_manifest(run_dir)
    assert m["status"] == "interrupted"
    done = len(list((run_dir / "processes").glob("*.json")))
    assert 2 <= done < 6
    assert not _worker_pids("selftest.sleep", private_tmp), "Ctrl-C left a worker running"
    assert list(private_tmp.iterdir()) == [], "Ctrl-C left the run's temp dir behind"
    harness("run", "--resume", str(run_dir), "--no-progress")
    assert store.read_manifest(run_dir)["status"] == "complete"
    raw = store.load_runs([run_dir])
    assert len(raw) == 12 and raw["process"].nunique() == 6


def test_stale_worker_dirs_of_dead_runners_are_swept(tmp_path):
    from harness.run.tempdir import PREFIX as WORKDIR_PREFIX
    from harness.run.tempdir import sweep_stale as sweep_stale_workdirs

    dead = tmp_path / f"{WORKDIR_PREFIX}999999999-abc"
    alive = tmp_path / f"{WORKDIR_PREFIX}{os.getpid()}-def"
    for d in (dead, alive):
        d.mkdir()
        (d / "spec.json").write_text("{}")
    assert sweep_stale_workdirs(tmp_path) == [dead]
    assert not dead.exists() and alive.exists()


def test_worker_side_imports_only_the_standard_library():
    """Workers run on PyPy 3.9 with only the driver under test: importing the worker, every
    engine adapter and every workload must pull in no third-party module."""
    code = ("import sys; from harness import worker, engines, workloads; workloads.all_workloads(); "
            "third = {'pandas', 'numpy', 'pyarrow', 'scipy', 'matplotlib', 'duckdb', 'apsw', 'psycopg', "
            "'pymysql', 'MySQLdb', 'pymongo', 'bson', 'tqdm', 'ruptures'}; print(sorted(third & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
