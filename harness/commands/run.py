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
    dsns = user_dsns(args.dsn)
    if args.resume:
        run_dir = resume_run(args.resume, dsns, progress)
    else:
        request = RunRequest(
            profile=args.profile, benchmarks=split_globs(args.benchmarks), engines=split_globs(args.engines),
            runtimes=split_globs(args.runtimes) or ["cpython"], processes=args.processes,
            iterations=args.iterations, seed=args.seed, out=args.out, timeout_s=args.timeout, budget_s=args.budget,
            params=params, dsns=dsns, progress=progress, pin=not args.no_pin, command=["python", "-m", "harness", *sys.argv[1:]])
        run_dir = start_run(request)
    _report(run_dir)
    print(run_dir)
    return 0


def _report(run_dir: Path) -> None:
    from harness.store import read_manifest

    m = read_manifest(run_dir)
    counts = ", ".join(f"{k} {v}" for k, v in sorted((m.get("process_counts") or {}).items()))
    print(f"run {m['run_id']} {m['status']}: processes {counts}", file=sys.stderr)
