"""Which round of the interleaved schedule each process ran in, recovered from the run's records.

The runner runs a plan's processes in rounds (every cell once per round, shuffled:
`run.plan.in_rounds`); adaptive rounds and reruns add processes later. Neither plan.json nor a
record names the round, so it is recovered from the order the processes ran in (their records'
`started`, else their seq): walking that order, a new round starts where a cell comes back. For
a plan's rounds this gives exactly `in_rounds`' rounds; where two adaptive rounds meet they may
merge into one, and a rerun placed mid-round cuts one short. Either way a round holds each cell at
most once and is one stretch of time, which is all pairing (`stats.paired`) leans on; the rule
reads only the schedule, never a timing, so it cannot favour an outcome.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from harness.analysis.runset import RunSet

#: a process: (benchmark, params, engine, runtime, process, run_id), as `analysis.series` keys it
ProcessKey = tuple


def process_rounds(procs: pd.DataFrame) -> dict[ProcessKey, tuple[str, int]]:
    """(run_id, round number) of every process that ran, from `store.load_process_records` rows."""
    import pandas as pd

    out: dict[ProcessKey, tuple[str, int]] = {}
    if procs.empty:
        return out
    ran = procs[procs["status"] != "incomplete"]
    when = pd.to_numeric(ran["started"], errors="coerce") if "started" in ran else pd.Series(math.nan, index=ran.index)
    ran = ran.assign(_when=when.fillna(math.inf)).sort_values(["run_id", "_when", "seq"], kind="stable")
    for run_id, g in ran.groupby("run_id", sort=False):
        k, seen = 0, set()
        for r in g.itertuples(index=False):
            cell = (r.benchmark, str(r.params), r.engine, r.runtime)
            if cell in seen:  # the cell comes back: a new round
                k, seen = k + 1, set()
            seen.add(cell)
            out[(*cell, int(r.process), str(run_id))] = (str(run_id), k)
    return out


def cell_rounds(rs: RunSet) -> dict[tuple, dict[tuple[str, int], list[float]]]:
    """Each cell's process means by round: {cell key: {(run_id, round): [means]}}, from the
    processes the estimates use (disturbed ones left out, steady-state iterations when the
    RunSet says so), so a paired ratio reads the numbers the unpaired one reads."""
    rounds = process_rounds(rs.processes)
    ex = rs.exclusion
    out: dict[tuple, dict[tuple[str, int], list[float]]] = {}
    for key, x, (start, _) in zip(ex.keys, ex.xs, ex.steady):
        y = x[start:] if rs.steady_state and start is not None else x
        r = rounds.get((*key[:4], int(key[4]), str(key[5]) if len(key) > 5 else ""))
        if len(y) == 0 or r is None:
            continue
        out.setdefault(tuple(key[:4]), {}).setdefault(r, []).append(float(y.mean()))
    return out
