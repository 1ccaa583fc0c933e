"""The summary streams each process into typed arrays (issue 25 item 6, issue 27 item 5): its
numbers are those of the plain path (every raw row in pandas), whatever the number of threads
reading and classifying, and its working memory does not grow with the rows."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness import store
from harness.analysis import stats
from harness.analysis.runset import RunSet
from harness.analysis.series import read_series
from harness.analysis.stats import parallel, warmup
from harness.analysis.summary import attach_run_facts, cell_counts
from harness.fsutil import write_json_atomic
from harness.protocol import SCHEMA_VERSION


def _write_run(out: Path, processes: int, iterations: int, seed: int = 0, awkward: bool = False) -> Path:
    """A run written with the store's own writer (as benchmarks/bench_scale.py does): 4 cells of
    `processes` / 4 processes, a 10% slower warm-up; `awkward` adds invalid iterations, null
    crossings, iterations stored out of order, a process of one valid iteration and a cell with
    none."""
    rng = np.random.default_rng(seed)
    run_dir = store.create_run_dir(out)
    write_json_atomic(run_dir / "manifest.json", {"schema_version": SCHEMA_VERSION, "run_id": run_dir.name,
                                                 "status": "complete", "imported": True, "synthetic": True})
    for seq in range(processes):
        cell, p = seq % 4, seq // 4
        bench, engine = f"synthetic.b{cell // 2}", ("sqlite", "duckdb")[cell % 2]
        n = iterations
        wall = 1e4 * (1 + cell) * np.exp(0.03 * rng.standard_normal(n))
        wall[: n // 10] *= 1.1
        its, ok = list(range(n)), [True] * n
        crossings: list = [1] * n
        if awkward:
            ok = [bool(v) for v in rng.random(n) > 0.05]
            crossings = [None if i % 3 == 0 else i for i in range(n)]
            if seq == 1:
                its = its[::-1]              # stored out of order
            if seq == 2:
                ok = [i == 0 for i in range(n)]  # one valid iteration: no spread, no interval
            if cell == 3:
                ok = [False] * n             # a cell with no valid iteration at all
        rows = {"run_id": [run_dir.name] * n, "seq": [seq] * n, "benchmark": [bench] * n, "params": [""] * n,
                "engine": [engine] * n, "driver": [engine] * n, "runtime": ["cpython3.11.7"] * n,
                "process": [p] * n, "iteration": its, "pid": [1000 + seq] * n, "wall_ns": wall.tolist(),
                "cpu_ns": np.round(wall).astype(np.int64).tolist(), "check_ok": ok, "crossings": crossings,
                "values_converted": [None] * n}
        store.write_timings(run_dir, seq, rows)
        store.write_process_record(run_dir, seq, {
            "benchmark": bench, "params": "", "engine": engine, "runtime": "cpython3.11.7", "process": p,
            "status": "ok", "reason": "", "timings_file": f"timings/{seq:06d}.parquet", "rows": n})
    return run_dir


def _plain_summary(run_dir: Path, **kw) -> pd.DataFrame:
    """The old path: every raw row in one pandas frame, split and bootstrapped from it."""
    raw = store.load_runs(run_dir)
    return attach_run_facts(stats.summarize_cells(raw, **kw), cell_counts(raw), store.load_process_records(run_dir),
                            [run_dir])


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("steady_state", [True, False])
def test_streamed_summary_equals_the_plain_path_on_any_number_of_threads(tmp_path, monkeypatch, threads,
                                                                       steady_state):
    run = _write_run(tmp_path, processes=12, iterations=60, seed=5, awkward=True)
    monkeypatch.setattr(parallel, "THREADS", threads)
    plain = _plain_summary(run, resamples=500, steady_state=steady_state)
    streamed = RunSet(run, use_cache=False, resamples=500, steady_state=steady_state).summary
    pd.testing.assert_frame_equal(streamed[list(plain.columns)], plain)
    # what the run was made to hold is in the numbers compared, so the comparison cannot be vacuous
    assert (plain["invalid"] > 0).all()
    assert plain["mean_s"].isna().sum() == 1 and plain["std_s"].isna().sum() == 1
    assert plain["warmup"].str.contains("warm-up").any()


def test_fast_average_ranks_equal_the_stable_sort_ones_with_ties_and_nans():
    rng = np.random.default_rng(2)

    def stable(x):  # the implementation before: a stable sort, runs of equal values averaged
        order = np.argsort(x, kind="mergesort")
        xs = x[order]
        new = np.r_[True, xs[1:] != xs[:-1]]
        inv = new.cumsum() - 1
        counts = np.bincount(inv)
        out = np.empty(len(x))
        out[order] = (np.cumsum(counts) - (counts - 1) / 2)[inv]
        return out

    for t in range(300):
        x = rng.integers(0, 15, size=int(rng.integers(1, 400))).astype(float)
        if t % 3 == 0:
            x[rng.integers(0, len(x), 4)] = np.nan
        np.testing.assert_array_equal(warmup.rankdata(x), stable(x))


def _series_facts(s) -> tuple:
    return (s.keys, [x.tolist() for x in s.xs], s.cells, s.invalid.tolist(), s.outliers.tolist(), s.crossings,
            s.values_converted, s.rows)


@pytest.mark.parametrize("awkward", [False, True])
def test_footer_pruned_reading_gives_the_per_cell_aggregates_of_decoding_every_column(tmp_path, monkeypatch,
                                                                                    awkward):
    """The summary decodes only the columns a file's Parquet footer does not prove constant
    (issue 27 item 5): per process the same times, per cell the same invalid, outlier, crossings
    and values-converted counts as reading every column of every file, and the usual file is
    read as 2-3 columns of 15 (so the pruning is not vacuous)."""
    from harness.analysis import series

    run = _write_run(tmp_path, processes=12, iterations=60, seed=7, awkward=awkward)
    pruned = read_series(run)
    decoded = []
    for _, _, parts in store.iter_timing_parts(run, columns=series.COLUMNS):
        decoded += [set(p.column_names) for p in parts]
    monkeypatch.setattr(series, "COLUMNS", None)  # every column decoded and checked row by row
    every = read_series(run)
    assert _series_facts(pruned) == _series_facts(every)
    # the footer proves the run id, cell, process and runtime; with awkward, check_ok and
    # crossings vary and are decoded (but for the cell whose iterations are all invalid)
    want = {"iteration", "wall_ns", "check_ok", "crossings"} if awkward else {"iteration", "wall_ns"}
    assert all({"iteration", "wall_ns"} <= cols <= want for cols in decoded), decoded[:3]
    assert sum(cols == want for cols in decoded) >= len(decoded) // 2
    if awkward:
        assert any(c is not None for c in pruned.crossings) and (pruned.invalid > 0).all()


def _rewrite(path: Path, table, **kw) -> None:
    import pyarrow.parquet as pq

    path.unlink()
    pq.write_table(table, path, compression="zstd", **kw)


def test_a_file_without_statistics_or_of_another_process_is_still_read_or_refused(tmp_path):
    """The footer only spares decoding what it proves: a file written without statistics is
    decoded and gives the same numbers; a file whose statistics name another process's cell
    is refused as before (its column decoded and checked, the message naming the file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from harness.errors import DataError

    run = _write_run(tmp_path, processes=8, iterations=40, seed=3)
    before = _series_facts(read_series(run))
    first = run / "timings" / "000000.parquet"
    table = pq.read_table(first)
    _rewrite(first, table, write_statistics=False)
    assert not pq.ParquetFile(first).metadata.row_group(0).column(0).is_stats_set
    assert _series_facts(read_series(run)) == before
    i = table.schema.get_field_index("engine")
    _rewrite(first, table.set_column(i, "engine", pa.array(["postgres"] * table.num_rows)))
    with pytest.raises(DataError, match=r"000000\.parquet: column engine holds 'postgres'"):
        read_series(run)
