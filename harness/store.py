"""Raw timings on disk: one run directory per run, append-only, atomic, schema-versioned.

Layout of `data/runs/<run-id>/`:
  manifest.json            what was run, where, with which versions (no secrets)
  plan.json                the seeded interleaved order of processes (lets a run resume)
  processes/<seq>.json     one record per finished process: status, reason, stderr tail, pid
  timings/<seq>.parquet    that process's raw rows, one per iteration

Why Parquet, one file per process: a run may hold many millions of iterations, and analysis
loads them into pandas again and again. Parquet is columnar, typed and compressed, and pyarrow
reads it into pandas at hundreds of millions of values per second; CSV or JSON would be parsed
row by row. One file per process makes every write a new file (tmp + fsync + rename), so
nothing is ever rewritten, a crash loses only the process that was running, and a half-written
file can never be mistaken for a finished one: the process record, written after its timings,
is the commit marker.
"""
from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from harness.errors import DataError, UserError
from harness.fsutil import PROJECT_ROOT, replacing, write_json_atomic
from harness.protocol import PROCESS_STATUSES, RAW_COLUMNS, SCHEMA_VERSION

if TYPE_CHECKING:
    import pandas as pd


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def _arrow_schema():
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_()}
    schema = pa.schema([(name, types[t]) for name, t in RAW_COLUMNS.items()])
    return schema.with_metadata({"crossings_schema_version": str(SCHEMA_VERSION)})


