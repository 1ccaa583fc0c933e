"""The adaptive driver's scheduling, with a stand-in runner and scripted assessments."""
from __future__ import annotations

import json
import math

from harness.run.adaptive import Settings, drive
from harness.run.plan import LiveCell, LivePlan


class FakeRunner:
    """Records which processes each execute() round ran (everything in the order not yet run)."""

    def __init__(self, tmp_path, n_cells):
        self.run_dir = tmp_path
        self.plan = LivePlan.from_dict(
            {"seed": 0, "timeout_s": 300.0, "budget_s": 2.0, "unavailable": {}, "iterations": 10,
             "cells": [{"benchmark": f"b{i}", "params": {}, "engine": "e", "runtime": "cpython"} for i in range(n_cells)],
             "order": [[i * 2 + p, i, p] for i in range(n_cells) for p in range(2)]})
        self.dead_cells = {}
        self.done = 0
        self.rounds = []

    def execute(self):
        self.rounds.append([tuple(t) for t in self.plan.order[self.done:]])
        self.done = len(self.plan.order)

    def processes(self, cell):
        return sum(1 for t in self.plan.order[:self.done] if t[1] == cell)


def scripted(runner, behaviour):
    """assess() from per-cell functions of the processes run so far: (half_width, steady)."""
    def assess(run_dir, target, confidence, resamples):
        out = {}
        for i, cell in enumerate(runner.plan.cells):
            P = runner.processes(i)
            h, steady = behaviour[i](P)
            out[(cell.benchmark, "", "e", "cpython")] = {
                "half_width": h, "mean_s": 1.0, "s2_between": 0.01, "s2_within": 0.04, "c_proc_s": 0.5,
                "c_iter_s": 0.01, "warmup": 1, "steady": steady, "processes": P, "spent_s": P * 1.0,
                "plan": {"processes": 8, "iterations": 50, "machine_s": 8.0, "half_width": 0.03, "note": ""}}
        return out
    return assess


def test_cells_stop_when_met_on_budget_or_without_steady_state(tmp_path):
    r = FakeRunner(tmp_path, 3)
    behaviour = [lambda P: (0.2 / math.sqrt(P), True),   # met once 0.2/sqrt(P) <= 0.05: P >= 16
                 lambda P: (1.0, True),                  # never: budget of 20 s at 1 s a process
                 lambda P: (1.0, False)]                 # no steady state: stops after one planned round
    rec = drive(r, Settings(target=0.05, max_time_s=20.0), scripted(r, behaviour))
    stops = {c["benchmark"]: c for c in rec["cells"]}
    assert stops["b0"]["stop"] == "met" and stops["b0"]["achieved"] <= 0.05 and stops["b0"]["processes"] == 16
    assert stops["b1"]["stop"] == "budget" and stops["b1"]["processes"] == 20
    assert stops["b2"]["stop"] == "no steady state" and stops["b2"]["processes"] == 4
    # after the pilot, cells run the planner's iterations; the per-process budget is lifted
    assert r.plan.cells[0].iterations == 50 and r.plan.budget_s is None
    assert r.plan.cells[2].iterations == 50
    # processes at most double per round, and each round's new processes are interleaved
    assert [sum(1 for t in rnd if t[1] == 0) for rnd in r.rounds] == [2, 2, 4, 8, 0]
    mixed = r.rounds[1]
    assert {t[1] for t in mixed} == {0, 1, 2}
    seqs = [t[0] for t in r.plan.order]
    assert seqs == list(range(len(seqs)))
    for cell in range(3):
        assert [t[2] for t in r.plan.order if t[1] == cell] == list(range(r.processes(cell)))
    stored = json.loads((tmp_path / "plan.json").read_text())
    assert stored["adaptive"] == rec and len(stored["order"]) == len(r.plan.order)
    assert stops["b0"]["target"] == 0.05 and {"s2_between", "s2_within", "c_proc_s", "c_iter_s"} <= set(stops["b0"])


