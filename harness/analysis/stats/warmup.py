"""Warm-up and outliers: where each process's steady state starts, and Tukey's fences."""
from __future__ import annotations

import math
from collections import Counter
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import special

from harness.analysis.stats.parallel import _parallel_map
from harness.analysis.stats.resample import CELL_KEYS

WARMUP_CLASSES = ("flat", "warm-up", "slowdown", "no steady state")


def _seconds(df: pd.DataFrame) -> np.ndarray:
    return df["wall_ns"].to_numpy(dtype=float) / 1e9


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
    for idx in df.groupby(process_keys(df), sort=False, dropna=False).indices.values():
        idx = idx[valid[idx]]
        if len(idx):
            by_len.setdefault(len(idx), []).append(idx)
    for idxs in by_len.values():  # processes of equal length at once (the same fences, row by row)
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


#: series up to this long get the exact optimum over every split point (time n^2 per series);
#: longer ones are segmented on block means and refined (`changepoints_blocks`: near-linear)
EXACT_MAX = 600
#: blocks a long series is cut into (the block DP costs BLOCKS^2 per series, whatever n)
BLOCKS = 300


def changepoints_blocks(Z: np.ndarray, pen: float | np.ndarray, block: int) -> list[list[int]]:
    """Segment ends per row of Z like changepoints_batch, with split points first restricted to
    multiples of `block`, then each moved to its best place within `block` of where it is.

    The restricted optimum is exact: the L2 cost of a segment made of whole blocks is computed
    from the same cumulative sums, so this is optimal partitioning over n / block candidate
    points (cost (n / block)^2, not n^2). The refinement (for each split point, the best single
    split between its neighbours within +-block) then finds the iteration where the level
    changes, so a warm-up's end is not rounded to a block boundary, and a split point that no
    longer pays its penalty is dropped (twice over). Time: O(n) for the sums,
    O((n / block)^2) for the search, O(block) per split point.
    """
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    m, n = Z.shape
    pen = np.broadcast_to(np.asarray(pen, dtype=float), (m,))
    # the cumulative sums written in place (the same sums as cumsum then concatenate, without
    # their copies: a 10-million-iteration process would need 400 MB of temporaries)
    s1 = np.zeros((m, n + 1))
    np.cumsum(Z, axis=1, out=s1[:, 1:])
    s2 = np.zeros((m, n + 1))
    np.square(Z, out=s2[:, 1:])
    np.cumsum(s2[:, 1:], axis=1, out=s2[:, 1:])
    pos = np.unique(np.append(np.arange(0, n, block), n))
    B = len(pos) - 1
    p1, p2 = s1[:, pos], s2[:, pos]
    F = np.empty((m, B + 1))
    F[:, 0] = -pen
    last = np.zeros((m, B + 1), dtype=np.int64)
    rows = np.arange(m)
    for t in range(1, B + 1):
        length = pos[t] - pos[:t]
        cost = (p2[:, t:t + 1] - p2[:, :t]) - (p1[:, t:t + 1] - p1[:, :t]) ** 2 / length
        tot = F[:, :t] + cost + pen[:, None]
        j = np.argmin(tot, axis=1)
        F[:, t] = tot[rows, j]
        last[:, t] = j

    def seg_cost(r: int, a: int | np.ndarray, b: int | np.ndarray) -> np.ndarray:
        return (s2[r, b] - s2[r, a]) - (s1[r, b] - s1[r, a]) ** 2 / (b - a)

    out = []
    for r in range(m):
        ends = []
        t = B
        while t > 0:
            ends.append(int(pos[t]))
            t = int(last[r, t])
        ends = ends[::-1]
        for _ in range(2):
            for i in range(len(ends) - 1):  # refine each split point between its neighbours
                a = ends[i - 1] if i else 0
                e = ends[i + 1]
                cand = np.arange(max(a + 1, ends[i] - block), min(e - 1, ends[i] + block) + 1)
                if len(cand):
                    ends[i] = int(cand[np.argmin(seg_cost(r, a, cand) + seg_cost(r, cand, e))])
            # a level change inside a block needed two block boundaries around it; once one of
            # them has moved onto the change, the other no longer pays its penalty: drop it
            i = 0
            while i < len(ends) - 1:
                a = ends[i - 1] if i else 0
                e = ends[i + 1]
                if seg_cost(r, a, e) <= seg_cost(r, a, ends[i]) + seg_cost(r, ends[i], e) + pen[r]:
                    del ends[i]
                else:
                    i += 1
        out.append(ends)
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


