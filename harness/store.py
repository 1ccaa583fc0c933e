"""Raw timings on disk: one run directory per run, append-only, atomic, schema-versioned.

Layout of `data/runs/<run-id>/`:
  manifest.json            what was run, where, with which versions (no secrets)
  plan.json                the seeded interleaved order of processes (lets a run resume)
  processes/<seq>.json     one record per finished process: status, reason, stderr tail, pid
  timings/<seq>.parquet    that process's raw rows, one per iteration

Why Parquet, one file per process: a run may hold many millions of iterations, and analysis
loads them into pandas again and again. Parquet is columnar, typed and compressed, and pyarrow
reads it into pandas at hundreds of millions of values per second; CSV or JSON would be parsed
row by row. A Parquet file's footer statistics say which columns a process merely repeats (its
run id, cell, process number), so a reader checks those without decoding them. One file per
process makes every write a new file (tmp + fsync + rename), so nothing is ever rewritten, a crash loses only the process that was running, and a half-written
file can never be mistaken for a finished one: the process record, written after its timings,
is the commit marker.
"""
from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from harness.errors import DataError, UserError
from harness.fsutil import PROJECT_ROOT, replacing, settled, stat_fingerprint
from harness.fsutil import write_json_atomic  # noqa: F401 (tests write runs' files with it from here)
from harness.protocol import RAW_COLUMNS, READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION, canonical_params
from harness.record import MAX_INDEX, Manifest, Plan, ProcessRecord

if TYPE_CHECKING:
    import pandas as pd


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def _arrow_schema():
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}
    schema = pa.schema([(name, types[t]) for name, t in RAW_COLUMNS.items()])
    return schema.with_metadata({"crossings_schema_version": str(SCHEMA_VERSION)})


_PRELOAD: Any = None  # the thread importing the Parquet writer (threading.Thread), once started


def preload_writer() -> None:
    """Import the Parquet writer in a background thread (about 0.2 s, mostly waiting on files),
    so a run's start-up overlaps it with planning and probing (`wait_for_writer` joins it)."""
    import threading

    global _PRELOAD
    if _PRELOAD is None:
        def load() -> None:
            try:
                import pyarrow.parquet  # noqa: F401
            except ImportError:  # write_timings says so when it is needed
                pass

        _PRELOAD = threading.Thread(target=load, name="crossings-preload", daemon=True)
        _PRELOAD.start()


def wait_for_writer() -> None:
    """Join `preload_writer`'s import, if one was started: the runner does so before its first
    process, so the import never runs beside a measurement."""
    if _PRELOAD is not None:
        _PRELOAD.join()


def write_timings(run_dir: Path, seq: int, rows: dict[str, list]) -> Path:
    """Write one process's rows as `timings/<seq>.parquet`, atomically; never overwrites."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(run_dir) / "timings" / f"{seq:06d}.parquet"
    if path.exists():
        raise FileExistsError(f"{path} exists: raw timings are never rewritten")
    path.parent.mkdir(parents=True, exist_ok=True)
    schema = _arrow_schema()
    n = len(rows["iteration"])
    table = pa.Table.from_arrays([_column(f.type, rows[f.name], n) for f in schema], schema=schema)
    with replacing(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return path


def _column(typ, values: list, n: int):
    """A pyarrow array of `values` (None: null) built from buffers.

    Why not pa.array or Table.from_pydict: they import pandas (pyarrow checks every input for
    pandas types), about a second of a run's start-up that the runner never needs. The table
    is the same (a unit test compares them with Table.from_pydict).
    """
    import array

    import pyarrow as pa

    if len(values) != n:
        raise ValueError(f"column has {len(values)} values, expected {n}")
    valid = [v is not None for v in values]
    nulls = n - sum(valid)
    validity = None
    if nulls:
        bits = bytearray((n + 7) // 8)
        for i, ok in enumerate(valid):
            if ok:
                bits[i >> 3] |= 1 << (i & 7)
        validity = pa.py_buffer(bytes(bits))
    if pa.types.is_string(typ):
        data = [v.encode() if v is not None else b"" for v in values]
        offsets = array.array("i", [0] * (n + 1))
        total = 0
        for i, b in enumerate(data):
            total += len(b)
            offsets[i + 1] = total
        return pa.Array.from_buffers(typ, n, [validity, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(data))],
                                     null_count=nulls)
    if pa.types.is_boolean(typ):
        bits = bytearray((n + 7) // 8)
        for i, v in enumerate(values):
            if v:
                bits[i >> 3] |= 1 << (i & 7)
        return pa.Array.from_buffers(typ, n, [validity, pa.py_buffer(bytes(bits))], null_count=nulls)
    code = "q" if pa.types.is_int64(typ) else "d"
    if not (pa.types.is_int64(typ) or pa.types.is_float64(typ)):
        raise TypeError(f"no column builder for {typ}")
    fill = 0 if code == "q" else 0.0
    data = array.array(code, [fill if v is None else v for v in values])
    return pa.Array.from_buffers(typ, n, [validity, pa.py_buffer(data.tobytes())], null_count=nulls)


def write_process_record(run_dir: Path, seq: int, record: dict[str, Any]) -> Path:
    """`processes/<seq>.json` of `record` with this harness's schema version and `seq`, checked
    and written by `record.ProcessRecord.write` (never rewritten: a FileExistsError)."""
    path = Path(run_dir) / "processes" / f"{seq:06d}.json"
    if path.exists():
        raise FileExistsError(f"{path} exists: process records are never rewritten")
    data = dict(record, schema_version=SCHEMA_VERSION, seq=seq)
    return ProcessRecord.from_dict(data, seq, str(path)).write(run_dir)


def read_json(path: Path, what: str) -> Any:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise DataError(f"{path}: missing {what}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: corrupt {what} ({exc})") from None


def manifest_of(run_dir: Path) -> Manifest:
    """A run's manifest, checked (`record.Manifest.from_dict`)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    path = run_dir / "manifest.json"
    return Manifest.from_dict(read_json(path, "manifest"), str(path))


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """`manifest_of` as the JSON object (for tests and scripts; the harness reads the typed record)."""
    return manifest_of(run_dir).to_dict()


