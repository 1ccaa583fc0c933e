"""`summary`: one row per cell with mean, 99% CI, median, status and rates."""
from __future__ import annotations

import argparse
from pathlib import Path


def add_stats_options(p: argparse.ArgumentParser, with_steady_state: bool = True) -> None:
    """Options shared by every command that computes intervals."""
    from harness.analysis.methods import METHODS

    p.add_argument("--method", default="hierarchical", choices=METHODS,
                   help="CI method (default hierarchical bootstrap: processes, then iterations)")
    p.add_argument("--confidence", type=float, default=0.99, help="confidence level (default 0.99)")
    p.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    if with_steady_state:
        p.add_argument("--steady-state", action="store_true",
                       help="use only iterations after each process's detected warm-up")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("summary", help="per-cell statistics of one or more runs")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    p.add_argument("--format", choices=["text", "csv", "markdown", "json"], default="text")
    add_stats_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.errors import UserError
    from harness.analysis.runset import summarize_runs
    from harness.analysis.summary import format_summary

    if not 0 < args.confidence < 1:
        raise UserError("--confidence must be between 0 and 1, e.g. 0.99")
    df = summarize_runs(args.runs, method=args.method, confidence=args.confidence, resamples=args.resamples,
                        seed=args.seed, steady_state=args.steady_state)
    if args.format == "json":
        from harness.analysis.jsonout import to_json

        print(to_json(df, command="summary", runs=[str(d) for d in args.runs], method=args.method,
                      confidence=args.confidence, resamples=args.resamples, seed=args.seed,
                      steady_state=args.steady_state, units="seconds"))
        return 0
    print(format_summary(df, args.format))
    return 0
