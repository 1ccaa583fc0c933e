"""Estimators against direct numpy/scipy computations on known data."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from harness.analysis import simdata, stats


def test_pooled_t_matches_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(1.0, 0.1, size=(5, 50))
    m, lo, hi = stats.mean_ci(x, "pooled-t", 0.99)
    flat = x.ravel()
    slo, shi = sps.t.interval(0.99, len(flat) - 1, loc=flat.mean(), scale=sps.sem(flat))
    assert m == pytest.approx(flat.mean()) and lo == pytest.approx(slo) and hi == pytest.approx(shi)


def test_process_t_matches_scipy():
    rng = np.random.default_rng(2)
    x = rng.normal(1.0, 0.1, size=(5, 50))
    pm = x.mean(axis=1)
    m, lo, hi = stats.mean_ci(x, "process-t", 0.95)
    slo, shi = sps.t.interval(0.95, 4, loc=pm.mean(), scale=sps.sem(pm))
    assert (m, lo, hi) == pytest.approx((pm.mean(), slo, shi))


def test_process_bootstrap_moments():
    """Replicates are means of P resampled process means: centre and plug-in variance known."""
    rng = np.random.default_rng(3)
    x = 1 + rng.normal(0, 0.05, (5, 1)) + rng.normal(0, 0.01, (5, 50))
    reps = stats.bootstrap_means(x, "process-bootstrap", 20000, 0)
    pm = x.mean(axis=1)
    expected = np.var(pm) / 5  # plug-in (ddof=0) variance of the mean of 5 resampled values
    assert reps.mean() == pytest.approx(pm.mean(), abs=4 * math.sqrt(expected / 20000))
    assert reps.var() == pytest.approx(expected, rel=0.05)
    assert np.array_equal(reps, stats.bootstrap_means(x, "process-bootstrap", 20000, 0))


def test_process_bootstrap_interval_is_log_t():
    """exp(log m -+ t(P-1) sd), sd^2 = P/(P-1) var(log replicates): close to the delta-method
    process-t interval on the log scale; bounds positive even when process-t's are not."""
    rng = np.random.default_rng(4)
    x = rng.normal(1.0, 0.05, (5, 50))
    cb = stats.cell_boot(x, "process-bootstrap", 20000, 9)
    m, lo, hi = stats.mean_ci(x, "process-bootstrap", 0.99, 20000, 9)
    sd = math.sqrt(np.var(np.log(cb.reps)) * 5 / 4)
    t = sps.t.ppf(0.995, 4)
    assert m == pytest.approx(x.mean(axis=1).mean())
    assert lo == pytest.approx(m * math.exp(-t * sd)) and hi == pytest.approx(m * math.exp(t * sd))
    pm = x.mean(axis=1)
    delta = sps.sem(pm) / pm.mean()
    assert (lo, hi) == pytest.approx((m * math.exp(-t * delta), m * math.exp(t * delta)), rel=0.01)
    # a cell so noisy that the linear t interval crosses zero: positive bounds, and process-t says why not
    y = [np.array([v]) for v in (0.1, 1.0, 3.0)]
    m, lo, hi = stats.mean_ci(y, "process-bootstrap", 0.99, 5000, 1)
    assert 0 < lo < m < hi
    _, plo, _ = stats.t_interval(np.array([0.1, 1.0, 3.0]), 0.99)
    assert plo < 0 and np.isnan(stats.mean_ci(y, "process-t")[1])


def test_too_few_processes_no_interval_and_a_note():
    for P in (1, 2):
        x = np.random.default_rng(P).normal(1, 0.1, (P, 20))
        cb = stats.cell_boot(x, "process-bootstrap", 1000, 0)
        m, lo, hi, note = stats.cell_interval(cb, "process-bootstrap", 0.99)
        assert m == pytest.approx(x.mean()) and np.isnan(lo) and np.isnan(hi)
        assert f"{P} process" in note and "at least 3" in note
    x3 = np.random.default_rng(3).normal(1, 0.1, (3, 20))
    assert np.isfinite(stats.mean_ci(x3)[1])


