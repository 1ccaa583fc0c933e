"""Does duet benchmarking narrow a ratio's interval on this machine?

Duet benchmarking (Bulej et al., ICPE 2020) runs the two sides of a comparison at the same time
on two CPUs, so whatever slows the machine slows both, and takes the ratio per synchronised pair.
This measures, on one E1 comparison (`bindings.select_fold` on `sqlite/sqlite3`, N = 10,000
against N = 10,300, or an A/A pair with `--aa`), the spread of the per-pair log ratio and the 99%
interval of the ratio for:
- duet: worker A pinned to the first CPU and worker B to the last, started together, each
  running the same number of iterations (process-level pairing; the workers do not wait for
  each other between iterations);
- sequential: A then B, both on the last CPU (the runner's protocol), paired by round.
The two modes alternate round by round, so the host's phases touch both alike. The workers are
the harness's own (`python -m harness.worker`), with their untimed set-up and checks.
Usage: python benchmarks/bench_duet.py [--pairs 30] [--iterations 20] [--aa]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _spec(workdir: Path, n: int, iterations: int, seed: int) -> Path:
    spec = {"benchmark": "bindings.select_fold", "params": {"n": n}, "engine": "sqlite/sqlite3", "engine_config": {},
            "iterations": iterations, "budget_s": None, "min_iterations": 2, "process": 0, "seed": seed,
            "workdir": str(workdir), "data": {}}
    path = workdir / "spec.json"
    path.write_text(json.dumps(spec))
    return path


def _start(spec: Path, cpu: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "harness.worker", str(spec), str(spec.parent / "result.json")],
                            cwd=ROOT, preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))


def _mean_s(spec: Path) -> float:
    result = json.loads((spec.parent / "result.json").read_text())
    if result.get("status") != "ok":
        sys.exit(f"worker failed: {result.get('reason')}")
    walls = result["wall_ns"][len(result["wall_ns"]) // 5:]  # the first fifth as warm-up
    return statistics.fmean(walls) / 1e9


def pair(tmp: Path, ns: tuple[int, int], iterations: int, seed: int, duet: bool) -> float:
    """log(mean B / mean A) of one pair of fresh processes."""
    cpus = sorted(os.sched_getaffinity(0))
    specs = []
    for side, n in enumerate(ns):
        d = tmp / f"{seed}-{side}-{'duet' if duet else 'seq'}"
        d.mkdir()
        specs.append(_spec(d, n, iterations, seed))
    if duet:
        procs = [_start(specs[0], cpus[0]), _start(specs[1], cpus[-1])]
        for p in procs:
            p.wait()
    else:
        for s in specs:
            _start(s, cpus[-1]).wait()
    return math.log(_mean_s(specs[1]) / _mean_s(specs[0]))


def interval(logs: list[float]) -> tuple[float, float, float, float]:
    """(ratio, low, high, sd of the log ratio): a t interval at 99% on the log ratios."""
    from scipy import stats

    m = statistics.fmean(logs)
    sd = statistics.stdev(logs)
    t = stats.t.ppf(0.995, len(logs) - 1)
    h = t * sd / math.sqrt(len(logs))
    return math.exp(m), math.exp(m - h), math.exp(m + h), sd


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=30)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--aa", action="store_true", help="an A/A pair (N = 10,000 both sides)")
    args = ap.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        sys.exit("duet needs two CPUs")
    ns = (10000, 10000 if args.aa else 10300)
    logs: dict[str, list[float]] = {"duet": [], "sequential": []}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.pairs):
            for mode in (("duet", "sequential") if k % 2 == 0 else ("sequential", "duet")):
                logs[mode].append(pair(Path(tmp), ns, args.iterations, k, mode == "duet"))
    print(f"bindings.select_fold sqlite/sqlite3, N {ns[1]} / N {ns[0]}, {args.pairs} pairs per mode, "
          f"{args.iterations} iterations per process, load {os.getloadavg()[0]:.2f}")
    for mode, values in logs.items():
        r, lo, hi, sd = interval(values)
        print(f"{mode:10s} ratio {r:.4f} [{lo:.4f}, {hi:.4f}]  +-{50 * (hi - lo) / r:.2f}%  sd of log ratio {sd:.4f}")
    (rd, lod, hid, _), (rs, los, his, _) = interval(logs["duet"]), interval(logs["sequential"])
    print(f"half-width duet / sequential: {(hid - lod) / (his - los):.3f} (below 1: duet narrows the ratio's interval)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
