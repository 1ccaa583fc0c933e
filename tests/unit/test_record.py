"""The typed run record (`harness.record`): round trips keep every key, malformed input is refused."""
from __future__ import annotations

import json

import pytest

from harness import store
from harness.errors import DataError
from harness.record import MAX_INDEX, Manifest, Plan, PlanCell, ProcessRecord

MANIFEST = {"schema_version": 2, "run_id": "20261126-120000-abcdef", "started": "2026-11-26T12:00:00+0000",
            "ended": None, "status": "complete", "command": ["python", "-m", "harness", "run"],
            "machine": {"cpu": {"model": "x", "max_khz_sysfs": 3200000}}, "project": {"commit": "0123456789abcdef"},
            "some_future_key": {"kept": [1, 2]}}
PLAN = {"run_id": "20261126-120000-abcdef", "seed": 7, "iterations": 5,
        "cells": [{"benchmark": "bindings.select_fold", "engine": "sqlite/sqlite3", "params": {"n": 10}, "runtime": "cpython",
                   "iterations": 2}],
        "order": [[0, 0, 0], [1, 0, 1]]}
RECORD = {"benchmark": "bindings.select_fold", "params": "n=10", "engine": "sqlite/sqlite3", "runtime": "cpython3.11",
          "runtime_family": "cpython", "process": 1, "status": "ok", "reason": "", "rows": 5, "seq": 1,
          "machine": {"id": "m1"}, "stderr_tail": "", "pid": 42}


def test_record_manifest_round_trip_keeps_every_key_in_order():
    m = Manifest.from_dict(MANIFEST)
    assert m.run_id == MANIFEST["run_id"] and m.status == "complete" and m.ended is None
    assert m.extra == {"some_future_key": {"kept": [1, 2]}}
    assert m.commit == "0123456789abcdef" and m.configuration == {} and m.segments == []
    out = m.to_dict()
    assert out == MANIFEST and list(out) == list(MANIFEST)
    assert m.clock() == {"hz": 3.2e9, "source": "sysfs-max: manifest machine.cpu.max_khz_sysfs"}


def test_record_plan_round_trip_and_cell_keys():
    p = Plan.from_dict(PLAN)
    assert p.order == ((0, 0, 0), (1, 0, 1)) and p.iterations == 5
    assert p.cells[0] == PlanCell(benchmark="bindings.select_fold", params={"n": 10}, engine="sqlite/sqlite3",
                                  runtime="cpython", extra={"iterations": 2})
    assert p.cell_keys() == {("bindings.select_fold", "n=10", "sqlite/sqlite3", "cpython")}
    assert p.extra == {} and p.seed == 7
    assert p.to_dict() == PLAN and json.dumps(p.to_dict()) == json.dumps(PLAN)


def test_record_process_record_round_trip():
    r = ProcessRecord.from_dict(RECORD, seq=1)
    assert (r.seq, r.process, r.rows, r.status, r.machine_id) == (1, 1, 5, "ok", "m1")
    assert r.extra == {"stderr_tail": "", "pid": 42}
    assert r.to_dict() == RECORD and list(r.to_dict()) == list(RECORD)


def test_record_built_in_code_writes_only_what_it_holds():
    r = ProcessRecord(seq=3, status="skipped", reason="not applicable", extra={"note": "x"})
    assert r.to_dict() == {"seq": 3, "status": "skipped", "reason": "not applicable", "note": "x"}
    assert ProcessRecord.from_dict(r.to_dict(), seq=3) == r


@pytest.mark.parametrize("bad, message", [
    ([1, 2], "not a manifest"),
    ({"run_id": "x"}, "schema_version None"),
    ({**MANIFEST, "schema_version": 99}, "schema_version 99"),
    ({**MANIFEST, "schema_version": True}, "schema_version True"),
    ({**MANIFEST, "run_id": 12}, "field 'run_id' is 12"),
    ({**MANIFEST, "machine": "big"}, "field 'machine'"),
])
def test_record_malformed_manifest_is_refused(bad, message):
    with pytest.raises(DataError, match=message):
        Manifest.from_dict(bad, "runs/x/manifest.json")


@pytest.mark.parametrize("change, message", [
    ({"cells": None}, "not a plan"),
    ({"cells": [{"benchmark": "b", "engine": "e", "runtime": "r"}]}, r"cells\[0\] is not a cell"),
    ({"order": [[0, 0]]}, r"order\[0\] is \[0, 0\]"),
    ({"order": [[0, 1, 0]]}, "names cell 1, the plan has 1 cells"),
    ({"order": [[0, 0, 0], [0, 0, 1]]}, "seq 0 appears twice"),
    ({"order": [[MAX_INDEX, 0, 0]]}, "expected 0.."),
    ({"iterations": "5"}, "field 'iterations'"),
])
def test_record_malformed_plan_is_refused(change, message):
    with pytest.raises(DataError, match=f"runs/x/plan.json: .*{message}"):
        Plan.from_dict({**PLAN, **change}, "runs/x/plan.json")


