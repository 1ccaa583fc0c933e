"""The reference campaign: a study measured as one run, installed in place of that study's runs
only, resumable, and refused when most of its processes were disturbed."""
from __future__ import annotations

import json
import shutil

import pytest

from conftest import harness
from harness.errors import UserError
from harness.run import reference
from harness.run.reference import Study, run_campaign

TINY = Study("E1", "a tiny E1", ("bindings.*",),
             ("--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines", "sqlite/sqlite3",
              "--processes", "3", "--aa", "sqlite/sqlite3"), 120)


def _old_runs(root, tmp_path):
    """data/reference with an old E1 run, an E6-like run of another study and an imported run."""
    ref = root / "data" / "reference"
    ref.mkdir(parents=True)
    out = harness("run", "--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines", "sqlite/apsw",
                  "--processes", "3", "--out", str(tmp_path / "old"), "--no-progress")
    old_e1 = ref / "20200101-000000-aaaaaa"
    shutil.copytree(out.stdout.strip().splitlines()[-1], old_e1)
    other = ref / "20200101-000001-bbbbbb"
    shutil.copytree(old_e1, other)
    plan = json.loads((other / "plan.json").read_text())
    (other / "plan.json").write_text(json.dumps({**plan, "benchmarks": ["ramsql.select"]}))
    # what a run holds is what it measured: its process records say so
    for rec_path in (other / "processes").glob("*.json"):
        rec = json.loads(rec_path.read_text())
        rec_path.write_text(json.dumps({**rec, "benchmark": "ramsql.select"}))
    return old_e1, other


def test_a_study_replaces_only_its_own_runs_and_resumes(tmp_path):
    root = tmp_path / "root"
    old_e1, other = _old_runs(root, tmp_path)
    said: list[str] = []
    state = run_campaign([TINY], tmp_path / "work", force=True, say=said.append, root=root, quiet_wait_s=0)
    st = state["E1"]
    assert st["status"] == "installed" and st["measured"] >= 3
    installed = root / "data" / "reference" / st["run"].split("/")[-1]
    assert (installed / "plan.json").exists() and not old_e1.exists() and other.exists()
    plan = json.loads((installed / "plan.json").read_text())
    assert any(c["params"].get("aa") == "twin" for c in plan["cells"])  # the A/A twin is in the study's run
    assert any("replacing 1 run" in line for line in said)
    # a second call finds it installed and measures nothing
    said.clear()
    run_campaign([TINY], tmp_path / "work", force=True, say=said.append, root=root, quiet_wait_s=0)
    assert "installed already" in said[0]
    # stopped after measuring, before installing: the next call installs the measured run, no new run
    camp = reference.Campaign(tmp_path / "work")
    camp.state["E1"]["status"] = "measured"
    camp.save()
    runs_before = sorted((tmp_path / "work").glob("2*"))
    said.clear()
    run_campaign([TINY], tmp_path / "work", force=True, say=said.append, root=root, quiet_wait_s=0)
    assert any("was measured already" in line for line in said)
    assert sorted((tmp_path / "work").glob("2*")) == runs_before


def test_a_mostly_disturbed_study_is_not_installed_without_force(tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "data" / "reference").mkdir(parents=True)
    monkeypatch.setattr(reference, "disturbed_share", lambda run_dir: (9, 10))
    monkeypatch.setattr(reference, "changed_files", lambda root=None: [])
    monkeypatch.setattr(reference, "wait_for_quiet_machine", lambda *a, **k: True)
    said: list[str] = []
    state = run_campaign([TINY], tmp_path / "work", force=False, say=said.append, root=root, quiet_wait_s=0)
    assert state["E1"]["status"] == "refused" and not list((root / "data" / "reference").iterdir())
    assert "9 of 10 processes were disturbed: not installed" in said[-1]


def test_the_wall_time_counts_measuring_not_the_wait_for_a_quiet_machine(tmp_path, monkeypatch):
    import time as real_time

    root = tmp_path / "root"
    (root / "data" / "reference").mkdir(parents=True)
    monkeypatch.setattr(reference, "changed_files", lambda root=None: [])

    def slow_wait(*a, **k):
        real_time.sleep(3.0)  # a machine that takes 3 s to quieten
        return True

    monkeypatch.setattr(reference, "wait_for_quiet_machine", slow_wait)
    monkeypatch.setattr(reference, "_run", lambda cmd: tmp_path / "work" / "r")  # no measuring at all
    monkeypatch.setattr(reference, "disturbed_share", lambda run_dir: (0, 0))
    monkeypatch.setattr(reference, "install", lambda study, run_dir, root, extra=(): [])
    state = run_campaign([TINY], tmp_path / "work", say=lambda line: None, root=root, quiet_wait_s=0)
    assert state["E1"]["wall_s"] < 1.0  # the 3 s of waiting are not the study's


def test_uncommitted_code_stops_the_campaign_and_names_the_files(tmp_path, monkeypatch):
    monkeypatch.setattr(reference, "changed_files", lambda root=None: ["harness/run/runner.py", "harness/worker.py"])
    with pytest.raises(UserError, match=r"uncommitted changes \(harness/run/runner.py, harness/worker.py\)"):
        run_campaign([TINY], tmp_path / "work", say=lambda line: None, root=tmp_path, quiet_wait_s=0)
    assert not list((tmp_path / "work").glob("2*"))  # nothing was measured


def test_a_busy_machine_stops_the_campaign(tmp_path, monkeypatch):
    monkeypatch.setattr(reference, "changed_files", lambda root=None: [])
    monkeypatch.setattr(reference.os, "getloadavg", lambda: (5.0, 5.0, 5.0))
    with pytest.raises(UserError, match="the machine is busy"):
        run_campaign([TINY], tmp_path / "work", say=lambda line: None, root=tmp_path, quiet_wait_s=0)


def test_unknown_study_and_plan():
    with pytest.raises(UserError, match="unknown study E9; studies: E7, E1, E2"):
        reference.pick("E9")
    text = reference.plan_text(reference.pick(None))
    assert "E7" in text and "total" in text and sum(s.total_s for s in reference.STUDIES.values()) <= 108 * 60
    out = harness("reference", "--plan", "--study", "e1,e3")
    assert "E1" in out.stdout and "E3" in out.stdout and "E2 " not in out.stdout
