"""Interference in the analysis: disturbed processes left out, and the canary as a covariate.

Why: the runner flags a process whose CPU others used (`run/interference.py`) and reruns it;
an estimate built from the clean processes measures the code, not the neighbours. A flag is
not a verdict on the numbers, so `keep_contaminated` puts them back, and a cell left with fewer
than three clean processes (the fewest an interval needs) keeps all of them rather than losing
its interval; the summary then counts them as disturbed but not excluded.

The canary (a fixed piece of work each Python worker times between its iterations) says how
fast the process's CPU was: the host's speed phases move it and the benchmark together. The
canary-adjusted mean is regression adjustment on a covariate measured alongside (CUPED: Deng,
Xu, Kohavi and Walker, WSDM 2013; the control-variates estimator), on the log scale, where a
slower phase multiplies every time: per process, log y' = log y - b (log c - log c_ref), with
b the cell's regression slope of log process mean on log canary and c_ref the run's median
canary of that runtime (the run's average machine speed). The estimand is the mean time at
that speed; the interval is a t interval on the adjusted process means with P - 2 degrees of
freedom (one more spent on b). It removes the share rho^2 of the between-process variance
that the canary explains and is printed beside the raw interval, never in its place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
import pandas as pd
from scipy import stats as sps

#: a process key as the series name it: (benchmark, params, engine, runtime, process, run_id)
ProcessKey = tuple
#: fewest processes with a canary for an adjusted interval (b and the mean cost two degrees of freedom)
MIN_ADJUST_PROCESSES = 5
#: fewest clean processes a cell keeps before its disturbed ones are left out (an interval needs 3)
MIN_CLEAN = 3


def _process_key(r: Any) -> ProcessKey:
    """A process record's key, as the series name processes."""
    return (r.benchmark, r.params, r.engine, r.runtime, int(r.process), getattr(r, "run_id", ""))


def flagged(procs: pd.DataFrame) -> set[ProcessKey]:
    """The ok processes the runner called disturbed (records' `interference.contaminated`)."""
    if procs.empty or "interference" not in procs:
        return set()
    out = set()
    for r in procs.itertuples(index=False):
        if getattr(r, "status", "") == "ok" and isinstance(r.interference, dict) and r.interference.get(
                "contaminated") is True:
            out.add(_process_key(r))
    return out


def reruns_per_cell(procs: pd.DataFrame) -> dict[tuple, int]:
    """Per cell (benchmark, params, engine, runtime), how many of its processes were reruns."""
    if procs.empty or "rerun_of" not in procs:
        return {}
    r = procs[procs["rerun_of"].notna()]
    return {tuple(k): int(len(g)) for k, g in r.groupby(["benchmark", "params", "engine", "runtime"])}


@dataclass
class Exclusion:
    """What leaving out disturbed processes did, per cell."""

    keys: list[tuple]
    xs: list[np.ndarray]
    steady: list
    flagged: dict[tuple, int]       # per cell: processes flagged disturbed
    excluded: dict[tuple, int]      # per cell: processes left out of the estimate
    kept_too_few: set[tuple]        # cells that kept their flagged processes (fewer than 2 clean)


def exclude(keys: list[tuple], xs: list[np.ndarray], steady: list, bad: set[ProcessKey],
            keep: bool = False) -> Exclusion:
    """The series without the disturbed processes (`bad`), unless `keep`, or unless a cell would
    be left with fewer than MIN_CLEAN clean processes with timings."""
    flagged_n: dict[tuple, int] = {}
    clean_n: dict[tuple, int] = {}
    for key, x in zip(keys, xs):
        cell = tuple(key[:4])
        if tuple(key) in bad:
            flagged_n[cell] = flagged_n.get(cell, 0) + 1
        elif len(x):
            clean_n[cell] = clean_n.get(cell, 0) + 1
    too_few = {c for c in flagged_n if clean_n.get(c, 0) < MIN_CLEAN}
    drop = set() if keep else {k for k in bad if tuple(k[:4]) not in too_few}
    out_k, out_x, out_s = [], [], []
    excluded: dict[tuple, int] = {}
    for key, x, s in zip(keys, xs, steady):
        if tuple(key) in drop:
            excluded[tuple(key[:4])] = excluded.get(tuple(key[:4]), 0) + 1
            continue
        out_k.append(key)
        out_x.append(x)
        out_s.append(s)
    return Exclusion(out_k, out_x, out_s, flagged_n, excluded, set() if keep else too_few)


