"""Accuracy of warm-up detection on synthetic run sequences with known truth (issue 10).

Shapes (50 iterations, 2% Gaussian noise): flat, flat with spikes, a 5% warm-up over the first
10 iterations, a 3x warm-up over the first 5, a slowdown (+20% from iteration 20), a late step
(+20% from iteration 42: too late to call steady), a trend (+30% over the run), a periodic
pattern (10% sine, period 10). A detection is right when its class is the truth's and, for
warm-up and slowdown, its start is within 2 iterations of the truth.

Columns: ours (harness.analysis.stats.steady_state); the previous rule (tolerance 2 noise sd, no
drift or oscillation test); plain ruptures (Pelt, l2 cost, BIC penalty 2 sigma^2 log n on the raw
series, the last segment is the steady state if it covers >= 25% of the run, no merging); and
the agreement of our changepoint search with ruptures' Pelt(l2) at the same penalty.
Usage: python benchmarks/steady_state_accuracy.py [series per shape]
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.analysis import stats  # noqa: E402
from harness.analysis.stats import warmup  # noqa: E402

N, SD = 50, 0.02
I = np.arange(N)


def shapes(rng: np.random.Generator) -> dict[str, tuple[np.ndarray, tuple[int | None, str]]]:
    noise = rng.normal(0, SD, N)
    spikes = np.ones(N)
    spikes[rng.choice(np.arange(5, N), 3, replace=False)] = 3.0
    return {
        "flat": (1 + noise, (0, "flat")),
        "spikes": (spikes + noise, (0, "flat")),
        "5% warm-up (10 it.)": (np.r_[np.full(10, 1.05), np.ones(40)] + noise, (10, "warm-up")),
        "3x warm-up (5 it.)": (np.r_[np.full(5, 3.0), np.ones(45)] + noise, (5, "warm-up")),
        "slowdown (+20% at 20)": (np.r_[np.ones(20), np.full(30, 1.2)] + noise, (20, "slowdown")),
        "late step (+20% at 42)": (np.r_[np.ones(42), np.full(8, 1.2)] + noise, (None, "no steady state")),
        "trend (+30%)": (np.linspace(1, 1.3, N) + noise, (None, "no steady state")),
        "periodic (10% sine)": (1 + 0.1 * np.sin(2 * np.pi * I / 10) + noise, (None, "no steady state")),
    }


def right(found: tuple[int | None, str], truth: tuple[int | None, str]) -> bool:
    if found[1] != truth[1]:
        return False
    return truth[1] not in ("warm-up", "slowdown") or abs(found[0] - truth[0]) <= 2


def previous_rule(x: np.ndarray) -> tuple[int | None, str]:
    """The rule before issue 10: merge neighbours closer than max(1%, 2 noise sd); no drift test."""
    sigma = warmup._noise_sd(x)
    z = (x - np.median(x)) / sigma
    ends = stats.changepoints(z, 4 * math.log(len(x)))
    bounds = [0] + ends
    segs = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        if segs and b - a < max(3, math.ceil(0.05 * len(x))):
            segs[-1] = (segs[-1][0], b)
        else:
            segs.append((a, b))
    med = lambda s: float(np.median(x[s[0]:s[1]]))  # noqa: E731
    changed = True
    while changed and len(segs) > 1:
        changed = False
        for i in range(len(segs) - 1):
            if abs(med(segs[i]) - med(segs[i + 1])) <= max(0.01 * abs(med(segs[i + 1])), 2 * sigma):
                segs[i] = (segs[i][0], segs[i + 1][1])
                del segs[i + 1]
                changed = True
                break
    if len(segs) == 1:
        return 0, "flat"
    if segs[-1][1] - segs[-1][0] < max(0.25 * len(x), 2):
        return None, "no steady state"
    return segs[-1][0], "warm-up" if med(segs[-2]) > med(segs[-1]) else "slowdown"


def plain_ruptures(x: np.ndarray) -> tuple[int | None, str]:
    import ruptures as rpt

    sigma = warmup._noise_sd(x)
    ends = rpt.Pelt(model="l2", min_size=2, jump=1).fit(x).predict(pen=2 * sigma**2 * math.log(len(x)) * len(x) / len(x))
    if len(ends) == 1:
        return 0, "flat"
    start = ends[-2]
    if len(x) - start < 0.25 * len(x):
        return None, "no steady state"
    prev = ends[-3] if len(ends) > 2 else 0
    return start, "warm-up" if np.median(x[prev:start]) > np.median(x[start:]) else "slowdown"


def main() -> None:
    import ruptures as rpt

    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rng = np.random.default_rng(20261123)
    names = list(shapes(rng))
    score = {n: [0, 0, 0, 0] for n in names}
    for _ in range(reps):
        for name, (x, truth) in shapes(rng).items():
            s = score[name]
            s[0] += right(stats.steady_state(x), truth)
            s[1] += right(previous_rule(x), truth)
            s[2] += right(plain_ruptures(x), truth)
            z = (x - np.median(x)) / warmup._noise_sd(x)
            pen = 4 * math.log(N)
            s[3] += stats.changepoints(z, pen) == rpt.Pelt(model="l2", min_size=1, jump=1).fit(z).predict(pen=pen)
    print(f"| shape ({reps} series each) | truth | ours | previous rule | plain ruptures Pelt | "
          "changepoints = ruptures Pelt(l2) |")
    print("|---|---|---:|---:|---:|---:|")
    for name in names:
        truth = shapes(np.random.default_rng(0))[name][1]
        t = truth[1] + (f" at {truth[0]}" if truth[1] in ("warm-up", "slowdown") else "")
        s = score[name]
        print(f"| {name} | {t} | {s[0] / reps:.0%} | {s[1] / reps:.0%} | {s[2] / reps:.0%} | {s[3] / reps:.0%} |")


if __name__ == "__main__":
    main()
