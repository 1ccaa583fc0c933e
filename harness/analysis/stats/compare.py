"""benchstat-style comparison of two runs: medians with order-statistic CIs, Mann-Whitney U."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import special

from harness.analysis.stats.resample import CELL_KEYS
from harness.analysis.stats.warmup import process_keys



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
        from scipy import stats as sps  # lazily: scipy.stats costs a second to import

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


#: benchstat's limits (go-moremath stats.MannWhitneyExactLimit, MannWhitneyTiesExactLimit): the exact
#: null distribution is used while both samples have at most this many values
EXACT_LIMIT = 50
TIES_EXACT_LIMIT = 25


def _u_counts(n1: int, ties: Sequence[int], max_two_u: int | None = None) -> np.ndarray:
    """Number of ways (out of C(N, n1)) to place sample 1 that give each value of 2 U1 (up to
    `max_two_u` when given: every step adds to 2 R1, so the counts below it never depend on the
    table's columns above it, and a p-value needs only the lower tail).

    Dynamic programming over the tie groups in rank order (the permutation distribution that
    go-moremath's UDist computes with Cheung & Klotz's linked lists): choosing k of the t values
    of a group whose ranks start at a adds k * (2a + t - 1) to 2 R1 (mid-ranks) in C(t, k) ways.
    Index j of the result is 2 U1 = 2 R1 - n1 (n1 + 1). Float counts: C(100, 50) ~ 1e29 has 16
    significant digits, as go-moremath's float64.
    """
    N = int(sum(ties))
    max2r = 2 * sum(range(N - n1 + 1, N + 1))
    if max_two_u is not None:
        max2r = min(max2r, n1 * (n1 + 1) + max_two_u)
    table = np.zeros((n1 + 1, max2r + 1))
    table[0, 0] = 1.0
    a, placed = 1, 0
    for t in ties:
        step = 2 * a + t - 1
        # in place, rows from the top down: row r reads only rows below it, not yet updated
        for r in range(min(n1, placed + t), 0, -1):
            row = table[r]
            for k in range(max(1, r - placed), min(t, r) + 1):
                shift = k * step
                if shift > max2r:
                    break  # beyond the columns kept (larger k shift further)
                row[shift:] += float(math.comb(t, k)) * table[r - k, : max2r + 1 - shift]
        a += t
        placed += t
    return table[n1, n1 * (n1 + 1):]


def mann_whitney_p(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value exactly as benchstat computes it (go-moremath).

    Exact null distribution (with ties: conditional on the tie groups) when both samples have at
    most EXACT_LIMIT values, or TIES_EXACT_LIMIT when there are ties: p = 2 P(U <= min(U1, U2)),
    and 1 when U1 = U2 (with ties this may slightly exceed 1, as benchstat's does). Beyond, the normal approximation with tie and continuity correction.
    All values equal: the test is meaningless; benchstat reports p = 1 (nan here would hide it).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return math.nan
    xy = np.concatenate([x, y])
    vals, t = np.unique(xy, return_counts=True)
    if len(vals) == 1:
        return 1.0
    from scipy import stats as sps

    ranks = sps.rankdata(xy)
    U1 = float(ranks[:n1].sum()) - n1 * (n1 + 1) / 2
    U2 = n1 * n2 - U1
    ties = bool((t > 1).any())
    limit = TIES_EXACT_LIMIT if ties else EXACT_LIMIT
    if n1 <= limit and n2 <= limit:
        if U1 == U2:
            return 1.0
        two_u = int(round(2 * min(U1, U2)))
        counts = _u_counts(n1, [int(v) for v in t], two_u)
        # not clipped to 1: with ties, P(U <= Usmall) can exceed 1/2 when U1 and U2 differ by less
        # than the distribution's step, and go-moremath (so benchstat) then prints e.g. p=1.014
        return 2 * float(counts[: two_u + 1].sum()) / float(math.comb(n1 + n2, n1))
    N = n1 + n2
    tc = float((t**3 - t).sum())
    sd = math.sqrt(n1 * n2 * ((N + 1) - tc / (N * (N - 1))) / 12)
    if sd == 0:
        return 1.0
    num = U1 - n1 * n2 / 2
    num -= math.copysign(0.5, num) if num != 0 else 0.0
    z = num / sd
    return float(2 * min(special.ndtr(z), 1 - special.ndtr(z)))


#: smallest two-sided p the exact test can reach with n values on each side, 2 / C(2n, n)
def min_p(n: int) -> float:
    return 2 / math.comb(2 * n, n) if n > 0 else 1.0


def samples_needed(alpha: float) -> tuple[str, int]:
    """benchstat's (op, n): the samples per side needed to detect a difference at alpha (its table
    stops at 9: beyond, '> 9')."""
    for n in range(1, 10):
        if min(1.0, min_p(n)) <= alpha:
            return ">=", n
    return ">", 9


def too_small_warning(p: float, n1: int, n2: int, alpha: float) -> str:
    """benchstat's warning when no difference could reach alpha with these sample sizes ('' if none)."""
    if not p > alpha:
        return ""
    op, n = samples_needed(alpha)
    if n1 < n and n2 < n:
        return f"need {op} {n} samples to detect a difference at alpha level {alpha:g}"
    return ""


