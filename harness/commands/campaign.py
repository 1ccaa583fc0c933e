"""`campaign`: a sharded run as a Slurm job array: `submit`, `status`, `collect`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: run options a campaign passes to every shard (dest -> run's option)
RUN_OPTIONS = {"profile": "--profile", "benchmarks": "--benchmarks", "engines": "--engines", "runtimes": "--runtimes",
               "processes": "--processes", "iterations": "--iterations", "seed": "--seed", "timeout": "--timeout",
               "budget": "--budget"}


def register(sub: argparse._SubParsersAction) -> None:
    from harness.run.campaign import SCHEDULERS
    from harness.run.profiles import PROFILES

    p = sub.add_parser("campaign", help="run one plan on many machines through a batch scheduler (Slurm)",
                       description="submit writes DIR/RUN_ID (job script, campaign.json, logs, shards) and submits "
                                   "one Slurm job array: one exclusive task per shard, each running "
                                   "`harness run --shard K/N` into DIR/RUN_ID/shards; status follows it (squeue, "
                                   "scontrol, sacct and the shard directories); collect merges the shards.")
    cs = p.add_subparsers(dest="action", metavar="ACTION")
    cs.required = True
    s = cs.add_parser("submit", help="write and submit the job array; prints the campaign directory")
    s.add_argument("--scheduler", choices=SCHEDULERS, required=True)
    s.add_argument("--nodes", type=int, default=1, help="shards: array tasks, one exclusive node each (default 1)")
    s.add_argument("--partition", help="Slurm partition (default: the cluster's default)")
    s.add_argument("--time", dest="time_limit", metavar="LIMIT", help="Slurm time limit per task, e.g. 2:00:00")
    s.add_argument("--dir", type=Path, required=True, help="a directory every node sees (the campaign goes in DIR/RUN_ID)")
    s.add_argument("--profile", choices=sorted(PROFILES), help="as for run (default quick)")
    s.add_argument("--benchmarks", help="as for run")
    s.add_argument("--engines", help="as for run")
    s.add_argument("--runtimes", help="as for run")
    s.add_argument("--processes", type=int, help="processes per cell, spread over the shards (at least --nodes)")
    s.add_argument("--iterations", type=int, help="as for run")
    s.add_argument("--seed", type=int, help="as for run")
    s.add_argument("--timeout", type=float, help="as for run")
    s.add_argument("--budget", type=float, help="as for run")
    s.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="as for run")
    s.add_argument("--no-pin", action="store_true", help="as for run")
    s.set_defaults(func=submit)
    st = cs.add_parser("status", help="each shard's Slurm state and progress")
    st.add_argument("campaign", type=Path, metavar="CAMPAIGN_DIR")
    st.add_argument("--format", choices=["text", "json"], default="text")
    st.set_defaults(func=status)
    co = cs.add_parser("collect", help="merge the shards into one run directory (prints it)")
    co.add_argument("campaign", type=Path, metavar="CAMPAIGN_DIR")
    co.add_argument("--out", type=Path, help="parent of the run directory (default CAMPAIGN_DIR/run)")
    co.add_argument("--allow-incomplete", action="store_true", help="collect what is there (an incomplete run)")
    co.set_defaults(func=collect)


def _run_args(args: argparse.Namespace) -> list[str]:
    out: list[str] = []
    for dest, option in RUN_OPTIONS.items():
        value = getattr(args, dest)
        if value is not None:
            out += [option, str(value)]
    for p in args.param:
        out += ["--param", p]
    if args.no_pin:
        out.append("--no-pin")
    return out + ["--target-ci", "0"]  # shards run the fixed protocol


def submit(args: argparse.Namespace) -> int:
    from harness import store
    from harness.commands.run import _nonempty, _params
    from harness.errors import UserError
    from harness.run.campaign import read_campaign
    from harness.run.campaign import submit as submit_campaign
    from harness.run.plan import RunRequest, build_plan, check_counts
    from harness.run.shard import MAX_SHARDS, Shard

    if not 1 <= args.nodes <= MAX_SHARDS:
        raise UserError(f"--nodes must be between 1 and {MAX_SHARDS}, got {args.nodes}")
    check_counts(args.processes, args.iterations, args.timeout, args.budget)
    run_id = store.new_run_id()
    # the plan every shard will build, built here first: a bad name or count fails before sbatch
    build_plan(RunRequest(profile=args.profile or "quick", benchmarks=_nonempty("--benchmarks", args.benchmarks),
                          engines=_nonempty("--engines", args.engines),
                          runtimes=_nonempty("--runtimes", args.runtimes) or ["cpython"], processes=args.processes,
                          iterations=args.iterations, seed=args.seed or 0, timeout_s=args.timeout,
                          budget_s=args.budget, params=_params(args.param), shard=Shard(0, args.nodes),
                          run_id=run_id), run_id)
    cdir = submit_campaign(args.dir, run_id, args.nodes, _run_args(args), args.partition, args.time_limit,
                           args.scheduler)
    c = read_campaign(cdir)
    print(f"submitted Slurm job {c['job_id']}: {args.nodes} shard{'s' if args.nodes > 1 else ''} of run {run_id}; "
          f"follow it with: python -m harness campaign status {cdir}", file=sys.stderr)
    print(cdir)
    return 0


def status(args: argparse.Namespace) -> int:
    from harness.run.campaign import format_status, read_campaign, status_json
    from harness.run.campaign import status as shard_status

    c = read_campaign(args.campaign)
    rows = shard_status(args.campaign)
    print(status_json(c, rows) if args.format == "json" else format_status(c, rows))
    return 0


def collect(args: argparse.Namespace) -> int:
    from harness.run.campaign import collect_campaign
    from harness.run.collect import warn_if_commits_differ

    run = collect_campaign(args.campaign, args.out, args.allow_incomplete)
    warn_if_commits_differ(run)
    print(run)
    return 0
