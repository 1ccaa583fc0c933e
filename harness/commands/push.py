"""`push`: load runs into one PostgreSQL results store (`summary --from` reads them back)."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("push", help="load runs into a PostgreSQL results store (idempotent)",
                       description="Creates or migrates the crossings schema (versioned SQL files), then loads each "
                                   "run whole in one transaction: its files byte for byte with their hashes, its "
                                   "manifest, plan and process records as JSON. A run already there with the same "
                                   "content is left alone; one with other content is refused unless --replace.")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    p.add_argument("--to", required=True, metavar="DSN", help="postgresql://user:password@host/db")
    p.add_argument("--replace", action="store_true", help="replace a stored run whose content differs")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from harness.run.resultsdb import push

    for run_id, what in push(args.runs, args.to, args.replace):
        print(f"{run_id}: {what}", file=sys.stderr)
    return 0