class IncompleteRunWarning(UserWarning):
    """A run whose plan has processes without a record (interrupted, killed, or still running)."""


class DuplicateRunWarning(UserWarning):
    """The same run (one run id, the same records) given twice, under two paths: used once."""


#: the wall times (ns) a stored run may hold: 1 attosecond to about 31 years. Why: the statistics
#: square, sum and take logs of times in seconds over millions of values; 1e300 s overflows them
#: and 1e-300 s underflows, while anything measured or imported (1 ps .. 1 day) fits with room
STORED_WALL_NS = (1e-9, 1e18)
#: the process statuses whose timings enter an estimate: an `error`, `failed` or `timeout`
#: process may have stored some timings, but they are not a measurement of the cell (the cell's
#: status counts them: "error (1/3 processes)")
ESTIMATED_STATUSES = ("ok", "invalid")


#: records already read, per processes folder: (the stat fingerprint of its files, the records)
_RECORDS_READ: dict[str, tuple[str, dict[int, ProcessRecord]]] = {}


def records_of(run_dir: Path) -> dict[int, ProcessRecord]:
    """A run's process records by seq, each checked (`record.ProcessRecord.from_dict`: a JSON
    object with a valid status whose `seq` is its file name's). A stray or malformed file is a
    DataError naming it.

    A summary, its run facts and a study's raw rows each need the records, and a dozen runs
    hold thousands: they are read once per process and read again only when a file in the folder
    is added, removed or changed (`fsutil.stat_fingerprint`)."""
    folder = Path(run_dir) / "processes"
    paths = sorted(folder.glob("*.json"))
    seen, newest = stat_fingerprint(paths)
    key = os.path.abspath(folder)
    known = _RECORDS_READ.get(key)
    if known is None or known[0] != seen:
        known = (seen, _read_process_records(paths))
        if settled(newest):
            _RECORDS_READ[key] = known
    return dict(known[1])


def process_records(run_dir: Path) -> dict[int, dict[str, Any]]:
    """`records_of` as JSON objects (fresh dicts), for tests and scripts; the harness reads the typed records."""
    return {seq: rec.to_dict() for seq, rec in records_of(run_dir).items()}


def _read_process_records(paths: list[Path]) -> dict[int, ProcessRecord]:
    records: dict[int, ProcessRecord] = {}
    for path in paths:
        if not path.stem.isdigit():
            raise DataError(f"{path}: stray file among the process records (they are named <seq>.json)")
        seq = int(path.stem)
        records[seq] = ProcessRecord.from_dict(read_json(path, "process record"), seq, str(path))
    return records


