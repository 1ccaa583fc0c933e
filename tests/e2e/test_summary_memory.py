"""The summary's working memory at scale: it does not grow with the rows. Here rather than in
tests/unit: it writes and reads 500,000 rows under tracemalloc (about 18 s, a third of the unit
layer's time); the unit layer checks the same code's numbers on small runs
(tests/unit/test_bounded_summary.py)."""
from __future__ import annotations

import tracemalloc
from pathlib import Path

from harness.analysis.series import read_series
from harness.analysis.stats import parallel, warmup
from tests.unit.test_bounded_summary import _write_run


def _traced_summary(run: Path) -> tuple[int, int]:
    """(peak traced bytes of reading and reducing the run, bytes of the times it keeps)."""
    tracemalloc.start()
    try:
        s = read_series(run)
        s.steady_states()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, sum(x.nbytes for x in s.xs)


def test_working_memory_of_the_summary_does_not_grow_with_rows(tmp_path, monkeypatch):
    """Four times the processes: the times kept grow 8 bytes a row (what the exact medians
    need), the memory beyond them does not (the plain path's frame took over 100 bytes a row).
    The batches of the warm-up and outlier steps are bounded in values (a million each, here
    25,000 so that both runs reach the bound)."""
    from harness.analysis import series

    # one thread: with two, the traced peak depends on how they interleave with the garbage
    # collector, and on a busy machine (load 6) it failed 2 of about 6 runs by 3.5 MB
    monkeypatch.setattr(parallel, "THREADS", 1)
    monkeypatch.setattr(warmup, "BATCH_VALUES", 25_000)
    monkeypatch.setattr(series, "_BATCH_VALUES", 25_000)
    small = _write_run(tmp_path / "small", processes=40, iterations=2500)
    large = _write_run(tmp_path / "large", processes=160, iterations=2500)
    _traced_summary(small)  # imports and first-call caches outside the measurement
    peak_s, kept_s = _traced_summary(small)
    peak_l, kept_l = _traced_summary(large)
    assert kept_s == 8 * 100_000 and kept_l == 8 * 400_000
    # beyond the times kept: only each process's bookkeeping (its key, its class), a few KB a
    # process, for 120 more processes; 8 bytes a row more would be 2.4 MB
    assert peak_l - kept_l <= (peak_s - kept_s) + 120 * 4096, (peak_s, kept_s, peak_l, kept_l)
