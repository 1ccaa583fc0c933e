"""`plan`: from a pilot run, the processes x iterations each cell needs for a target interval."""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands.options import check_confidence, check_target_ci


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="size an experiment from a pilot run (processes x iterations per cell)",
                       description="Estimates each cell's between- and within-process variance (steady-state "
                                   "iterations) and the cost of a process and of an iteration, and prints the "
                                   "cheapest processes x iterations that reach the target 99% half-width "
                                   "(Kalibera & Jones 2013), with the machine time it takes.")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="the pilot run(s)")
    p.add_argument("--target-ci", type=float, required=True, metavar="PCT",
                   help="relative half-width to reach, in percent (3 = +-3%%)")
    p.add_argument("--budget-per-cell", type=float, metavar="SEC", help="machine seconds a cell may take")
    p.add_argument("--confidence", type=float, default=0.99, help="confidence level (default 0.99)")
    p.add_argument("--machines", type=int, default=1, metavar="N",
                   help="plan for N machines (run --shard, campaign submit): machines x processes x iterations "
                        "under the three-level model, with the wall time on N machines (default 1)")
    p.add_argument("--machine-spread", type=float, metavar="PCT",
                   help="between-machine sd to assume, in percent, where the pilot ran on one machine (default 0)")
    p.add_argument("--format", choices=["text", "csv"], default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.analysis.planner import format_plan, plan_runs
    from harness.errors import UserError

    check_target_ci(args.target_ci)
    if args.budget_per_cell is not None and args.budget_per_cell <= 0:
        raise UserError("--budget-per-cell must be a positive number of seconds")
    check_confidence(args.confidence)
    target = args.target_ci / 100
    if not 1 <= args.machines <= 10_000:
        raise UserError(f"--machines must be between 1 and 10000, got {args.machines}")
    if args.machine_spread is not None and not 0 <= args.machine_spread < 100:
        raise UserError("--machine-spread is a percentage from 0 to 100, e.g. 5")
    if args.machines > 1 or args.machine_spread is not None:
        from harness.analysis.planner import format_machines_plan, plan_runs_on_machines

        if args.budget_per_cell is not None:
            raise UserError("--budget-per-cell plans one machine; leave it out with --machines")
        spread = args.machine_spread / 100 if args.machine_spread is not None else None
        df = plan_runs_on_machines(args.runs, target, args.machines, spread, args.confidence)
        if df.empty:
            raise UserError("the runs hold no timings to plan from")
        print(df.to_csv(index=False) if args.format == "csv" else format_machines_plan(df, target, args.machines))
        return 0
    df = plan_runs(args.runs, target, args.confidence, args.budget_per_cell)
    if df.empty:
        raise UserError("the runs hold no timings to plan from")
    print(df.to_csv(index=False) if args.format == "csv" else format_plan(df, target, args.budget_per_cell))
    return 0
