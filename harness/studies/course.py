"""The methodology course's experiments (`notebooks/course.py`): small, fast, with known truth.

Each function runs one experiment in a second or two and returns a DataFrame or a dict, so the
notebook only explains and shows. Simulations use `harness.analysis.simdata` (true values known)
and the interval code the harness itself uses (`harness.analysis.stats`), so what the course
teaches is what the harness does.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from harness.analysis import simdata, stats

if TYPE_CHECKING:
    from harness.analysis.series import RunSeries

# ---------------------------------------------------------------------------------------------
# 1. The clock
# ---------------------------------------------------------------------------------------------


def timer_experiment(n: int = 200_000) -> pd.DataFrame:
    """Per clock: the resolution it claims, the smallest step seen between two back-to-back reads,
    the median cost of one read (overhead), and how often two reads return the same value."""
    rows = []
    for name, clock in (("perf_counter_ns", time.perf_counter_ns), ("process_time_ns", time.process_time_ns),
                        ("monotonic_ns", time.monotonic_ns)):
        reads = np.fromiter((clock() for _ in range(n)), dtype=np.int64, count=n)
        d = np.diff(reads)
        info = time.get_clock_info(name.removesuffix("_ns"))
        rows.append({"clock": name, "claimed resolution (ns)": info.resolution * 1e9,
                     "smallest step seen (ns)": int(d[d > 0].min()) if (d > 0).any() else math.nan,
                     "median read-to-read (ns)": float(np.median(d)), "reads equal to the previous": float((d == 0).mean())})
    return pd.DataFrame(rows)


def batch_for_overhead(op_ns: float, overhead_ns: float, max_share: float = 0.01) -> int:
    """How many operations one timed iteration must hold so that the clock's overhead is at most
    `max_share` of what is measured: k >= overhead / (max_share * op)."""
    return max(1, math.ceil(overhead_ns / (max_share * op_ns)))


# ---------------------------------------------------------------------------------------------
# 2. Warm-up and steady state
# ---------------------------------------------------------------------------------------------


def simulated_warmup(processes: int = 5, iterations: int = 40, warmup: int = 5, seed: int = 1) -> pd.DataFrame:
    """Raw timings of one simulated cell whose first `warmup` iterations are 3x slower (truth known)."""
    return simdata.simulate_run(benchmarks=["sim.warmup"], engines=("sim",), processes=processes,
                                iterations=iterations, warmup=warmup, seed=seed)


def detection_rates(trials: int = 300, iterations: int = 40, warmup: int = 5, seed: int = 2) -> pd.DataFrame:
    """How often `stats.steady_state` finds the truth: on series with a warm-up of `warmup`
    iterations, and on flat series (where any warm-up it reports is a false alarm)."""
    rng = np.random.default_rng(seed)
    rows = []
    for label, w in (("warm-up of %d iterations" % warmup, warmup), ("flat (no warm-up)", 0)):
        series = [simdata.simulate_cell(rng, 0.01, 1, iterations, 0.0, 0.01, w)[0] for _ in range(trials)]
        found = stats.steady_states(series)
        classes = pd.Series([c for _, c in found]).value_counts()
        exact = sum(1 for s, c in found if s == w and (c == "warm-up" if w else c == "flat"))
        rows.append({"series": label, "trials": trials, "start found exactly": exact / trials,
                     **{f"class {k}": v / trials for k, v in classes.items()}})
    return pd.DataFrame(rows).fillna(0.0)


def live_run(iterations: int = 30, rows: int = 20_000) -> pd.DataFrame:
    """A real short run in this process: `SELECT id` over an in-memory SQLite table, folded in
    Python, timed with perf_counter_ns; raw-timings columns so the stats and plots take it."""
    import sqlite3

    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    con.executemany("INSERT INTO t VALUES (?)", ((i,) for i in range(1, rows + 1)))
    walls = []
    for _ in range(iterations):
        t0 = time.perf_counter_ns()
        total = sum(r[0] for r in con.execute("SELECT id FROM t"))
        walls.append(time.perf_counter_ns() - t0)
        assert total == rows * (rows + 1) // 2
    con.close()
    n = len(walls)
    return pd.DataFrame({"run_id": "live", "seq": 0, "benchmark": "live.select_fold", "params": f"n={rows}",
                         "engine": "sqlite/sqlite3", "driver": "sqlite3", "runtime": "this kernel", "process": 0,
                         "iteration": np.arange(n), "pid": 0, "wall_ns": np.array(walls, dtype=np.int64),
                         "cpu_ns": np.array(walls, dtype=np.int64), "check_ok": True})


#: the benchmark whose iterations the course's real-data sections plot (E1's select_fold)
REAL_DATA = "bindings.select_fold"


def _runs(root: Path | Iterable[Path] | None) -> list[Path]:
    from harness.analysis.runset import as_run_dirs, default_runs

    try:
        return default_runs() if root is None else as_run_dirs(root)
    except Exception:  # noqa: BLE001  (no runs at all: the course still works on simulations)
        return []


def reference_raw(root: Path | Iterable[Path] | None = None) -> pd.DataFrame | None:
    """`REAL_DATA`'s raw timings in the given runs (default: the committed reference runs), or
    None when there are no runs: only its files are read, not every run's."""
    from harness.analysis.runset import load_raw

    runs = _runs(root)
    return load_raw(runs, benchmark=lambda b: b == REAL_DATA) if runs else None


