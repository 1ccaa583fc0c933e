"""The runner: turns a request into cells, runs their processes interleaved, stores every timing.

Protocol: each cell (benchmark x engine x runtime) gets P fresh processes; the
processes of all cells run in one seeded random order, so drift of the machine spreads over all
cells instead of biasing one. Each process's outcome is written the moment it finishes, so a
crash, a timeout or Ctrl-C loses at most the process that was running; `resume` finishes a run.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from harness import engines as engine_registry
from harness import store, workloads
from harness.errors import DataError, RunInterrupted, RunStopped, UserError
from harness.fsutil import PROJECT_ROOT, Busy, try_locked
from harness.protocol import canonical_params, timing_rows
from harness.record import Manifest
from harness.redaction import redact
from harness.run import doctor, interference, noise, shard
from harness.run.manifest import base_manifest, git_commit
from harness.run.plan import Cell, LivePlan, RunRequest, build_plan, plan_cells, worker_params
from harness.run.probe import probe_all
from harness.run.runtimes import RUNTIMES, worker_env
from harness.run.tempdir import run_tempdir

STDERR_TAIL_BYTES = 4000
#: errors of the storage itself: they stop the run (resumable) rather than fail a cell
STORAGE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO}
_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: the reason recorded for a process not started because the run's time budget was spent
BUDGET_SPENT = "not started: the run's time budget (--max-run-time) was spent"


def worker_argv(cell: Cell, spec_path: str, result_path: str) -> list[str]:
    return RUNTIMES[cell.runtime].worker_argv(cell.engine, spec_path, result_path)


def _die_with_parent() -> None:
    """In the worker before exec: ask Linux to kill it if the runner dies (even by SIGKILL),
    so a killed harness leaves no orphan worker behind. Elsewhere: nothing to do."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass



