"""Stored-data fault matrix: every way a run directory can be damaged, mixed up or cut short is
found on load. A mismatch is one `error:` line naming the file (exit 2), never a number; an
interrupted run loads with a visible warning and its cells say `incomplete`. Loading never
changes a stored file."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness import cli, store
from harness.protocol import canonical_params
from harness.run.manifest import base_manifest
from harness.run.plan import RunRequest, build_plan
from tests.conftest import one_line_error, record_matrix

ITER = 4


def _make_run(out: Path, run_id: str) -> Path:
    """A complete run of 2 cells x 2 processes written by the store's own writers (no worker)."""
    plan = build_plan(RunRequest(profile="smoke", benchmarks=["bindings.select_fold"],
                                 engines=["sqlite/sqlite3", "sqlite/apsw"], processes=2, iterations=ITER), run_id)
    run_dir = store.create_run_dir(out, run_id)
    plan.write(run_dir)
    for seq, index, process in plan.order:
        cell = plan.cells[index]
        params = canonical_params(cell.params)
        rows = {"run_id": [run_id] * ITER, "seq": [seq] * ITER, "benchmark": [cell.benchmark] * ITER,
                "params": [params] * ITER, "engine": [cell.engine] * ITER, "driver": ["d"] * ITER,
                "runtime": ["cpython3.11"] * ITER, "process": [process] * ITER, "iteration": list(range(ITER)),
                "pid": [100 + seq] * ITER, "wall_ns": [10_000 + 100 * seq + i for i in range(ITER)],
                "cpu_ns": [9_000] * ITER, "check_ok": [True] * ITER, "crossings": [3] * ITER,
                "values_converted": [None] * ITER}
        store.write_timings(run_dir, seq, rows)
        store.write_process_record(run_dir, seq, {
            "benchmark": cell.benchmark, "params": params, "engine": cell.engine, "runtime": "cpython3.11",
            "runtime_family": cell.runtime, "process": process, "status": "ok", "reason": "",
            "timings_file": f"timings/{seq:06d}.parquet", "rows": ITER})
    base_manifest(run_id, None).with_(status="complete", process_counts={"ok": len(plan.order)}).write(run_dir)
    return run_dir


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """The two runs, written once for the module (planning and writing them is most of the time)."""
    root = tmp_path_factory.mktemp("pristine")
    return _make_run(root, "runA"), _make_run(root / "other", "runB")


@pytest.fixture
def runs(pristine, tmp_path):
    """Each test's own copy of the two runs (tmp/runA and tmp/other/runB), to damage as it likes."""
    a, b = pristine
    return Path(shutil.copytree(a, tmp_path / a.name)), Path(shutil.copytree(b, tmp_path / "other" / b.name))


def _rec_path(run_dir: Path, seq: int) -> Path:
    return run_dir / "processes" / f"{seq:06d}.json"


def _edit_record(run_dir: Path, at: int, **changes) -> None:
    path = _rec_path(run_dir, at)
    rec = json.loads(path.read_text())
    rec.update(changes)
    path.write_text(json.dumps(rec))


def _copy_record(run_dir: Path, src: int, dst: int) -> None:
    shutil.copyfile(_rec_path(run_dir, src), _rec_path(run_dir, dst))
    _edit_record(run_dir, dst, seq=dst)


def _rewrite_timings(run_dir: Path, seq: int, fn) -> None:
    path = run_dir / "timings" / f"{seq:06d}.parquet"
    table = pq.read_table(path)
    pq.write_table(fn(table), path)


def _set_column(name: str, values_fn):
    def fn(table):
        i = table.schema.get_field_index(name)
        return table.set_column(i, table.schema.field(i), pa.array(values_fn(table.column(name).to_pylist()),
                                                                    table.schema.field(i).type))
    return fn


def _plan_edit(fn):
    def edit(run_dir, other):
        path = run_dir / "plan.json"
        plan = json.loads(path.read_text())
        fn(plan)
        path.write_text(json.dumps(plan))
    return edit


def _manifest_edit(fn):
    def edit(run_dir, other):
        path = run_dir / "manifest.json"
        m = json.loads(path.read_text())
        fn(m)
        path.write_text(json.dumps(m))
    return edit


