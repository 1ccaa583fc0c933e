"""What one fresh Python worker process costs, started with `site` and without it.

A cell's interval narrows with the number of fresh processes, so every millisecond a process
spends starting up is paid for in precision. Each Python runtime's worker (`harness.worker`, one
`bindings.select_fold` process on `sqlite/sqlite3`, N = 10,000, 5 iterations) is started
`--repeat` times each way, the two ways alternating: as before (`python -m harness.worker`, which
runs `site` and every .pth file of the environment) and as the runner starts it now (`python -S`
and a bootstrap that adds the directories site would have added; `harness.run.runtimes`). Prints
the median wall time of a whole process per way and their difference. Run it alone.
Usage: python benchmarks/bench_process_cost.py [--repeat 30]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.run.runtimes import RUNTIMES, worker_env  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    env = worker_env()
    with tempfile.TemporaryDirectory() as tmp:
        spec, result = Path(tmp) / "spec.json", Path(tmp) / "result.json"
        spec.write_text(json.dumps({"benchmark": "bindings.select_fold", "params": {"n": 10000},
                                    "engine": "sqlite/sqlite3", "engine_config": {}, "iterations": 5,
                                    "budget_s": None, "min_iterations": 2, "process": 0, "seed": 0,
                                    "workdir": tmp, "data": {}}))
        for name in ("cpython", "pypy"):
            rt = RUNTIMES[name]
            exe = rt.executable()
            if exe is None:
                print(f"{name}: skipped ({rt.unavailable_reason()})")
                continue
            ways = {"with site (-m)": [exe, "-m", "harness.worker", str(spec), str(result)],
                    "without site (-S + bootstrap)": rt.python_argv(str(spec), str(result))}
            times: dict[str, list[float]] = {k: [] for k in ways}
            for i in range(args.repeat):
                for way in (list(ways) if i % 2 == 0 else list(reversed(ways))):
                    t0 = time.perf_counter()
                    p = subprocess.run(ways[way], cwd=ROOT, env=env, capture_output=True, text=True)
                    times[way].append(time.perf_counter() - t0)
                    status = json.loads(result.read_text()).get("status") if p.returncode == 0 else p.stderr[-500:]
                    if status != "ok":
                        sys.exit(f"{name} {way}: worker failed: {status}")
            med = {k: statistics.median(v) for k, v in times.items()}
            (a, b) = med.values()
            print(f"{name}: " + "; ".join(f"{k} {1e3 * v:.1f} ms" for k, v in med.items())
                  + f"; difference {1e3 * (a - b):.1f} ms ({100 * (b / a - 1):+.1f}%), median of {args.repeat} each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