def plan_of(run_dir: Path) -> Plan | None:
    """The run's plan, checked (`record.Plan.from_dict`), or None for runs that have none (imported ones)."""
    path = Path(run_dir) / "plan.json"
    if not path.exists():
        return None
    return Plan.from_dict(read_json(path, "plan"), str(path))


def read_plan(run_dir: Path) -> dict[str, Any] | None:
    """`plan_of` as the JSON object, for tests and scripts; the harness reads the typed record."""
    plan = plan_of(run_dir)
    return None if plan is None else plan.to_dict()


def verify_records(run_dir: Path, manifest: Manifest, plan: Plan | None,
                   records: dict[int, ProcessRecord]) -> int:
    """Check each record against the plan (same cell and process at that seq); returns how many
    planned processes have no record. A record the plan does not hold is a DataError."""
    if plan is None:
        return 0
    run_dir = Path(run_dir)
    if plan.get("run_id") != manifest.get("run_id"):  # absent in either: None, as written
        raise DataError(f"{run_dir / 'plan.json'}: plan of run {plan.get('run_id')!r}, "
                        f"the manifest is run {manifest.get('run_id')!r}")
    order = {seq: (index, process) for seq, index, process in plan.order}
    for seq, rec in records.items():
        path = run_dir / "processes" / f"{seq:06d}.json"
        if seq not in order:
            raise DataError(f"{path}: seq {seq} is not in the run's plan")
        index, process = order[seq]
        cell = plan.cells[index]
        want = (cell.benchmark, canonical_params(dict(cell.params)), cell.engine, cell.runtime, process)
        got = (rec.benchmark, rec.params, rec.engine,
               rec.get("runtime_family", cell.runtime), rec.get("process"))
        if got != want:
            raise DataError(f"{path}: records {got[0]}[{got[1]}] {got[2]} {got[3]} process {got[4]}, "
                            f"the plan has {want[0]}[{want[1]}] {want[2]} {want[3]} process {want[4]} at seq {seq}")
    return len(order) - len(records)


_WARNED: set[tuple[str, int]] = set()


def _warn_incomplete(run_dir: Path, manifest: Manifest, missing: int, planned: int) -> None:
    """Once per run directory and state (the timings and the records are both loaded)."""
    import warnings

    key = (str(Path(run_dir).resolve()), missing)
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(f"{run_dir}: incomplete run ({manifest.status}): {missing} of {planned} planned processes "
                  f"have no record; finish it with: python -m harness run --resume {run_dir}",
                  IncompleteRunWarning, stacklevel=3)


def as_run_dirs(run_dirs: Path | str | Iterable[Path | str]) -> list[Path]:
    """One path, one string or a list of either, as a list of paths (a string is one run, never
    its characters); a run named twice is kept once, so its timings are never counted twice."""
    if isinstance(run_dirs, (str, Path)):
        return [Path(run_dirs)]
    out: dict[Path, Path] = {}
    for d in map(Path, run_dirs):
        out.setdefault(d.resolve(), d)
    return _one_per_run_id(list(out.values()))


def _one_per_run_id(dirs: list[Path]) -> list[Path]:
    """Runs are identified by run id, not path: a copy of a run beside it (data/runs/X and
    data/reference/X) is used once, with a one-line warning; two different runs with one id
    (their records differ) are a DataError naming both paths. A directory whose manifest
    cannot be read is kept: its load says what is wrong with it."""
    if len(dirs) < 2:
        return dirs
    first: dict[str, Path] = {}
    out = []
    for d in dirs:
        try:
            manifest = manifest_of(d)
        except UserError:
            out.append(d)
            continue
        run_id: Any = manifest.run_id or None
        shard = manifest.shard or _plan_shard(d)
        if isinstance(run_id, str) and isinstance(shard, dict):  # the shards of one run share its id
            run_id = f"{run_id} (shard {shard.get('index')} of {shard.get('count')})"
        if not isinstance(run_id, str) or run_id not in first:
            if isinstance(run_id, str):
                first[run_id] = d
            out.append(d)
            continue
        kept = first[run_id]
        if _run_content(kept) != _run_content(d):
            raise DataError(f"{kept} and {d}: two different runs with one run id {run_id!r} "
                            "(their plans or process records differ); give one of them")
        _warn_duplicate(kept, d)
    return out


def _plan_shard(run_dir: Path) -> Any:
    """The `shard` entry of a run's plan (a shard of a sharded run), or None."""
    try:
        plan = plan_of(run_dir)
    except DataError:
        return None
    return None if plan is None else plan.shard