def _swap_cell(plan):
    plan["cells"][0]["engine"] = "duckdb"


#: case -> (inject(run_dir, other_run_dir), the file the message must name, words it must hold)
FAULTS = {
    "timings copied over another process's": (
        lambda r, o: shutil.copyfile(r / "timings/000001.parquet", r / "timings/000000.parquet"),
        "timings/000000.parquet", "column seq holds 1"),
    "timings copied from another run": (
        lambda r, o: shutil.copyfile(o / "timings/000000.parquet", r / "timings/000000.parquet"),
        "timings/000000.parquet", "column run_id holds 'runB'"),
    "negative wall_ns": (
        lambda r, o: _rewrite_timings(r, 2, _set_column("wall_ns", lambda v: [-x for x in v])),
        "timings/000002.parquet", "not finite and positive"),
    "zero wall_ns": (
        lambda r, o: _rewrite_timings(r, 2, _set_column("wall_ns", lambda v: [0] + v[1:])),
        "timings/000002.parquet", "not finite and positive"),
    "missing wall_ns": (
        lambda r, o: _rewrite_timings(r, 2, _set_column("wall_ns", lambda v: [None] + v[1:])),
        "timings/000002.parquet", "wall_ns values are missing"),
    "rows dropped from a timings file": (
        lambda r, o: _rewrite_timings(r, 3, lambda t: t.slice(0, 2)),
        "timings/000003.parquet", "2 rows, its process record says 4"),
    "empty timings file": (
        lambda r, o: _rewrite_timings(r, 3, lambda t: t.slice(0, 0)),
        "timings/000003.parquet", "no rows"),
    "duplicated iteration": (
        lambda r, o: _rewrite_timings(r, 1, _set_column("iteration", lambda v: [0] * len(v))),
        "timings/000001.parquet", "an iteration appears twice"),
    "timings of another engine": (
        lambda r, o: _rewrite_timings(r, 1, _set_column("engine", lambda v: ["duckdb"] * len(v))),
        "timings/000001.parquet", "column engine holds 'duckdb'"),
    "timings of another process index": (
        lambda r, o: _rewrite_timings(r, 1, _set_column("process", lambda v: [7] * len(v))),
        "timings/000001.parquet", "column process holds 7"),
    "truncated timings file": (
        lambda r, o: (r / "timings/000000.parquet").write_bytes((r / "timings/000000.parquet").read_bytes()[:200]),
        "timings/000000.parquet", "corrupt or truncated"),
    "timings file deleted": (
        lambda r, o: (r / "timings/000000.parquet").unlink(),
        "timings/000000.parquet", "missing timings file"),
    "timings schema version changed": (
        lambda r, o: _rewrite_timings(r, 0, lambda t: t.replace_schema_metadata({"crossings_schema_version": "99"})),
        "timings/000000.parquet", "schema version"),
    "timings column type changed": (
        lambda r, o: _rewrite_timings(r, 0, lambda t: t.set_column(t.schema.get_field_index("wall_ns"), "wall_ns",
                                                                    pa.array([str(x) for x in t.column("wall_ns").to_pylist()]))
                                      .replace_schema_metadata(t.schema.metadata)),
        "timings/000000.parquet", "column wall_ns has type string"),
    "timings column dropped": (
        lambda r, o: _rewrite_timings(r, 0, lambda t: t.drop(["cpu_ns"]).replace_schema_metadata(t.schema.metadata)),
        "timings/000000.parquet", "lacks columns cpu_ns"),
    "record names another timings file": (
        lambda r, o: _edit_record(r, 0, timings_file="timings/000001.parquet"),
        "processes/000000.json", "names timings file"),
    "record's row count wrong": (
        lambda r, o: _edit_record(r, 0, rows=9),
        "timings/000000.parquet", "its process record says 9"),
    "record renamed to another seq": (
        lambda r, o: _rec_path(r, 0).rename(r / "processes" / "000009.json"),
        "processes/000009.json", "its file name says 9"),
    "record's seq edited": (
        lambda r, o: _edit_record(r, 1, seq=0),
        "processes/000001.json", "the record says seq 0"),
    "record not JSON": (
        lambda r, o: _rec_path(r, 2).write_text("{half"),
        "processes/000002.json", "corrupt process record"),
    "record binary garbage": (
        lambda r, o: _rec_path(r, 2).write_bytes(bytes(range(256))),
        "processes/000002.json", "corrupt process record"),
    "record a JSON list": (
        lambda r, o: _rec_path(r, 2).write_text("[1, 2]"),
        "processes/000002.json", "not a process record"),
    "record status unknown": (
        lambda r, o: _edit_record(r, 2, status="great"),
        "processes/000002.json", "not a process record"),
    "stray file among records": (
        lambda r, o: (r / "processes" / "notes.json").write_text("{}"),
        "processes/notes.json", "stray file"),
    "record of another cell": (
        lambda r, o: _edit_record(r, 3, engine="duckdb"),
        "processes/000003.json", "the plan has"),
    "record of another process index": (
        lambda r, o: _edit_record(r, 3, process=5),
        "processes/000003.json", "the plan has"),
    "record beyond the plan": (
        lambda r, o: _copy_record(r, 0, 42),
        "processes/000042.json", "not in the run's plan"),
    "plan of another run": (
        lambda r, o: shutil.copyfile(o / "plan.json", r / "plan.json"),
        "plan.json", "plan of run 'runB'"),
    "plan edited (cell changed)": (_plan_edit(_swap_cell), "processes/", "the plan has"),
    "plan corrupt": (lambda r, o: (r / "plan.json").write_text("{"), "plan.json", "corrupt plan"),
    "plan without order": (_plan_edit(lambda p: p.pop("order")), "plan.json", "not a plan"),
    "manifest deleted": (lambda r, o: (r / "manifest.json").unlink(), "manifest.json", "missing manifest"),
    "manifest corrupt": (lambda r, o: (r / "manifest.json").write_text("nul"), "manifest.json", "corrupt manifest"),
    "manifest schema version changed": (_manifest_edit(lambda m: m.update(schema_version=7)), "manifest.json",
                                        "schema_version 7"),
    # issue 25: values that pass "finite and positive" but the statistics cannot hold, and
    # stored structures that used to reach the code as the wrong type
    "wall_ns of 1e290 s (overflows the statistics)": (
        lambda r, o: _rewrite_timings(r, 2, _set_column("wall_ns", lambda v: [1e299] * len(v))),
        "timings/000002.parquet", "outside what the statistics can hold"),
    "wall_ns of 1e-300 s (underflows the statistics)": (
        lambda r, o: _rewrite_timings(r, 2, _set_column("wall_ns", lambda v: [1e-291] * len(v))),
        "timings/000002.parquet", "outside what the statistics can hold"),
    "iteration numbers near 2**62": (
        lambda r, o: _rewrite_timings(r, 1, _set_column("iteration", lambda v: [2**62 + i for i in range(len(v))])),
        "timings/000001.parquet", "column iteration holds values outside"),
    "manifest a JSON list": (lambda r, o: (r / "manifest.json").write_text("[1, 2]"), "manifest.json",
                             "not a manifest (a JSON list"),
    "manifest a JSON string": (lambda r, o: (r / "manifest.json").write_text('"run"'), "manifest.json",
                               "not a manifest (a JSON str"),
    "plan order entry not a number": (_plan_edit(lambda p: p["order"].__setitem__(0, ["a", 0, 0])), "plan.json",
                                      "order[0] is ['a', 0, 0]"),
    "plan order entry a fraction": (_plan_edit(lambda p: p["order"][0].__setitem__(0, 0.5)), "plan.json",
                                    "order[0] is [0.5"),
    "plan order entry too short": (_plan_edit(lambda p: p["order"].__setitem__(0, [0, 0])), "plan.json",
                                   "expected [seq, cell index, process]"),
    "plan order entry past the last cell": (_plan_edit(lambda p: p["order"][0].__setitem__(1, 99)), "plan.json",
                                            "names cell 99, the plan has 2 cells"),
    "plan order entry a negative cell": (_plan_edit(lambda p: p["order"][0].__setitem__(1, -1)), "plan.json",
                                         "names cell -1"),
    "plan order seq twice": (_plan_edit(lambda p: p["order"][1].__setitem__(0, p["order"][0][0])), "plan.json",
                             "appears twice"),
    "plan order seq of 10**20": (_plan_edit(lambda p: p["order"][0].__setitem__(0, 10**20)), "plan.json",
                                 "expected 0.."),
    "plan cell not an object": (_plan_edit(lambda p: p["cells"].__setitem__(0, "cell")), "plan.json",
                                "cells[0] is not a cell"),
    "record process of 10**20": (lambda r, o: _edit_record(r, 2, process=10**20), "processes/000002.json",
                                 "is not a whole number"),
    "record process a string": (lambda r, o: _edit_record(r, 2, process="0"), "processes/000002.json",
                                "is not a whole number"),
    "record rows a string": (lambda r, o: _edit_record(r, 2, rows="4"), "processes/000002.json",
                             "is not a whole number of rows"),
}


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _main(argv, capsys) -> tuple[int, str, str]:
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return int(status), out.out, out.err


