"""Statistics on raw timings: cell summaries, ratios, geometric means, benchstat-style comparison.

Everything here is a pure function of pandas DataFrames / numpy arrays of raw timings (the long
format of DESIGN §3: one row per iteration). Bootstrap resamples are drawn as whole numpy arrays
(resamples x processes x iterations), never in a Python loop over resamples; the only Python
loops are over cells (tens to hundreds), processes and cache-sized chunks of resamples. Cells
are bootstrapped on a thread pool (numpy releases the GIL in the heavy steps); each cell has its
own generator derived from the seed and its key (cell_seed), so results are bit-identical
whatever the number of threads (THREADS / CROSSINGS_STATS_THREADS).

Confidence intervals of the mean (``method``):

``hierarchical`` (default)
    Kalibera & Jones (2013): each bootstrap replicate resamples the processes of a cell with
    replacement, then the iterations within each resampled process with replacement, and takes
    the mean of all resampled iterations. Between-process variation (address-space layout, JIT
    decisions, CPU placement: everything that is fixed for one process) is what a pooled
    interval misses, and is usually the largest term.

    Why the interval is *expanded*: with the 5 processes of the SQPyte protocol a plain
    percentile interval of that bootstrap distribution undercovers badly. Its spread is that of
    the plug-in variance, which is too small by the factor (P-1)/P (sd by sqrt((P-1)/P)), and it
    uses normal-like tail quantiles where the uncertainty of a variance estimated from P=5 values
    calls for Student's t with P-1 = 4 degrees of freedom (t_0.995,4 = 4.60 against z = 2.58).
    We therefore keep the bootstrap's shape (its quantiles, so skew is respected) but stretch
    its deviations from the estimate by

        c = sqrt(P / (P - 1)) * t_{1-a/2, P-1} / z_{1-a/2}

    (an "expanded percentile" interval in the spirit of Hesterberg 2015, calibrated with the
    t quantile so that it reduces to the exact process-level t interval when process means are
    normal; c -> 1 as P grows). Resampling iterations inside processes counts the within-process
    variance a second time, so when there is no between-process variance the interval is
    conservative, never liberal. On simulated data with strong between-process variance (5 x 50,
    400 data sets) it covers the true mean in ~99% of data sets, where pooled-t covers in
    well under half (see tests/test_stats_coverage.py for the measured numbers).
    A cell with a single process cannot show between-process variance: it falls back to
    resampling its iterations (and says so by having processes == 1).

``pooled-t``
    The t interval over all iterations pooled (n-1 degrees of freedom): what the SQPyte paper
    reports; kept for reproducing published tables, not recommended.

``process-t``
    The t interval over per-process means (P-1 degrees of freedom), centred on their mean.

Ratios and geometric means always use a bootstrap (each cell resampled independently, with
the scheme matching ``method``: two-level for hierarchical, pooled iterations for pooled-t,
process means for process-t), taken on the log scale and expanded the same way, with the
expansion factor and degrees of freedom combined over the contributing cells by
Welch-Satterthwaite. A geometric-mean replicate resamples every benchmark on both sides.
"""
from __future__ import annotations

import math
import os
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import special
from scipy import stats as sps

CELL_KEYS = ["benchmark", "params", "engine", "runtime"]
METHODS = ("hierarchical", "pooled-t", "process-t")
WARMUP_CLASSES = ("flat", "warm-up", "slowdown", "no steady state")

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


def _expansion_terms(sample: CellSample, method: str) -> tuple[float, float]:
    """(variance inflation k, degrees of freedom) of one cell for the expanded interval."""
    P = len(sample.processes)
    if method in ("hierarchical", "process-t") and P > 1:
        return P / (P - 1), float(P - 1)
    n = sample.n
    if n > 1:
        return n / (n - 1), float(n - 1)
    return math.nan, math.nan


def _expansion_factor(confidence: float, weights: np.ndarray, ks: np.ndarray, dfs: np.ndarray) -> float:
    """Stretch factor for percentile deviations, combined over cells by Welch-Satterthwaite.

    weights are each cell's share of the bootstrap variance of the statistic.
    """
    if np.any(~np.isfinite(ks)) or np.any(~np.isfinite(dfs)):
        return math.nan
    w = np.asarray(weights, dtype=float)
    tot = w.sum()
    if not np.isfinite(tot) or tot <= 0:
        # no variance at all: the interval collapses to the point; any finite factor will do
        return 1.0
    kw = ks * w
    inflation = kw.sum() / tot
    denom = np.sum(np.where(kw > 0, kw**2 / dfs, 0.0))
    df = kw.sum() ** 2 / denom if denom > 0 else np.inf
    z = _z(confidence)
    t = _t(confidence, float(df)) if np.isfinite(df) else z
    return float(math.sqrt(inflation) * t / z)


@lru_cache(maxsize=4096)
def _t(confidence: float, df: float) -> float:
    return float(sps.t.ppf(0.5 + confidence / 2, df))


@lru_cache(maxsize=64)
def _z(confidence: float) -> float:
    return float(sps.norm.ppf(0.5 + confidence / 2))


