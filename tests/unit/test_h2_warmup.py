"""The H2 warm-up sensitivity (Section 5.1): H2 / SQLite from PyPy from each process's last iteration,
checked against values built to be known."""
from types import SimpleNamespace

import numpy as np

from harness.studies import h2


def _runs(h2_last: float, pypy_last: float, first_factor: float, spread: float = 0.0, queries: int = 3):
    keys, xs = [], []
    rng = np.random.default_rng(1)
    for q in range(queries):
        for p in range(6):
            noise = 1 + spread * rng.standard_normal()
            keys.append((f"tpch.q0{q + 1}", "sf=0.01", "h2/jdbc", "jvm-17.0.15", p, "r"))
            xs.append(np.array([h2_last * first_factor, h2_last * 1.5, h2_last * noise]))
            keys.append((f"tpch.q0{q + 1}", "sf=0.01", "sqlite/sqlite3", "pypy3.9", p, "r"))
            xs.append(np.array([pypy_last, pypy_last * noise]))
            # a twin and another engine never enter
            keys.append((f"tpch.q0{q + 1}", "aa=twin,sf=0.01", "sqlite/sqlite3", "pypy3.9", p, "r"))
            xs.append(np.array([1.0, 1.0]))
            keys.append((f"tpch.q0{q + 1}", "sf=0.01", "duckdb", "cpython3.11.7", p, "r"))
            xs.append(np.array([9.0, 9.0]))
    return SimpleNamespace(exclusion=SimpleNamespace(keys=keys, xs=xs), confidence=0.99)


def test_the_last_iterations_give_the_ratio_and_the_first_over_last():
    w = h2.warmup_sensitivity(_runs(0.2, 0.1, 5.0))
    assert w["benchmarks"] == 3
    assert abs(w["ratio"] - 2.0) < 1e-9 and w["low"] <= 2.0 <= w["high"]
    assert abs(w["first_over_last"]["h2"] - 5.0) < 1e-9 and abs(w["first_over_last"]["pypy"] - 1.0) < 1e-9


def test_noisy_last_iterations_widen_the_interval_around_the_truth():
    tight = h2.warmup_sensitivity(_runs(0.3, 0.1, 2.0, spread=0.01))
    wide = h2.warmup_sensitivity(_runs(0.3, 0.1, 2.0, spread=0.2))
    assert tight["low"] < 3.0 * 1.05 and tight["high"] > 3.0 / 1.05
    assert (wide["high"] / wide["low"]) > (tight["high"] / tight["low"])
    assert wide["low"] > 0


def test_too_few_benchmarks_say_nothing():
    assert h2.warmup_sensitivity(_runs(0.2, 0.1, 5.0, queries=1)) is None
    assert h2.warmup_sentence(_runs(0.2, 0.1, 5.0, queries=1)) == ""

