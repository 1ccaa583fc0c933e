"""`import`: turn other tools' results (CSV, pyperf, go test -bench, hyperfine) into a run directory."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="import results of another tool as a run directory",
                       description="csv: columns benchmark,engine,process,iteration,seconds (optional runtime, "
                                   "params). gobench: `go test -bench` output (one sample per line, needs "
                                   "--engine). pyperf: its JSON (runs are processes). hyperfine: --export-json "
                                   "(each run one process). Prints the run directory as the last line.")
    p.add_argument("file", type=Path, metavar="FILE")
    from harness.analysis.importers import FORMATS

    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("--engine", default=None, help="engine name to record (required for gobench)")
    p.add_argument("--out", type=Path, default=None, help="parent directory of the new run (default data/runs)")
    p.add_argument("--any-range", action="store_true",
                   help="accept times per iteration outside 1 ps .. 1 day (still within what the statistics hold)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from harness import store
    from harness.analysis.importers import read_import
    from harness.commands.run import check_out
    from harness.fsutil import PROJECT_ROOT

    out = check_out(args.out if args.out is not None else PROJECT_ROOT / "data" / "runs")
    df = read_import(args.file, args.format, engine=args.engine, any_range=args.any_range)
    # wall_ns is stored as float64 ns (schema 2): go's sub-nanosecond ns/op stay exact
    df["wall_ns"] = df["wall_ns"].to_numpy(dtype=float)
    df["cpu_ns"] = df["cpu_ns"].fillna(0).astype(np.int64)
    from harness.run.manifest import base_manifest

    extra = base_manifest("", command=None).to_dict()
    extra["source"] = {"file": str(args.file), "format": args.format, "engine": args.engine}
    run_dir = store.write_imported_run(out, df.drop(columns=["run_id", "seq"]), extra)
    cells = df.groupby(["benchmark", "params", "engine", "runtime"]).ngroups
    print(f"imported {len(df)} timings in {cells} cells from {args.file}")
    print(run_dir)
    return 0