def write_timings(run_dir: Path, seq: int, rows: dict[str, list]) -> Path:
    """Write one process's rows as `timings/<seq>.parquet`, atomically; never overwrites."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(run_dir) / "timings" / f"{seq:06d}.parquet"
    if path.exists():
        raise FileExistsError(f"{path} exists: raw timings are never rewritten")
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pydict({k: rows[k] for k in RAW_COLUMNS}, schema=_arrow_schema())
    with replacing(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return path


def write_process_record(run_dir: Path, seq: int, record: dict[str, Any]) -> Path:
    path = Path(run_dir) / "processes" / f"{seq:06d}.json"
    if path.exists():
        raise FileExistsError(f"{path} exists: process records are never rewritten")
    path.parent.mkdir(parents=True, exist_ok=True)
    record = dict(record, schema_version=SCHEMA_VERSION, seq=seq)
    write_json_atomic(path, record)
    return path


def read_json(path: Path, what: str) -> Any:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise DataError(f"{path}: missing {what}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: corrupt {what} ({exc})") from None


def read_manifest(run_dir: Path) -> dict[str, Any]:
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    manifest = read_json(run_dir / "manifest.json", "manifest")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise DataError(f"{run_dir / 'manifest.json'}: schema_version {version!r}, this harness reads {SCHEMA_VERSION}")
    return manifest


def as_run_dirs(run_dirs: Path | str | Iterable[Path | str]) -> list[Path]:
    """One path, one string or a list of either, as a list of paths (a string is one run, never
    its characters); a run named twice is kept once, so its timings are never counted twice."""
    if isinstance(run_dirs, (str, Path)):
        return [Path(run_dirs)]
    out: dict[Path, Path] = {}
    for d in map(Path, run_dirs):
        out.setdefault(d.resolve(), d)
    return list(out.values())


def load_process_records(run_dirs: Path | str | Iterable[Path | str]) -> pd.DataFrame:
    """One row per finished process (any status) across runs."""
    import pandas as pd

    records = []
    for run_dir in as_run_dirs(run_dirs):
        manifest = read_manifest(run_dir)
        for path in sorted((run_dir / "processes").glob("*.json")):
            rec = read_json(path, "process record")
            if not isinstance(rec, dict) or "status" not in rec or rec.get("status") not in PROCESS_STATUSES:
                raise DataError(f"{path}: not a process record (no valid 'status')")
            rec["run_id"] = manifest["run_id"]
            records.append(rec)
    cols = ["run_id", "seq", "benchmark", "params", "engine", "runtime", "process", "status", "reason"]
    df = pd.DataFrame.from_records(records)
    for c in cols:
        if c not in df:
            df[c] = pd.Series(dtype="object")
    return df


def _read_timings_file(path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"{path}: corrupt or truncated timings file ({exc})") from None
    meta = table.schema.metadata or {}
    version = meta.get(b"crossings_schema_version")
    if version is None or int(version) != SCHEMA_VERSION:
        raise DataError(f"{path}: timings schema version {version!r}, this harness reads {SCHEMA_VERSION}")
    missing = [c for c in RAW_COLUMNS if c not in table.column_names]
    if missing:
        raise DataError(f"{path}: timings file lacks columns {', '.join(missing)}")
    expected = _arrow_schema()
    for field in expected:
        if table.schema.field(field.name).type != field.type:
            raise DataError(f"{path}: column {field.name} has type {table.schema.field(field.name).type}, expected {field.type}")
    return table.select(list(RAW_COLUMNS))


def load_runs(run_dirs: Path | str | Iterable[Path | str]) -> pd.DataFrame:
    """All raw timings of one or more runs (a path, a string or a list of either) as one
    DataFrame, validated on load.

    Only timings whose process record exists are loaded (the record is the commit marker), so a
    file left by a crash between the two writes is ignored rather than half-trusted.
    """
    import pyarrow as pa

    tables = []
    dirs = as_run_dirs(run_dirs)
    if not dirs:
        raise UserError("no run directory given")
    for run_dir in dirs:
        read_manifest(run_dir)
        for rec_path in sorted((run_dir / "processes").glob("*.json")):
            rec = read_json(rec_path, "process record")
            name = rec.get("timings_file") if isinstance(rec, dict) else None
            if name:
                tables.append(_read_timings_file(run_dir / name))
    if not tables:
        return _arrow_schema().empty_table().to_pandas()
    df = pa.concat_tables(tables).to_pandas()
    for c in ("crossings", "values_converted"):
        df[c] = df[c].astype("Int64")
    return df


def create_run_dir(out: Path, run_id: str | None = None) -> Path:
    run_id = run_id or new_run_id()
    run_dir = Path(out) / run_id
    (run_dir / "processes").mkdir(parents=True, exist_ok=False)
    (run_dir / "timings").mkdir()
    return run_dir


def write_imported_run(out: Path, df: pd.DataFrame, manifest: dict[str, Any]) -> Path:
    """Store timings imported from another tool as a run directory (one process file each).

    `df` needs benchmark, engine, process, iteration and wall_ns; other raw columns get defaults.
    `manifest` is what the importer knows (source file, machine); run id, schema version and
    status are set here.
    """
    import pandas as pd

    run_dir = create_run_dir(Path(out))
    run_id = run_dir.name
    now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    manifest = {"schema_version": SCHEMA_VERSION, "started": now, "ended": None, "status": "running",
                "command": None, **manifest, "run_id": run_id, "imported": True}
    write_json_atomic(run_dir / "manifest.json", manifest)
    df = df.copy()
    defaults = {"params": "", "driver": "", "runtime": "unknown", "pid": 0, "cpu_ns": 0, "check_ok": True,
                "crossings": None, "values_converted": None}
    for col, val in defaults.items():
        if col not in df:
            df[col] = val
    df["run_id"] = run_id
    keys = ["benchmark", "params", "engine", "runtime", "process"]
    for seq, (key, group) in enumerate(df.groupby(keys, sort=True)):
        group = group.sort_values("iteration")
        group = group.assign(seq=seq)
        rows = {c: [None if pd.isna(v) else v for v in group[c].tolist()] if c in ("crossings", "values_converted")
                else group[c].tolist() for c in RAW_COLUMNS}
        rows["wall_ns"] = [int(round(v)) for v in rows["wall_ns"]]
        rows["cpu_ns"] = [int(round(v)) for v in rows["cpu_ns"]]
        write_timings(run_dir, seq, rows)
        write_process_record(run_dir, seq, {
            "benchmark": key[0], "params": key[1], "engine": key[2], "runtime": key[3], "process": int(key[4]),
            "status": "ok", "reason": "", "timings_file": f"timings/{seq:06d}.parquet", "imported": True,
        })
    return run_dir


def default_runs(parent: Path | None = None) -> list[Path]:
    """For interactive use: the committed reference runs, or else the newest run in data/runs."""
    ref = sorted(p for p in (PROJECT_ROOT / "data" / "reference").glob("*") if (p / "manifest.json").exists())
    if ref and parent is None:
        return ref
    runs = sorted(p for p in (parent or PROJECT_ROOT / "data" / "runs").glob("*") if (p / "manifest.json").exists())
    if not runs:
        raise UserError("no runs found: run `python -m harness run` first or give run_dirs")
    return runs[-1:]
