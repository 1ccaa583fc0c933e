"""The run layer writes its files through `harness.record`: the runner's manifest at a segment's
end, collect's merged plan and manifest; what they write reads back as the typed records."""
from __future__ import annotations

import json

from harness import store
from harness.record import Manifest
from harness.run import runner
from harness.run.plan import LivePlan
from helpers_shards import write_shard


def test_record_writers_finish_manifest_writes_the_segment_end(tmp_path):
    run_dir = write_shard(tmp_path, "r1", 0, 1, processes=2, iterations=3)
    plan = LivePlan.from_record(store.plan_of(run_dir))
    before = store.manifest_of(run_dir).with_(status="running")
    segment = {"started": "2026-11-26T12:00:00+0000", "command": None}
    runner._finish_manifest(run_dir, plan, before, segment, "complete", None)
    m = store.manifest_of(run_dir)
    assert m.status == "complete" and m.ended is not None
    assert m.process_counts == {"ok": len(plan.order)} and m.processes_planned == len(plan.order)
    assert [s["status"] for s in m.segments] == ["complete"] and m.segments[0]["processes_recorded"] == 2
    assert len(m.machine["loadavg_after"]) == 3 and m.machine["hostname"] == before.machine["hostname"]
    assert "servers" not in m.to_dict() and "datasets" not in m.to_dict()
    # the keys it held are all still there
    assert set(before.to_dict()) <= set(json.loads((run_dir / "manifest.json").read_text()))


def test_record_writers_finish_manifest_never_writes_what_a_read_refuses(tmp_path, capsys):
    run_dir = write_shard(tmp_path, "r1", 0, 1, processes=2, iterations=3)
    text = (run_dir / "manifest.json").read_bytes()
    bad = store.manifest_of(run_dir).with_(run_id=12)
    runner._finish_manifest(run_dir, LivePlan.from_record(store.plan_of(run_dir)), bad, {}, "complete", None)
    err = capsys.readouterr().err
    assert "could not update" in err and "field 'run_id' is 12" in err
    assert (run_dir / "manifest.json").read_bytes() == text


def test_record_writers_collect_writes_typed_records(tmp_path):
    from harness.run.collect import collect

    shards = [write_shard(tmp_path / "shared", "c1", k, 2, processes=4, iterations=3) for k in range(2)]
    run = collect(shards, tmp_path / "out")
    m, plan = store.manifest_of(run), store.plan_of(run)
    assert isinstance(m, Manifest) and m.status == "complete" and [s["index"] for s in m.shards] == [0, 1]
    assert plan is not None and plan.shard is None and plan.shards["count"] == 2
    assert sorted(store.records_of(run)) == sorted(seq for seq, _, _ in plan.order)
    assert m.process_counts == {"ok": len(plan.order)} and m.processes_planned == len(plan.order)


def test_record_writers_live_plan_keeps_the_keys_it_was_given(tmp_path):
    """The runner's `LivePlan` writes the keys it was built or read with, those assigned since and
    containers filled in place; nothing else (no nulls for what a run never set)."""
    from harness.run.plan import LiveCell, RunRequest, build_plan

    plan = build_plan(RunRequest(profile="smoke", benchmarks=["bindings.select_fold"], engines=["sqlite/sqlite3"],
                                 processes=2, iterations=3), "r1")
    d = plan.to_dict()
    assert not {"datasets", "reruns", "adaptive", "shard", "run_dir", "noise_threshold_cpus"} & set(d)
    assert d["pin"] is True and "budget_s" in d and plan.dir_name == "r1"
    back = LivePlan.from_record(plan.to_record())
    assert back.to_dict() == d
    back.reruns.append({"cell": 0, "seq": 0, "rerun_seq": 4})  # filled in place: written
    back.cells[0].iterations = 7
    back.write(tmp_path)
    stored = json.loads((tmp_path / "plan.json").read_text())
    assert stored["reruns"] == [{"cell": 0, "seq": 0, "rerun_seq": 4}]
    assert stored["cells"][0]["iterations"] == 7 and "grown_to" not in stored["cells"][0]
    # a key no field names is kept, a field the stored plan lacks is not added
    old = {k: v for k, v in stored.items() if k not in ("pin", "max_wait_s")} | {"from_the_future": [1]}
    again = LivePlan.from_dict(old)
    assert again.pin is True and again.to_dict() == {**old, "order": [tuple(t) for t in old["order"]]}
    again.max_wait_s = again.max_wait_s  # assigned, even its default: written (a resume's --max-wait)
    assert "max_wait_s" in again.to_dict() and "pin" not in again.to_dict()
    assert LiveCell(benchmark="b", engine="e", runtime="r").to_dict() == {
        "benchmark": "b", "params": {}, "engine": "e", "runtime": "r"}
