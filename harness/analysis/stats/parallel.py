"""The thread pool the per-cell bootstraps run on.

THREADS (None: the CROSSINGS_STATS_THREADS environment variable, else the number of CPUs). Every
cell has its own generator (cell_seed), so results are identical whatever the number of threads;
numpy releases the GIL in the heavy steps.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

THREADS: int | None = None


def _thread_count(tasks: int) -> int:
    n = THREADS
    if n is None:
        n = env_threads()
    return max(1, min(int(n), tasks))


def env_threads() -> int:
    """CROSSINGS_STATS_THREADS (a whole number 1..1024), else the number of CPUs."""
    from harness.errors import env_int

    return env_int("CROSSINGS_STATS_THREADS", os.cpu_count() or 1, 1, 1024)


def _parallel_map(fn, items: list) -> list:
    """[fn(item) for item in items], on up to _thread_count threads, results in input order."""
    n = _thread_count(len(items))
    if n <= 1:
        return [fn(it) for it in items]
    with ThreadPoolExecutor(max_workers=n) as ex:
        return list(ex.map(fn, items))