def test_effective_df_is_processes_minus_one():
    rng = np.random.default_rng(12)
    assert stats.effective_df([rng.normal(1, 0.1, 20) for _ in range(5)]) == 4.0
    assert stats.effective_df([rng.normal(1, 0.1, n) for n in (200, 10, 5, 3, 2)]) == 4.0
    cb = stats.cell_boot([rng.normal(1, 0.1, n) for n in (200, 10, 5, 3, 2)], "process-bootstrap", 500, 0)
    assert cb.df == 4.0


def test_bootstrap_deterministic_and_unbalanced():
    procs = [np.arange(1.0, 11.0), np.arange(5.0, 8.0), np.array([2.0, 4.0])]
    a = stats.bootstrap_means(procs, "process-bootstrap", 3000, 5)
    b = stats.bootstrap_means(procs, "process-bootstrap", 3000, 5)
    assert np.array_equal(a, b)
    # each process counts once, whatever its iterations: the mean of the process means
    assert a.mean() == pytest.approx(np.mean([p.mean() for p in procs]), rel=0.02)
    assert a.min() >= 3.0 and a.max() <= 6.0


def test_uniform_indices_exact_range_and_uniformity():
    rng = np.random.default_rng(0)
    for h in (1, 3, 7, 50, 1000, 70000):
        a = stats.uniform_indices(rng, h, (100000,))
        assert a.min() >= 0 and a.max() < h
    a = stats.uniform_indices(rng, 7, (700000,))
    counts = np.bincount(a, minlength=7)
    assert sps.chisquare(counts).pvalue > 1e-4


def test_ratio_and_geomean_point_estimates_and_welch_satterthwaite():
    a = [np.array([2.0, 2.2]), np.array([1.8, 2.0]), np.array([2.1, 2.3])]
    b = [np.array([1.0, 1.1]), np.array([0.9, 1.0]), np.array([1.05, 0.95]), np.array([1.0, 1.2])]
    r, lo, hi = stats.ratio_ci(a, b, resamples=2000)
    pa, pb = np.array([p.mean() for p in a]), np.array([p.mean() for p in b])
    assert r == pytest.approx(pa.mean() / pb.mean())
    assert 0 < lo < r < hi
    # the same from the cells' parts: var = sum of log variances, Welch-Satterthwaite df
    rng = np.random.default_rng(0)
    ca, cb = stats.cell_boot(a, "process-bootstrap", 2000, rng), stats.cell_boot(b, "process-bootstrap", 2000, rng)
    v = ca.log_var + cb.log_var
    df = v**2 / (ca.log_var**2 / 2 + cb.log_var**2 / 3)
    h = sps.t.ppf(0.995, df) * math.sqrt(v)
    assert (lo, hi) == pytest.approx((r * math.exp(-h), r * math.exp(h)))
    g, glo, ghi = stats.geomean_ratio_ci([(a, b), (b, a)], resamples=2000)
    assert g == pytest.approx(1.0) and glo < 1 < ghi
    # a side with two processes: no interval for the ratio either
    assert np.isnan(stats.ratio_ci(a[:2], b)[1])


def test_mann_whitney_exact_equals_scipy_without_ties():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n1, n2 = rng.integers(1, 51, 2)
        x, y = rng.normal(size=n1), rng.normal(0.5, size=n2)
        want = sps.mannwhitneyu(x, y, method="exact").pvalue
        assert stats.mann_whitney_p(x, y) == pytest.approx(want, rel=1e-9, abs=1e-14)


def test_mann_whitney_exact_with_ties_equals_enumeration():
    """With ties (<= 25 per side) the p-value is the permutation distribution given the ties:
    checked against enumerating every split (go-moremath's UDist computes the same counts)."""
    import itertools

    rng = np.random.default_rng(6)
    for _ in range(120):
        n1, n2 = rng.integers(1, 7, 2)
        x, y = rng.integers(0, 4, n1).astype(float), rng.integers(0, 4, n2).astype(float)
        xy = np.r_[x, y]
        if len(np.unique(xy)) == 1:
            assert stats.mann_whitney_p(x, y) == 1.0  # benchstat: test meaningless, p = 1
            continue
        r = sps.rankdata(xy)
        u1 = r[:n1].sum() - n1 * (n1 + 1) / 2
        us = np.array([r[list(c)].sum() - n1 * (n1 + 1) / 2 for c in itertools.combinations(range(n1 + n2), n1)])
        want = 1.0 if u1 == n1 * n2 - u1 else 2 * np.mean(us <= min(u1, n1 * n2 - u1) + 1e-9)  # may exceed 1, as go-moremath
        assert stats.mann_whitney_p(x, y) == pytest.approx(want, abs=1e-12)


