"""Ratios and geometric means paired by round: what time-blocked runs make narrower.

The runner runs cells in rounds (every cell once per round, in random order: randomised multiple
interleaved trials, Abedi and Brecht, ICPE 2017), so the processes of two cells in one round ran
close in time and share the machine's speed of that moment. The paired estimate takes, per
round, the log of the ratio of the two cells' process means in that round (for a geometric mean:
those logs averaged over the benchmarks), then a t interval over the rounds, exponentiated back.
A slow phase of the machine then cancels inside each round instead of widening both cells.

It is valid only over rounds where every cell has a process: the others are dropped (and
counted), and it needs at least MIN_PAIRS rounds. What it estimates is the ratio of the cells'
geometric means over rounds; when the two cells spread alike from process to process this is
the ratio of their means that the unpaired interval (`intervals.combine_log_ratios`) estimates
(`analysis.coverage.pairing_scenarios` measures the gap when the spreads differ).

Where it is valid it is used, whether or not it came out narrower than the unpaired interval:
choosing the narrower of two 99% intervals after seeing both covers less than 99% (measured
97.6% in the plain scenarios), so the choice is made from the design (rounds in common), never
from the widths.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence

import numpy as np

from harness.analysis.stats.intervals import t_interval

#: rounds with both sides needed for a paired interval (2 would give a t with 1 df: 63.7 at 99%)
MIN_PAIRS = 3

#: one cell's process means by round: {round: [means of its processes in that round]}
Rounds = Mapping[Hashable, Sequence[float]]


@dataclass
class Paired:
    """A paired ratio (or geometric mean of ratios): estimate, interval, rounds used and dropped;
    `note` says why there is no interval ('' when there is one)."""

    estimate: float
    low: float
    high: float
    rounds: int
    dropped: int
    note: str = ""

    @property
    def valid(self) -> bool:
        return not self.note


def _round_mean(values: Sequence[float] | None) -> float:
    v = np.asarray(values if values is not None else [], dtype=float)
    return float(v.mean()) if len(v) else math.nan


def paired_geomean(pairs: Sequence[tuple[Rounds, Rounds]], confidence: float = 0.99) -> Paired:
    """exp(mean over rounds of the mean over benchmarks of log(num_k / den_k) in that round), with
    the t interval over rounds; `pairs` holds (num, den) of each benchmark, one pair: a plain
    ratio. Rounds where any cell has no (positive) process mean are dropped."""
    if not pairs:
        return Paired(math.nan, math.nan, math.nan, 0, 0, "no interval: no cells to pair")
    every = set().union(*(set(n) | set(d) for n, d in pairs))
    logs: list[float] = []
    for r in sorted(every, key=repr):
        means = [(_round_mean(n.get(r)), _round_mean(d.get(r))) for n, d in pairs]
        if all(a > 0 and b > 0 for a, b in means):
            logs.append(float(np.mean([math.log(a / b) for a, b in means])))
    used, dropped = len(logs), len(every) - len(logs)
    if used < MIN_PAIRS:
        why = ("no rounds in common (the cells did not run interleaved in rounds)" if used == 0
               else f"{used} round{'s' if used != 1 else ''} in common, pairing needs at least {MIN_PAIRS}")
        est = math.exp(float(np.mean(logs))) if logs else math.nan
        return Paired(est, math.nan, math.nan, used, dropped, f"not paired: {why}")
    m, lo, hi = t_interval(np.array(logs), confidence)
    return Paired(math.exp(m), math.exp(lo), math.exp(hi), used, dropped)


def paired_ratio(num: Rounds, den: Rounds, confidence: float = 0.99) -> Paired:
    """The ratio num / den paired by round (`paired_geomean` of one pair)."""
    return paired_geomean([(num, den)], confidence)