def _noise_sd_rows(X: np.ndarray, medians: np.ndarray | None = None) -> np.ndarray:
    """_noise_sd of every row of X (m x n), vectorised (the same values); `medians`: the rows'
    medians if the caller has them (a partition of the whole batch saved)."""
    # the medians partition the temporaries in place (overwrite_input): a row's median and its
    # absolute deviations do not depend on the order of its values, so the floats are the same
    # without two copies of the batch
    d = np.diff(X, axis=1)
    d -= np.median(d, axis=1, overwrite_input=True, keepdims=True)
    np.abs(d, out=d)
    sigma = 1.4826 * np.median(d, axis=1, overwrite_input=True) / math.sqrt(2)
    del d
    scale = np.abs(np.median(X, axis=1) if medians is None else medians)
    scale[scale == 0] = 1.0
    with np.errstate(invalid="ignore"):
        fix = ~np.isfinite(sigma) | (sigma <= 1e-9 * scale)
    for r in np.flatnonzero(fix):
        sigma[r] = _noise_sd(X[r])
    return sigma


#: multiple of the standard error of the difference of two segment medians below which
#: neighbouring segments are one level (a false split of a flat run must be rare: measured
#: ~1% of flat 50-iteration series, while a 5% warm-up over 10 of 50 iterations at 2% noise,
#: ~5.7 standard errors, is kept; benchmarks/steady_state_accuracy.py)
SE_TOL = 4.0


def _median_se(sigma: float, n: int) -> float:
    """Standard error of the median of n values with noise sd sigma (sqrt(pi/2) sigma / sqrt n)."""
    return math.sqrt(math.pi / 2) * sigma / math.sqrt(max(n, 1))


#: one-sided z of the rank von Neumann test below which the residuals drift (p ~ 0.001)
DRIFT_Z = -3.09


