"""Which study a run belongs to is what it measured: a run whose plan lists a family it only skipped
(an engine's own benchmarks on a runtime the run did not have) does not hold that family, so
installing that family's study never removes it (the E4 run was once removed by E6's install)."""
from __future__ import annotations

import json

from harness.run import reference


def _run(tmp_path, name, records):
    d = tmp_path / name
    (d / "processes").mkdir(parents=True)
    benches = sorted({r["benchmark"] for r in records})
    (d / "plan.json").write_text(json.dumps({"benchmarks": benches}))
    (d / "manifest.json").write_text(json.dumps({"run_id": name}))
    for seq, r in enumerate(records):
        (d / "processes" / f"{seq:06d}.json").write_text(json.dumps({"seq": seq, **r}))
    return d


def test_a_family_the_run_only_skipped_is_not_one_it_holds(tmp_path):
    folder = tmp_path / "ref"
    inserts = _run(folder, "r1", [{"benchmark": "inserts.prepared", "status": "ok"},
                                  {"benchmark": "ramsql.select", "status": "skipped"}])
    ramsql = _run(folder, "r2", [{"benchmark": "ramsql.select", "status": "ok"}])
    assert reference.benchmarks_of(inserts) == {"inserts.prepared"}
    assert reference.runs_of(reference.STUDIES["E6"], folder) == [ramsql]
    assert reference.runs_of(reference.STUDIES["E4"], folder) == [inserts]


def test_a_run_without_records_is_judged_by_its_plan(tmp_path):
    d = _run(tmp_path, "r3", [])
    (d / "plan.json").write_text(json.dumps({"benchmarks": ["tpch.q01"]}))
    assert reference.benchmarks_of(d) == {"tpch.q01"}