def test_mann_whitney_normal_beyond_benchstat_limits():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=60), rng.normal(0.3, size=55)  # > 50: normal approximation
    want = sps.mannwhitneyu(x, y, method="asymptotic", use_continuity=True).pvalue
    assert stats.mann_whitney_p(x, y) == pytest.approx(want, rel=1e-9)
    x, y = np.round(rng.normal(size=30), 1), np.round(rng.normal(size=26), 1)  # ties, > 25
    want = sps.mannwhitneyu(x, y, method="asymptotic", use_continuity=True).pvalue
    assert stats.mann_whitney_p(x, y) == pytest.approx(want, rel=1e-9)


def test_median_ci_follows_benchstat_rule():
    # n=6 at 95%: P(X(1) < median < X(6)) = 1 - 2/64 = 0.96875 is the first to reach 0.95
    assert stats.quantile_ci_orders(6, 0.5, 0.95)[:2] == (1, 6)
    # n=5: [X(1), X(5)] has only 0.9375, so the left-biased walk takes the interval below X(1):
    # orders (0, 5), i.e. (-inf, max] -> "±∞" (benchstat: "need >= 6 samples")
    assert stats.quantile_ci_orders(5, 0.5, 0.95)[:2] == (0, 5)
    m, a, b = stats.median_ci([5, 1, 4, 2, 3], 0.95)
    assert m == 3 and a == -math.inf and b == 5
    assert math.isinf(stats.pct_range(m, a, b))
    # exact binomial (n <= 30) and the normal approximation (n > 30) give order statistics whose
    # achieved confidence reaches the request
    for n in (6, 10, 20, 30, 31, 50, 200):
        lo, hi, conf = stats.quantile_ci_orders(n, 0.5, 0.95)
        exact = sps.binom.cdf(hi - 1, n, 0.5) - sps.binom.cdf(lo - 1, n, 0.5)
        assert exact >= 0.95 - 0.01, (n, lo, hi)
        assert conf >= 0.95
    assert stats.pct_range(100.0, 96.0, 103.0) == pytest.approx(4.0)


def _optimal_partitioning(z: np.ndarray, pen: float) -> list[int]:
    """The exact optimum of the penalised L2 cost by dynamic programming over every split (Jackson
    et al. 2005's optimal partitioning, O(n^2)): what PELT finds faster, by pruning. Breakpoints
    are segment ends, the last one n, as ruptures' `predict` gives them."""
    n = len(z)
    c1 = np.r_[0.0, np.cumsum(z)]
    c2 = np.r_[0.0, np.cumsum(z * z)]

    def cost(a: int, b: int) -> float:
        s = c1[b] - c1[a]
        return float(c2[b] - c2[a] - s * s / (b - a))

    best = [0.0] + [math.inf] * n
    last = [0] * (n + 1)
    for t in range(1, n + 1):
        for s_ in range(t):
            v = best[s_] + cost(s_, t) + (pen if s_ else 0.0)
            if v < best[t]:
                best[t], last[t] = v, s_
    ends, t = [], n
    while t > 0:
        ends.append(t)
        t = last[t]
    return sorted(ends)


def test_changepoints_are_the_exact_penalised_optimum():
    """Our PELT against the brute-force optimum it must equal (ruptures' Pelt(model="l2",
    min_size=1, jump=1) gave the same on these data when it was a dependency)."""
    rng = np.random.default_rng(6)
    for _ in range(30):
        z = rng.normal(size=60)
        z[rng.integers(5, 55):] += rng.choice([0.0, 3.0, 6.0])
        pen = 4 * math.log(60)
        assert stats.changepoints(z, pen) == _optimal_partitioning(z, pen)