def _run_content(run_dir: Path) -> str:
    """A digest of what makes a run the run it is: its plan and its process records, by name."""
    import hashlib

    h = hashlib.sha256()
    for p in [run_dir / "plan.json", *sorted((run_dir / "processes").glob("*.json"))]:
        h.update(p.name.encode() + b"\0")
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"<unreadable>")
        h.update(b"\0")
    return h.hexdigest()


def _warn_duplicate(kept: Path, dropped: Path) -> None:
    import warnings

    key = (str(kept.resolve()), str(dropped.resolve()))
    if key in _WARNED_DUP:
        return
    _WARNED_DUP.add(key)
    warnings.warn(f"{dropped} is the same run as {kept}: used once", DuplicateRunWarning, stacklevel=4)


_WARNED_DUP: set[tuple[str, str]] = set()


def load_process_records(run_dirs: Path | str | Iterable[Path | str]) -> pd.DataFrame:
    """One row per process (any status) across runs, verified against each run's plan.

    A planned process without a record (an interrupted run) gets a row with status
    `incomplete`, so its cell says the run did not finish it, and a warning is issued."""
    import pandas as pd

    rows = []
    for run_dir in as_run_dirs(run_dirs):
        manifest = manifest_of(run_dir)
        plan = plan_of(run_dir)
        records = records_of(run_dir)
        missing = verify_records(run_dir, manifest, plan, records)
        for rec in records.values():
            rows.append(dict(rec.to_dict(), run_id=manifest.run_id))
        if missing:
            assert plan is not None  # a run without a plan misses nothing
            _warn_incomplete(run_dir, manifest, missing, len(plan.order))
            for seq, index, process in plan.order:
                if seq not in records:
                    cell = plan.cells[index]
                    rows.append({"run_id": manifest.run_id, "seq": seq, "benchmark": cell.benchmark,
                                 "params": canonical_params(dict(cell.params)), "engine": cell.engine,
                                 "runtime": cell.runtime, "runtime_family": cell.runtime, "process": process,
                                 "status": "incomplete",
                                 "reason": f"not run: the run is incomplete ({manifest.status}); "
                                           f"resume it with --resume"})
    cols = ["run_id", "seq", "benchmark", "params", "engine", "runtime", "process", "status", "reason"]
    df = pd.DataFrame.from_records(rows)
    for c in cols:
        if c not in df:
            df[c] = pd.Series(dtype="object")
    return df


def count_statuses(run_dir: Path) -> dict[str, int]:
    """Processes per status, counted from the records on disk (what a manifest's
    `process_counts` must say, however many segments and kills the run went through)."""
    counts: dict[str, int] = {}
    for rec in records_of(run_dir).values():
        counts[rec.status] = counts.get(rec.status, 0) + 1
    return dict(sorted(counts.items()))


