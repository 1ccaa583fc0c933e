"""Ratios paired by round (issue 21 item 3): the estimator on known values, where it is not
valid, rounds recovered from a run's schedule, its coverage beside the unpaired interval, and
`compare --pair-rounds` on a run written the way the runner writes one."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from harness.analysis import coverage
from harness.analysis.rounds import process_rounds
from harness.analysis.stats.paired import MIN_PAIRS, Paired, paired_geomean, paired_ratio
from harness.run.plan import in_rounds


def _t99(logs: list[float]) -> tuple[float, float, float]:
    x = np.array(logs)
    h = sps.t.ppf(0.995, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return math.exp(x.mean()), math.exp(x.mean() - h), math.exp(x.mean() + h)


def test_paired_ratio_is_t_over_the_rounds_log_ratios():
    num = {0: [2.0], 1: [4.0, 6.0], 2: [3.0], 3: [2.2]}  # round 1: two processes, their mean 5.0
    den = {0: [1.0], 1: [2.0], 2: [1.0], 3: [1.0]}
    p = paired_ratio(num, den)
    est, lo, hi = _t99([math.log(2.0), math.log(2.5), math.log(3.0), math.log(2.2)])
    assert (p.estimate, p.low, p.high) == pytest.approx((est, lo, hi))
    assert p.valid and p.rounds == 4 and p.dropped == 0


def test_paired_geomean_averages_the_benchmarks_per_round_then_t():
    a = ({0: [2.0], 1: [2.0], 2: [4.0]}, {0: [1.0], 1: [1.0], 2: [1.0]})
    b = ({0: [1.0], 1: [3.0], 2: [1.0]}, {0: [1.0], 1: [1.0], 2: [2.0]})
    p = paired_geomean([a, b])
    logs = [(math.log(2) + 0) / 2, (math.log(2) + math.log(3)) / 2, (math.log(4) + math.log(0.5)) / 2]
    assert (p.estimate, p.low, p.high) == pytest.approx(_t99(logs))


def test_paired_ratio_drops_unmatched_rounds_and_counts_them():
    num = {0: [2.0], 1: [2.1], 2: [1.9], 3: [2.0], 5: [9.0]}
    den = {0: [1.0], 1: [1.0], 2: [1.0], 4: [5.0], 6: [1.0]}
    p = paired_ratio(num, den)
    assert p.rounds == 3 and p.dropped == 4 and p.valid
    assert (p.estimate, p.low, p.high) == pytest.approx(_t99([math.log(2.0), math.log(2.1), math.log(1.9)]))


def test_pairing_not_valid_without_enough_common_rounds():
    none = paired_ratio({0: [1.0], 1: [1.0]}, {2: [1.0], 3: [1.0]})
    assert not none.valid and "no rounds in common" in none.note and math.isnan(none.estimate)
    two = paired_ratio({0: [2.0], 1: [2.0], 2: [2.0]}, {0: [1.0], 1: [1.0]})
    assert not two.valid and f"at least {MIN_PAIRS}" in two.note and math.isnan(two.low)
    assert two.estimate == pytest.approx(2.0) and two.rounds == 2 and two.dropped == 1
    assert not paired_geomean([]).valid


def test_compare_uses_the_paired_interval_wherever_valid_even_if_wider():
    """Chosen from the design (rounds in common), never from the widths (that choice costs coverage)."""
    from harness.analysis.pairing import PAIR_COLUMNS, _row

    wide = dict(zip(PAIR_COLUMNS, _row(("b", "", "e", "r"), (1.0, 0.97, 1.03), Paired(1.0, 0.9, 1.1, 5, 2))))
    assert wide["ratio_method"] == "paired" and (wide["ratio_ci_low"], wide["ratio_ci_high"]) == (0.9, 1.1)
    assert (wide["rounds"], wide["rounds_dropped"]) == (5, 2)
    bad = dict(zip(PAIR_COLUMNS, _row(("b", "", "e", "r"), (1.0, 0.97, 1.03),
                                      paired_ratio({0: [1.0]}, {0: [1.0]}))))
    assert bad["ratio_method"] == "unpaired" and (bad["ratio_ci_low"], bad["ratio_ci_high"]) == (0.97, 1.03)
    assert bad["pair_note"].startswith("not paired: 1 round in common")


def _records(order: list[tuple[int, int, int]], started: bool = True) -> pd.DataFrame:
    return pd.DataFrame([{"run_id": "r", "seq": seq, "benchmark": "b", "params": "", "engine": f"e{c}",
                          "runtime": "cpython", "process": p, "status": "ok",
                          **({"started": 1000.0 + seq} if started else {})} for seq, c, p in order])


def test_rounds_of_a_plan_are_in_rounds_own_rounds():
    rng = random.Random(3)
    order = [(seq, c, p) for seq, (c, p) in enumerate(in_rounds({c: 5 for c in range(4)}, rng))]
    got = process_rounds(_records(order, started=False))  # seq order when no start time is recorded
    assert {k[2:5]: r for k, r in got.items()} == {(f"e{c}", "cpython", p): ("r", p) for _, c, p in order}


def test_rounds_hold_each_cell_once_across_adaptive_rounds_and_reruns():
    rng = random.Random(4)
    order = [(seq, c, p) for seq, (c, p) in enumerate(in_rounds({c: 3 for c in range(4)}, rng))]
    more = in_rounds({0: 4, 2: 1, 3: 2}, rng, first={0: 3, 2: 3, 3: 3})
    order += [(len(order) + i, c, p) for i, (c, p) in enumerate(more)]
    recs = _records(order)
    recs.loc[recs.seq == 2, "started"] = 1000.0 + 13.5  # a rerun run later than its seq says
    got = process_rounds(recs)
    by_round: dict = {}
    for (_, _, eng, _, _, _), r in got.items():
        by_round.setdefault(r, []).append(eng)
    assert all(len(v) == len(set(v)) for v in by_round.values())
    assert len(got) == len(order) and max(r for _, r in got.values()) >= 6  # 3 planned + at least 4 more


def test_pairing_coverage_narrower_under_phases_and_no_worse_plain():
    """Few data sets (the docs table has 1,000): with phases shared by a round, pairing covers and
    is far narrower; without phases it covers and is about as wide as the unpaired interval."""
    s = coverage.pairing_scenarios(resamples=500)
    ph = coverage.measure_pairing("ph", s["phases 20% by round, ratio, R=10 rounds x I=10"], 150)
    assert ph.paired >= 0.96 and ph.no_paired == 0, ph
    assert ph.paired_width < 0.5 * ph.unpaired_width, ph
    plain = coverage.measure_pairing("plain", s["plain (no phases), ratio, R=30 rounds x I=10"], 150)
    assert plain.paired >= 0.96, plain
    assert plain.paired_width < 1.1 * plain.unpaired_width, plain


def _interleaved_run(tmp_path, phases: float, processes: int = 8, seed: int = 0):
    """A one-family run with an A/A twin, interleaved in rounds as the runner plans it; every
    process of a round slowed by that round's machine speed."""
    from harness import store
    from harness.protocol import canonical_params
    from harness.run.manifest import base_manifest
    from harness.run.plan import RunRequest, build_plan

    run_id = f"pair-{seed}"
    plan = build_plan(RunRequest(profile="smoke", benchmarks=["bindings.select_fold"], engines=["sqlite/sqlite3"],
                                 aa=["sqlite/sqlite3"], processes=processes, iterations=4), run_id)
    run_dir = store.create_run_dir(tmp_path, run_id)
    plan.write(run_dir)
    rng = np.random.default_rng(seed)
    speed = np.exp(rng.normal(0, phases, processes))
    for seq, c, p in plan.order:
        cell = plan.cells[c]
        wall = (1e6 * speed[p] * np.exp(rng.normal(0, 0.03)) * np.exp(rng.normal(0, 0.01, 4))).tolist()
        params = canonical_params(cell.params)
        rows = {"run_id": [run_id] * 4, "seq": [seq] * 4, "benchmark": [cell.benchmark] * 4,
                "params": [params] * 4, "engine": [cell.engine] * 4, "driver": ["sqlite3"] * 4,
                "runtime": ["cpython3.11"] * 4, "process": [p] * 4, "iteration": list(range(4)), "pid": [1] * 4,
                "wall_ns": wall, "cpu_ns": [int(w) for w in wall], "check_ok": [True] * 4, "crossings": [1] * 4,
                "values_converted": [1] * 4}
        store.write_timings(run_dir, seq, rows)
        store.write_process_record(run_dir, seq, {
            "benchmark": cell.benchmark, "params": params, "engine": cell.engine, "runtime": "cpython3.11",
            "runtime_family": "cpython", "process": p, "status": "ok", "reason": "", "started": 1e9 + seq,
            "timings_file": f"timings/{seq:06d}.parquet", "rows": 4})
    base_manifest(run_id, None).with_(status="complete").write(run_dir)
    return run_dir


