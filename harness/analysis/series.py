"""Runs read straight into per-process series: what the statistics need, without a raw table.

Why: `store.load_runs` builds one pandas row per iteration (about 400 bytes each with its
strings), so a run of 10 million iterations took minutes and gigabytes before any statistic.
The estimates need far less: per process its valid times in iteration order, and per cell the
invalid and outlier counts and the largest crossings and values-converted counts. This module
reduces each timings file as it is read (memory bounded by a few processes in flight, one or
two per thread, plus 8 bytes per valid iteration: what the exact medians need; 10 million rows
in about 400 MB, 200 of them the imports, 100 million in about 1.1 GB, `make bench-scale`),
decoding only the columns the file's footer does not prove constant (`store.iter_timing_parts`
with `columns`: usually iteration and wall time), and caches the result, with each process's steady state (`warmup.steady_states`),
under data/cache/series/, keyed by a hash of every byte the load reads and of the code
(`cache.py`), so a second look at the same runs reads one file.

The values are exactly those `stats.split_cells` derives from `store.load_runs` (a unit test
compares them): same order, same float operations.

Why pyarrow per file, not one DuckDB scan of every file: the estimators need each process's
times in order (warm-up detection, exact medians, Tukey fences), which no SQL aggregate gives
as the same floats, and on 10 million rows DuckDB took 1.5 s of CPU for the files' checks as
one GROUP BY plus 1.0 s to fetch the times, pyarrow's footer-pruned reading about 1.2 s for both.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness import store
from harness.analysis import cache

KEYS = ["benchmark", "params", "engine", "runtime"]


@dataclass
class RunSeries:
    """Per process (sorted by cell and process number) its valid times in seconds, and per cell
    (sorted) the bookkeeping the summary shows."""

    keys: list[tuple]              # (benchmark, params, engine, runtime, process, run_id)
    xs: list[np.ndarray]           # valid wall times in seconds, in iteration order
    cells: list[tuple]             # every cell with at least one row
    invalid: np.ndarray            # per cell: iterations whose check failed
    outliers: np.ndarray           # per cell: valid iterations outside their process's Tukey fences
    crossings: list[int | None]    # per cell: the largest count recorded (None: none recorded)
    values_converted: list[int | None]
    rows: int = 0
    #: per process (steady-state start or None, warm-up class): `warmup.steady_states` of xs
    steady: list[tuple[int | None, str]] | None = None

    def steady_states(self) -> list[tuple[int | None, str]]:
        if self.steady is None:
            from harness.analysis.stats import steady_states

            self.steady = steady_states(self.xs)
        return self.steady

    def counts_frame(self):
        """KEYS + crossings, values_converted (nullable Int64), as the summary attaches them."""
        import pandas as pd

        df = pd.DataFrame(self.cells, columns=KEYS)
        df["crossings"] = pd.array(self.crossings, dtype="Int64")
        df["values_converted"] = pd.array(self.values_converted, dtype="Int64")
        return df


#: values per batch of equal-length processes (bounds the temporary arrays to ~8 MB, two batches at a time on two threads)
_BATCH_VALUES = 1_000_000


def _tukey_counts(xs_ns: list[np.ndarray], k: float = 1.5) -> np.ndarray:
    """Per process, how many values lie outside its Tukey fences (batched by length, as
    `warmup.flag_outliers` does: the percentiles of each row are the same floats; the batches
    on the statistics' threads)."""
    from harness.analysis.stats.parallel import _parallel_map

    out = np.zeros(len(xs_ns), dtype=np.int64)
    by_len: dict[int, list[int]] = {}
    for i, x in enumerate(xs_ns):
        if len(x):
            by_len.setdefault(len(x), []).append(i)
    batches = [all_idxs[a:a + max(1, _BATCH_VALUES // n)] for n, all_idxs in by_len.items()
               for a in range(0, len(all_idxs), max(1, _BATCH_VALUES // n))]

    def count(idxs: list[int]) -> None:
        X = np.stack([xs_ns[i] for i in idxs])
        q1, q3 = np.percentile(X, [25, 75], axis=1, keepdims=True)
        iqr = q3 - q1
        out[idxs] = ((X < q1 - k * iqr) | (X > q3 + k * iqr)).sum(axis=1)

    _parallel_map(count, batches)
    return out


def _max_or_none(column) -> int | None:
    import pyarrow.compute as pc

    v = pc.max(column).as_py()
    return None if v is None else int(v)


def _bigger(a: int | None, b: int | None) -> int | None:
    return b if a is None else (a if b is None else max(a, b))


@dataclass
class _File:
    """What the reduction needs of one timings file, its columns as numpy arrays."""

    head: dict
    run_id: str
    its: np.ndarray
    wall: np.ndarray
    ok: np.ndarray
    runtime: str | None               # the file's one runtime, or None ...
    runtimes: np.ndarray | None       # ... and then each row's
    maxima: dict                      # runtime -> (largest crossings, largest values_converted)


#: the columns the reduction reads; those a file's footer proves constant are not decoded
#: (`store.iter_timing_parts`): in the usual file only iteration, wall_ns and check_ok are
COLUMNS = ["run_id", "benchmark", "params", "engine", "runtime", "process", "iteration", "wall_ns", "check_ok",
           "crossings", "values_converted"]


def _column_of(part, constants: dict, name: str):
    """A part's column `name`, or (footer-proven constant) that value repeated: a pyarrow array."""
    import pyarrow as pa

    if name in constants:
        return pa.nulls(part.num_rows, pa.int64()) if constants[name] is None else \
            pa.array([constants[name]] * part.num_rows)
    return part.column(name)


def _read_file(file_parts, total: int) -> _File:
    """One file's parts (`store.iter_timing_parts`, each checked as read) as arrays of the columns
    the reduction uses, filled part by part into arrays of the file's `total` rows: 17 bytes a
    row (iteration, wall time, check); the strings are never decoded per row unless a file
    holds several runtimes, the columns its footer proves constant are never decoded
    (`file_parts.constants`), and the other columns are dropped part by part."""
    import pyarrow as pa
    import pyarrow.compute as pc

    consts = getattr(file_parts, "constants", {})
    its = np.empty(total, dtype=np.int64)
    wall = np.empty(total, dtype=float)
    ok = np.empty(total, dtype=bool)
    at = 0
    runtimes, sizes, maxima = [], [], {}
    head = run_id = None
    for part in file_parts:
        n = part.num_rows
        if not n:
            continue
        if at + n > total:
            raise ValueError(f"a timings file holds more rows than its metadata says ({total})")
        if head is None:
            head = {c: consts[c] if c in consts else part.column(c)[0].as_py()
                    for c in ("benchmark", "params", "engine", "process")}
            run_id = consts["run_id"] if "run_id" in consts else part.column("run_id")[0].as_py()
        its[at:at + n] = part.column("iteration").to_numpy()
        wall[at:at + n] = part.column("wall_ns").to_numpy()
        if "check_ok" in consts:
            ok[at:at + n] = bool(consts["check_ok"])
        else:
            ok[at:at + n] = part.column("check_ok").to_numpy(zero_copy_only=False)
        at += n
        sizes.append(n)
        fixed = {c: consts[c] for c in ("crossings", "values_converted") if c in consts}
        if "runtime" in consts:
            names = [consts["runtime"]]
        else:
            col = part.column("runtime")
            names = list(dict.fromkeys(pc.unique(col).to_pylist()))
        if len(names) == 1:
            runtimes.append(names[0])
            got = {names[0]: tuple(fixed[c] if c in fixed else _max_or_none(part.column(c))
                                   for c in ("crossings", "values_converted"))}
        else:
            each = pc.cast(col, pa.string()).to_numpy(zero_copy_only=False)
            runtimes.append(each)
            cross, conv = (_column_of(part, consts, c) for c in ("crossings", "values_converted"))
            got = {r: (_max_or_none(cross.filter(pa.array(each == r))), _max_or_none(conv.filter(pa.array(each == r))))
                   for r in names}
        for r, mx in got.items():
            maxima[r] = tuple(_bigger(a, b) for a, b in zip(maxima.get(r, (None, None)), mx))
    one = all(isinstance(r, str) for r in runtimes) and len(set(runtimes)) == 1
    every = None if one else np.concatenate(
        [np.full(n, r, dtype=object) if isinstance(r, str) else r for n, r in zip(sizes, runtimes)])
    return _File(head, run_id, its[:at], wall[:at], ok[:at], runtimes[0] if one else None, every, maxima)


def _read_files(run_dirs: Path | str | Iterable[Path | str]) -> Iterator[_File]:
    """`_read_file` of every timings file, in load order, decoded on the statistics' threads (`stats.parallel`)
    (Parquet decoding releases the GIL) with at most two files per thread in flight: memory
    stays bounded by a few processes while the reading uses every core."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    from harness.analysis.stats.parallel import _thread_count

    threads = _thread_count(1 << 20)
    files = ((total, parts) for _, total, parts in store.iter_timing_parts(run_dirs, columns=COLUMNS))
    if threads == 1:
        yield from (_read_file(parts, total) for total, parts in files)
        return
    with ThreadPoolExecutor(max_workers=threads) as ex:
        pending: deque = deque()
        try:
            for total, parts in files:
                pending.append(ex.submit(_read_file, parts, total))
                if len(pending) >= 2 * threads:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for fut in pending:  # an error: the files read ahead are dropped, not waited for
                fut.cancel()


def read_series(run_dirs: Path | str | Iterable[Path | str]) -> RunSeries:
    """Read and reduce every verified timings file of the runs (no cache), one file at a time and
    each file in parts (`store.iter_timing_parts`): memory is bounded by one process's 17 bytes
    a row plus 8 bytes per valid iteration of everything read."""
    parts: dict[tuple, list[tuple[np.ndarray | None, np.ndarray]]] = {}
    cell_counts: dict[tuple, list] = {}
    rows = 0
    for f in _read_files(run_dirs):
        rows += len(f.its)
        head = f.head
        groups = [(f.runtime, slice(None))] if f.runtimes is None else \
            [(r, f.runtimes == r) for r in sorted(set(f.runtimes))]
        for runtime, sel in groups:
            cell = (head["benchmark"], head["params"], head["engine"], runtime)
            it, w, valid = f.its[sel], f.wall[sel], f.ok[sel]
            # only the valid times are kept, with their iteration numbers only when they are not
            # simply 0..n-1 in order (the usual file): memory is 8 bytes per valid iteration
            plain = bool(valid.all()) and store.is_range(it)
            if plain:  # the order is the identity: the same floats without sorting or a copy
                kept = (None, w if isinstance(sel, slice) else np.array(w, dtype=float))
            else:
                order = np.argsort(it, kind="stable")
                kept = (it[order][valid[order]], np.asarray(w, dtype=float)[order][valid[order]])
            # a process is its cell, its number and its run (`warmup.process_keys`): two runs of
            # one cell both number their processes from 0
            parts.setdefault((*cell, head["process"], f.run_id), []).append(kept)
            c = cell_counts.setdefault(cell, [0, None, None])
            c[0] += int((~f.ok[sel]).sum())
            c[1:] = [_bigger(old, m) for old, m in zip(c[1:], f.maxima[runtime])]
        del f
    keys = sorted(parts)
    xs_ns = []
    for key in keys:
        ps = parts.pop(key)
        if len(ps) == 1:
            xs_ns.append(ps[0][1])
            continue
        # one process in several files (an imported run may split one): every iteration in the
        # order load_runs + a stable sort by iteration gives (files in load order within an iteration)
        it = np.concatenate([np.arange(len(w)) if i is None else i for i, w in ps])
        w = np.concatenate([w for _, w in ps])
        xs_ns.append(w[np.argsort(it, kind="stable")])
    outl = _tukey_counts(xs_ns)
    cells = sorted(cell_counts)
    cell_pos = {c: i for i, c in enumerate(cells)}
    outliers = np.zeros(len(cells), dtype=np.int64)
    for key, o in zip(keys, outl):
        outliers[cell_pos[key[:4]]] += o
    xs = xs_ns
    for x in xs:
        x /= 1e9  # in place (the same floats as x / 1e9, without a second copy)
    return RunSeries(keys, xs, cells, np.array([cell_counts[c][0] for c in cells], dtype=np.int64), outliers,
                     [cell_counts[c][1] for c in cells], [cell_counts[c][2] for c in cells], rows)


def _to_arrays(s: RunSeries) -> dict[str, np.ndarray | list[np.ndarray]]:
    lengths = np.array([len(x) for x in s.xs], dtype=np.int64)
    flat = list(s.xs)  # stored as one array without concatenating them (`cache.store`)
    meta = {"keys": [list(k) for k in s.keys], "cells": [list(c) for c in s.cells], "crossings": s.crossings,
            "values_converted": s.values_converted, "rows": s.rows,
            "steady": [list(r) for r in s.steady_states()]}
    return {"meta": np.array(json.dumps(meta)), "lengths": lengths, "flat": flat, "invalid": s.invalid,
            "outliers": s.outliers}


def _from_arrays(a: dict[str, np.ndarray]) -> RunSeries:
    meta = json.loads(str(a["meta"]))
    bounds = np.concatenate([[0], np.cumsum(a["lengths"])])
    flat = a["flat"]
    xs = [flat[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
    steady = [(r[0], r[1]) for r in meta["steady"]]
    if len(steady) != len(xs) or len(meta["keys"]) != len(xs):
        raise ValueError("inconsistent entry")
    return RunSeries([tuple(k) for k in meta["keys"]], xs, [tuple(c) for c in meta["cells"]], a["invalid"],
                     a["outliers"], meta["crossings"], meta["values_converted"], int(meta["rows"]), steady)


def load_series(run_dirs: Path | str | Iterable[Path | str], use_cache: bool = True) -> RunSeries:
    """`read_series`, from data/cache/series/ when these exact input bytes were read before."""
    dirs = store.as_run_dirs(run_dirs)
    if not use_cache or cache.cache_dir("series") is None:
        return read_series(dirs)
    for d in dirs:
        store.manifest_of(d)  # a missing or unreadable run says so, cached or not
    key = cache.hash_files(store.input_files(dirs), "series")
    hit = cache.load("series", key)
    if hit is not None:
        try:
            return _from_arrays(hit)
        except (KeyError, ValueError, TypeError):
            pass  # not what this version writes: recompute
    s = read_series(dirs)
    cache.store("series", key, _to_arrays(s))
    return s
