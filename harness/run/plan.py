"""What a run will do, decided before anything starts: its cells and their interleaved order.

A request (profile, globs, counts) is resolved against the registries (engines, workloads,
runtimes, profiles); an unknown name is a `UserError` listing what exists, raised before any
run directory, server or worker exists. The plan is a `LivePlan`: typed, mutable (the runner
adds reruns and data sets, the adaptive protocol rounds), stored as `plan.json` through the
record's `Plan` (`LivePlan.write`), so a run can be resumed from it.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import os
import random
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Mapping

from harness import engines as engine_registry
from harness import workloads
from harness.errors import UserError, did_you_mean
from harness.fsutil import PROJECT_ROOT
from harness.protocol import LEFT_OUT, canonical_params
from harness.record import Plan
from harness.run.interference import MAX_WAIT_S
from harness.run.noise import NOISE_THRESHOLD_CPUS
from harness.run.profiles import PROFILES, Profile, names_cell, params_for
from harness.run.runtimes import RUNTIMES
from harness.run.shard import Shard, dir_name, order_digest


@dataclass(frozen=True)
class Cell:
    benchmark: str
    params: dict[str, Any]
    engine: str
    runtime: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.benchmark, canonical_params(self.params), self.engine, self.runtime)

    def label(self) -> str:
        p = canonical_params(self.params)
        return f"{self.benchmark}[{p}] {self.engine} {self.runtime}"


@dataclass
class RunRequest:
    profile: str = "smoke"
    benchmarks: list[str] | None = None
    engines: list[str] | None = None
    runtimes: list[str] = field(default_factory=lambda: ["cpython"])
    processes: int | None = None
    iterations: int | None = None
    seed: int = 0
    out: Path = PROJECT_ROOT / "data" / "runs"
    timeout_s: float | None = None
    budget_s: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    #: server family -> the user's DSN (no entry: the runner starts a throwaway server if needed;
    #: None: the CROSSINGS_*_DSN environment variables)
    dsns: dict[str, str] | None = None
    progress: bool = True
    command: list[str] | None = None
    #: pin each worker to one CPU (harness.run.noise)
    pin: bool = True
    #: before a process, wait at most this long for a quiet worker CPU (None: the default)
    max_wait_s: float | None = None
    #: run disturbed processes again (harness.run.interference); None: CROSSINGS_RERUN, else yes
    rerun: bool | None = None
    #: engine globs whose cells are measured twice, the twin under the parameter `aa=twin`
    #: (an A/A check within the run: the two names of one cell must not differ)
    aa: list[str] | None = None
    #: run only this shard of the plan (harness.run.shard), under `run_id` shared by every shard
    shard: Shard | None = None
    run_id: str | None = None
    #: `BENCHMARK_GLOB@ENGINE_GLOB` patterns whose cells (twins included) the run records as skipped,
    #: with that reason, instead of measuring: a study's cut to fit its budget, said in its records
    leave_out: list[str] | None = None


#: bounds every request is checked against before anything starts (a typo like 50000000
#: processes must not plan a run that cannot finish, nor 0 silently become the default)
MAX_PROCESSES = 10_000
MAX_ITERATIONS = 1_000_000
MAX_PLANNED = 1_000_000
MAX_TIMEOUT_S = 7 * 86400.0
INDEXES_VALUES = {"on": "on", "off": "off", "true": "on", "false": "off", "yes": "on", "no": "off",
                  "1": "on", "0": "off"}
#: parameter name -> (lowest, highest) for numbers; `indexes` takes INDEXES_VALUES
PARAM_BOUNDS: dict[str, tuple[float, float]] = {
    "n": (1, 10**9), "queries": (1, 10**9), "rows": (1, 10**9), "seconds": (1e-6, 3600.0), "sf": (0.01, 1000.0),
}


def check_counts(processes: int | None, iterations: int | None, timeout_s: float | None,
                 budget_s: float | None) -> None:
    """The request's numbers, each within bounds (None: the profile's default)."""
    if processes is not None and not 1 <= processes <= MAX_PROCESSES:
        raise UserError(f"--processes must be between 1 and {MAX_PROCESSES}, got {processes}")
    if iterations is not None and not 1 <= iterations <= MAX_ITERATIONS:
        raise UserError(f"--iterations must be between 1 and {MAX_ITERATIONS}, got {iterations}")
    if timeout_s is not None and not (math.isfinite(timeout_s) and 0 < timeout_s <= MAX_TIMEOUT_S):
        raise UserError(f"--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:.0f}, "
                        f"got {timeout_s:g}")
    if budget_s is not None and not (math.isfinite(budget_s) and 0 <= budget_s <= MAX_TIMEOUT_S):
        raise UserError(f"--budget must be 0 (no budget) or a positive number of seconds, got {budget_s:g}")


def check_param(benchmark: str, key: str, value: Any) -> Any:
    """`value` (already of the default's type) if it is valid for `key`, else a UserError."""
    if key == "indexes":
        v = INDEXES_VALUES.get(str(value).strip().lower())
        if v is None:
            raise UserError(f"parameter indexes={value!r}: {benchmark} takes on or off")
        return v
    if key == "datadir":
        return check_datadir(str(value))
    choices = getattr(workloads.all_workloads().get(benchmark), "param_choices", {}).get(key)
    if choices is not None:  # matched without regard to case, returned as the workload spells it
        v = {str(c).lower(): c for c in choices}.get(str(value).strip().lower())
        if v is None:
            raise UserError(f"parameter {key}={value!r}: {benchmark} takes {', '.join(map(str, choices))}")
        return v
    bounds = PARAM_BOUNDS.get(key)
    if bounds and isinstance(value, (int, float)):
        lo, hi = bounds
        if not (math.isfinite(value) and lo <= value <= hi):
            raise UserError(f"parameter {key}={value!r}: {benchmark} takes {lo:g} to {hi:g}")
    return value


def _values(value: Any) -> list[Any]:
    """A parameter's values: a list or a comma-separated string (a sweep), or one value;
    duplicates dropped, order kept."""
    if isinstance(value, str) and "," in value:
        value = [v.strip() for v in value.split(",") if v.strip()]
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return list(dict.fromkeys(values))


def cell_params(profile: Profile, benchmark: str, w: Any, engine: str,
                overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """The parameter sets of one benchmark on one engine: defaults, then the profile's values,
    then the request's (`--param`); a list of values (`--param rows=10,100`, or a list in a
    profile) is a sweep, and sweeps multiply: one cell per combination, in the order given. A
    workload's own `sweep` (e.g. E5's corpora) applies where neither the request nor the profile
    sets that parameter; `check_param` holds each requested value to the workload's `param_choices`."""
    defaults = w.default_params
    params = params_for(profile, benchmark, defaults, engine)
    for k, values in getattr(w, "sweep", {}).items():
        if k not in overrides and k not in profile_fixed(profile, benchmark, engine):
            params[k] = list(values)
    for k, v in overrides.items():
        if k not in defaults:
            continue
        typed = []
        for x in _values(v):
            try:
                x = type(defaults[k])(x)
            except ValueError:
                raise UserError(f"parameter {k}={x!r}: {benchmark} expects a {type(defaults[k]).__name__}") from None
            typed.append(check_param(benchmark, k, x))
        params[k] = typed if len(typed) > 1 else typed[0]
    keys = list(params)
    cells = [dict(zip(keys, combo)) for combo in itertools.product(*(_values(params[k]) for k in keys))]
    for grid in _grids(profile, benchmark, engine, overrides):
        base = dict(params)  # the grid's own values in place of the sweep's
        base.update({k: v for k, v in grid.items() if k in defaults})
        for combo in itertools.product(*(_values(base[k]) for k in keys)):
            cell = dict(zip(keys, combo))
            if cell not in cells:
                cells.append(cell)
    return cells


def _grids(profile: Profile, benchmark: str, engine: str, overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """The profile's extra sweeps for this benchmark and engine; one the request overrides a
    parameter of (`--param journal_mode=wal`) is left out: the request says what it wants."""
    out = []
    for pattern, grids in profile.grids.items():
        if names_cell(pattern, benchmark, engine):
            out += [g for g in grids if not set(g) & set(overrides)]
    return out


def profile_fixed(profile: Profile, benchmark: str, engine: str = "") -> set[str]:
    """The parameters a profile sets for `benchmark` on `engine` (a workload's own sweep yields to them)."""
    out: set[str] = set()
    for pattern, over in profile.params.items():
        if names_cell(pattern, benchmark, engine):
            out.update(over)
    return out


def check_datadir(value: str) -> str:
    """`datadir` (where a benchmark's database files go): empty, or an existing writable directory."""
    if not value:
        return ""
    path = Path(value).expanduser()
    if "," in value or not path.is_dir() or not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"parameter datadir={value!r}: not a writable directory (give an existing one, e.g. "
                        "--param datadir=/var/tmp, without commas)")
    return str(path.resolve())


def split_globs(values: list[str] | str | None) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    return [p.strip() for v in values for p in v.split(",") if p.strip()]


def resolve_benchmarks(patterns: list[str]) -> list[str]:
    names = workloads.match(patterns)
    unknown = [p for p in patterns if not workloads.match([p], include_selftest=True)]
    if unknown or not names:
        names = sorted(workloads.all_workloads())
        hint = did_you_mean(unknown or patterns, names)
        raise UserError(f"unknown benchmark {', '.join(unknown or patterns)!s}{hint}; benchmarks: {', '.join(names)}")
    return names


def resolve_engines(patterns: list[str]) -> list[str]:
    names = engine_registry.match(patterns)
    unknown = [p for p in patterns if not engine_registry.match([p])]
    if unknown or not names:
        names = sorted(engine_registry.ENGINES)
        hint = did_you_mean(unknown or patterns, names)
        raise UserError(f"unknown engine {', '.join(unknown or patterns)}{hint}; engines: {', '.join(names)}")
    return names


def resolve_runtimes(names: list[str]) -> list[str]:
    unknown = [n for n in names if n not in RUNTIMES]
    if unknown or not names:
        hint = did_you_mean(unknown, list(RUNTIMES))
        raise UserError(f"unknown runtime {', '.join(unknown)}{hint}; runtimes: {', '.join(RUNTIMES)}")
    return names


def profile_name(name: str) -> str:
    """`name` if it is a profile; an argparse type, so a typo gets `did you mean` and the list."""
    import argparse

    if name not in PROFILES:
        hint = did_you_mean(name, list(PROFILES))
        raise argparse.ArgumentTypeError(f"unknown profile {name!r}{hint}; profiles: {', '.join(PROFILES)}")
    return name


def default_benchmarks(profile: Profile, engines: list[str]) -> dict[str, set[str]]:
    """Per engine, the benchmarks a request without `--benchmarks` runs: the profile's, or, for an
    engine made for its own benchmarks (`Engine.benchmarks`, e.g. ramsql/go), those, so that
    `run --engines ramsql/go --runtimes go` measures E6 rather than nothing."""
    profile_benchmarks = set(workloads.match(list(profile.benchmarks)))
    out = {}
    for e in engines:
        own = tuple(getattr(engine_registry.get(e), "benchmarks", ()) or ())
        out[e] = set(workloads.match(list(own))) if own else profile_benchmarks
    return out


def interleave(n_cells: int, processes: int, seed: int) -> list[tuple[int, int]]:
    """The seeded order of (cell index, process index) pairs, in rounds: every cell once per round,
    the cells of each round in a fresh random order (randomised multiple interleaved trials,
    Abedi and Brecht, ICPE 2017). A slow phase of the machine then touches every cell alike,
    the processes of a cell are spread over the whole run, and the processes of round k of two
    cells ran close in time, which is what pairing by round leans on."""
    return in_rounds({c: processes for c in range(n_cells)}, random.Random(seed))


def in_rounds(counts: dict[int, int], rng: random.Random, first: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """(cell, process) pairs for `counts[cell]` new processes per cell, in rounds: round k holds
    every cell that still has a k-th new process, shuffled. `first`: each cell's first new
    process number (0 by default)."""
    first = first or {}
    out: list[tuple[int, int]] = []
    for k in range(max(counts.values(), default=0)):
        cells = [c for c in sorted(counts) if counts[c] > k]
        rng.shuffle(cells)
        out += [(c, first.get(c, 0) + k) for c in cells]
    return out


class _Live:
    """What LivePlan and LiveCell share: a key of the JSON object is written when the object
    read held it, or it was assigned since, or it differs from its field's default (a list or
    dict filled in place); the keys no field names are kept in `extra`. So a plan read and
    written back holds the keys it held, and one built in code the keys it was given."""

    extra: dict[str, Any]
    #: keys the JSON object always holds
    _always: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_present", set(self._always))

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        present = self.__dict__.get("_present")
        if present is not None and name != "extra":
            present.add(name)

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls) if f.name != "extra")  # type: ignore[arg-type]

    @classmethod
    def _from(cls, data: Mapping[str, Any], **values: Any) -> Any:
        names = cls._names()
        kwargs = {k: data[k] for k in names if k in data}
        kwargs.update(values)
        obj = cls(**kwargs, extra={k: v for k, v in data.items() if k not in names})
        object.__setattr__(obj, "_present", {k for k in names if k in data} | set(cls._always))
        return obj

    def _emits(self, f: dataclasses.Field) -> bool:
        if f.name in self.__dict__["_present"]:
            return True
        default = (f.default_factory() if f.default_factory is not dataclasses.MISSING  # type: ignore[misc]
                   else f.default)
        return getattr(self, f.name) != default

    def _dict(self, **values: Any) -> dict[str, Any]:
        out = {f.name: values.get(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)  # type: ignore[arg-type]
               if f.name != "extra" and self._emits(f)}
        out.update(self.extra)
        return out


@dataclass(eq=False)
class LiveCell(_Live):
    """A cell of the live plan; the adaptive protocol sets its iterations per process and the
    length an unsettled cell's processes were grown to."""

    benchmark: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    engine: str = ""
    runtime: str = ""
    iterations: int | None = None  # the adaptive protocol's count (None: the plan's)
    grown_to: int | None = None  # an unsettled cell's length: never planned shorter
    extra: dict[str, Any] = field(default_factory=dict)
    _always = ("benchmark", "params", "engine", "runtime")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LiveCell:
        return cls._from(data, params=dict(data["params"]))

    def to_dict(self) -> dict[str, Any]:
        return self._dict()

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.benchmark, canonical_params(self.params), self.engine, self.runtime)


