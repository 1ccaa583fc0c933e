"""Shard directories written the way the runner writes them, without running workers: each
process's times drawn from a known model (a per-machine factor, a per-process factor, noise),
so collect and the three-level statistics can be checked in-process."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import store
from harness.protocol import canonical_params
from harness.run.manifest import base_manifest
from harness.run.plan import RunRequest, build_plan
from harness.run.shard import Shard, record_fields


def machine(k: int) -> dict:
    return {"hostname": f"node{k}", "cpu_model": "test", "cores": 2, "kernel": "6", "governor": None,
            "memory_bytes": 1, "id": f"m{k:011d}"}


def write_shard(out: Path, run_id: str, k: int, n: int, processes: int = 6, iterations: int = 5,
                machine_factor: float = 1.0, seed: int = 0, skip_seqs: tuple = ()) -> Path:
    """Shard k of n of a one-cell smoke plan, as `run --shard k/n --run-id run_id` would write it."""
    req = RunRequest(profile="smoke", benchmarks=["bindings.select_fold"], engines=["sqlite/sqlite3"],
                     processes=processes, iterations=iterations, shard=Shard(k, n), run_id=run_id, out=out)
    plan = build_plan(req, run_id)
    run_dir = store.create_run_dir(out, plan.dir_name)
    manifest = base_manifest(run_id, None).with_(status="complete")
    plan.write(run_dir)
    rng = np.random.default_rng([seed, k])
    where = record_fields(plan, machine(k))
    for seq, c, p in plan.order:
        if seq in skip_seqs:
            continue
        cell = plan.cells[c]
        proc = machine_factor * np.exp(rng.normal(0, 0.02))
        wall = (1e6 * proc * np.exp(rng.normal(0, 0.01, iterations))).tolist()
        params = canonical_params(cell.params)
        rows = {"run_id": [run_id] * iterations, "seq": [seq] * iterations, "benchmark": [cell.benchmark] * iterations,
                "params": [params] * iterations, "engine": [cell.engine] * iterations,
                "driver": ["sqlite3"] * iterations, "runtime": ["cpython3.11"] * iterations,
                "process": [p] * iterations, "iteration": list(range(iterations)), "pid": [1] * iterations,
                "wall_ns": wall, "cpu_ns": [int(w) for w in wall], "check_ok": [True] * iterations,
                "crossings": [1] * iterations, "values_converted": [1] * iterations}
        store.write_timings(run_dir, seq, rows)
        store.write_process_record(run_dir, seq, {
            "benchmark": cell.benchmark, "params": params, "engine": cell.engine, "runtime": "cpython3.11",
            "runtime_family": "cpython", "process": p, "status": "ok", "reason": "", **where,
            "timings_file": f"timings/{seq:06d}.parquet", "rows": iterations})
    manifest.write(run_dir)
    return run_dir
