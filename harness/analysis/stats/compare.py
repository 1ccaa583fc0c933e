"""benchstat-style comparison of two runs: medians with order-statistic CIs, Mann-Whitney U."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import special
from scipy import stats as sps

from harness.analysis.stats.resample import CELL_KEYS



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
