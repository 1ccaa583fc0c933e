"""`history`: runs of the same cells on a timeline, with the significant changes between them."""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.fromstore import add_from_option, reading_store, run_name
from harness.commands.options import add_stats_options, check_confidence, check_fraction, check_resamples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("history", help="runs on a timeline per cell (commit, date, versions), significant "
                                       "changes between consecutive runs marked",
                       description="Orders runs by the date of the commit each measured (then by start), gives "
                                   "each cell's mean [CI] per run and, against the previous run of the cell, "
                                   "compare's benchstat test (Mann-Whitney U on per-process means).")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                   help="run directories, or folders of runs (e.g. data/reference-history)")
    add_from_option(p)
    p.add_argument("--benchmarks", help="GLOB[,GLOB]: only these benchmarks (default all)")
    p.add_argument("--engines", help="GLOB[,GLOB]: only these engines (default all)")
    p.add_argument("--format", choices=["text", "csv", "markdown", "json"], default="text")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level of a change (default 0.05)")
    p.add_argument("--figure", type=Path, metavar="OUT.svg",
                   help="also draw the timeline figure (SVG and PNG side by side)")
    add_stats_options(p)
    p.set_defaults(func=run)


@reading_store("runs")
def run(args: argparse.Namespace) -> int:
    import sys

    from harness.analysis import history
    from harness.errors import UserError

    check_confidence(args.confidence)
    check_fraction("--alpha", args.alpha, 0.05)
    check_resamples(args.resamples)
    if args.figure is not None and args.figure.suffix.lower() not in (".svg", ".png"):
        raise UserError(f"--figure {args.figure}: name an .svg or .png file (both are written)")
    table, tags = history.timeline(args.runs, args.benchmarks, args.engines, method=args.method,
                                   confidence=args.confidence, resamples=args.resamples, seed=args.seed,
                                   alpha=args.alpha, steady_state=args.steady_state)
    if args.format == "json":
        from harness.analysis.jsonout import to_json

        print(to_json(table, command="history", runs=[run_name(args, t.run_dir) for t in tags],
                      benchmarks=args.benchmarks, engines=args.engines, alpha=args.alpha, method=args.method,
                      confidence=args.confidence,
                      resamples=args.resamples, seed=args.seed, steady_state=args.steady_state, units="seconds"))
    else:
        print(history.format_history(table, args.format, args.alpha), end="")
    if args.figure is not None:
        from harness.analysis.figures.history import plot_history
        from harness.analysis.figures.style import svg_of

        png = plot_history(table, args.figure.with_suffix(".png"), alpha=args.alpha)
        print(f"figure: {svg_of(png)} and {png}", file=sys.stderr)
    if len(tags) < 2:
        print("note: one run is no history; give two or more runs of the same cells", file=sys.stderr)
    return 0
