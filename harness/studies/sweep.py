"""Study E2s: PyPy against CPython at a steady state, each micro-benchmark at several scale factors.

E2's processes time a few iterations each (its cells share a time budget), so its PyPy cells hold much of the JIT's
warm-up, and a rank test over its six benchmarks can reject only a perfect order. E2s runs the four micro-benchmarks
whose crossings grow with the data on `sqlite3` from CPython and PyPy at three scale factors, 20 iterations per
process: within one benchmark the crossings grow with the code, engine and query fixed, so whether PyPy's speedup
grows with them is read benchmark by benchmark (a dose-response), not across benchmarks that differ in everything
else. The ratios carry E2's run-to-run spread (`runspread.borrowed_spread`): E2s has no replicate of its own.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from harness.analysis.runset import RunSet, run_cells, runs_under
from harness.analysis.stats.intervals import log_contrast
from harness.fsutil import PROJECT_ROOT
from harness.studies import findings
from harness.studies.common import iterations_per_process

#: where the reference campaign installs study E2s
SWEEP_DIR = PROJECT_ROOT / "data" / "reference-e2s"
#: the pair compared: the same `sqlite3` module and SQLite, from PyPy and from CPython
FAST, SLOW = "sqlite/sqlite3@pypy", "sqlite/sqlite3@cpython"
PREFIX = "micro."

Interval = tuple[float, float, float]


def sweep_runs(folder: Path = SWEEP_DIR) -> list[Path]:
    """The committed E2s run (micro-benchmarks on sqlite3 at several scale factors), or none."""
    if not Path(folder).is_dir():
        return []
    return [d for d in runs_under(folder) if any(str(c[0]).startswith(PREFIX) for c in run_cells(d))]


def scale_factor(params: str) -> float:
    """The `sf=` of a cell's params (nan when it has none)."""
    m = re.search(r"(?:^|,)sf=([0-9.]+)", str(params))
    return float(m.group(1)) if m else math.nan


@dataclass(frozen=True)
class Point:
    """One benchmark at one scale factor: its crossings per operation and PyPy / CPython time, with the estimate
    counting every iteration (`every`) and how many of PyPy's processes reached a steady state."""

    benchmark: str
    sf: float
    crossings: float
    ratio: Interval
    every: Interval
    steady: int
    processes: int


def _pair(runs: RunSet, bench: str, params: str, alt: bool = False):
    fast, slow = findings.cells(runs, bench, FAST).get(params), findings.cells(runs, bench, SLOW).get(params)
    if fast is None or slow is None:
        return None
    boots = (runs.alt_boots if alt else runs.boots)([fast, slow])
    x, y = boots.get(fast), boots.get(slow)
    return None if x is None or y is None else (x, y)


def points(runs: RunSet) -> list[Point]:
    """Every (benchmark, scale factor) measured on both runtimes, in benchmark then scale-factor order."""
    s = runs.summary
    out = []
    for bench in sorted({k[0] for k in runs.samples if k[0].startswith(PREFIX)}):
        common = set(findings.cells(runs, bench, FAST)) & set(findings.cells(runs, bench, SLOW))
        for params in sorted(common, key=scale_factor):
            pair, alt = _pair(runs, bench, params), _pair(runs, bench, params, alt=True)
            if pair is None or not math.isfinite(scale_factor(params)):
                continue
            rows = s[(s["benchmark"] == bench) & (s["params"].astype(str) == params) & (s["engine"] == "sqlite/sqlite3")]
            pypy = rows[rows["runtime"].astype(str).str.startswith("pypy")]
            crossings = float(rows["crossings"].dropna().max()) if rows["crossings"].notna().any() else math.nan
            procs = int(pypy["processes"].iloc[0]) if len(pypy) and pypy["processes"].notna().iloc[0] else 0
            none = int(pypy["no_steady"].iloc[0]) if len(pypy) and pypy["no_steady"].notna().iloc[0] else 0
            ratio = log_contrast([(pair[0], 1.0), (pair[1], -1.0)], runs.confidence)
            every = log_contrast([(alt[0], 1.0), (alt[1], -1.0)], runs.confidence) if alt else (math.nan,) * 3
            out.append(Point(bench, scale_factor(params), crossings, ratio, every, procs - none, procs))
    return out


