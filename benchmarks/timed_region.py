"""Does the harness's timed region hold only the operation? Compare it with a bare timeit.

Runs `bindings.select_fold` on `sqlite/sqlite3` through the harness (fresh processes, the
worker's timed loop), then times the same fold with `timeit` in one plain process on a table
built the same way, and prints both means and their ratio. A ratio near 1 means the harness
adds nothing measurable around the operation. Usage: python benchmarks/timed_region.py [N]
"""
from __future__ import annotations

import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import store  # noqa: E402
from harness.workloads.bindings import SELECT_IDS, STRS, TIMESTAMP  # noqa: E402


def bare_timeit(n: int, repeat: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(os.path.join(tmp, "bench.db"), isolation_level=None)
        conn.execute("CREATE TABLE testdata (id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP)")
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO testdata (id, str, t) VALUES (?, ?, ?)",
                         [(i, STRS[(i - 1) % 4], TIMESTAMP) for i in range(1, n + 1)])
        conn.execute("COMMIT")

        def fold() -> int:
            total = 0
            for row in conn.execute(SELECT_IDS):
                total += row[0]
            return total

        assert fold() == n * (n + 1) // 2
        return [t for t in timeit.repeat(fold, number=1, repeat=repeat)]


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([sys.executable, "-m", "harness", "run", "--profile", "paper", "--benchmarks",
                               "bindings.select_fold", "--engines", "sqlite/sqlite3", "--param", f"n={n}",
                               "--out", out, "--no-progress"], cwd=ROOT, capture_output=True, text=True, check=True)
        run_dir = proc.stdout.strip().splitlines()[-1]
        df = store.load_runs([run_dir])
    harness_s = df["wall_ns"].to_numpy() / 1e9
    bare_s = bare_timeit(n, len(harness_s))
    h_mean, b_mean = float(harness_s.mean()), statistics.fmean(bare_s)
    h_med, b_med = float(statistics.median(harness_s)), statistics.median(bare_s)
    print(f"bindings.select_fold, sqlite/sqlite3, N={n}")
    print(f"harness (5 fresh processes x 50 iterations): mean {h_mean * 1e6:.1f} us, median {h_med * 1e6:.1f} us")
    print(f"bare timeit in one process ({len(bare_s)} repeats): mean {b_mean * 1e6:.1f} us, median {b_med * 1e6:.1f} us")
    print(f"ratio harness/timeit: mean {h_mean / b_mean:.3f}, median {h_med / b_med:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
