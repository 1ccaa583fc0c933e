"""Intervals of a cell's mean, and of ratios and geometric means of ratios between cells.

The methods are described in `harness.analysis.stats` (the package docstring).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy import stats as sps

from harness.analysis.stats.parallel import _parallel_map
from harness.analysis.stats.resample import CellSample, _as_sample, _check_method, bootstrap_means, cell_seed

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
