"""`doctor`: the machine's settings that add noise to measurements, each with what to do."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    from harness.fsutil import PROJECT_ROOT

    p = sub.add_parser("doctor", help="check the machine for noise (governor, turbo, SMT, load, quota, storage)")
    p.add_argument("--out", type=Path, default=PROJECT_ROOT / "data" / "runs", help="the data directory to check")
    p.add_argument("--window", type=float, default=1.0, metavar="SEC",
                   help="how long to watch other processes' CPU use (default 1 s)")
    p.set_defaults(func=run)


def doctor_text(found: list[dict[str, Any]], width: int | None = None) -> str:
    """The findings as a table within the width (analysis.textout): status, check, the value and,
    where it is not ok, what to do; then format_findings' verdict line."""
    from harness.analysis.textout import Col, table
    from harness.run.doctor import OK, format_findings

    rows = [(f["status"], f["check"], ("unknown" if f["value"] is None else str(f["value"]))
             + (f"\n-> {f['advice']}" if f["advice"] and f["status"] != OK else "")) for f in found]
    verdict = format_findings(found).splitlines()[-1]
    return table([Col("", wrap=False), Col("check"), Col("value, and what to do")], rows, width) + "\n\n" + verdict


def run(args: argparse.Namespace) -> int:
    from harness.errors import UserError
    from harness.run.doctor import findings

    if not 0 < args.window <= 60:
        raise UserError("--window must be between 0 and 60 seconds")
    print(doctor_text(findings(args.out, args.window)))
    return 0
