"""`summary`: one row per cell with mean, 99% CI, median, status and rates."""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.options import add_stats_options, check_confidence, check_resamples


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

    check_confidence(args.confidence)
    check_resamples(args.resamples)
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
    notes = noise_notes(runs.processes, runs.manifests())
    for note in [wrap(n, indent="  ") for n in notes]:
        print(note, file=sys.stderr)
    if args.format == "text":
        from harness.analysis.aa import aa_rows, aa_text

        for line in aa_text(aa_rows(runs), args.confidence):
            print(line)
    return 0
