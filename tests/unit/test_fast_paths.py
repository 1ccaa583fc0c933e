"""The fast paths give the numbers the plain paths give: reduced reading, the caches, block
changepoints, the runner's Parquet writer."""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness import fsutil, store
from harness.analysis import simdata, stats
from harness.analysis.runset import RunSet
from harness.analysis.stats import warmup
from harness.analysis.interference import ADJUSTED_COLUMNS, FACT_COLUMNS
from harness.analysis.summary import ADAPTIVE_COLUMNS, attach_run_facts, cell_counts
from harness.protocol import RAW_COLUMNS

@pytest.fixture
def small_run(tmp_path):
    """Two runtimes, warm-up, invalid iterations, crossings on some rows, a 2-process cell."""
    df = simdata.simulate_run(benchmarks=3, engines=("a", "b"), processes=4, iterations=20, warmup=4,
                              invalid_rate=0.05, seed=3)
    df["crossings"] = pd.array([None if i % 3 == 0 else int(i) for i in df["iteration"]], dtype="Int64")
    extra = simdata.simulate_run(benchmarks=1, engines=("c",), processes=2, iterations=10, seed=4,
                                 runtime="pypy3.9")
    df = pd.concat([df, extra], ignore_index=True)
    return store.write_imported_run(tmp_path / "runs", df, {"source": "test"})


def _old_summary(run_dir: Path, **kw) -> pd.DataFrame:
    """The plain path: every raw row in pandas, split and bootstrapped without any cache."""
    raw = store.load_runs(run_dir)
    return attach_run_facts(stats.summarize_cells(raw, **kw), cell_counts(raw), store.load_process_records(run_dir),
                            [run_dir])


@pytest.mark.parametrize("kw", [{}, {"steady_state": False}, {"method": "process-t"}, {"resamples": 500, "seed": 9}])
def test_reduced_reading_and_caches_give_the_plain_numbers(small_run, tmp_path, monkeypatch, kw):
    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    old = _old_summary(small_run, **kw)
    cold = RunSet(small_run, **kw).summary          # reads the files, fills the caches
    warm = RunSet(small_run, **kw).summary          # reads the caches
    uncached = RunSet(small_run, use_cache=False, **kw).summary
    added = set(FACT_COLUMNS + ADJUSTED_COLUMNS + ADAPTIVE_COLUMNS)
    for new in (cold, warm, uncached):
        assert set(new.columns) - set(old.columns) == added  # what only the RunSet adds: interference facts
        pd.testing.assert_frame_equal(new[list(old.columns)], old)
        pd.testing.assert_frame_equal(new, cold)
    entries = list((tmp_path / "cache").rglob("*.npz")) + list((tmp_path / "cache").rglob("*.f8"))
    assert entries, "nothing was cached"
    assert list((tmp_path / "cache" / "summary").rglob("*.parquet")), "the summary was not cached"


@pytest.mark.parametrize("part_rows", [1, 3, 7])
def test_files_read_in_parts_give_the_plain_numbers(small_run, monkeypatch, part_rows):
    """The statistics stream each timings file in parts (`store.iter_timing_parts`): the numbers
    are those of the whole tables, whatever the part size."""
    monkeypatch.setattr(store, "PART_ROWS", part_rows)
    old = _old_summary(small_run)
    pd.testing.assert_frame_equal(RunSet(small_run, use_cache=False).summary[list(old.columns)], old)


def test_an_iteration_twice_in_different_parts_is_found(small_run, monkeypatch):
    import pyarrow.parquet as pq

    from harness.errors import DataError

    path = sorted((small_run / "timings").glob("*.parquet"))[0]
    table = pq.read_table(path)
    its = table.column("iteration").to_pylist()
    its[-1] = its[0]  # the first iteration again, in the last part
    table = table.set_column(table.schema.get_field_index("iteration"), "iteration",
                             pa_array(its)).replace_schema_metadata(table.schema.metadata)
    pq.write_table(table, path)
    with pytest.raises(DataError, match="an iteration appears twice"):
        for _, _, parts in store.iter_timing_parts(small_run, rows=2):
            list(parts)
    its[-2], its[-1] = len(its) - 1, len(its) - 2  # the last two swapped: out of order, each once
    assert sorted(its) == list(range(len(its)))
    pq.write_table(table.set_column(table.schema.get_field_index("iteration"), "iteration", pa_array(its)), path)
    for _, _, parts in store.iter_timing_parts(small_run, rows=2):
        list(parts)