@dataclass(eq=False)
class LivePlan(_Live):
    """The plan a run is executing: `build_plan`'s, or a stored plan read back for a resume.
    Mutable where a run adds to it (the order, reruns, data sets, the adaptive record); written
    as the record's `Plan` (checked, the bytes `plan.json` always had)."""

    run_id: str | None = None
    cells: list[LiveCell] = field(default_factory=list)
    order: list[tuple[int, int, int]] = field(default_factory=list)
    profile: str | None = None
    processes: int | None = None
    iterations: int | None = None
    seed: Any = 0
    timeout_s: float | None = None
    budget_s: float | None = None  # per process; None: no cut (the adaptive protocol lifts it after the pilot)
    min_iterations: int = 2
    benchmarks: list[str] = field(default_factory=list)
    engines: list[str] = field(default_factory=list)
    runtimes: list[str] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)  # cell index (a string) -> why it is skipped
    pin: bool = True
    interference: bool = True
    rerun: bool = True
    max_wait_s: float = MAX_WAIT_S
    noise_threshold_cpus: float = NOISE_THRESHOLD_CPUS
    run_dir: str | None = None  # a shard's directory name (default: the run id)
    shard: dict[str, Any] | None = None  # a shard's: index, count, planned, order_digest
    datasets: dict[str, Any] | None = None  # data set key -> how it was prepared
    reruns: list[dict[str, Any]] = field(default_factory=list)  # {cell, seq, rerun_seq} per disturbed process
    adaptive: dict[str, Any] | None = None  # the adaptive protocol's record
    extra: dict[str, Any] = field(default_factory=dict)
    _always = ("cells", "order")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LivePlan:
        return cls._from(data, cells=[LiveCell.from_dict(c) for c in data.get("cells", [])],
                         order=[(int(s), int(c), int(p)) for s, c, p in data.get("order", [])])

    @classmethod
    def from_record(cls, plan: Plan) -> LivePlan:
        """A stored plan, to run on (a resume)."""
        return cls.from_dict(plan.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """The JSON object `plan.json` holds."""
        return self._dict(cells=[c.to_dict() for c in self.cells])

    def to_record(self, where: str = "plan") -> Plan:
        """The record's `Plan` (checked as a read checks it)."""
        return Plan.from_dict(self.to_dict(), where)

    def write(self, run_dir: Path) -> Path:
        """`run_dir/plan.json`, checked, written atomically (replacing it)."""
        return self.to_record(str(Path(run_dir) / "plan.json")).write(run_dir)

    @property
    def dir_name(self) -> str:
        """The run directory's name: a shard's own, else the run id."""
        return self.run_dir or str(self.run_id)


def build_plan(request: RunRequest, run_id: str) -> LivePlan:
    profile: Profile = PROFILES[request.profile]
    engine_patterns = split_globs(request.engines) or list(profile.engines)
    engines = resolve_engines(engine_patterns)
    named = set(engine_patterns) & set(engine_registry.ENGINES)
    if request.benchmarks:
        benchmarks = resolve_benchmarks(split_globs(request.benchmarks))
        allowed = {e: set(benchmarks) for e in engines}
    else:  # a profile's globs may name families this checkout does not have; they just match nothing
        allowed = default_benchmarks(profile, engines)
        benchmarks = [b for b in workloads.all_workloads() if any(b in v for v in allowed.values())]
    runtimes = resolve_runtimes(request.runtimes)
    check_counts(request.processes, request.iterations, request.timeout_s, request.budget_s)
    processes = request.processes if request.processes is not None else profile.processes
    iterations = request.iterations if request.iterations is not None else profile.iterations
    known = {k for b in benchmarks for k in workloads.get(b).default_params}
    unknown = sorted(set(request.params) - known)
    if unknown:
        raise UserError(f"unknown parameter {', '.join(unknown)} for these benchmarks; "
                        f"parameters: {', '.join(sorted(known)) or 'none'}")
    cells = []
    for b in benchmarks:
        w = workloads.get(b)
        for e in engines:
            if b not in allowed[e]:
                continue
            for r in runtimes:
                # a glob (`sqlite/*`) means "those that can run here"; a name typed in full is
                # kept even where it cannot run, so the run says why it was skipped
                if r not in engine_registry.get(e).runtimes and e not in named:
                    continue
                for params in cell_params(profile, b, w, e, request.params):
                    cells.append({"benchmark": b, "params": params, "engine": e, "runtime": r})
    if not cells:
        raise UserError(f"nothing to run: no engine of {', '.join(engines)} runs on {', '.join(runtimes)}")
    cells += aa_twins(cells, request.aa)
    if len(cells) * processes > MAX_PLANNED:
        raise UserError(f"{len(cells)} cells x {processes} processes is more than {MAX_PLANNED} processes; "
                        "ask for fewer")
    left_out = leave_out(cells, request.leave_out)
    order = interleave(len(cells), processes, request.seed)
    plan = {
        "run_id": run_id, "profile": profile.name, "processes": processes, "iterations": iterations,
        "seed": request.seed, "timeout_s": request.timeout_s if request.timeout_s is not None else profile.timeout_s,
        "budget_s": request.budget_s if request.budget_s is not None else profile.budget_s,
        "min_iterations": min(2, iterations), "benchmarks": benchmarks,
        "engines": engines, "runtimes": runtimes, "cells": cells,
        "order": [(seq, c, p) for seq, (c, p) in enumerate(order)], "unavailable": left_out, "pin": request.pin,
        "interference": True, "rerun": request.rerun if request.rerun is not None else _env_rerun(),
        "max_wait_s": request.max_wait_s if request.max_wait_s is not None else _env_max_wait(profile.max_wait_s),
    }
    if request.shard is not None:
        # a rerun takes the next seq and process number, which another shard of the plan owns:
        # disturbed processes of a shard are flagged and left out, not rerun
        plan["rerun"] = False
        return shard_plan(LivePlan.from_dict(plan), request.shard)
    return LivePlan.from_dict(plan)


def shard_plan(plan: LivePlan, shard: Shard) -> LivePlan:
    """The plan restricted to `shard`'s processes (global seqs kept), with what it is a part of
    (`plan` itself, changed)."""
    if (plan.processes or 0) < shard.count:
        raise UserError(f"--shard {shard.index}/{shard.count} spreads each cell's processes over {shard.count} "
                        f"machines: give --processes of at least {shard.count} (the plan has {plan.processes})")
    order = plan.order
    plan.order = [t for t in order if shard.owns(int(t[2]))]
    plan.run_dir = dir_name(str(plan.run_id), shard)
    plan.shard = {"index": shard.index, "count": shard.count, "planned": len(order),
                  "order_digest": order_digest(order)}
    return plan


def _env_rerun() -> bool:
    """CROSSINGS_RERUN=0 turns reruns off by default (a test suite that counts processes)."""
    value = os.environ.get("CROSSINGS_RERUN", "1").strip()
    if value not in ("0", "1"):
        raise UserError(f"CROSSINGS_RERUN must be 0 or 1, got {value!r}")
    return value == "1"


def _env_max_wait(default: float) -> float:
    """CROSSINGS_MAX_WAIT (seconds, 0..3600) overrides the profile's wait for a quiet CPU."""
    value = os.environ.get("CROSSINGS_MAX_WAIT")
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= 3600:
        raise UserError(f"CROSSINGS_MAX_WAIT must be a number of seconds between 0 and 3600, got {value!r}")
    return seconds


#: the parameter that names an A/A twin cell: the worker never sees it
AA_PARAM = "aa"


def leave_out(cells: list[dict[str, Any]], patterns: list[str] | None) -> dict[str, str]:
    """{cell index: reason} for the cells `patterns` (BENCHMARK_GLOB@ENGINE_GLOB) name; a pattern
    without `@`, or one that names no cell of the run, is a mistake in the command."""
    out: dict[str, str] = {}
    for pattern in patterns or []:
        bench, sep, engine = pattern.partition("@")
        if not sep or not bench or not engine:
            raise UserError(f"--leave-out {pattern}: give BENCHMARK@ENGINE (globs), e.g. 'micro.filltable@duckdb'")
        hits = [i for i, c in enumerate(cells) if names_cell(pattern, c["benchmark"], c["engine"])]
        if not hits:
            raise UserError(f"--leave-out {pattern} names no cell of this run")
        for i in hits:
            out.setdefault(str(i), f"{LEFT_OUT} {pattern})")
    return out


def aa_twins(cells: list[dict[str, Any]], globs: list[str] | None) -> list[dict[str, Any]]:
    """A twin of every cell whose engine matches one of `globs` (`ENGINE` or `ENGINE@RUNTIME`, each
    a glob): the same benchmark, parameters, engine and runtime under a second name (`aa=twin`),
    interleaved with all the others, so the run can show that it does not tell a cell from itself."""

    if not globs:
        return []
    pairs = [(g.partition("@")[0], g.partition("@")[2] or "*") for g in globs]
    twins = [dict(c, params={**c["params"], AA_PARAM: "twin"}) for c in cells
             if any(fnmatchcase(c["engine"], e) and fnmatchcase(c["runtime"], r) for e, r in pairs)]
    if not twins:
        raise UserError(f"--aa {','.join(globs)}: no cell of this run has such an engine (and runtime); "
                        f"engines: {', '.join(sorted({c['engine'] for c in cells}))}; "
                        f"runtimes: {', '.join(sorted({c['runtime'] for c in cells}))}")
    return twins


def worker_params(params: dict[str, Any]) -> dict[str, Any]:
    """A cell's parameters as its workload takes them (the A/A twin's name removed)."""
    return {k: v for k, v in params.items() if k != AA_PARAM}


def plan_cells(plan: LivePlan) -> list[Cell]:
    return [Cell(c.benchmark, c.params, c.engine, c.runtime) for c in plan.cells]