@pytest.mark.parametrize("part_rows", [None, 1], ids=["whole files", "streamed a row at a time"])
@pytest.mark.parametrize("case", list(FAULTS))
def test_stored_fault_is_an_error_naming_the_file(case, part_rows, runs, capsys, monkeypatch):
    if part_rows:  # the statistics read each file in parts: every check must hold across parts
        monkeypatch.setattr(store, "PART_ROWS", part_rows)
    run_dir, other = runs
    inject, names, words = FAULTS[case]
    inject(run_dir, other)
    before = _digest(run_dir.parent)
    status, out, err = _main(["summary", str(run_dir), "--resamples", "50"], capsys)
    line = one_line_error(err)
    assert status == 2, err
    assert names in line and words in line, line
    assert out == "", "no numbers may be printed from damaged data"
    assert _digest(run_dir.parent) == before, "loading changed a stored file"
    record_matrix("stored data (unit)", case + (" (streamed)" if part_rows else ""), status, line, 0, 0)


def test_the_undamaged_run_loads(runs, capsys):
    run_dir, _ = runs
    status, out, err = _main(["summary", str(run_dir), "--resamples", "50", "--format", "csv"], capsys)
    assert status == 0 and err == ""
    assert len(store.load_runs([run_dir])) == 4 * ITER


