"""`report`: a self-contained static HTML page of one or more runs (open it in any browser)."""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.fromstore import add_from_option, reading_store, run_name
from harness.commands.options import add_stats_options, check_confidence, check_resamples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a self-contained HTML report of runs",
                       description="Tables with intervals, figures (embedded SVG), run-sequence plots, the "
                                   "manifest, warnings (failed, invalid, skipped cells with reasons) and the "
                                   "protocol, computed from the raw timings, in one HTML file.")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    add_from_option(p)
    p.add_argument("--html", required=True, type=Path, metavar="OUT", help="the HTML file to write")
    p.add_argument("--baseline", default="sqlite/sqlite3@cpython", metavar="ENGINE",
                   help="engine the ratios are relative to (ENGINE or ENGINE@RUNTIME; default sqlite/sqlite3@cpython)")
    p.add_argument("--sequences", metavar="GLOB[,GLOB]",
                   help="benchmarks to draw run sequences for (default: the first of each family)")
    add_stats_options(p)
    p.set_defaults(func=run)


def check_writable(out: Path) -> None:
    """Fail before hours of bootstrap if the page cannot be written."""
    import os

    from harness.errors import UserError

    if out.is_dir():
        raise UserError(f"{out}: is a directory; give a file name, e.g. {out / 'report.html'}")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise UserError(f"{out}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise UserError(f"{out}: not writable")


@reading_store("runs")
def run(args: argparse.Namespace) -> int:
    from harness.analysis.runset import RunSet
    from harness.errors import UserError
    from harness.fsutil import write_bytes_atomic
    from harness.redaction import redact
    from harness.store import manifest_of
    from harness.studies import report

    check_confidence(args.confidence)
    check_resamples(args.resamples, minimum=100)
    for d in args.runs:
        manifest_of(d)  # a missing or unreadable run says so first
    check_writable(args.html)
    runs = RunSet(args.runs, method=args.method, confidence=args.confidence, resamples=args.resamples,
                  seed=args.seed, steady_state=args.steady_state,
                  keep_contaminated=args.keep_contaminated)
    if runs.raw.empty and runs.processes.empty:
        raise UserError("the runs hold no process records")
    patterns = [g.strip() for g in args.sequences.split(",") if g.strip()] if args.sequences else None
    # with --from the run directories are a private temporary folder: the page names the run ids
    # and the store (its password redacted) instead
    names = {Path(d).name: run_name(args, d) for d in args.runs}
    store = redact(args.from_dsn) if getattr(args, "from_dsn", None) else None
    page = report.build(runs, args.baseline, patterns, run_names=names, store=store)
    try:
        write_bytes_atomic(args.html, page.encode("utf-8"))
    except OSError as exc:
        raise UserError(f"{args.html}: cannot write ({exc.strerror or exc})") from None
    print(args.html)
    return 0
