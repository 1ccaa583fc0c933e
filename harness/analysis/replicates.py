"""The bootstrap replicates of each cell, cached under data/cache/replicates/ (`cache.py`).

Why: drawing 10,000 replicates of every cell is the statistics' main cost, and each notebook,
`summary` and `report` asks for the same cells of the same runs. A cell's replicates are a
pure function of its samples (each process's values, bytes and order), its key (which seeds
its generator, `cell_seed`), the method, the number of resamples and the seed, so the entry is
named by a hash of exactly those: the confidence level is not an input of the replicates (it
only picks their quantile), and steady state enters through the samples it keeps. Written by
`RunSet` after drawing, read by `RunSet` before drawing; a bad entry is redrawn.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness.analysis import cache
from harness.analysis.stats import CellSample

KIND = "replicates"


def cache_dir() -> Path | None:
    return cache.cache_dir(KIND)


def cell_key(key: tuple, sample: CellSample, method: str, resamples: int, seed: int) -> str:
    """The hash naming a cell's replicates."""
    h = cache.hasher(KIND, tuple(map(str, key)), method, int(resamples), int(seed), len(sample.processes))
    for p in sample.processes:
        a = np.ascontiguousarray(p, dtype=float)
        h.update(len(a).to_bytes(8, "little"))
        h.update(a.tobytes())
    return h.hexdigest()


def lookup(key: tuple, sample: CellSample, method: str, resamples: int, seed: int) -> np.ndarray | None:
    """The cell's replicates from the cache, or None (absent or not a valid entry)."""
    reps = cache.load_array(KIND, cell_key(key, sample, method, resamples, seed))
    return reps if reps is not None and reps.shape == (resamples,) else None


def keep(key: tuple, sample: CellSample, method: str, resamples: int, seed: int, reps: np.ndarray) -> None:
    """Store a cell's freshly drawn replicates."""
    cache.store_array(KIND, cell_key(key, sample, method, resamples, seed), reps)