# ----------------------------------------------------------------------------------------------
# The canary as a covariate
# ----------------------------------------------------------------------------------------------


def canaries(procs: pd.DataFrame) -> dict[ProcessKey, tuple[str, float]]:
    """Per process key, (the canary's work, its median time in ns) where the worker ran one."""
    if procs.empty or "canary" not in procs:
        return {}
    out = {}
    for r in procs.itertuples(index=False):
        c = r.canary
        if isinstance(c, dict) and isinstance(c.get("median_ns"), (int, float)) and c["median_ns"] > 0:
            out[_process_key(r)] = (str(c.get("work") or ""), float(c["median_ns"]))
    return out


def reference_speeds(canary: dict[ProcessKey, tuple[str, float]]) -> dict[tuple[str, str, str], float]:
    """Per (run, runtime, canary work): the median log canary time, the run's average speed."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for key, (work, ns) in canary.items():
        groups.setdefault((key[5], key[3], work), []).append(math.log(ns))
    return {g: float(np.median(v)) for g, v in groups.items()}


@dataclass(frozen=True)
class Adjusted:
    """A cell's canary-adjusted mean and interval, with what the adjustment leaned on."""

    mean: float
    low: float
    high: float
    slope: float         # b: log process mean per log canary
    rho: float           # correlation of log process mean and log canary across processes
    processes: int


def adjust_cell(process_means: Iterable[float], log_canary_offsets: Iterable[float],
                confidence: float = 0.99) -> Adjusted | None:
    """CUPED on the log scale for one cell: process means y_p and their canaries' log offsets
    d_p = log c_p - log c_ref. None when too few processes or the canary does not vary."""
    y = np.asarray(list(process_means), dtype=float)
    d = np.asarray(list(log_canary_offsets), dtype=float)
    ok = np.isfinite(y) & (y > 0) & np.isfinite(d)
    y, d = y[ok], d[ok]
    p = len(y)
    if p < MIN_ADJUST_PROCESSES or float(np.var(d)) <= 0:
        return None
    ly = np.log(y)
    dc = d - d.mean()
    b = float(np.dot(dc, ly - ly.mean()) / np.dot(dc, dc))
    adj = y * np.exp(-b * d)
    rho = float(np.corrcoef(ly, d)[0, 1]) if np.std(ly) > 0 else 0.0
    m = float(adj.mean())
    se = float(adj.std(ddof=1) / math.sqrt(p)) * math.sqrt((p - 1) / (p - 2))
    t = float(sps.t.ppf(0.5 + confidence / 2, p - 2))
    lo, hi = m - t * se, m + t * se
    if lo <= 0:  # a positive quantity never gets a bound <= 0: the interval on the log scale instead
        lm = np.log(adj)
        lse = float(lm.std(ddof=1) / math.sqrt(p)) * math.sqrt((p - 1) / (p - 2))
        lo, hi = float(np.exp(lm.mean() - t * lse)), float(np.exp(lm.mean() + t * lse))
    return Adjusted(m, lo, hi, b, rho, p)


ADJUSTED_COLUMNS = ["adj_mean_s", "adj_ci_low_s", "adj_ci_high_s", "canary_slope", "canary_rho", "canary_processes"]


def adjusted_rows(keys: list[tuple], xs: list[np.ndarray], steady: list, canary: dict[ProcessKey, tuple[str, float]],
                  confidence: float) -> pd.DataFrame:
    """Per cell (benchmark, params, engine, runtime) the canary-adjusted mean and interval of its
    steady-state process means (ADJUSTED_COLUMNS; NaN where it cannot be computed)."""
    ref = reference_speeds(canary)
    per_cell: dict[tuple, tuple[list[float], list[float]]] = {}
    for key, x, (start, _) in zip(keys, xs, steady):
        c = canary.get(tuple(key))
        if c is None or not len(x):
            continue
        r = ref.get((key[5], key[3], c[0]))
        if r is None:
            continue
        x = x[start:] if start is not None and start < len(x) else x
        ys, ds = per_cell.setdefault(tuple(key[:4]), ([], []))
        ys.append(float(np.mean(x)))
        ds.append(math.log(c[1]) - r)
    rows = []
    for cell, (ys, ds) in per_cell.items():
        a = adjust_cell(ys, ds, confidence)
        if a is not None:
            rows.append((*cell, a.mean, a.low, a.high, a.slope, a.rho, a.processes))
    return pd.DataFrame(rows, columns=["benchmark", "params", "engine", "runtime", *ADJUSTED_COLUMNS])