def _open_timings(path: Path) -> tuple[Any, bool]:
    """A timings file opened with its schema checked (version, columns, types), its strings
    dictionary-encoded as stored (a process's rows repeat one run id, cell and runtime: 4 bytes a
    row per string column, not a copy of its text); also whether wall_ns is schema 1's int64."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    strings = [name for name, t in RAW_COLUMNS.items() if t == "string"]
    try:
        f = pq.ParquetFile(path, read_dictionary=strings, pre_buffer=False)
    except FileNotFoundError:
        raise DataError(f"{path}: missing timings file (its process record names it)") from None
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"{path}: corrupt or truncated timings file ({exc})") from None
    schema = f.schema_arrow
    version = (schema.metadata or {}).get(b"crossings_schema_version")
    if version is None or not version.isdigit() or int(version) not in READABLE_SCHEMA_VERSIONS:
        f.close()
        raise DataError(f"{path}: timings schema version {version!r}, this harness reads "
                        f"{', '.join(map(str, READABLE_SCHEMA_VERSIONS))}")
    missing = [c for c in RAW_COLUMNS if c not in schema.names]
    if missing:
        f.close()
        raise DataError(f"{path}: timings file lacks columns {', '.join(missing)}")
    # schema 1 stored whole nanoseconds as int64: widened to the current float64 as read
    widen = int(version) == 1 and schema.field("wall_ns").type == pa.int64()
    for field in _arrow_schema():
        typ = pa.float64() if widen and field.name == "wall_ns" else schema.field(field.name).type
        if pa.types.is_dictionary(typ) and pa.types.is_string(field.type):
            typ = typ.value_type
        if typ != field.type:
            f.close()
            raise DataError(f"{path}: column {field.name} has type {typ}, expected {field.type}")
    return f, widen


def _as_current(table, widen: bool, columns: list[str] | None = None):
    """The raw columns (or `columns` of them) in order, wall_ns as float64."""
    import pyarrow as pa

    if widen:
        i = table.schema.get_field_index("wall_ns")
        table = table.set_column(i, "wall_ns", table.column(i).cast(pa.float64()))
    return table.select(columns or list(RAW_COLUMNS))


def _read_timings_file(path: Path):
    import pyarrow as pa

    f, widen = _open_timings(path)
    try:
        with f:  # ParquetFile.read: half the per-file cost of pq.read_table
            table = f.read()
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"{path}: corrupt or truncated timings file ({exc})") from None
    return _as_current(table, widen)


def _timings_parts(path: Path, check: TimingsCheck, rows: int, opened: tuple[Any, bool] | None = None,
                   columns: list[str] | None = None) -> Iterator[Any]:
    """The file in tables of at most `rows` rows, each checked as it is read, then the whole-file
    checks (`TimingsCheck.done`): a reader keeps only what it reduces of each part. `opened`:
    the file as `_open_timings` gave it, if the caller opened it already (closed here).
    `columns`: decode only these, and those of the checks the footer does not prove
    (`TimingsCheck.footer`), in the raw order."""
    import pyarrow as pa

    f, widen = opened or _open_timings(path)
    with f:
        read = None
        if columns is not None:
            check.footer(f.metadata)
            needed = set(columns) | {"wall_ns", "iteration"} | (set(check.want) - check.proven)
            read = [c for c in RAW_COLUMNS if c in needed]
        # one row group decoded at a time (iter_batches reads ahead: twice the memory), cut
        # into parts of at most `rows` rows without copying
        for group in range(f.metadata.num_row_groups):
            try:
                table = f.read_row_group(group, columns=read)
            except (pa.ArrowInvalid, OSError) as exc:
                raise DataError(f"{path}: corrupt or truncated timings file ({exc})") from None
            table = _as_current(table, widen, read)
            for at in range(0, table.num_rows, rows):
                part = table.slice(at, rows)
                check.part(part)
                yield part
            del table
    check.done()


def plain_strings(table):
    """`table` with its dictionary-encoded string columns as plain strings (the raw schema)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for i, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(i, field.name, pc.cast(table.column(i), field.type.value_type))
    return table


