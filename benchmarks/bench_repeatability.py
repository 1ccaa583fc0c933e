"""Does the same measurement agree with itself minutes later?

Five runs of one E1 cell (`bindings.select_fold` on `sqlite/sqlite3`, N = 10,000), each with an
A/A twin (`run --aa`), each given `--seconds` of machine time per cell by the adaptive protocol,
`--gap` seconds apart (the host's speed phases last seconds to minutes). Goals: every pair of
runs' 99% intervals overlap; each run's A/A ratio interval includes 1. The canary-adjusted means
are printed beside the raw ones. Measure alone: nothing else may run on the machine meanwhile.
Usage: python benchmarks/bench_repeatability.py [--runs 5] [--seconds 30] [--gap 60]
"""
from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.analysis.aa import aa_rows  # noqa: E402
from harness.analysis.runset import RunSet  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--gap", type=float, default=60.0)
    ap.add_argument("--n", type=int, default=10000)
    args = ap.parse_args()
    got = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.runs):
            if k:
                time.sleep(args.gap)
            load = os.getloadavg()[0]
            p = subprocess.run([sys.executable, "-m", "harness", "run", "--profile", "quick", "--benchmarks",
                                "bindings.select_fold", "--engines", "sqlite/sqlite3", "--param", f"n={args.n}",
                                "--aa", "sqlite/sqlite3", "--target-ci", "0.1", "--max-time", f"{args.seconds:g}",
                                "--max-run-time", f"{3 * args.seconds:g}", "--seed", str(k), "--out", tmp,
                                "--no-progress"], cwd=ROOT, capture_output=True, text=True)
            run_dir = Path(p.stdout.strip().splitlines()[-1])
            runs = RunSet([run_dir])
            s = runs.summary
            r = s[s["params"] == f"n={args.n}"].iloc[0]
            a = aa_rows(runs).iloc[0]
            got.append(r)
            print(f"run {k + 1} (load {load:.2f}): {1e3 * r.mean_s:.4f} ms [{1e3 * r.ci_low_s:.4f}, {1e3 * r.ci_high_s:.4f}]"
                  f"  +-{50 * (r.ci_high_s - r.ci_low_s) / r.mean_s:.2f}%, {int(r.processes)} processes "
                  f"({int(r.disturbed)} disturbed); canary-adjusted {1e3 * r.adj_mean_s:.4f} ms "
                  f"[{1e3 * r.adj_ci_low_s:.4f}, {1e3 * r.adj_ci_high_s:.4f}]; A/A {a.ratio:.4f} "
                  f"[{a.ratio_ci_low:.4f}, {a.ratio_ci_high:.4f}]{' DIFFERS' if a.differs else ''}", flush=True)
    pairs = list(itertools.combinations(range(len(got)), 2))
    raw = sum(got[i].ci_low_s <= got[j].ci_high_s and got[j].ci_low_s <= got[i].ci_high_s for i, j in pairs)
    adj = sum(got[i].adj_ci_low_s <= got[j].adj_ci_high_s and got[j].adj_ci_low_s <= got[i].adj_ci_high_s
              for i, j in pairs)
    print(f"pairs of runs whose 99% intervals overlap: raw {raw} of {len(pairs)}, canary-adjusted {adj} of "
          f"{len(pairs)} (goal: all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