def test_run_budget_stops_everything(tmp_path, monkeypatch):
    import harness.run.adaptive as adaptive

    clock = iter(range(0, 10_000, 100))
    monkeypatch.setattr(adaptive.time, "monotonic", lambda: next(clock))
    r = FakeRunner(tmp_path, 1)
    rec = drive(r, Settings(target=0.01, max_time_s=None, max_run_time_s=150), scripted(r, [lambda P: (1.0, True)]))
    assert rec["cells"][0]["stop"] == "budget" and len(r.rounds) <= 3


def test_skipped_cells_are_not_run(tmp_path):
    r = FakeRunner(tmp_path, 2)
    r.plan.unavailable = {"1": "no server"}
    rec = drive(r, Settings(target=0.5), scripted(r, [lambda P: (0.1, True), lambda P: (math.nan, True)]))
    assert [c["stop"] for c in rec["cells"]] == ["met", "not run"]


def test_the_paper_profile_is_adaptive_and_a_zero_target_is_the_fixed_protocol():
    """`--profile paper` runs the adaptive protocol with the profile's target and per-cell time;
    options override it, and `--target-ci 0` gives the fixed protocol."""
    import argparse

    from harness.commands.run import _adaptive
    from harness.run.profiles import PROFILES

    def args(**kw):
        base = dict(profile=None, target_ci=None, max_time=None, max_run_time=None, min_processes=None, resume=None,
                    processes=None, iterations=None, no_progress=True)
        base.update(kw)
        return argparse.Namespace(**base)

    paper = args(profile="paper")
    assert _adaptive(paper) is not None
    assert paper.target_ci == PROFILES["paper"].target_ci_pct and paper.max_time == PROFILES["paper"].max_time_s
    override = args(profile="paper", target_ci=5.0, max_time=60.0)
    assert _adaptive(override) is not None and (override.target_ci, override.max_time) == (5.0, 60.0)
    assert _adaptive(args(profile="paper", target_ci=0.0)) is None
    assert _adaptive(args(profile="quick")) is None
    quick = args(profile="quick", target_ci=3.0)
    assert _adaptive(quick) is not None and quick.max_time == 600.0


def test_the_run_budget_bounds_the_pilot(tmp_path):
    """--max-run-time is handed to the runner as a deadline before the pilot, so a pilot too big
    for the run's budget cannot run past it (the runner records what it did not start)."""
    r = FakeRunner(tmp_path, 1)
    seen = []
    r.execute = lambda: (seen.append(r.deadline), FakeRunner.execute(r))[1]
    r.deadline = None
    drive(r, Settings(target=0.5, max_run_time_s=100.0), scripted(r, [lambda P: (0.1, True)]))
    assert seen and seen[0] is not None


def _group_runner(tmp_path, cells):
    """A FakeRunner over (benchmark, engine, params) cells, two pilot processes each."""
    r = FakeRunner(tmp_path, len(cells))
    r.plan.cells = [LiveCell(benchmark=b, params=dict(p), engine=e, runtime="cpython") for b, e, p in cells]
    return r


def _assess_by_cell(runner, behaviour, c_proc=0.5, costs=None):
    """assess() with per-cell half-widths; `costs`: each cell's seconds per process (default c_proc + 0.5)."""
    from harness.protocol import canonical_params

    def assess(run_dir, target, confidence, resamples):
        out = {}
        for i, cell in enumerate(runner.plan.cells):
            P = runner.processes(i)
            cp = costs[i] if costs else c_proc
            out[(cell.benchmark, canonical_params(cell.params), cell.engine, "cpython")] = {
                "half_width": behaviour[i](P), "mean_s": 1.0, "s2_between": 0.01, "s2_within": 0.04,
                "c_proc_s": cp, "c_iter_s": 0.0 if costs else 0.01, "warmup": 1, "steady": True, "processes": P,
                "spent_s": P * (cp if costs else 1.0), "plan": {"processes": 8, "iterations": 50, "machine_s": 8.0,
                                                               "half_width": 0.03, "note": ""}}
        return out
    return assess


