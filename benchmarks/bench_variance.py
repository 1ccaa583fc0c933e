"""Where a cell's variance comes from on this machine: within processes, between them, and the
disturbed processes; before (every process kept, the old protocol) and after (disturbed ones left
out; the canary-adjusted spread beside).

Runs (unless given RUN_DIR) one interleaved fixed run of four cells: a C loop over SQLite (the
speed-of-light baseline, `sqlite/native-c` on `c`), sqlite3's fold on CPython, DuckDB's, and
PostgreSQL's through psycopg (a throwaway server), `--processes` x `--iterations` each, reruns
off so "before" sees every disturbed process. Prints per cell the coefficient of variation within
a process and between process means (Kalibera and Jones' components), the share of processes
flagged, and the between-process spread after leaving them out and after the canary adjustment.
Usage: python benchmarks/bench_variance.py [RUN_DIR] [--processes 20] [--iterations 10]
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.analysis import interference  # noqa: E402
from harness.analysis.planner import variance_components  # noqa: E402
from harness.analysis.runset import RunSet  # noqa: E402


def measure(out: Path, processes: int, iterations: int) -> Path:
    env = dict(os.environ, CROSSINGS_RERUN="0")
    p = subprocess.run([sys.executable, "-m", "harness", "run", "--profile", "quick", "--benchmarks",
                        "bindings.select_fold", "--engines", "sqlite/sqlite3,sqlite/native-c,duckdb,postgresql/psycopg",
                        "--runtimes", "cpython,c", "--processes", str(processes), "--iterations", str(iterations),
                        "--budget", "0", "--out", str(out), "--no-progress"], cwd=ROOT, capture_output=True,
                       text=True, env=env)
    return Path(p.stdout.strip().splitlines()[-1])


def cv_between(means: list[float]) -> float:
    m = np.asarray(means)
    return float(m.std(ddof=1) / m.mean()) if len(m) > 1 else math.nan


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run", nargs="?", type=Path)
    ap.add_argument("--processes", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.run or measure(Path(tmp), args.processes, args.iterations)
        every = RunSet([run_dir], keep_contaminated=True)
        clean = RunSet([run_dir])
        canary = interference.canaries(every.processes)
        print(f"run {run_dir.name}; CV = sd / mean; 'between' is the sd of process means (Kalibera and Jones' "
              "between-process component, within removed)")
        print(f"{'cell':42s} {'P':>3s} {'within':>7s} {'between':>8s} {'disturbed':>9s} {'between, clean':>15s} "
              f"{'canary-adjusted':>15s} {'rho':>5s}")
        for key, s in every.samples.items():
            mean, s2b, s2w = variance_components(s.processes)
            c = clean.samples.get(key)
            _, s2b_c, _ = variance_components(c.processes) if c is not None else (math.nan, math.nan, math.nan)
            flagged = every.exclusion.flagged.get(key, 0)
            row = clean.summary[(clean.summary["benchmark"] == key[0]) & (clean.summary["engine"] == key[2])
                                & (clean.summary["runtime"] == key[3])].iloc[0]
            ks = [k for k in clean.exclusion.keys if tuple(k[:4]) == key]
            ys = [float(np.mean(x)) for k, x in zip(clean.exclusion.keys, clean.exclusion.xs) if tuple(k[:4]) == key]
            ref = interference.reference_speeds(canary)
            ds = [math.log(canary[tuple(k)][1]) - ref[(k[5], k[3], canary[tuple(k)][0])] for k in ks
                  if tuple(k) in canary]
            adj = (cv_between(list(np.asarray(ys) * np.exp(-row["canary_slope"] * np.asarray(ds))))
                   if len(ds) == len(ys) and np.isfinite(row.get("canary_slope", math.nan)) else math.nan)
            label = f"{key[2]} {key[3]}"
            print(f"{label:42s} {len(s.processes):3d} {100 * math.sqrt(s2w) / mean:6.1f}% {100 * math.sqrt(s2b) / mean:7.1f}% "
                  f"{flagged:4d} of {len(s.processes):<3d} {100 * math.sqrt(s2b_c) / mean:14.1f}% "
                  f"{100 * adj:14.1f}% {row.get('canary_rho', math.nan):5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