def wait_exit(proc: subprocess.Popen, timeout_s: float) -> int:
    """The worker's exit status, as soon as it exits. `Popen.wait(timeout=...)` polls with sleeps
    of up to 50 ms, a delay every process of a run pays (measured: 50-100 ms at a 0.3 s process);
    a pidfd (Linux 5.3+) wakes the runner when the child exits. TimeoutExpired as `wait`'s."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfd here (old kernel, other system), or the child is reaped
        return proc.wait(timeout=timeout_s)
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
    finally:
        os.close(fd)
    if not ready:
        raise subprocess.TimeoutExpired(proc.args, timeout_s)
    return proc.wait()


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

    def __init__(self, run_dir: Path, plan: LivePlan, engine_configs: dict[str, dict[str, Any]],
                 progress: bool = True, tmpdir: Path | None = None, cpus: dict[str, Any] | None = None) -> None:
        self.run_dir = run_dir
        self.tmpdir = tmpdir
        self.plan = plan
        self.cells = plan_cells(plan)
        self.engine_configs = engine_configs
        self.progress = progress
        self.current: subprocess.Popen | None = None
        self.datasets: dict[str, dict[str, Any]] = {}
        self.dead_cells: dict[int, tuple[str, str]] = {}
        #: time.monotonic() after which no process starts (the adaptive protocol's --max-run-time);
        #: the processes left are recorded as skipped, so the run stays complete and says why
        self.deadline: float | None = None
        self.counts: dict[str, int] = {}
        self.worker_cpu = (cpus or {}).get("worker_cpu")
        self._before: noise.Snapshot | None = None  # /proc read just before the running worker started
        self._mark: interference.Mark | None = None  # the worker CPU's counters just before it started
        self._reaped: tuple[interference.Mark, noise.Snapshot] | None = None  # ... and just after it was reaped
        self._worker_facts: dict[str, Any] = {}  # the running worker's own interference facts (ivcsw, canary)
        self._last_end: interference.Mark | None = None  # the end of the previous process: the gap's start
        self.last_contaminated = False  # the previous process was disturbed: wait for quiet first
        self.contaminated_now = False  # the process just recorded was disturbed
        self.waited_total = 0.0  # seconds waited for a quiet CPU in this segment
        self.said_wait_spent = False
        #: write a line above the progress bar (a waiting runner says so)
        self.say: Callable[[str], None] = lambda line: print(line, file=sys.stderr)
        #: the machine (and, in a shard, which shard) each process record names
        self.where = shard.record_fields(plan, doctor.fingerprint())

    # -- per-cell preparation (untimed, outside every worker) --
    def _prepare(self, index: int) -> dict[str, Any]:
        """The cell's data set, prepared once per data set, engine and parameters."""
        cell = self.cells[index]
        workload = workloads.get(cell.benchmark)
        if not workload.dataset:
            return {}
        params = worker_params(cell.params)  # an A/A twin shares its cell's data set
        key = f"{workload.dataset}:{cell.engine}:{canonical_params(params)}"
        if key not in self.datasets:
            from harness.run.datasets import prepare_for

            self.datasets[key] = prepare_for(workload.dataset, cell.engine, params, progress=self.progress,
                                             engine_config=self.engine_configs.get(cell.engine))
            self.plan.datasets = {**(self.plan.datasets or {}),
                                  key: {k: v for k, v in self.datasets[key].items() if k != "path"}}
        return self.datasets[key]

    def _record(self, seq: int, index: int, process: int, status: str, reason: str, **extra: Any) -> None:
        cell = self.cells[index]
        now = time.time()
        extra.setdefault("started", now)
        extra.setdefault("ended", now)
        if self._before is not None:  # the worker has exited: what else ran meanwhile
            end, after = self._reaped or (interference.mark(), noise.snapshot())
            extra.setdefault("noise", noise.load_during(self._before, after, self.plan.noise_threshold_cpus))
            extra.setdefault("cpu", self.worker_cpu)
            if self._mark is not None:
                facts = self._worker_facts
                m = interference.measure(self._mark, end, self.worker_cpu, noise.ours_cpu_during(self._before, after),
                                         facts.get("ivcsw"), facts.get("timed_s"))
                extra.setdefault("interference", m)
                if facts.get("canary"):
                    extra.setdefault("canary", facts["canary"])
                self.contaminated_now = bool(m["contaminated"])
                self._last_end = end
            self._before = self._mark = self._reaped = None
            self._worker_facts = {}
        rerun_of = {r["rerun_seq"]: r["seq"] for r in self.plan.reruns}.get(seq)
        if rerun_of is not None:
            extra.setdefault("rerun_of", rerun_of)
        rec = {"benchmark": cell.benchmark, "params": canonical_params(cell.params), "engine": cell.engine,
               "runtime": extra.pop("runtime", None) or cell.runtime, "runtime_family": cell.runtime,
               "process": process, "status": status, "reason": redact(reason), **self.where, **extra}
        store.write_process_record(self.run_dir, seq, rec)
        self.counts[status] = self.counts.get(status, 0) + 1

    def run_one(self, seq: int, index: int, process: int) -> str:
        cell = self.cells[index]
        if index in self.dead_cells:
            status, reason = self.dead_cells[index]
            self._record(seq, index, process, status, reason)
            return status
        skip = self.plan.unavailable.get(str(index))
        if skip:
            self._record(seq, index, process, "skipped", skip)
            return "skipped"
        try:
            data = self._prepare(index)
        except OSError as exc:
            if exc.errno in STORAGE_ERRNOS:
                raise  # disk full and the like stop the run (resumable): not the cell's fault
            self.dead_cells[index] = ("failed", redact(f"data set preparation failed: {exc}"))
            return self.run_one(seq, index, process)
        except Exception as exc:  # noqa: BLE001 - a data set that cannot be made fails its cells (exit 1)
            self.dead_cells[index] = ("failed", redact(f"data set preparation failed: {exc}"))
            return self.run_one(seq, index, process)
        workdir = Path(tempfile.mkdtemp(prefix="worker-", dir=self.tmpdir))
        try:
            return self._execute(seq, index, process, cell, data, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _execute(self, seq: int, index: int, process: int, cell: Cell, data: dict[str, Any], workdir: Path) -> str:
        # a cell may carry its own count (the adaptive protocol sets it after the pilot)
        iterations = self.plan.cells[index].iterations or self.plan.iterations
        spec = {"benchmark": cell.benchmark, "params": worker_params(cell.params), "engine": cell.engine,
                "engine_config": self.engine_configs.get(cell.engine, {}), "iterations": iterations,
                "budget_s": self.plan.budget_s, "min_iterations": self.plan.min_iterations,
                "process": process, "seed": self.plan.seed * 1_000_003 + seq, "workdir": str(workdir), "data": data}
        spec_path = workdir / "spec.json"
        fd = os.open(spec_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(spec, f)
        result_path = workdir / "result.json"
        log_path = workdir / "worker.log"
        waited = self._wait_for_quiet()
        self._before = noise.snapshot()
        self._mark = interference.mark(waited)
        started = time.time()
        with open(log_path, "wb") as log:
            try:
                # Ctrl-C during the fork would run its handler inside an at-fork hook, which swallows
                # the KeyboardInterrupt: hold SIGINT/SIGTERM until Popen returns (the child unblocks)
                held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
                try:
                    self.current = subprocess.Popen(worker_argv(cell, str(spec_path), str(result_path)),
                                                    cwd=PROJECT_ROOT, env=worker_env(), stdin=subprocess.DEVNULL,
                                                    stdout=log, stderr=log, start_new_session=True,
                                                    preexec_fn=self._worker_setup)
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)
                returncode = wait_exit(self.current, self.plan.timeout_s)
                self._reaped = (interference.mark(), noise.snapshot())
            except subprocess.TimeoutExpired:
                self._kill_current()
                self._reaped = (interference.mark(), noise.snapshot())
                self._record(seq, index, process, "timeout",
                             f"process exceeded the {self.plan.timeout_s:.0f} s timeout and was killed",
                             pid=self.current.pid, stderr_tail=_tail(log_path), started=started, ended=time.time())
                # its other processes would time out too: a cell too slow for the timeout costs one
                # timeout, not one per process (at SF 0.1 an unindexed SQLite q17 takes minutes)
                self.dead_cells[index] = ("timeout", f"not started: process {process} of this cell exceeded the "
                                                     f"{self.plan.timeout_s:.0f} s timeout")
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
        walls = result.get("wall_ns") or []
        self._worker_facts = {"ivcsw": result.get("ivcsw") if isinstance(result.get("ivcsw"), int) else None,
                              "timed_s": sum(w for w in walls if isinstance(w, (int, float))) / 1e9 or None,
                              "canary": interference.canary_facts(result)}
        extra = {"pid": result.get("pid", pid), "runtime": result.get("runtime"), "stderr_tail": tail,
                 "started": started, "ended": ended}
        if "datadir" in cell.params:  # a benchmark that writes files: where they went (tmpfs or disk)
            extra["storage"] = doctor.filesystem(cell.params["datadir"] or workdir)
        if status == "not_applicable":
            self.dead_cells[index] = ("not_applicable", f"not applicable: {reason}")
            self._record(seq, index, process, "not_applicable", f"not applicable: {reason}", **extra)
            return status
        n = len(result.get("wall_ns") or [])
        if n:
            eng = engine_registry.get(cell.engine)
            rows = timing_rows(result, {"run_id": self.plan.run_id, "seq": seq, "benchmark": cell.benchmark,
                                        "params": canonical_params(cell.params), "engine": cell.engine,
                                        "driver": eng.driver, "runtime": result.get("runtime") or cell.runtime,
                                        "process": process, "pid": int(extra["pid"])})
            store.write_timings(self.run_dir, seq, rows)
            extra["timings_file"] = f"timings/{seq:06d}.parquet"
            extra["rows"] = n
        if result.get("budget_stop"):
            extra["budget_stop"] = result["budget_stop"]
        elif status == "ok" and n != iterations:
            status, reason = "error", f"worker returned {n} iterations, expected {iterations}"
        if status == "error" and result.get("traceback"):
            extra["traceback"] = redact(result["traceback"])
        self._record(seq, index, process, status, reason, **extra)
        return status

    def _wait_for_quiet(self) -> float:
        """Before a process: when the previous one was disturbed, or others used the worker's CPU
        in the gap since it ended, wait (bounded, said) until the CPU is quiet. Seconds waited."""
        if not self.plan.interference:
            return 0.0
        busy = self.last_contaminated
        if not busy and self._last_end is not None:
            span, share = interference.others_share_since(self._last_end, self.worker_cpu)
            busy = span >= interference.GAP_MIN_S and share > interference.GAP_BUSY_SHARE
        max_wait = float(self.plan.max_wait_s)
        left = 10 * max_wait - self.waited_total
        if not busy or max_wait <= 0:
            return 0.0
        if left <= 0:
            if not self.said_wait_spent:
                self.say(f"the machine stays busy: waited {self.waited_total:.0f} s in all; from here no waiting and "
                         "no reruns (disturbed processes are still flagged and left out)")
                self.said_wait_spent = True
            return 0.0
        waited, _ = interference.wait_for_quiet(self.worker_cpu, min(max_wait, left), say=self.say)
        self.waited_total += waited
        if self.deadline is not None:  # the run's budget is for measuring, not for waiting on others
            self.deadline += waited
        return waited

    def _schedule_rerun(self, todo: list[tuple[int, int, int]], pos: int, seq: int, index: int) -> bool:
        """A disturbed process is run again later in the run, at a random place among the processes
        still to run (so not beside the same neighbour), within the cell's rerun budget. The new
        entry is stored in plan.json before it runs, so `resume` and the store's checks know it."""
        if self.said_wait_spent:  # the machine stays busy: a rerun would meet the same neighbours
            return False
        reruns = self.plan.reruns
        cap = self.rerun_cap(index)
        if sum(1 for r in reruns if r["cell"] == index) >= cap:
            return False
        order = self.plan.order
        new_seq = max(t[0] for t in order) + 1
        process = max((t[2] for t in order if t[1] == index), default=-1) + 1
        entry = (new_seq, index, process)
        order.append(entry)
        reruns.append({"cell": index, "seq": seq, "rerun_seq": new_seq})
        self.plan.write(self.run_dir)
        rng = random.Random(self.plan.seed * 7_919 + new_seq)
        todo.insert(rng.randint(pos + 1, len(todo)), entry)
        return True

    def rerun_cap(self, index: int) -> int:
        """How many disturbed processes of a cell are rerun: half its planned processes, at least 2."""
        if not self.plan.rerun:
            return 0
        planned = sum(1 for t in self.plan.order if t[1] == index) - sum(
            1 for r in self.plan.reruns if r["cell"] == index)
        return max(2, planned // 2)

    def _worker_setup(self) -> None:
        """In the worker before exec: die with the runner, stay on the worker CPU."""
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD_SIGNALS)
        _die_with_parent()
        noise.pin_to(self.worker_cpu)

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
        todo = [t for t in self.plan.order if t[0] not in done]
        bar = None
        if self.progress:
            from tqdm import tqdm

            bar = tqdm(total=len(self.plan.order), initial=len(self.plan.order) - len(todo), unit="proc",
                       file=sys.stderr, dynamic_ncols=True, mininterval=0.5)
            self.say = lambda line: bar.write(line, file=sys.stderr)
        try:
            pos = 0
            while pos < len(todo):
                seq, index, process = todo[pos]
                if bar is not None:
                    bar.set_description_str(self.cells[index].label()[:60])
                self.contaminated_now = False
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    self._record(seq, index, process, "skipped", BUDGET_SPENT)
                    status = "skipped"
                else:
                    status = self.run_one(seq, index, process)
                self.last_contaminated = self.contaminated_now
                if status == "ok" and self.contaminated_now and self._schedule_rerun(todo, pos, seq, index):
                    if bar is not None:
                        bar.total += 1
                pos += 1
                if bar is not None:
                    bar.update(1)
                    if status in ("failed", "timeout", "error", "invalid"):
                        bar.write(f"  {self.cells[index].label()} process {process}: {status}", file=sys.stderr)
        finally:
            if bar is not None:
                bar.close()
        return self.counts


def start_run(request: RunRequest, drive: Callable[[Runner], Any] | None = None) -> Path:
    """Plan, start the servers the plan needs, probe, write manifest and plan, execute.

    The plan is built first (so a bad name fails before anything starts), then exactly the
    servers its engines need are started (or the user's DSNs used), and stopped when the run
    ends. The run directory is made only once the probes are done, with its plan and manifest
    written at once, so a run killed while starting leaves no half-made directory. The runner
    is the only writer of `manifest.json`: at the start and at the end of each segment (status,
    counts recounted from the records, the segment's commit and times, the servers' records). `drive` runs
    the runner instead of `Runner.execute` (the adaptive protocol runs it in rounds)."""
    from concurrent.futures import ThreadPoolExecutor

    run_id = request.run_id or store.new_run_id()
    # start-up work that only reads the machine overlaps with planning: the doctor's sampling
    # window (it sleeps), git and the clock reads (subprocesses), and the Parquet writer's import
    # (joined before the first process starts, so it never runs beside a measurement)
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="crossings-start") as pool:
        found = pool.submit(doctor.findings, Path(request.out))
        base = pool.submit(base_manifest, run_id, request.command)
        store.preload_writer()
        plan = build_plan(request, run_id)
        manifest = base.result().with_(
            configuration={k: getattr(plan, k) for k in ("profile", "processes", "iterations", "seed", "timeout_s",
                                                         "budget_s", "benchmarks", "engines", "runtimes")},
            doctor=found.result())
        if plan.shard:
            manifest = manifest.with_(shard=plan.shard)
    if request.shard is None:  # shards share a folder: another machine's directory may be starting
        sweep_unstarted_run_dirs(Path(request.out))
    return _execute_with_servers(Path(request.out), plan, manifest, request.dsns, request.progress, first=True,
                                 drive=drive)