def pa_array(values):
    import pyarrow as pa

    return pa.array(values, pa.int64())


def test_ratio_rows_equal_the_plain_ratio_summary(small_run, tmp_path, monkeypatch):
    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    raw = store.load_runs(small_run)
    old = stats.ratio_summary(raw, "a")
    runs = RunSet(small_run)
    new = runs.ratio_rows(list(runs.samples), "a")
    pd.testing.assert_frame_equal(new, old)


def test_a_corrupt_or_foreign_cache_entry_is_recomputed_not_trusted(small_run, tmp_path, monkeypatch):
    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    old = _old_summary(small_run)
    _ = RunSet(small_run).summary
    entries = sorted(p for p in (tmp_path / "cache").rglob("*") if p.is_file() and p.suffix in (".npz", ".f8", ".parquet"))
    assert len(entries) > 2
    for i, p in enumerate(entries):
        blob = bytearray(p.read_bytes())
        if i % 3 == 0:
            p.write_bytes(bytes(blob[: len(blob) // 2]))          # truncated
        elif i % 3 == 1:
            blob[-3] ^= 0xFF                                      # a flipped byte in the payload
            p.write_bytes(bytes(blob))
        else:
            p.write_bytes(entries[0].read_bytes() if p != entries[0] else b"")  # another key's entry
    pd.testing.assert_frame_equal(RunSet(small_run).summary[list(old.columns)], old)


def test_a_changed_timings_file_is_a_different_cache_entry(small_run, tmp_path, monkeypatch):
    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    _ = RunSet(small_run).summary
    path = min((small_run / "timings").glob("*.parquet"))
    table = store._read_timings_file(path)
    rows = table.to_pydict()
    rows["wall_ns"] = [v * 2 for v in rows["wall_ns"]]
    path.unlink()
    store.write_timings(small_run, int(path.stem), rows)
    old = _old_summary(small_run)
    pd.testing.assert_frame_equal(RunSet(small_run).summary[list(old.columns)], old)


def test_write_timings_stores_what_from_pydict_would(tmp_path):
    import pyarrow as pa

    rows = {"run_id": ["r"] * 3, "seq": [1] * 3, "benchmark": ["b"] * 3, "params": ["", "n=1", "é"],
            "engine": ["e"] * 3, "driver": ["d"] * 3, "runtime": ["cpython3.11"] * 3, "process": [0] * 3,
            "iteration": [0, 1, 2], "pid": [5] * 3, "wall_ns": [1.5, 2.0, 3e9], "cpu_ns": [1, 2, 3],
            "check_ok": [True, False, True], "crossings": [None, 2, None], "values_converted": [None] * 3}
    path = store.write_timings(tmp_path, 1, rows)
    want = pa.Table.from_pydict({k: rows[k] for k in RAW_COLUMNS}, schema=store._arrow_schema())
    assert store.plain_strings(store._read_timings_file(path)).equals(want)  # strings read dictionary-encoded


def _warmup_series(rng: np.random.Generator, n: int, start: int, step: float = 0.1) -> np.ndarray:
    x = 1.0 + 0.02 * rng.standard_normal(n)
    x[:start] += step
    return x


def test_long_series_find_the_simulated_end_of_warm_up():
    rng = np.random.default_rng(5)
    n, start = 6000, 757  # above EXACT_MAX: block means, then refined to the iteration
    assert n > warmup.EXACT_MAX
    found = stats.steady_states([_warmup_series(rng, n, start) for _ in range(20)]
                                + [1.0 + 0.02 * rng.standard_normal(n) for _ in range(10)])
    assert [c for _, c in found[:20]] == ["warm-up"] * 20
    assert all(abs(s - start) <= 2 for s, _ in found[:20]), [s for s, _ in found[:20]]
    assert sum(c == "flat" for _, c in found[20:]) >= 9


def test_block_changepoints_agree_with_the_exact_optimum(monkeypatch):
    rng = np.random.default_rng(6)
    series = ([_warmup_series(rng, 900, s) for s in (40, 233, 451)] + [_warmup_series(rng, 900, 300, -0.1)]
              + [1.0 + 0.02 * rng.standard_normal(900) for _ in range(4)])
    monkeypatch.setattr(warmup, "EXACT_MAX", 10**9)
    exact = stats.steady_states(series)
    monkeypatch.setattr(warmup, "EXACT_MAX", 0)
    blocks = stats.steady_states(series)
    assert [c for _, c in blocks] == [c for _, c in exact]
    assert all((a is None and b is None) or abs(a - b) <= math.ceil(900 / warmup.BLOCKS)
               for (a, _), (b, _) in zip(blocks, exact))


def test_two_runs_with_the_same_process_numbers_stay_apart_on_both_paths(small_run, tmp_path, monkeypatch):
    """Process numbers repeat across runs: both paths keep process 0 of one run and process 0 of
    the other apart (a process is its cell, number and run), so the counts are the sum."""
    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    df = simdata.simulate_run(benchmarks=3, engines=("a", "b"), processes=4, iterations=12, warmup=2,
                              invalid_rate=0.1, seed=8)
    other = store.write_imported_run(tmp_path / "runs2", df, {"source": "test"})
    raw = store.load_runs([small_run, other])
    old = attach_run_facts(stats.summarize_cells(raw), cell_counts(raw),
                           store.load_process_records([small_run, other]), [small_run, other])
    pd.testing.assert_frame_equal(RunSet([small_run, other]).summary[list(old.columns)], old)


def test_a_file_rewritten_to_the_same_size_and_mtime_is_hashed_again(tmp_path, monkeypatch):
    """The stat index (content hash remembered under path, inode, size, mtime and ctime) never
    returns an old hash for new bytes, even when a file keeps its size and its mtime is set back."""
    import os

    from harness.analysis import cache

    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(fsutil, "RACY_NS", 0)  # files written a moment ago may be indexed
    files = [tmp_path / f"f{i}.bin" for i in range(3)]
    for i, f in enumerate(files):
        f.write_bytes(bytes([i]) * 100)
    first = cache.hash_files(files, "x")
    assert list((tmp_path / "cache" / "stat-index").rglob("*.txt")), "the hash was not indexed"
    assert cache.hash_files(files, "x") == first
    st = os.stat(files[1])
    time.sleep(0.05)  # past the file system's timestamp granularity (RACY_NS guards this in use)
    files[1].write_bytes(b"\xff" * 100)
    os.utime(files[1], ns=(st.st_atime_ns, st.st_mtime_ns))
    second = cache.hash_files(files, "x")
    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", "off")
    assert second != first and second == cache.hash_files(files, "x")


def test_a_malformed_stat_index_entry_is_recomputed(tmp_path, monkeypatch):
    from harness.analysis import cache

    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(fsutil, "RACY_NS", 0)
    f = tmp_path / "f.bin"
    f.write_bytes(b"abc")
    good = cache.hash_files([f], "x")
    (entry,) = (tmp_path / "cache" / "stat-index").rglob("*.txt")
    for bad in ("garbage", entry.read_text()[:-5], entry.read_text().replace(good, "zz")):
        entry.write_text(bad)
        assert cache.hash_files([f], "x") == good


def test_process_records_are_read_once_and_again_when_a_record_changes(small_run, monkeypatch):
    import os

    monkeypatch.setattr(fsutil, "RACY_NS", 0)
    reads = []
    real = store._read_process_records
    monkeypatch.setattr(store, "_read_process_records", lambda paths: reads.append(paths) or real(paths))
    first = store.process_records(small_run)
    second = store.process_records(small_run)
    assert len(reads) == 1 and second == first
    second[0]["status"] = "mutated"  # callers get their own dicts
    assert store.process_records(small_run)[0]["status"] == "ok"
    # the same size, the mtime set back: the ctime still moves, so the record is read again
    path = small_run / "processes" / "000000.json"
    st = os.stat(path)
    text = path.read_text()
    time.sleep(0.05)  # past the file system's timestamp granularity (RACY_NS guards this in use)
    path.write_text(text.replace('"status": "ok"', '"status": "xx"'))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size
    with pytest.raises(store.DataError, match="not a process record"):
        store.process_records(small_run)
    path.write_text(text)
    assert store.process_records(small_run) == first and len(reads) == 3


def test_the_summary_of_an_incomplete_run_is_not_cached(small_run, tmp_path, monkeypatch):
    """An incomplete run warns as its records load: a cached summary would skip the warning."""
    import json

    monkeypatch.setenv("CROSSINGS_ANALYSIS_CACHE", str(tmp_path / "cache"))
    assert RunSet(small_run)._summary_key() is not None
    manifest = json.loads((small_run / "manifest.json").read_text())
    (small_run / "manifest.json").write_text(json.dumps(dict(manifest, status="interrupted")))
    assert RunSet(small_run)._summary_key() is None
