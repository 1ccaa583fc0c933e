"""`summary` figures equal a direct numpy/scipy computation on known data."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from harness import store
from harness.analysis.runset import summarize_runs

REQUIRED = "benchmark,params,engine,runtime,processes,iterations,mean_s,ci_low_s,ci_high_s,median_s".split(",")


@pytest.fixture
def known_run(tmp_path):
    rng = np.random.default_rng(7)
    rows = []
    for engine, scale in (("a", 1.0), ("b", 2.0)):
        for p in range(4):
            shift = rng.normal(0, 0.05)
            for i in range(30):
                rows.append({"benchmark": "bindings.select_fold", "params": "n=100", "engine": engine,
                             "process": p, "iteration": i,
                             "wall_ns": int(1e6 * scale * (1 + shift + rng.normal(0, 0.02)))})
    df = pd.DataFrame(rows)
    return store.write_imported_run(tmp_path, df, {"source": "test"}), df


def test_pooled_t_matches_scipy(known_run):
    run_dir, df = known_run
    s = summarize_runs([run_dir], method="pooled-t", steady_state=False).set_index("engine")
    for engine, g in df.groupby("engine"):
        x = g["wall_ns"].to_numpy() / 1e9
        lo, hi = sps.t.interval(0.99, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
        row = s.loc[engine]
        assert row["mean_s"] == pytest.approx(x.mean(), rel=1e-12)
        assert row["median_s"] == pytest.approx(np.median(x), rel=1e-12)
        assert row["ci_low_s"] == pytest.approx(lo, rel=1e-9)
        assert row["ci_high_s"] == pytest.approx(hi, rel=1e-9)
        assert row["processes"] == 4 and row["iterations"] == 30
        assert row["method"] == "pooled-t"
        assert row["rows_per_s"] == pytest.approx(100 / x.mean())


def test_process_t_matches_scipy(known_run):
    run_dir, df = known_run
    s = summarize_runs([run_dir], method="process-t", steady_state=False).set_index("engine")
    for engine, g in df.groupby("engine"):
        means = g.groupby("process")["wall_ns"].mean().to_numpy() / 1e9
        lo, hi = sps.t.interval(0.99, len(means) - 1, loc=means.mean(), scale=sps.sem(means))
        assert s.loc[engine, "ci_low_s"] == pytest.approx(lo, rel=1e-9)
        assert s.loc[engine, "ci_high_s"] == pytest.approx(hi, rel=1e-9)


def test_family_table_keeps_wrong_answers_out_and_says_so(known_run):
    from harness.studies import common as report

    from harness.analysis.runset import RunSet

    run_dir, _ = known_run
    runs = RunSet(run_dir, method="pooled-t", resamples=200)
    table, md = report.family_table(runs, "bindings.", "a")
    assert set(table["engine"]) == {"a", "b"}
    assert "No cell was excluded" in md
    summary = runs.summary  # the cached summary every view of `runs` reads
    summary.loc[summary["engine"] == "b", ["status", "reason"]] = ["invalid", "wrong result: checksum 1 != 3"]
    table, md = report.family_table(runs, "bindings.", "a")
    assert set(table["engine"]) == {"a"}
    assert "Excluded from the table:\n\n- bindings.select_fold on b (invalid: wrong result" in md
    table, md = report.family_table(RunSet(run_dir, resamples=200), "bindings.", "c")
    assert table is None and "no valid bindings.* cells" in md


def _records(statuses: list[tuple[str, str]]) -> "pd.DataFrame":
    import pandas as pd

    return pd.DataFrame([{"run_id": "r", "seq": i, "benchmark": "b", "params": "", "engine": "e",
                          "runtime": "cpython3.11" if s != "skipped" else None, "runtime_family": "cpython",
                          "process": i, "status": s, "reason": why} for i, (s, why) in enumerate(statuses)])


def test_a_cell_measured_before_the_budget_ran_out_is_ok_and_says_what_did_not_run():
    from harness.analysis.summary import cell_status
    from harness.run.runner import BUDGET_SPENT

    row = cell_status(_records([("ok", ""), ("ok", ""), ("ok", ""), ("skipped", BUDGET_SPENT),
                                ("skipped", BUDGET_SPENT)])).iloc[0]
    assert (row["status"], row["reason"], row["skipped_processes"]) == ("ok", BUDGET_SPENT, 2)
    # a failure among the processes that ran is still the cell's status, counted over those
    row = cell_status(_records([("ok", ""), ("timeout", "killed"), ("skipped", BUDGET_SPENT)])).iloc[0]
    assert (row["status"], row["reason"]) == ("timeout (1/2 processes)", "killed")
    # nothing ran: skipped, as before
    row = cell_status(_records([("skipped", "no driver"), ("skipped", "no driver")])).iloc[0]
    assert (row["status"], row["reason"], row["skipped_processes"]) == ("skipped", "no driver", 0)
