"""Bootstrap replicates of a cell's mean: the resampling schemes, drawn as whole numpy arrays.

The methods and their intervals are described in `harness.analysis.stats` (the package docstring).
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

CELL_KEYS = ["benchmark", "params", "engine", "runtime"]
from harness.analysis.methods import METHODS  # noqa: E402

# Elements drawn per chunk when resampling: small enough to stay in cache (measured ~2.5x
# faster than one big draw) and for the temporary arrays to stay below malloc's mmap threshold
# (no page faults per chunk), large enough that the Python loop over chunks costs little.
_CHUNK_ELEMENTS = 65_536



# ----------------------------------------------------------------------------------------------
# Cell data
# ----------------------------------------------------------------------------------------------


@dataclass
class CellSample:
    """The valid timings of one cell in seconds, one array per process (ordered by iteration)."""

    processes: list[np.ndarray]

    @property
    def n(self) -> int:
        return int(sum(len(p) for p in self.processes))

    @property
    def flat(self) -> np.ndarray:
        return np.concatenate(self.processes) if self.processes else np.empty(0)

    @property
    def process_means(self) -> np.ndarray:
        return np.array([p.mean() for p in self.processes])

    def mean(self) -> float:
        """The pooled mean of all iterations (what pooled-t estimates)."""
        return float(self.flat.mean()) if self.n else math.nan

    def process_mean(self) -> float:
        """The mean of the process means: the estimate of a fresh process's (steady-state) mean."""
        return float(self.process_means.mean()) if self.n else math.nan


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")


def _as_sample(x: CellSample | Sequence[np.ndarray] | np.ndarray) -> CellSample:
    if isinstance(x, CellSample):
        return x
    if isinstance(x, np.ndarray) and x.ndim == 2:
        return CellSample([np.asarray(r, dtype=float) for r in x])
    if isinstance(x, np.ndarray) and x.ndim == 1:
        return CellSample([np.asarray(x, dtype=float)])
    return CellSample([np.asarray(p, dtype=float) for p in x if len(p)])


def cell_seed(seed: int, key: Iterable[object]) -> np.random.Generator:
    """A generator for one cell, derived from the user's seed and the cell's key.

    Why: a cell's interval then does not depend on which other cells are in the same table.
    """
    tag = zlib.crc32("\x1f".join(map(str, key)).encode())
    return np.random.default_rng(np.random.SeedSequence([int(seed), tag]))


# ----------------------------------------------------------------------------------------------
# Bootstrap replicates
# ----------------------------------------------------------------------------------------------


def _fill_uniform(rng: np.random.Generator, h: int, base: np.ndarray, out: np.ndarray) -> None:
    """out[i, ...] = base[...] + (uniform integer in [0, h)), exactly uniform; out is intp.

    16 random bits per value (four per 64-bit draw) when h <= 2**16, else 32 (two per draw).
    A raw value r below q * h (q = 2**bits // h) gives r // q, exactly uniform on [0, h); the
    rare others (probability (2**bits mod h) / 2**bits) are redrawn with rng.integers. The
    division by a constant and the comparison run as SIMD loops on the narrow raw values, so this
    is much cheaper than rng.integers or a multiply-shift with its per-value rejection test.
    `base` has shape out.shape[1:] and is broadcast along the leading axis (long inner loops).
    The consumption of `rng` depends only on out.size and the rejections: reproducible.
    """
    m = out.size
    if m == 0:
        return
    if h == 1:
        out[...] = base
        return
    if h > 1 << 32:
        np.add(rng.integers(0, h, size=out.shape), base, out=out)
        return
    if h <= 1 << 16:
        bits, dt = 16, np.uint16
        raw = rng.bit_generator.random_raw((m + 3) // 4).view(np.uint16)[:m]
    else:
        bits, dt = 32, np.uint32
        raw = rng.bit_generator.random_raw((m + 1) // 2).view(np.uint32)[:m]
    q = (1 << bits) // h
    lim = q * h
    bad = np.flatnonzero(raw >= dt(lim)) if lim < 1 << bits else None
    np.floor_divide(raw, dt(q), out=raw)
    flat = out.reshape(-1)  # out is contiguous: a view
    if int(np.max(base)) + h <= 1 << bits:  # add the offsets in the narrow type (cheaper)
        raw2 = raw.reshape(out.shape)
        np.add(raw2, np.asarray(base).astype(dt), out=raw2)
        flat[...] = raw
    else:
        flat[...] = raw
        out += base
    if bad is not None and bad.size:
        flat[bad] = np.ravel(base)[bad % np.size(base)] + rng.integers(0, h, size=bad.size)


def uniform_indices(rng: np.random.Generator, high: int | np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform integers in [0, high) (high may broadcast against shape), as int64 (intp).

    Why not rng.integers: it spent most of a bootstrap's time. For a scalar high this is
    _fill_uniform (division of narrow random values with rejection: exactly uniform). For an array high
    (unbalanced cells) 32 bits per index without rejection: non-uniformity at most high / 2**32,
    far below the Monte Carlo error of any bootstrap.
    """
    if np.ndim(high) == 0 and 0 < int(high):
        out = np.empty(shape, dtype=np.intp)
        _fill_uniform(rng, int(high), np.zeros((), dtype=np.intp), out)
        return out
    m = int(np.prod(shape))
    raw = rng.bit_generator.random_raw((m + 1) // 2).view(np.uint32)[:m].reshape(shape)
    out = np.multiply(raw, np.asarray(high, dtype=np.uint64), dtype=np.uint64)
    out >>= np.uint64(32)
    return out.view(np.int64)


def bootstrap_means(sample: CellSample | Sequence[np.ndarray], method: str = "process-bootstrap",
                    resamples: int = 10000, rng: np.random.Generator | int | None = 0) -> np.ndarray:
    """`resamples` bootstrap replicates of the cell's estimate, drawn as arrays (no loop per resample).

    process-bootstrap and process-t: the processes' means resampled with replacement (each
    replicate is the mean of P drawn process means: the estimate is the mean over processes);
    pooled-t: the iterations of all processes pooled. A single process falls back to its iterations.
    """
    _check_method(method)
    s = _as_sample(sample)
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if s.n == 0:
        return np.full(resamples, np.nan)
    # the values resampled: process means (one value per process), or all iterations pooled
    x = s.process_means if method != "pooled-t" and len(s.processes) > 1 else s.flat
    n = len(x)
    out = np.empty(resamples)
    step = max(1, _CHUNK_ELEMENTS // n)
    for a in range(0, resamples, step):
        b = min(resamples, a + step)
        out[a:b] = x[uniform_indices(rng, n, (b - a, n))].sum(axis=1) / n
    return out