class TimingsCheck:
    """A timings file must belong to its record: same run, seq, cell and process, the row count
    the record (or the plan) says, each iteration once, wall times finite, positive and within
    what the statistics hold, process and iteration numbers within MAX_INDEX. Made part by part
    (`part`), then for the whole file (`done`), so a file can be checked as it streams."""

    def __init__(self, path: Path, run_id: str, rec: ProcessRecord, expected_rows: int | None) -> None:
        self.path = path
        self.expected_rows = expected_rows
        self.want = {"run_id": run_id, "seq": rec.seq, "benchmark": rec.benchmark,
                     "params": rec.params, "engine": rec.engine, "process": rec.get("process")}
        self.rows = 0
        #: iteration columns kept for the each-once check, only once a part is not simply the
        #: next run of numbers (the usual file, 0..n-1 in order, needs none of them kept)
        self.iterations: list = []
        self.in_order = True
        #: the columns of `want` that the file's footer proves hold only their record's value
        #: (`footer`): not decoded, not checked again part by part
        self.proven: set[str] = set()

    def footer(self, metadata) -> None:
        """Prove from the Parquet footer's statistics what it can: a column of `want` whose every
        row group says min == max == the record's value and no nulls holds nothing else. A column
        whose statistics are missing, truncated or say otherwise is left to `part` (decoded and
        checked row by row, with its message)."""
        self.proven = {col for col, value in self.want.items()
                       if column_constant(metadata, col) == (True, value)}

    def part(self, table) -> None:
        import pyarrow.compute as pc

        n, path = table.num_rows, self.path
        if n == 0:
            return
        for col, value in self.want.items():
            if col in self.proven:
                continue
            values = list(dict.fromkeys(pc.unique(table.column(col)).to_pylist()))  # one per dictionary chunk
            if values != [value]:
                shown = ", ".join(map(repr, values[:3]))
                raise DataError(f"{path}: column {col} holds {shown}, its process record says {value!r} "
                                "(a timings file of another process or run?)")
        wall = table.column("wall_ns")
        if wall.null_count:
            raise DataError(f"{path}: {wall.null_count} wall_ns values are missing")
        bad = n - pc.sum(pc.and_(pc.is_finite(pc.cast(wall, "double")), pc.greater(wall, 0))).as_py()
        if bad:
            raise DataError(f"{path}: {bad} wall_ns values are not finite and positive "
                            f"(min {pc.min(wall).as_py()}, max {pc.max(wall).as_py()})")
        lo, hi = STORED_WALL_NS
        low, high = pc.min(wall).as_py(), pc.max(wall).as_py()
        if low < lo or high > hi:
            raise DataError(f"{path}: wall_ns from {low:g} to {high:g} ns, outside what the statistics can hold "
                            f"({lo:g} to {hi:g} ns)")
        for col in ("process", "iteration"):
            if col in self.proven:  # the record's process number, checked with the record
                continue
            c = table.column(col)
            if c.null_count or pc.min(c).as_py() < 0 or pc.max(c).as_py() >= MAX_INDEX:
                raise DataError(f"{path}: column {col} holds values outside 0..{MAX_INDEX - 1}")
        its = table.column("iteration").to_numpy()
        if self.in_order and not is_range(its, self.rows):
            import numpy as np

            self.in_order = False
            self.iterations = [np.arange(self.rows)]  # what the parts before said, in order
        if not self.in_order:
            self.iterations.append(its)
        self.rows += n

    def done(self) -> None:
        import numpy as np

        if self.rows == 0:
            raise DataError(f"{self.path}: timings file has no rows")
        if self.expected_rows is not None and self.rows != self.expected_rows:
            raise DataError(f"{self.path}: {self.rows} rows, its process record says {self.expected_rows}")
        if not self.in_order:
            its = np.concatenate(self.iterations) if len(self.iterations) > 1 else self.iterations[0]
            if len(np.unique(its)) != self.rows:
                raise DataError(f"{self.path}: an iteration appears twice")
        self.iterations = []


def _column_stats(metadata, name: str) -> list | None:
    """Per row group the statistics of column `name` (None: a group has none, or no such column)."""
    try:
        i = metadata.schema.names.index(name)
    except ValueError:
        return None
    out = []
    for g in range(metadata.num_row_groups):
        st = metadata.row_group(g).column(i).statistics
        if st is None or not st.has_null_count:
            return None
        out.append(st)
    return out


def column_constant(metadata, name: str) -> tuple[bool, Any]:
    """(True, value) if a Parquet file's footer proves that column `name` holds one value in every
    row (each row group: no nulls and min == max, the same in all; or every value null: None),
    else (False, None). Why: a process's rows repeat its run id, cell, process number and
    usually its counts; the footer's statistics say so without decoding them."""
    stats = _column_stats(metadata, name)
    if not stats:
        return False, None
    values = set()
    for g, st in enumerate(stats):
        if st.null_count == metadata.row_group(g).num_rows and not st.has_min_max:
            values.add(None)
        elif st.null_count != 0 or not st.has_min_max or st.min != st.max:
            return False, None
        else:
            values.add(st.min)
    return (True, values.pop()) if len(values) == 1 else (False, None)


def is_range(values: Any, start: int = 0, chunk: int = 1 << 16) -> bool:
    """Whether `values` (a numpy integer array) is start, start+1, ... in order, compared a chunk
    at a time (no temporary array the size of a long process)."""
    import numpy as np

    n = len(values)
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        if not np.array_equal(values[a:b], np.arange(start + a, start + b)):
            return False
    return True


def verify_timings(path: Path, table, run_id: str, rec: ProcessRecord, expected_rows: int | None) -> None:
    """`TimingsCheck` of a whole table."""
    check = TimingsCheck(path, run_id, rec, expected_rows)
    check.part(table)
    check.done()


def _expected_rows(rec: ProcessRecord, plan: Plan | None) -> int | None:
    if rec.has("rows"):
        return int(rec.rows)  # type: ignore[arg-type]
    if plan is not None and rec.status == "ok" and not rec.budget_stop:
        return int(plan.iterations)  # type: ignore[arg-type]  # runs recorded before `rows` existed
    return None


