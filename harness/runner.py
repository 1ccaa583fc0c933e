"""The runner: turns a request into cells, runs their processes interleaved, stores every timing.

Protocol (DESIGN §4): each cell (benchmark x engine x runtime) gets P fresh processes; the
processes of all cells run in one seeded random order, so drift of the machine spreads over all
cells instead of biasing one. Each process's outcome is written the moment it finishes, so a
crash, a timeout or Ctrl-C loses at most the process that was running; `resume` finishes a run.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from harness import engines as engine_registry
from harness import store, workloads
from harness.errors import UserError
from harness.manifest import PROJECT_ROOT, base_manifest, redact
from harness.profiles import PROFILES, Profile, params_for
from harness.runtimes import RUNTIMES, worker_env

STDERR_TAIL_BYTES = 4000


@dataclass(frozen=True)
class Cell:
    benchmark: str
    params: dict[str, Any]
    engine: str
    runtime: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.benchmark, store.canonical_params(self.params), self.engine, self.runtime)

    def label(self) -> str:
        p = store.canonical_params(self.params)
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
    engine_configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    progress: bool = True
    command: list[str] | None = None


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
        valid = ", ".join(n for n in sorted(workloads.all_workloads()))
        raise UserError(f"unknown benchmark {', '.join(unknown or patterns)!s}; benchmarks: {valid}")
    return names


def resolve_engines(patterns: list[str]) -> list[str]:
    names = engine_registry.match(patterns)
    unknown = [p for p in patterns if not engine_registry.match([p])]
    if unknown or not names:
        valid = ", ".join(sorted(engine_registry.ENGINES))
        raise UserError(f"unknown engine {', '.join(unknown or patterns)}; engines: {valid}")
    return names


def resolve_runtimes(names: list[str]) -> list[str]:
    unknown = [n for n in names if n not in RUNTIMES]
    if unknown or not names:
        raise UserError(f"unknown runtime {', '.join(unknown)}; runtimes: {', '.join(RUNTIMES)}")
    return names


def interleave(n_cells: int, processes: int, seed: int) -> list[tuple[int, int]]:
    """The seeded random order of (cell index, process index) pairs: a permutation fixed by seed."""
    tasks = [(c, p) for c in range(n_cells) for p in range(processes)]
    random.Random(seed).shuffle(tasks)
    return tasks


def probe(engine: str, runtime: str, timeout: float = 120.0, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Ask a worker on `runtime` whether `engine` is usable there, and with which versions.

    A server engine's probe needs its engine_config (DSN): it goes to the worker in a 0600
    JSON file named by a third argument (`--probe ENGINE CONFIG.json`), never on the command
    line. Without one (e.g. `list`), `harness.servers.listing_config` says what can be had."""
    rt = RUNTIMES[runtime]
    eng = engine_registry.get(engine)
    if runtime not in eng.runtimes:
        return {"available": False, "reason": f"not available on {runtime}: {engine} runs on {', '.join(eng.runtimes)}"}
    if runtime == "c" or getattr(eng, "native", False):
        from harness.native import launcher

        return launcher.probe(engine)
    reason = rt.unavailable_reason()
    if reason:
        return {"available": False, "reason": f"not available on {runtime}: {reason}"}
    if config is None and getattr(eng, "server_family", None):
        from harness.servers import listing_config

        config = listing_config(engine)
    extra: list[str] = []
    config_path = None
    if config is not None:
        fd, config_path = tempfile.mkstemp(prefix="crossings-probe-", suffix=".json")  # mode 0600
        with os.fdopen(fd, "w") as f:
            json.dump(config, f)
        extra = [config_path]
    try:
        proc = subprocess.run(rt.worker_argv("--probe", engine, *extra), capture_output=True, text=True,
                              timeout=timeout, cwd=PROJECT_ROOT, env=worker_env())
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": f"probe on {runtime} timed out after {timeout:.0f} s"}
    except OSError as exc:  # e.g. CROSSINGS_PYPY names a file that is missing or not executable
        return {"available": False, "reason": f"not available on {runtime}: cannot start {rt.executable()}: "
                                              f"{exc.strerror or exc}"}
    finally:
        if config_path:
            os.unlink(config_path)
    try:
        info = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return {"available": False, "reason": redact(f"probe on {runtime} failed: {tail[0]}")}
    if info.get("reason"):
        info["reason"] = redact(str(info["reason"]))
    if not info.get("available") and runtime != "cpython":
        info["reason"] = f"not available on {runtime}: {info.get('reason')}"
    return info