def test_balanced_rounds_give_the_cells_of_a_comparison_the_same_processes(tmp_path):
    """A cell that met its target runs on with its group (its engines and its A/A twin), so every
    round holds both sides of each ratio; another benchmark's cells are a group of their own."""
    cells = [("q1", "sqlite", {}), ("q1", "sqlite", {"aa": "twin"}), ("q1", "duckdb", {}), ("q2", "sqlite", {})]
    behaviour = [lambda P: 0.2 / math.sqrt(P),   # met at P >= 16
                 lambda P: 0.01,                 # met from the pilot on
                 lambda P: 0.01,
                 lambda P: 0.01]
    r = _group_runner(tmp_path, cells)
    rec = drive(r, Settings(target=0.05, max_time_s=None), _assess_by_cell(r, behaviour))
    per_round = [[sum(1 for t in rnd if t[1] == c) for c in range(4)] for rnd in r.rounds]
    assert all(row[0] == row[1] == row[2] for row in per_round), per_round
    assert [row[3] for row in per_round[1:]] == [0] * (len(per_round) - 1)  # q2 stopped after the pilot
    assert [c["stop"] for c in rec["cells"]] == ["met"] * 4
    assert [r.processes(c) for c in range(4)] == [16, 16, 16, 2]
    # the unbalanced schedule, for contrast: the cells that met stop at once
    r2 = _group_runner(tmp_path / "u", cells)
    (tmp_path / "u").mkdir()
    drive(r2, Settings(target=0.05, max_time_s=None, balanced=False), _assess_by_cell(r2, behaviour))
    assert [r2.processes(c) for c in range(4)] == [16, 2, 2, 2]


def test_a_group_shares_its_budget_and_stops_together(tmp_path):
    """The group's budget is its members' per-cell seconds pooled: a cheap cell's unspent seconds pay
    for an expensive one's processes, both run the same rounds, and they stop together."""
    cells = [("q1", "sqlite", {}), ("q1", "h2", {})]
    r = _group_runner(tmp_path, cells)
    never = lambda P: 1.0  # noqa: E731
    costs = [0.1, 1.0]  # seconds per process
    rec = drive(r, Settings(target=0.05, max_time_s=6.0), _assess_by_cell(r, [never, never], costs=costs))
    assert r.processes(0) == r.processes(1)
    assert [c["stop"] for c in rec["cells"]] == ["budget", "budget"]
    spent = [r.processes(i) * costs[i] for i in range(2)]
    assert sum(spent) <= 2 * 6.0 and spent[1] > 6.0  # the h2 cell spent more than its own 6 s
    assert sum(spent) + sum(costs) > 2 * 6.0  # stopped only when one more round would overrun the pool


def test_the_run_budget_is_shared_by_every_group_not_spent_in_cell_order():
    """Four groups of two cells each asking for 4 more processes (1 s each) with 12 s of run budget
    left: each group gets one process per cell and the 4 s left go, one process per cell, to two
    groups picked at random; in cell order the first group took 8 s and the next 4 s, the last two none."""
    import random

    from harness.run.adaptive import _share_run_budget

    cells = [LiveCell(benchmark=f"q{g}", params={}, engine=e, runtime="cpython")
             for g in range(4) for e in ("sqlite", "duckdb")]
    wants = {i: (4, math.inf, 1.0) for i in range(8)}
    adds = {i: 4 for i in range(8)}
    out = _share_run_budget(adds, wants, cells, 12.0, random.Random(1), balanced=True)
    per_group = [(out[2 * g], out[2 * g + 1]) for g in range(4)]
    assert all(a == b for a, b in per_group), per_group      # both sides of each comparison alike
    assert sorted(a for a, _ in per_group) == [1, 1, 2, 2]    # everyone gets a share
    assert sum(out.values()) * 1.0 <= 12.0
    assert _share_run_budget(adds, wants, cells, 100.0, random.Random(1), True) == adds  # affordable: unchanged
    assert set(_share_run_budget(adds, wants, cells, -1.0, random.Random(1), True).values()) == {0}


