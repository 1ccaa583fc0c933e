"""Cost of `summary` as a run grows: a synthetic run of P processes x N iterations, timed cold.

Writes a run with the store's own writer (`store.write_timings`, `store.write_process_record`)
into a temporary directory: 40 cells (benchmark x engine) of P / 40 processes each, N
iterations per process, lognormal times with a 5% warm-up (10% slower) in the first tenth of
each process. Then runs `python -m harness summary RUN --format csv` in a subprocess (the
analysis cache off, so nothing is read from an earlier run) and reports its wall time and peak
resident memory (resource.getrusage(RUSAGE_CHILDREN).ru_maxrss, the largest child so far: run
one size per invocation) and its CPU time (user + system, all threads: on a shared machine the
wall time says more about the neighbours than about the harness; memory does not depend on them).

  python benchmarks/bench_scale.py --rows 10000000           # 440 x 22,727 = 10 million rows
  python benchmarks/bench_scale.py --iterations 2273 --tree /path/to/other/checkout
  python benchmarks/bench_scale.py --rows 100000000 --keep /tmp/big   # then: --run /tmp/big/RUN_ID
  make bench-scale                                           # 1 million, then 10 million rows

--tree times another checkout's harness on the same data (before/after on one machine); --run
times a run written before (a 100-million-row run takes minutes to write).
Goals: 10 million rows in <= 10 s and <= 1 GiB (issue 11 item 7, issue 25 item 6); 100 million
in <= 60 s and <= 2 GiB on 2 cores (issue 27 item 5), the cost linear in the rows. The summary
reads the Parquet files in place, decoding only what their footers do not prove constant
(`store.iter_timing_parts` with `columns`): on 2 shared cores 1, 10 and 100 million rows took
3.1, 5.5 and 36.7 s of CPU and 232, 338 and 1077 MiB (before: 3.4, 7.6, 48.5 s and 236, 372,
1139 MiB): about 2.8 s and 200 MiB to start, then 0.3 s and 8.6 MiB per million rows. Measured
alone (load 1.5, 2026-11-26), 100 million rows: 20.7 s wall, 37.1 s CPU, 1126 MiB (the checkout
before: 25.1 s, 46.0 s, 1167 MiB).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import store
from harness.fsutil import write_json_atomic
from harness.protocol import SCHEMA_VERSION

CELLS = 40


def write_run(out: Path, processes: int, iterations: int, seed: int = 0) -> Path:
    """A complete synthetic run (no plan: like an imported run) under `out`."""
    rng = np.random.default_rng(seed)
    run_dir = store.create_run_dir(out)
    run_id = run_dir.name
    write_json_atomic(run_dir / "manifest.json", {"schema_version": SCHEMA_VERSION, "run_id": run_id,
                                                 "status": "complete", "imported": True, "synthetic": True})
    per_cell = max(1, processes // CELLS)
    seq = 0
    for c in range(CELLS):
        bench, engine = f"synthetic.b{c // 4:02d}", ("sqlite", "duckdb", "apsw", "postgres")[c % 4]
        for p in range(per_cell):
            level = 1e4 * (1 + 0.2 * c) * np.exp(0.02 * rng.standard_normal())
            wall = level * np.exp(0.03 * rng.standard_normal(iterations))
            wall[: iterations // 10] *= 1.1
            n = iterations
            rows = {"run_id": [run_id] * n, "seq": [seq] * n, "benchmark": [bench] * n, "params": [""] * n,
                    "engine": [engine] * n, "driver": [engine] * n, "runtime": ["cpython3.11.7"] * n,
                    "process": [p] * n, "iteration": list(range(n)), "pid": [1000 + seq] * n,
                    "wall_ns": wall.tolist(), "cpu_ns": np.round(wall).astype(np.int64).tolist(),
                    "check_ok": [True] * n, "crossings": [1] * n, "values_converted": [None] * n}
            store.write_timings(run_dir, seq, rows)
            store.write_process_record(run_dir, seq, {
                "benchmark": bench, "params": "", "engine": engine, "runtime": "cpython3.11.7",
                "process": p, "status": "ok", "reason": "", "timings_file": f"timings/{seq:06d}.parquet",
                "rows": n})
            seq += 1
    return run_dir


def time_summary(run_dir: Path, tree: Path) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MiB, CPU seconds) of `harness summary` of `tree` on the run, cold."""
    env = dict(os.environ, PYTHONPATH=str(tree), CROSSINGS_ANALYSIS_CACHE="off")
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "harness", "summary", str(run_dir), "--format", "csv"], cwd=tree,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, use.ru_maxrss / 1024, use.ru_utime + use.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--processes", type=int, default=440)
    ap.add_argument("--iterations", type=int, default=22727)
    ap.add_argument("--rows", type=int, default=None, help="rows in all (sets --iterations: rows / processes)")
    ap.add_argument("--run", type=Path, default=None, help="time this run (written before) instead of a new one")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose harness is timed")
    ap.add_argument("--keep", type=Path, default=None, help="write the run here and keep it")
    args = ap.parse_args(argv)
    if args.processes < CELLS:
        ap.error(f"--processes must be at least {CELLS} (one per cell)")
    if args.rows is not None:
        args.iterations = max(1, args.rows // ((args.processes // CELLS) * CELLS))
    with tempfile.TemporaryDirectory() as tmp:
        made = 0.0
        if args.run is not None:
            run_dir = args.run
        else:
            t = time.perf_counter()
            run_dir = write_run(args.keep or Path(tmp), args.processes, args.iterations)
            made = time.perf_counter() - t
        wall, rss, cpu = time_summary(run_dir, args.tree.resolve())
        rows = sum(int(r.rows or 0) for r in store.records_of(run_dir).values())
    print(f"rows={rows} summary_s={wall:.2f} cpu_s={cpu:.2f} peak_rss_mib={rss:.0f} tree={args.tree} "
          f"(run {run_dir.name}{f' written in {made:.1f} s' if made else ''}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
