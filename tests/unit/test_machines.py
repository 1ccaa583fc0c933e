"""Machines as a level (`analysis.machines`): which cells get it, its estimate and interval."""
from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_shards import write_shard

from harness.analysis import stats
from harness.analysis.machines import (group_by_machine, machine_boot, machine_bootstrap, machine_estimate,
                                       process_machines)
from harness.analysis.runset import RunSet


def test_each_machine_weighs_the_same():
    xs = [np.array([1.0, 1.0]), np.array([1.0]), np.array([1.0, 1.0]), np.array([4.0])]
    groups = group_by_machine(xs, ["a", "a", "a", "b"])
    assert [len(g) for g in groups] == [3, 1]
    assert machine_estimate(groups) == pytest.approx(2.5)  # not 1.75, the mean of the 4 processes
    reps = machine_bootstrap(groups, 2000, np.random.default_rng(0))
    assert set(np.round(reps, 6)) <= {1.0, 2.5, 4.0}


def test_interval_positive_with_machine_df_and_says_how_many():
    rng = np.random.default_rng(1)
    xs = [rng.lognormal(0, 0.5, 5) * 1e-6 for _ in range(6)]
    cb = machine_boot(stats.CellSample(xs), ["a", "b", "c"] * 2, 2000, 0)
    m, lo, hi, note = stats.cell_interval(cb, "process-bootstrap", 0.99)
    assert 0 < lo < m < hi and cb.df == 2 and note.startswith("3 machines")
    with pytest.raises(ValueError):
        machine_boot(stats.CellSample(xs), ["a"] * 6)


def test_only_cells_with_two_or_more_known_machines():
    keys = [("b", "", "e", "r", p, "run") for p in range(4)]
    xs = [np.ones(3)] * 4
    both = {("run", "b", "", "e", "r", p): f"m{p % 2}" for p in range(4)}
    assert process_machines(keys, xs, both) == {("b", "", "e", "r"): ["m0", "m1", "m0", "m1"]}
    assert process_machines(keys, xs, {k: "m0" for k in both}) == {}
    assert process_machines(keys, xs, {**both, ("run", "b", "", "e", "r", 3): None}) == {}


def test_runset_uses_the_machine_level_for_sharded_runs_only(tmp_path):
    shards = [write_shard(tmp_path, "c1", k, 3, processes=9, machine_factor=[1.0, 1.2, 0.9][k]) for k in range(3)]
    three = RunSet(shards, resamples=500, use_cache=False).summary.iloc[0]
    assert three["df"] == 2 and three["note"].startswith("3 machines") and 0 < three["ci_low_s"] < three["mean_s"]
    one = RunSet(shards[:1], resamples=500, use_cache=False).summary.iloc[0]
    assert one["df"] == 2 and not one["note"]  # one machine: the process level as before
    pt = RunSet(shards, method="process-t", resamples=500, use_cache=False).summary.iloc[0]
    assert not pt["note"] and math.isfinite(pt["ci_low_s"])


def test_plan_on_machines_reaches_the_target_or_says_how_many_machines():
    from harness.analysis.planner import Components, plan_cell, plan_cell_on_machines

    c = Components(mean=1.0, s2_between=0.05**2, s2_within=0.02**2, processes=6, iterations=10, c_proc=0.5,
                   c_iter=0.01)
    p = plan_cell_on_machines(c, 4, 0.0, 0.03)
    assert p.reachable and p.half_width <= 0.03 and p.processes * 4 >= 3
    fewer = plan_cell_on_machines(c, 4, 0.0, 0.03 * 1.0001)
    assert fewer.processes <= p.processes
    assert plan_cell_on_machines(c, 1, 0.0, 0.03) == plan_cell(c, 0.03)  # one machine: the two-level plan
    far = plan_cell_on_machines(c, 3, 0.05**2, 0.03)  # 5% between machines, t with 2 df
    assert not far.reachable and "machines could reach it" in far.note
    near = plan_cell_on_machines(c, 64, 0.05**2, 0.03)
    assert near.reachable and near.half_width <= 0.03


def test_between_machine_variance_measured_from_a_sharded_pilot(tmp_path):
    from harness import store
    from harness.analysis.planner import machine_variance

    shards = [write_shard(tmp_path, "c1", k, 3, processes=9, machine_factor=[1.0, 1.3, 0.8][k]) for k in range(3)]
    (key, (s2m, m)), = machine_variance(store.load_runs(shards), store.load_process_records(shards)).items()
    assert m == 3 and 0.15 < math.sqrt(s2m) / 1e-3 < 0.35  # sd of 1.0, 1.3, 0.8 is 0.25 (of a 1 ms mean)
    assert machine_variance(store.load_runs(shards[:1]), store.load_process_records(shards[:1])) == {}


def test_plan_command_on_machines(tmp_path, capsys):
    from harness import cli

    shards = [write_shard(tmp_path, "c1", k, 3, processes=9, machine_factor=[1.0, 1.02, 0.99][k]) for k in range(3)]
    assert cli.main(["plan", *map(str, shards), "--target-ci", "20", "--machines", "4"]) == 0
    out = capsys.readouterr().out
    assert "wall time on 4 machines" in out and "from 3 machines" in out and "4 x " in out
    assert cli.main(["plan", str(shards[0]), "--target-ci", "20", "--machines", "4", "--machine-spread", "5",
                     "--format", "csv"]) == 0
    csv = capsys.readouterr().out
    assert csv.startswith("benchmark,") and ",wall_s," in csv and "assumed 5%" in csv