def resume_run(run_dir: Path, dsns: dict[str, str] | None = None, progress: bool = True,
               max_wait_s: float | None = None) -> Path:
    """Finish an interrupted run: processes already recorded are kept, the rest run in plan order
    (`max_wait_s`: a new bound on the wait for a quiet CPU, which changes no measurement)."""
    run_dir = Path(run_dir)
    if not (run_dir / "plan.json").exists():
        raise UserError(f"{run_dir}: not a run directory (no plan.json)")
    try:  # Ctrl-C while checking the records changes nothing on disk: say how to resume all the same
        stored = store.plan_of(run_dir)  # checked: cells and order as a resume needs them
        assert stored is not None  # plan.json exists (above)
        read = store.manifest_of(run_dir)
        store.verify_records(run_dir, read, stored, store.records_of(run_dir))
    except KeyboardInterrupt:
        raise RunInterrupted(run_dir) from None
    # the segment ahead adds to the plan: the live plan this runner and the adaptive protocol fill
    plan, manifest = LivePlan.from_record(stored), read.with_(command=read.command)
    if max_wait_s is not None:
        plan.max_wait_s = max_wait_s
    from harness.run.adaptive import note_resume

    note_resume(plan)  # an adaptive run cut mid-round keeps its record, saying so
    return _execute_with_servers(run_dir, plan, manifest, dsns, progress, first=False)


