"""`run`: execute a profile's cells and store every raw timing; prints the run directory last.

Every option is checked here (or by the plan, which resolves names and parameters) before any
directory, server or worker exists. The exit status says whether the run measured what it
planned: 0 when every cell measured or was skipped by design, 1 otherwise (a one-screen status
summary on stderr says which); the last stdout line is the run directory either way.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from harness.commands.options import check_target_ci

#: options a resume takes from the stored plan (dest -> plan key); giving one that differs is refused
RESUME_FIXED = {"profile": "profile", "benchmarks": "benchmarks", "engines": "engines", "runtimes": "runtimes",
                "processes": "processes", "iterations": "iterations", "seed": "seed", "timeout": "timeout_s",
                "budget": "budget_s", "param": "params", "out": None, "aa": None}


#: a --param sweep planning more processes than this asks for --yes first
SWEEP_CONFIRM = 500


def _params(values: list[str]) -> dict[str, str | list[str]]:
    """`--param KEY=VALUE` options; `KEY=V1,V2,...` is a sweep (a list: one cell per value)."""
    from harness.errors import UserError

    out: dict[str, str | list[str]] = {}
    for v in values or []:
        k, sep, val = v.partition("=")
        if not sep or not k.strip():
            raise UserError(f"--param takes KEY=VALUE or KEY=V1,V2,..., got {v!r}")
        parts = [p.strip() for p in val.split(",")]
        if len(parts) > 1 and not all(parts):
            raise UserError(f"--param {v!r}: an empty value in the list")
        if k.strip() in out:
            raise UserError(f"--param {k.strip()} is given twice; give it once (KEY=V1,V2,... sweeps values)")
        out[k.strip()] = parts if len(parts) > 1 else val.strip()
    return out


def register(sub: argparse._SubParsersAction) -> None:
    from harness.run.plan import profile_name
    from harness.run.profiles import PROFILES
    from harness.run.runtimes import RUNTIMES

    p = sub.add_parser("run", help="run benchmarks (fresh processes x iterations per cell)")
    p.add_argument("--profile", type=profile_name, metavar="{" + ",".join(sorted(PROFILES)) + "}",
                   help="protocol and defaults (default quick)")
    p.add_argument("--benchmarks", help="benchmark globs, comma-separated (default: the profile's; an engine made for its own "
                        "benchmarks, such as ramsql/go, runs those)")
    p.add_argument("--engines", help="engine globs, comma-separated (default: the profile's)")
    p.add_argument("--runtimes", help=f"runtimes, comma-separated: {', '.join(RUNTIMES)} (default cpython)")
    p.add_argument("--processes", type=int, help="fresh processes per cell (default: the profile's)")
    p.add_argument("--iterations", type=int, help="timed iterations per process (default: the profile's)")
    p.add_argument("--seed", type=int, help="seed of the interleaved process order (default 0)")
    p.add_argument("--timeout", type=float, help="per-process timeout in seconds (default: the profile's)")
    p.add_argument("--budget", type=float, metavar="SEC",
                   help="per-process budget of timed seconds; 0 = run every iteration (default: the profile's)")
    p.add_argument("--param", action="append", default=None, metavar="KEY=VALUE",
                   help="override a benchmark parameter where it exists (e.g. n=100000, sf=0.1); "
                        "KEY=V1,V2,... sweeps: one cell per value (e.g. rows=10,100,1000)")
    p.add_argument("--dsn", action="append", default=[], metavar="ENGINE_FAMILY=DSN",
                   help="use your own server, e.g. postgresql=postgresql://user@host/db (never started or stopped)")
    p.add_argument("--out", type=Path, help="parent of the run directory (default data/runs)")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR", help="finish an interrupted run instead of starting one")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--no-pin", action="store_true", help="do not pin each worker to one CPU")
    p.add_argument("--max-wait", type=float, metavar="SEC",
                   help="before a process, wait at most this long while others use the worker's CPU "
                        "(default 30; 0 = never wait; a run waits at most 10 times this in all)")
    p.add_argument("--aa", metavar="ENGINE_GLOBS",
                   help="measure the cells of these engines (ENGINE or ENGINE@RUNTIME, globs) twice, the twin "
                        "named aa=twin, interleaved with the rest: an A/A check (summary and compare show the "
                        "twin's ratio to its cell; it must include 1)")
    p.add_argument("--leave-out", metavar="BENCH@ENGINE",
                   help="record the cells of these benchmark@engine globs (comma-separated; A/A twins too) as "
                        "skipped, left out to fit the run's budget, instead of measuring them")
    p.add_argument("--no-rerun", action="store_true",
                   help="keep disturbed processes as they are instead of running them again "
                        "(they are still flagged, and left out of estimates unless --keep-contaminated)")
    m = p.add_argument_group("more than one machine", "every machine builds the same plan; shard K of N runs "
                             "the processes p of each cell with p mod N = K, in the plan's interleaved order, "
                             "into OUT/RUN_ID-shard-K-of-N; `harness collect` merges the shards")
    m.add_argument("--shard", metavar="K/N", help="run shard K of N (counted from 0); needs --run-id")
    m.add_argument("--run-id", metavar="ID", help="the run id every shard shares (letters, digits, . _ -)")
    p.add_argument("--yes", action="store_true",
                   help=f"start a --param sweep of more than {SWEEP_CONFIRM} processes (without it, such a "
                        "sweep prints its plan and cost and stops)")
    a = p.add_argument_group("adaptive protocol", "run each cell until its 99% interval meets a target: a pilot "
                             "(--processes, default 3), then rounds of processes sized by the planner")
    a.add_argument("--target-ci", type=float, metavar="PCT",
                   help="relative half-width to reach, in percent (3 = +-3%%; default: the profile's, which "
                        "only `paper` sets; 0 = the fixed protocol)")
    a.add_argument("--max-time", type=float, metavar="SEC",
                   help="machine seconds a cell may take (default: the profile's, else 600)")
    a.add_argument("--max-run-time", type=float, metavar="SEC", help="machine seconds the whole run may take")
    a.add_argument("--min-processes", type=int, metavar="N",
                   help="clean processes a cell runs before --max-time may stop it, unless its target is met "
                        "(only --max-run-time stops it sooner; default: the profile's, 10 for paper, else 0)")
    p.set_defaults(func=run)


def _nonempty(option: str, value: str | None) -> list[str] | None:
    from harness.errors import UserError
    from harness.run.plan import split_globs

    globs = split_globs(value)
    if value is not None and not globs:
        raise UserError(f"{option} is empty: give at least one name or glob (or leave the option out)")
    return globs


def check_out(out: Path) -> Path:
    """The parent of run directories if it can hold one (it, or its nearest existing parent,
    is a writable directory); else a UserError. Nothing is created here."""
    from harness.errors import UserError

    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"--out {out}: {existing} is a file, not a directory")
    try:  # os.access says yes to root even where the file system says no: try it
        tempfile.TemporaryDirectory(prefix=".crossings-write-test-", dir=existing).cleanup()
    except OSError as exc:
        raise UserError(f"--out {out}: {existing} is not writable ({exc.strerror or exc})") from None
    return out


def check_environment() -> None:
    """Environment settings the run would trip over later, checked before anything starts."""
    from harness.errors import UserError
    from harness.run.servers.common import ServerError, transport_choice

    try:
        transport_choice()
    except ServerError as exc:
        raise UserError(str(exc)) from None
    from harness.analysis.stats.parallel import env_threads
    from harness.errors import env_words
    from harness.run.native.launcher import DEFAULT_CFLAGS

    env_threads()
    env_words("CROSSINGS_JVM_OPTS")
    env_words("CROSSINGS_NATIVE_CFLAGS", DEFAULT_CFLAGS)


def _check_resume(args: argparse.Namespace) -> None:
    """A resume finishes the stored plan: an option that would change it is refused, not ignored."""
    from harness import store
    from harness.errors import UserError

    run_dir = args.resume
    if not (run_dir / "plan.json").is_file():
        raise UserError(f"--resume {run_dir}: not a run directory (no plan.json)")
    plan = store.plan_of(run_dir)
    assert plan is not None  # plan.json is a file (above)
    given = {dest: getattr(args, dest, None) for dest in RESUME_FIXED if getattr(args, dest, None) is not None}
    for dest, value in given.items():
        key = RESUME_FIXED[dest]
        stored = plan.get(key) if key else None  # the stored plan's key of that option, as written
        if dest == "param":
            cells = plan.cells
            same = all(any(k in c.params for c in cells)
                       and {str(c.params[k]) for c in cells if k in c.params}
                       == set(v if isinstance(v, list) else [v])
                       for k, v in _params(value).items())
            stored = sorted({f"{k}={c.params[k]}" for c in cells for k in c.params})
        elif dest in ("benchmarks", "engines", "runtimes"):
            same = _nonempty(f"--{dest}", value) == stored
        else:
            same = stored is not None and value == stored
        if not same:
            option = "--" + dest
            raise UserError(f"--resume finishes the stored plan; {option} contradicts it "
                            f"(stored: {stored!r}); leave {option} out")


def run(args: argparse.Namespace) -> int:
    from harness.errors import RunStopped
    from harness.run.servers import user_dsns

    check_environment()
    shard = _shard(args)
    drive = _adaptive(args)
    dsns = user_dsns(args.dsn)
    progress = not args.no_progress
    try:
        run_dir = _start_or_resume(args, dsns, progress, drive, shard)
    except RunStopped as exc:  # disk full and the like: one line, the run directory, exit 1
        print(f"error: {exc}", file=sys.stderr)
        print(exc.run_dir)
        return exc.exit_status
    status = report(run_dir)
    print(run_dir)
    return status


def _shard(args: argparse.Namespace):
    """The shard to run (`run.shard.Shard`), or None; every contradiction is refused here."""
    from harness.errors import UserError
    from harness.fsutil import PROJECT_ROOT
    from harness.run.profiles import PROFILES
    from harness.run.shard import check_run_id, dir_name, parse_shard

    if args.shard is None and args.run_id is None:
        return None
    if args.resume:
        raise UserError("--resume finishes the stored run or shard; leave --shard and --run-id out")
    if args.shard is None:
        raise UserError("--run-id names the run the shards share: give --shard K/N with it")
    if args.run_id is None:
        raise UserError("--shard K/N needs --run-id ID, the same on every machine (harness campaign submit "
                        "chooses one)")
    shard = parse_shard(args.shard)
    check_run_id(args.run_id)
    target = args.target_ci if args.target_ci is not None else PROFILES[args.profile or "quick"].target_ci_pct
    if target:
        raise UserError("--shard runs the fixed protocol (the adaptive rounds would depend on what the other "
                        "machines measured): give --target-ci 0 with --processes and --iterations "
                        "(`harness plan --target-ci PCT PILOT_RUN` sizes them)")
    processes = args.processes if args.processes is not None else PROFILES[args.profile or "quick"].processes
    if processes < shard.count:
        raise UserError(f"--shard {shard.index}/{shard.count} spreads each cell's processes over {shard.count} "
                        f"machines: give --processes of at least {shard.count} (now {processes})")
    where = (args.out or PROJECT_ROOT / "data" / "runs") / dir_name(args.run_id, shard)
    if where.exists():
        raise UserError(f"{where} exists: finish it with --resume {where}, or choose another --run-id")
    return shard


def _start_or_resume(args: argparse.Namespace, dsns: dict[str, str], progress: bool, drive=None,
                     shard=None) -> Path:
    from harness.errors import UserError
    from harness.fsutil import PROJECT_ROOT
    from harness.run.plan import RunRequest, check_counts
    from harness.run.runner import resume_run, start_run

    if args.resume:
        _check_resume(args)
        return resume_run(args.resume, dsns, progress, max_wait_s=_max_wait(getattr(args, "max_wait", None)))
    else:
        params = _params(args.param)
        check_counts(args.processes, args.iterations, args.timeout, args.budget)
        if args.seed is not None and not -2**63 <= args.seed < 2**63:
            raise UserError(f"--seed must fit in 64 bits, got {args.seed}")
        request = RunRequest(
            profile=args.profile or "quick", benchmarks=_nonempty("--benchmarks", args.benchmarks),
            engines=_nonempty("--engines", args.engines),
            runtimes=_nonempty("--runtimes", args.runtimes) or ["cpython"], processes=args.processes,
            iterations=args.iterations, seed=args.seed or 0,
            out=check_out(args.out or PROJECT_ROOT / "data" / "runs"), timeout_s=args.timeout,
            budget_s=args.budget, params=params, dsns=dsns, progress=progress, pin=not args.no_pin,
            max_wait_s=_max_wait(args.max_wait), rerun=False if args.no_rerun else None,
            aa=_nonempty("--aa", args.aa), leave_out=_nonempty("--leave-out", args.leave_out),
            shard=shard, run_id=args.run_id if shard is not None else None,
            command=recorded_command(sys.argv[1:], args.dsn, dsns))
        if drive is not None and request.processes is None:
            request.processes = 3  # the adaptive pilot
        if not args.yes:
            check_sweep_size(request)
        return start_run(request, drive)


def _max_wait(value: float | None) -> float | None:
    from harness.errors import UserError

    if value is not None and not 0 <= value <= 3600:
        raise UserError(f"--max-wait is a number of seconds between 0 and 3600, got {value:g}")
    return value


def check_sweep_size(request) -> None:
    """A --param sweep of more than SWEEP_CONFIRM processes is refused without --yes, its plan
    and an upper bound of its cost said in the one error line. Why: sweeps multiply, and a
    typo'd list can plan thousands of processes (hours) that would start without a word."""
    from harness.errors import UserError
    from harness.run.plan import build_plan

    if not any(isinstance(v, list) for v in (request.params or {}).values()):
        return
    plan = build_plan(request, "preview")
    n = len(plan.order)
    if n <= SWEEP_CONFIRM:
        return
    timeout = plan.timeout_s
    bound = f"; up to {n * timeout / 3600:.1f} h at the per-process timeout of {timeout:g} s" if timeout else ""
    raise UserError(f"the --param sweep plans {n} processes ({len(plan.cells)} cells x {plan.processes} "
                    f"processes x {plan.iterations} iterations{bound}); add --yes to start it, or sweep fewer values")


