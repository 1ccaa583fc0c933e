"""A run's records as typed values: its manifest, its plan and its process records.

Why: `manifest.json`, `plan.json` and `processes/<seq>.json` were dicts read with `.get` chains
in a dozen modules, each with its own idea of what a key may hold. Here each is a frozen
dataclass built by `from_dict`, which makes every schema check the store used to make (one
place), and `to_dict` gives back exactly the object read (same keys, same order): keys this
harness does not read are kept in `extra`, so nothing is lost in a round trip.

Each record is also written here (`write`: atomically, `fsutil.write_json_atomic`, the bytes the
harness always wrote: indented, keys sorted), after the same checks a read makes, so a record
the harness could not read back is never written.

Low in the layering: the standard library, `errors`, `protocol` and `fsutil` only.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from harness.errors import DataError
from harness.fsutil import write_json_atomic
from harness.protocol import PROCESS_STATUSES, READABLE_SCHEMA_VERSIONS, canonical_params

#: the bound of a seq, process or iteration number (whole numbers from 0): far above any run,
#: far below what int64 arithmetic on them could overflow
MAX_INDEX = 2**40


def is_int(v: Any) -> bool:
    """A whole number that is not a bool (JSON's true is not a process number)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _spec(types: tuple[type, ...] | None = None, default: Any = None) -> Any:
    """A field read from the JSON object: `types` it may hold when present and not null (None:
    anything), `default` when absent (a fresh copy of a dict or list default)."""
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(), metadata={"types": types})
    return field(default=default, metadata={"types": types})