def _expanded_interval(estimate: float, reps: np.ndarray, confidence: float, c: float) -> tuple[float, float]:
    if not np.isfinite(c) or not np.isfinite(estimate):
        return math.nan, math.nan
    reps = reps[np.isfinite(reps)]
    if len(reps) == 0:
        return math.nan, math.nan
    a = (1 - confidence) / 2
    q_lo, q_hi = np.quantile(reps, [a, 1 - a])
    return float(estimate - c * (estimate - q_lo)), float(estimate + c * (q_hi - estimate))


# ----------------------------------------------------------------------------------------------
# Mean of one cell
# ----------------------------------------------------------------------------------------------


def t_interval(x: np.ndarray, confidence: float = 0.99) -> tuple[float, float, float]:
    """(mean, low, high) of the Student t interval of the mean of `x`."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean()) if len(x) else math.nan
    if len(x) < 2:
        return m, math.nan, math.nan
    hw = _t(confidence, float(len(x) - 1)) * x.std(ddof=1) / math.sqrt(len(x))
    return m, m - hw, m + hw


def mean_ci(sample: CellSample | Sequence[np.ndarray], method: str = "hierarchical", confidence: float = 0.99,
            resamples: int = 10000, seed: int | np.random.Generator | None = 0,
            reps: np.ndarray | None = None) -> tuple[float, float, float]:
    """(mean, low, high): the mean of a cell and its CI by `method` (see the module docstring)."""
    _check_method(method)
    s = _as_sample(sample)
    if s.n == 0:
        return math.nan, math.nan, math.nan
    if method == "pooled-t":
        return t_interval(s.flat, confidence)
    if method == "process-t":
        if len(s.processes) < 2:
            return s.mean(), math.nan, math.nan
        return t_interval(s.process_means, confidence)
    est = s.mean()
    if s.n < 2:
        return est, math.nan, math.nan
    if reps is None:
        reps = bootstrap_means(s, method, resamples, seed)
    k, df = _expansion_terms(s, method)
    c = _expansion_factor(confidence, np.array([1.0]), np.array([k]), np.array([df]))
    lo, hi = _expanded_interval(est, reps, confidence, c)
    return est, lo, hi


# ----------------------------------------------------------------------------------------------
# Ratios and geometric means
# ----------------------------------------------------------------------------------------------


@dataclass
class CellBoot:
    """A cell's point estimate, bootstrap replicates of its mean and expansion terms.

    log_reps (log of the replicates) and log_var (variance of their finite values, nan if none)
    are computed once per cell, when first needed, and shared by all its ratios and geomeans.
    """

    mean: float
    reps: np.ndarray
    k: float
    df: float
    log_reps: np.ndarray | None = field(default=None, repr=False)
    log_var: float | None = field(default=None, repr=False)

    def logs(self) -> tuple[np.ndarray, float]:
        if self.log_reps is None or self.log_var is None:
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = np.log(self.reps)
            fin = np.isfinite(lr)
            if fin.all():
                var = float(np.var(lr))
            else:
                var = float(np.var(lr[fin])) if fin.any() else math.nan
            self.log_reps, self.log_var = lr, var
        return self.log_reps, self.log_var


def cell_boot(sample: CellSample | Sequence[np.ndarray], method: str = "hierarchical", resamples: int = 10000,
              rng: np.random.Generator | int | None = 0) -> CellBoot:
    """Bootstrap one cell once, so its replicates can serve its CI, its ratios and geomeans."""
    s = _as_sample(sample)
    reps = bootstrap_means(s, method, resamples, rng)
    k, df = _expansion_terms(s, method)
    return CellBoot(s.mean(), reps, k, df)


# Threads for the per-cell bootstraps (None: the CROSSINGS_STATS_THREADS environment variable,
# else the number of CPUs). Every cell has its own generator (cell_seed), so results are
# identical whatever the number of threads; numpy releases the GIL in the heavy steps.
THREADS: int | None = None


def _thread_count(tasks: int) -> int:
    n = THREADS
    if n is None:
        env = os.environ.get("CROSSINGS_STATS_THREADS", "")
        n = int(env) if env.strip() else (os.cpu_count() or 1)
    return max(1, min(int(n), tasks))


def _parallel_map(fn, items: list) -> list:
    """[fn(item) for item in items], on up to _thread_count threads, results in input order."""
    n = _thread_count(len(items))
    if n <= 1:
        return [fn(it) for it in items]
    with ThreadPoolExecutor(max_workers=n) as ex:
        return list(ex.map(fn, items))


def boot_cells(samples: dict[tuple, CellSample], method: str, resamples: int, seed: int,
               logs: bool = True) -> dict[tuple, CellBoot]:
    """cell_boot of every non-empty cell with its own generator cell_seed(seed, key), in parallel.

    With logs, also takes the logs of the replicates (for ratios and geomeans) in the workers.
    """
    keys = [k for k, s in samples.items() if s.n]

    def work(key: tuple) -> CellBoot:
        cb = cell_boot(samples[key], method, resamples, cell_seed(seed, key))
        if logs:
            cb.logs()
        return cb

    return dict(zip(keys, _parallel_map(work, keys)))


def _log_ratio_parts(num: CellBoot, den: CellBoot) -> tuple[float, np.ndarray]:
    est = math.log(num.mean / den.mean) if num.mean > 0 and den.mean > 0 else math.nan
    with np.errstate(invalid="ignore"):
        reps = num.logs()[0] - den.logs()[0]
    return est, reps


def combine_log_ratios(pairs: Sequence[tuple[CellBoot, CellBoot]], confidence: float = 0.99
                       ) -> tuple[float, float, float]:
    """(estimate, low, high) of exp(mean of log(num/den)) over `pairs` (one pair: a plain ratio).

    Each replicate combines the cells' independent replicates, so every benchmark on both sides
    is resampled in every replicate. The interval is the log-scale expanded percentile interval.
    """
    if not pairs:
        return math.nan, math.nan, math.nan
    K = len(pairs)
    est = 0.0
    reps = np.zeros_like(pairs[0][0].reps)
    weights, ks, dfs = [], [], []
    for num, den in pairs:
        e, r = _log_ratio_parts(num, den)
        est += e / K
        reps += r / K if K > 1 else r
        for cell in (num, den):
            weights.append(cell.logs()[1] / K**2)
            ks.append(cell.k)
            dfs.append(cell.df)
    if not np.isfinite(est):
        return math.nan, math.nan, math.nan
    w = np.array(weights)
    if np.any(~np.isfinite(w)):
        return math.exp(est), math.nan, math.nan
    c = _expansion_factor(confidence, w, np.array(ks), np.array(dfs))
    lo, hi = _expanded_interval(est, reps, confidence, c)
    return math.exp(est), math.exp(lo) if np.isfinite(lo) else lo, math.exp(hi) if np.isfinite(hi) else hi


def ratio_ci(num: CellSample | Sequence[np.ndarray], den: CellSample | Sequence[np.ndarray],
             method: str = "hierarchical", confidence: float = 0.99, resamples: int = 10000,
             seed: int = 0) -> tuple[float, float, float]:
    """(ratio, low, high) of mean(num) / mean(den); each side resampled independently."""
    rng = np.random.default_rng(seed)
    a = cell_boot(num, method, resamples, rng)
    b = cell_boot(den, method, resamples, rng)
    return combine_log_ratios([(a, b)], confidence)


def geomean_ratio_ci(pairs: Sequence[tuple[CellSample | Sequence[np.ndarray], CellSample | Sequence[np.ndarray]]],
                     method: str = "hierarchical", confidence: float = 0.99, resamples: int = 10000,
                     seed: int = 0) -> tuple[float, float, float]:
    """(geometric mean of ratios, low, high) over benchmarks given as (num, den) cell pairs."""
    rng = np.random.default_rng(seed)
    boots = [(cell_boot(n, method, resamples, rng), cell_boot(d, method, resamples, rng)) for n, d in pairs]
    return combine_log_ratios(boots, confidence)


# ----------------------------------------------------------------------------------------------
# Outliers and warm-up
# ----------------------------------------------------------------------------------------------


def _tukey_mask(x: np.ndarray, k: float = 1.5) -> np.ndarray:
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    return (x < q1 - k * iqr) | (x > q3 + k * iqr)


def flag_outliers(df: pd.DataFrame, k: float = 1.5) -> pd.Series:
    """True for iterations outside the Tukey fences [Q1 - k IQR, Q3 + k IQR] of their process.

    Per process, because a whole process may sit apart from the others (that is between-process
    variance, not an outlier). Flags only: nothing is ever removed on the strength of this.
    Invalid iterations (check_ok False) are never flagged (they are not in the statistics).
    """
    out = np.zeros(len(df), dtype=bool)
    if df.empty:
        return pd.Series(out, index=df.index)
    valid = df["check_ok"].astype(bool).to_numpy()
    x = df["wall_ns"].to_numpy(dtype=float)
    by_len: dict[int, list[np.ndarray]] = {}
    for idx in df.groupby(CELL_KEYS + ["process"], sort=False, dropna=False).indices.values():
        idx = idx[valid[idx]]
        if len(idx):
            by_len.setdefault(len(idx), []).append(idx)
    for idxs in by_len.values():  # processes of equal length at once (same values as _tukey_mask)
        I = np.stack(idxs)
        X = x[I]
        q1, q3 = np.percentile(X, [25, 75], axis=1, keepdims=True)
        iqr = q3 - q1
        out[I] = (X < q1 - k * iqr) | (X > q3 + k * iqr)
    return pd.Series(out, index=df.index)


def changepoints_batch(Z: np.ndarray, pen: float | np.ndarray) -> list[list[int]]:
    """Segment ends (exclusive; the last is n) per row of Z (m x n), minimising L2 cost + pen each.

    Exact optimal partitioning with cumulative sums, all rows at once (one numpy step per
    iteration index, none per process): the optimum that PELT, e.g. ruptures' Pelt(model="l2",
    min_size=1, jump=1), finds, without its per-segment Python overhead (~50 ms per process).
    """
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    m, n = Z.shape
    if n < 2:
        return [[n] for _ in range(m)]
    pen = np.broadcast_to(np.asarray(pen, dtype=float), (m,))
    s1 = np.concatenate([np.zeros((m, 1)), np.cumsum(Z, axis=1)], axis=1)
    s2 = np.concatenate([np.zeros((m, 1)), np.cumsum(Z * Z, axis=1)], axis=1)
    F = np.empty((m, n + 1))
    F[:, 0] = -pen
    last = np.zeros((m, n + 1), dtype=np.int64)
    rows = np.arange(m)
    for t in range(1, n + 1):
        length = t - np.arange(t)
        cost = (s2[:, t:t + 1] - s2[:, :t]) - (s1[:, t:t + 1] - s1[:, :t]) ** 2 / length
        tot = F[:, :t] + cost + pen[:, None]
        j = np.argmin(tot, axis=1)
        F[:, t] = tot[rows, j]
        last[:, t] = j
    out = []
    for r in range(m):
        ends = []
        t = n
        while t > 0:
            ends.append(t)
            t = int(last[r, t])
        out.append(ends[::-1])
    return out


def changepoints(z: np.ndarray, pen: float) -> list[int]:
    """Segment ends of one series (see changepoints_batch)."""
    return changepoints_batch(np.asarray(z, dtype=float)[None, :], pen)[0]


def _noise_sd(x: np.ndarray) -> float:
    """Robust noise sd: MAD of successive differences / sqrt 2 (a level shift barely moves it)."""
    d = np.diff(x)
    sigma = 1.4826 * np.median(np.abs(d - np.median(d))) / math.sqrt(2)
    scale = abs(float(np.median(x))) or 1.0
    if not np.isfinite(sigma) or sigma <= 1e-9 * scale:
        sigma = max(1e-9 * scale, float(np.std(x)) or 1e-9 * scale)
    return float(sigma)


def _noise_sd_rows(X: np.ndarray) -> np.ndarray:
    """_noise_sd of every row of X (m x n), vectorised (the same values)."""
    d = np.diff(X, axis=1)
    sigma = 1.4826 * np.median(np.abs(d - np.median(d, axis=1, keepdims=True)), axis=1) / math.sqrt(2)
    scale = np.abs(np.median(X, axis=1))
    scale[scale == 0] = 1.0
    with np.errstate(invalid="ignore"):
        fix = ~np.isfinite(sigma) | (sigma <= 1e-9 * scale)
    for r in np.flatnonzero(fix):
        sigma[r] = _noise_sd(X[r])
    return sigma


def _classify(x: np.ndarray, sigma: float, ends: list[int], rel_tol: float, min_tail: float
              ) -> tuple[int | None, str]:
    n = len(x)
    bounds = [0] + ends
    segs = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    min_len = max(3, int(math.ceil(0.05 * n)))
    # short segments after the first are spikes (or dips): merge them into their left neighbour.
    # A short FIRST segment is kept: one or two slow first iterations are a real warm-up.
    merged: list[tuple[int, int]] = []
    for a, b in segs:
        if merged and (b - a) < min_len:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))

    def seg_mean(s: tuple[int, int]) -> float:
        return float(np.median(x[s[0]:s[1]]))

    tol_abs = 2 * sigma
    changed = True
    while changed and len(merged) > 1:
        changed = False
        for i in range(len(merged) - 1):
            m1, m2 = seg_mean(merged[i]), seg_mean(merged[i + 1])
            if abs(m1 - m2) <= max(rel_tol * abs(m2), tol_abs):
                merged[i] = (merged[i][0], merged[i + 1][1])
                del merged[i + 1]
                changed = True
                break
    if len(merged) == 1:
        return 0, "flat"
    last = merged[-1]
    if last[1] - last[0] < max(min_tail * n, 2):
        return None, "no steady state"
    prev = merged[-2]
    return last[0], ("warm-up" if seg_mean(prev) > seg_mean(last) else "slowdown")


def steady_states(series: Sequence[np.ndarray], *, pen_scale: float = 4.0, rel_tol: float = 0.01,
                  min_tail: float = 0.25) -> list[tuple[int | None, str]]:
    """steady_state for many run sequences at once (batched by length: fast for whole runs)."""
    out: list[tuple[int | None, str] | None] = [None] * len(series)
    by_len: dict[int, list[int]] = {}
    xs = [np.asarray(x, dtype=float) for x in series]
    for i, x in enumerate(xs):
        if len(x) < 4:
            out[i] = (0, "flat")
        else:
            by_len.setdefault(len(x), []).append(i)
    for n, idxs in by_len.items():
        X = np.stack([xs[i] for i in idxs])
        sig = _noise_sd_rows(X)
        Z = (X - np.median(X, axis=1, keepdims=True)) / sig[:, None]
        ends = changepoints_batch(Z, pen_scale * math.log(n))
        for i, sg, e in zip(idxs, sig, ends):
            out[i] = _classify(xs[i], float(sg), e, rel_tol, min_tail)
    return out  # type: ignore[return-value]


def steady_state(x: Sequence[float] | np.ndarray, *, pen_scale: float = 4.0, rel_tol: float = 0.01,
                 min_tail: float = 0.25) -> tuple[int | None, str]:
    """(index where steady state starts or None, class) of one process's run sequence.

    Changepoint analysis: penalised optimal partitioning (the optimum PELT finds) with an L2
    cost on the series scaled by a robust noise estimate (the MAD of successive differences,
    which a level shift does not inflate), penalty pen_scale * log n per changepoint.
    Then, in the spirit of Barrett et al. 2017 ("Virtual machine warmup blows hot and cold"):
    segments shorter than max(3, 5% of n) iterations, except the first, are treated as spikes
    and merged into their left neighbour; neighbouring segments whose medians differ by less
    than max(rel_tol * median, 2 noise sd) are merged. One segment left: ``flat`` (steady from
    0). Otherwise the last segment is the steady state if it covers at least `min_tail` of the
    iterations, else ``no steady state``; it is ``warm-up`` when faster than the segment before
    it and ``slowdown`` when slower.
    """
    return steady_states([x], pen_scale=pen_scale, rel_tol=rel_tol, min_tail=min_tail)[0]


def _process_series(df: pd.DataFrame) -> tuple[list[tuple], list[np.ndarray], list[np.ndarray], pd.DataFrame]:
    """(process keys, valid seconds per process, iteration numbers per process, sorted df)."""
    df = df.sort_values(CELL_KEYS + ["process", "iteration"], kind="stable")
    valid = df["check_ok"].astype(bool).to_numpy()
    secs = _seconds(df)
    its = df["iteration"].to_numpy()
    keys, xs, itv = [], [], []
    for key, idx in df.groupby(CELL_KEYS + ["process"], sort=True).indices.items():
        idx = np.sort(idx)
        idx = idx[valid[idx]]
        keys.append(tuple(key))
        xs.append(secs[idx])
        itv.append(its[idx])
    return keys, xs, itv, df


def warmup_analysis(df: pd.DataFrame, **kwargs: float) -> pd.DataFrame:
    """Per process: where steady state starts and the warm-up class (for run-sequence plots).

    Columns: benchmark, params, engine, runtime, process, iterations (valid ones), steady_start
    (position in the process's valid iterations, NaN if no steady state), steady_iteration (the
    `iteration` value there), warmup (flat / warm-up / slowdown / no steady state).
    """
    cols = CELL_KEYS + ["process", "iterations", "steady_start", "steady_iteration", "warmup"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    keys, xs, itv, _ = _process_series(df)
    res = steady_states(xs, **kwargs)
    rows = []
    for key, x, it, (start, cls) in zip(keys, xs, itv, res):
        if len(x) == 0:
            continue
        rows.append((*key, len(x), np.nan if start is None else start,
                     np.nan if start is None else it[start], cls))
    return pd.DataFrame(rows, columns=cols)


def _class_summary(classes: Iterable[str]) -> str:
    counts = Counter(classes)
    return ",".join(f"{c}:{counts[c]}" for c in WARMUP_CLASSES if c in counts)


# ----------------------------------------------------------------------------------------------
# Per-cell summary
# ----------------------------------------------------------------------------------------------


def _seconds(df: pd.DataFrame) -> np.ndarray:
    return df["wall_ns"].to_numpy(dtype=float) / 1e9


def cell_samples(df: pd.DataFrame, steady_state_only: bool = False
                 ) -> tuple[dict[tuple, CellSample], pd.DataFrame]:
    """Split raw timings into valid per-process samples per cell, plus per-cell bookkeeping.

    Returns ({cell key: CellSample}, info) where info has one row per cell with invalid and
    outlier counts and the warm-up class summary, indexed by the cell keys.
    """
    info_cols = CELL_KEYS + ["invalid", "outliers", "warmup", "used"]
    if df.empty:
        return {}, pd.DataFrame(columns=info_cols).set_index(CELL_KEYS)
    keys, xs, _, df = _process_series(df)
    res = steady_states(xs)
    valid = df["check_ok"].astype(bool).to_numpy()
    outl = flag_outliers(df).to_numpy()
    cell_index = df.groupby(CELL_KEYS, sort=True).indices
    per_cell: dict[tuple, tuple[list[np.ndarray], list[str]]] = {tuple(k): ([], []) for k in cell_index}
    for key, x, (start, cls) in zip(keys, xs, res):
        if len(x) == 0:
            continue
        procs, classes = per_cell[key[:4]]
        classes.append(cls)
        procs.append(x[start:] if (steady_state_only and start is not None) else x)
    samples: dict[tuple, CellSample] = {}
    info_rows = []
    for key, idx in cell_index.items():
        key = tuple(key)
        procs, classes = per_cell[key]
        samples[key] = CellSample(procs)
        info_rows.append((*key, int((~valid[idx]).sum()), int(outl[idx].sum()), _class_summary(classes),
                          "steady-state" if steady_state_only else "all"))
    return samples, pd.DataFrame(info_rows, columns=info_cols).set_index(CELL_KEYS)


SUMMARY_COLUMNS = ["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
                   "ci_high_s", "median_s", "std_s", "n", "method", "confidence", "invalid", "outliers", "warmup",
                   "used"]


def _summary_rows(samples: dict[tuple, CellSample], info: pd.DataFrame, method: str, confidence: float,
                  boots: dict[tuple, CellBoot] | None, resamples: int, seed: int) -> pd.DataFrame:
    infos = dict(zip(info.index, info.itertuples(index=False)))

    def row(key: tuple) -> tuple:
        s = samples[key]
        n = s.n
        flat = s.flat
        reps = boots[key].reps if boots is not None and key in boots else None
        if method == "hierarchical" and reps is None and n >= 2:
            reps = bootstrap_means(s, method, resamples, cell_seed(seed, key))
        mean, lo, hi = mean_ci(s, method, confidence, resamples, cell_seed(seed, key), reps=reps)
        counts = [len(p) for p in s.processes]
        it = int(np.median(counts)) if counts and min(counts) == max(counts) else (int(round(np.mean(counts))) if counts else 0)
        inf = infos[key]
        return (*key, len(s.processes), it, mean, lo, hi,
                float(np.median(flat)) if n else math.nan,
                float(flat.std(ddof=1)) if n > 1 else math.nan, n, method, confidence,
                int(inf.invalid), int(inf.outliers), inf.warmup, inf.used)

    rows = _parallel_map(row, list(samples))
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    return out


def summarize_cells(df: pd.DataFrame, method: str = "hierarchical", confidence: float = 0.99,
                    resamples: int = 10000, seed: int = 0, steady_state: bool = False) -> pd.DataFrame:
    """One row per cell (benchmark, params, engine, runtime): mean, CI, median, sd and bookkeeping.

    Columns: benchmark, params, engine, runtime, processes, iterations (per process; the mean if
    processes differ), mean_s, ci_low_s, ci_high_s, median_s, std_s, n (iterations used), method,
    confidence, invalid (iterations whose check failed: excluded), outliers (Tukey-flagged, kept),
    warmup (classes of the processes, e.g. "flat:4,warm-up:1"), used ("all" or "steady-state").
    With steady_state=True each process contributes only its iterations from its detected
    steady-state start; processes with no steady state contribute all of theirs.
    """
    _check_method(method)
    samples, info = cell_samples(df, steady_state_only=steady_state)
    boots = boot_cells(samples, method, resamples, seed, logs=False) if method == "hierarchical" else None
    return _summary_rows(samples, info, method, confidence, boots, resamples, seed)


# ----------------------------------------------------------------------------------------------
# Baseline ratios over a whole run (what the SQPyte tables show)
# ----------------------------------------------------------------------------------------------

RATIO_COLUMNS = SUMMARY_COLUMNS[:12] + ["baseline", "ratio", "ratio_ci_low", "ratio_ci_high"] + SUMMARY_COLUMNS[12:]


def parse_baseline(baseline: str) -> tuple[str, str | None]:
    """`ENGINE` or `ENGINE@RUNTIME` (a runtime prefix: `cpython` matches `cpython3.11.7`)."""
    engine, _, runtime = baseline.partition("@")
    return engine, (runtime or None)


def is_baseline(engine: str, runtime: str, baseline: str) -> bool:
    b_engine, b_runtime = parse_baseline(baseline)
    return engine == b_engine and (b_runtime is None or str(runtime).startswith(b_runtime))


def _find_baseline(keys: Iterable[tuple], key: tuple, baseline: str) -> tuple | None:
    """The baseline cell for `key`. `ENGINE@RUNTIME` names one runtime's cell for every row.
    Plain `ENGINE`: the same runtime's cell (runtimes side by side); failing that the only one,
    or else the CPython one (the harness's own runtime, e.g. for a C or PyPy row)."""
    bench, params, _engine, runtime = key
    b_engine, b_runtime = parse_baseline(baseline)
    cands = [k for k in keys if k[0] == bench and k[1] == params and k[2] == b_engine
             and (b_runtime is None or str(k[3]).startswith(b_runtime))]
    if b_runtime is None and (bench, params, b_engine, runtime) in keys:
        return (bench, params, b_engine, runtime)
    if len(cands) == 1:
        return cands[0]
    cpython = [k for k in cands if str(k[3]).startswith("cpython")]
    return cpython[0] if len(cpython) == 1 else None


def ratio_summary(df: pd.DataFrame, baseline: str, method: str = "hierarchical", confidence: float = 0.99,
                  resamples: int = 10000, seed: int = 0, steady_state: bool = False) -> pd.DataFrame:
    """Cell summaries plus ratio = cell mean / baseline mean (same benchmark, params, runtime) with CI,
    and per (engine, runtime) one geometric-mean row (benchmark "geomean") over the benchmarks
    that have a baseline. The baseline cell of another runtime is used when the baseline engine
    ran the benchmark on exactly one runtime (e.g. a C baseline for Python engines).

    Every cell is bootstrapped once; its replicates serve its own CI, its ratios and the
    geometric means, so ratio replicates pair independent draws of the two sides.
    """
    _check_method(method)
    samples, info = cell_samples(df, steady_state_only=steady_state)
    boots = boot_cells(samples, method, resamples, seed)
    summ = _summary_rows(samples, info, method, confidence, boots, resamples, seed)
    keys = set(boots)
    ratios, groups, jobs = [], {}, []
    for key in samples:
        bkey = _find_baseline(keys, key, baseline)
        if key not in boots or bkey is None:
            ratios.append((None, math.nan, math.nan, math.nan))
            continue
        jobs.append([(boots[key], boots[bkey])])
        ratios.append((f"{bkey[2]}@{bkey[3]}", len(jobs) - 1))
        groups.setdefault((key[2], key[3]), []).append((key, bkey))
    geo_first = len(jobs)
    jobs += [[(boots[a], boots[b]) for a, b in pairs] for pairs in groups.values()]
    combined = _parallel_map(lambda pairs: combine_log_ratios(pairs, confidence), jobs)
    ratios = [r if r[0] is None else (r[0], *combined[r[1]]) for r in ratios]
    summ["baseline"] = [r[0] for r in ratios]
    summ["ratio"] = [r[1] for r in ratios]
    summ["ratio_ci_low"] = [r[2] for r in ratios]
    summ["ratio_ci_high"] = [r[3] for r in ratios]
    geo_rows = []
    for i, ((engine, runtime), pairs) in enumerate(groups.items()):
        g, lo, hi = combined[geo_first + i]
        means = [boots[a].mean for a, _ in pairs]
        gm = float(np.exp(np.mean(np.log(means)))) if all(m > 0 for m in means) else math.nan
        geo_rows.append({"benchmark": "geomean", "params": "", "engine": engine, "runtime": runtime,
                         "processes": np.nan, "iterations": np.nan, "mean_s": gm, "ci_low_s": np.nan,
                         "ci_high_s": np.nan, "median_s": np.nan, "std_s": np.nan, "n": len(pairs),
                         "baseline": baseline, "ratio": g, "ratio_ci_low": lo, "ratio_ci_high": hi,
                         "method": method, "confidence": confidence, "invalid": np.nan, "outliers": np.nan,
                         "warmup": "", "used": "steady-state" if steady_state else "all"})
    out = pd.concat([summ, pd.DataFrame(geo_rows, columns=summ.columns)], ignore_index=True) if geo_rows else summ
    return out[RATIO_COLUMNS]


# ----------------------------------------------------------------------------------------------
# benchstat-style comparison
# ----------------------------------------------------------------------------------------------


def _binom_pmf(n: int, p: float, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    # exact for p = 1/2 (symmetric ties must compare equal for the left-bias rule)
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


@lru_cache(maxsize=None)
def quantile_ci_orders(n: int, q: float = 0.5, confidence: float = 0.95) -> tuple[int, int, float]:
    """(lo_order, hi_order, achieved confidence) of benchstat's distribution-free quantile CI.

    The same rule as go-moremath's stats.QuantileCI (used by benchstat): for n <= 30 start at
    the binomial mode and add the larger neighbouring probability (left-biased on ties) until the
    confidence is reached; above 30 use the normal approximation with continuity correction.
    Orders are 1-based; 0 or n+1 mean an unbounded side.
    """
    if confidence >= 1:
        return 0, n + 1, 1.0
    if n <= 30:
        x = int(math.ceil((n + 1) * q) - 1) if q > 0 else 0
        accum = _binom_pmf(n, q, x)
        l, r = x, x + 1
        lp, rp = _binom_pmf(n, q, l - 1), _binom_pmf(n, q, r)
        while accum < confidence and (lp > 0 or rp > 0):
            if lp >= rp:
                accum += lp
                l -= 1
                lp = _binom_pmf(n, q, l - 1)
            else:
                accum += rp
                r += 1
                rp = _binom_pmf(n, q, r)
        conf = accum
    else:
        mu, sd = n * q, math.sqrt(n * q * (1 - q))
        alpha = (1 - confidence) / 2
        l1 = sps.norm.ppf(alpha, mu, sd)
        r1 = 2 * mu - l1
        l = int(math.floor(math.floor(l1 - 0.5) + 0.5)) + 1
        r = int(math.floor(math.ceil(r1 - 0.5) + 0.5)) + 1

        def cdf(a: int, b: int) -> float:
            return float(sps.norm.cdf(b - 0.5, mu, sd) - sps.norm.cdf(a - 0.5, mu, sd))

        conf = cdf(l, r)
        biased = cdf(l, r - 1)
        if confidence <= biased < conf:
            conf, r = biased, r - 1
        if l <= 0 and r >= n + 1:
            conf = 1.0
    return max(l, 0), min(r, n + 1), conf


def median_ci(x: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """(median, low, high): benchstat's order-statistic CI of the median (±inf if too few values)."""
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    lo_o, hi_o, _ = quantile_ci_orders(n, 0.5, confidence)
    lo = x[lo_o - 1] if lo_o >= 1 else -math.inf
    hi = x[hi_o - 1] if hi_o <= n else math.inf
    return float(np.median(x)), float(lo), float(hi)


def pct_range(center: float, lo: float, hi: float) -> float:
    """benchstat's ± percentage: max(hi/center - 1, 1 - lo/center) x 100 (inf, nan if undefined)."""
    if math.isinf(lo) or math.isinf(hi):
        return math.inf
    if not (np.sign(center) == np.sign(lo) == np.sign(hi)):
        return math.nan
    if center == 0:
        return 0.0
    return 100 * max(hi / center - 1, 1 - lo / center)


def _mwu_exact_sf(U: float, n1: int, n2: int) -> float:
    """P(U' >= U) under H0 with no ties: coefficients of the Gaussian binomial [n1+n2 choose n1]_q."""
    m, n = min(n1, n2), max(n1, n2)
    size = m * n + 1
    c = np.zeros(size)
    c[0] = 1.0
    for i in range(1, m + 1):
        d = n + i  # multiply by (1 - q^d), then divide by (1 - q^i)
        if d < size:
            c[d:] -= c[: size - d].copy()
        for r in range(i):
            c[r::i] = np.cumsum(c[r::i])
    total = special.binom(n1 + n2, n1)
    u = int(round(U))
    return float(c[u:].sum() / total)


def mann_whitney_p(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value, the same as scipy.stats.mannwhitneyu's defaults.

    Exact null distribution when a sample has at most 8 values and there are no ties; otherwise
    the normal approximation with tie correction and continuity correction.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return math.nan
    xy = np.concatenate([x, y])
    ranks = sps.rankdata(xy)
    _, t = np.unique(xy, return_counts=True)
    R1 = ranks[:n1].sum()
    U1 = R1 - n1 * (n1 + 1) / 2
    U = max(U1, n1 * n2 - U1)
    ties = bool((t > 1).any())
    if (n1 > 8 and n2 > 8) or ties:
        n = n1 + n2
        s = math.sqrt(n1 * n2 / 12 * ((n + 1) - float((t**3 - t).sum()) / (n * (n - 1))))
        if s == 0:
            p = math.nan
        else:
            z = (U - n1 * n2 / 2 - 0.5) / s
            p = 2 * float(special.ndtr(-z))
    else:
        p = 2 * _mwu_exact_sf(U, n1, n2)
    return float(min(max(p, 0.0), 1.0)) if not math.isnan(p) else p


COMPARE_COLUMNS = ["benchmark", "params", "engine", "runtime", "base_median_s", "base_ci_pct", "new_median_s",
                   "new_ci_pct", "delta_pct", "p_value", "significant", "base_n", "new_n", "delta"]


def compare_samples(df: pd.DataFrame, samples: str = "process") -> dict[tuple, np.ndarray]:
    """The benchstat samples of each cell: per-process means of valid iterations (default) or
    every valid iteration (`samples="iteration"`).

    Why per-process by default: iterations of one process are not independent (they share its
    layout, JIT state, placement), so treating them as independent samples gives p-values far
    too small. Imported go/hyperfine results have one value per process, as benchstat expects.
    """
    if samples not in ("process", "iteration"):
        raise ValueError("samples must be 'process' or 'iteration'")
    v = df[df["check_ok"].astype(bool)]
    out: dict[tuple, np.ndarray] = {}
    # ns * 1e-9 (not / 1e9) is how Go's benchfmt converts ns/op to sec/op; the two differ in the
    # last bit, which decides the rounding of an exact half such as 819.95n -> "820.0n".
    secs = v["wall_ns"].astype(float) * 1e-9
    if samples == "process":
        m = secs.groupby([v[c] for c in CELL_KEYS + ["process"]], sort=True).mean()
        for key, g in m.groupby(level=list(range(4)), sort=True):
            out[tuple(key)] = g.to_numpy()
    else:
        for key, g in secs.groupby([v[c] for c in CELL_KEYS], sort=True):
            out[tuple(key)] = g.to_numpy()
    return out


def compare_runs(base: pd.DataFrame, new: pd.DataFrame, alpha: float = 0.05, confidence: float = 0.95,
                 samples: str = "process") -> pd.DataFrame:
    """benchstat's comparison of two runs, one row per cell present in both, then a geomean row.

    Per side: median with the order-statistic CI (as ± percent); delta_pct = new/base - 1 of the
    medians; two-sided Mann-Whitney U p-value; significant = p < alpha (the text form shows `~`
    otherwise). The geomean row compares the geometric means of the medians over the rows.
    """
    a = compare_samples(base, samples)
    b = compare_samples(new, samples)
    rows = []
    for key in [k for k in a if k in b]:
        x, y = a[key], b[key]
        mx, lx, hx = median_ci(x, confidence)
        my, ly, hy = median_ci(y, confidence)
        p = mann_whitney_p(x, y)
        delta = (my / mx - 1) * 100 if mx else math.nan
        sig = bool(p < alpha) if np.isfinite(p) else False
        rows.append((*key, mx, pct_range(mx, lx, hx), my, pct_range(my, ly, hy), delta, p, sig, len(x), len(y),
                     f"{delta:+.2f}%" if sig else "~"))
    out = pd.DataFrame(rows, columns=COMPARE_COLUMNS)
    if len(out):
        pos = out[(out.base_median_s > 0) & (out.new_median_s > 0)]
        gb = float(np.exp(np.log(pos.base_median_s).mean())) if len(pos) else math.nan
        gn = float(np.exp(np.log(pos.new_median_s).mean())) if len(pos) else math.nan
        gd = (gn / gb - 1) * 100 if gb else math.nan
        geo = pd.DataFrame([("geomean", "", "", "", gb, math.nan, gn, math.nan, gd, math.nan, False,
                             np.nan, np.nan, f"{gd:+.2f}%")], columns=COMPARE_COLUMNS)
        out = pd.concat([out, geo], ignore_index=True)
    return out
