"""The course's experiments show what they claim (small sizes: seconds)."""
from __future__ import annotations

from harness.studies import course


def test_coverage_pooled_t_undercovers_where_process_level_does_not():
    cov = course.coverage(designs=((5, 50),), methods=("pooled-t", "process-t"), sets=100).set_index("method")
    assert cov.loc["pooled-t", "coverage"] < 0.6 < 0.95 <= cov.loc["process-t", "coverage"]


def test_blocked_order_is_biased_under_drift_and_interleaved_is_not():
    d = course.drift_experiment(trials=100).set_index("order")
    assert d.loc["blocked", "mean estimated ratio B/A"] > 1.03
    assert abs(d.loc["interleaved", "mean estimated ratio B/A"] - 1) < 0.02


def test_arithmetic_mean_of_ratios_flips_with_the_baseline_and_geometric_does_not():
    m = course.mean_of_ratios([2, 10, 5], [8, 2, 5])
    assert list(m["arithmetic verdict"]) == ["B slower", "A slower"]  # each slower than the other
    assert list(m["geometric verdict"]) == ["B faster", "A slower"]   # consistent
    assert abs(m["geometric mean"].prod() - 1) < 1e-12


def test_skewed_interval_and_plus_minus_disagree():
    s = course.skewed_interval(resamples=1000).set_index("written as")
    assert abs(s.loc["[low, high]", "claims low"] - s.loc["value ± half-width", "claims low"]) > 0.05


def test_precision_depends_on_processes_and_batching():
    p = course.precision_by_design(reps=200)
    five = p[p["processes"] == 5]["sd of the estimate (%)"]
    assert five.max() / five.min() < 1.3  # 10x more iterations: no better
    assert p[p["processes"] == 50]["sd of the estimate (%)"].iloc[0] < 0.5 * five.min()
    assert course.batch_for_overhead(50, 100) == 200


def test_cell_means_pair_cells_by_benchmark_and_parameters(tmp_path):
    """Section 6's means come from the cached series: one mean per cell both engines ran, cells
    with different parameters (index settings) kept apart, other runtimes left out."""
    import numpy as np
    import pandas as pd

    from harness import store
    from harness.analysis.series import load_series

    rows = []
    for params, engine, runtime, times in [("indexes=off", "a", "cpython3.11", [1.0, 3.0]),
                                           ("indexes=off", "b", "cpython3.11", [4.0, 4.0]),
                                           ("indexes=on", "a", "cpython3.11", [10.0, 10.0]),
                                           ("indexes=on", "b", "cpython3.11", [5.0, 5.0]),
                                           ("indexes=on", "c", "cpython3.11", [1.0, 1.0]),
                                           ("indexes=off", "a", "pypy3.9", [100.0, 100.0])]:
        for i, t in enumerate(times):
            rows.append({"benchmark": "tpch.q01", "params": params, "engine": engine, "runtime": runtime,
                         "process": 0, "iteration": i, "wall_ns": int(t * 1e9)})
    rows.append({"benchmark": "bindings.x", "params": "", "engine": "a", "runtime": "cpython3.11", "process": 0,
                 "iteration": 0, "wall_ns": 7})
    run = store.write_imported_run(tmp_path, pd.DataFrame(rows), {"source": "test"})
    a, b, names = course.cell_means(load_series([run], use_cache=False), "tpch.", "a", "b")
    assert names == ["tpch.q01 [indexes=off]", "tpch.q01 [indexes=on]"]
    assert np.allclose(a, [2.0, 10.0]) and np.allclose(b, [4.0, 5.0])
