"""Per-cell summaries of raw timings, and ratios against a baseline with geometric means."""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import pandas as pd

from harness.analysis.stats.intervals import CellBoot, boot_cells, combine_log_ratios, mean_ci
from harness.analysis.stats.parallel import _parallel_map
from harness.analysis.stats.resample import CELL_KEYS, CellSample, _check_method, bootstrap_means, cell_seed
from harness.analysis.stats.warmup import _class_summary, _process_series, flag_outliers, steady_states



def cell_samples(df: pd.DataFrame, steady_state_only: bool = False
                 ) -> tuple[dict[tuple, CellSample], pd.DataFrame]:
    """Split raw timings into valid per-process samples per cell, plus per-cell bookkeeping.

    Returns ({cell key: CellSample}, info) where info has one row per cell with invalid and
    outlier counts and the warm-up class summary, indexed by the cell keys.
    """
    info_cols = CELL_KEYS + ["invalid", "outliers", "warmup", "used"]
    if df.empty:
        return {}, pd.DataFrame(columns=info_cols).set_index(CELL_KEYS)
    keys, xs, _, df = _process_series(df)
    res = steady_states(xs)
    valid = df["check_ok"].astype(bool).to_numpy()
    outl = flag_outliers(df).to_numpy()
    cell_index = df.groupby(CELL_KEYS, sort=True).indices
    per_cell: dict[tuple, tuple[list[np.ndarray], list[str]]] = {tuple(k): ([], []) for k in cell_index}
    for key, x, (start, cls) in zip(keys, xs, res):
        if len(x) == 0:
            continue
        procs, classes = per_cell[key[:4]]
        classes.append(cls)
        procs.append(x[start:] if (steady_state_only and start is not None) else x)
    samples: dict[tuple, CellSample] = {}
    info_rows = []
    for key, idx in cell_index.items():
        key = tuple(key)
        procs, classes = per_cell[key]
        samples[key] = CellSample(procs)
        info_rows.append((*key, int((~valid[idx]).sum()), int(outl[idx].sum()), _class_summary(classes),
                          "steady-state" if steady_state_only else "all"))
    return samples, pd.DataFrame(info_rows, columns=info_cols).set_index(CELL_KEYS)


SUMMARY_COLUMNS = ["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
                   "ci_high_s", "median_s", "std_s", "n", "method", "confidence", "invalid", "outliers", "warmup",
                   "used"]


def summary_rows(samples: dict[tuple, CellSample], info: pd.DataFrame, method: str, confidence: float,
                  boots: dict[tuple, CellBoot] | None, resamples: int, seed: int) -> pd.DataFrame:
    infos = dict(zip(info.index, info.itertuples(index=False)))

    def row(key: tuple) -> tuple:
        s = samples[key]
        n = s.n
        flat = s.flat
        reps = boots[key].reps if boots is not None and key in boots else None
        if method == "hierarchical" and reps is None and n >= 2:
            reps = bootstrap_means(s, method, resamples, cell_seed(seed, key))
        mean, lo, hi = mean_ci(s, method, confidence, resamples, cell_seed(seed, key), reps=reps)
        counts = [len(p) for p in s.processes]
        it = int(np.median(counts)) if counts and min(counts) == max(counts) else (int(round(np.mean(counts))) if counts else 0)
        inf = infos[key]
        return (*key, len(s.processes), it, mean, lo, hi,
                float(np.median(flat)) if n else math.nan,
                float(flat.std(ddof=1)) if n > 1 else math.nan, n, method, confidence,
                int(inf.invalid), int(inf.outliers), inf.warmup, inf.used)

    rows = _parallel_map(row, list(samples))
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    return out


def summarize_cells(df: pd.DataFrame, method: str = "hierarchical", confidence: float = 0.99,
                    resamples: int = 10000, seed: int = 0, steady_state: bool = False) -> pd.DataFrame:
    """One row per cell (benchmark, params, engine, runtime): mean, CI, median, sd and bookkeeping.

    Columns: benchmark, params, engine, runtime, processes, iterations (per process; the mean if
    processes differ), mean_s, ci_low_s, ci_high_s, median_s, std_s, n (iterations used), method,
    confidence, invalid (iterations whose check failed: excluded), outliers (Tukey-flagged, kept),
    warmup (classes of the processes, e.g. "flat:4,warm-up:1"), used ("all" or "steady-state").
    With steady_state=True each process contributes only its iterations from its detected
    steady-state start; processes with no steady state contribute all of theirs.
    """
    _check_method(method)
    samples, info = cell_samples(df, steady_state_only=steady_state)
    boots = boot_cells(samples, method, resamples, seed, logs=False) if method == "hierarchical" else None
    return summary_rows(samples, info, method, confidence, boots, resamples, seed)


# ----------------------------------------------------------------------------------------------
# Baseline ratios over a whole run (what the SQPyte tables show)
# ----------------------------------------------------------------------------------------------

RATIO_COLUMNS = SUMMARY_COLUMNS[:12] + ["baseline", "ratio", "ratio_ci_low", "ratio_ci_high"] + SUMMARY_COLUMNS[12:]


