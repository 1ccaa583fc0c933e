"""The planner: variance components against known truth, Kalibera & Jones's optimum, costs."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from harness import store
from harness.analysis import simdata
from harness.analysis.planner import (MIN_PROCESSES, Components, costs_per_cell, optimal_iterations, plan_cell,
                                      plan_runs, predicted_half_width, variance_components)
from harness.cli import main


def _two_level(rng, P, n, s2b, s2w, mean=10.0):
    return [mean + rng.normal(0, math.sqrt(s2b)) + rng.normal(0, math.sqrt(s2w), n) for _ in range(P)]


def test_kalibera_jones_optimum_known_value():
    # n* = sqrt(c_proc s2_w / (c_iter s2_b)) = sqrt(1 * 100 / (0.01 * 4)) = 50
    assert optimal_iterations(1.0, 0.01, 100.0, 4.0) == 50
    assert optimal_iterations(4.0, 0.01, 100.0, 4.0) == 100  # 4x the start cost: 2x the iterations
    assert optimal_iterations(1.0, 0.01, 100.0, 4.0, max_iterations=20) == 20


def test_plan_is_kj_optimum_and_fewest_processes_meeting_target():
    c = Components(mean=10.0, s2_between=4.0, s2_within=100.0, processes=5, iterations=50, c_proc=1.0, c_iter=0.01)
    p = plan_cell(c, target=0.05)
    assert p.iterations == 50
    H = 0.05 * 10.0

    def hw(P):
        return sps.t.ppf(0.995, P - 1) * math.sqrt((4.0 + 100.0 / 50) / P)

    assert hw(p.processes) <= H < hw(p.processes - 1)
    assert p.machine_s == pytest.approx(p.processes * (1.0 + 50 * 0.01))
    assert p.reachable and p.half_width <= 0.05
    # with the t quantile replaced by z the cost of reaching a fixed variance is minimal at n*
    costs = {n: (1.0 + n * 0.01) * (4.0 + 100.0 / n) for n in range(1, 400)}
    assert min(costs, key=costs.get) == 50


def test_no_between_process_variance_gives_fewest_processes():
    # starting a process costs far more than any iteration: use the fewest processes, precision from iterations
    c = Components(mean=1.0, s2_between=0.0, s2_within=0.01, processes=5, iterations=50, c_proc=1000.0, c_iter=1e-6)
    p = plan_cell(c, target=0.01)
    t = sps.t.ppf(0.995, MIN_PROCESSES - 1)
    assert p.processes == MIN_PROCESSES
    assert p.iterations == math.ceil(t**2 * 0.01 / (MIN_PROCESSES * 0.01**2))
    assert p.half_width <= 0.01 < predicted_half_width(c, p.processes, p.iterations - 1)
    assert "no between-process variance" in p.note


def test_budget_too_small_is_reported():
    c = Components(mean=10.0, s2_between=4.0, s2_within=100.0, processes=5, iterations=50, c_proc=1.0, c_iter=0.01)
    p = plan_cell(c, target=0.05, budget_s=30.0)
    assert not p.reachable and "20 processes" in p.note  # 30 s / 1.5 s per process


def test_variance_components_recover_known_values():
    rng = np.random.default_rng(0)
    est = np.array([variance_components(_two_level(rng, 30, 20, 4.0, 100.0))[1:] for _ in range(400)])
    assert est[:, 0].mean() == pytest.approx(4.0, rel=0.1)  # method of moments: unbiased (before truncation)
    assert est[:, 1].mean() == pytest.approx(100.0, rel=0.02)
    one = variance_components(_two_level(np.random.default_rng(1), 400, 50, 4.0, 100.0))
    assert one[1] == pytest.approx(4.0, rel=0.25) and one[2] == pytest.approx(100.0, rel=0.03)


def test_variance_components_unbalanced_and_degenerate():
    rng = np.random.default_rng(2)
    procs = [10 + rng.normal(0, 2.0) + rng.normal(0, 1.0, n) for n in rng.integers(5, 60, 300)]
    _, s2b, s2w = variance_components(procs)
    assert s2b == pytest.approx(4.0, rel=0.2) and s2w == pytest.approx(1.0, rel=0.05)
    assert math.isnan(variance_components([np.array([1.0, 2.0])])[1])  # one process: no between estimate
    assert math.isnan(variance_components([np.array([1.0]), np.array([2.0])])[2])  # no within df
    m, s2b, s2w = variance_components([np.full(5, 3.0), np.full(5, 3.0)])
    assert (m, s2b, s2w) == (3.0, 0.0, 0.0)


def _write_run(tmp_path, df, life_extra_s, run_id="sim"):
    """A run directory from simulated timings; each process lives its timed seconds + life_extra_s."""
    from harness.protocol import RAW_COLUMNS
    from harness.run.manifest import base_manifest

    df = df.assign(run_id=run_id)
    run_dir = store.create_run_dir(tmp_path, run_id)
    base_manifest(run_id, None).write(run_dir)
    for seq, g in df.groupby("seq"):
        rows = {c: g[c].tolist() for c in RAW_COLUMNS}
        rows["crossings"] = [None] * len(g)
        rows["values_converted"] = [None] * len(g)
        store.write_timings(run_dir, int(seq), rows)
        timed = g["wall_ns"].sum() / 1e9
        store.write_process_record(run_dir, int(seq), {
            "benchmark": g["benchmark"].iloc[0], "params": "", "engine": g["engine"].iloc[0],
            "runtime": g["runtime"].iloc[0], "runtime_family": "cpython", "process": int(g["process"].iloc[0]),
            "status": "ok", "reason": "", "started": 1000.0, "ended": 1000.0 + timed + life_extra_s,
            "timings_file": f"timings/{int(seq):06d}.parquet"})
    return run_dir


def test_costs_and_plan_from_a_run(tmp_path, capsys):
    df = simdata.simulate_run(benchmarks=1, engines=("a",), processes=8, iterations=30, between=0.05,
                              within=0.02, seed=3)
    run_dir = _write_run(tmp_path, df, life_extra_s=0.5)
    raw, procs = store.load_runs([run_dir]), store.load_process_records([run_dir])
    (key, (c_proc, c_iter, spent)), = costs_per_cell(raw, procs).items()
    assert c_proc == pytest.approx(0.5, abs=1e-6)
    assert c_iter == pytest.approx(df["wall_ns"].mean() / 1e9)
    plan = plan_runs([run_dir], 0.02)
    assert len(plan) == 1 and plan["processes"].iloc[0] >= MIN_PROCESSES and plan["reachable"].iloc[0]
    assert main(["plan", str(run_dir), "--target-ci", "2", "--budget-per-cell", "3600"]) == 0
    out = capsys.readouterr().out
    assert "bench00" in out and "target ±2%" in out


def test_plan_text_is_readable_and_narrow(tmp_path):
    from harness.analysis.planner import format_plan

    df = simdata.simulate_run(benchmarks=3, engines=("a", "b"), processes=4, iterations=10, between=0.05,
                              within=0.02, seed=4)
    plan = plan_runs([_write_run(tmp_path, df, life_extra_s=0.5)], 0.02)
    for width in (120, 100):
        text = format_plan(plan, 0.02, 1.0, width=width)
        assert max(len(line) for line in text.splitlines()) <= width
    text = format_plan(plan, 0.02, 1.0)
    assert " ms " in text and "e+0" not in text and "e-0" not in text  # units, no exponents
    assert "cannot reach the target" in text
    # one pilot shape for every cell is said once; cells whose steady states differ get a pilot column
    pilots = {str(p) for p in plan["pilot"]}
    if len(pilots) == 1:
        assert f"pilot {pilots.pop().replace('x', ' x ')} per cell" in text and " pilot " not in text.splitlines()[0]
    else:
        assert " pilot " in text.splitlines()[0] and "per cell;" not in text


def test_plan_command_rejects_bad_input(tmp_path, capsys):
    assert main(["plan", str(tmp_path), "--target-ci", "0"]) == 2
    assert "--target-ci" in capsys.readouterr().err
    assert main(["plan", str(tmp_path / "nope"), "--target-ci", "3"]) == 2
    assert "no such run directory" in capsys.readouterr().err


def test_no_between_search_matches_brute_force_and_stays_fast():
    import time

    c = Components(mean=1.0, s2_between=0.0, s2_within=0.01, processes=5, iterations=50, warmup=2, c_proc=1.0,
                   c_iter=0.001)
    brute = []
    for P in range(MIN_PROCESSES, 300):
        t = sps.t.ppf(0.995, P - 1)
        n = math.ceil(t**2 * 0.01 / (P * 0.01**2) * (1 - 1e-12))
        brute.append((P * (1.0 + (2 + n) * 0.001), P, n))
    p = plan_cell(c, target=0.01)
    assert (p.processes, p.iterations) == min(brute)[1:] == (5, 424)
    t0 = time.perf_counter()  # an absurd target must not send the search through a million t quantiles
    far = plan_cell(Components(mean=1.0, s2_between=0.0, s2_within=0.5, processes=5, iterations=50,
                               c_proc=0.35, c_iter=0.008), target=1e-4)
    assert time.perf_counter() - t0 < 2.0 and far.half_width <= 1e-4


def test_costs_from_two_runs_keep_each_runs_processes_apart(tmp_path):
    # both runs number their processes from seq 0: a process is its run and its seq
    df = simdata.simulate_run(benchmarks=1, engines=("a",), processes=6, iterations=20, between=0.05,
                              within=0.02, seed=4)
    runs = [_write_run(tmp_path, df, life_extra_s=extra, run_id=name) for name, extra in (("one", 0.5), ("two", 1.5))]
    raw, procs = store.load_runs(runs), store.load_process_records(runs)
    (_, (c_proc, c_iter, spent)), = costs_per_cell(raw, procs).items()
    assert c_proc == pytest.approx(1.0, abs=1e-6)
    assert c_iter == pytest.approx(df["wall_ns"].mean() / 1e9)


def test_a_cell_is_unsettled_by_its_longest_processes_only():
    """Short pilot processes that ended in a slowdown do not keep a cell unsettled once its longer
    processes settle; the share counts slowdowns and series without a steady state alike."""
    import pandas as pd

    from harness.analysis.planner import _unsettled

    warm = pd.DataFrame({"iterations": [10, 10, 10, 40, 40, 38, 40],
                         "warmup": ["slowdown", "slowdown", "no steady state", "warm-up", "warm-up", "flat",
                                    "slowdown"]})
    assert _unsettled(warm) == (40, 0.25)
    assert _unsettled(warm[warm["iterations"] == 10]) == (10, 1.0)
    assert _unsettled(warm.iloc[:0]) == (0, 0.0)
