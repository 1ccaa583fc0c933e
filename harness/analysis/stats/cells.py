"""Per-cell summaries of raw timings, and ratios against a baseline with geometric means."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from harness.analysis.methods import DEFAULT_METHOD
from harness.analysis.stats.intervals import CellBoot, boot_cells, cell_interval, combine_log_ratios, pairs_note
from harness.analysis.stats.parallel import _parallel_map
from harness.analysis.stats.resample import CELL_KEYS, CellSample, _check_method
from harness.analysis.stats.warmup import _class_summary, _process_series, flag_outliers, steady_states



def split_cells(df: pd.DataFrame) -> tuple[dict[tuple, CellSample], dict[tuple, CellSample], pd.DataFrame]:
    """Split raw timings into valid per-process samples per cell, both ways, plus bookkeeping.

    Returns (steady, all, info): `steady` keeps each process's iterations from its detected
    steady-state start (a process with no steady state keeps all of its iterations and is
    counted in info's `no_steady`), `all` keeps every valid iteration. info has one row per
    cell (indexed by the cell keys) with invalid and outlier counts and the warm-up classes.
    """
    if df.empty:
        return split_series([], [], [], [], [])
    keys, xs, _, df = _process_series(df)
    valid = df["check_ok"].astype(bool).to_numpy()
    outl = flag_outliers(df).to_numpy()
    cell_index = df.groupby(CELL_KEYS, sort=True).indices
    cells = [tuple(k) for k in cell_index]
    return split_series(keys, xs, cells, [int((~valid[idx]).sum()) for idx in cell_index.values()],
                        [int(outl[idx].sum()) for idx in cell_index.values()])


def split_series(keys: list[tuple], xs: list[np.ndarray], cells: list[tuple], invalid: Sequence[int],
                 outliers: Sequence[int], steady: Sequence[tuple[int | None, str]] | None = None
                 ) -> tuple[dict[tuple, CellSample], dict[tuple, CellSample], pd.DataFrame]:
    """`split_cells` of runs already reduced to per-process series (`analysis.series`): keys
    (cell + process, sorted), each process's valid times in iteration order, the sorted cells
    and their invalid and outlier counts; `steady`: steady_states(xs) if already known."""
    info_cols = CELL_KEYS + ["invalid", "outliers", "warmup", "no_steady"]
    if not cells:
        return {}, {}, pd.DataFrame(columns=info_cols).set_index(CELL_KEYS)
    res = steady_states(xs) if steady is None else steady
    per_cell: dict[tuple, tuple[list[np.ndarray], list[np.ndarray], list[str]]] = {
        tuple(k): ([], [], []) for k in cells}
    for key, x, (start, cls) in zip(keys, xs, res):
        if len(x) == 0:
            continue
        steady, every, classes = per_cell[tuple(key[:4])]
        classes.append(cls)
        every.append(x)
        steady.append(x[start:] if start is not None else x)
    steady_s: dict[tuple, CellSample] = {}
    all_s: dict[tuple, CellSample] = {}
    info_rows = []
    for key, inv, out in zip(cells, invalid, outliers):
        key = tuple(key)
        steady, every, classes = per_cell[key]
        steady_s[key], all_s[key] = CellSample(steady), CellSample(every)
        info_rows.append((*key, int(inv), int(out), _class_summary(classes),
                          sum(c == "no steady state" for c in classes)))
    return steady_s, all_s, pd.DataFrame(info_rows, columns=info_cols).set_index(CELL_KEYS)


def cell_samples(df: pd.DataFrame, steady_state_only: bool = True
                 ) -> tuple[dict[tuple, CellSample], pd.DataFrame]:
    """({cell key: CellSample}, info) of `split_cells`: steady-state iterations (the default) or all."""
    steady, every, info = split_cells(df)
    return (steady if steady_state_only else every), info


SUMMARY_COLUMNS = ["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
                   "ci_high_s", "median_s", "std_s", "n", "method", "confidence", "invalid", "outliers", "warmup",
                   "no_steady", "used", "df", "note", "alt_used", "alt_mean_s", "alt_ci_low_s", "alt_ci_high_s",
                   "disagree"]


def _used(steady_state: bool) -> str:
    return "steady-state" if steady_state else "all"


def disagree(m: float, lo: float, hi: float, am: float, alo: float, ahi: float) -> bool:
    """Whether either estimate lies outside the other's interval (warm-up changes the answer)."""
    out = False
    if np.isfinite(lo) and np.isfinite(hi) and np.isfinite(am):
        out |= not lo <= am <= hi
    if np.isfinite(alo) and np.isfinite(ahi) and np.isfinite(m):
        out |= not alo <= m <= ahi
    return bool(out)


def summary_rows(samples: dict[tuple, CellSample], info: pd.DataFrame, method: str, confidence: float,
                 boots: dict[tuple, CellBoot] | None, resamples: int, seed: int, steady_state: bool = True,
                 alt_boots: dict[tuple, CellBoot] | None = None) -> pd.DataFrame:
    """One row per cell of `samples` (SUMMARY_COLUMNS). `boots`: the cells reduced (computed here
    when None); `alt_boots`: the same cells reduced the other way (all iterations when
    steady_state, else steady state), shown as alt_* with `disagree` when they differ."""
    infos = dict(zip(info.index, info.itertuples(index=False)))
    if boots is None:
        boots = boot_cells(samples, method, resamples, seed)

    def row(key: tuple) -> tuple:
        s = samples[key]
        n = s.n
        flat = s.flat
        cb = boots.get(key)
        mean, lo, hi, note = (cell_interval(cb, method, confidence) if cb is not None
                              else (math.nan, math.nan, math.nan, "no valid iterations"))
        am = alo = ahi = math.nan
        if alt_boots is not None and key in alt_boots:
            am, alo, ahi, _ = cell_interval(alt_boots[key], method, confidence)
        counts = [len(p) for p in s.processes]
        it = int(np.median(counts)) if counts and min(counts) == max(counts) else (int(round(np.mean(counts))) if counts else 0)
        inf = infos[key]
        return (*key, len(s.processes), it, mean, lo, hi,
                float(np.median(flat)) if n else math.nan,
                float(flat.std(ddof=1)) if n > 1 else math.nan, n, method, confidence,
                int(inf.invalid), int(inf.outliers), inf.warmup, int(inf.no_steady), _used(steady_state),
                cb.df if cb is not None and np.isfinite(lo) else math.nan, note,
                _used(not steady_state) if alt_boots is not None else "", am, alo, ahi,
                disagree(mean, lo, hi, am, alo, ahi))

    rows = _parallel_map(row, list(samples))
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def summarize_cells(df: pd.DataFrame, method: str = DEFAULT_METHOD, confidence: float = 0.99,
                    resamples: int = 10000, seed: int = 0, steady_state: bool = True) -> pd.DataFrame:
    """One row per cell (benchmark, params, engine, runtime): mean, CI, median, sd and bookkeeping.

    Columns (SUMMARY_COLUMNS): processes, iterations (per process; the mean if processes differ),
    mean_s (mean of the process means; pooled mean for pooled-t), ci_low_s, ci_high_s (nan and
    a `note` when there is no interval), median_s, std_s, n (iterations used), method,
    confidence, invalid (iterations whose check failed: excluded), outliers (Tukey-flagged,
    kept), warmup (classes of the processes, e.g. "flat:4,warm-up:1"), no_steady (processes
    with no steady state: all their iterations are used), used ("steady-state" or "all"), df,
    and the other choice of iterations as alt_* with `disagree` when the two estimates differ.
    """
    _check_method(method)
    steady, every, info = split_cells(df)
    samples, alt = (steady, every) if steady_state else (every, steady)
    boots = boot_cells(samples, method, resamples, seed)
    alt_boots = boot_cells(alt, method, resamples, seed)
    return summary_rows(samples, info, method, confidence, boots, resamples, seed, steady_state, alt_boots)


# ----------------------------------------------------------------------------------------------
# Baseline ratios over a whole run (what the SQPyte tables show)
# ----------------------------------------------------------------------------------------------

RATIO_COLUMNS = (SUMMARY_COLUMNS[:12] + ["baseline", "ratio", "ratio_ci_low", "ratio_ci_high", "ratio_note",
                                          "alt_ratio", "alt_ratio_ci_low", "alt_ratio_ci_high", "ratio_disagree"]
                 + SUMMARY_COLUMNS[12:])


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


def ratio_summary(df: pd.DataFrame, baseline: str, method: str = DEFAULT_METHOD, confidence: float = 0.99,
                  resamples: int = 10000, seed: int = 0, steady_state: bool = True) -> pd.DataFrame:
    """Cell summaries plus ratio = cell mean / baseline mean (same benchmark, params, runtime) with CI,
    and per (engine, runtime) one geometric-mean row (benchmark "geomean") over the benchmarks
    that have a baseline. The baseline cell of another runtime is used when the baseline engine
    ran the benchmark on exactly one runtime (e.g. a C baseline for Python engines).

    Every cell is reduced once (its own generator); the same parts serve its own CI, its ratios
    and the geometric means. alt_ratio*: the same with the other choice of iterations
    (all iterations when steady_state), ratio_disagree when the two differ.
    """
    _check_method(method)
    steady, every, info = split_cells(df)
    samples, alt = (steady, every) if steady_state else (every, steady)
    boots = boot_cells(samples, method, resamples, seed)
    alt_boots = boot_cells(alt, method, resamples, seed)
    return ratio_rows(samples, info, boots, baseline, method, confidence, resamples, seed, steady_state, alt_boots)


def _ratios(samples: dict[tuple, CellSample], boots: dict[tuple, CellBoot], baseline: str, confidence: float
            ) -> tuple[list[tuple], dict[tuple[str, str], tuple]]:
    """Per cell (baseline name, ratio, low, high, note) and per (engine, runtime) the geometric
    mean's (ratio, low, high, note, benchmarks, geometric mean of the cell means)."""
    keys = set(boots)
    ratios, groups, jobs = [], {}, []
    for key in samples:
        bkey = _find_baseline(keys, key, baseline)
        if key not in boots or bkey is None:
            ratios.append((None, math.nan, math.nan, math.nan, ""))
            continue
        jobs.append([(boots[key], boots[bkey])])
        ratios.append((f"{bkey[2]}@{bkey[3]}", len(jobs) - 1))
        groups.setdefault((key[2], key[3]), []).append((key, bkey))
    geo_first = len(jobs)
    jobs += [[(boots[a], boots[b]) for a, b in pairs] for pairs in groups.values()]
    combined = _parallel_map(lambda pairs: combine_log_ratios(pairs, confidence), jobs)
    ratios = [r if r[0] is None else (r[0], *combined[r[1]], pairs_note(jobs[r[1]])) for r in ratios]
    geo = {}
    for i, (group, pairs) in enumerate(groups.items()):
        means = [boots[a].mean for a, _ in pairs]
        gm = float(np.exp(np.mean(np.log(means)))) if all(m > 0 for m in means) else math.nan
        geo[group] = (*combined[geo_first + i], pairs_note(jobs[geo_first + i]), len(pairs), gm)
    return ratios, geo


def ratio_rows(samples: dict[tuple, CellSample], info: pd.DataFrame, boots: dict[tuple, CellBoot], baseline: str,
               method: str, confidence: float, resamples: int, seed: int, steady_state: bool = True,
               alt_boots: dict[tuple, CellBoot] | None = None) -> pd.DataFrame:
    """`ratio_summary` of cells already split and reduced (`boots` holds at least every
    non-empty cell of `samples`; cells outside `samples` are ignored; `alt_boots` likewise
    for the other choice of iterations, or None)."""
    boots = {k: boots[k] for k in samples if k in boots}
    alt = {k: alt_boots[k] for k in samples if k in alt_boots} if alt_boots is not None else None
    summ = summary_rows(samples, info, method, confidence, boots, resamples, seed, steady_state, alt)
    ratios, geo = _ratios(samples, boots, baseline, confidence)
    alt_ratios, alt_geo = _ratios(samples, alt, baseline, confidence) if alt is not None else (None, {})
    summ["baseline"] = [r[0] for r in ratios]
    for i, col in enumerate(["ratio", "ratio_ci_low", "ratio_ci_high", "ratio_note"], start=1):
        summ[col] = [r[i] for r in ratios]
    for i, col in enumerate(["alt_ratio", "alt_ratio_ci_low", "alt_ratio_ci_high"], start=1):
        summ[col] = [r[i] for r in alt_ratios] if alt_ratios is not None else math.nan
    summ["ratio_disagree"] = [disagree(*r[1:4], *a[1:4]) if alt_ratios is not None else False
                              for r, a in zip(ratios, alt_ratios or ratios)]
    geo_rows = []
    for (engine, runtime), (g, lo, hi, note, k, gm) in geo.items():
        ag, alo, ahi = alt_geo.get((engine, runtime), (math.nan,) * 3)[:3]
        geo_rows.append({"benchmark": "geomean", "params": "", "engine": engine, "runtime": runtime,
                         "processes": np.nan, "iterations": np.nan, "mean_s": gm, "ci_low_s": np.nan,
                         "ci_high_s": np.nan, "median_s": np.nan, "std_s": np.nan, "n": k,
                         "baseline": baseline, "ratio": g, "ratio_ci_low": lo, "ratio_ci_high": hi,
                         "ratio_note": note, "alt_ratio": ag, "alt_ratio_ci_low": alo, "alt_ratio_ci_high": ahi,
                         "ratio_disagree": disagree(g, lo, hi, ag, alo, ahi),
                         "method": method, "confidence": confidence, "invalid": np.nan, "outliers": np.nan,
                         "warmup": "", "no_steady": np.nan, "used": _used(steady_state), "df": np.nan, "note": "",
                         "alt_used": _used(not steady_state) if alt is not None else "", "alt_mean_s": np.nan,
                         "alt_ci_low_s": np.nan, "alt_ci_high_s": np.nan, "disagree": False})
    out = pd.concat([summ, pd.DataFrame(geo_rows, columns=summ.columns)], ignore_index=True) if geo_rows else summ
    return out[RATIO_COLUMNS]