def test_warmup_classes():
    rng = np.random.default_rng(8)
    noise = lambda: rng.normal(0, 0.01, 50)  # noqa: E731
    assert stats.steady_state(1 + noise()) == (0, "flat")
    assert stats.steady_state(np.r_[np.full(5, 2.0), np.ones(45)] + noise()) == (5, "warm-up")
    start, cls = stats.steady_state(np.r_[np.ones(25), np.full(25, 1.2)] + noise())
    assert (start, cls) == (25, "slowdown")
    assert stats.steady_state(np.linspace(1, 2, 50) + noise())[1] == "no steady state"
    # a lone spike mid-run is not a changepoint
    x = 1 + noise()
    x[30] = 3.0
    assert stats.steady_state(x)[1] == "flat"


def test_a_slow_first_iteration_before_a_very_steady_tail_is_warm_up_not_flat():
    # an acid-state process of E5 (ms): the changepoints cut its very steady tail into short pieces, which were
    # merged one by one into the slow first iteration until the whole series was "flat" and its mean 36x its
    # steady state; a short piece now joins the neighbour nearer its level
    x = np.array([49.651, 0.189, 0.15, 0.148, 0.144, 0.141, 0.139, 0.147, 0.144, 0.141]) / 1e3
    start, cls = stats.steady_state(x)
    assert cls == "warm-up" and 1 <= start <= 4
    x = np.array([73.411, 0.313, 0.313, 0.265, 0.223, 0.207, 0.226, 0.236, 0.26, 0.451]) / 1e3
    assert stats.steady_state(x) == (1, "warm-up")
    # a spike in the middle of a flat series still merges away, and a two-iteration warm-up stays two
    assert stats.steady_state(np.r_[np.ones(10), 5.0, np.ones(10)] / 1e3) == (0, "flat")
    assert stats.steady_state(np.r_[10, 9.5, np.tile([1, 1.01, 1, 0.99], 3)] / 1e3) == (2, "warm-up")


def test_small_warmup_kept_by_median_error_tolerance():
    """A 5% warm-up over 10 of 50 iterations with 2% noise: small against one iteration's noise
    (the old tolerance, 2 noise sd, merged it into flat), large against the standard error of the
    two segments' medians (~5.7 of them)."""
    rng = np.random.default_rng(28)
    found = [stats.steady_state(np.r_[np.full(10, 1.05), np.ones(40)] + rng.normal(0, 0.02, 50)) for _ in range(100)]
    assert sum(s is not None and abs(s - 10) <= 1 and c == "warm-up" for s, c in found) >= 80
    flat = [stats.steady_state(1 + rng.normal(0, 0.02, 50))[1] for _ in range(100)]
    assert flat.count("flat") >= 95


