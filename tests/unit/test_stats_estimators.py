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


def test_hierarchical_bootstrap_moments():
    """Replicates centre on the grand mean with the two-level bootstrap variance."""
    rng = np.random.default_rng(3)
    x = 1 + rng.normal(0, 0.05, (5, 1)) + rng.normal(0, 0.01, (5, 50))
    reps = stats.bootstrap_means(x, "hierarchical", 20000, 0)
    P, I = x.shape
    between = np.var(x.mean(axis=1))  # plug-in, ddof=0
    within = np.mean(np.var(x, axis=1))
    expected = (between + within / I) / P
    assert reps.mean() == pytest.approx(x.mean(), abs=4 * math.sqrt(expected / 20000))
    assert reps.var() == pytest.approx(expected, rel=0.05)


def test_expanded_interval_factor():
    """With P=5 the percentile deviations are stretched by sqrt(5/4) * t(0.995,4) / z(0.995)."""
    rng = np.random.default_rng(4)
    x = rng.normal(1.0, 0.05, (5, 50))
    reps = stats.bootstrap_means(x, "hierarchical", 5000, 9)
    m, lo, hi = stats.mean_ci(x, "hierarchical", 0.99, reps=reps)
    c = math.sqrt(5 / 4) * sps.t.ppf(0.995, 4) / sps.norm.ppf(0.995)
    qlo, qhi = np.quantile(reps, [0.005, 0.995])
    assert lo == pytest.approx(m - c * (m - qlo)) and hi == pytest.approx(m + c * (qhi - m))


def test_bootstrap_deterministic_and_unbalanced():
    procs = [np.arange(1.0, 11.0), np.arange(5.0, 8.0), np.array([2.0, 4.0])]
    a = stats.bootstrap_means(procs, "hierarchical", 3000, 5)
    b = stats.bootstrap_means(procs, "hierarchical", 3000, 5)
    assert np.array_equal(a, b)
    # weighted by counts: the grand mean of all iterations
    assert a.mean() == pytest.approx(np.concatenate(procs).mean(), rel=0.05)
    assert a.min() >= 1.0 and a.max() <= 10.0


def test_uniform_indices_exact_range_and_uniformity():
    rng = np.random.default_rng(0)
    for h in (1, 3, 7, 50, 1000, 70000):
        a = stats.uniform_indices(rng, h, (100000,))
        assert a.min() >= 0 and a.max() < h
    a = stats.uniform_indices(rng, 7, (700000,))
    counts = np.bincount(a, minlength=7)
    assert sps.chisquare(counts).pvalue > 1e-4


def test_ratio_and_geomean_point_estimates():
    a = [np.array([2.0, 2.2]), np.array([1.8, 2.0])]
    b = [np.array([1.0, 1.1]), np.array([0.9, 1.0])]
    r, lo, hi = stats.ratio_ci(a, b, resamples=2000)
    assert r == pytest.approx(np.concatenate(a).mean() / np.concatenate(b).mean())
    assert lo < r < hi
    g, glo, ghi = stats.geomean_ratio_ci([(a, b), (b, a)], resamples=2000)
    assert g == pytest.approx(1.0) and glo < 1 < ghi


def test_mann_whitney_equals_scipy():
    rng = np.random.default_rng(5)
    for i in range(300):
        n1, n2 = rng.integers(1, 25, 2)
        x = rng.normal(size=n1)
        y = rng.normal(0.7, size=n2)
        if i % 3 == 0:
            x, y = np.round(x, 1), np.round(y, 1)  # ties -> asymptotic with tie correction
        assert stats.mann_whitney_p(x, y) == pytest.approx(sps.mannwhitneyu(x, y).pvalue, rel=1e-9, abs=1e-12)


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


def test_changepoints_equal_ruptures_pelt():
    rpt = pytest.importorskip("ruptures")
    rng = np.random.default_rng(6)
    for _ in range(30):
        z = rng.normal(size=60)
        z[rng.integers(5, 55):] += rng.choice([0.0, 3.0, 6.0])
        pen = 4 * math.log(60)
        assert stats.changepoints(z, pen) == rpt.Pelt(model="l2", min_size=1, jump=1).fit(z).predict(pen=pen)


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
    s = stats.summarize_cells(df, resamples=500)
    assert s.loc[0, "outliers"] >= 1
    assert s.loc[0, "n"] == 60  # kept
    assert s.loc[0, "mean_s"] == pytest.approx(df["wall_ns"].mean() / 1e9)


def test_summarize_cells_columns_invalid_and_direct_values():
    df = simdata.simulate_run(benchmarks=2, engines=("a", "b"), processes=5, iterations=20, seed=4)
    df.loc[df.index[:3], "check_ok"] = False
    s = stats.summarize_cells(df, resamples=1000)
    first = ["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
             "ci_high_s", "median_s"]
    assert list(s.columns[:10]) == first
    for col in ("std_s", "n", "method", "confidence", "warmup", "outliers", "invalid"):
        assert col in s.columns
    row = s.iloc[0]
    assert row["invalid"] == 3 and row["n"] == 97 and row["method"] == "hierarchical"
    cell = df[(df.benchmark == row.benchmark) & (df.engine == row.engine) & df.check_ok]
    secs = cell["wall_ns"].to_numpy() / 1e9
    assert row["mean_s"] == pytest.approx(secs.mean())
    assert row["median_s"] == pytest.approx(np.median(secs))
    assert row["std_s"] == pytest.approx(secs.std(ddof=1))
    assert row["ci_low_s"] < row["mean_s"] < row["ci_high_s"]
    assert row["warmup"] == "flat:5"
    for method in ("pooled-t", "process-t"):
        assert (stats.summarize_cells(df, method=method)["method"] == method).all()


def test_steady_state_summary_uses_only_steady_iterations():
    df = simdata.simulate_run(benchmarks=1, engines=("e",), processes=5, iterations=50, warmup=5, seed=5)
    all_ = stats.summarize_cells(df, resamples=500).iloc[0]
    ss = stats.summarize_cells(df, resamples=500, steady_state=True).iloc[0]
    assert all_["n"] == 250 and ss["n"] == 225 and ss["iterations"] == 45
    assert ss["mean_s"] < all_["mean_s"]
    assert ss["used"] == "steady-state" and ss["warmup"] == "warm-up:5"


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


@pytest.mark.parametrize("shape", [(5, 50), (4, 7), (3, 300), (2, 1)])
def test_balanced_bootstrap_moments_all_paths(shape):
    """Pair table (even and odd I), single draws (large I) and I = 1 all give the two-level variance."""
    rng = np.random.default_rng(8)
    P, I = shape
    x = 1 + rng.normal(0, 0.05, (P, 1)) + rng.normal(0, 0.02, (P, I))
    reps = stats.bootstrap_means(x, "hierarchical", 20000, 3)
    between = np.var(x.mean(axis=1))
    within = np.mean(np.var(x, axis=1))
    expected = (between + within / I) / P
    assert reps.mean() == pytest.approx(x.mean(), abs=5 * math.sqrt(expected / 20000))
    assert reps.var() == pytest.approx(expected, rel=0.05)
    assert np.array_equal(reps, stats.bootstrap_means(x, "hierarchical", 20000, 3))


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
