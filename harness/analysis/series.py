"""Runs read straight into per-process series: what the statistics need, without a raw table.

Why: `store.load_runs` builds one pandas row per iteration (about 400 bytes each with its
strings), so a run of 10 million iterations took minutes and gigabytes before any statistic.
The estimates need far less: per process its valid times in iteration order, and per cell the
invalid and outlier counts and the largest crossings and values-converted counts. This module
reduces each timings file as it is read (memory bounded by one process plus 8 bytes per valid
iteration) and caches the result, with each process's steady state (`warmup.steady_states`),
under data/cache/series/, keyed by a hash of every byte the load reads and of the code
(`cache.py`), so a second look at the same runs reads one file.

The values are exactly those `stats.split_cells` derives from `store.load_runs` (a unit test
compares them): same order, same float operations.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
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


#: values per batch of equal-length processes (bounds the temporary arrays to ~16 MB)
_BATCH_VALUES = 2_000_000


def _tukey_counts(xs_ns: list[np.ndarray], k: float = 1.5) -> np.ndarray:
    """Per process, how many values lie outside its Tukey fences (batched by length, as
    `warmup.flag_outliers` does: the percentiles of each row are the same floats)."""
    out = np.zeros(len(xs_ns), dtype=np.int64)
    by_len: dict[int, list[int]] = {}
    for i, x in enumerate(xs_ns):
        if len(x):
            by_len.setdefault(len(x), []).append(i)
    for n, all_idxs in by_len.items():
        step = max(1, _BATCH_VALUES // n)
        for a in range(0, len(all_idxs), step):
            idxs = all_idxs[a:a + step]
            X = np.stack([xs_ns[i] for i in idxs])
            q1, q3 = np.percentile(X, [25, 75], axis=1, keepdims=True)
            iqr = q3 - q1
            out[idxs] = ((X < q1 - k * iqr) | (X > q3 + k * iqr)).sum(axis=1)
    return out


def _max_or_none(column) -> int | None:
    import pyarrow.compute as pc

    v = pc.max(column).as_py()
    return None if v is None else int(v)


def read_series(run_dirs: Path | str | Iterable[Path | str]) -> RunSeries:
    """Read and reduce every verified timings file of the runs (no cache)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    parts: dict[tuple, list[tuple[np.ndarray | None, np.ndarray]]] = {}
    cell_counts: dict[tuple, list] = {}
    rows = 0
    for _, table in store.iter_timings(run_dirs):
        rows += table.num_rows
        head = {c: table.column(c)[0].as_py() for c in ("benchmark", "params", "engine", "process")}
        # a process is its cell, its number and its run (`warmup.process_keys`): two runs of one
        # cell both number their processes from 0
        run_id = table.column("run_id")[0].as_py() if "run_id" in table.column_names else ""
        runtime_col = table.column("runtime")
        one_runtime = len(set(pc.unique(runtime_col).to_pylist())) == 1  # not a Python string per row
        runtimes = None if one_runtime else \
            pc.cast(runtime_col, pa.string()).to_numpy(zero_copy_only=False)
        its = table.column("iteration").to_numpy()
        wall = table.column("wall_ns").to_numpy()
        ok = table.column("check_ok").to_numpy(zero_copy_only=False).astype(bool)
        cross, conv = table.column("crossings"), table.column("values_converted")
        groups = [(runtime_col[0].as_py(), slice(None))] if runtimes is None else \
            [(r, runtimes == r) for r in sorted(set(runtimes))]
        for runtime, sel in groups:
            cell = (head["benchmark"], head["params"], head["engine"], runtime)
            it, w, valid = its[sel], wall[sel], ok[sel]
            order = np.argsort(it, kind="stable")
            # only the valid times are kept, with their iteration numbers only when they are not
            # simply 0..n-1 in order (the usual file): memory is 8 bytes per valid iteration
            plain = bool(valid.all()) and np.array_equal(it, np.arange(len(it)))
            parts.setdefault((*cell, head["process"], run_id), []).append(
                (None if plain else it[order][valid[order]], np.asarray(w, dtype=float)[order][valid[order]]))
            c = cell_counts.setdefault(cell, [0, None, None])
            c[0] += int((~ok[sel]).sum())
            if isinstance(sel, slice):
                mx = (_max_or_none(cross), _max_or_none(conv))
            else:
                mask = pa.array(sel)
                mx = (_max_or_none(cross.filter(mask)), _max_or_none(conv.filter(mask)))
            c[1:] = [m if old is None else (old if m is None else max(old, m)) for old, m in zip(c[1:], mx)]
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


def _to_arrays(s: RunSeries) -> dict[str, np.ndarray]:
    lengths = np.array([len(x) for x in s.xs], dtype=np.int64)
    flat = np.concatenate(s.xs) if s.xs else np.empty(0)
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
        store.read_manifest(d)  # a missing or unreadable run says so, cached or not
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
