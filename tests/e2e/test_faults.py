"""Fault matrix, the part that needs real processes: exit statuses, disk full, SIGKILL and resume,
concurrent runs on shared data, locks, and what killed runs leave behind. Each case asserts the
exit status, a one-line message (no traceback), no finished process lost, and no leftovers."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, harness, last_line, one_line_error, record_matrix
from harness import store

SMOKE = ["run", "--profile", "smoke", "--processes", "2", "--engines", "sqlite/sqlite3", "--no-progress"]


def _env(tmp: Path) -> dict[str, str]:
    tmp.mkdir(exist_ok=True)
    return dict(os.environ, TMPDIR=str(tmp))


def _leftovers(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir())


def _hidden_temps(run_dir: Path) -> list[str]:
    return sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob(".*"))


def _run(args: list[str], tmp: Path, **kw) -> subprocess.CompletedProcess:
    return harness(*args, check=False, env=_env(tmp), **kw)


@pytest.mark.parametrize("case,args,exit_status,summary", [
    ("every process errors", ["--benchmarks", "selftest.crash"], 1, "2 error; nothing was measured"),
    ("every answer wrong", ["--benchmarks", "selftest.wrong"], 1, "2 invalid; nothing was measured"),
    ("every process times out", ["--benchmarks", "selftest.sleep", "--param", "seconds=3", "--timeout", "1",
                                 "--iterations", "2"], 1, "2 timeout; nothing was measured"),
    ("one cell fails, one measures", ["--benchmarks", "selftest.crash,bindings.select_fold"], 1, "2 error"),
    ("all measured", ["--benchmarks", "bindings.select_fold"], 0, None),
])
def test_exit_status_says_what_was_measured(case, args, exit_status, summary, tmp_path):
    proc = _run(SMOKE + ["--out", str(tmp_path / "runs"), *args], tmp_path / "tmp")
    assert proc.returncode == exit_status, proc.stderr
    if case == "every process times out":  # the first timeout ends the cell: its second process never starts
        recs = store.load_process_records([Path(proc.stdout.strip().splitlines()[-1])]).sort_values("seq")
        assert list(recs["status"]) == ["timeout", "timeout"]
        assert "killed" in recs["reason"].iloc[0] and recs["reason"].iloc[1].startswith("not started: process 0")
    assert "Traceback" not in proc.stderr
    run_dir = Path(last_line(proc.stdout))
    assert (run_dir / "manifest.json").exists(), "the last stdout line is the run directory"
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith(f"run {run_dir.name} complete: 2 of 2") or "of" in lines[0]
    assert len(lines) <= 24, "the status summary fits one screen"
    if summary:
        assert lines[-1] == f"exit status 1: {summary}", proc.stderr
    assert _leftovers(tmp_path / "tmp") == [] and _hidden_temps(run_dir) == []
    record_matrix("fault (e2e)", f"exit status: {case}", proc.returncode, lines[-1])


def test_not_applicable_cells_are_skipped_by_design(tmp_path):
    """DuckDB has no Python aggregates: its cell is not applicable, the run still exits 0."""
    proc = _run(["run", "--profile", "smoke", "--benchmarks", "micro.pyaggregate", "--engines",
                 "sqlite/sqlite3,duckdb", "--processes", "1", "--iterations", "2", "--out", str(tmp_path / "runs"),
                 "--no-progress"], tmp_path / "tmp")
    assert proc.returncode == 0, proc.stderr
    assert "not applicable 1" in proc.stderr and "measured 1" in proc.stderr
    record_matrix("fault (e2e)", "exit status: a not-applicable cell beside a measured one", 0,
                  proc.stderr.strip().splitlines()[1])


#: password -> the DSN that holds it (an unreachable server), each a form the redaction regex alone
#: used to miss or cut short (issue 25)
UNREACHABLE_DSNS = {
    "URL, '@' in the password": ("s3cr@t-t@il", "postgresql://bench:{pw}@127.0.0.1:9/bench"),
    "URL, a space in the password": ("s3cr t-t@il", "postgresql://bench:{pw}@127.0.0.1:9/bench"),
    "key=value, '&' and ';' in the password": ("s3cr&t;t@il",
                                               "host=127.0.0.1 port=9 user=bench password={pw} dbname=bench"),
    "key=value, quoted, a quote and a space": ("s3cr\\'t t@il",
                                               "host=127.0.0.1 port=9 user=bench password='{pw}' dbname=bench"),
}


@pytest.mark.parametrize("case", list(UNREACHABLE_DSNS))
def test_unreachable_server_with_an_awkward_password_measures_nothing_and_leaks_nothing(case, tmp_path):
    secret, form = UNREACHABLE_DSNS[case]
    dsn = form.format(pw=secret)
    secret = secret.replace("\\'", "'")  # the password itself (the DSN escapes its quote)
    proc = _run(["run", "--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines",
                 "postgresql/psycopg", "--dsn", f"postgresql={dsn}", "--out", str(tmp_path / "runs"),
                 "--no-progress"], tmp_path / "tmp")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "exit status 1: nothing was measured"
    run_dir = Path(last_line(proc.stdout))
    stored = "".join(p.read_text() for p in run_dir.rglob("*.json")) + proc.stderr + proc.stdout
    for piece in (secret, "t@il", "s3cr"):
        assert piece not in stored, f"{piece!r} of the password reached a file or the terminal"
    assert _leftovers(tmp_path / "tmp") == []
    record_matrix("fault (e2e)", f"server unreachable, {case} (nothing measured, nothing leaked)", 1,
                  proc.stderr.strip().splitlines()[-1])


@pytest.fixture
def small_disk(tmp_path):
    """A 400 KB tmpfs: a real disk that fills up (needs the right to mount, e.g. root)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root): the disk-full case is not tested")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_disk_full_stops_with_one_line_and_resume_finishes(small_disk, tmp_path):
    args = SMOKE + ["--benchmarks", "selftest.sleep", "--param", "seconds=0.000001", "--iterations", "20000",
                    "--processes", "5", "--budget", "0", "--out", str(small_disk)]
    proc = _run(args, tmp_path / "tmp")
    line = one_line_error(proc.stderr)
    assert proc.returncode == 1
    assert "No space left on device" in line and "--resume" in line, line
    run_dir = Path(last_line(proc.stdout))
    done = store.count_statuses(run_dir)
    assert 1 <= done.get("ok", 0) < 5
    m = store.read_manifest(run_dir)
    assert m["status"] in ("stopped", "running"), m["status"]  # running: the disk was too full for the manifest
    assert _hidden_temps(run_dir) == [], "a half-written file was left in the run directory"
    rows_before = len(store.load_runs([run_dir])) if m["status"] == "stopped" else None
    subprocess.run(["mount", "-o", "remount,size=4m", str(small_disk)], check=True)
    resumed = _run(["run", "--resume", str(run_dir), "--no-progress"], tmp_path / "tmp")
    assert resumed.returncode == 0, resumed.stderr
    m = store.read_manifest(run_dir)
    assert m["status"] == "complete" and m["process_counts"] == {"ok": 5}
    assert [s["status"] for s in m["segments"]][-1] == "complete"
    raw = store.load_runs([run_dir])
    assert len(raw) == 5 * 20000 and (rows_before is None or rows_before <= len(raw))
    assert _leftovers(tmp_path / "tmp") == [] and _hidden_temps(run_dir) == []
    record_matrix("fault (e2e)", "disk full mid-run, then resume", proc.returncode, line, 0, 0)


