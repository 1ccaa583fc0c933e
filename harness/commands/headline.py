"""`headline`: what a run found, on one screen: geometric-mean ratios with intervals, precision, noise.

Why: a run of the quick profile measures some sixty cells; `summary` prints them all. A person
who just typed `make run` wants the answer first: per family of benchmarks, how much slower or
faster each engine and runtime is than the baseline (a geometric mean over the family's
benchmarks, with its 99% interval), how precise the run was, and whether the machine disturbed
it; then where the full report is.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.options import add_stats_options, check_confidence, check_resamples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("headline", help="a run's results on one screen: geometric-mean ratios, precision, noise")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    p.add_argument("--baseline", default="sqlite/sqlite3@cpython", metavar="ENGINE[@RUNTIME]",
                   help="what the ratios are relative to (default sqlite/sqlite3@cpython)")
    add_stats_options(p)
    p.set_defaults(func=run)


def family(benchmark: str) -> str:
    return benchmark.split(".", 1)[0]


def headline_lines(runs, baseline: str) -> list[str]:
    """Per family: each engine/runtime's geometric-mean ratio to the baseline [CI] over the
    family's benchmarks; then the precision achieved and the noise verdict."""
    import math

    import numpy as np

    from harness.analysis.summary import disturbed_facts, time_text

    s = runs.summary
    timed = s[s["mean_s"].notna()]
    lines = []
    for fam in sorted({family(b) for b in timed["benchmark"]}):
        keys = [tuple(r) for r in timed[timed["benchmark"].map(family) == fam][
            ["benchmark", "params", "engine", "runtime"]].itertuples(index=False, name=None)]
        rows = runs.ratio_rows(keys, baseline)
        geo = rows[(rows["benchmark"] == "geomean") & rows["ratio"].notna()]
        if geo.empty:
            continue
        lines.append(f"{fam}: geometric mean of time / {baseline} over its benchmarks [{runs.confidence:.0%} CI]")
        from harness.analysis.stats import is_baseline

        for r in geo.sort_values("ratio").itertuples(index=False):
            if is_baseline(r.engine, r.runtime, baseline):
                continue
            ci = (f" [{r.ratio_ci_low:.3g}, {r.ratio_ci_high:.3g}]" if math.isfinite(r.ratio_ci_low)
                  and math.isfinite(r.ratio_ci_high) else " (no interval)")
            lines.append(f"  {r.engine:22s} {r.runtime:16s} {r.ratio:.3g}x{ci}  ({int(r.n)} benchmark{'s' if r.n != 1 else ''})")
    half = ((timed["ci_high_s"] - timed["ci_low_s"]) / (2 * timed["mean_s"])).dropna()
    if len(half):
        lines.append(f"precision: {len(half)} of {len(timed)} cells have an interval; median half-width "
                     f"+-{100 * float(np.median(half)):.3g}%, 90th percentile +-{100 * float(np.quantile(half, 0.9)):.3g}%")
    flagged, measured, reruns = disturbed_facts(runs.processes)
    if measured:
        verdict = "quiet: no process was disturbed" if not flagged else (
            f"{flagged} of {measured} processes disturbed by other programs (left out of the estimates; "
            f"{reruns} rerun)")
        lines.append(f"noise: {verdict}")
    fastest = timed.sort_values("mean_s").iloc[0] if len(timed) else None
    if fastest is not None:
        lines.append(f"(fastest cell: {fastest['benchmark']} on {fastest['engine']}, "
                     f"{time_text(fastest['mean_s'], fastest['ci_low_s'], fastest['ci_high_s'])})")
    return lines


def run(args: argparse.Namespace) -> int:
    from harness.analysis.runset import RunSet

    check_confidence(args.confidence)
    check_resamples(args.resamples)
    runs = RunSet(args.runs, method=args.method, confidence=args.confidence, resamples=args.resamples,
                  seed=args.seed, steady_state=args.steady_state, keep_contaminated=args.keep_contaminated)
    lines = headline_lines(runs, args.baseline)
    print("\n".join(lines) if lines else "no cell with timings")
    return 0
