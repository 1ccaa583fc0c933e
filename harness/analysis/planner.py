"""How many processes x iterations a cell needs for a target interval, from a pilot run.

Kalibera & Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013): with two levels of
repetition (fresh processes, iterations within a process) the variance of a cell's mean over
P processes of n steady-state iterations is

    V(P, n) = s2_between / P + s2_within / (P n)

and a process costs c_proc (start, set-up, warm-up, exit) plus n c_iter. Minimising the cost
P (c_proc + n c_iter) for a given V gives iterations per process independent of the target,

    n* = sqrt(c_proc s2_within / (c_iter s2_between)),

after which P is the smallest count whose t interval (P - 1 degrees of freedom, as our
intervals use) reaches the target half-width. Without between-process variance n* is
unbounded; then every process buys only degrees of freedom, and P is searched for the cheapest
plan. The variance components are the method-of-moments (one-way random effects ANOVA)
estimates over each process's steady-state iterations; costs come from the process records
(lifetime `ended - started` against the sum of timed `wall_ns`).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
from scipy import stats as sps

from harness.analysis import textout

#: fewest processes a plan uses: a variance from two processes has one degree of freedom (t = 63.7)
MIN_PROCESSES = 3
MAX_PROCESSES = 100_000
MAX_ITERATIONS = 100_000


@dataclass(frozen=True)
class Components:
    """What a pilot says about one cell (seconds; variances in seconds squared)."""

    mean: float
    s2_between: float
    s2_within: float
    processes: int
    iterations: float
    warmup: int = 0
    c_proc: float = math.nan
    c_iter: float = math.nan
    steady: bool = True
    #: share of the longest processes that end in a slowdown or without a steady state
    unsettled: float = 0.0
    #: the most iterations a process of the cell ran
    longest: int = 0


@dataclass(frozen=True)
class CellPlan:
    """Processes x (warm-up + steady) iterations per process, its cost and predicted half-width."""

    processes: int
    iterations: int
    warmup: int
    machine_s: float
    half_width: float
    reachable: bool
    note: str = ""

    @property
    def total_iterations(self) -> int:
        return self.warmup + self.iterations


def variance_components(processes: Sequence[np.ndarray]) -> tuple[float, float, float]:
    """(mean of all iterations, s2_between, s2_within) by one-way random-effects ANOVA.

    Unbalanced method of moments: s2_within is the pooled within-process variance (MSW),
    s2_between = max(0, (MSB - MSW) / n0) with n0 = (N - sum n_i^2 / N) / (P - 1). NaN where the
    data cannot say (fewer than two processes, or no process with two iterations)."""
    xs = [np.asarray(p, dtype=float) for p in processes if len(p)]
    if not xs:
        return math.nan, math.nan, math.nan
    ns = np.array([len(x) for x in xs], dtype=float)
    N = ns.sum()
    means = np.array([x.mean() for x in xs])
    grand = float((ns * means).sum() / N)
    P = len(xs)
    dfw = N - P
    msw = float(sum(((x - m) ** 2).sum() for x, m in zip(xs, means)) / dfw) if dfw > 0 else math.nan
    if P < 2:
        return grand, math.nan, msw
    msb = float((ns * (means - grand) ** 2).sum() / (P - 1))
    n0 = (N - (ns**2).sum() / N) / (P - 1)
    if not math.isfinite(msw):
        return grand, math.nan, msw
    return grand, max(0.0, (msb - msw) / n0), msw


def _t(confidence: float, df: int) -> float:
    return float(sps.t.ppf(0.5 + confidence / 2, df))


def predicted_half_width(c: Components, processes: int, iterations: int, confidence: float = 0.99) -> float:
    """Relative half-width of the t interval (P - 1 df) of the mean of P x n steady iterations."""
    if processes < 2 or iterations < 1 or not c.mean > 0:
        return math.inf
    v = (c.s2_between + c.s2_within / iterations) / processes
    return _t(confidence, processes - 1) * math.sqrt(v) / c.mean


def optimal_iterations(c_proc: float, c_iter: float, s2_within: float, s2_between: float,
                       max_iterations: int = MAX_ITERATIONS) -> int:
    """Kalibera & Jones's n* = sqrt(c_proc s2_within / (c_iter s2_between)), rounded, in [1, max]."""
    if s2_within <= 0:
        return 1
    if s2_between <= 0:
        return max_iterations
    n = math.sqrt(max(c_proc, 0.0) * s2_within / (c_iter * s2_between))
    return int(min(max(1, round(n)), max_iterations))