@pytest.mark.parametrize("change, message", [
    ({"status": "finished"}, "no valid 'status'"),
    ({"process": -1}, "process -1 is not a whole number"),
    ({"process": True}, "process True is not a whole number"),
    ({"rows": 2.5}, "rows 2.5 is not a whole number"),
    ({"seq": 2}, "the record says seq 2, its file name says 1"),
    ({"benchmark": 3}, "field 'benchmark' is 3"),
])
def test_record_malformed_process_record_is_refused(change, message):
    with pytest.raises(DataError, match=message):
        ProcessRecord.from_dict({**RECORD, **change}, seq=1, where="runs/x/processes/000001.json")


def test_record_store_reads_typed_and_dict_alike(tmp_path):
    run = tmp_path / "run"
    (run / "processes").mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps(MANIFEST))
    (run / "plan.json").write_text(json.dumps(PLAN))
    (run / "processes" / "000001.json").write_text(json.dumps(RECORD))
    assert store.manifest_of(run) == Manifest.from_dict(MANIFEST)
    assert store.read_manifest(run) == MANIFEST
    assert store.plan_of(run) == Plan.from_dict(PLAN) and store.read_plan(run) == PLAN
    assert store.records_of(run) == {1: ProcessRecord.from_dict(RECORD, 1)}
    assert store.process_records(run) == {1: RECORD}
    (run / "manifest.json").write_text(json.dumps({**MANIFEST, "status": 3}))
    with pytest.raises(DataError, match=r"manifest\.json: manifest field 'status' is 3"):
        store.read_manifest(run)


def test_record_write_gives_the_bytes_the_harness_always_wrote(tmp_path):
    """`write` is `fsutil.write_json_atomic` of the object read: a run's files round-trip byte for
    byte, so runs written before and after the typed records are one format."""
    from harness.fsutil import write_json_atomic

    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        (d / "processes").mkdir(parents=True)
    write_json_atomic(old / "manifest.json", MANIFEST)
    write_json_atomic(old / "plan.json", PLAN)
    write_json_atomic(old / "processes" / "000001.json", RECORD)
    assert Manifest.from_dict(MANIFEST).write(new) == new / "manifest.json"
    assert Plan.from_dict(PLAN).write(new) == new / "plan.json"
    assert ProcessRecord.from_dict(RECORD, 1).write(new) == new / "processes" / "000001.json"
    for name in ("manifest.json", "plan.json", "processes/000001.json"):
        assert (new / name).read_bytes() == (old / name).read_bytes()
    with pytest.raises(FileExistsError):  # a process record is never rewritten
        ProcessRecord.from_dict(RECORD, 1).write(new)


def test_record_write_checks_what_it_writes(tmp_path):
    """What a read would refuse is never written (the check is the read's)."""
    bad = Manifest.from_dict(MANIFEST).with_(status=3)
    with pytest.raises(DataError, match=r"manifest\.json: manifest field 'status' is 3"):
        bad.write(tmp_path)
    with pytest.raises(DataError, match="no valid 'status'"):
        ProcessRecord(seq=0, status="finished").write(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_record_with_changes_as_a_dict_update_does():
    m = Manifest.from_dict(MANIFEST)
    changed = m.with_(status="incomplete", collected="now", ended="later")
    want = dict(MANIFEST)
    want.update(status="incomplete", collected="now", ended="later")
    assert changed.to_dict() == want and list(changed.to_dict()) == list(want)
    assert changed.status == "incomplete" and changed.extra["collected"] == "now"
    assert m.to_dict() == MANIFEST  # the record changed is a new one
    built = ProcessRecord(seq=2, status="ok").with_(rows=4)
    assert built.to_dict() == {"seq": 2, "status": "ok", "rows": 4}


def test_record_has_and_get_tell_absent_from_default():
    r = ProcessRecord.from_dict({k: v for k, v in RECORD.items() if k != "process"}, 1)
    assert r.process == 0 and not r.has("process") and r.get("process") is None
    assert r.has("rows") and r.get("rows") == 5 and r.get("pid") == 42 and r.get("nothing", "x") == "x"
    built = ProcessRecord(seq=3, status="ok", extra={"pid": 7})
    assert built.has("pid") and not built.has("rows") and built.get("pid") == 7 and built.get("rows") is None