FACT_COLUMNS = ["disturbed", "excluded", "reruns"]


def cell_facts(ex: Exclusion, procs: pd.DataFrame) -> pd.DataFrame:
    """Per cell: processes flagged disturbed, left out of the estimate, and run again (FACT_COLUMNS)."""
    reruns = reruns_per_cell(procs)
    cells = set(ex.flagged) | set(ex.excluded) | set(reruns)
    rows = [(*c, ex.flagged.get(c, 0), ex.excluded.get(c, 0), reruns.get(c, 0)) for c in sorted(cells)]
    return pd.DataFrame(rows, columns=["benchmark", "params", "engine", "runtime", *FACT_COLUMNS])


def drop_flagged_rows(raw: pd.DataFrame, procs: pd.DataFrame) -> pd.DataFrame:
    """Raw rows without those of disturbed processes (what the adaptive protocol's assessment
    and the planner estimate from), keeping a cell's rows where too few clean processes would
    remain, as `exclude` does."""
    bad = flagged(procs)
    if not bad or raw.empty:
        return raw
    pk = ["benchmark", "params", "engine", "runtime", "process"]
    rid = raw["run_id"] if "run_id" in raw else pd.Series("", index=raw.index)
    per_proc = raw[pk].assign(run_id=rid).drop_duplicates()
    keys = [tuple(r) for r in per_proc[pk + ["run_id"]].itertuples(index=False, name=None)]
    ex = exclude(keys, [np.ones(1)] * len(keys), [(None, "")] * len(keys), bad)
    kept = set(ex.keys)
    if len(kept) == len(keys):
        return raw
    mask = [k in kept for k in zip(*(raw[c] for c in pk), rid)]
    return raw[np.asarray(mask, dtype=bool)]


def adjusted_compare_samples(raws: list[pd.DataFrame], procs: list[pd.DataFrame]) -> list[dict[tuple, np.ndarray]]:
    """`compare`'s per-process samples of each side, canary-adjusted to one common speed: each
    process mean times exp(-b d_p), with d_p its log canary offset from the median canary of
    every process of both sides (per runtime and canary work) and b its cell's slope. A cell
    with fewer than MIN_ADJUST_PROCESSES canaries, or whose canary never moved, keeps its raw
    means. Disturbed processes are left out first, as everywhere."""
    # one canary map per side: two cells of one run compared (`--base-params`/`--new-params`) are
    # renamed alike, so their process keys may coincide, and one map would give a side the other's
    per_side = [canaries(p) for p in procs]
    logs: dict[tuple[str, str], list[float]] = {}
    for canary in per_side:
        for key, (work, ns) in canary.items():
            logs.setdefault((key[3], work), []).append(math.log(ns))
    ref = {g: float(np.median(v)) for g, v in logs.items()}
    out = []
    for raw, p, canary in zip(raws, procs, per_side):
        v = drop_flagged_rows(raw, p)
        v = v[v["check_ok"].astype(bool)]
        rid = v["run_id"] if "run_id" in v else pd.Series("", index=v.index)
        means = (v["wall_ns"].astype(float) * 1e-9).groupby(
            [v["benchmark"], v["params"], v["engine"], v["runtime"], v["process"], rid], sort=True).mean()
        side: dict[tuple, np.ndarray] = {}
        for cell, g in means.groupby(level=[0, 1, 2, 3], sort=True):
            keys = [(*k[:4], int(k[4]), k[5]) for k in g.index]
            y = g.to_numpy()
            d = np.array([math.log(canary[k][1]) - ref[(k[3], canary[k][0])] if k in canary else math.nan
                          for k in keys])
            a = adjust_cell(y, np.nan_to_num(d), 0.99) if np.isfinite(d).all() else None
            side[tuple(cell)] = y * np.exp(-a.slope * d) if a is not None else y
        out.append(side)
    return out