def iter_timings(run_dirs: Path | str | Iterable[Path | str],
                 benchmark: Callable[[str], bool] | None = None,
                 statuses: tuple[str, ...] | None = ESTIMATED_STATUSES) -> Iterator[tuple[Path, Any]]:
    """(path, verified pyarrow table) of every timings file of one or more runs, in load order
    (with `benchmark`, only the files of processes whose benchmark it accepts: the records are
    still all verified, the other files not read).

    Only timings whose process record exists are read (the record is the commit marker), so a
    file left by a crash between the two writes is ignored rather than half-trusted. Each file
    must match its record and the records the plan (`verify_timings`, `verify_records`); any
    mismatch is a DataError naming the file. An incomplete run gives an IncompleteRunWarning.
    One file at a time: a reader that reduces each table keeps memory bounded by one process.
    Only processes whose status is in `statuses` (None: all) are read: by default those whose
    timings are a measurement (ESTIMATED_STATUSES), so an errored process never enters an estimate.
    String columns come dictionary-encoded (`plain_strings` decodes them).
    """
    for path, run_id, rec, expected in _timings_to_read(run_dirs, benchmark, statuses):
        table = _read_timings_file(path)
        verify_timings(path, table, run_id, rec, expected)
        yield path, table


#: rows per part when a timings file is streamed (`iter_timing_parts`): about 90 MB of columns
PART_ROWS = 1 << 20


def iter_timing_parts(run_dirs: Path | str | Iterable[Path | str],
                      statuses: tuple[str, ...] | None = ESTIMATED_STATUSES,
                      rows: int | None = None, columns: list[str] | None = None
                      ) -> Iterator[tuple[Path, int, Iterator[Any]]]:
    """As `iter_timings`: (path, rows the file holds, its parts), each part a table of at most
    `rows` rows checked as it is read; the whole-file checks run after its last part, so a
    reader must read every part before it trusts what it reduced (a DataError otherwise). Why:
    one process of 10 million iterations would otherwise be one table of about 900 MB.

    `columns`: the parts (a `TimingParts`) hold these columns but those the file's footer proves
    constant (given as its `constants`), and any a check needs that the footer does not prove
    (`TimingsCheck.footer`); the others are never decoded: a summary decodes 3 of the 15 columns
    of the usual file (iteration, wall time, check), half the work of reading all of it."""
    for path, run_id, rec, expected in _timings_to_read(run_dirs, None, statuses):
        # opened and its schema checked once (a third of a millisecond a file, ten thousand files
        # in a dozen runs): the parts read from this handle, and close it when read
        opened = _open_timings(path)
        check = TimingsCheck(path, run_id, rec, expected)
        if columns is None:
            yield path, opened[0].metadata.num_rows, _timings_parts(path, check, rows or PART_ROWS, opened)
            continue
        metadata = opened[0].metadata
        constants = {c: v for c in columns for ok, v in [column_constant(metadata, c)] if ok}
        read = [c for c in columns if c not in constants]
        yield path, metadata.num_rows, TimingParts(constants, _timings_parts(
            path, check, rows or PART_ROWS, opened, read))


class TimingParts:
    """The parts of one timings file (`iter_timing_parts` with `columns`), and `constants`: the
    asked-for columns the footer proves hold one value (`column_constant`), left out of the parts."""

    def __init__(self, constants: dict[str, Any], parts: Iterator[Any]) -> None:
        self.constants = constants
        self._parts = parts

    def __iter__(self) -> Iterator[Any]:
        return self._parts


def _timings_to_read(run_dirs: Path | str | Iterable[Path | str], benchmark: Callable[[str], bool] | None,
                     statuses: tuple[str, ...] | None) -> Iterator[tuple[Path, str, ProcessRecord, int | None]]:
    """(path, run id, record, expected rows) of each timings file to read, the runs' manifests,
    plans and records verified first."""
    dirs = as_run_dirs(run_dirs)
    if not dirs:
        raise UserError("no run directory given")
    for run_dir in dirs:
        manifest = manifest_of(run_dir)
        plan = plan_of(run_dir)
        records = records_of(run_dir)
        missing = verify_records(run_dir, manifest, plan, records)
        if missing:
            assert plan is not None  # a run without a plan misses nothing
            _warn_incomplete(run_dir, manifest, missing, len(plan.order))
        for seq, rec in sorted(records.items()):
            name = rec.timings_file
            if not name or (benchmark is not None and not benchmark(str(rec.benchmark))):
                continue
            if statuses is not None and rec.status not in statuses:
                continue
            if name != f"timings/{seq:06d}.parquet":
                raise DataError(f"{run_dir / 'processes' / f'{seq:06d}.json'}: names timings file {name!r}, "
                                f"expected timings/{seq:06d}.parquet")
            yield run_dir / name, manifest.run_id, rec, _expected_rows(rec, plan)