def _assess_unsettled(runner, unsettled_until, plan_iterations=10):
    """assess() whose cells end in a slowdown while their processes are shorter than
    `unsettled_until[i]` iterations (a transient a longer process outlives); every interval is met."""
    from harness.protocol import canonical_params

    def assess(run_dir, target, confidence, resamples):
        out = {}
        for i, cell in enumerate(runner.plan.cells):
            P = runner.processes(i)
            longest = cell.iterations or runner.plan.iterations
            out[(cell.benchmark, canonical_params(cell.params), cell.engine, "cpython")] = {
                "half_width": 0.01, "mean_s": 1.0, "s2_between": 0.01, "s2_within": 0.04, "c_proc_s": 0.5,
                "c_iter_s": 0.01, "warmup": 1, "steady": True, "processes": P, "spent_s": P * 1.0,
                "unsettled": 1.0 if longest < unsettled_until[i] else 0.0, "longest": longest,
                "plan": {"processes": 3, "iterations": plan_iterations, "machine_s": 8.0, "half_width": 0.03,
                         "note": ""}}
        return out
    return assess


def test_an_unsettled_cell_runs_longer_processes_before_its_interval_counts(tmp_path):
    """A cell whose processes end in a slowdown at 10 iterations (PyPy's transient at its 7th-10th)
    is not `met` on that interval: it doubles its processes' length until they settle (40 here);
    a settled cell keeps the planner's 10 and stops at once."""
    cells = [("q1", "sqlite", {}), ("q2", "sqlite", {})]
    r = _group_runner(tmp_path, cells)
    rec = drive(r, Settings(target=0.05, max_time_s=None), _assess_unsettled(r, [40, 0]))
    stops = {c["benchmark"]: c for c in rec["cells"]}
    assert stops["q1"]["stop"] == "met" and r.plan.cells[0].iterations == 40
    assert stops["q2"]["stop"] == "met" and r.plan.cells[1].iterations == 10
    assert r.processes(1) == 2 and r.processes(0) > 2


def test_an_unsettled_cell_stops_without_steady_state_only_when_it_cannot_grow(tmp_path):
    """Growth is bounded by the cell's budget (four processes must remain affordable): a cell that
    never settles is stopped as `no steady state` or for its budget, never run forever."""
    r = _group_runner(tmp_path, [("q1", "sqlite", {})])

    def assess(run_dir, target, confidence, resamples):
        a = _assess_unsettled(r, [10 ** 9])(run_dir, target, confidence, resamples)
        for v in a.values():
            v["steady"], v["half_width"] = False, 1.0
        return a
    rec = drive(r, Settings(target=0.05, max_time_s=20.0), assess)
    assert rec["cells"][0]["stop"] in ("no steady state", "budget")
    assert r.plan.cells[0].iterations <= (20.0 / 4 - 0.5) / 0.01


def test_a_cell_and_its_twin_run_the_same_iterations(tmp_path):
    """The A/A twin's pilot may plan other iterations than its cell's; both run the longer plan."""
    cells = [("q1", "sqlite", {}), ("q1", "sqlite", {"aa": "twin"}), ("q1", "duckdb", {})]
    r = _group_runner(tmp_path, cells)
    base = _assess_by_cell(r, [lambda P: 0.2 / math.sqrt(P)] * 3)

    def assess(run_dir, target, confidence, resamples):
        a = base(run_dir, target, confidence, resamples)
        for (b, params, e, _), v in a.items():
            v["plan"] = dict(v["plan"], iterations=80 if "aa=twin" in params else 20 if e == "sqlite" else 5)
        return a
    drive(r, Settings(target=0.05, max_time_s=None), assess)
    its = [c.iterations for c in r.plan.cells]
    assert its[0] == its[1] == 80 and its[2] == 5