def parse_baseline(baseline: str) -> tuple[str, str | None]:
    """`ENGINE` or `ENGINE@RUNTIME` (a runtime prefix: `cpython` matches `cpython3.11.7`)."""
    engine, _, runtime = baseline.partition("@")
    return engine, (runtime or None)


def is_baseline(engine: str, runtime: str, baseline: str) -> bool:
    b_engine, b_runtime = parse_baseline(baseline)
    return engine == b_engine and (b_runtime is None or str(runtime).startswith(b_runtime))


def _find_baseline(keys: Iterable[tuple], key: tuple, baseline: str) -> tuple | None:
    """The baseline cell for `key`. `ENGINE@RUNTIME` names one runtime's cell for every row.
    Plain `ENGINE`: the same runtime's cell (runtimes side by side); failing that the only one,
    or else the CPython one (the harness's own runtime, e.g. for a C or PyPy row)."""
    bench, params, _engine, runtime = key
    b_engine, b_runtime = parse_baseline(baseline)
    cands = [k for k in keys if k[0] == bench and k[1] == params and k[2] == b_engine
             and (b_runtime is None or str(k[3]).startswith(b_runtime))]
    if b_runtime is None and (bench, params, b_engine, runtime) in keys:
        return (bench, params, b_engine, runtime)
    if len(cands) == 1:
        return cands[0]
    cpython = [k for k in cands if str(k[3]).startswith("cpython")]
    return cpython[0] if len(cpython) == 1 else None


def ratio_summary(df: pd.DataFrame, baseline: str, method: str = "hierarchical", confidence: float = 0.99,
                  resamples: int = 10000, seed: int = 0, steady_state: bool = False) -> pd.DataFrame:
    """Cell summaries plus ratio = cell mean / baseline mean (same benchmark, params, runtime) with CI,
    and per (engine, runtime) one geometric-mean row (benchmark "geomean") over the benchmarks
    that have a baseline. The baseline cell of another runtime is used when the baseline engine
    ran the benchmark on exactly one runtime (e.g. a C baseline for Python engines).

    Every cell is bootstrapped once; its replicates serve its own CI, its ratios and the
    geometric means, so ratio replicates pair independent draws of the two sides.
    """
    _check_method(method)
    samples, info = cell_samples(df, steady_state_only=steady_state)
    boots = boot_cells(samples, method, resamples, seed)
    return ratio_rows(samples, info, boots, baseline, method, confidence, resamples, seed, steady_state)


def ratio_rows(samples: dict[tuple, CellSample], info: pd.DataFrame, boots: dict[tuple, CellBoot], baseline: str,
               method: str, confidence: float, resamples: int, seed: int, steady_state: bool) -> pd.DataFrame:
    """`ratio_summary` of cells already split and bootstrapped (`boots` holds at least every
    non-empty cell of `samples`; cells outside `samples` are ignored)."""
    boots = {k: boots[k] for k in samples if k in boots}
    summ = summary_rows(samples, info, method, confidence, boots, resamples, seed)
    keys = set(boots)
    ratios, groups, jobs = [], {}, []
    for key in samples:
        bkey = _find_baseline(keys, key, baseline)
        if key not in boots or bkey is None:
            ratios.append((None, math.nan, math.nan, math.nan))
            continue
        jobs.append([(boots[key], boots[bkey])])
        ratios.append((f"{bkey[2]}@{bkey[3]}", len(jobs) - 1))
        groups.setdefault((key[2], key[3]), []).append((key, bkey))
    geo_first = len(jobs)
    jobs += [[(boots[a], boots[b]) for a, b in pairs] for pairs in groups.values()]
    combined = _parallel_map(lambda pairs: combine_log_ratios(pairs, confidence), jobs)
    ratios = [r if r[0] is None else (r[0], *combined[r[1]]) for r in ratios]
    summ["baseline"] = [r[0] for r in ratios]
    summ["ratio"] = [r[1] for r in ratios]
    summ["ratio_ci_low"] = [r[2] for r in ratios]
    summ["ratio_ci_high"] = [r[3] for r in ratios]
    geo_rows = []
    for i, ((engine, runtime), pairs) in enumerate(groups.items()):
        g, lo, hi = combined[geo_first + i]
        means = [boots[a].mean for a, _ in pairs]
        gm = float(np.exp(np.mean(np.log(means)))) if all(m > 0 for m in means) else math.nan
        geo_rows.append({"benchmark": "geomean", "params": "", "engine": engine, "runtime": runtime,
                         "processes": np.nan, "iterations": np.nan, "mean_s": gm, "ci_low_s": np.nan,
                         "ci_high_s": np.nan, "median_s": np.nan, "std_s": np.nan, "n": len(pairs),
                         "baseline": baseline, "ratio": g, "ratio_ci_low": lo, "ratio_ci_high": hi,
                         "method": method, "confidence": confidence, "invalid": np.nan, "outliers": np.nan,
                         "warmup": "", "used": "steady-state" if steady_state else "all"})
    out = pd.concat([summ, pd.DataFrame(geo_rows, columns=summ.columns)], ignore_index=True) if geo_rows else summ
    return out[RATIO_COLUMNS]


# ----------------------------------------------------------------------------------------------
