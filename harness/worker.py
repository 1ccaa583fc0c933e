"""The worker: runs inside each fresh benchmark process (`python -m harness.worker SPEC RESULT`).

Python 3.9 compatible, standard library only plus the driver under test, because it also runs
on PyPy. It does untimed set-up (and an untimed per-iteration reset where the workload has one), then times each iteration with `perf_counter_ns` (wall) and
`process_time_ns` (CPU) around the operation alone, checks every result outside the timed
region, counts crossings once by instrumented replay, and writes its timings atomically.
"""
from __future__ import annotations

import gc
import json
import os
import platform
import sys
import time
import traceback
from typing import Any, Dict, List, Optional

from harness.fsutil import write_json_atomic as _write_json_atomic
from harness.protocol import RESULT_SCHEMA, empty_result


def runtime_name() -> str:
    """`cpython3.11.7`, `pypy3.9.18` (PyPy's language version), as the raw rows record it."""
    impl = platform.python_implementation().lower()
    return "%s%s" % (impl, platform.python_version())


#: the canary's work: integer arithmetic in a plain loop, about 1 ms on CPython on this class of
#: machine. It touches no memory beyond a few objects, so its time follows the CPU's speed (the
#: host's phase, another task on the CPU), not the data under test.
CANARY_WORK = "int-loop-20000"
_CANARY_LOOPS = 20000
#: the canary may cost at most this share of the timed work (plus its first and last runs)
CANARY_SHARE = 0.1


def canary() -> int:
    """A fixed piece of work whose time says how fast this process's CPU is right now."""
    x = 0
    for i in range(_CANARY_LOOPS):
        x = (x * 31 + i) & 0xFFFFF
    return x


def _time_canary(out: List[int]) -> int:
    t0 = time.perf_counter_ns()
    canary()
    t = time.perf_counter_ns() - t0
    out.append(t)
    return t


def _ivcsw() -> Optional[int]:
    """Involuntary context switches of this process so far (None where getrusage has none)."""
    try:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_nivcsw)
    except (ImportError, AttributeError, OSError):
        return None


def write_json_atomic(path: str, obj: Dict[str, Any]) -> None:
    _write_json_atomic(path, obj, pretty=False)


def probe(engine_name: str, config_path: Optional[str] = None) -> Dict[str, Any]:
    """Availability and versions of an engine. A server engine gets its engine_config (DSN)
    from the 0600 JSON file `config_path` and connects to read the server's version and settings."""
    from harness import engines

    try:
        engine = engines.get(engine_name)
    except KeyError as exc:
        return {"available": False, "reason": str(exc.args[0]), "runtime": runtime_name()}
    if getattr(engine, "server_family", None):
        config = {}  # type: Dict[str, Any]
        if config_path:
            with open(config_path) as f:
                config = json.load(f)
        info = engine.probe(config)  # type: ignore[call-arg]
    else:
        info = engine.probe()
    info["runtime"] = runtime_name()
    info["executable"] = sys.executable
    return info


def run(spec: Dict[str, Any]) -> Dict[str, Any]:
    from harness import engines, workloads
    from harness.engines.base import NotApplicable
    from harness.workloads.base import Workload

    out = empty_result(os.getpid(), runtime_name())
    workload = workloads.get(spec["benchmark"])
    engine = engines.get(spec["engine"])
    data = spec.get("data") or {}
    try:
        db = engine.connect(spec.get("engine_config") or {}, spec["workdir"], data.get("path"))
    except NotApplicable as exc:
        out.update(status="not_applicable", reason=str(exc))
        return out
    try:
        reason = workload.not_applicable(db)
        if reason:
            out.update(status="not_applicable", reason=reason)
            return out
        ctx = {"workdir": spec["workdir"], "data": data, "seed": spec.get("seed", 0),
               "process": spec.get("process", 0)}
        try:
            state = workload.setup(db, dict(spec.get("params") or {}), ctx)
        except NotApplicable as exc:
            out.update(status="not_applicable", reason=str(exc))
            return out
        operation = workload.operation
        check = workload.check
        # a per-iteration reset (an emptied table), untimed, only for workloads that define one
        reset = workload.reset if type(workload).reset is not Workload.reset else None
        iterations = int(spec["iterations"])
        # optional time budget: stop after the iteration that spends it (at least min_iterations)
        budget_ns = int(float(spec.get("budget_s") or 0) * 1e9)
        min_iterations = int(spec.get("min_iterations") or 2)
        spent = 0
        wall = out["wall_ns"]  # type: List[int]
        cpu = out["cpu_ns"]  # type: List[int]
        oks = out["check_ok"]  # type: List[bool]
        first_failure = ""
        counts = (None, None)
        perf_counter_ns = time.perf_counter_ns
        process_time_ns = time.process_time_ns
        canaries = []  # type: List[int]
        canary_spent = 0
        gc.collect()
        canary_spent += _time_canary(canaries)
        switches0 = _ivcsw()
        for i in range(iterations):
            if reset is not None:
                reset(state)
            t0 = perf_counter_ns()
            c0 = process_time_ns()
            result = operation(state)
            c1 = process_time_ns()
            t1 = perf_counter_ns()
            wall.append(t1 - t0)
            cpu.append(c1 - c0)
            problem = check(state, result)
            oks.append(problem is None)
            if problem is not None and not first_failure:
                first_failure = "iteration %d: %s" % (i, problem)
            if i == 0:
                counts = workload.counts(state, result)
            result = None
            spent += t1 - t0
            # between iterations, never inside one: the canary while it costs <= CANARY_SHARE
            if canary_spent < CANARY_SHARE * spent:
                canary_spent += _time_canary(canaries)
            if budget_ns and spent >= budget_ns and i + 1 >= min_iterations and i + 1 < iterations:
                out["budget_stop"] = "time budget of %.1f s spent after %d of %d iterations" % (
                    budget_ns / 1e9, i + 1, iterations)
                break
        switches1 = _ivcsw()
        _time_canary(canaries)
        out["canary_ns"] = canaries
        out["canary_work"] = CANARY_WORK
        if switches0 is not None and switches1 is not None:
            out["ivcsw"] = switches1 - switches0
        out["crossings"] = [counts[0]] * len(wall)
        out["values_converted"] = [counts[1]] * len(wall)
        workload.teardown(state)
        if first_failure:
            out.update(status="invalid", reason="wrong result: " + first_failure)
        else:
            out["status"] = "ok"
        return out
    finally:
        try:
            db.close()
        except Exception:  # noqa: BLE001 - closing is best effort once timings exist
            pass


def main(argv: List[str]) -> int:
    if len(argv) in (2, 3) and argv[0] == "--probe":
        print(json.dumps(probe(argv[1], argv[2] if len(argv) == 3 else None)))
        return 0
    if len(argv) != 2:
        print("usage: python -m harness.worker SPEC.json RESULT.json | --probe ENGINE [CONFIG.json]", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        spec = json.load(f)
    try:
        out = run(spec)
    except BaseException as exc:  # noqa: BLE001 - report every failure to the runner
        out = {"schema": RESULT_SCHEMA, "pid": os.getpid(), "runtime": runtime_name(), "status": "error",
               "reason": "%s: %s" % (type(exc).__name__, exc), "traceback": traceback.format_exc()}
        write_json_atomic(argv[1], out)
        traceback.print_exc()
        return 1
    write_json_atomic(argv[1], out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
