"""Speed of the statistics: the full table of a simulated paper-protocol run, ours vs scipy.

22 benchmarks x 4 engines x 5 processes x 50 iterations, 10,000 resamples. "Ours" is
harness.analysis.tables.build_table: every cell's process-level bootstrap, its CI, the ratio CIs against
the baseline and the geometric-mean CIs (plus warm-up and outlier analysis). The scipy version
computes the same set of intervals with scipy.stats.bootstrap, one call per cell, per ratio and
per geometric mean, with percentile intervals (the like-for-like comparison: scipy has no
process-level resampling, so it resamples the pooled iterations);
scipy's default BCa method is timed too, for reference. Run: python benchmarks/bench_stats.py
Ours bootstraps the cells on CROSSINGS_STATS_THREADS threads (default: all CPUs; results do not
depend on it). Timings are wall-clock: the load average is printed, since other jobs on the
machine slow both sides (the ratio is the comparable number).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.analysis import simdata, stats, tables  # noqa: E402

RESAMPLES = 10000


def scipy_table(df, baseline: str, method: str = "percentile") -> int:
    cells = {k: g["wall_ns"].to_numpy(dtype=float) / 1e9
             for k, g in df.groupby(["benchmark", "params", "engine", "runtime"], sort=True)}
    rng = np.random.default_rng(0)
    opts = dict(n_resamples=RESAMPLES, confidence_level=0.99, method=method, random_state=rng, vectorized=True)
    count = 0
    for x in cells.values():
        sps.bootstrap((x,), np.mean, **opts)
        count += 1

    def ratio(a, b, axis=-1):
        return np.mean(a, axis=axis) / np.mean(b, axis=axis)

    engines = sorted({k[2] for k in cells})
    for key, x in cells.items():
        if key[2] == baseline:
            continue
        base = cells[(key[0], key[1], baseline, key[3])]
        sps.bootstrap((x, base), ratio, **opts)
        count += 1
    for eng in engines:
        if eng == baseline:
            continue
        pairs = [(x, cells[(k[0], k[1], baseline, k[3])]) for k, x in cells.items() if k[2] == eng]
        data = tuple(v for p in pairs for v in p)

        def geo(*arrays, axis=-1):
            logs = [np.log(np.mean(arrays[i], axis=axis) / np.mean(arrays[i + 1], axis=axis))
                    for i in range(0, len(arrays), 2)]
            return np.exp(np.mean(logs, axis=0))

        sps.bootstrap(data, geo, **opts)
        count += 1
    return count


def _load() -> str:
    try:
        return "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "load average unknown"


def main() -> int:
    load_before = _load()
    df = simdata.simulate_run(benchmarks=22, engines=("a", "b", "c", "d"), processes=5, iterations=50, seed=1)
    t0, c0 = time.perf_counter(), time.process_time()
    t = tables.build_table(df, "a", resamples=RESAMPLES, seed=0)
    ours, ours_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    n = scipy_table(df, "a")
    theirs, theirs_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    scipy_table(df, "a", method="BCa")
    bca = time.perf_counter() - t0
    threads = stats.parallel._thread_count(10**6)
    print(f"machine: {os.cpu_count()} CPUs, bootstrap threads {threads}; "
          f"before: {load_before}; after: {_load()}")
    print(f"data: 22 benchmarks x 4 engines x 5 processes x 50 iterations ({len(df)} timings), "
          f"{RESAMPLES} resamples")
    print(f"ours  (harness.analysis.tables.build_table, process-bootstrap, {len(t)} rows): {ours:.2f} s "
          f"(CPU {ours_cpu:.2f} s)")
    print(f"scipy (scipy.stats.bootstrap per cell/ratio/geomean, {n} calls): {theirs:.2f} s (CPU {theirs_cpu:.2f} s)")
    print(f"ratio scipy/ours: {theirs / ours:.1f}x")
    print(f"scipy with its default method (BCa): {bca:.2f} s, ratio {bca / ours:.1f}x")
    ok = ours < 5 and theirs / ours >= 10
    print("target (ours < 5 s and >= 10x faster):", "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