def _ends(runs: RunSet) -> list[tuple[str, float, float, tuple, tuple]]:
    """Per benchmark run on both runtimes at two scale factors or more: (benchmark, smallest SF, largest SF, the
    (PyPy, CPython) cells at the smallest, at the largest)."""
    out = []
    for bench in sorted({k[0] for k in runs.samples if k[0].startswith(PREFIX)}):
        params = sorted(set(findings.cells(runs, bench, FAST)) & set(findings.cells(runs, bench, SLOW)),
                        key=scale_factor)
        if len(params) < 2:
            continue
        lo, hi = _pair(runs, bench, params[0]), _pair(runs, bench, params[-1])
        if lo is not None and hi is not None:
            out.append((bench, scale_factor(params[0]), scale_factor(params[-1]), lo, hi))
    return out


def growth(runs: RunSet) -> list[tuple[str, float, float, Interval]]:
    """Per benchmark: (benchmark, smallest SF, largest SF, how PyPy's speedup over CPython changes from the one to
    the other, with its interval): (time ratio PyPy / CPython at the smallest) / (at the largest), so above 1
    the speedup grows with the crossings. The four cells' log variances add (`log_contrast`)."""
    return [(bench, a, b, log_contrast([(lo[0], 1.0), (lo[1], -1.0), (hi[0], -1.0), (hi[1], 1.0)], runs.confidence))
            for bench, a, b, lo, hi in _ends(runs)]


def growth_geomean(runs: RunSet) -> Interval:
    """The geometric mean over the benchmarks of `growth`, its interval from the same cells."""
    ends = _ends(runs)
    k = 1.0 / len(ends) if ends else 0.0
    terms = [t for *_, lo, hi in ends for t in ((lo[0], k), (lo[1], -k), (hi[0], -k), (hi[1], k))]
    return log_contrast(terms, runs.confidence) if terms else (math.nan,) * 3


def _show(r: Interval) -> str:
    return f"{r[0]:.2f}x [{r[1]:.2f}, {r[2]:.2f}]" if math.isfinite(r[1]) else f"{r[0]:.2f}x (no interval)"


def _short(bench: str) -> str:
    return bench.replace(PREFIX, "")


def sentence(runs: RunSet | None) -> str:
    """The main text's E2s paragraph: PyPy's steady states, then, benchmark by benchmark, how its speedup over
    CPython changes as the scale factor (so the crossings) grows, each told by its own interval, and the
    geometric mean (which run and commit: Appendix B.2's table)."""
    if runs is None:
        return ("_No E2s run (`make reference STUDY=E2s`, installed in data/reference-e2s/): PyPy's speedup is not "
                "read within a benchmark here._")
    pts, grown = points(runs), growth(runs)
    if not pts or not grown:
        return "_The E2s run has no benchmark measured on both runtimes at two scale factors._"
    steady, procs = sum(p.steady for p in pts), sum(p.processes for p in pts)
    per = iterations_per_process(runs.raw)
    iters = (f"every process timing {int(per.iloc[0])} iterations" if len(per) and per.nunique() == 1
             else f"its processes timing a median of {per.median():g} iterations")
    sfs = sorted({p.sf for p in pts})
    conf = f"{runs.confidence:.0%} CI" + findings.spread_words(runs, " ")
    kinds = {1: "grows", -1: "shrinks", 0: "cannot be told apart"}
    said = "; ".join(f"{_short(b)} {_show(r)}" for b, _, _, r in grown)
    told = {k: [_short(b) for b, _, _, r in grown if findings.interval_side(r[1], r[2]) == k] for k in kinds}
    only = [k for k, v in told.items() if v]
    way = ({1: "it grows on every one", -1: "it shrinks on every one", 0: "no change is told apart on any"}[only[0]]
           if len(only) == 1 else "it " + ", ".join(f"{kinds[k]} on {len(v)} ({', '.join(v)})" for k, v in told.items()
                                               if v))
    lo_sf, hi_sf = sfs[0], sfs[-1]
    g = growth_geomean(runs)
    side = findings.interval_side(g[1], g[2])
    mean = (f"Over the {len(grown)}, the geometric mean is {_show(g)}"
            + (": more crossings within a benchmark moved PyPy's speedup by no more than these bounds." if side == 0
               else f": PyPy's speedup {'grows' if side > 0 else 'shrinks'} with the crossings within a benchmark."))
    return (f"Study E2s ran {len(grown)} micro-benchmarks on `sqlite3` from CPython and PyPy at SF "
            f"{', '.join(f'{x:g}' for x in sfs)}, {iters}; {steady} of {procs} PyPy processes reached a steady state. "
            f"From SF {lo_sf:g} to {hi_sf:g} (crossings x{_fold(pts, lo_sf, hi_sf)}), PyPy's speedup over CPython "
            f"changes by {said} (speedup at SF {hi_sf:g} / at SF {lo_sf:g}, {conf}): {way}. {mean}")


