"""`gobench`: E6's benchmarks through `go test -bench` (the seed's way in), imported as runs.

Runs `go test -bench` on `harness/run/go/` in `--sessions` sessions (the seed's `bench.txt` and
`newbench.txt`: two sessions of the same code, so their comparison is an A/A test), runs real
benchstat on the raw lines when it can be had (`go install golang.org/x/perf/cmd/benchstat@latest`
into `data/cache/go/bin`; skipped with the reason otherwise), and imports each session with
`import --format gobench` as a run whose engine is `gotest-<session>`. Each imported run keeps the
raw lines, benchstat's output and what was run in its `gobench/` folder.

`--after RUN_DIR` continues an earlier `gobench` run: the new sessions are numbered after its
sessions (a single session after a one-session run is `newbench.txt`, engine gotest-2), and
benchstat compares its first session's raw lines with the new one's. The reference campaign's E6
uses it to bracket the worker's run: one session before it, one after (A, worker, A).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCHSTAT = "golang.org/x/perf/cmd/benchstat@latest"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gobench", help="E6 through `go test -bench`: sessions, benchstat, imported runs",
                       description="Runs E6's Go benchmarks with `go test -bench` (needs Go), compares the "
                                   "sessions with real benchstat when available, and imports each session as "
                                   "a run (engine gotest-N). Prints the run directories, the last one last.")
    p.add_argument("--count", type=int, default=6, help="go test -count (samples per benchmark; default 6)")
    p.add_argument("--benchtime", default="1s", help="go test -benchtime (default 1s, as the seed)")
    p.add_argument("--bench", default=".", help="go test -bench regular expression (default: all)")
    p.add_argument("--sessions", type=int, default=2, help="go test sessions (default 2: bench.txt, newbench.txt)")
    p.add_argument("--out", type=Path, default=None, help="parent directory of the new runs (default data/runs)")
    p.add_argument("--after", type=Path, default=None, metavar="RUN_DIR",
                   help="an earlier gobench run these sessions continue: numbered after its sessions, and "
                        "benchstat compares its first session with the first new one")
    p.set_defaults(func=run)


def session_name(i: int) -> str:
    return "bench.txt" if i == 0 else ("newbench.txt" if i == 1 else f"bench{i + 1}.txt")


def earlier_sessions(run_dir: Path) -> list[Path]:
    """The raw session files of an earlier `gobench` run (its `gobench/` folder), in session order."""
    from harness.errors import UserError

    meta_path = Path(run_dir) / "gobench" / "gobench.json"
    if not meta_path.exists():
        raise UserError(f"--after {run_dir}: not a gobench run (no gobench/gobench.json)")
    meta = json.loads(meta_path.read_text())
    first = int(meta.get("first_session", 1))
    names = [session_name(first - 1 + i) for i in range(len(meta.get("sessions") or []))]
    return [Path(run_dir) / "gobench" / n for n in names if (Path(run_dir) / "gobench" / n).exists()]


def benchstat(cache: Path, env: dict[str, str], go: str) -> tuple[str | None, str]:
    """The benchstat executable (installed into the cache on first use), or None and the reason."""
    exe = cache / "bin" / "benchstat"
    if exe.exists():
        return str(exe), ""
    proc = subprocess.run([go, "install", BENCHSTAT], capture_output=True, text=True, timeout=900,
                          env=dict(env, GOBIN=str(cache / "bin"), GOFLAGS="-modcacherw"))
    if proc.returncode != 0 or not exe.exists():
        tail = " | ".join((proc.stderr or "").strip().splitlines()[-2:]) or "no output"
        return None, f"cannot install {BENCHSTAT}: {tail}"
    return str(exe), ""


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from harness import store
    from harness.analysis.importers import read_import
    from harness.commands.run import check_out
    from harness.errors import UserError
    from harness.fsutil import PROJECT_ROOT
    from harness.run.go import launcher
    from harness.run.manifest import base_manifest

    if args.count < 1 or args.sessions < 1:
        raise UserError("--count and --sessions must be at least 1")
    out = check_out(args.out if args.out is not None else PROJECT_ROOT / "data" / "runs")
    try:
        argv, env = launcher.gotest_argv(args.count, args.benchtime, args.bench)
    except launcher.BuildError as exc:
        raise UserError(f"gobench needs Go: {exc}") from None
    go = argv[0]
    version = launcher.go_version(go)
    before = earlier_sessions(args.after) if args.after is not None else []
    if args.after is not None and not before:
        raise UserError(f"--after {args.after}: its gobench/ folder holds no session file")
    first = len(before) + 1  # the number of this call's first session (engine gotest-<first>)
    with tempfile.TemporaryDirectory(prefix="crossings-gobench-") as tmp:
        work = Path(tmp)
        files, meta = [], {"command": " ".join(argv), "cwd": str(launcher.GO_DIR.relative_to(PROJECT_ROOT)),
                           "go_version": version, "first_session": first, "sessions": []}
        if before:
            meta["after"] = {"run": Path(args.after).name, "sessions": [f.name for f in before]}
            for f in before:
                shutil.copy(f, work / f.name)
        for i in range(first - 1, first - 1 + args.sessions):
            name = session_name(i)
            print(f"go test session {i + 1} ({i + 2 - first} of {args.sessions}) -> {name} ...", file=sys.stderr,
                  flush=True)
            t0 = time.monotonic()
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=launcher.GO_DIR, env=env)
            seconds = time.monotonic() - t0
            (work / name).write_text(proc.stdout)
            if proc.returncode != 0:
                tail = " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
                raise UserError(f"go test failed (status {proc.returncode}): {tail}")
            meta["sessions"].append({"file": name, "seconds": round(seconds, 1)})
            files.append(work / name)
            print(f"  done in {seconds:.0f} s", file=sys.stderr)
        pair = ([before[0], files[0]] if before else files[:2])
        exe, reason = benchstat(launcher.cache_dir(), env, go) if len(pair) >= 2 else (None, "one session only")
        if exe:
            proc = subprocess.run([exe, *[f.name for f in pair]], capture_output=True, text=True, cwd=work)
            (work / "benchstat.txt").write_text(proc.stdout if proc.returncode == 0 else "")
            meta["benchstat"] = {"command": "benchstat " + " ".join(f.name for f in pair),
                                 "status": proc.returncode, "stderr": proc.stderr.strip()[-500:]}
        else:
            meta["benchstat"] = {"skipped": reason}
            print(f"benchstat skipped: {reason}", file=sys.stderr)
        (work / "gobench.json").write_text(json.dumps(meta, indent=1) + "\n")
        run_dirs = []
        for i, f in enumerate(files, start=first):
            df = read_import(f, "gobench", engine=f"gotest-{i}")
            df["wall_ns"] = df["wall_ns"].to_numpy(dtype=float)
            df["cpu_ns"] = df["cpu_ns"].fillna(0).astype(np.int64)
            extra = base_manifest("", command=None).to_dict()
            extra["source"] = {"file": f.name, "format": "gobench", "engine": f"gotest-{i}",
                               "go_test": meta["command"], "go_version": version}
            run_dir = store.write_imported_run(out, df.drop(columns=["run_id", "seq"]), extra)
            shutil.copytree(work, run_dir / "gobench")
            run_dirs.append(run_dir)
    for d in run_dirs:
        print(d)
    return 0
