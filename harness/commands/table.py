"""`table`: the SQPyte-layout table (time [CI] per engine, × ratio [CI], geometric mean)."""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.options import add_stats_options, check_confidence, check_resamples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("table", help="results table in the SQPyte layout (Markdown, LaTeX or CSV)",
                       description="Per benchmark a time row (mean [CI low, high] per engine) and a "
                                   "ratio row (engine time / baseline time [CI]), then a "
                                   "geometric-mean row with its own CI.")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    p.add_argument("--baseline", required=True, metavar="ENGINE", help="engine the ratios are relative to")
    p.add_argument("--format", choices=["markdown", "latex", "csv", "json"], default="markdown")
    add_stats_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.analysis import tables
    from harness.errors import UserError
    from harness.store import load_runs

    check_confidence(args.confidence)
    check_resamples(args.resamples, minimum=100)
    from harness.analysis.interference import drop_flagged_rows
    from harness.store import load_process_records

    df = load_runs(args.runs)
    if df.empty:
        raise UserError("the runs hold no timings")
    if not args.keep_contaminated:  # as everywhere: the estimates use the clean processes
        df = drop_flagged_rows(df, load_process_records(args.runs))
    t = tables.build_table(df, args.baseline, method=args.method, confidence=args.confidence,
                           resamples=args.resamples, seed=args.seed,
                           steady_state=getattr(args, "steady_state", True))
    if args.format == "json":
        from harness.analysis.jsonout import to_json

        print(to_json(t, command="table", runs=[str(d) for d in args.runs], baseline=args.baseline,
                      method=args.method, confidence=args.confidence, units="seconds; ratio = time / baseline's"))
    elif args.format == "csv":
        print(tables.to_csv(t), end="")
    elif args.format == "latex":
        print(tables.to_latex(t, args.baseline), end="")
    else:
        print(tables.to_markdown(t, args.baseline), end="")
    return 0
