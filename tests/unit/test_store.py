"""Raw timings: round trip, atomic never-rewritten files, clear errors on corruption."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness import store
from harness.protocol import canonical_params
from harness.errors import DataError, UserError
from harness.run.manifest import base_manifest


def _rows(n: int, seq: int = 0) -> dict[str, list]:
    return {"run_id": ["run1"] * n, "seq": [seq] * n, "benchmark": ["b.x"] * n, "params": ["n=1"] * n,
            "engine": ["e"] * n, "driver": ["d"] * n, "runtime": ["cpython3.11"] * n, "process": [0] * n,
            "iteration": list(range(n)), "pid": [123] * n, "wall_ns": [1000 + i for i in range(n)],
            "cpu_ns": [900 + i for i in range(n)], "check_ok": [True] * n, "crossings": [5] * n,
            "values_converted": [None] * n}


def _run_dir(tmp_path: Path) -> Path:
    run_dir = store.create_run_dir(tmp_path, "run1")
    base_manifest("run1", None).write(run_dir)
    return run_dir


def _commit(run_dir: Path, seq: int, n: int) -> None:
    store.write_timings(run_dir, seq, _rows(n, seq))
    store.write_process_record(run_dir, seq, {"benchmark": "b.x", "params": "n=1", "engine": "e", "runtime": "c",
                                              "process": 0, "status": "ok", "reason": "",
                                              "timings_file": f"timings/{seq:06d}.parquet"})


def test_round_trip(tmp_path):
    run_dir = _run_dir(tmp_path)
    _commit(run_dir, 0, 5)
    _commit(run_dir, 1, 3)
    df = store.load_runs([run_dir])
    assert len(df) == 8
    assert list(df.columns) == list(store.RAW_COLUMNS)
    assert df["wall_ns"].dtype == "float64"  # schema 2: float ns (sub-ns precision for imports)
    assert df.loc[df.seq == 0, "wall_ns"].tolist() == [1000, 1001, 1002, 1003, 1004]
    assert df["crossings"].tolist() == [5] * 8
    assert df["values_converted"].isna().all()


def test_files_are_never_rewritten_and_no_temp_files_remain(tmp_path):
    run_dir = _run_dir(tmp_path)
    _commit(run_dir, 0, 2)
    with pytest.raises(FileExistsError):
        store.write_timings(run_dir, 0, _rows(2))
    with pytest.raises(FileExistsError):
        store.write_process_record(run_dir, 0, {"status": "ok"})
    leftovers = [p.name for p in run_dir.rglob(".*tmp*")]
    assert leftovers == []


def test_timings_without_process_record_are_ignored(tmp_path):
    """A crash between the two writes leaves a timings file with no record: it is not trusted."""
    run_dir = _run_dir(tmp_path)
    _commit(run_dir, 0, 2)
    store.write_timings(run_dir, 1, _rows(4, 1))
    assert len(store.load_runs([run_dir])) == 2


def test_truncated_timings_file_names_the_file(tmp_path):
    run_dir = _run_dir(tmp_path)
    _commit(run_dir, 0, 50)
    path = run_dir / "timings" / "000000.parquet"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError, match="000000.parquet"):
        store.load_runs([run_dir])


def test_schema_1_files_still_read(tmp_path):
    """A schema-1 run (int64 wall_ns, as the committed reference run) loads as float64 ns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run_dir = _run_dir(tmp_path)
    _commit(run_dir, 0, 3)
    path = run_dir / "timings" / "000000.parquet"
    table = pq.read_table(path)
    i = table.schema.get_field_index("wall_ns")
    old = table.set_column(i, "wall_ns", table.column(i).cast(pa.int64()))
    pq.write_table(old.replace_schema_metadata({"crossings_schema_version": "1"}), path)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (run_dir / "manifest.json").write_text(json.dumps(dict(manifest, schema_version=1)))
    df = store.load_runs([run_dir])
    assert df["wall_ns"].dtype == "float64" and df["wall_ns"].tolist() == [1000.0, 1001.0, 1002.0]


def test_sub_nanosecond_values_survive_import(tmp_path):
    import pandas as pd

    df = pd.DataFrame({"benchmark": "b", "engine": "go", "process": [0, 1, 2], "iteration": 0,
                       "wall_ns": [0.2501, 0.3, 819.95]})
    run_dir = store.write_imported_run(tmp_path, df, {"source": "test"})
    assert store.load_runs([run_dir])["wall_ns"].tolist() == [0.2501, 0.3, 819.95]


def test_wrong_schema_version_and_missing_columns(tmp_path):
    import pyarrow.parquet as pq

    run_dir = _run_dir(tmp_path)
    _commit(run_dir, 0, 2)
    path = run_dir / "timings" / "000000.parquet"
    table = pq.read_table(path).drop(["cpu_ns"])
    pq.write_table(table.replace_schema_metadata({"crossings_schema_version": "1"}), path)
    with pytest.raises(DataError, match="lacks columns cpu_ns"):
        store.load_runs([run_dir])
    pq.write_table(table.replace_schema_metadata({"crossings_schema_version": "99"}), path)
    with pytest.raises(DataError, match="schema version"):
        store.load_runs([run_dir])


def test_corrupt_manifest_and_record(tmp_path):
    run_dir = _run_dir(tmp_path)
    _commit(run_dir, 0, 2)
    (run_dir / "processes" / "000000.json").write_text("{not json")
    with pytest.raises(DataError, match="000000.json"):
        store.load_runs([run_dir])
    (run_dir / "manifest.json").write_text(json.dumps({"schema_version": 7}))
    with pytest.raises(DataError, match="manifest.json"):
        store.load_runs([run_dir])
    with pytest.raises(UserError, match="no such run directory"):
        store.load_runs([tmp_path / "nope"])


def test_canonical_params_sorted():
    assert canonical_params({"sf": 0.1, "indexes": "on"}) == "indexes=on,sf=0.1"


def test_imported_run_loads(tmp_path):
    df = pd.DataFrame({"benchmark": ["a"] * 4, "engine": ["x"] * 4, "process": [0, 0, 1, 1],
                       "iteration": [0, 1, 0, 1], "wall_ns": [10, 11, 12, 13]})
    run_dir = store.write_imported_run(tmp_path, df, {"source": "test"})
    loaded = store.load_runs([run_dir])
    assert sorted(loaded["wall_ns"]) == [10, 11, 12, 13]
    assert loaded["seq"].nunique() == 2
