"""Intervals of a cell's mean, and of ratios and geometric means of ratios between cells.

The methods are described in `harness.analysis.stats` (the package docstring). Every cell is
reduced once to a `CellBoot`: its estimate, the variance of the log of that estimate and its
degrees of freedom. Ratios and geometric means are sums of logs of independent cells, so their
intervals follow from those parts (Welch-Satterthwaite for the degrees of freedom), always on
the log scale: bounds of positive quantities stay positive.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
from scipy import special

from harness.analysis.methods import DEFAULT_METHOD, MIN_PROCESSES
from harness.analysis.stats.parallel import _parallel_map
from harness.analysis.stats.resample import CellSample, _as_sample, _check_method, bootstrap_means, cell_seed


@lru_cache(maxsize=4096)
def _t(confidence: float, df: float) -> float:
    # scipy.stats.t.ppf is special.stdtrit (the same floats); scipy.special alone imports in a
    # fraction of scipy.stats' time, which every `summary` paid
    return float(special.stdtrit(df, 0.5 + confidence / 2))


def too_few_note(processes: int) -> str:
    """Why a cell has no interval when it has fewer than MIN_PROCESSES processes."""
    return (f"no interval: {processes} process{'es' if processes != 1 else ''}, an interval needs at least "
            f"{MIN_PROCESSES} (between-process variance cannot be estimated from fewer)")


def effective_df(procs: Sequence[np.ndarray]) -> float:
    """Degrees of freedom of the process-level interval: P - 1, also for uneven iteration counts.

    The estimate weighs every process once (the mean of process means: each process is one
    draw of the thing estimated), so Kish's effective number of processes (sum w)^2 / sum w^2 is
    P whatever the iteration counts. Uneven counts make the process means' variances unequal;
    a Satterthwaite correction for that (down to 1 df) was tried and measured too conservative:
    when one noisy process mean dominates, it dominates the numerator and the sample variance
    alike and the t statistic stays bounded. Measured with counts [200, 10, 5, 3, 2], within-
    process noise dominant: 99% nominal covers >= 99% with P - 1 (`harness.analysis.coverage`).
    (The pooled, count-weighted mean is what needed Kish's correction: its effective P for
    these counts is 1.2.)
    """
    return float(len(procs) - 1) if len(procs) > 1 else math.nan


# ----------------------------------------------------------------------------------------------
# One cell
# ----------------------------------------------------------------------------------------------


@dataclass
class CellBoot:
    """One cell reduced to what its interval, ratios and geometric means need.

    mean: the estimate (mean of process means; pooled mean for pooled-t); processes: P;
    log_var: estimated variance of log(mean) (nan: no interval, `note` says why); df: its
    degrees of freedom; reps: the bootstrap replicates of the mean (process-bootstrap only);
    between_var: a between-run variance of log(mean) that ratios and geometric means of this cell
    add (a replicate's measure of what a run adds to a within-run ratio), while the cell's own
    interval leaves it out (0: one run's intervals).
    """

    mean: float
    processes: int
    log_var: float
    df: float
    note: str = ""
    reps: np.ndarray | None = field(default=None, repr=False)
    sample: CellSample | None = field(default=None, repr=False)
    between_var: float = 0.0


def cell_boot(sample: CellSample | Sequence[np.ndarray], method: str = DEFAULT_METHOD, resamples: int = 10000,
              rng: np.random.Generator | int | None = 0, reps: np.ndarray | None = None) -> CellBoot:
    """Reduce one cell once, so its CI, its ratios and geometric means share the same parts.

    process-bootstrap: log_var is the variance of the log of the bootstrap replicates (process
    means resampled), times P/(P-1) (the bootstrap's plug-in variance is that much too small),
    df from `effective_df`. process-t and pooled-t: the delta method, s^2 / (k mean^2) with
    k - 1 degrees of freedom (k processes or iterations). `reps`: this cell's replicates drawn
    before with the same settings (the replicate cache), used instead of drawing them again.
    """
    _check_method(method)
    s = _as_sample(sample)
    P = len(s.processes)
    if s.n == 0:
        return CellBoot(math.nan, P, math.nan, math.nan, "no valid iterations", sample=s)
    if method == "pooled-t":
        x = s.flat
        est = s.mean()
        var = float(x.var(ddof=1)) / len(x) if len(x) > 1 else math.nan
        df = float(len(x) - 1)
    else:
        m = s.process_means
        est = float(m.mean())
        var = float(m.var(ddof=1)) / P if P > 1 else math.nan
        df = float(P - 1)
    if P < MIN_PROCESSES:
        return CellBoot(est, P, math.nan, math.nan, too_few_note(P), sample=s)
    if not est > 0:
        return CellBoot(est, P, math.nan, math.nan, "no interval: the mean is not positive", sample=s)
    if method == "process-bootstrap":
        if reps is None:
            reps = bootstrap_means(s, method, resamples, rng)
        with np.errstate(divide="ignore", invalid="ignore"):
            lr = np.log(reps)
        log_var = float(np.var(lr)) * P / (P - 1) if np.all(np.isfinite(lr)) else math.nan
        return CellBoot(est, P, log_var, effective_df(s.processes), "", reps, s)
    return CellBoot(est, P, var / est**2, df, "", None, s)


def log_interval(est: float, log_var: float, df: float, confidence: float) -> tuple[float, float]:
    """exp(log est -+ t_df * sqrt(log_var)): an interval with positive bounds (nan if undefined)."""
    if not (est > 0 and np.isfinite(log_var) and np.isfinite(df) and df > 0):
        return math.nan, math.nan
    h = _t(confidence, float(df)) * math.sqrt(max(log_var, 0.0))
    le = math.log(est)
    return math.exp(le - h), math.exp(le + h)


def t_interval(x: np.ndarray, confidence: float = 0.99) -> tuple[float, float, float]:
    """(mean, low, high) of the Student t interval of the mean of `x`."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean()) if len(x) else math.nan
    if len(x) < 2:
        return m, math.nan, math.nan
    hw = _t(confidence, float(len(x) - 1)) * x.std(ddof=1) / math.sqrt(len(x))
    return m, m - hw, m + hw


def cell_interval(cb: CellBoot, method: str, confidence: float) -> tuple[float, float, float, str]:
    """(mean, low, high, note) of a reduced cell: log scale for process-bootstrap; the textbook
    linear t interval for process-t and pooled-t, withheld (note) when it would reach 0."""
    if not np.isfinite(cb.log_var) or cb.sample is None:
        return cb.mean, math.nan, math.nan, cb.note
    if method == "process-bootstrap":
        lo, hi = log_interval(cb.mean, cb.log_var, cb.df, confidence)
        return cb.mean, lo, hi, cb.note
    x = cb.sample.flat if method == "pooled-t" else cb.sample.process_means
    m, lo, hi = t_interval(x, confidence)
    if not lo > 0:
        return m, math.nan, math.nan, f"no interval: the {method} interval reaches {lo:.3g} <= 0 for a positive time"
    return m, lo, hi, cb.note


def mean_ci(sample: CellSample | Sequence[np.ndarray], method: str = DEFAULT_METHOD, confidence: float = 0.99,
            resamples: int = 10000, seed: int | np.random.Generator | None = 0) -> tuple[float, float, float]:
    """(mean, low, high): the mean of a cell and its CI by `method` (nan bounds: no interval)."""
    m, lo, hi, _ = cell_interval(cell_boot(sample, method, resamples, seed), method, confidence)
    return m, lo, hi


def boot_cells(samples: dict[tuple, CellSample], method: str, resamples: int, seed: int,
               replicates: Callable[[tuple, CellSample], np.ndarray | None] | None = None,
               keep: Callable[[tuple, CellSample, np.ndarray], None] | None = None) -> dict[tuple, CellBoot]:
    """cell_boot of every non-empty cell with its own generator cell_seed(seed, key), in parallel.

    `replicates(key, sample)`: replicates drawn before for this cell and these settings, or
    None (then they are drawn, and handed to `keep(key, sample, reps)`): the replicate cache.
    """
    keys = [k for k, s in samples.items() if s.n]

    def one(k: tuple) -> CellBoot:
        reps = replicates(k, samples[k]) if replicates is not None else None
        # a cached cell needs no generator (SeedSequence costs ~0.3 ms a cell)
        cb = cell_boot(samples[k], method, resamples, cell_seed(seed, k) if reps is None else None, reps)
        if reps is None and cb.reps is not None and keep is not None:
            keep(k, samples[k], cb.reps)
        return cb

    return dict(zip(keys, _parallel_map(one, keys)))


# ----------------------------------------------------------------------------------------------
# Ratios and geometric means
# ----------------------------------------------------------------------------------------------


def combine_log_ratios(pairs: Sequence[tuple[CellBoot, CellBoot]], confidence: float = 0.99
                       ) -> tuple[float, float, float]:
    """(estimate, low, high) of exp(mean of log(num/den)) over `pairs` (one pair: a plain ratio).

    The log estimate is a linear combination sum_c a_c log(mean_c) of independent cells (a cell
    used twice gets one coefficient), so its variance is sum_c a_c^2 log_var_c, with
    Welch-Satterthwaite degrees of freedom; the interval is t on the log scale. A cell's
    `between_var` joins its log_var here. No interval when any contributing cell has none.
    """
    if not pairs:
        return math.nan, math.nan, math.nan
    K = len(pairs)
    return log_contrast([(cell, sign / K) for num, den in pairs for cell, sign in ((num, 1.0), (den, -1.0))],
                        confidence)


def log_contrast(terms: Sequence[tuple[CellBoot, float]], confidence: float = 0.99) -> tuple[float, float, float]:
    """(estimate, low, high) of exp(sum_c a_c log(mean_c)) over (cell, a_c) `terms` (a cell given twice sums its
    coefficients): a ratio is +1, -1; a geometric mean of K ratios +-1/K each; a ratio of two ratios (how a
    speedup changes between two sizes) +1, -1, -1, +1. Its variance is sum_c a_c^2 (log_var_c + between_var_c),
    Welch-Satterthwaite degrees of freedom, a t interval on the log scale; none when a contributing cell has none.
    """
    coef: dict[int, list] = {}
    for cell, a in terms:
        coef.setdefault(id(cell), [cell, 0.0])[1] += a
    if not coef:
        return math.nan, math.nan, math.nan
    if any(not c.mean > 0 for c, _ in coef.values()):
        return math.nan, math.nan, math.nan
    est = sum(a * math.log(c.mean) for c, a in coef.values())
    parts = [(a * a * (c.log_var + c.between_var), c.df) for c, a in coef.values() if a != 0]
    if any(not (np.isfinite(v) and np.isfinite(d)) for v, d in parts):
        return math.exp(est), math.nan, math.nan
    var = sum(v for v, _ in parts)
    if var <= 0:
        return math.exp(est), math.exp(est), math.exp(est)
    df = var**2 / sum(v * v / d for v, d in parts if v > 0)
    lo, hi = log_interval(math.exp(est), var, df, confidence)
    return math.exp(est), lo, hi


def pairs_note(pairs: Sequence[tuple[CellBoot, CellBoot]]) -> str:
    """Why a ratio or geometric mean has no interval ('' if it has one)."""
    short = {id(c): c for pair in pairs for c in pair if not np.isfinite(c.log_var)}
    if not short:
        return ""
    if len(pairs) == 1:
        return next(iter(short.values())).note
    return (f"no interval: {len(short)} of its cells have none (fewer than {MIN_PROCESSES} processes or no "
            f"positive mean)")


def ratio_ci(num: CellSample | Sequence[np.ndarray], den: CellSample | Sequence[np.ndarray],
             method: str = DEFAULT_METHOD, confidence: float = 0.99, resamples: int = 10000,
             seed: int = 0) -> tuple[float, float, float]:
    """(ratio, low, high) of mean(num) / mean(den); each side reduced independently."""
    rng = np.random.default_rng(seed)
    a = cell_boot(num, method, resamples, rng)
    b = cell_boot(den, method, resamples, rng)
    return combine_log_ratios([(a, b)], confidence)


def geomean_ratio_ci(pairs: Sequence[tuple[CellSample | Sequence[np.ndarray], CellSample | Sequence[np.ndarray]]],
                     method: str = DEFAULT_METHOD, confidence: float = 0.99, resamples: int = 10000,
                     seed: int = 0) -> tuple[float, float, float]:
    """(geometric mean of ratios, low, high) over benchmarks given as (num, den) cell pairs."""
    rng = np.random.default_rng(seed)
    boots = [(cell_boot(n, method, resamples, rng), cell_boot(d, method, resamples, rng)) for n, d in pairs]
    return combine_log_ratios(boots, confidence)