COMPARE_COLUMNS = ["benchmark", "params", "engine", "runtime", "base_median_s", "base_ci_pct", "new_median_s",
                   "new_ci_pct", "delta_pct", "p_value", "significant", "base_n", "new_n", "delta",
                   "base_ci_low_s", "base_ci_high_s", "new_ci_low_s", "new_ci_high_s", "warning"]


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
        m = secs.groupby([v[c] for c in process_keys(v)], sort=True).mean()
        for key, g in m.groupby(level=list(range(4)), sort=True):
            out[tuple(key)] = g.to_numpy()
    else:
        for key, g in secs.groupby([v[c] for c in CELL_KEYS], sort=True):
            out[tuple(key)] = g.to_numpy()
    return out


def compare_runs(base: pd.DataFrame, new: pd.DataFrame, alpha: float = 0.05, confidence: float = 0.95,
                 samples: str = "process") -> pd.DataFrame:
    """benchstat's comparison of two runs, one row per cell present in both, then a geomean row.

    Per side: median with the order-statistic CI (both ends, and benchstat's ± percent);
    delta_pct = new/base - 1 of the medians; two-sided Mann-Whitney U p-value (exact, as
    benchstat); significant = not p > alpha (benchstat's rule: `~` only when p > alpha);
    warning: benchstat's "need >= n samples" when the samples are too small to ever reach alpha.
    The geomean row compares the geometric means of the medians over the rows.
    """
    return compare_cells(compare_samples(base, samples), compare_samples(new, samples), alpha, confidence)


def compare_cells(a: dict[tuple, np.ndarray], b: dict[tuple, np.ndarray], alpha: float = 0.05,
                  confidence: float = 0.95) -> pd.DataFrame:
    """`compare_runs` on samples already split (`compare_samples`): the cells of `a` also in `b`."""
    rows = []
    for key in [k for k in a if k in b]:
        x, y = a[key], b[key]
        mx, lx, hx = median_ci(x, confidence)
        my, ly, hy = median_ci(y, confidence)
        p = mann_whitney_p(x, y)
        delta = (my / mx - 1) * 100 if mx else math.nan
        sig = bool(not p > alpha) if np.isfinite(p) else False
        text = "~" if not sig else ("0.00%" if mx == my else (f"{delta:+.2f}%" if mx else "?"))
        rows.append((*key, mx, pct_range(mx, lx, hx), my, pct_range(my, ly, hy), delta, p, sig, len(x), len(y),
                     text, lx, hx, ly, hy, too_small_warning(p, len(x), len(y), alpha)))
    out = pd.DataFrame(rows, columns=COMPARE_COLUMNS)
    if len(out):
        pos = out[(out.base_median_s > 0) & (out.new_median_s > 0)]
        gb = float(np.exp(np.log(pos.base_median_s).mean())) if len(pos) else math.nan
        gn = float(np.exp(np.log(pos.new_median_s).mean())) if len(pos) else math.nan
        gd = (gn / gb - 1) * 100 if gb else math.nan
        geo = pd.DataFrame([("geomean", "", "", "", gb, math.nan, gn, math.nan, gd, math.nan, False,
                             np.nan, np.nan, f"{gd:+.2f}%", math.nan, math.nan, math.nan, math.nan, "")],
                           columns=COMPARE_COLUMNS)
        out = pd.concat([out, geo], ignore_index=True)
    return out