class _Record:
    """from_dict / to_dict shared by the records: typed fields, `extra`, and the keys as read."""

    extra: Mapping[str, Any]
    keys: tuple[str, ...]

    @classmethod
    def _fields(cls) -> tuple[dataclasses.Field, ...]:
        return _record_fields(cls)

    @classmethod
    def _build(cls, data: Mapping[str, Any], where: str, what: str) -> Any:
        """The record of `data`, each present field of its declared type (a DataError naming
        `where` otherwise); absent fields take their defaults; the rest goes to `extra`."""
        values: dict[str, Any] = {}
        names = set()
        for f in cls._fields():
            names.add(f.name)
            if f.name not in data:
                continue
            v, types = data[f.name], f.metadata.get("types")
            if v is not None and types and not isinstance(v, types):
                raise DataError(f"{where}: {what} field {f.name!r} is {v!r}, expected "
                                f"{' or '.join(t.__name__ for t in types)}")
            values[f.name] = v
        extra = {k: v for k, v in data.items() if k not in names}
        return cls(**values, extra=extra, keys=tuple(data))  # type: ignore[call-arg]

    def _write_checked(self, path: Path) -> Path:
        """`to_dict()` checked by the class's own `from_dict` (what a read would refuse is never
        written), then written atomically to `path`, replacing it."""
        data = self.to_dict()
        type(self).from_dict(data, str(path))  # type: ignore[attr-defined]
        write_json_atomic(path, data)
        return path

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: the keys read, in their order (a record built here: its fields that
        differ from their defaults, then `extra`)."""
        fields = self._fields()
        keys = self.keys
        if not keys:
            keys = tuple(f.name for f in fields if getattr(self, f.name) != _default(f)) + tuple(self.extra)
        extra, value = self.extra, self._value
        return {k: (extra[k] if k in extra else value(k)) for k in keys}

    def _value(self, name: str) -> Any:
        return getattr(self, name)

    def has(self, name: str) -> bool:
        """Whether the JSON object holds `name` (a record read: among its keys; one built in
        code: a field that differs from its default, or a key of `extra`)."""
        return name in (self.keys or self.to_dict())

    def get(self, name: str, default: Any = None) -> Any:
        """`name` as the JSON object holds it, `default` when it does not (a dict's `get`: for a
        check that must tell an absent key from its field's default)."""
        return self.to_dict().get(name, default) if not self.keys else (
            (self.extra[name] if name in self.extra else self._value(name)) if name in self.keys else default)

    def with_(self, **changes: Any) -> Any:
        """This record with `changes` made as a dict's `update` makes them: a key it holds keeps its
        place, a new one comes last (a field, or kept in `extra` when no field has its name).
        Not checked: `write` checks what it writes."""
        names = {f.name for f in self._fields()}
        fields = {k: v for k, v in changes.items() if k in names}
        extra = dict(self.extra)
        extra.update((k, v) for k, v in changes.items() if k not in names)
        keys = self.keys or tuple(self.to_dict())
        keys += tuple(k for k in changes if k not in keys)
        return dataclasses.replace(self, **fields, extra=extra, keys=keys)  # type: ignore[type-var]


@functools.lru_cache(maxsize=None)
def _record_fields(cls: type) -> tuple[dataclasses.Field, ...]:
    """A record class's JSON fields (not `extra` and `keys`), computed once per class."""
    return tuple(f for f in dataclasses.fields(cls) if f.name not in ("extra", "keys"))


def _default(f: dataclasses.Field) -> Any:
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return f.default


_OBJ = (dict,)
_STR = (str,)


@dataclass(frozen=True)
class Manifest(_Record):
    """`manifest.json`: what was run, where, with which versions."""

    schema_version: int = _spec((int,))
    run_id: str = _spec(_STR, "")
    status: str | None = _spec(_STR)
    started: str | None = _spec(_STR)
    ended: str | None = _spec(_STR)
    command: list[str] | str | None = _spec((list, str))
    imported: bool = _spec((bool,), False)
    source: Any = _spec(None, {})  # an importer's: file, format, engine (an object, or what it recorded)
    configuration: Mapping[str, Any] = _spec(_OBJ, {})
    machine: Mapping[str, Any] = _spec(_OBJ, {})
    libraries: Mapping[str, Any] = _spec(_OBJ, {})
    python: Mapping[str, Any] = _spec(_OBJ, {})
    engines: Mapping[str, Any] = _spec(_OBJ, {})
    project: Mapping[str, Any] = _spec(_OBJ, {})
    cpu_clock: Mapping[str, Any] | None = _spec(_OBJ)
    adaptive: Mapping[str, Any] | None = _spec(_OBJ)
    doctor: Any = _spec()
    segments: list[Mapping[str, Any]] = _spec((list,), [])  # each start and resume: commit, machine, times
    noise_control: list[Mapping[str, Any]] = _spec((list,), [])  # each segment's CPUs and threshold
    servers: list[Mapping[str, Any]] = _spec((list,), [])  # the throwaway servers each segment started
    datasets: Mapping[str, Any] | None = _spec(_OBJ)
    shard: Mapping[str, Any] | None = _spec(_OBJ)
    shards: list[Mapping[str, Any]] | None = _spec((list,))  # a collected run's: each shard as it was
    machines: list[Mapping[str, Any]] | None = _spec((list,))  # a collected run's: each machine once
    process_counts: Mapping[str, int] = _spec(_OBJ, {})
    processes_planned: int | None = _spec((int,))
    extra: Mapping[str, Any] = field(default_factory=dict)
    keys: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: Any, where: str = "manifest.json") -> Manifest:
        """A manifest checked: a JSON object of a schema version this harness reads, a run id."""
        if not isinstance(data, dict):
            raise DataError(f"{where}: not a manifest (a JSON {type(data).__name__}, expected an object)")
        version = data.get("schema_version")
        if version not in READABLE_SCHEMA_VERSIONS or not is_int(version):
            raise DataError(f"{where}: schema_version {version!r}, this harness reads "
                            f"{', '.join(map(str, READABLE_SCHEMA_VERSIONS))}")
        return cls._build(data, where, "manifest")

    def write(self, run_dir: Path | str) -> Path:
        """`run_dir/manifest.json`, checked as a read checks it, written atomically (replacing it)."""
        return self._write_checked(Path(run_dir) / "manifest.json")

    @property
    def commit(self) -> str | None:
        """The project commit the run was made at (`project.commit`), if recorded."""
        return (self.project or {}).get("commit")

    def clock(self) -> dict[str, Any]:
        """The CPU clock the run recorded, `{"hz", "source"}`: its `cpu_clock`, else what
        `machine.cpu` read (sysfs, cpuinfo); `hz` None when neither says (nothing is guessed)."""
        if isinstance(self.cpu_clock, Mapping) and self.cpu_clock.get("hz"):
            return dict(self.cpu_clock)
        cpu = (self.machine or {}).get("cpu") or {}
        try:
            if cpu.get("max_khz_sysfs"):
                return {"hz": float(cpu["max_khz_sysfs"]) * 1e3,
                        "source": "sysfs-max: manifest machine.cpu.max_khz_sysfs"}
            if cpu.get("mhz_proc_cpuinfo"):
                return {"hz": float(cpu["mhz_proc_cpuinfo"]) * 1e6,
                        "source": "proc-cpuinfo: manifest machine.cpu.mhz_proc_cpuinfo (first cpu when read)"}
        except (TypeError, ValueError):
            pass
        return {"hz": None, "source": "unknown: the run's manifest records no CPU clock"}