def test_timings_without_a_record_are_not_loaded(runs):
    """A crash between the timings write and the record write: the file is not trusted."""
    run_dir, _ = runs
    _rec_path(run_dir, 3).unlink()
    with pytest.warns(store.IncompleteRunWarning):
        df = store.load_runs([run_dir])
    assert sorted(df["seq"].unique()) == [0, 1, 2]
    record_matrix("stored data (unit)", "timings file without its record (crash between writes)", 0,
                  "warning: incomplete run (1 of 4 planned processes have no record); file ignored", 0, 0)


@pytest.mark.parametrize("kept", [1, 3])
def test_an_interrupted_run_loads_with_a_warning_and_its_cells_say_so(kept, runs, capsys):
    run_dir, _ = runs
    plan = json.loads((run_dir / "plan.json").read_text())
    for seq, _, _ in plan["order"][kept:]:
        _rec_path(run_dir, seq).unlink()
        (run_dir / "timings" / f"{seq:06d}.parquet").unlink()
    _manifest_edit(lambda m: m.update(status="interrupted"))(run_dir, None)
    status, out, err = _main(["summary", str(run_dir), "--resamples", "50", "--format", "csv"], capsys)
    assert status == 0 and "Traceback" not in err
    warning = err.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith("warning: ") and \
        f"{4 - kept} of 4 planned processes have no record" in warning[0], err
    cells = [ln for ln in out.splitlines()[1:] if ln]
    assert len(cells) == 2 and sum("incomplete" in ln for ln in cells) == (2 if kept == 1 else 1), out
    recs = store.load_process_records([run_dir])  # warned once already (above)
    assert (recs["status"] == "incomplete").sum() == 4 - kept
    record_matrix("stored data (unit)", f"interrupted run ({kept} of 4 processes)", status,
                  warning[0], 0, 0)


def test_the_cli_prints_the_warning_as_one_line(runs, capsys):
    import warnings

    from harness.cli import _show_warning

    run_dir, _ = runs
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _show_warning
        _rec_path(run_dir, 0).unlink()
        store.load_runs([run_dir])
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "incomplete run" in err and len(err.strip().splitlines()) == 1