def rankdata(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based; ties share their mean rank), as scipy.stats.rankdata, for short series
    (scipy's costs ~0.4 ms a call, and this runs for every process of a run).

    The ranks do not depend on how ties are ordered, so the fast unstable sort gives the same
    floats as a stable one (5x faster on 20,000 values); only NaNs, each its own "run", would
    be ranked by the sort's order, so a series holding one is sorted stably."""
    order = np.argsort(x, kind="quicksort")
    xs = x[order]
    if len(xs) and xs[-1] != xs[-1]:  # a NaN (sorted last): rank them in index order, as before
        order = np.argsort(x, kind="mergesort")
        xs = x[order]
    # runs of equal values in the sorted array (what np.unique would find, without sorting again)
    new = np.empty(len(xs), dtype=bool)
    new[:1] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    inv = new.cumsum() - 1
    counts = np.bincount(inv)
    avg = np.cumsum(counts) - (counts - 1) / 2
    out = np.empty(len(x))
    out[order] = avg[inv]
    return out


def _segment_median(x: np.ndarray) -> Callable[[tuple[int, int]], float]:
    return lambda s: float(np.median(x[s[0]:s[1]]))


def _drifts(x: np.ndarray, segments: list[tuple[int, int]],
            median: Callable[[tuple[int, int]], float] | None = None) -> bool:
    """Whether x still drifts around its piecewise-constant levels: a trend or a periodic pattern.

    Bartels' rank von Neumann ratio of the residuals from the segment medians: about 2 for
    independent noise, well below 2 when neighbours move together (a trend cut into steps, a
    slow oscillation). Ranks make it indifferent to spikes. One-sided test at z < DRIFT_Z.
    `median`: the segments' medians, if the caller has them (`_classify` does).
    """
    n = len(x)
    if n < 10:
        return False
    median = median or _segment_median(x)
    r = np.concatenate([x[a:b] - median((a, b)) for a, b in segments])
    ranks = rankdata(r)
    den = float(((ranks - ranks.mean()) ** 2).sum())
    if den <= 0:
        return False
    rvn = float((np.diff(ranks) ** 2).sum()) / den
    var = 4 * (n - 2) * (5 * n * n - 2 * n - 9) / (5 * n * (n + 1) * (n - 1) ** 2)
    return (rvn - 2) / math.sqrt(var) < DRIFT_Z


#: two-sided p of Spearman's rank correlation with the iteration index below which the steady
#: segment is still moving (a slow trend that the changepoints cut into a few levels)
TREND_P = 0.001


def _trends(x: np.ndarray) -> bool:
    """Whether the would-be steady segment still trends (Spearman's rho against the index)."""
    n = len(x)
    if n < 8 or np.ptp(x) == 0:
        return False
    # Spearman's rho is Pearson's r of the ranks; its p-value by the t approximation (as scipy's
    # spearmanr), computed directly: this runs once per process
    rx = rankdata(x) - (n + 1) / 2
    ri = np.arange(n) - (n - 1) / 2
    # Plain sums, not BLAS dot products: rx and ri are half-integers, so every product is a
    # multiple of 1/4 and every partial sum is exact in float64 (below 2**51): any order of
    # summation gives the same float. BLAS spun a second thread per call above 10,000 values
    # (~16 ms of CPU each on a busy machine).
    rho = float((rx * ri).sum()) / math.sqrt(float((rx * rx).sum()) * float((ri * ri).sum()))
    if abs(rho) >= 1:
        return True
    t = rho * math.sqrt((n - 2) / (1 - rho * rho))
    return bool(2 * special.stdtr(n - 2, -abs(t)) < TREND_P)


def _oscillates(x: np.ndarray, segments: list[tuple[int, int]],
                median: Callable[[tuple[int, int]], float] | None = None) -> bool:
    """Whether the segment levels go up and down at least twice (a periodic pattern cut into
    levels, which warm-up or a slowdown never does)."""
    if len(segments) < 4:
        return False
    median = median or _segment_median(x)
    levels = np.array([median(s) for s in segments])
    signs = np.sign(np.diff(levels))
    return int((signs[1:] != signs[:-1]).sum()) >= 2


def _classify(x: np.ndarray, sigma: float, ends: list[int], rel_tol: float, min_tail: float
              ) -> tuple[int | None, str]:
    n = len(x)
    bounds = [0] + ends
    segs = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    min_len = max(3, int(math.ceil(0.05 * n)))
    medians: dict[tuple[int, int], float] = {}

    def seg_median(s: tuple[int, int]) -> float:
        if s not in medians:
            medians[s] = float(np.median(x[s[0]:s[1]]))
        return medians[s]

    # short segments after the first are spikes (or dips): each is merged into its left neighbour, except
    # that one right after the first segment joins whichever neighbour is nearer its level (always the left
    # one, a very steady tail cut into short pieces was swallowed, piece by piece, by a short slow first
    # segment). A short FIRST segment is kept: one or two slow first iterations are a real warm-up.
    merged = list(segs)
    i = 1
    while i < len(merged):
        a, b = merged[i]
        if b - a >= min_len or len(merged) == 1:
            i += 1
            continue
        left = merged[i - 1]
        right = merged[i + 1] if i + 1 < len(merged) else None
        level = seg_median((a, b))
        if i == 1 and right is not None and abs(seg_median(right) - level) < abs(seg_median(left) - level):
            merged[i:i + 2] = [(a, right[1])]
        else:
            merged[i - 1:i + 1] = [(left[0], b)]
            i = max(i - 1, 1)

    def same_level(s1: tuple[int, int], s2: tuple[int, int]) -> bool:
        # the tolerance is the error of the segment MEDIANS (which shrinks with their length),
        # not the noise of one iteration: a 5% warm-up over 10 iterations is a real level
        m1, m2 = seg_median(s1), seg_median(s2)
        se = math.hypot(_median_se(sigma, s1[1] - s1[0]), _median_se(sigma, s2[1] - s2[0]))
        return abs(m1 - m2) <= max(rel_tol * abs(m2), SE_TOL * se)

    changed = True
    while changed and len(merged) > 1:
        changed = False
        # merge the most similar neighbours first (the result does not depend on scan order)
        gaps = [abs(seg_median(merged[i]) - seg_median(merged[i + 1])) for i in range(len(merged) - 1)]
        for i in np.argsort(gaps, kind="stable"):
            if same_level(merged[i], merged[i + 1]):
                merged[i] = (merged[i][0], merged[i + 1][1])
                del merged[i + 1]
                changed = True
                break
    if _drifts(x, merged, seg_median) or _oscillates(x, merged, seg_median):
        return None, "no steady state"
    last = merged[-1]
    if _trends(x[last[0]:last[1]]):
        return None, "no steady state"
    if len(merged) == 1:
        return 0, "flat"
    if last[1] - last[0] < max(min_tail * n, 2):
        return None, "no steady state"
    prev = merged[-2]
    return last[0], ("warm-up" if seg_median(prev) > seg_median(last) else "slowdown")


#: values per batch of equal-length series in `steady_states`: the working memory's bound
BATCH_VALUES = 1_000_000
#: a series shorter than this is taken whole ("flat" from its first iteration): too few points
#: to tell a warm-up from noise
MIN_SERIES = 4


def steady_states(series: Sequence[np.ndarray], *, pen_scale: float = 4.0, rel_tol: float = 0.01,
                  min_tail: float = 0.25) -> list[tuple[int | None, str]]:
    """steady_state for many run sequences at once (batched by length: fast for whole runs)."""
    out: list[tuple[int | None, str] | None] = [None] * len(series)
    by_len: dict[int, list[int]] = {}
    xs = [np.asarray(x, dtype=float) for x in series]
    for i, x in enumerate(xs):
        if len(x) < MIN_SERIES:
            out[i] = (0, "flat")
        else:
            by_len.setdefault(len(x), []).append(i)
    # batches of equal-length series (each row is computed alone: batching changes no value),
    # at most BATCH_VALUES each so that long runs need tens of MB, not gigabytes (one batch per
    # thread at a time)
    batches = [(n, idxs[a:a + max(1, BATCH_VALUES // n)]) for n, idxs in by_len.items()
               for a in range(0, len(idxs), max(1, BATCH_VALUES // n))]

    def batch(job: tuple[int, list[int]]) -> None:
        n, idxs = job
        X = np.stack([xs[i] for i in idxs])
        med = np.median(X, axis=1)
        sig = _noise_sd_rows(X, med)
        Z = X - med[:, None]
        del X  # the rows are in xs: a long process is not held three times over
        Z /= sig[:, None]
        pen = pen_scale * math.log(n)
        ends = (changepoints_batch(Z, pen) if n <= EXACT_MAX
                else changepoints_blocks(Z, pen, math.ceil(n / BLOCKS)))
        del Z

        def classify(j: int) -> tuple[int | None, str]:
            return _classify(xs[idxs[j]], float(sig[j]), ends[j], rel_tol, min_tail)

        # each process is classified alone (sorts and medians release the GIL): a lone batch's
        # processes on threads, else the batches themselves are (at most one batch per thread)
        js = list(range(len(idxs)))
        got = _parallel_map(classify, js) if len(batches) == 1 else [classify(j) for j in js]
        for i, r in zip(idxs, got):
            out[i] = r

    _parallel_map(batch, batches)
    return out  # type: ignore[return-value]


def steady_state(x: Sequence[float] | np.ndarray, *, pen_scale: float = 4.0, rel_tol: float = 0.01,
                 min_tail: float = 0.25) -> tuple[int | None, str]:
    """(index where steady state starts or None, class) of one process's run sequence.

    Changepoint analysis: penalised optimal partitioning (the optimum PELT finds; for series
    longer than EXACT_MAX, the optimum over block boundaries, refined: `changepoints_blocks`,
    near-linear in n) with an L2 cost on the series scaled by a robust noise estimate (the MAD of successive differences,
    which a level shift does not inflate), penalty pen_scale * log n per changepoint.
    A series whose residuals from its segment levels still drift (a trend, a periodic pattern:
    the rank von Neumann test, `_drifts`), whose levels go up and down twice or more
    (`_oscillates`), or whose last segment still trends (Spearman, `_trends`) has ``no steady
    state``.
    Then, in the spirit of Barrett et al. 2017 ("Virtual machine warmup blows hot and cold"):
    segments shorter than max(3, 5% of n) iterations, except the first, are treated as spikes
    and merged into their left neighbour (the one right after the first segment into the neighbour
    nearer its level, so a slow first iteration is never merged with a steady tail); neighbouring
    segments whose medians differ by less than max(rel_tol * median, SE_TOL standard errors of the difference of the two medians) are
    merged (the error of a segment's median, sqrt(pi/2) sd / sqrt(length), not one iteration's
    noise: short small warm-ups are kept). One segment left: ``flat`` (steady from 0). Otherwise the last segment is the steady state if it covers at least `min_tail` of the
    iterations, else ``no steady state``; it is ``warm-up`` when faster than the segment before
    it and ``slowdown`` when slower.
    """
    return steady_states([x], pen_scale=pen_scale, rel_tol=rel_tol, min_tail=min_tail)[0]


def process_keys(df: pd.DataFrame) -> list[str]:
    """The columns naming one process: its cell, its number and its run. Two runs of the same
    cell (say two reference runs) both number their processes from 0: without the run, process 0
    of one and process 0 of the other would be taken for one process."""
    return CELL_KEYS + ["process"] + (["run_id"] if "run_id" in df.columns else [])


def _process_series(df: pd.DataFrame) -> tuple[list[tuple], list[np.ndarray], list[np.ndarray], pd.DataFrame]:
    """(process keys (cell keys, process, run_id), valid seconds per process, iteration numbers per
    process, sorted df)."""
    df = df.sort_values(process_keys(df) + ["iteration"], kind="stable")
    valid = df["check_ok"].astype(bool).to_numpy()
    secs = _seconds(df)
    its = df["iteration"].to_numpy()
    keys, xs, itv = [], [], []
    for key, idx in df.groupby(process_keys(df), sort=True).indices.items():
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
        rows.append((*key[:5], len(x), np.nan if start is None else start,
                     np.nan if start is None else it[start], cls))
    return pd.DataFrame(rows, columns=cols)


def _class_summary(classes: Iterable[str]) -> str:
    counts = Counter(classes)
    return ",".join(f"{c}:{counts[c]}" for c in WARMUP_CLASSES if c in counts)


# ----------------------------------------------------------------------------------------------
