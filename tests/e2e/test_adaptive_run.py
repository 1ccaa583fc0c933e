"""`run --target-ci`: a real run that stops its cell when the interval meets the target."""
from __future__ import annotations

from pathlib import Path

from conftest import harness, last_line
from harness import store
from harness.analysis import stats
from harness.analysis.interference import drop_flagged_rows
from harness.analysis.planner import relative_half_width


def test_adaptive_run_stops_when_met_and_records_why(tmp_path):
    # processes differ by design (sleep x 1 + 0.3 U(-1, 1): between-process sd 17%), so a pilot
    # of 2 processes (t with 1 df) cannot meet +-20% and more processes must be added
    p = harness("run", "--profile", "smoke", "--benchmarks", "selftest.sleep", "--param", "seconds=0.005",
                "--param", "spread=0.3", "--engines", "sqlite/sqlite3", "--processes", "2", "--iterations", "5",
                "--target-ci", "20",
                "--max-time", "120", "--out", str(tmp_path), "--no-progress")
    run = Path(last_line(p.stdout))
    m = store.read_manifest(run)
    (cell,) = m["adaptive"]["cells"]
    assert cell["stop"] == "met", cell
    assert cell["target"] == 0.2 and cell["achieved"] <= 0.2
    assert cell["round"] >= 2 and cell["processes"] > 2, "a 2-process pilot cannot meet it"
    assert cell["iterations"] >= 2 and cell["s2_within"] > 0 and cell["c_proc_s"] > 0
    assert "met (target +-20%" in p.stderr
    # the achieved half-width is the one the statistics give on the stored timings of its clean
    # processes (a process another program disturbed is rerun and left out, as the protocol does)
    procs = store.load_process_records([run])
    clean = drop_flagged_rows(store.load_runs([run]), procs)
    (row,) = stats.summarize_cells(clean, steady_state=True).itertuples()
    assert cell["achieved"] == relative_half_width(row.mean_s, row.ci_low_s, row.ci_high_s)
    assert (procs["status"] == "ok").all()
    assert clean["process"].nunique() == cell["processes"]


def test_adaptive_options_are_checked(tmp_path):
    p = harness("run", "--profile", "smoke", "--target-ci", "150", "--out", str(tmp_path), check=False)
    assert p.returncode == 2 and "--target-ci" in p.stderr and "Traceback" not in p.stderr
    p = harness("run", "--profile", "smoke", "--max-run-time", "10", "--out", str(tmp_path), check=False)
    assert p.returncode == 2 and "need a target: --target-ci" in p.stderr


def test_the_run_budget_stops_the_pilot_and_says_so(tmp_path):
    from harness.run.runner import BUDGET_SPENT

    p = harness("run", "--profile", "smoke", "--benchmarks", "selftest.sleep", "--engines", "sqlite/sqlite3",
                "--param", "seconds=0.4", "--processes", "4", "--target-ci", "1", "--max-run-time", "1",
                "--out", str(tmp_path), "--no-progress", check=False)
    run = Path(last_line(p.stdout))
    recs = store.load_process_records([run])
    assert len(recs) == 4 and (recs["reason"] == BUDGET_SPENT).sum() >= 2, recs[["status", "reason"]]
    (cell,) = store.read_manifest(run)["adaptive"]["cells"]
    assert cell["stop"] == "budget"


def test_an_adaptive_run_interrupted_in_a_round_and_resumed_keeps_its_record(tmp_path):
    """Issue 25: killed in a round and resumed, the run used to end `complete` with no `adaptive`
    section. Now the record survives, its cells say they were cut, and a second segment says the
    resume ran no rounds."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    args = [sys.executable, "-m", "harness", "run", "--profile", "smoke", "--benchmarks", "selftest.sleep",
            "--param", "seconds=0.02", "--param", "spread=0.3", "--engines", "sqlite/sqlite3", "--processes", "2",
            "--iterations", "5", "--target-ci", "1", "--max-time", "120", "--out", str(tmp_path)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    deadline = time.monotonic() + 120
    while "adaptive round 1" not in seen and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
    assert "adaptive round 1" in seen, seen
    time.sleep(0.3)  # inside round 1's processes
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    (run,) = [d for d in tmp_path.iterdir() if (d / "manifest.json").is_file()]
    cut = store.read_manifest(run)
    assert cut["status"] == "interrupted" and cut["adaptive"]["partial"], cut.get("adaptive")
    p = harness("run", "--resume", str(run), "--no-progress", check=False)
    assert p.returncode in (0, 1) and "Traceback" not in p.stderr, p.stderr
    m = store.read_manifest(run)
    assert m["status"] == "complete" and m["adaptive"]["partial"]
    (cell,) = m["adaptive"]["cells"]
    assert cell["stop"] == "cut" and cell["round"] == 1 and cell["target"] == 0.01, cell
    assert [s.get("resumed", False) for s in m["adaptive"]["segments"]] == [False, True]
    assert "cut (interrupted in round 1" in p.stderr
