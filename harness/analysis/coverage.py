"""Coverage of the intervals on simulated data with known truth, at the sizes the harness uses.

Each scenario simulates many data sets whose true value is known, computes the interval the
default method gives (the whole pipeline where it matters: steady-state detection included) and
counts how often it covers the truth; it also compares the interval's half-width with the
process-level t interval's on the same data (the textbook interval when process means are
normal). `tests/unit/test_stats_coverage.py` asserts on these numbers; `benchmarks/coverage.py`
prints the table.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from harness.analysis import simdata, stats
from harness.analysis.methods import DEFAULT_METHOD

BETWEEN, WITHIN = 0.05, 0.02


@dataclass
class Coverage:
    """Result of one scenario: coverage of ours and of process-t, median half-width ratio."""

    name: str
    data_sets: int
    coverage: float
    process_t_coverage: float
    width_ratio: float  # median over data sets of (our width) / (process-t width)
    no_interval: int  # data sets where either method gave no interval (counted as misses)

    def row(self) -> str:
        return (f"| {self.name} | {self.data_sets} | {self.coverage:.1%} | {self.process_t_coverage:.1%} | "
                f"{self.width_ratio:.3f} | {self.no_interval} |")


Draw = Callable[[np.random.Generator, int], tuple[float, tuple[float, float], tuple[float, float]]]


def _cell_pair(x: list[np.ndarray], rng: np.random.Generator, resamples: int, confidence: float
               ) -> tuple[tuple[float, float], tuple[float, float]]:
    """(our interval, process-t interval) of one cell's mean."""
    cb = stats.cell_boot(x, DEFAULT_METHOD, resamples, rng)
    _, lo, hi, _ = stats.cell_interval(cb, DEFAULT_METHOD, confidence)
    _, plo, phi = stats.t_interval(np.array([p.mean() for p in x]), confidence)
    return (lo, hi), (plo, phi)


