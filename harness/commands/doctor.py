"""`doctor`: the machine's settings that add noise to measurements, each with what to do."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    from harness.fsutil import PROJECT_ROOT

    p = sub.add_parser("doctor", help="check the machine for noise (governor, turbo, SMT, load, quota, storage)")
    p.add_argument("--out", type=Path, default=PROJECT_ROOT / "data" / "runs", help="the data directory to check")
    p.add_argument("--window", type=float, default=1.0, metavar="SEC",
                   help="how long to watch other processes' CPU use (default 1 s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.errors import UserError
    from harness.run.doctor import findings, format_findings

    if not 0 < args.window <= 60:
        raise UserError("--window must be between 0 and 60 seconds")
    print(format_findings(findings(args.out, args.window)))
    return 0