def test_compare_pair_rounds_pairs_an_aa_twin_by_round(tmp_path, capsys):
    from harness.cli import main

    run = _interleaved_run(tmp_path, phases=0.3)
    args = ["compare", str(run), "--base-params", "aa=", "--new-params", "aa=twin", "--pair-rounds"]
    assert main([*args, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["rows"] if isinstance(out, dict) and "rows" in out else out
    (cell,) = [r for r in rows if r["benchmark"] != "geomean"]
    assert cell["ratio_method"] == "paired" and cell["rounds"] == 8 and cell["rounds_dropped"] == 0
    assert cell["paired_ci_low"] <= 1 <= cell["paired_ci_high"]
    # the phases cancel in each round: the paired interval is far narrower than the unpaired one
    assert (cell["paired_ci_high"] / cell["paired_ci_low"]) < (cell["unpaired_ci_high"] / cell["unpaired_ci_low"]) ** 0.5
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "paired [99% CI]" in text and "8 of 8" in text and "t over the rounds" in text


def test_compare_pair_rounds_falls_back_with_a_note_without_rounds(tmp_path, capsys):
    """Two runs have no round in common: the unpaired interval, and a note saying why."""
    from harness.cli import main

    a, b = _interleaved_run(tmp_path, 0.1, seed=1), _interleaved_run(tmp_path, 0.1, seed=2)
    assert main(["compare", str(a), str(b), "--pair-rounds"]) == 0
    text = capsys.readouterr().out
    assert "note: not paired: no rounds in common" in text and "the unpaired interval is used" in text
    assert main(["compare", str(a), str(b), "--pair-rounds", "--format", "csv"]) == 0
    csv = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert set(csv["ratio_method"].dropna()) == {"unpaired"} and (csv["rounds"].dropna() == 0).all()
