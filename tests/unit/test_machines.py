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