def worker_argv(cell: Cell, spec_path: str, result_path: str) -> list[str]:
    eng = engine_registry.get(cell.engine)
    if cell.runtime == "c" or getattr(eng, "native", False):
        from harness.native import launcher

        return launcher.worker_argv(cell.engine, spec_path, result_path)
    return RUNTIMES[cell.runtime].worker_argv(spec_path, result_path)


WORKDIR_PREFIX = "crossings-worker-"


def sweep_stale_workdirs(tmp: Path | None = None) -> list[Path]:
    """Remove worker directories left by a runner that was killed outside Python's control
    (SIGKILL): their spec may name a dead server's throwaway password. A directory belongs to
    the runner whose pid is in its name; only those whose runner is gone are removed."""
    removed = []
    for d in Path(tmp or tempfile.gettempdir()).glob(f"{WORKDIR_PREFIX}*-*"):
        pid = d.name[len(WORKDIR_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        shutil.rmtree(d, ignore_errors=True)
        removed.append(d)
    return removed


def _die_with_parent() -> None:
    """In the worker before exec: ask Linux to kill it if the runner dies (even by SIGKILL),
    so a killed harness leaves no orphan worker behind. Elsewhere: nothing to do."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - STDERR_TAIL_BYTES))
            return redact(f.read().decode(errors="replace"))
    except OSError:
        return ""


class Runner:
    """Executes a plan in a run directory; each finished process is stored at once."""

    def __init__(self, run_dir: Path, plan: dict[str, Any], engine_configs: dict[str, dict[str, Any]],
                 progress: bool = True) -> None:
        self.run_dir = run_dir
        self.plan = plan
        self.cells = [Cell(c["benchmark"], c["params"], c["engine"], c["runtime"]) for c in plan["cells"]]
        self.engine_configs = engine_configs
        self.progress = progress
        self.current: subprocess.Popen | None = None
        self.datasets: dict[str, dict[str, Any]] = {}
        self.dead_cells: dict[int, tuple[str, str]] = {}
        self.counts: dict[str, int] = {}

    # -- per-cell preparation (untimed, outside every worker) --
    def _prepare(self, index: int) -> dict[str, Any]:
        """The cell's data set, prepared once per data set, engine and parameters."""
        cell = self.cells[index]
        workload = workloads.get(cell.benchmark)
        if not workload.dataset:
            return {}
        key = f"{workload.dataset}:{cell.engine}:{store.canonical_params(cell.params)}"
        if key not in self.datasets:
            from harness.datasets import prepare_for

            self.datasets[key] = prepare_for(workload.dataset, cell.engine, cell.params, progress=self.progress,
                                             engine_config=self.engine_configs.get(cell.engine))
            self.plan.setdefault("datasets", {})[key] = {k: v for k, v in self.datasets[key].items() if k != "path"}
        return self.datasets[key]

    def _record(self, seq: int, index: int, process: int, status: str, reason: str, **extra: Any) -> None:
        cell = self.cells[index]
        now = time.time()
        extra.setdefault("started", now)
        extra.setdefault("ended", now)
        rec = {"benchmark": cell.benchmark, "params": store.canonical_params(cell.params), "engine": cell.engine,
               "runtime": extra.pop("runtime", None) or cell.runtime, "runtime_family": cell.runtime,
               "process": process, "status": status, "reason": redact(reason), **extra}
        store.write_process_record(self.run_dir, seq, rec)
        self.counts[status] = self.counts.get(status, 0) + 1

    def run_one(self, seq: int, index: int, process: int) -> str:
        cell = self.cells[index]
        if index in self.dead_cells:
            status, reason = self.dead_cells[index]
            self._record(seq, index, process, status, reason)
            return status
        skip = self.plan["unavailable"].get(str(index))
        if skip:
            self._record(seq, index, process, "skipped", skip)
            return "skipped"
        try:
            data = self._prepare(index)
        except Exception as exc:  # noqa: BLE001 - a data set that cannot be made skips its cells
            self.dead_cells[index] = ("skipped", f"data set preparation failed: {exc}")
            return self.run_one(seq, index, process)
        workdir = Path(tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-"))
        try:
            return self._execute(seq, index, process, cell, data, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _execute(self, seq: int, index: int, process: int, cell: Cell, data: dict[str, Any], workdir: Path) -> str:
        spec = {"benchmark": cell.benchmark, "params": cell.params, "engine": cell.engine,
                "engine_config": self.engine_configs.get(cell.engine, {}), "iterations": self.plan["iterations"],
                "budget_s": self.plan.get("budget_s"), "min_iterations": self.plan.get("min_iterations", 2),
                "process": process, "seed": self.plan["seed"] * 1_000_003 + seq, "workdir": str(workdir), "data": data}
        spec_path = workdir / "spec.json"
        fd = os.open(spec_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(spec, f)
        result_path = workdir / "result.json"
        log_path = workdir / "worker.log"
        started = time.time()
        with open(log_path, "wb") as log:
            self.current = subprocess.Popen(worker_argv(cell, str(spec_path), str(result_path)), cwd=PROJECT_ROOT,
                                            env=worker_env(), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            start_new_session=True, preexec_fn=_die_with_parent)
            try:
                returncode = self.current.wait(timeout=self.plan["timeout_s"])
            except subprocess.TimeoutExpired:
                self._kill_current()
                self._record(seq, index, process, "timeout",
                             f"process exceeded the {self.plan['timeout_s']:.0f} s timeout and was killed",
                             pid=self.current.pid, stderr_tail=_tail(log_path), started=started, ended=time.time())
                self.current = None
                return "timeout"
            except BaseException:
                self._kill_current()
                raise
        pid = self.current.pid
        self.current = None
        ended = time.time()
        tail = _tail(log_path)
        result = None
        if result_path.exists():
            try:
                result = json.loads(result_path.read_text())
            except json.JSONDecodeError:
                result = None
        if returncode < 0 or result is None:
            how = f"killed by signal {-returncode}" if returncode < 0 else f"exited with status {returncode}"
            self._record(seq, index, process, "failed", f"worker {how} without a result", pid=pid,
                         stderr_tail=tail, started=started, ended=ended)
            return "failed"
        status = result.get("status", "error")
        reason = result.get("reason", "")
        extra = {"pid": result.get("pid", pid), "runtime": result.get("runtime"), "stderr_tail": tail,
                 "started": started, "ended": ended}
        if status == "not_applicable":
            self.dead_cells[index] = ("not_applicable", f"not applicable: {reason}")
            self._record(seq, index, process, "not_applicable", f"not applicable: {reason}", **extra)
            return status
        n = len(result.get("wall_ns") or [])
        if n:
            eng = engine_registry.get(cell.engine)
            rows = {
                "run_id": [self.plan["run_id"]] * n, "seq": [seq] * n, "benchmark": [cell.benchmark] * n,
                "params": [store.canonical_params(cell.params)] * n, "engine": [cell.engine] * n,
                "driver": [eng.driver] * n, "runtime": [result.get("runtime") or cell.runtime] * n,
                "process": [process] * n, "iteration": list(range(n)), "pid": [int(extra["pid"])] * n,
                "wall_ns": result["wall_ns"], "cpu_ns": result["cpu_ns"], "check_ok": result["check_ok"],
                "crossings": result.get("crossings") or [None] * n,
                "values_converted": result.get("values_converted") or [None] * n,
            }
            store.write_timings(self.run_dir, seq, rows)
            extra["timings_file"] = f"timings/{seq:06d}.parquet"
        if result.get("budget_stop"):
            extra["budget_stop"] = result["budget_stop"]
        elif status == "ok" and n != self.plan["iterations"]:
            status, reason = "error", f"worker returned {n} iterations, expected {self.plan['iterations']}"
        if status == "error" and result.get("traceback"):
            extra["traceback"] = redact(result["traceback"])
        self._record(seq, index, process, status, reason, **extra)
        return status

    def _kill_current(self) -> None:
        proc = self.current
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()

    def execute(self, on_progress: Callable[[str], None] | None = None) -> dict[str, int]:
        done = {int(p.stem) for p in (self.run_dir / "processes").glob("*.json")}
        todo = [t for t in self.plan["order"] if t[0] not in done]
        bar = None
        if self.progress:
            from tqdm import tqdm

            bar = tqdm(total=len(self.plan["order"]), initial=len(self.plan["order"]) - len(todo), unit="proc",
                       file=sys.stderr, dynamic_ncols=True, mininterval=0.5)
        try:
            for seq, index, process in todo:
                if bar is not None:
                    bar.set_description_str(self.cells[index].label()[:60])
                status = self.run_one(seq, index, process)
                if bar is not None:
                    bar.update(1)
                    if status in ("failed", "timeout", "error", "invalid"):
                        bar.write(f"  {self.cells[index].label()} process {process}: {status}", file=sys.stderr)
        finally:
            if bar is not None:
                bar.close()
        return self.counts


def build_plan(request: RunRequest, run_id: str) -> dict[str, Any]:
    profile: Profile = PROFILES[request.profile]
    engine_patterns = split_globs(request.engines) or list(profile.engines)
    engines = resolve_engines(engine_patterns)
    named = set(engine_patterns) & set(engine_registry.ENGINES)
    if request.benchmarks:
        benchmarks = resolve_benchmarks(split_globs(request.benchmarks))
    else:  # a profile's globs may name families this checkout does not have; they just match nothing
        benchmarks = workloads.match(list(profile.benchmarks))
    runtimes = resolve_runtimes(request.runtimes)
    processes = request.processes or profile.processes
    iterations = request.iterations or profile.iterations
    if processes < 1 or iterations < 1:
        raise UserError("--processes and --iterations must be at least 1")
    known = {k for b in benchmarks for k in workloads.get(b).default_params}
    unknown = sorted(set(request.params) - known)
    if unknown:
        raise UserError(f"unknown parameter {', '.join(unknown)} for these benchmarks; "
                        f"parameters: {', '.join(sorted(known)) or 'none'}")
    cells = []
    for b in benchmarks:
        w = workloads.get(b)
        params = params_for(profile, b, w.default_params)
        for k, v in request.params.items():
            if k in w.default_params:
                try:
                    params[k] = type(w.default_params[k])(v)
                except ValueError:
                    raise UserError(f"parameter {k}={v!r}: {b} expects a {type(w.default_params[k]).__name__}") from None
        for e in engines:
            for r in runtimes:
                # a glob (`sqlite/*`) means "those that can run here"; a name typed in full is
                # kept even where it cannot run, so the run says why it was skipped
                if r not in engine_registry.get(e).runtimes and e not in named:
                    continue
                cells.append({"benchmark": b, "params": params, "engine": e, "runtime": r})
    order = interleave(len(cells), processes, request.seed)
    return {
        "run_id": run_id, "profile": profile.name, "processes": processes, "iterations": iterations,
        "seed": request.seed, "timeout_s": request.timeout_s or profile.timeout_s,
        "budget_s": request.budget_s if request.budget_s is not None else profile.budget_s,
        "min_iterations": min(2, iterations), "benchmarks": benchmarks,
        "engines": engines, "runtimes": runtimes, "cells": cells,
        "order": [(seq, c, p) for seq, (c, p) in enumerate(order)], "unavailable": {},
    }


def probe_all(plan: dict[str, Any], engine_configs: dict[str, dict[str, Any]] | None = None
              ) -> dict[str, dict[str, Any]]:
    """Probe every (engine, runtime) pair once; mark cells of unusable pairs unavailable.
    Server engines are probed with the run's engine_config (they connect to the server)."""
    probes: dict[str, dict[str, Any]] = {}
    for e in plan["engines"]:
        config = (engine_configs or {}).get(e)
        if config is None and getattr(engine_registry.get(e), "server_family", None):
            config = {"unavailable": f"no server for {e} in this run: `harness run` starts one, or give --dsn"}
        for r in plan["runtimes"]:
            probes[f"{e}@{r}"] = probe(e, r, config=config)
    for i, c in enumerate(plan["cells"]):
        info = probes[f"{c['engine']}@{c['runtime']}"]
        if not info.get("available"):
            plan["unavailable"][str(i)] = info.get("reason") or "unavailable"
    return probes


def start_run(request: RunRequest) -> Path:
    """Plan, probe, write manifest and plan, execute; returns the run directory."""
    run_id = store.new_run_id()
    plan = build_plan(request, run_id)
    run_dir = store.create_run_dir(Path(request.out), run_id)
    manifest = base_manifest(run_id, request.command)
    manifest["configuration"] = {k: plan[k] for k in ("profile", "processes", "iterations", "seed", "timeout_s",
                                                      "budget_s", "benchmarks", "engines", "runtimes")}
    attach = getattr(request.engine_configs, "attach_run", None)
    if attach is not None:
        attach(run_dir)  # harness.servers records server start/stop times into this run's manifest
    manifest["engines"] = probe_all(plan, request.engine_configs)
    skipped = sorted({plan["unavailable"][k] for k in plan["unavailable"]})
    for reason in skipped:
        print(f"skipping cells: {reason}", file=sys.stderr)
    store.write_json_atomic(run_dir / "plan.json", plan)
    store.write_json_atomic(run_dir / "manifest.json", manifest)
    return execute_run(run_dir, request.engine_configs, request.progress)


def execute_run(run_dir: Path, engine_configs: dict[str, dict[str, Any]], progress: bool = True) -> Path:
    plan = store.read_json(run_dir / "plan.json", "plan")
    manifest = store.read_manifest(run_dir)
    sweep_stale_workdirs()
    runner = Runner(run_dir, plan, engine_configs, progress)
    status = "complete"
    try:
        runner.execute()
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException:
        status = "crashed"
        raise
    finally:
        manifest["ended"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        manifest["status"] = status
        manifest["machine"]["loadavg_after"] = os.getloadavg()
        if plan.get("datasets"):
            manifest.setdefault("datasets", {}).update(plan["datasets"])
        manifest.setdefault("process_counts", {})
        for k, v in runner.counts.items():
            manifest["process_counts"][k] = manifest["process_counts"].get(k, 0) + v
        store.write_json_atomic(run_dir / "manifest.json", manifest)
    return run_dir


def resume_run(run_dir: Path, engine_configs: dict[str, dict[str, Any]] | None = None, progress: bool = True) -> Path:
    """Finish an interrupted run: processes already recorded are kept, the rest run in plan order."""
    if not (Path(run_dir) / "plan.json").exists():
        raise UserError(f"{run_dir}: not a run directory (no plan.json)")
    attach = getattr(engine_configs, "attach_run", None)
    if attach is not None:
        attach(Path(run_dir))
    return execute_run(Path(run_dir), engine_configs or {}, progress)
