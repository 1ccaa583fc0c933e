"""`summary`: one row per cell with mean, 99% CI, median, status and rates."""
from __future__ import annotations

import argparse
from pathlib import Path


def add_stats_options(p: argparse.ArgumentParser, with_steady_state: bool = True) -> None:
    """Options shared by every command that computes intervals."""
    from harness.analysis.methods import DEFAULT_METHOD, METHODS

    p.add_argument("--method", default=DEFAULT_METHOD, choices=METHODS,
                   help="CI method (default process-bootstrap: process means resampled, t quantile, log scale)")
    p.add_argument("--confidence", type=float, default=0.99, help="confidence level (default 0.99)")
    p.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--keep-contaminated", action="store_true",
                   help="estimate from every process, also those the runner flagged as disturbed by other "
                        "programs on the worker's CPU (default: left out; counted in the columns disturbed/excluded)")
    if with_steady_state:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--all-iterations", dest="steady_state", action="store_false",
                       help="keep every iteration, warm-up included (default: each process from its detected "
                            "steady state; the other choice is still shown where it disagrees)")
        g.add_argument("--steady-state", dest="steady_state", action="store_true",
                       help="the default: only iterations from each process's detected steady state")
        p.set_defaults(steady_state=True)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("summary", help="per-cell statistics of one or more runs")
    p.add_argument("runs", nargs="*", type=Path, metavar="RUN_DIR",
                   help="run directories; with --from, run ids in the store (default: every run there)")
    p.add_argument("--from", dest="from_dsn", metavar="DSN",
                   help="read the runs from a PostgreSQL results store (harness push) instead of directories")
    p.add_argument("--format", choices=["text", "csv", "markdown", "json"], default="text")
    add_stats_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.errors import UserError

    if not 0 < args.confidence < 1:
        raise UserError("--confidence must be between 0 and 1, e.g. 0.99")
    if not 1 <= args.resamples <= 10_000_000:
        raise UserError(f"--resamples must be between 1 and 10000000, got {args.resamples}")
    if args.from_dsn:
        from harness.run.resultsdb import Materialized

        with Materialized(args.from_dsn, [str(r) for r in args.runs]) as dirs:
            args.runs, args.shown = dirs, [d.name for d in dirs]
            return _summary(args)
    if not args.runs:
        raise UserError("give one or more run directories (or --from DSN)")
    return _summary(args)


def _summary(args: argparse.Namespace) -> int:
    import sys

    from harness import store
    from harness.analysis.runset import RunSet
    from harness.analysis.summary import format_summary, noise_notes
    from harness.analysis.textout import wrap

    runs = RunSet(args.runs, method=args.method, confidence=args.confidence, resamples=args.resamples,
                  seed=args.seed, steady_state=args.steady_state, keep_contaminated=args.keep_contaminated)
    if args.format == "json":
        from harness.analysis.jsonout import to_json

        print(to_json(runs.summary, command="summary", runs=getattr(args, "shown", None) or [str(d) for d in args.runs], method=args.method,
                      confidence=args.confidence, resamples=args.resamples, seed=args.seed,
                      steady_state=args.steady_state, keep_contaminated=args.keep_contaminated, units="seconds"))
    else:
        print(format_summary(runs.summary, args.format))
    notes = noise_notes(runs.processes, [store.read_manifest(d) for d in runs.run_dirs])
    for note in [wrap(n, indent="  ") for n in notes]:
        print(note, file=sys.stderr)
    if args.format == "text":
        from harness.analysis.aa import aa_rows, aa_text

        for line in aa_text(aa_rows(runs), args.confidence):
            print(line)
    return 0