def test_below_the_floor_a_group_runs_on_past_its_budget(tmp_path):
    """With min_processes, a group whose dear member ate the pooled budget still runs until every
    member has the floor's processes; without it the same group stops short (E2's filltable group
    stopped at 7 processes when DuckDB's row-at-a-time cell took 17 s a process)."""
    cells = [("fill", "sqlite", {}), ("fill", "duckdb", {})]
    never = lambda P: 1.0  # noqa: E731
    costs = [0.1, 5.0]
    r = _group_runner(tmp_path, cells)
    rec = drive(r, Settings(target=0.05, max_time_s=6.0, min_processes=10), _assess_by_cell(r, [never, never], costs=costs))
    assert r.processes(0) == r.processes(1) >= 10
    assert r.processes(1) * costs[1] > 2 * 6.0  # past the pooled budget, because of the floor
    assert [c["stop"] for c in rec["cells"]] == ["budget", "budget"]
    r2 = _group_runner(tmp_path / "nofloor", cells)
    (tmp_path / "nofloor").mkdir()
    drive(r2, Settings(target=0.05, max_time_s=6.0), _assess_by_cell(r2, [never, never], costs=costs))
    assert r2.processes(1) < 10


def test_a_short_run_budget_goes_first_to_the_groups_below_the_floor():
    """Two groups ask 4 more processes per cell (1 s each) with 8 s of run budget left: the group 3
    processes short of the floor gets those 3 first; shared in proportion alone it got 2."""
    import random

    from harness.run.adaptive import _share_run_budget

    cells = [LiveCell(benchmark=b, params={}, engine=e, runtime="cpython")
             for b in ("fill", "select") for e in ("sqlite", "duckdb")]
    wants = {i: (4, math.inf, 1.0) for i in range(4)}
    adds = {i: 4 for i in range(4)}
    short = {0: 3, 1: 3, 2: 0, 3: 0}
    for seed in range(5):
        out = _share_run_budget(adds, wants, cells, 8.0, random.Random(seed), True, short)
        assert out[0] == out[1] >= 3 and out[2] == out[3], out
        assert sum(out.values()) <= 8
    plain = _share_run_budget(adds, wants, cells, 8.0, random.Random(0), True)
    assert plain[0] == 2
    # when even the floors cost more than what is left, they are what gets shared
    out = _share_run_budget(adds, wants, cells, 4.0, random.Random(0), True, short)
    assert out[2] == out[3] == 0 and out[0] == out[1] == 2


def test_a_twin_stops_with_its_cell(tmp_path):
    """When a cell stops without a steady state, its A/A twin stops in the same round for the same
    reason (and the other way round), so neither half of the A/A check runs on alone with its own
    plan; a cell of another engine in the group runs on."""
    cells = [("q1", "pypy", {}), ("q1", "pypy", {"aa": "twin"}), ("q1", "cpython", {})]
    r = _group_runner(tmp_path, cells)
    base = _assess_by_cell(r, [lambda P: 1.0] * 3)

    def assess(run_dir, target, confidence, resamples):
        a = base(run_dir, target, confidence, resamples)
        for (b, params, e, _), v in a.items():
            v["steady"] = e != "pypy" or "aa=twin" in params  # only the cell shows no steady state
        return a
    rec = drive(r, Settings(target=0.05, max_time_s=20.0), assess)
    cell, twin, other = rec["cells"]
    assert cell["stop"] == "no steady state" and "note" not in cell
    assert twin["stop"] == "no steady state" and twin["note"] == "stopped with its cell"
    assert twin["round"] == cell["round"] and r.processes(0) == r.processes(1)
    assert other["stop"] == "budget" and r.processes(2) > r.processes(0)
    # the twin first: its cell stops with it
    r2 = _group_runner(tmp_path / "t", cells)
    (tmp_path / "t").mkdir()
    base2 = _assess_by_cell(r2, [lambda P: 1.0] * 3)

    def assess2(run_dir, target, confidence, resamples):
        a = base2(run_dir, target, confidence, resamples)
        for (b, params, e, _), v in a.items():
            v["steady"] = "aa=twin" not in params
        return a
    rec2 = drive(r2, Settings(target=0.05, max_time_s=20.0), assess2)
    assert rec2["cells"][0]["note"] == "stopped with its A/A twin" and rec2["cells"][0]["stop"] == "no steady state"
    assert r2.processes(0) == r2.processes(1)
