"""Noise control: the CPU choice, other programs' CPU use between two /proc snapshots, doctor."""
from __future__ import annotations

import os

import pandas as pd

from harness.analysis.summary import cell_status, noise_notes
from harness.record import Manifest
from harness.run import doctor, noise
from harness.run.noise import Snapshot, choose_cpus, load_during


def test_cpu_choice(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert choose_cpus() == {"available": [0, 1, 2, 3], "worker_cpu": 3, "runner_cpus": [0, 1, 2], "reason": ""}
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    c = choose_cpus()
    assert c["worker_cpu"] == 1 and c["runner_cpus"] is None and "two CPUs" in c["reason"]
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5})
    assert choose_cpus()["worker_cpu"] is None
    assert choose_cpus(pin=False)["worker_cpu"] is None


def test_load_during_counts_only_other_programs():
    me = os.getpid()
    before = Snapshot(100.0, (0.5, 0.5, 0.5), {me: (1, "runner", 5.0), 200: (1, "other", 10.0),
                                               300: (me, "server", 1.0), 400: (1, "idle", 3.0)})
    after = Snapshot(102.0, (0.5, 0.5, 0.5), {me: (1, "runner", 7.0), 200: (1, "other", 11.5),
                                              300: (me, "server", 2.9), 301: (300, "backend", 0.4),
                                              400: (1, "idle", 3.0), 500: (1, "newcomer", 0.5)})
    seen = load_during(before, after, threshold_cpus=0.5)
    # other: 1.5 s of CPU in 2 s = 0.75 CPUs; newcomer 0.5 s = 0.25; ours (runner, server, backend) excluded
    assert seen["others_cpus"] == 1.0
    assert [b["comm"] for b in seen["busiest"]] == ["other", "newcomer"]
    assert seen["noisy"] is True
    assert load_during(before, after, threshold_cpus=1.5)["noisy"] is False


def test_snapshot_reads_this_process():
    s = noise.snapshot()
    assert os.getpid() in s.procs and s.procs[os.getpid()][2] >= 0


def test_summary_counts_noisy_processes():
    procs = pd.DataFrame([
        {"run_id": "r", "seq": i, "benchmark": "b", "params": "", "engine": "e", "runtime": "cpython3.11",
         "runtime_family": "cpython", "process": i, "status": "ok", "reason": "",
         "noise": {"noisy": i < 2, "others_cpus": 1.0 if i < 2 else 0.0}} for i in range(5)])
    assert cell_status(procs)["noisy"].tolist() == [2]
    notes = noise_notes(procs, [Manifest(run_id="r", doctor=[doctor._finding("load", doctor.WARN, "3.0")])])
    assert notes[0].startswith("warning: 2 of 5 processes ran while other programs") and "run r started on a busy machine" in notes[1]
    assert noise_notes(procs.drop(columns=["noise"]), [Manifest(run_id="r", doctor=[])]) == []


def test_doctor_findings_have_advice_where_not_ok(tmp_path):
    found = doctor.findings(tmp_path, window_s=0.05)
    assert [f["check"] for f in found] == ["governor", "turbo", "frequency scaling", "SMT", "load", "busy processes",
                                           "perf counters", "cgroup CPU quota", "storage"]
    assert all(f["status"] in ("ok", "warn", "info") for f in found)
    assert all(f["advice"] for f in found if f["status"] == "warn")
    text = doctor.format_findings(found)
    assert "cgroup CPU quota" in text and "warning" in text
    from harness.commands.doctor import doctor_text

    found.append(doctor._finding("load", doctor.WARN, "3.0", "wait for an idle machine; " * 12))
    text = doctor_text(found)
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "cgroup CPU quota" in text and "-> wait for an idle machine" in text and "warning" in text.splitlines()[-1]


def test_cgroup_quota_read(monkeypatch):
    files = {"/sys/fs/cgroup/cpu.max": "150000 100000"}
    monkeypatch.setattr(doctor, "_read", lambda p: files.get(p))
    f = doctor.cgroup_quota()
    assert f["status"] == "warn" and f["value"] == "1.50 CPUs"
    files["/sys/fs/cgroup/cpu.max"] = "max 100000"
    assert doctor.cgroup_quota()["status"] == "ok"
