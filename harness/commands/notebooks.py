"""`notebooks`: execute the notebooks headless on runs; they write figures/ and paper.md blocks."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    from harness.fsutil import PROJECT_ROOT

    p = sub.add_parser("notebooks", help="execute the notebooks on runs (writes figures and paper.md sections)")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    p.add_argument("--only", help="comma-separated notebook names (default: all)")
    p.add_argument("--paper", type=Path, default=PROJECT_ROOT / "paper.md")
    p.add_argument("--figures", type=Path, default=PROJECT_ROOT / "figures")
    p.add_argument("--executed", type=Path, help="folder for executed copies (default RUN_DIR/notebooks)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.notebooks import execute_all
    from harness.store import read_manifest

    for d in args.runs:
        read_manifest(d)
    out = args.executed or (args.runs[-1] / "notebooks")
    names = [n.strip() for n in args.only.split(",")] if args.only else None
    for path in execute_all(args.runs, args.paper, args.figures, out, names):
        print(path)
    return 0
