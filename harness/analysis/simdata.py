"""Simulated raw timings with known truth, for testing statistics and teaching.

A cell's iteration time is  true_mean * exp(b_p) * (1 + e_pi)  where b_p ~ N(0, between) is fixed
for a process and e_pi ~ N(0, within) per iteration: strong between-process variance is what
makes pooled intervals lie. Optional warm-up: the first `warmup` iterations of each process are
`warmup_factor` times slower. The true cell mean is then true_mean * E[exp(b)] (lognormal).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd


def true_cell_mean(true_mean: float, between: float) -> float:
    """Expected iteration time of a cell (steady state) under the model above."""
    return true_mean * math.exp(between**2 / 2)


def simulate_cell(rng: np.random.Generator, true_mean: float, processes: int = 5, iterations: int = 50,
                  between: float = 0.05, within: float = 0.01, warmup: int = 0,
                  warmup_factor: float = 3.0) -> np.ndarray:
    """(processes, iterations) array of seconds for one cell."""
    b = rng.normal(0.0, between, size=(processes, 1))
    e = rng.normal(0.0, within, size=(processes, iterations))
    x = true_mean * np.exp(b) * (1 + e)
    if warmup:
        x[:, :warmup] *= warmup_factor
    return x


def true_machines_mean(true_mean: float, between_machines: float, between: float) -> float:
    """Expected iteration time over machines, processes and iterations (`simulate_machines`)."""
    return true_mean * math.exp(between_machines**2 / 2) * math.exp(between**2 / 2)


def simulate_machines(rng: np.random.Generator, true_mean: float, machines: int = 3,
                      processes: int | Sequence[int] = 4, iterations: int = 10, between_machines: float = 0.1,
                      between: float = 0.05, within: float = 0.01) -> tuple[list[np.ndarray], list[str]]:
    """One cell measured on `machines` machines, `processes` each (or a count per machine): a
    process's iteration times are true_mean * exp(a_m) * exp(b_p) * (1 + e_pi), with
    a_m ~ N(0, between_machines) fixed per machine (the three levels of Kalibera and Jones).
    Returns the processes and their machine ids."""
    counts = [processes] * machines if isinstance(processes, int) else list(processes)
    a = rng.normal(0.0, between_machines, size=len(counts))
    xs, labels = [], []
    for m, count in enumerate(counts):
        x = simulate_cell(rng, true_mean * math.exp(a[m]), count, iterations, between, within)
        xs += list(x)
        labels += [f"m{m}"] * count
    return xs, labels


def simulate_run(benchmarks: int | Sequence[str] = 22, engines: Sequence[str] = ("a", "b", "c", "d"),
                 processes: int = 5, iterations: int = 50, between: float = 0.05, within: float = 0.01,
                 true_means: dict[tuple[str, str], float] | None = None, seed: int = 0,
                 runtime: str = "cpython3.11", params: str = "", warmup: int = 0,
                 invalid_rate: float = 0.0) -> pd.DataFrame:
    """A raw-timings DataFrame (all raw columns) for benchmarks x engines x processes x iterations.

    Default true means: benchmark k has base time 10 ms * 1.2**k and engine j is (1 + j/2)x slower.
    """
    rng = np.random.default_rng(seed)
    names = [f"bench{k:02d}" for k in range(benchmarks)] if isinstance(benchmarks, int) else list(benchmarks)
    frames = []
    seq = 0
    for k, bench in enumerate(names):
        for j, eng in enumerate(engines):
            mu = (true_means or {}).get((bench, eng), 0.01 * 1.2**k * (1 + j / 2))
            x = simulate_cell(rng, mu, processes, iterations, between, within, warmup)
            P, I = x.shape
            proc = np.repeat(np.arange(P), I)
            frames.append(pd.DataFrame({
                "run_id": "sim", "seq": seq + proc, "benchmark": bench, "params": params, "engine": eng,
                "driver": eng.split("/")[-1], "runtime": runtime, "process": proc,
                "iteration": np.tile(np.arange(I), P), "pid": 1000 + seq + proc,
                "wall_ns": x.ravel() * 1e9,
                "cpu_ns": np.round(x.ravel() * 1e9).astype(np.int64),
                "check_ok": rng.random(P * I) >= invalid_rate,
                "crossings": pd.array([None] * (P * I), dtype="Int64"),
                "values_converted": pd.array([None] * (P * I), dtype="Int64"),
            }))
            seq += P
    return pd.concat(frames, ignore_index=True)
