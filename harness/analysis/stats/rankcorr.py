"""Rank correlation between a count (e.g. crossings) and a measured ratio, with a bootstrap interval.

Why: a claim such as "the speedup grows with the number of crossings" is about order, not about
a straight line; Spearman's rho on the cells' estimates answers it, and resampling each cell's
processes (within the cell, as the harness's intervals do) shows how much timing noise alone
could move rho. The interval does not cover the choice of benchmarks: with six benchmarks, rho
takes few distinct values, and a different six could order differently.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from harness.analysis.stats.resample import CellSample, bootstrap_means, cell_seed


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks along the last axis, ties given their average rank."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, axis=-1, kind="stable")
    ranks = np.empty_like(x)
    np.put_along_axis(ranks, order, np.arange(x.shape[-1], dtype=float) * np.ones_like(x), axis=-1)
    if x.ndim == 1:  # ties (a count repeated) matter for the fixed variable; replicates have none
        for v in np.unique(x):
            tie = x == v
            if tie.sum() > 1:
                ranks[tie] = ranks[tie].mean()
    return ranks


def spearman(x: Sequence[float], y: np.ndarray) -> np.ndarray | float:
    """Spearman's rho of `x` with `y` (1-D: one value; 2-D: one rho per row of `y`)."""
    rx = _ranks(np.asarray(x, dtype=float))
    y = np.asarray(y, dtype=float)
    ry = _ranks(y)
    rx = rx - rx.mean()
    ry = ry - ry.mean(axis=-1, keepdims=True)
    den = np.sqrt((rx * rx).sum() * (ry * ry).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (ry * rx).sum(axis=-1) / den
    return float(rho) if y.ndim == 1 else rho


@dataclass
class RankCorrelation:
    """rho of the estimates, its percentile bootstrap interval, and how many points it rests on."""

    rho: float
    low: float
    high: float
    points: int
    confidence: float
    resamples: int

    @property
    def verdict(self) -> str:
        """'supported' (interval above 0), 'contradicted' (below 0), 'not supported' (includes 0)
        or 'undecided' (no interval)."""
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            return "undecided"
        if self.low > 0:
            return "supported"
        if self.high < 0:
            return "contradicted"
        return "not supported"


def rank_correlation(counts: Sequence[float], numerators: Sequence[CellSample], denominators: Sequence[CellSample],
                     confidence: float = 0.99, resamples: int = 10000, seed: int = 0) -> RankCorrelation:
    """Spearman's rho between `counts[i]` and the ratio mean(numerators[i]) / mean(denominators[i]).

    Each replicate resamples every cell's processes independently (process-level bootstrap of
    the mean of process means), forms the ratios and computes rho; the interval is the
    replicates' percentile interval. Fewer than 3 points, or a cell with fewer than 2
    processes, give no interval.
    """
    n = len(counts)
    if not (n == len(numerators) == len(denominators)):
        raise ValueError("counts, numerators and denominators must have the same length")
    if n < 3:
        return RankCorrelation(math.nan, math.nan, math.nan, n, confidence, resamples)
    est = np.array([a.process_mean() / b.process_mean() for a, b in zip(numerators, denominators)])
    rho = spearman(counts, est)
    if any(len(s.processes) < 2 for s in (*numerators, *denominators)):
        return RankCorrelation(rho, math.nan, math.nan, n, confidence, resamples)
    reps = np.empty((resamples, n))
    for i, (a, b) in enumerate(zip(numerators, denominators)):
        ra = bootstrap_means(a, "process-bootstrap", resamples, cell_seed(seed, ("num", i)))
        rb = bootstrap_means(b, "process-bootstrap", resamples, cell_seed(seed, ("den", i)))
        reps[:, i] = ra / rb
    rhos = spearman(counts, reps)
    rhos = rhos[np.isfinite(rhos)]
    if not len(rhos):
        return RankCorrelation(rho, math.nan, math.nan, n, confidence, resamples)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(rhos, [alpha, 1 - alpha])
    return RankCorrelation(rho, float(lo), float(hi), n, confidence, resamples)