def reference_series(root: Path | Iterable[Path] | None = None) -> RunSeries | None:
    """Every process's valid times in the given runs (the cached reduction the statistics read;
    reading every raw file of a dozen runs would take seconds), or None when there are no runs."""
    from harness.analysis.series import load_series

    runs = _runs(root)
    return load_series(runs) if runs else None


def warmup_classes(raw: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """Warm-up classes of every process of `benchmark`, counted per engine and runtime."""
    w = stats.warmup_analysis(raw[raw["benchmark"] == benchmark])
    return w.groupby(["engine", "runtime"])["warmup"].value_counts().unstack(fill_value=0).reset_index()


# ---------------------------------------------------------------------------------------------
# 3. Between- and within-process variance
# ---------------------------------------------------------------------------------------------


def process_means(raw: pd.DataFrame, benchmark: str, engine: str) -> pd.DataFrame:
    """Per process of one cell: mean and sd of its iterations (ms): are processes alike?"""
    c = raw[(raw["benchmark"] == benchmark) & (raw["engine"] == engine) & raw["check_ok"]]
    g = c.groupby(["runtime", "process"])["wall_ns"]
    return pd.DataFrame({"mean (ms)": g.mean() / 1e6, "sd within (ms)": g.std() / 1e6,
                         "iterations": g.size()}).reset_index()


def precision_by_design(designs: Sequence[tuple[int, int]] = ((5, 10), (5, 50), (5, 500), (20, 10), (50, 10)),
                        between: float = 0.05, within: float = 0.01, reps: int = 400, seed: int = 3) -> pd.DataFrame:
    """Spread (sd over `reps` repetitions) of a cell's estimated mean for P processes x I
    iterations: more iterations cannot shrink the between-process term, more processes can."""
    rng = np.random.default_rng(seed)
    rows = []
    for P, I in designs:
        est = [simdata.simulate_cell(rng, 1.0, P, I, between, within).mean() for _ in range(reps)]
        theory = math.sqrt(between**2 / P + within**2 / (P * I))
        rows.append({"processes": P, "iterations": I, "timed iterations": P * I,
                     "sd of the estimate (%)": 100 * float(np.std(est, ddof=1)),
                     "theory ~ sqrt(b²/P + w²/(P·I)) (%)": 100 * theory})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# 4. Coverage of intervals
# ---------------------------------------------------------------------------------------------


def coverage(designs: Sequence[tuple[int, int]] = ((5, 10), (5, 50)),
             methods: Sequence[str] = ("pooled-t", "process-t", "process-bootstrap"), sets: int = 200,
             between: float = 0.05, within: float = 0.01, confidence: float = 0.99, resamples: int = 1000,
             seed: int = 4) -> pd.DataFrame:
    """Share of simulated data sets whose `confidence` interval covers the true mean, per design
    and method (the same data sets for every method). A 99% interval should cover ~99%."""
    truth = simdata.true_cell_mean(1.0, between)
    rows = []
    for P, I in designs:
        rng = np.random.default_rng(seed)
        data = [simdata.simulate_cell(rng, 1.0, P, I, between, within) for _ in range(sets)]
        for m in methods:
            hits, widths = 0, []
            for d, x in enumerate(data):
                _, lo, hi = stats.mean_ci(x, m, confidence, resamples, seed=d)
                hits += lo <= truth <= hi
                widths.append((hi - lo) / truth)
            rows.append({"design": f"{P} x {I}", "method": m, "data sets": sets, "coverage": hits / sets,
                         "median width (% of mean)": 100 * float(np.median(widths))})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# 5. Interleaved vs blocked order under drift
# ---------------------------------------------------------------------------------------------


def drift_experiment(drift: float = 0.10, processes: int = 5, iterations: int = 20, trials: int = 300,
                     between: float = 0.02, within: float = 0.01, alpha: float = 0.01, seed: int = 5) -> pd.DataFrame:
    """Two engines with the SAME true time, measured while the machine slows down linearly by
    `drift` over the run. Blocked: all of A's processes, then all of B's; interleaved: the
    processes of both in one random order (what the harness's plan does). Per order: the mean
    estimated ratio B/A, and how often a Welch t-test on log process means calls them different."""
    from scipy import stats as sps

    rng = np.random.default_rng(seed)
    slots = 2 * processes
    rows = []
    for order in ("blocked", "interleaved"):
        ratios, calls = [], 0
        for _ in range(trials):
            who = np.array([0] * processes + [1] * processes)
            if order == "interleaved":
                who = rng.permutation(who)
            slow = 1 + drift * np.arange(slots) / (slots - 1)  # the machine's speed at each slot
            means = np.array([simdata.simulate_cell(rng, 1.0, 1, iterations, between, within)[0].mean() * s
                              for s in slow])
            a, b = np.log(means[who == 0]), np.log(means[who == 1])
            ratios.append(math.exp(b.mean() - a.mean()))
            calls += sps.ttest_ind(b, a, equal_var=False).pvalue < alpha
        rows.append({"order": order, "true ratio": 1.0, "mean estimated ratio B/A": float(np.mean(ratios)),
                     f"'different' at alpha={alpha}": calls / trials})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# 6. Arithmetic vs geometric mean of ratios
# ---------------------------------------------------------------------------------------------


def mean_of_ratios(times_a: Sequence[float], times_b: Sequence[float]) -> pd.DataFrame:
    """Arithmetic and geometric mean of per-benchmark ratios, with each engine as the baseline.
    The geometric mean gives reciprocal answers whichever side is the baseline; the arithmetic
    mean need not, and can call each engine slower than the other."""
    a, b = np.asarray(times_a, float), np.asarray(times_b, float)
    rows = []
    for base, other, r in (("A", "B", b / a), ("B", "A", a / b)):
        am, gm = float(r.mean()), float(np.exp(np.log(r).mean()))
        rows.append({"baseline": base, "ratio": f"{other}/{base}", "arithmetic mean": am, "geometric mean": gm,
                     "arithmetic verdict": _verdict(other, am), "geometric verdict": _verdict(other, gm)})
    return pd.DataFrame(rows)


def _verdict(engine: str, ratio: float) -> str:
    return f"{engine} {'equal' if math.isclose(ratio, 1.0, rel_tol=1e-9) else 'slower' if ratio > 1 else 'faster'}"


def cell_means(series: RunSeries, prefix: str, engine_a: str, engine_b: str,
               runtime: str = "cpython") -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Mean time (all valid iterations) of every cell of a family both engines ran on `runtime`,
    matched by benchmark and parameters, for mean_of_ratios."""
    sums: dict[tuple[str, str, str], list[float]] = {}
    for (benchmark, params, engine, rt, _process, _run), x in zip(series.keys, series.xs):
        if benchmark.startswith(prefix) and str(rt).startswith(runtime) and engine in (engine_a, engine_b) and len(x):
            acc = sums.setdefault((benchmark, params, engine), [0.0, 0])
            acc[0] += float(x.sum())
            acc[1] += len(x)
    means = {k: total / n for k, (total, n) in sums.items()}
    both = sorted({(b, p) for b, p, _ in means if (b, p, engine_a) in means and (b, p, engine_b) in means})
    return (np.array([means[(b, p, engine_a)] for b, p in both]), np.array([means[(b, p, engine_b)] for b, p in both]),
            [f"{b} [{p}]" for b, p in both])


# ---------------------------------------------------------------------------------------------
# 7. Why ± misleads for skewed intervals
# ---------------------------------------------------------------------------------------------


def skewed_interval(seed: int = 6, resamples: int = 4000) -> pd.DataFrame:
    """A ratio interval from the harness's bootstrap on simulated cells with strong between-process
    variance, printed as it is ([low, high]) and as `value ± half-width`, with what each claims."""
    rng = np.random.default_rng(seed)
    a = simdata.simulate_cell(rng, 3.0, 5, 20, 0.25, 0.02)
    b = simdata.simulate_cell(rng, 1.0, 5, 20, 0.05, 0.02)
    r, lo, hi = stats.ratio_ci(a, b, "process-bootstrap", 0.99, resamples, seed=seed)
    hw = (hi - lo) / 2
    return pd.DataFrame([
        {"written as": "[low, high]", "text": f"{r:.2f} [{lo:.2f}, {hi:.2f}]", "claims low": lo, "claims high": hi},
        {"written as": "value ± half-width", "text": f"{r:.2f} ± {hw:.2f}", "claims low": r - hw, "claims high": r + hw},
    ])


def timed(fn: Callable[[], object]) -> tuple[object, float]:
    """(fn(), seconds it took): each experiment says what it cost."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0