def input_files(run_dirs: Path | str | Iterable[Path | str]) -> list[Path]:
    """Every file a load of these runs reads (manifest, plan, records, timings), in a fixed
    order: what a cache of anything derived from the runs must hash."""
    out: list[Path] = []
    for run_dir in as_run_dirs(run_dirs):
        run_dir = Path(run_dir)
        out += [p for p in (run_dir / "manifest.json", run_dir / "plan.json") if p.exists()]
        out += sorted((run_dir / "processes").glob("*.json"))
        out += sorted((run_dir / "timings").glob("*.parquet"))
    return out


def load_runs(run_dirs: Path | str | Iterable[Path | str],
              benchmark: Callable[[str], bool] | None = None) -> pd.DataFrame:
    """All raw timings of one or more runs (a path, a string or a list of either) as one
    DataFrame, verified on load (`iter_timings`); with `benchmark`, those of the benchmarks it
    accepts (only their files are read)."""
    import pyarrow as pa

    tables = [plain_strings(table) for _, table in iter_timings(run_dirs, benchmark)]
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

    run_dir = create_run_dir(Path(out))
    run_id = run_dir.name
    now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    df = df.copy()
    defaults = {"params": "", "driver": "", "runtime": "unknown", "pid": 0, "cpu_ns": 0, "check_ok": True,
                "crossings": None, "values_converted": None}
    for col, val in defaults.items():
        if col not in df:
            df[col] = val
    df["run_id"] = run_id
    try:
        record = Manifest.from_dict({"schema_version": SCHEMA_VERSION, "started": now, "ended": None,
                                     "status": "running", "command": None, **manifest, "run_id": run_id,
                                     "imported": True})
        record.write(run_dir)
        _write_imported_processes(run_dir, df)
        check_run(run_dir)  # what nothing could read back is never reported as imported
    except BaseException:
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)  # a half-imported run must not look like a run
        raise
    record.with_(status="complete", ended=time.strftime("%Y-%m-%dT%H:%M:%S%z")).write(run_dir)
    return run_dir


def _write_imported_processes(run_dir: Path, df: pd.DataFrame) -> None:
    import pandas as pd

    keys = ["benchmark", "params", "engine", "runtime", "process"]
    for seq, (key, group) in enumerate(df.groupby(keys, sort=True)):
        group = group.sort_values("iteration")
        group = group.assign(seq=seq)
        rows = {c: [None if pd.isna(v) else v for v in group[c].tolist()] if c in ("crossings", "values_converted")
                else group[c].tolist() for c in RAW_COLUMNS}
        rows["wall_ns"] = [float(v) for v in rows["wall_ns"]]  # sub-ns precision kept (schema 2)
        rows["cpu_ns"] = [int(round(v)) for v in rows["cpu_ns"]]
        write_timings(run_dir, seq, rows)
        write_process_record(run_dir, seq, {
            "benchmark": key[0], "params": key[1], "engine": key[2], "runtime": key[3], "process": int(key[4]),
            "status": "ok", "reason": "", "timings_file": f"timings/{seq:06d}.parquet", "imported": True,
            "rows": len(group),
        })


def check_run(run_dir: Path) -> int:
    """Read a run back with every check a load makes (manifest, plan, records, each timings file,
    whatever its status); returns the rows read. A DataError names what is wrong.
    Why: an importer or a folder-level command asks this before trusting a run."""
    return sum(table.num_rows for _, table in iter_timings(Path(run_dir), statuses=None))


def runs_under(folder: Path) -> list[Path]:
    """The run directories directly inside `folder` (those with a manifest), in run-id order."""
    return sorted(p for p in Path(folder).glob("*") if (p / "manifest.json").is_file())


def default_runs(parent: Path | None = None) -> list[Path]:
    """For interactive use: the committed reference runs, or else the newest run in data/runs."""
    ref = runs_under(PROJECT_ROOT / "data" / "reference")
    if ref and parent is None:
        return ref
    runs = runs_under(parent or PROJECT_ROOT / "data" / "runs")
    if not runs:
        raise UserError("no runs found: run `python -m harness run` first or give run_dirs")
    return runs[-1:]