def sweep_unstarted_run_dirs(out: Path) -> list[Path]:
    """Remove run directories an earlier harness made but never started (no plan, no manifest,
    no records: killed in the instant between making the directory and writing its plan)."""
    removed = []
    for d in out.glob("20*-*-*"):
        if (not d.is_dir() or (d / "plan.json").exists() or (d / "manifest.json").exists()
                or any(d.glob("processes/*")) or any(d.glob("timings/*"))):
            continue
        try:
            with try_locked(d):
                shutil.rmtree(d)
                removed.append(d)
        except (Busy, OSError):
            continue
    return removed


def _io_message(exc: OSError, run_dir: Path) -> str:
    what = exc.strerror or str(exc)
    where = f"{exc.filename}: " if exc.filename else ""
    return (f"run stopped by an I/O error: {where}{what}; every finished process is stored; "
            f"after fixing it, finish the run with: python -m harness run --resume {run_dir}")


def _execute_with_servers(target: Path, plan: LivePlan, manifest: Manifest, dsns: dict[str, str] | None,
                          progress: bool, first: bool, drive: Callable[[Runner], Any] | None = None) -> Path:
    """Run (first=True: `target` is the parent of a new run directory) or resume (`target` is the
    run directory) under the run directory's lock, in one private temp directory."""
    from harness.run.servers import run_servers

    run_dir = target / plan.dir_name if first else target
    servers = None
    status = "complete"
    cpus = noise.choose_cpus(plan.pin)
    manifest = manifest.with_(noise_control=[
        *manifest.noise_control, {"cpus": cpus, "threshold_cpus": plan.noise_threshold_cpus}])
    # each segment (the first run, every resume) names the machine it ran on: a campaign stopped
    # and resumed elsewhere says so
    segment = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **git_commit(), "command": manifest.command,
               "machine": doctor.fingerprint()}
    locked = False
    with contextlib.ExitStack() as lock:  # released last, after the manifest is written
        try:
            with contextlib.ExitStack() as stack:
                if not first:
                    lock.enter_context(_lock_run_dir(run_dir))
                    locked = True
                tmpdir = stack.enter_context(run_tempdir())
                stack.enter_context(noise.runner_pinned(cpus))
                servers = stack.enter_context(run_servers(plan.engines, dsns, progress=progress))
                if first:
                    manifest = manifest.with_(engines=probe_all(plan, servers, tmpdir))
                    for reason in sorted(set(plan.unavailable.values())):
                        print(f"skipping cells: {reason}", file=sys.stderr)
                    _make_run_dir(run_dir, plan, manifest)
                    lock.enter_context(_lock_run_dir(run_dir))
                    locked = True
                runner = Runner(run_dir, plan, servers, progress, tmpdir=tmpdir, cpus=cpus)
                store.wait_for_writer()
                (drive or Runner.execute)(runner)
        except KeyboardInterrupt:
            status = "interrupted"
            if locked or not first:  # the run directory exists (a fresh run's only once it is locked)
                raise RunInterrupted(run_dir) from None
            raise
        except OSError as exc:
            status = "stopped"
            if not locked:
                raise UserError(_io_message(exc, run_dir).split("; every")[0]) from None
            raise RunStopped(_io_message(exc, run_dir), run_dir) from None
        except BaseException:
            status = "crashed"
            raise
        finally:
            if locked:
                _finish_manifest(run_dir, plan, manifest, segment, status, servers)
    return run_dir