def test_trend_and_periodic_have_no_steady_state():
    rng = np.random.default_rng(18)
    i = np.arange(50)
    for _ in range(20):
        periodic = 1 + 0.1 * np.sin(2 * np.pi * i / 10) + rng.normal(0, 0.02, 50)
        assert stats.steady_state(periodic) == (None, "no steady state")
        square = 1 + 0.1 * ((i // 6) % 2) + rng.normal(0, 0.02, 50)
        assert stats.steady_state(square) == (None, "no steady state")
    trend = [stats.steady_state(np.linspace(1, 1.5, 50) + rng.normal(0, 0.02, 50))[1] for _ in range(20)]
    assert trend.count("no steady state") >= 19


def test_warmup_analysis_per_process():
    df = simdata.simulate_run(benchmarks=1, engines=("e",), processes=3, iterations=40, warmup=4, seed=2)
    w = stats.warmup_analysis(df)
    assert list(w["warmup"]) == ["warm-up"] * 3
    assert list(w["steady_start"]) == [4, 4, 4]


def test_outliers_flagged_not_removed():
    df = simdata.simulate_run(benchmarks=1, engines=("e",), processes=2, iterations=30, seed=3)
    df.loc[5, "wall_ns"] = int(df["wall_ns"].median() * 10)
    flags = stats.flag_outliers(df)
    assert flags.loc[5]
    s = stats.summarize_cells(df, resamples=500, steady_state=False)
    assert s.loc[0, "outliers"] >= 1
    assert s.loc[0, "n"] == 60  # kept
    assert s.loc[0, "mean_s"] == pytest.approx(df["wall_ns"].mean() / 1e9)


def test_summarize_cells_columns_invalid_and_direct_values():
    df = simdata.simulate_run(benchmarks=2, engines=("a", "b"), processes=5, iterations=20, seed=4)
    df.loc[df.index[:3], "check_ok"] = False
    s = stats.summarize_cells(df, resamples=1000, steady_state=False)
    first = ["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
             "ci_high_s", "median_s"]
    assert list(s.columns[:10]) == first
    for col in ("std_s", "n", "method", "confidence", "warmup", "outliers", "invalid", "no_steady", "note", "df"):
        assert col in s.columns
    row = s.iloc[0]
    assert row["invalid"] == 3 and row["n"] == 97 and row["method"] == "process-bootstrap"
    cell = df[(df.benchmark == row.benchmark) & (df.engine == row.engine) & df.check_ok]
    secs = cell["wall_ns"].to_numpy() / 1e9
    assert row["mean_s"] == pytest.approx(cell.groupby("process")["wall_ns"].mean().mean() / 1e9)
    assert row["median_s"] == pytest.approx(np.median(secs))
    assert row["std_s"] == pytest.approx(secs.std(ddof=1))
    assert row["ci_low_s"] < row["mean_s"] < row["ci_high_s"]
    assert row["warmup"] == "flat:5"
    for method in ("pooled-t", "process-t"):
        assert (stats.summarize_cells(df, method=method)["method"] == method).all()


def test_steady_state_is_the_default_and_all_iterations_disagree():
    df = simdata.simulate_run(benchmarks=1, engines=("e",), processes=5, iterations=50, warmup=5, seed=5)
    ss = stats.summarize_cells(df, resamples=500).iloc[0]
    all_ = stats.summarize_cells(df, resamples=500, steady_state=False).iloc[0]
    assert all_["n"] == 250 and ss["n"] == 225 and ss["iterations"] == 45
    assert ss["mean_s"] < all_["mean_s"]
    assert ss["used"] == "steady-state" and ss["warmup"] == "warm-up:5" and ss["no_steady"] == 0
    # each shows the other, and they disagree (3x slower first 5 iterations move the mean ~20%)
    assert ss["alt_used"] == "all" and ss["alt_mean_s"] == pytest.approx(all_["mean_s"])
    assert ss["disagree"] and all_["disagree"]
    flat = simdata.simulate_run(benchmarks=1, engines=("e",), processes=5, iterations=50, seed=5)
    assert not stats.summarize_cells(flat, resamples=500)["disagree"].any()


def test_processes_without_steady_state_counted_and_kept():
    df = simdata.simulate_run(benchmarks=1, engines=("e",), processes=4, iterations=50, seed=5)
    trend = df["process"] == 0
    df.loc[trend, "wall_ns"] *= np.linspace(1, 1.6, 50)
    s = stats.summarize_cells(df, resamples=500).iloc[0]
    assert s["no_steady"] == 1 and "no steady state:1" in s["warmup"]
    assert s["n"] >= 50  # the drifting process keeps all of its iterations


def test_ratio_summary_geomean_rows():
    df = simdata.simulate_run(benchmarks=3, engines=("base", "x"), seed=6,
                              true_means={(f"bench{k:02d}", e): (2.0 if e == "x" else 1.0) * 0.01 for k in range(3)
                                          for e in ("base", "x")})
    r = stats.ratio_summary(df, "base", resamples=1000)
    geo = r[(r.benchmark == "geomean") & (r.engine == "x")].iloc[0]
    cells = r[(r.benchmark != "geomean") & (r.engine == "x")]
    assert geo["ratio"] == pytest.approx(np.exp(np.log(cells["ratio"]).mean()))
    assert geo["ratio_ci_low"] < 2.0 < geo["ratio_ci_high"]


def test_plot_run_sequence_smoke():
    import matplotlib

    matplotlib.use("Agg")
    from harness.analysis.figures.warmup import plot_run_sequence

    df = simdata.simulate_run(benchmarks=1, engines=("e",), processes=2, iterations=30, warmup=3, seed=9)
    ax = plot_run_sequence(df)
    assert len(ax.lines) >= 2 and "warm-up" in ax.get_legend_handles_labels()[1][0]


def test_run_sequence_legend_names_classes_once_processes_are_many():
    """Past LEGEND_PROCESSES the legend lists each warm-up class with its count (every process is
    still drawn, in its own colour), so thirty entries never cover the data."""
    import matplotlib

    matplotlib.use("Agg")
    from harness.analysis.figures.warmup import LEGEND_PROCESSES, plot_run_sequence

    df = simdata.simulate_run(benchmarks=1, engines=("e",), processes=LEGEND_PROCESSES + 4, iterations=30, warmup=3,
                              seed=9)
    ax = plot_run_sequence(df)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    counts = stats.warmup_analysis(df)["warmup"].value_counts()
    assert len(ax.lines) >= LEGEND_PROCESSES + 4 and len(labels) == len(counts)
    assert sorted(labels) == sorted(f"{k} ({n} processes)" for k, n in counts.items())
    assert sum(int(t.split("(")[1].split()[0]) for t in labels) == LEGEND_PROCESSES + 4


def test_table_identical_for_any_thread_count(monkeypatch):
    """Each cell has its own generator: 1 thread and several threads give a bit-identical table."""
    df = simdata.simulate_run(benchmarks=3, engines=("a", "b"), processes=5, iterations=21, seed=7)
    out = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(stats.parallel, "THREADS", threads)
        out.append(stats.ratio_summary(df, "a", resamples=3000, seed=11))
    pd.testing.assert_frame_equal(out[0], out[1], check_exact=True)
    pd.testing.assert_frame_equal(out[0], out[2], check_exact=True)
    monkeypatch.setattr(stats.parallel, "THREADS", 2)
    s1 = stats.summarize_cells(df, resamples=3000, seed=11)
    monkeypatch.setattr(stats.parallel, "THREADS", 1)
    pd.testing.assert_frame_equal(s1, stats.summarize_cells(df, resamples=3000, seed=11), check_exact=True)


@pytest.mark.parametrize("P", [3, 5, 20, 200])
def test_process_bootstrap_moments_all_sizes(P):
    rng = np.random.default_rng(8)
    x = 1 + rng.normal(0, 0.05, (P, 1)) + rng.normal(0, 0.02, (P, 7))
    reps = stats.bootstrap_means(x, "process-bootstrap", 20000, 3)
    pm = x.mean(axis=1)
    expected = np.var(pm) / P
    assert reps.mean() == pytest.approx(pm.mean(), abs=5 * math.sqrt(expected / 20000))
    assert reps.var() == pytest.approx(expected, rel=0.05)


def test_fill_uniform_exact_with_rejections():
    """Values come out uniform on [0, h) including the redrawn ones, offset by the base."""
    rng = np.random.default_rng(9)
    for h in (3, 50, 2500, 40000, 70001):
        base = np.arange(4) * h
        out = np.empty((50000, 4), dtype=np.intp)
        stats.resample._fill_uniform(rng, h, base, out)
        u = out - base
        assert u.min() >= 0 and u.max() < h
    out = np.empty((600000, 1), dtype=np.intp)
    stats.resample._fill_uniform(rng, 40000, np.zeros(1, dtype=np.intp), out)
    counts = np.bincount(out.ravel() // 4000, minlength=10)  # 40000 = 10 bins of 4000
    assert sps.chisquare(counts).pvalue > 1e-4


def test_fast_ranks_equal_scipy():
    from harness.analysis.stats.warmup import rankdata

    rng = np.random.default_rng(10)
    for _ in range(200):
        x = np.round(rng.normal(size=rng.integers(1, 80)), 1)  # ties
        assert np.array_equal(rankdata(x), sps.rankdata(x))
