"""Pinning is real and recorded: a worker sees one CPU, the record and manifest say which."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import harness, last_line
from harness import store


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning needs two CPUs")
def test_workers_are_pinned_and_the_choice_recorded(tmp_path):
    run = Path(last_line(harness("run", "--profile", "smoke", "--benchmarks", "selftest.cpus", "--engines",
                                 "sqlite/sqlite3", "--out", str(tmp_path), "--no-progress").stdout))
    m = store.read_manifest(run)
    choice = m["noise_control"][0]["cpus"]
    assert choice["worker_cpu"] == max(os.sched_getaffinity(0))
    procs = store.load_process_records([run])
    assert (procs["status"] == "ok").all(), "selftest.cpus is invalid unless its worker sees one CPU"
    assert (procs["cpu"] == choice["worker_cpu"]).all()
    assert all(isinstance(n, dict) and "others_cpus" in n and "noisy" in n for n in procs["noise"])
    assert {f["check"] for f in m["doctor"]} >= {"governor", "load", "busy processes", "storage"}
    # without pinning the same check fails: the test above can fail
    proc = harness("run", "--profile", "smoke", "--benchmarks", "selftest.cpus", "--engines", "sqlite/sqlite3",
                   "--out", str(tmp_path), "--no-progress", "--no-pin", check=False)
    assert proc.returncode == 1, "an invalid cell makes the run exit 1"
    run = Path(last_line(proc.stdout))
    procs = store.load_process_records([run])
    assert (procs["status"] == "invalid").all() and procs["cpu"].isna().all()
    assert store.read_manifest(run)["noise_control"][0]["cpus"]["worker_cpu"] is None
