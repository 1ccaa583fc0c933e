"""How long the explorer takes to redraw after a change of view, on the committed reference run.

The first load (read the runs, bootstrap every cell) happens once per (runs, method, steady
state) and is reported separately; the goal is that every later change redraws in under a
second: another baseline, another engine selection, another benchmark for the run sequences,
another study, and back to a view seen before. "Redraw" is `explorer.views(...)`: the ratio table
as HTML and both plots as inline SVG, what the widgets display. Wall-clock times; the load average is
printed, since other jobs on a shared machine slow everything.
Run: python benchmarks/bench_explorer.py [RUN_DIR ...]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import store  # noqa: E402
from harness.studies import explorer as exploring  # noqa: E402

GOAL_S = 1.0


def timed(label: str, fn, results: list) -> None:
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    results.append((label, dt))
    print(f"{label:<58} {dt:7.3f} s", flush=True)


def main(argv: list[str]) -> int:
    dirs = [Path(a) for a in argv] or store.default_runs()
    print(f"runs: {', '.join(map(str, dirs))}; load average {os.getloadavg()[0]:.2f}")
    ex = exploring.Explorer()
    results: list = []
    timed("first load: read runs, bootstrap every cell (once)", lambda: ex.runset(dirs).summary, [])
    runs = ex.runset(dirs)

    def view(study: str, baseline: str, engines=None, runtimes=None, benchmark=None):
        return lambda: exploring.views(ex, runs, study, baseline, engines, runtimes, benchmark)

    cells = exploring.cells_of(runs, "bindings")
    engines = sorted(cells["engine"].unique())
    timed("first view: bindings, baseline sqlite3@cpython", view("bindings", "sqlite/sqlite3@cpython",
                                                                 benchmark="bindings.select_fold"), [])
    timed("new baseline: duckdb@cpython", view("bindings", "duckdb@cpython", benchmark="bindings.select_fold"),
          results)
    timed("new engine selection (drop one engine)", view("bindings", "duckdb@cpython", engines[:-1],
                                                         benchmark="bindings.select_fold"), results)
    timed("new runtime selection (cpython only)", view("bindings", "duckdb@cpython", engines[:-1], ["cpython"],
                                                       "bindings.select_fold"), results)
    timed("new benchmark for run sequences", view("bindings", "duckdb@cpython", engines[:-1], ["cpython"],
                                                  "bindings.point_query"), results)
    timed("new study: tpch", view("tpch", "sqlite/sqlite3@cpython", benchmark="tpch.q01"), results)
    timed("new study: micro", view("micro", "sqlite/sqlite3@cpython", benchmark="micro.select"), results)
    timed("back to a view seen before", view("bindings", "sqlite/sqlite3@cpython", benchmark="bindings.select_fold"),
          results)
    worst = max(dt for _, dt in results)
    print(f"slowest redraw after a change: {worst:.3f} s (goal < {GOAL_S:.0f} s): {'met' if worst < GOAL_S else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