def recorded_command(argv: list[str], dsn_args: list[str], dsns: dict[str, str]) -> list[str]:
    """The command as the manifest records it, with every password the run knows (each --dsn
    as typed, each DSN in use) scrubbed from every argument, in any DSN form; the manifest then
    applies `redact` as a second net."""
    from harness.redaction import dsn_args_secrets, dsn_secrets, scrub

    secrets = dsn_args_secrets(dsn_args) + [s for d in dsns.values() for s in dsn_secrets(d)]
    return ["python", "-m", "harness", *(scrub(a, secrets) for a in argv)]


def report(run_dir: Path) -> int:
    """Print the run's one-screen status summary on stderr; 0 if it measured what it planned, else 1."""
    from harness.run.adaptive import format_record
    from harness.run.outcome import outcome
    from harness.store import manifest_of

    adaptive = manifest_of(run_dir).adaptive
    if adaptive:
        print(format_record(adaptive), file=sys.stderr)

    result = outcome(run_dir)
    for line in result.lines:
        print(line, file=sys.stderr)
    return result.exit_status


def _adaptive(args: argparse.Namespace):
    """The adaptive protocol's driver for `start_run`, or None without --target-ci."""
    from harness.errors import UserError

    from harness.run.profiles import PROFILES

    if args.resume:
        if (args.target_ci is not None or args.max_time is not None or args.max_run_time is not None
                or args.min_processes is not None):
            raise UserError("--target-ci starts a run; --resume finishes the recorded order of one")
        return None
    profile = PROFILES[args.profile or "quick"]
    target = args.target_ci if args.target_ci is not None else profile.target_ci_pct
    if not target:  # None, or 0: the fixed protocol
        if args.max_run_time is not None or args.max_time is not None or args.min_processes is not None:
            raise UserError("--max-time, --max-run-time and --min-processes need a target: --target-ci PCT "
                            "(or --profile paper)")
        return None
    check_target_ci(target)
    args.target_ci = target
    if args.max_time is None:
        args.max_time = profile.max_time_s or 600.0
    if args.max_time <= 0 or (args.max_run_time is not None and args.max_run_time <= 0):
        raise UserError("--max-time and --max-run-time must be positive numbers of seconds")
    if args.processes is not None and args.processes < 2:
        raise UserError("the adaptive pilot needs --processes of at least 2")
    if args.iterations is not None and args.iterations < 2:
        raise UserError("the adaptive pilot needs --iterations of at least 2")
    from harness.analysis.planner import assess_run
    from harness.run.adaptive import Settings, drive

    min_processes = profile.min_processes if args.min_processes is None else args.min_processes
    if min_processes < 0:
        raise UserError("--min-processes must be 0 or more")
    settings = Settings(target=args.target_ci / 100, max_time_s=args.max_time, max_run_time_s=args.max_run_time,
                        min_processes=min_processes)
    say = None if args.no_progress else (lambda msg: print(msg, file=sys.stderr))
    return lambda runner: drive(runner, settings, assess_run, say)
