"""Machines as a level: the interval of a cell whose processes ran on two or more machines.

Why: a sharded run (`run --shard`) or runs pooled from several hosts measure each cell on
several machines, and machines differ (CPU stepping, firmware, memory placement, a neighbour on
the host) by more than processes on one machine do. Treating the processes of M machines as P
independent draws then overstates what is known: the spread between machines is seen only M
times. The model is Kalibera and Jones's (2013) with three levels, machine, process and
iteration. The estimate is the mean of the machines' means (each machine's mean of its process
means, each process through its steady-state mean as in the two-level `process-bootstrap`), so
each machine weighs the same however many processes it ran. Its interval is a hierarchical
bootstrap at the top level: machines resampled with replacement, each drawn machine with its
processes as measured (Davison and Hinkley 1997, section 3.8: resampling the top level alone
carries the variance of every level below it), then t on the log scale (positive bounds) with
the replicates' log variance times M/(M-1) and M-1 degrees of freedom. For the same reason the
two-level `process-bootstrap` resamples processes and not iterations. Resampling the processes
within each drawn machine as well (Kalibera and Jones's resampling at every level) counts the
within-machine variance about twice: measured with 3 and 6 machines it covered 98.9-100% where
99% was asked, with intervals up to 1.6 times as wide at 0-5% between-machine spread; the
top-level bootstrap covers 98.6-99.3% (`analysis.coverage.machine_scenarios`). Honest for any
spread between machines, and wide with few machines (2 machines: 1 df).

Only the default method (process-bootstrap) has the machine level; process-t and pooled-t keep
their textbook two-level intervals.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from harness.analysis.stats import CellBoot, CellSample, cell_seed


def group_by_machine(processes: Sequence[np.ndarray], machines: Sequence[str]) -> list[np.ndarray]:
    """Per machine (sorted by id), the means of its processes (empty processes left out)."""
    if len(processes) != len(machines):
        raise ValueError(f"{len(processes)} processes, {len(machines)} machine labels")
    groups: dict[str, list[float]] = {}
    for x, m in zip(processes, machines):
        if len(x):
            groups.setdefault(str(m), []).append(float(np.mean(x)))
    return [np.array(groups[k]) for k in sorted(groups)]


def machine_estimate(groups: Sequence[np.ndarray]) -> float:
    """The mean of the machines' means of process means."""
    return float(np.mean([g.mean() for g in groups])) if groups else math.nan


def machine_bootstrap(groups: Sequence[np.ndarray], resamples: int, rng: np.random.Generator) -> np.ndarray:
    """`resamples` replicates of `machine_estimate`: machines drawn with replacement, each with
    its processes as measured."""
    means = np.array([g.mean() for g in groups])
    pick = rng.integers(0, len(means), size=(resamples, len(means)))
    return means[pick].mean(axis=1)


def machine_note(machines: int) -> str:
    return (f"{machines} machines: interval over machine, process and iteration (hierarchical bootstrap, "
            f"{machines - 1} df)")


def machine_boot(sample: CellSample, machines: Sequence[str], resamples: int = 10000,
                 rng: np.random.Generator | int | None = 0) -> CellBoot:
    """One cell reduced with the machine level (as `stats.cell_boot` reduces it without)."""
    groups = group_by_machine(sample.processes, machines)
    M, P = len(groups), len(sample.processes)
    est = machine_estimate(groups)
    if M < 2:
        raise ValueError("the machine level needs processes from two or more machines")
    if not est > 0:
        return CellBoot(est, P, math.nan, math.nan, "no interval: the mean is not positive", sample=sample)
    reps = machine_bootstrap(groups, resamples, np.random.default_rng(rng))
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log(reps)
    log_var = float(np.var(lr)) * M / (M - 1) if np.all(np.isfinite(lr)) else math.nan
    return CellBoot(est, P, log_var, float(M - 1), machine_note(M), reps, sample)


def machine_boots(samples: dict[tuple, CellSample], machines: dict[tuple, list[str]], resamples: int,
                  seed: int) -> dict[tuple, CellBoot]:
    """`machine_boot` of each cell of `samples` (each with its own generator, as `boot_cells`)."""
    return {k: machine_boot(s, machines[k], resamples, cell_seed(seed, ("machines", *k)))
            for k, s in samples.items() if s.n}


def process_machines(keys: Sequence[tuple], xs: Sequence[np.ndarray],
                     machine_of: dict[tuple, str | None]) -> dict[tuple, list[str]]:
    """Per cell whose processes ran on two or more known machines, each non-empty process's
    machine, in the order `stats.split_series` puts the cell's processes. `keys` are the series'
    (benchmark, params, engine, runtime, process, run_id); `machine_of` maps (run_id, benchmark,
    params, engine, runtime, process) to a machine id (None: not recorded). A cell with any
    process of unknown machine keeps the two-level model."""
    per_cell: dict[tuple, list[str | None]] = {}
    for key, x in zip(keys, xs):
        if len(x):
            bench, params, engine, runtime, process, run_id = key
            per_cell.setdefault(tuple(key[:4]), []).append(
                machine_of.get((run_id, bench, params, engine, runtime, int(process))))
    return {cell: [str(m) for m in ms] for cell, ms in per_cell.items()
            if None not in ms and len(set(ms)) >= 2}
