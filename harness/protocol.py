"""The data model both sides share: the worker's spec and result, and the raw-timing rows.

Standard library only and Python 3.9 compatible: the worker (on CPython or PyPy) and the store
both import it, so the columns and keys are spelled once.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

#: version of the stored run format (manifest, process records, timings files).
#: 2: wall_ns is float64 (imported results keep sub-nanosecond precision; the worker's integer
#: ns are exact in float64 up to 104 days). 1: wall_ns int64; still read (cast to float64).
SCHEMA_VERSION = 2
#: older versions this harness still reads
READABLE_SCHEMA_VERSIONS: Tuple[int, ...] = (1, 2)
#: version of the worker's result file
RESULT_SCHEMA = 1
#: the start of the reason a cell left out by `run --leave-out` is recorded with (the pattern follows)
LEFT_OUT = "left out of this run to fit its budget (--leave-out"

#: raw timing columns and their Arrow types: one row per timed iteration
RAW_COLUMNS: Dict[str, str] = {
    "run_id": "string",
    "seq": "int64",
    "benchmark": "string",
    "params": "string",
    "engine": "string",
    "driver": "string",
    "runtime": "string",
    "process": "int64",
    "iteration": "int64",
    "pid": "int64",
    "wall_ns": "float64",
    "cpu_ns": "int64",
    "check_ok": "bool",
    "crossings": "int64",
    "values_converted": "int64",
}

#: what a process record's status can be
PROCESS_STATUSES: Tuple[str, ...] = ("ok", "invalid", "failed", "timeout", "error", "not_applicable", "skipped")

#: keys of the spec the runner writes for one worker process
SPEC_KEYS: Tuple[str, ...] = ("benchmark", "params", "engine", "engine_config", "iterations", "budget_s",
                              "min_iterations", "process", "seed", "workdir", "data")

#: keys of the result a worker writes (`traceback` and `budget_stop` only when they apply; the Python
#: worker adds `canary_ns` and `ivcsw`, see OPTIONAL_RESULT_KEYS)
RESULT_KEYS: Tuple[str, ...] = ("schema", "pid", "runtime", "status", "reason", "wall_ns", "cpu_ns", "check_ok",
                                "crossings", "values_converted")

#: what a worker may add: `canary_ns`, the times of a fixed piece of work run between the measured
#: iterations (never inside them), which say how fast this process's CPU was; `ivcsw`, the
#: involuntary context switches the worker suffered while its iterations ran (another task took
#: its CPU); `canary_work`, the name of the canary's work (canaries of different work never mix)
OPTIONAL_RESULT_KEYS: Tuple[str, ...] = ("traceback", "budget_stop", "canary_ns", "canary_work", "ivcsw")

#: per-iteration result arrays that become raw columns of the same name
RESULT_ARRAYS: Tuple[str, ...] = ("wall_ns", "cpu_ns", "check_ok", "crossings", "values_converted")


def canonical_params(params: Dict[str, Any]) -> str:
    """`k=v,k=v` sorted by key: the one spelling of a parameter set used for grouping."""
    return ",".join("%s=%s" % (k, params[k]) for k in sorted(params))


def empty_result(pid: int, runtime: str) -> Dict[str, Any]:
    """A worker result with no iterations yet (status error until the worker says otherwise)."""
    out = {k: [] for k in RESULT_ARRAYS}  # type: Dict[str, Any]
    out.update(schema=RESULT_SCHEMA, pid=pid, runtime=runtime, status="error", reason="")
    return out


def timing_rows(result: Dict[str, Any], constants: Dict[str, Any]) -> Dict[str, list]:
    """A worker result's iterations as raw columns: the per-iteration arrays from `result`, the
    `iteration` index, and every other column repeated from `constants` (run_id, seq, cell...)."""
    n = len(result.get("wall_ns") or [])
    rows = {}  # type: Dict[str, list]
    for col in RAW_COLUMNS:
        if col == "iteration":
            rows[col] = list(range(n))
        elif col in RESULT_ARRAYS:
            rows[col] = list(result.get(col) or [None] * n)
        else:
            rows[col] = [constants[col]] * n
    return rows