def _fold(pts: list[Point], lo: float, hi: float) -> str:
    """How many times each benchmark's crossings grew from SF `lo` to `hi` (`10`; `9.8 to 10`)."""
    by = {p.benchmark: {} for p in pts}
    for p in pts:
        by[p.benchmark][p.sf] = p.crossings
    folds = sorted(c[hi] / c[lo] for c in by.values() if lo in c and hi in c and c[lo] > 0)
    if not folds:
        return "?"
    a, b = f"{folds[0]:.2g}", f"{folds[-1]:.2g}"
    return a if a == b else f"{a} to {b}"


def table_markdown(runs: RunSet | None, run_note: str = "") -> str:
    """Every E2s point: benchmark, SF, crossings, PyPy / CPython time without warm-up and counting every
    iteration, and PyPy's steady processes (for Appendix B.2); `run_note`: which run and commit."""
    if runs is None:
        return "_No E2s run in these data._"
    pts = points(runs)
    if not pts:
        return "_The E2s run has no benchmark measured on both runtimes._"
    lines = ["| benchmark | SF | crossings | PyPy / CPython, warm-up left out | counting every iteration "
             "| PyPy processes at a steady state |", "|---|---:|---:|---:|---:|---:|"]
    for p in pts:
        lines.append(f"| {_short(p.benchmark)} | {p.sf:g} | {p.crossings:,.0f} | {_show(p.ratio)} | {_show(p.every)} "
                     f"| {p.steady} of {p.processes} |")
    return ("\n".join(lines) + f"\n\nTable: Study E2s{run_note}, time of `sqlite3` on PyPy / on CPython per "
            f"micro-benchmark and scale factor ({runs.confidence:.0%} CI, {runs.method}"
            + findings.spread_words(runs, ", ") + " of E2's replicate); below 1, PyPy is faster. Crossings per "
            "operation counted by instrumented replay.")


def run_note(runs: RunSet) -> str:
    """` (run 20261128-..., commit abc1234)` for the E2s paragraph."""
    ms = [m for m in runs.manifests() if not m.imported]
    if not ms:
        return ""
    ids = ", ".join(f"`{m.run_id}`" for m in ms)
    commits = ", ".join(sorted({f"`{str(m.commit or 'unknown')[:7]}`" for m in ms}))
    return f" (run {ids}, commit {commits})"


def figure_rows(runs: RunSet) -> list[tuple[str, float, float, float, float]]:
    """(benchmark, crossings, ratio, low, high) of every point with counted crossings, for `plot_sweep`."""
    return [(p.benchmark, p.crossings, *p.ratio) for p in points(runs) if math.isfinite(p.crossings) and p.crossings > 0]


def figure_takeaway(runs: RunSet) -> str:
    """The figure's point: on how many benchmarks PyPy's speedup grows, shrinks or cannot be told apart from the
    smallest scale factor to the largest (each by the interval of `growth`)."""
    grown = growth(runs)
    if not grown:
        return ""
    side = [findings.interval_side(r[1], r[2]) for *_, r in grown]
    counts = [(side.count(1), "grows"), (side.count(-1), "shrinks"), (side.count(0), "cannot be told apart")]
    said = [f"{w} on {n}" for n, w in counts if n]
    lo, hi = grown[0][1], grown[0][2]
    if len(said) > 1:
        which = "PyPy's speedup over CPython " + ", ".join(said[:-1]) + f" and {said[-1]} of the {len(side)} benchmarks"
    elif side[0] == 0:
        which = f"no change of PyPy's speedup over CPython is told apart on any of the {len(side)} benchmarks"
    else:
        which = f"PyPy's speedup over CPython {counts[0 if side[0] > 0 else 1][1]} on every one of the {len(side)}"
    return f"from SF {lo:g} to {hi:g}, {which} (speedup at SF {hi:g} / at SF {lo:g}, by its interval)"
