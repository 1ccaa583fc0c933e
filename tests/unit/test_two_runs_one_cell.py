"""Two runs of the same cell (two reference runs, say) pool their processes, never merge them.

Both runs number their processes from 0; a process is (cell, process, run), so the cell of the
pair has the processes of both, each with its own iterations.
"""
from __future__ import annotations

import pandas as pd

from harness.analysis import simdata, stats


def _two_runs() -> pd.DataFrame:
    a = simdata.simulate_run(benchmarks=1, engines=("e",), processes=3, iterations=6, seed=1).assign(run_id="run-a")
    b = simdata.simulate_run(benchmarks=1, engines=("e",), processes=3, iterations=6, seed=2).assign(run_id="run-b")
    return pd.concat([a, b], ignore_index=True)


def test_processes_of_two_runs_stay_apart():
    _, every, _ = stats.split_cells(_two_runs())
    (sample,) = every.values()
    assert len(sample.processes) == 6
    assert all(len(x) == 6 for x in sample.processes)


def test_warmup_analysis_has_one_row_per_process_of_each_run():
    w = stats.warmup_analysis(_two_runs())
    assert len(w) == 6 and set(w["iterations"]) == {6}


def test_compare_samples_per_process_of_each_run():
    from harness.analysis.stats.compare import compare_samples

    (means,) = compare_samples(_two_runs()).values()
    assert len(means) == 6
