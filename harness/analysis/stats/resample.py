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
        return float(self.flat.mean()) if self.n else math.nan


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


# Largest table of pair sums (entries) the balanced hierarchical bootstrap builds: 1 MiB of
# float64, so it stays in cache; bigger cells draw single iterations.
_PAIR_TABLE_MAX = 1 << 17


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


def _balanced_hierarchical(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Two-level bootstrap means of a cell whose P processes all have I iterations (x is P x I).

    Each replicate picks P processes with replacement and, in each, I iterations with
    replacement. Drawing the iterations two at a time is the same thing: a uniform integer u in
    [0, I*I) is a uniform pair (u // I, u % I) of independent iteration indices, so one lookup in
    the table of pair sums x[j, a] + x[j, b] replaces two lookups and one addition (odd I: one
    single draw more per process). Draws are laid out (draw, replicate, process) so that every
    numpy loop runs over a whole chunk; buffers are allocated once and chunks stay in cache.
    """
    P, I = x.shape
    pairs = I >= 2 and I * I <= 1 << 16 and P * I * I <= _PAIR_TABLE_MAX
    singles = np.ascontiguousarray(x, dtype=float).reshape(-1)
    if pairs:
        h, k = I * I, I // 2
        table = (x[:, :, None] + x[:, None, :]).reshape(-1)
    else:
        h, k = I, I
        table = singles
    odd = pairs and I % 2 == 1
    out = np.empty(resamples)
    step = max(1, min(resamples, _CHUNK_ELEMENTS // (P * (k + odd))))
    idx = np.empty((k + odd) * step * P, dtype=np.intp)
    vals = np.empty((k + odd) * step * P)
    picks = uniform_indices(rng, P, (resamples * P,))  # the processes of every replicate, at once
    for a in range(0, resamples, step):
        b = min(resamples, a + step)
        BP = (b - a) * P
        pick = picks[a * P: b * P]
        ix = idx[: (k + odd) * BP].reshape(k + odd, BP)  # contiguous views
        v = vals[: (k + odd) * BP].reshape(k + odd, BP)
        _fill_uniform(rng, h, pick * h, ix[:k])
        np.take(table, ix[:k], out=v[:k], mode="clip")
        if odd:
            _fill_uniform(rng, I, pick * I, ix[k:])
            np.take(singles, ix[k:], out=v[k:], mode="clip")
        s = v.sum(axis=0).reshape(b - a, P).sum(axis=1)
        np.divide(s, P * I, out=out[a:b])
    return out


def bootstrap_means(sample: CellSample | Sequence[np.ndarray], method: str = "hierarchical",
                    resamples: int = 10000, rng: np.random.Generator | int | None = 0) -> np.ndarray:
    """`resamples` bootstrap replicates of the cell mean, drawn as arrays (no loop per resample).

    hierarchical: processes with replacement, then iterations within each chosen process;
    pooled-t: iterations of all processes pooled; process-t: process means.
    """
    _check_method(method)
    s = _as_sample(sample)
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if s.n == 0:
        return np.full(resamples, np.nan)
    procs = s.processes
    if method == "process-t" and len(procs) > 1:
        m = s.process_means
        idx = uniform_indices(rng, len(m), (resamples, len(m)))
        return m[idx].mean(axis=1)
    if method == "pooled-t" or len(procs) == 1:
        x = s.flat
        n = len(x)
        out = np.empty(resamples)
        step = max(1, _CHUNK_ELEMENTS // n)
        for a in range(0, resamples, step):
            b = min(resamples, a + step)
            out[a:b] = x[uniform_indices(rng, n, (b - a, n))].sum(axis=1) / n
        return out
    # hierarchical, two levels
    P = len(procs)
    counts = np.array([len(p) for p in procs])
    imax = int(counts.max())
    if bool((counts == imax).all()):
        return _balanced_hierarchical(np.stack(procs).astype(float, copy=False), resamples, rng)
    padded = np.zeros((P, imax))
    for j, p in enumerate(procs):
        padded[j, : len(p)] = p
    flat = padded.ravel()
    out = np.empty(resamples)
    step = max(1, _CHUNK_ELEMENTS // (P * imax))
    for a in range(0, resamples, step):
        b = min(resamples, a + step)
        pick = uniform_indices(rng, P, (b - a, P))
        nj = counts[pick]  # (B, P)
        it = uniform_indices(rng, nj[:, :, None], (b - a, P, imax))
        it += (pick * imax)[:, :, None]
        vals = flat[it]
        vals[np.arange(imax)[None, None, :] >= nj[:, :, None]] = 0.0
        out[a:b] = vals.reshape(b - a, -1).sum(axis=1) / nj.sum(axis=1)
    return out
