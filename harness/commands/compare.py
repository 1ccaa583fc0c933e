"""`compare`: benchstat-style comparison of two runs, with a regression gate for CI."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="compare two runs (medians, Mann-Whitney U, geomean), benchstat style",
                       description="Per cell present in both runs: median [distribution-free CI] per side, "
                                   "change in percent, two-sided Mann-Whitney U p-value, exact as benchstat's "
                                   "(`~` where p > alpha), then a geomean row; beneath each median, the mean [99% CI] that `summary` "
                                   "gives. Times read as in `summary` (8.79 ms [8.61, 9.02]). Samples are per-process means by "
                                   "default. Warns, as benchstat, when a cell has too few samples for alpha.")
    p.add_argument("base", type=Path, metavar="BASE_RUN")
    p.add_argument("new", type=Path, metavar="NEW_RUN")
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--confidence", type=float, default=0.95, help="median CI level (default 0.95, as benchstat)")
    p.add_argument("--no-means", dest="means", action="store_false",
                   help="leave out each side's mean [99%% CI] as `summary` gives it (default: shown beneath the "
                        "median, and in csv/json as base_mean_s, base_mean_ci_low_s, ...)")
    p.add_argument("--samples", choices=["process", "iteration"], default="process",
                   help="what one sample is: a process's mean (default; iterations of a process are not "
                        "independent) or each iteration")
    p.add_argument("--fail-on-regression", type=float, default=None, metavar="PCT",
                   help="exit with status 1 when a significant slowdown exceeds PCT percent; exit 2 when a "
                        "cell has too few samples for any slowdown to reach --alpha (the gate could not fire)")
    p.set_defaults(func=run)


def regressions(cmp, pct: float):
    """Rows (not geomean) that are significantly slower by more than pct percent."""
    rows = cmp[cmp.benchmark != "geomean"]
    return rows[rows.significant & (rows.delta_pct > pct)]


def run(args: argparse.Namespace) -> int:
    import sys

    from harness.analysis import stats, tables
    from harness.analysis.summary import bench_label
    from harness.analysis.textout import wrap
    from harness.errors import UserError
    from harness.store import load_runs

    if not 0 < args.alpha < 1:
        raise UserError("--alpha must be between 0 and 1, e.g. 0.05")
    if not 0 < args.confidence < 1:
        raise UserError("--confidence must be between 0 and 1, e.g. 0.95")
    base = load_runs([args.base])
    new = load_runs([args.new])
    a, b = stats.compare_samples(base, args.samples), stats.compare_samples(new, args.samples)
    cmp = stats.compare_cells(a, b, alpha=args.alpha, confidence=args.confidence)
    if cmp.empty:
        raise UserError("the two runs have no cell (benchmark, params, engine, runtime) in common")
    for name, side, other in ((args.base.name, a, b), (args.new.name, b, a)):
        lost = sorted(set(side) - set(other))
        if lost:  # a gate must not pass quietly because a cell stopped measuring
            shown = ", ".join(f"{bench_label(k[0], k[1])} {k[2]}" for k in lost[:3])
            print(wrap(f"warning: {len(lost)} cell(s) of {name} are not in the other run, so not compared: {shown}"
                       + (" ..." if len(lost) > 3 else ""), indent="  "), file=sys.stderr)
    if args.means:
        from harness.analysis.runset import RunSet

        cmp = tables.attach_means(cmp, RunSet([args.base]).summary, RunSet([args.new]).summary)
    if args.format == "json":
        from harness.analysis.jsonout import to_json

        print(to_json(cmp, command="compare", base=str(args.base), new=str(args.new), alpha=args.alpha,
                      confidence=args.confidence, samples=args.samples))
    elif args.format == "csv":
        print(cmp.to_csv(index=False, float_format="%.9g"), end="")
    else:
        print(tables.compare_text(cmp, args.base.name, args.new.name, args.alpha, args.confidence), end="")
    if args.fail_on_regression is not None:
        blind = cmp[(cmp.benchmark != "geomean") & (cmp.warning != "")]
        if len(blind):
            r = blind.iloc[0]
            raise UserError(f"--fail-on-regression cannot decide: {bench_label(r.benchmark, r.params)} {r.engine} "
                            f"has n={int(r.base_n)}+"
                            f"{int(r.new_n)}, {r.warning} ({len(blind)} of {len(cmp) - 1} cells too small)")
        bad = regressions(cmp, args.fail_on_regression)
        if len(bad):
            names = ", ".join(f"{bench_label(r.benchmark, r.params)} {r.engine} {r.delta_pct:+.1f}%"
                              for r in bad.itertuples())
            print(f"regression over {args.fail_on_regression}%: {names}", file=sys.stderr)
            return 1
    return 0