def grid_cell(P: int, I: int, resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """P processes x I iterations: between-process lognormal sd BETWEEN, within-process sd WITHIN."""
    truth = simdata.true_cell_mean(1.0, BETWEEN)

    def draw(rng: np.random.Generator, d: int):
        x = list(simdata.simulate_cell(rng, 1.0, P, I, BETWEEN, WITHIN))
        return truth, *_cell_pair(x, rng, resamples, confidence)

    return draw


def uneven_cell(counts: tuple[int, ...] = (200, 10, 5, 3, 2), between: float = 0.02, within: float = 0.1,
                resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """Uneven iterations per process (what cutting warm-up produces), within-process noise dominant."""
    truth = simdata.true_cell_mean(1.0, between)

    def draw(rng: np.random.Generator, d: int):
        x = [simdata.simulate_cell(rng, 1.0, 1, n, between, within)[0] for n in counts]
        return truth, *_cell_pair(x, rng, resamples, confidence)

    return draw


def outlier_cell(P: int = 5, I: int = 50, sigma: float = 0.05, rate: float = 0.02, factor: float = 5.0,
                 resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """Lognormal within-process noise (sd `sigma` of the log) with `rate` outliers `factor` times slower."""
    truth = math.exp(BETWEEN**2 / 2) * math.exp(sigma**2 / 2) * (1 - rate + rate * factor)

    def draw(rng: np.random.Generator, d: int):
        b = rng.normal(0, BETWEEN, (P, 1))
        x = np.exp(b + rng.normal(0, sigma, (P, I)))
        x = x * np.where(rng.random((P, I)) < rate, factor, 1.0)
        return truth, *_cell_pair(list(x), rng, resamples, confidence)

    return draw


def warmup_cell(P: int = 5, I: int = 50, warmup: int = 5, factor: float = 3.0, resamples: int = 2000,
                confidence: float = 0.99) -> Draw:
    """Every process's first `warmup` iterations `factor` times slower; the truth is the steady
    state, and the interval is the default pipeline's (steady-state detection, then the cut)."""
    truth = simdata.true_cell_mean(1.0, BETWEEN)

    def draw(rng: np.random.Generator, d: int):
        x = simdata.simulate_cell(rng, 1.0, P, I, BETWEEN, WITHIN, warmup=warmup, warmup_factor=factor)
        starts = stats.steady_states(list(x))
        steady = [p[s:] if s is not None else p for p, (s, _) in zip(x, starts)]
        return truth, *_cell_pair(steady, rng, resamples, confidence)

    return draw


def _ratio_parts(pairs, rng, resamples):
    ours = [(stats.cell_boot(a, DEFAULT_METHOD, resamples, rng), stats.cell_boot(b, DEFAULT_METHOD, resamples, rng))
            for a, b in pairs]
    pt = [(stats.cell_boot(a, "process-t"), stats.cell_boot(b, "process-t")) for a, b in pairs]
    return ours, pt


def ratio_cells(P_num: int = 3, P_den: int = 10, I: int = 10, ratio: float = 2.5, resamples: int = 2000,
                confidence: float = 0.99) -> Draw:
    """Ratio of two cells with unequal numbers of processes (same between-process sd: the
    lognormal factor cancels and the true ratio is `ratio`)."""
    def draw(rng: np.random.Generator, d: int):
        a = list(simdata.simulate_cell(rng, ratio, P_num, I, BETWEEN, WITHIN))
        b = list(simdata.simulate_cell(rng, 1.0, P_den, I, BETWEEN, WITHIN))
        ours, pt = _ratio_parts([(a, b)], rng, resamples)
        return ratio, stats.combine_log_ratios(ours, confidence)[1:], stats.combine_log_ratios(pt, confidence)[1:]

    return draw


def geomean_cells(K: int = 22, P: int = 5, I: int = 10, resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """Geometric mean of K ratios (as TPC-H's 22 queries), each side P x I, known ratios."""
    ratios = np.exp(np.linspace(math.log(0.05), math.log(40), K))
    truth = float(np.exp(np.log(ratios).mean()))

    def draw(rng: np.random.Generator, d: int):
        pairs = []
        for k, r in enumerate(ratios):
            base = 0.001 * 1.3**k
            pairs.append((list(simdata.simulate_cell(rng, base * r, P, I, BETWEEN, WITHIN)),
                          list(simdata.simulate_cell(rng, base, P, I, BETWEEN, WITHIN))))
        ours, pt = _ratio_parts(pairs, rng, resamples)
        return truth, stats.combine_log_ratios(ours, confidence)[1:], stats.combine_log_ratios(pt, confidence)[1:]

    return draw


def disturbed_cell(P: int, I: int, between: float = 0.25, contaminated: float = 0.10,
                   slow: tuple[float, float] = (1.5, 2.0),
                   recall: float = 0.95, resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """What this 2-core VM looks like: between-process spread `between` (log sd), a share
    `contaminated` of processes `slow` times slower (a neighbour on the worker's CPU), of which
    the flag catches `recall`; each flagged process is rerun (a fresh draw, within the runner's
    budget of max(2, P/2) reruns) and left out as `analysis.interference.exclude` does (all kept
    when too few clean would remain). The truth is the undisturbed mean."""
    from harness.analysis.interference import exclude

    truth = simdata.true_cell_mean(1.0, between)

    def one(rng: np.random.Generator) -> tuple[np.ndarray, bool]:
        x = simdata.simulate_cell(rng, 1.0, 1, I, between, WITHIN)[0]
        hit = rng.random() < contaminated
        if hit:
            x = x * rng.uniform(*slow)
        return x, bool(hit and rng.random() < recall)

    def draw(rng: np.random.Generator, d: int):
        procs = [one(rng) for _ in range(P)]
        reruns, cap = 0, max(2, P // 2)  # the runner's rerun budget (`Runner.rerun_cap`)
        while reruns < cap and reruns < sum(f for _, f in procs):
            procs.append(one(rng))
            reruns += 1
        keys = [("b", "", "e", "r", p, "run") for p in range(len(procs))]
        ex = exclude(keys, [x for x, _ in procs], [(None, "")] * len(procs),
                     {k for k, (_, f) in zip(keys, procs) if f})
        return truth, *_cell_pair(ex.xs, rng, resamples, confidence)

    return draw


def machine_cell(M: int = 3, P: int | tuple[int, ...] = 4, I: int = 10, spread: float = 0.1,
                 resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """M machines x P processes (or a count per machine) x I iterations with between-machine
    lognormal sd `spread`: ours is the three-level interval (`analysis.machines`), the comparison
    the process-level t interval that ignores the machines."""
    from harness.analysis.machines import machine_boot

    truth = simdata.true_machines_mean(1.0, spread, BETWEEN)

    def draw(rng: np.random.Generator, d: int):
        xs, labels = simdata.simulate_machines(rng, 1.0, M, P, I, spread, BETWEEN, WITHIN)
        cb = machine_boot(stats.CellSample(xs), labels, resamples, rng)
        _, lo, hi, _ = stats.cell_interval(cb, DEFAULT_METHOD, confidence)
        _, plo, phi = stats.t_interval(np.array([p.mean() for p in xs]), confidence)
        return truth, (lo, hi), (plo, phi)

    return draw


def canary_cell(P: int = 10, I: int = 10, phases: float = 0.2, canary_noise: float = 0.03, between: float = 0.05,
                run_processes: int = 200, resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """Speed phases of the host: each process runs in a phase f_p (log sd `phases`) that slows
    the benchmark and the canary alike; the canary is read with noise (log sd `canary_noise`);
    a process also has its own spread (`between`). The estimand of the canary-adjusted mean is the
    mean time at the run's median canary speed (the run: `run_processes` processes of all cells).
    'ours' is the adjusted interval (`analysis.interference.adjust_cell`); process-t is the raw
    interval of the same data, whose width shows what the adjustment saves."""
    from harness.analysis.interference import adjust_cell

    def draw(rng: np.random.Generator, d: int):
        run_log_c = rng.normal(0, phases, run_processes) + rng.normal(0, canary_noise, run_processes)
        ref = float(np.median(run_log_c))
        truth = math.exp(ref) * simdata.true_cell_mean(1.0, between)
        f = rng.normal(0, phases, P)
        log_c = f + rng.normal(0, canary_noise, P)
        x = simdata.simulate_cell(rng, 1.0, P, I, between, WITHIN) * np.exp(f)[:, None]
        a = adjust_cell(x.mean(axis=1), log_c - ref, confidence)
        ours = (a.low, a.high) if a is not None else (math.nan, math.nan)
        _, plo, phi = stats.t_interval(x.mean(axis=1), confidence)
        return truth, ours, (plo, phi)

    return draw


#: the interference scenarios (kept apart from the method's own: their process-t column means
#: something else for the canary, the raw interval's width)
def interference_scenarios(resamples: int = 2000) -> dict[str, Draw]:
    out: dict[str, Draw] = {}
    for P in (3, 10, 30):
        for I in (2, 20):
            out[f"machine-like: spread 25%, 10% disturbed 1.5-2x, 95% caught, P={P} x I={I}"] = disturbed_cell(
                P, I, resamples=resamples)
    out["machine-like: spread 20%, 10% disturbed, none caught, P=10 x I=10"] = disturbed_cell(
        10, 10, between=0.2, recall=0.0, resamples=resamples)
    for P in (5, 10, 30):
        out[f"canary-adjusted: phases 20%, canary noise 3%, P={P} x I=10"] = canary_cell(P, resamples=resamples)
    return out


def machine_scenarios(resamples: int = 2000) -> dict[str, Draw]:
    """The three-level model: between-machine spread 0-20%, 2, 3 and 6 machines of 4 processes x
    10 iterations, and 3 machines of 8, 2 and 2 processes."""
    out = {f"M={M} x P=4 x I=10, machines {spread:.0%}": machine_cell(M, 4, 10, spread, resamples)
           for M in (2, 3, 6) for spread in (0.0, 0.05, 0.1, 0.2)}
    for spread in (0.0, 0.1, 0.2):  # one machine ran most processes: each machine still weighs the same
        out[f"M=3 x P=[8,2,2] x I=10, machines {spread:.0%}"] = machine_cell(3, (8, 2, 2), 10, spread, resamples)
    return out


def scenarios(resamples: int = 2000) -> dict[str, Draw]:
    """Every scenario of issue 10, by name."""
    out: dict[str, Draw] = {}
    for P in (3, 5, 10, 20):
        for I in (1, 10, 50):
            out[f"P={P} x I={I}"] = grid_cell(P, I, resamples)
    out["uneven iterations [200,10,5,3,2]"] = uneven_cell(resamples=resamples)
    out["lognormal noise, 2% outliers at 5x (5x50)"] = outlier_cell(resamples=resamples)
    out["lognormal noise, 2% outliers at 5x (3x10)"] = outlier_cell(P=3, I=10, resamples=resamples)
    out["3x warm-up (5 of 50), steady-state truth"] = warmup_cell(resamples=resamples)
    out["ratio, P=3 vs P=10"] = ratio_cells(resamples=resamples)
    out["geomean of 22 ratios (5x10 each)"] = geomean_cells(resamples=resamples)
    return out


def measure(name: str, draw: Draw, data_sets: int = 1000, seed: int = 20261123) -> Coverage:
    """Run `draw` on `data_sets` simulated data sets: coverage, process-t's, width ratio."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, len(name), sum(map(ord, name))]))
    hits = pt_hits = missing = 0
    ratios = []
    for d in range(data_sets):
        truth, (lo, hi), (plo, phi) = draw(rng, d)
        ok = np.isfinite(lo) and np.isfinite(hi)
        pok = np.isfinite(plo) and np.isfinite(phi)
        missing += not (ok and pok)
        hits += bool(ok and lo <= truth <= hi)
        pt_hits += bool(pok and plo <= truth <= phi)
        if ok and pok and phi > plo:
            ratios.append((hi - lo) / (phi - plo))
    return Coverage(name, data_sets, hits / data_sets, pt_hits / data_sets,
                    float(np.median(ratios)) if ratios else math.nan, missing)


TABLE_HEADER = ("| scenario | data sets | coverage (ours, nominal 99%) | coverage (process-t) | "
                "half-width / process-t (median) | no interval |\n|---|---:|---:|---:|---:|---:|")


# ----------------------------------------------------------------------------------------------
# Pairing by round (issue 21: time-blocked comparisons)
# ----------------------------------------------------------------------------------------------


def paired_cells(K: int = 1, R: int = 10, I: int = 10, phases: float = 0.2,
                 between: tuple[float, float] = (BETWEEN, BETWEEN), missing: float = 0.0,
                 resamples: int = 2000, confidence: float = 0.99) -> Draw:
    """K ratios (K = 1: one ratio; more: their geometric mean) of two cells run in R rounds, one
    process of each cell per round, I iterations each. The machine's speed moves by phases shared
    by every cell of a round (log sd `phases`, drawn afresh each round); each process has its own
    spread (`between`: numerator's, denominator's) and a share `missing` of processes is lost
    (disturbed, left out), so some rounds have one side only. Returns (truth, paired interval,
    unpaired interval); the truth is the ratio of the cells' means, what the unpaired interval
    estimates (the paired one estimates it too when the two spreads are equal)."""
    from harness.analysis.stats.paired import paired_geomean

    ratios = [1.3] if K == 1 else list(np.exp(np.linspace(math.log(0.5), math.log(2.0), K)))
    truth = float(np.exp(np.mean(np.log(ratios)))) * (simdata.true_cell_mean(1.0, between[0])
                                                      / simdata.true_cell_mean(1.0, between[1]))

    def draw(rng: np.random.Generator, d: int):
        speed = np.exp(rng.normal(0.0, phases, R))[:, None]
        rounds, boots = [], []
        for k, r in enumerate(ratios):
            sides = []
            for mu, b in ((0.001 * 1.3**k * r, between[0]), (0.001 * 1.3**k, between[1])):
                x = simdata.simulate_cell(rng, mu, R, I, b, WITHIN) * speed
                kept = [i for i in range(R) if rng.random() >= missing]
                sides.append(({i: [float(x[i].mean())] for i in kept},
                              stats.cell_boot([x[i] for i in kept], DEFAULT_METHOD, resamples, rng)))
            rounds.append((sides[0][0], sides[1][0]))
            boots.append((sides[0][1], sides[1][1]))
        p = paired_geomean(rounds, confidence)
        return truth, (p.low, p.high), stats.combine_log_ratios(boots, confidence)[1:]

    return draw


def pairing_scenarios(resamples: int = 2000) -> dict[str, Draw]:
    """Pairing by round beside the unpaired interval: a machine whose speed moves by phases that
    every cell of a round shares (pairing should help), the plain case without phases (pairing
    must not hurt), lost processes, and two cells that spread differently (the paired estimand
    then drifts from the ratio of the means)."""
    out: dict[str, Draw] = {}
    for R in (5, 10, 30):
        out[f"phases 20% by round, ratio, R={R} rounds x I=10"] = paired_cells(R=R, resamples=resamples)
    out["phases 20% by round, geomean of 5 ratios, R=10 x I=10"] = paired_cells(K=5, resamples=resamples)
    out["phases 20% by round, 10% of processes lost, ratio, R=10 x I=10"] = paired_cells(missing=0.1,
                                                                                          resamples=resamples)
    for R in (5, 10, 30):
        out[f"plain (no phases), ratio, R={R} rounds x I=10"] = paired_cells(R=R, phases=0.0, resamples=resamples)
    out["plain (no phases), geomean of 5 ratios, R=10 x I=10"] = paired_cells(K=5, phases=0.0, resamples=resamples)
    out["plain, spreads 25% vs 5%, ratio, R=30 x I=10"] = paired_cells(R=30, phases=0.0, between=(0.25, 0.05),
                                                                        resamples=resamples)
    return out


@dataclass
class PairingCoverage:
    """One pairing scenario: coverage of the paired and the unpaired interval, and of the narrower
    of the two chosen after seeing both (the rule `compare` does not use: it costs coverage),
    and the mean widths of the first two over the truth."""

    name: str
    data_sets: int
    paired: float
    unpaired: float
    narrower: float
    paired_width: float
    unpaired_width: float
    no_paired: int  # data sets where pairing was not valid (fewer than MIN_PAIRS common rounds)

    def row(self) -> str:
        return (f"| {self.name} | {self.data_sets} | {self.paired:.1%} | {self.unpaired:.1%} | {self.narrower:.1%} | "
                f"{self.paired_width:.3f} | {self.unpaired_width:.3f} | {self.no_paired} |")


def measure_pairing(name: str, draw: Draw, data_sets: int = 1000, seed: int = 20261126) -> PairingCoverage:
    """Run a pairing scenario's `draw` on `data_sets` simulated data sets."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, len(name), sum(map(ord, name))]))
    hit = {"p": 0, "u": 0, "s": 0}
    widths: dict[str, list[float]] = {"p": [], "u": []}
    missing = 0
    for d in range(data_sets):
        truth, (plo, phi), (ulo, uhi) = draw(rng, d)
        valid = bool(np.isfinite(plo) and np.isfinite(phi))
        missing += not valid
        u_ok = bool(np.isfinite(ulo) and np.isfinite(uhi))
        narrow = (plo, phi) if valid and (not u_ok or phi / plo < uhi / ulo) else (ulo, uhi)
        for k, (lo, hi) in (("p", (plo, phi)), ("u", (ulo, uhi)), ("s", narrow)):
            if np.isfinite(lo) and np.isfinite(hi):
                hit[k] += bool(lo <= truth <= hi)
                if k in widths:
                    widths[k].append((hi - lo) / truth)
    return PairingCoverage(name, data_sets, hit["p"] / data_sets, hit["u"] / data_sets, hit["s"] / data_sets,
                           float(np.mean(widths["p"])) if widths["p"] else math.nan,
                           float(np.mean(widths["u"])) if widths["u"] else math.nan, missing)


PAIRING_HEADER = ("| scenario | data sets | coverage paired (nominal 99%) | coverage unpaired | coverage of the "
                  "narrower of the two | mean width paired / truth | mean width unpaired / truth | "
                  "pairing not valid |\n|---|---:|---:|---:|---:|---:|---:|---:|")