def _cost(c: Components, processes: int, iterations: int) -> float:
    return processes * (c.c_proc + (c.warmup + iterations) * c.c_iter)


def _fewest_processes(c: Components, iterations: int, target: float, confidence: float, min_processes: int,
                      max_processes: int) -> int | None:
    lo = max(2, min_processes)
    if predicted_half_width(c, max_processes, iterations, confidence) > target:
        return None
    hi = max_processes  # half-width falls monotonically with P: bisect for the first that meets it
    if predicted_half_width(c, lo, iterations, confidence) <= target:
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicted_half_width(c, mid, iterations, confidence) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def _cheapest_without_between(c: Components, target: float, confidence: float, p_lo: int, p_hi: int,
                              max_iterations: int) -> tuple[int, int]:
    """Search P (vectorised: a geometric grid, then every P near its best) for the least cost
    P (c_proc + (w + n(P)) c_iter) with n(P) = ceil(t(P-1)^2 s2_within / (P H^2))."""
    q = 0.5 + confidence / 2
    H2 = (target * c.mean) ** 2

    def best_of(ps: np.ndarray) -> tuple[float, int, int] | None:
        t = sps.t.ppf(q, ps - 1)
        n = np.maximum(1, np.ceil(t**2 * c.s2_within / (ps * H2) * (1 - 1e-12)))
        cost = ps * (c.c_proc + (c.warmup + n) * c.c_iter)
        cost[n > max_iterations] = np.inf
        i = int(np.argmin(cost))
        return (float(cost[i]), int(ps[i]), int(n[i])) if np.isfinite(cost[i]) else None

    grid = np.unique(np.concatenate([np.arange(p_lo, min(p_lo + 64, p_hi + 1)),
                                     np.geomspace(p_lo, p_hi, 400).astype(np.int64)]))
    best = best_of(grid)
    if best is None:
        return p_hi, max_iterations
    near = np.arange(max(p_lo, int(best[1] / 1.05) - 1), min(p_hi, int(best[1] * 1.05) + 2) + 1)
    best = min(best, best_of(near[:5000]) or best)
    return best[1], best[2]


