"""`run`: execute a profile's cells and store every raw timing; prints the run directory last."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _params(values: list[str]) -> dict[str, str]:
    out = {}
    for v in values or []:
        if "=" not in v:
            raise argparse.ArgumentTypeError(f"--param takes KEY=VALUE, got {v!r}")
        k, val = v.split("=", 1)
        out[k.strip()] = val.strip()
    return out


def register(sub: argparse._SubParsersAction) -> None:
    from harness.fsutil import PROJECT_ROOT
    from harness.run.profiles import PROFILES

    p = sub.add_parser("run", help="run benchmarks (fresh processes x iterations per cell)")
    p.add_argument("--profile", choices=sorted(PROFILES), default="quick", help="protocol and defaults (default quick)")
    p.add_argument("--benchmarks", help="benchmark globs, comma-separated (default: the profile's)")
    p.add_argument("--engines", help="engine globs, comma-separated (default: the profile's)")
    p.add_argument("--runtimes", default="cpython", help="runtimes, comma-separated: cpython,pypy,c (default cpython)")
    p.add_argument("--processes", type=int, help="fresh processes per cell (default: the profile's)")
    p.add_argument("--iterations", type=int, help="timed iterations per process (default: the profile's)")
    p.add_argument("--seed", type=int, default=0, help="seed of the interleaved process order (default 0)")
    p.add_argument("--timeout", type=float, help="per-process timeout in seconds (default: the profile's)")
    p.add_argument("--budget", type=float, metavar="SEC",
                   help="per-process budget of timed seconds; 0 = run every iteration (default: the profile's)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="override a benchmark parameter where it exists (e.g. n=100000, sf=0.1)")
    p.add_argument("--dsn", action="append", default=[], metavar="ENGINE_FAMILY=DSN",
                   help="use your own server, e.g. postgresql=postgresql://user@host/db (never started or stopped)")
    p.add_argument("--out", type=Path, default=PROJECT_ROOT / "data" / "runs", help="parent of the run directory")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR", help="finish an interrupted run instead of starting one")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--no-pin", action="store_true", help="do not pin each worker to one CPU")
    a = p.add_argument_group("adaptive protocol", "run each cell until its 99%% interval meets a target: a pilot "
                             "(--processes, default 3), then rounds of processes sized by the planner")
    a.add_argument("--target-ci", type=float, metavar="PCT", help="relative half-width to reach, in percent (3 = +-3%%)")
    a.add_argument("--max-time", type=float, default=600.0, metavar="SEC",
                   help="machine seconds a cell may take (default 600)")
    a.add_argument("--max-run-time", type=float, metavar="SEC", help="machine seconds the whole run may take")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.errors import UserError
    from harness.run.plan import RunRequest, split_globs
    from harness.run.runner import resume_run, start_run
    from harness.run.servers import user_dsns

    try:
        params = _params(args.param)
    except argparse.ArgumentTypeError as exc:
        raise UserError(str(exc)) from None
    progress = not args.no_progress
    drive = _adaptive(args)
    dsns = user_dsns(args.dsn)
    if args.resume:
        run_dir = resume_run(args.resume, dsns, progress)
    else:
        request = RunRequest(
            profile=args.profile, benchmarks=split_globs(args.benchmarks), engines=split_globs(args.engines),
            runtimes=split_globs(args.runtimes) or ["cpython"], processes=args.processes,
            iterations=args.iterations, seed=args.seed, out=args.out, timeout_s=args.timeout, budget_s=args.budget,
            params=params, dsns=dsns, progress=progress, pin=not args.no_pin, command=["python", "-m", "harness", *sys.argv[1:]])
        if drive is not None and request.processes is None:
            request.processes = 3
        run_dir = start_run(request, drive)
    _report(run_dir)
    print(run_dir)
    return 0


def _adaptive(args: argparse.Namespace):
    """The adaptive protocol's driver for `start_run`, or None without --target-ci."""
    from harness.errors import UserError

    if args.target_ci is None:
        if args.max_run_time is not None:
            raise UserError("--max-run-time needs --target-ci")
        return None
    if args.resume:
        raise UserError("--target-ci starts a run; --resume finishes the recorded order of one")
    if not 0 < args.target_ci < 100:
        raise UserError("--target-ci is a percentage between 0 and 100, e.g. 3")
    if args.max_time <= 0 or (args.max_run_time is not None and args.max_run_time <= 0):
        raise UserError("--max-time and --max-run-time must be positive numbers of seconds")
    if args.processes is not None and args.processes < 2:
        raise UserError("the adaptive pilot needs --processes of at least 2")
    if args.iterations is not None and args.iterations < 2:
        raise UserError("the adaptive pilot needs --iterations of at least 2")
    from harness.analysis.planner import assess_run
    from harness.run.adaptive import Settings, drive

    settings = Settings(target=args.target_ci / 100, max_time_s=args.max_time, max_run_time_s=args.max_run_time)
    say = None if args.no_progress else (lambda msg: print(msg, file=sys.stderr))
    return lambda runner: drive(runner, settings, assess_run, say)


def _report(run_dir: Path) -> None:
    from harness.run.adaptive import format_record
    from harness.store import read_manifest

    m = read_manifest(run_dir)
    if m.get("adaptive"):
        print(format_record(m["adaptive"]), file=sys.stderr)
    counts = ", ".join(f"{k} {v}" for k, v in sorted((m.get("process_counts") or {}).items()))
    print(f"run {m['run_id']} {m['status']}: processes {counts}", file=sys.stderr)