@dataclass(frozen=True)
class PlanCell(_Record):
    """One cell of a plan: a benchmark with its params on an engine and a runtime family."""

    benchmark: str = _spec(_STR, "")
    params: Mapping[str, Any] = _spec(_OBJ, {})
    engine: str = _spec(_STR, "")
    runtime: str = _spec(_STR, "")
    extra: Mapping[str, Any] = field(default_factory=dict)
    keys: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """(benchmark, canonical params, engine, runtime family): the cell as its records name it."""
        return self.benchmark, canonical_params(dict(self.params)), self.engine, self.runtime


@dataclass(frozen=True)
class Plan(_Record):
    """`plan.json`: the run's cells and the seeded interleaved order of their processes."""

    run_id: str | None = _spec(_STR)
    cells: tuple[PlanCell, ...] = ()
    order: tuple[tuple[int, int, int], ...] = ()
    iterations: int | None = _spec((int,))
    processes: int | None = _spec((int,))
    seed: Any = _spec()
    timeout_s: float | None = _spec((int, float))
    benchmarks: list[str] | None = _spec((list,))
    unavailable: Mapping[str, str] = _spec(_OBJ, {})  # cell index (a string) -> why it is skipped
    datasets: Mapping[str, Any] | None = _spec(_OBJ)
    shard: Mapping[str, Any] | None = _spec(_OBJ)  # a shard's: index, count, planned, order_digest
    shards: Mapping[str, Any] | None = _spec(_OBJ)  # a collected run's: count, order_digest
    extra: Mapping[str, Any] = field(default_factory=dict)
    keys: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: Any, where: str = "plan.json") -> Plan:
        """A plan checked: every cell an object naming its benchmark, params, engine and runtime;
        every order entry [seq, cell index, process], whole numbers, the index one of the plan's
        cells, each seq once. Why: a plan edited by hand or by another tool must fail here,
        naming the file, not deep in the statistics."""
        if not isinstance(data, dict) or not isinstance(data.get("order"), list) or not isinstance(data.get("cells"), list):
            raise DataError(f"{where}: not a plan (no cells and order)")
        cells = data["cells"]
        for i, cell in enumerate(cells):
            if not isinstance(cell, dict) or not isinstance(cell.get("params"), dict) or not all(
                    isinstance(cell.get(k), str) for k in ("benchmark", "engine", "runtime")):
                raise DataError(f"{where}: cells[{i}] is not a cell (benchmark, params, engine, runtime)")
        seen: set[int] = set()
        for j, entry in enumerate(data["order"]):
            if not isinstance(entry, (list, tuple)) or len(entry) != 3 or not all(is_int(v) for v in entry):
                raise DataError(f"{where}: order[{j}] is {entry!r}, expected [seq, cell index, process] as whole numbers")
            seq, index, process = entry
            if not 0 <= index < len(cells):
                raise DataError(f"{where}: order[{j}] names cell {index}, the plan has {len(cells)} cells")
            if not 0 <= seq < MAX_INDEX or not 0 <= process < MAX_INDEX:
                raise DataError(f"{where}: order[{j}] has seq {seq} and process {process}, expected 0..{MAX_INDEX - 1}")
            if seq in seen:
                raise DataError(f"{where}: order[{j}]: seq {seq} appears twice")
            seen.add(seq)
        plan = cls._build({k: v for k, v in data.items() if k not in ("cells", "order")}, where, "plan")
        return dataclasses.replace(
            plan, cells=tuple(PlanCell._build(c, f"{where}: cells[{i}]", "cell") for i, c in enumerate(cells)),
            order=tuple((int(s), int(i), int(p)) for s, i, p in data["order"]), keys=tuple(data))

    def _value(self, name: str) -> Any:
        if name == "cells":
            return [c.to_dict() for c in self.cells]
        if name == "order":
            return [list(e) for e in self.order]
        return getattr(self, name)

    def write(self, run_dir: Path | str) -> Path:
        """`run_dir/plan.json`, checked as a read checks it, written atomically (replacing it)."""
        return self._write_checked(Path(run_dir) / "plan.json")

    def cell_keys(self) -> set[tuple[str, str, str, str]]:
        """The keys (benchmark, canonical params, engine, runtime family) of the plan's cells."""
        return {c.key for c in self.cells}