def plan_cell(c: Components, target: float, confidence: float = 0.99, budget_s: float | None = None,
              min_processes: int = MIN_PROCESSES, max_processes: int = MAX_PROCESSES,
              max_iterations: int = MAX_ITERATIONS) -> CellPlan:
    """The cheapest P x n whose relative half-width is at most `target` (0.03 = +-3%)."""
    if not (math.isfinite(c.mean) and math.isfinite(c.s2_within) and math.isfinite(c.s2_between)) or c.mean <= 0:
        return CellPlan(0, 0, c.warmup, math.nan, math.nan, False,
                        "pilot too small: needs >= 2 processes of >= 2 iterations")
    if not (math.isfinite(c.c_iter) and c.c_iter > 0):
        return CellPlan(0, 0, c.warmup, math.nan, math.nan, False, "no cost per iteration in the pilot")
    cp = c.c_proc if math.isfinite(c.c_proc) else 0.0
    c = Components(**{**asdict(c), "c_proc": max(cp, 0.0)})
    note = "" if c.steady else "no steady state"
    if c.s2_between > 0 or c.s2_within <= 0:
        n = optimal_iterations(c.c_proc, c.c_iter, c.s2_within, c.s2_between, max_iterations)
        p = _fewest_processes(c, n, target, confidence, min_processes, max_processes)
        if p is None:
            p = max_processes
    else:
        # no between-process variance: the cheapest of "P processes of as many iterations as P needs"
        p, n = _cheapest_without_between(c, target, confidence, max(2, min_processes), max_processes, max_iterations)
        note = "; ".join(x for x in (note, "no between-process variance") if x)
    h = predicted_half_width(c, p, n, confidence)
    cost = _cost(c, p, n)
    reachable = h <= target * (1 + 1e-9)
    if not reachable:
        note = "; ".join(x for x in (note, "target out of reach") if x)
    if budget_s is not None and cost > budget_s:
        per = _cost(c, 1, n)
        p_b = int(budget_s // per) if per > 0 else 0
        h_b = predicted_half_width(c, p_b, n, confidence)
        note = "; ".join(x for x in (note, f"over budget: {budget_s:g} s buys {p_b} processes, +-{100 * h_b:.3g}%")
                         if x)
        reachable = False
    return CellPlan(int(p), int(n), int(c.warmup), float(cost), float(h), bool(reachable), note)


# ----------------------------------------------------------------------------------------------
# From a run on disk
# ----------------------------------------------------------------------------------------------

CELL = ["benchmark", "params", "engine", "runtime"]


def costs_per_cell(raw: Any, procs: Any) -> dict[tuple, tuple[float, float, float]]:
    """Per cell: (c_proc, c_iter, machine seconds spent) from process lifetimes and timed sums.

    c_iter is the mean timed iteration; c_proc the mean lifetime of a process minus its timed
    iterations (start-up, set-up, the untimed checks, exit)."""
    out: dict[tuple, tuple[float, float, float]] = {}
    if raw.empty or procs.empty or "started" not in procs:
        return out
    # a process is its run and its seq: several runs number their processes from 0 alike
    by = ["run_id", "seq"] if "run_id" in raw and "run_id" in procs else ["seq"]
    timed = raw.groupby(by)["wall_ns"].agg(["sum", "count"]).rename(columns={"sum": "timed_ns", "count": "n"})
    p = procs[procs["status"].isin(["ok", "invalid"])].merge(timed, left_on=by, right_index=True, how="inner")
    p["timed_s"] = p["timed_ns"].to_numpy(dtype=float) / 1e9
    p["life_s"] = p["ended"].astype(float) - p["started"].astype(float)
    for key, g in p.groupby(CELL, sort=False):
        c_iter = float(g["timed_s"].sum() / g["n"].sum())
        c_proc = float((g["life_s"] - g["timed_s"]).mean())
        out[tuple(key)] = (max(c_proc, 0.0), c_iter, float(g["life_s"].sum()))
    return out


def components_of(raw: Any, procs: Any) -> dict[tuple, Components]:
    """Every cell's variance components (steady-state iterations) and costs."""
    from harness.analysis import stats

    if raw.empty:
        return {}
    samples, info = stats.cell_samples(raw, steady_state_only=True)
    warm = stats.warmup_analysis(raw)
    costs = costs_per_cell(raw, procs)
    by_cell = {tuple(k): g for k, g in warm.groupby(CELL, sort=False)}
    out = {}
    for key, s in samples.items():
        mean, s2b, s2w = variance_components(s.processes)
        w = by_cell.get(key, warm.iloc[:0])
        starts = w["steady_start"].dropna()
        warmup = int(np.median(starts)) if len(starts) else 0
        no_steady = int((w["warmup"] == "no steady state").sum()) if len(w) else 0
        c_proc, c_iter, _ = costs.get(key, (math.nan, math.nan, 0.0))
        lens = [len(x) for x in s.processes if len(x)]
        longest, unsettled = _unsettled(w)
        out[key] = Components(mean, s2b, s2w, len(lens), float(np.mean(lens)) if lens else 0.0, warmup,
                              c_proc, c_iter, steady=no_steady * 2 <= len(w), unsettled=unsettled, longest=longest)
    return out


#: processes at least this share of the longest one's length count as "the longest processes"
LONG_SHARE = 0.75


def _unsettled(warm: Any) -> tuple[int, float]:
    """(most iterations a process ran, share of the processes that long, or nearly, whose series
    ends in a slowdown or has no steady state): judged on the longest processes only, since the
    shorter ones are those the longer plan was made to replace."""
    if warm is None or not len(warm):
        return 0, 0.0
    longest = int(warm["iterations"].max())
    long = warm[warm["iterations"] >= LONG_SHARE * longest]
    return longest, float(long["warmup"].isin(("slowdown", "no steady state")).mean())


def achieved(raw: Any, confidence: float = 0.99, resamples: int | None = None) -> dict[tuple, float]:
    """Each cell's relative half-width (high - low) / (2 mean) by the default interval, steady state
    (what `summary --steady-state` shows; `resamples` None: the statistics' default)."""
    from harness.analysis import stats

    if raw.empty:
        return {}
    kw = {} if resamples is None else {"resamples": resamples}
    summ = stats.summarize_cells(raw, confidence=confidence, steady_state=True, **kw)
    return {tuple(r[c] for c in CELL): relative_half_width(r["mean_s"], r["ci_low_s"], r["ci_high_s"])
            for _, r in summ.iterrows()}


def relative_half_width(mean: float, low: float, high: float) -> float:
    if not (mean and math.isfinite(mean) and math.isfinite(low) and math.isfinite(high)):
        return math.nan
    return float((high - low) / (2 * abs(mean)))


PLAN_COLUMNS = CELL + ["pilot", "mean_s", "sd_between_s", "sd_within_s", "c_proc_s", "c_iter_s", "achieved_pct",
                       "processes", "iterations", "warmup", "machine_s", "predicted_pct", "reachable", "note"]


def plan_runs(run_dirs: Iterable[Path | str], target: float, confidence: float = 0.99,
              budget_s: float | None = None) -> Any:
    """The plan table (PLAN_COLUMNS) of every cell with timings in the runs."""
    import pandas as pd

    from harness import store

    dirs = [Path(d) for d in run_dirs]
    from harness.analysis.interference import drop_flagged_rows

    procs = store.load_process_records(dirs)
    raw = drop_flagged_rows(store.load_runs(dirs), procs)
    comps = components_of(raw, procs)
    got = achieved(raw, confidence)
    rows = []
    for key, c in comps.items():
        p = plan_cell(c, target, confidence, budget_s)
        rows.append((*key, f"{c.processes}x{c.iterations:.3g}", c.mean, math.sqrt(c.s2_between),
                     math.sqrt(c.s2_within), c.c_proc, c.c_iter, 100 * got.get(key, math.nan), p.processes,
                     p.total_iterations, p.warmup, p.machine_s, 100 * p.half_width, p.reachable, p.note))
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


def _pct_text(v: float) -> str:
    return f"±{textout.digits3(v)}%" if math.isfinite(v) else ""


def format_plan(df: Any, target: float, budget_s: float | None, width: int | None = None) -> str:
    """The plan for people, in summary's units (analysis.textout), one row per cell: the pilot's
    mean, its variance components (relative to the mean) and the cost of a process, the
    half-width reached now, the processes x iterations that reach the target and the machine
    time they take; notes numbered under the table, a total, and the cells that cannot reach the
    target. At most `width` characters a line (default 120)."""
    if df.empty:
        return "no cell with timings"
    from harness.analysis.summary import bench_label

    width = width or textout.output_width()
    one_runtime = df["runtime"].nunique() == 1
    one_pilot = df["pilot"].nunique() == 1
    rows, notes = [], {}
    for r in df.to_dict("records"):
        label = [bench_label(r["benchmark"], r["params"]), r["engine"]] + ([] if one_runtime else [r["runtime"]])
        label += [] if one_pilot else [str(r["pilot"]).replace("x", " x ")]
        rel = (lambda v: f"{textout.digits3(100 * v / r['mean_s'])}%") if r["mean_s"] > 0 else (lambda v: "")
        note = str(r.get("note") or "")
        rows.append(label + [
            textout.time_text(r["mean_s"]), rel(r["sd_between_s"]), rel(r["sd_within_s"]),
            textout.seconds_text(r["c_proc_s"]), _pct_text(r["achieved_pct"]),
            f"{int(r['processes'])} x {int(r['iterations'])}", textout.seconds_text(r["machine_s"]),
            _pct_text(r["predicted_pct"]), str(notes.setdefault(note, len(notes) + 1)) if note else ""])
    columns = [textout.Col("benchmark [params]"), textout.Col("engine")] + ([] if one_runtime else [textout.Col("runtime")])
    columns += [] if one_pilot else [textout.Col("pilot", "right", wrap=False)]
    columns += [textout.Col("mean", "right", wrap=False), textout.Col("sd between", "right"),
                textout.Col("sd within", "right"), textout.Col("process", "right", wrap=False),
                textout.Col("now", "right", wrap=False), textout.Col("plan P x I", "right", wrap=False),
                textout.Col("machine", "right", wrap=False), textout.Col("then", "right", wrap=False),
                textout.Col("note", wrap=False)]
    total = float(df["machine_s"].where(np.isfinite(df["machine_s"]), 0).sum())
    bad = df[~df["reachable"]]
    pilot = f"pilot {str(df['pilot'].iloc[0]).replace('x', ' x ')} per cell; " if one_pilot else ""
    lines = [textout.table(columns, rows, width), ""]
    lines += [textout.wrap(f"note {k}: {n}", width, indent="  ") for n, k in notes.items()]
    lines.append(textout.wrap(
        f"target ±{100 * target:g}% (99% half-width, relative). {pilot}sd between / within: the standard deviation "
        "of process means and of iterations within a process, relative to the mean; process: what a process costs "
        "beside its timed iterations (start, set-up, warm-up, exit); now: the half-width the pilot reached; "
        "then: the one the plan predicts" + (f"; runtime {df['runtime'].iloc[0]}" if one_runtime else "")
        + f". Machine time for all cells: {textout.seconds_text(total)} ({total:,.0f} s)", width))
    if budget_s is not None:
        lines.append(f"budget per cell {budget_s:g} s: {len(bad)} of {len(df)} cells cannot reach the target")
    elif len(bad):
        lines.append(f"{len(bad)} of {len(df)} cells cannot reach the target")
    return "\n".join(lines)


def assess_run(run_dir: Path | str, target: float, confidence: float = 0.99, resamples: int | None = None,
               max_iterations: int = MAX_ITERATIONS) -> dict[tuple, dict[str, Any]]:
    """Where each cell of a run in progress stands, for the adaptive protocol (harness.run.adaptive).

    Keyed by (benchmark, params, engine, runtime family), as the run's plan names cells: the
    achieved relative half-width (default interval, steady-state iterations), the variance
    components and costs, the machine seconds spent, and the plan that meets `target` from here.
    """
    from harness import store

    from harness.analysis.interference import drop_flagged_rows

    every = store.load_runs([run_dir])
    procs = store.load_process_records([run_dir])
    if every.empty:
        return {}
    spent = costs_per_cell(every, procs)  # disturbed processes cost machine time too
    raw = drop_flagged_rows(every, procs)  # ... but the estimates use the clean ones
    family = {}
    if "runtime_family" in procs:
        for r in procs.dropna(subset=["runtime"]).itertuples(index=False):
            family[(r.benchmark, r.params, r.engine, r.runtime)] = r.runtime_family
    got = achieved(raw, confidence, resamples)
    out = {}
    for key, c in components_of(raw, procs).items():
        p = plan_cell(c, target, confidence, max_iterations=max_iterations)
        out[(*key[:3], family.get(key, key[3]))] = {
            "half_width": got.get(key, math.nan), "mean_s": c.mean, "s2_between": c.s2_between,
            "s2_within": c.s2_within, "c_proc_s": c.c_proc, "c_iter_s": c.c_iter, "warmup": c.warmup,
            "steady": c.steady, "unsettled": c.unsettled, "longest": c.longest, "processes": c.processes, "spent_s": spent.get(key, (0, 0, 0.0))[2],
            "plan": {"processes": p.processes, "iterations": p.total_iterations, "machine_s": p.machine_s,
                     "half_width": p.half_width, "note": p.note}}
    return out


# ----------------------------------------------------------------------------------------------
# Several machines: the three-level model (machine, process, iteration)
# ----------------------------------------------------------------------------------------------


def machine_variance(raw: Any, procs: Any) -> dict[tuple, tuple[float, int]]:
    """Per cell whose pilot processes ran on two or more machines: (s2_machines, machines), the
    between-machine variance by the method of moments (variance of the machines' means of process
    means, less the within-machine variance of process means over the processes per machine)."""
    out: dict[tuple, tuple[float, int]] = {}
    if raw.empty or procs.empty or "machine" not in procs:
        return out
    ids = procs[["run_id", "seq"]].copy()
    ids["machine_id"] = [m.get("id") if isinstance(m, dict) else None for m in procs["machine"]]
    ok = raw[raw["check_ok"].astype(bool)]
    pm = ok.groupby([*CELL, "run_id", "seq"], sort=False)["wall_ns"].mean().div(1e9).rename("x").reset_index()
    pm = pm.merge(ids, on=["run_id", "seq"], how="left")
    for key, g in pm.groupby(CELL, sort=False):
        if g["machine_id"].isna().any() or g["machine_id"].nunique() < 2:
            continue
        by = g.groupby("machine_id")["x"]
        means, counts = by.mean(), by.count()
        within = by.var(ddof=1).dropna()
        s2_within_machine = float(within.mean()) if len(within) else 0.0
        s2m = float(means.var(ddof=1)) - s2_within_machine / float(counts.mean())
        out[tuple(key)] = (max(0.0, s2m), int(len(means)))
    return out


def plan_cell_on_machines(c: Components, machines: int, s2_machines: float, target: float,
                          confidence: float = 0.99, max_processes: int = MAX_PROCESSES,
                          max_iterations: int = MAX_ITERATIONS) -> CellPlan:
    """The cheapest processes-per-machine x iterations on `machines` machines whose three-level t
    interval (machines - 1 df: `analysis.machines`) reaches `target`; `machine_s` is the machine
    time over all machines. The variance of the mean of M machines of p processes of n
    iterations is s2_machines / M + (s2_between + s2_within / n) / (M p) (Kalibera & Jones)."""
    if machines < 2:
        return plan_cell(c, target, confidence, max_processes=max_processes, max_iterations=max_iterations)
    if not (math.isfinite(c.mean) and c.mean > 0 and math.isfinite(c.s2_within) and math.isfinite(c.s2_between)
            and math.isfinite(c.c_iter) and c.c_iter > 0):
        return CellPlan(0, 0, c.warmup, math.nan, math.nan, False,
                        "pilot too small: needs >= 2 processes of >= 2 iterations and their costs")
    t = _t(confidence, machines - 1)
    cp = max(c.c_proc if math.isfinite(c.c_proc) else 0.0, 0.0)
    floor = t * math.sqrt(s2_machines / machines) / c.mean
    n = optimal_iterations(cp, c.c_iter, c.s2_within, c.s2_between, max_iterations)

    def hw(p: int, iters: int) -> float:
        v = s2_machines / machines + (c.s2_between + c.s2_within / iters) / (machines * p)
        return t * math.sqrt(v) / c.mean

    if c.s2_between <= 0 and c.s2_within > 0:  # iterations alone shrink it: a process or more of as many as needed
        n = max_iterations
    lo, hi = max(1, math.ceil(MIN_PROCESSES / machines)), max_processes
    if floor >= target or hw(hi, n) > target:
        need = machines
        while need < MAX_PROCESSES and t_machines(confidence, need) * math.sqrt(s2_machines / need) / c.mean >= target:
            need *= 2
        return CellPlan(0, 0, c.warmup, math.nan, floor, False,
                        f"target out of reach on {machines} machines (the spread between machines alone gives "
                        f"+-{100 * floor:.3g}%); {need} machines could reach it")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if hw(mid, n) <= target:
            hi = mid
        else:
            lo = mid
    p = lo if hw(lo, n) <= target else hi
    if c.s2_between <= 0 and c.s2_within > 0:  # fewest iterations that still reach it with p processes
        n = max(1, math.ceil(c.s2_within / (machines * p * ((target * c.mean / t) ** 2 - s2_machines / machines)
                                              - c.s2_between)))
        n = min(n, max_iterations)
    cost = machines * p * (cp + (c.warmup + n) * c.c_iter)
    return CellPlan(p, n, c.warmup, cost, hw(p, n), True, "")


def t_machines(confidence: float, machines: int) -> float:
    return _t(confidence, max(machines - 1, 1))


def plan_runs_on_machines(run_dirs: Iterable[Path | str], target: float, machines: int,
                          machine_spread: float | None = None, confidence: float = 0.99) -> Any:
    """The plan table on `machines` machines: PLAN_COLUMNS with `machines` and `processes` per
    machine, machine time over all machines and the wall time (`wall_s`: machine time / machines,
    the machines working at once). The between-machine variance comes from the pilot when its
    processes ran on two or more machines, else from `machine_spread` (relative sd; None: 0)."""
    import pandas as pd

    from harness import store

    dirs = [Path(d) for d in run_dirs]
    raw = store.load_runs(dirs)
    procs = store.load_process_records(dirs)
    comps = components_of(raw, procs)
    measured = machine_variance(raw, procs)
    got = achieved(raw, confidence)
    rows = []
    for key, c in comps.items():
        if key in measured:
            s2m, seen = measured[key]
            source = f"between-machine sd {100 * math.sqrt(s2m) / c.mean:.3g}% from {seen} machines"
        else:
            s2m = ((machine_spread or 0.0) * c.mean) ** 2
            source = (f"between-machine sd assumed {100 * (machine_spread or 0):.3g}%" +
                      ("" if machine_spread else " (a sharded pilot measures it)"))
        p = plan_cell_on_machines(c, machines, s2m, target, confidence)
        note = "; ".join(x for x in (p.note, source) if x)
        rows.append((*key, f"{c.processes}x{c.iterations:.3g}", c.mean, math.sqrt(c.s2_between),
                     math.sqrt(c.s2_within), c.c_proc, c.c_iter, 100 * got.get(key, math.nan), machines,
                     p.processes, p.total_iterations, p.warmup, p.machine_s, p.machine_s / machines,
                     100 * p.half_width, p.reachable, note))
    cols = PLAN_COLUMNS[:11] + ["machines"] + PLAN_COLUMNS[11:15] + ["wall_s"] + PLAN_COLUMNS[15:]
    return pd.DataFrame(rows, columns=cols)


def format_machines_plan(df: Any, target: float, machines: int) -> str:
    """The plan on several machines as text: machines x processes x iterations per cell, and the
    wall time of the whole campaign on those machines."""
    if df.empty:
        return "no cell with timings"
    show = df.copy()
    show["plan"] = [f"{m} x {p} x {i}" for m, p, i in zip(show["machines"], show["processes"], show["iterations"])]
    for col in ("mean_s", "c_proc_s", "c_iter_s"):
        show[col] = show[col].map(lambda v: f"{v:.3g}")
    show["predicted_pct"] = show["predicted_pct"].map(lambda v: "" if not math.isfinite(v) else f"{v:.3g}")
    for col in ("machine_s", "wall_s"):
        show[col] = show[col].map(lambda v: "" if not math.isfinite(v) else f"{v:,.0f}")
    show = show[CELL + ["pilot", "mean_s", "plan", "machine_s", "wall_s", "predicted_pct", "note"]]
    total = float(df["machine_s"].where(np.isfinite(df["machine_s"]), 0).sum())
    bad = int((~df["reachable"]).sum())
    lines = [show.to_string(index=False), "",
             f"target +-{100 * target:g}% (99% half-width, relative) with machines x processes per machine x "
             f"iterations; machine time {total:,.0f} s, wall time on {machines} machines {total / machines:,.0f} s "
             f"({total / machines / 3600:.2f} h)"]
    if bad:
        lines.append(f"{bad} of {len(df)} cells cannot reach the target on {machines} machines")
    return "\n".join(lines)