@contextlib.contextmanager
def _lock_run_dir(run_dir: Path) -> Iterator[None]:
    try:
        with try_locked(run_dir):
            yield
    except Busy:
        raise UserError(f"{run_dir}: in use by another harness run or resume (locked); "
                        "wait for it to finish") from None


def _make_run_dir(run_dir: Path, plan: LivePlan, manifest: Manifest) -> None:
    """The run directory with its plan and manifest, or nothing (a failure removes what was made)."""
    store.create_run_dir(run_dir.parent, run_dir.name)
    try:
        plan.write(run_dir)
        manifest.write(run_dir)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise


def _finish_manifest(run_dir: Path, plan: LivePlan, manifest: Manifest, segment: dict[str, Any],
                     status: str, servers: Any) -> None:
    """End the segment in the manifest: status, counts recounted from the records on disk (never
    added across segments), the segment's commit, dirty flag and times. A manifest that cannot
    be written (disk still full) keeps its previous version; the records are the truth."""
    try:
        counts = store.count_statuses(run_dir)
    except UserError:
        counts = dict(manifest.process_counts or {})
    planned = len(plan.order)
    if status == "complete" and sum(counts.values()) < planned:
        status = "incomplete"
    now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    manifest = manifest.with_(ended=now, status=status,
                              machine={**(manifest.machine or {}), "loadavg_after": os.getloadavg()})
    if plan.datasets:
        manifest = manifest.with_(datasets={**(manifest.datasets or {}), **plan.datasets})
    if plan.adaptive:
        manifest = manifest.with_(adaptive=plan.adaptive)
    segment.update(ended=now, status=status, processes_recorded=sum(counts.values()))
    manifest = manifest.with_(process_counts=counts, processes_planned=planned,
                              segments=[*manifest.segments, segment])
    if servers is not None and servers.records:
        manifest = manifest.with_(servers=[*manifest.servers, *servers.records])
    try:
        manifest.write(run_dir)
    except OSError as exc:
        if status != "stopped":  # a stopped run's one error line already names the storage failure
            print(f"warning: could not update {run_dir / 'manifest.json'} ({exc.strerror or exc}); "
                  "the process records are complete and a resume rewrites it", file=sys.stderr)
    except DataError as exc:  # never in place of the run's own outcome (this runs in a `finally`)
        print(f"warning: could not update {run_dir / 'manifest.json'} ({exc}); "
              "the process records are complete and a resume rewrites it", file=sys.stderr)