@dataclass(frozen=True)
class ProcessRecord(_Record):
    """`processes/<seq>.json`: one finished process, written after its timings (the commit marker)."""

    seq: int = _spec((int,), 0)
    status: str = _spec(_STR, "")
    benchmark: str | None = _spec(_STR)
    params: str | None = _spec(_STR)
    engine: str | None = _spec(_STR)
    runtime: str | None = _spec(_STR)
    runtime_family: str | None = _spec(_STR)
    process: int = _spec((int,), 0)
    reason: str | None = _spec(_STR)
    timings_file: str | None = _spec(_STR)
    rows: int | None = _spec((int,))
    budget_stop: Any = _spec()
    machine: Mapping[str, Any] | None = _spec(_OBJ)
    shard: Mapping[str, Any] | None = _spec(_OBJ)  # a shard's process: its index and count
    noise: Any = _spec()
    interference: Any = _spec()  # what else held the worker's CPU meanwhile (`run.interference.measure`)
    canary: Any = _spec()
    imported: bool = _spec((bool,), False)
    extra: Mapping[str, Any] = field(default_factory=dict)
    keys: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: Any, seq: int, where: str = "process record") -> ProcessRecord:
        """A record checked: a JSON object with a valid status, a process number 0..MAX_INDEX-1,
        a whole number of rows if it says, and `seq` (its file name's) as its seq."""
        if not isinstance(data, dict) or data.get("status") not in PROCESS_STATUSES:
            raise DataError(f"{where}: not a process record (no valid 'status')")
        if not is_int(data.get("process", 0)) or not 0 <= data.get("process", 0) < MAX_INDEX:
            raise DataError(f"{where}: process {data.get('process')!r} is not a whole number 0..{MAX_INDEX - 1}")
        if "rows" in data and (not is_int(data["rows"]) or data["rows"] < 0):
            raise DataError(f"{where}: rows {data['rows']!r} is not a whole number of rows")
        if data.get("seq") != seq:
            raise DataError(f"{where}: the record says seq {data.get('seq')!r}, its file name says {seq}")
        return cls._build(data, where, "process record")

    def write(self, run_dir: Path | str) -> Path:
        """`run_dir/processes/<seq>.json`, checked as a read checks it, written atomically; never
        rewritten (a FileExistsError): the record is the process's commit marker."""
        path = Path(run_dir) / "processes" / f"{self.seq:06d}.json"
        if path.exists():
            raise FileExistsError(f"{path} exists: process records are never rewritten")
        data = self.to_dict()
        ProcessRecord.from_dict(data, self.seq, str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, data)
        return path

    @property
    def machine_id(self) -> str | None:
        """The id of the machine the process ran on (`machine.id`), if recorded."""
        return self.machine.get("id") if isinstance(self.machine, Mapping) else None