def _wait_for_records(run_parent: Path, n: int, timeout: float = 90) -> Path:
    deadline = time.time() + timeout
    while time.time() < deadline:
        for d in run_parent.glob("*"):
            if len(list((d / "processes").glob("*.json"))) >= n:
                return d
        time.sleep(0.05)
    raise AssertionError("the run made no progress")


def test_sigkill_then_resume_counts_right_and_sweeps_temp_files(tmp_path):
    tmp = tmp_path / "tmp"
    out = tmp_path / "runs"
    cmd = [sys.executable, "-m", "harness", *SMOKE, "--benchmarks", "selftest.sleep", "--param", "seconds=0.2",
           "--processes", "6", "--iterations", "2", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    run_dir = _wait_for_records(out, 2)
    proc.kill()  # SIGKILL: no cleanup code runs
    proc.communicate()
    done_before = store.count_statuses(run_dir)
    assert [p for p in _leftovers(tmp) if p.startswith("crossings-run-")], "expected the killed run's temp dir"
    resumed = _run(["run", "--resume", str(run_dir), "--no-progress"], tmp)
    assert resumed.returncode == 0, resumed.stderr
    m = store.read_manifest(run_dir)
    assert m["process_counts"] == {"ok": 6}, m["process_counts"]  # recounted, not added
    assert len(m["segments"]) == 1 and m["segments"][0]["status"] == "complete"  # the killed one wrote none
    assert all(k in m["segments"][0] for k in ("commit", "dirty", "started", "ended"))
    assert len(store.load_runs([run_dir])) == 12
    assert sum(done_before.values()) >= 2
    assert _leftovers(tmp) == [], "the killed run's temp dir was not swept"
    assert _hidden_temps(run_dir) == []
    record_matrix("fault (e2e)", "SIGKILL mid-run, then resume (counts recounted)", resumed.returncode,
                  resumed.stderr.strip().splitlines()[0], 0, 0)


def test_sigkill_twice_and_resume_twice_keeps_counts_right(tmp_path):
    tmp = tmp_path / "tmp"
    out = tmp_path / "runs"
    cmd = [sys.executable, "-m", "harness", *SMOKE, "--benchmarks", "selftest.sleep", "--param", "seconds=0.2",
           "--processes", "8", "--iterations", "2", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    run_dir = _wait_for_records(out, 2)
    proc.kill()
    proc.communicate()
    again = subprocess.Popen([sys.executable, "-m", "harness", "run", "--resume", str(run_dir), "--no-progress"],
                             cwd=ROOT, env=_env(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    start = len(list((run_dir / "processes").glob("*.json")))
    while time.time() < deadline and len(list((run_dir / "processes").glob("*.json"))) < start + 2:
        time.sleep(0.05)
    again.send_signal(signal.SIGINT)
    again.communicate(timeout=60)
    assert again.returncode == 130
    m = store.read_manifest(run_dir)
    assert m["status"] == "interrupted" and m["process_counts"] == store.count_statuses(run_dir)
    final = _run(["run", "--resume", str(run_dir), "--no-progress"], tmp)
    assert final.returncode == 0, final.stderr
    m = store.read_manifest(run_dir)
    assert m["process_counts"] == {"ok": 8} and [s["status"] for s in m["segments"]] == ["interrupted", "complete"]
    assert len(store.load_runs([run_dir])) == 16
    assert _leftovers(tmp) == [] and _hidden_temps(run_dir) == []
    record_matrix("fault (e2e)", "SIGKILL, resume, Ctrl-C, resume (counts recounted each time)", 0,
                  final.stderr.strip().splitlines()[0], 0, 0)


def test_resume_of_a_running_run_is_refused(tmp_path):
    tmp = tmp_path / "tmp"
    out = tmp_path / "runs"
    cmd = [sys.executable, "-m", "harness", *SMOKE, "--benchmarks", "selftest.sleep", "--param", "seconds=0.3",
           "--processes", "6", "--iterations", "2", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        run_dir = _wait_for_records(out, 1)
        second = _run(["run", "--resume", str(run_dir), "--no-progress"], tmp)
    finally:
        stdout, _ = proc.communicate(timeout=120)
    line = one_line_error(second.stderr)
    assert second.returncode == 2 and "in use by another harness run" in line
    assert proc.returncode == 0
    m = store.read_manifest(run_dir)
    assert m["status"] == "complete" and m["process_counts"] == {"ok": 6}
    assert _leftovers(tmp) == []
    record_matrix("fault (e2e)", "resume while the run is still running", second.returncode, line)


def test_two_concurrent_runs_share_the_duckdb_data_set(tmp_path):
    """Workers open the prepared duckdb.db read-only: concurrent runs never fail on its lock."""
    harness("data", "tpch", "--sf", "0.01", "--engine", "duckdb", "--quiet", timeout=900)
    tmp = tmp_path / "tmp"
    args = ["run", "--profile", "smoke", "--benchmarks", "tpch.q01,tpch.q06,micro.select", "--engines", "duckdb",
            "--processes", "4", "--iterations", "2", "--no-progress"]
    procs = [subprocess.Popen([sys.executable, "-m", "harness", *args, "--out", str(tmp_path / f"runs{i}")],
                              cwd=ROOT, env=_env(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    results = [p.communicate(timeout=900) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        run_dir = Path(last_line(out))
        assert store.read_manifest(run_dir)["process_counts"] == {"ok": 12}
    assert _leftovers(tmp) == []
    record_matrix("fault (e2e)", "two concurrent runs of tpch/micro on duckdb's shared data set", 0,
                  results[0][1].strip().splitlines()[-1])


def test_stale_temp_files_of_killed_runs_are_swept(tmp_path):
    """What SIGKILL leaves in TMPDIR (a run's temp dir with a probe file holding a DSN, a legacy
    loose probe file, a legacy worker dir) is removed by the next run; live runs' files are kept."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    dead = tmp / "crossings-run-999999999-abc"
    dead.mkdir(mode=0o700)
    (dead / "probe-x.json").write_text(json.dumps({"dsn": "postgresql://u:pw@h/db"}))
    legacy_probe = tmp / "crossings-probe-old.json"
    legacy_probe.write_text("{}")
    os.utime(legacy_probe, (time.time() - 3600, time.time() - 3600))
    legacy_worker = tmp / "crossings-worker-999999998-x"
    legacy_worker.mkdir()
    alive = tmp / f"crossings-run-{os.getpid()}-mine"
    alive.mkdir()
    proc = _run(SMOKE + ["--benchmarks", "bindings.select_fold", "--out", str(tmp_path / "runs")], tmp)
    assert proc.returncode == 0, proc.stderr
    assert _leftovers(tmp) == [alive.name]
    record_matrix("fault (e2e)", "temp dir and probe file of a SIGKILLed run swept by the next run", 0,
                  proc.stderr.strip().splitlines()[0], 0, 0)


def test_unstarted_run_dir_and_stale_cache_temps_are_swept(tmp_path):
    """A run directory without plan or manifest (killed while starting) and a TPC-H build temp of a
    killed loader are removed by the next run; nothing else is touched."""
    from harness.run.datasets.tpch import sf_dir

    out = tmp_path / "runs"
    stale = out / "20200101-000000-dead00"
    (stale / "processes").mkdir(parents=True)
    (stale / "timings").mkdir()
    cache = sf_dir(0.01)
    cache.mkdir(parents=True, exist_ok=True)
    csv_tmp = cache / ".csv-postgresql.tmp-999999999"
    csv_tmp.mkdir(exist_ok=True)
    (csv_tmp / "lineitem.csv").write_text("1|2\n")
    proc = _run(["run", "--profile", "smoke", "--benchmarks", "tpch.q06", "--engines", "sqlite/sqlite3",
                 "--processes", "1", "--iterations", "2", "--out", str(out), "--no-progress"], tmp_path / "tmp")
    assert proc.returncode == 0, proc.stderr
    assert not stale.exists() and not csv_tmp.exists()
    assert [p.name for p in out.iterdir()] == [Path(last_line(proc.stdout)).name]
    record_matrix("fault (e2e)", "unstarted run dir and a killed loader's cache temp swept", 0,
                  proc.stderr.strip().splitlines()[-1], 0, 0)


def test_three_notebook_commands_at_once(smoke_run, tmp_path):
    """Kernels talk over private Unix sockets: three `notebooks` at once never collide on a port."""
    procs = []
    for i in range(3):
        paper = tmp_path / f"paper{i}.md"
        shutil.copy(ROOT / "paper.md", paper)
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "harness", "notebooks", str(smoke_run), "--only", "bindings", "--paper", str(paper),
             "--figures", str(tmp_path / f"fig{i}"), "--executed", str(tmp_path / f"nb{i}")],
            cwd=ROOT, env=_env(tmp_path / "tmp"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = [p.communicate(timeout=900) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert "Traceback" not in err
    original = (ROOT / "paper.md").read_text()
    papers = {(tmp_path / f"paper{i}.md").read_text().replace(f"fig{i}/", "fig/") for i in range(3)}
    assert len(papers) == 1, "the three renderings of one run differ (beyond their figure folders)"
    assert papers.pop() != original and all(any((tmp_path / f"fig{i}").iterdir()) for i in range(3))
    assert _leftovers(tmp_path / "tmp") == []
    record_matrix("fault (e2e)", "three `harness notebooks` at once", 0, "all three exit 0, identical papers")


def test_make_run_style_report_changes_no_tracked_file(smoke_run):
    """`harness notebooks RUN` (what `make run` calls) renders into RUN/report, never paper.md or figures/."""
    def tracked_state() -> str:
        return subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "paper.md", "figures"],
                              cwd=ROOT, capture_output=True, text=True).stdout

    before = tracked_state()
    proc = harness("notebooks", str(smoke_run), "--only", "bindings")
    assert (smoke_run / "report" / "paper.md").exists() and any((smoke_run / "report" / "figures").iterdir())
    assert tracked_state() == before
    record_matrix("fault (e2e)", "rendering a run's report (make run) leaves tracked files alone", proc.returncode,
                  proc.stderr.strip().splitlines()[-1])


def test_ctrl_c_while_a_resume_prepares_its_data_set_stops_cleanly(tmp_path):
    """Ctrl-C while a resume generates the TPC-H data it needs (a cache that does not hold it yet):
    exit 130, one line naming the resume command, no traceback, the manifest written whole, no
    half-made data set left in the cache; the next resume prepares it again and completes."""
    tmp = tmp_path / "tmp"
    out = tmp_path / "runs"
    args = ["run", "--profile", "smoke", "--benchmarks", "tpch.q06", "--engines", "sqlite/sqlite3",
            "--processes", "3", "--iterations", "1", "--out", str(out), "--no-progress"]
    first = subprocess.Popen([sys.executable, "-m", "harness", *args], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             env=dict(_env(tmp), CROSSINGS_TPCH_CACHE=str(tmp_path / "cache-first")))
    run_dir = None
    deadline = time.time() + 60
    while time.time() < deadline and run_dir is None:
        made = [d for d in out.glob("20*") if (d / "manifest.json").exists()] if out.exists() else []
        run_dir = made[0] if made else None
        time.sleep(0.01)
    assert run_dir is not None, "the run never made its directory"
    first.kill()  # an unfinished run (SIGKILL: nothing of it cleaned up)
    first.communicate()
    recorded = len(list((run_dir / "processes").glob("*.json")))
    assert recorded < 3

    cache = tmp_path / "cache-resume"  # empty: the resume must generate and load sf 0.01
    env = dict(_env(tmp), CROSSINGS_TPCH_CACHE=str(cache))
    resume = subprocess.Popen([sys.executable, "-m", "harness", "run", "--resume", str(run_dir)], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (cache / "sf0.01").exists():
        time.sleep(0.01)
    assert (cache / "sf0.01").exists(), "the resume never started preparing its data set"
    resume.send_signal(signal.SIGINT)
    stdout, stderr = resume.communicate(timeout=60)
    assert resume.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    line = stderr.strip().splitlines()[-1]
    assert line == ("interrupted: every finished process is stored; finish the run with: "
                    f"python -m harness run --resume {run_dir}"), stderr
    assert len(list((run_dir / "processes").glob("*.json"))) == recorded, "Ctrl-C landed after the preparation"
    m = store.read_manifest(run_dir)
    assert m["status"] == "interrupted" and m["segments"][-1]["status"] == "interrupted"
    assert store.read_plan(run_dir)["order"]
    sf_dir = cache / "sf0.01"
    assert not list(sf_dir.glob(".*.tmp-*")), "Ctrl-C left a half-made data set in the cache"
    assert (not (sf_dir / "parquet").exists()) or (sf_dir / "parquet" / "FINGERPRINT.json").exists()
    assert (not (sf_dir / "sqlite-noindexes.db").exists()) or (sf_dir / "sqlite-noindexes.db.json").exists()
    assert _hidden_temps(run_dir) == []

    final = harness("run", "--resume", str(run_dir), "--no-progress", check=False, env=env)
    assert final.returncode == 0, final.stderr
    m = store.read_manifest(run_dir)
    assert m["status"] == "complete" and m["process_counts"] == {"ok": 3}
    assert (sf_dir / "sqlite-noindexes.db.json").exists()
    assert _leftovers(tmp) == []
    record_matrix("fault (e2e)", "Ctrl-C while a resume prepares its data set, then resume", resume.returncode,
                  line, 0, 0)
