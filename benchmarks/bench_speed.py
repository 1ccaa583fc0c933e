"""The speed goals where people wait (issue 11 item 7): before | after, on one machine, back to back.

Each row runs a command in a fresh subprocess with PYTHONPATH set to a checkout (this one, and
with --before PATH another, e.g. `git worktree add /tmp/before main`) and reports its wall time
and its CPU time (user + sys of the subprocess and its children): on a shared machine the wall
time depends on the other jobs, the CPU time much less, so compare CPU times and ratios.

  python benchmarks/bench_speed.py [--before PATH] [--scale-iterations 22727] [--skip ROW,...]

Rows: `summary` of the reference run (cold: empty analysis cache; warm: second call), what
`make paper` does (every notebook on the reference runs, warm cache, into temporary copies), the
steady-state detection of 440 processes of 1,137 / 4,546 iterations, a one-process smoke run
(fixed start-up cost), the statistics against scipy.stats.bootstrap (bench_stats.py's ratio),
and `summary` of a synthetic run of 440 processes (bench_scale.py; 22,727 iterations = 10
million rows is the goal, the default 2,273 keeps `make bench` short). `make run` on a fresh
clone takes minutes: time it with `time make run` (README).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WARMUP_SCRIPT = """
import sys, time, numpy as np
from harness.analysis import stats
n = int(sys.argv[1])
rng = np.random.default_rng(0)
X = 1.0 + 0.02 * rng.standard_normal((440, n))
X[:, : n // 10] += 0.1
t = time.perf_counter()
stats.steady_states(list(X))
print(f"seconds={time.perf_counter() - t:.3f}")
"""


def run(tree: Path, args: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall s, CPU s of the child and its children, stdout) of `python ARGS` with tree's harness."""
    e = dict(os.environ, PYTHONPATH=str(tree), **(env or {}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], cwd=tree, env=e, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} in {tree} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def rows(tree: Path, cache: Path, scale_iterations: int, skip: set[str]) -> dict[str, str]:
    """Each goal's measurement with `tree`'s code, as text."""
    out: dict[str, str] = {}
    refs = sorted(str(p) for p in (ROOT / "data" / "reference").glob("*") if (p / "manifest.json").exists())
    env = {"CROSSINGS_ANALYSIS_CACHE": str(cache)}
    if "summary" not in skip and refs:
        w, c, _ = run(tree, ["-m", "harness", "summary", *refs], env)
        out["summary of the reference run, cold cache (goal <= 3 s)"] = f"{w:.1f} s (CPU {c:.1f} s)"
        w, c, _ = run(tree, ["-m", "harness", "summary", *refs], env)
        out["summary of the reference run, warm cache (goal <= 3 s)"] = f"{w:.1f} s (CPU {c:.1f} s)"
    if "warmup" not in skip:
        for n in (1137, 4546):
            _, c, text = run(tree, ["-c", WARMUP_SCRIPT, str(n)])
            secs = float(re.search(r"seconds=([\d.]+)", text).group(1))
            out[f"steady states, 440 x {n:,} iterations (near-linear)"] = f"{secs:.1f} s (CPU {c:.1f} s)"
    if "paper" not in skip and refs:
        # what `make paper` does, into a copy of paper.md and temporary folders (tracked files untouched)
        with tempfile.TemporaryDirectory() as tmp:
            paper = Path(tmp) / "paper.md"
            paper.write_bytes((tree / "paper.md").read_bytes())
            history = tree / "data" / "reference-history"
            w, c, _ = run(tree, ["-m", "harness", "notebooks", *refs, "--paper", str(paper), "--figures",
                                 str(Path(tmp) / "figures"), "--executed", str(Path(tmp) / "executed"),
                                 *(["--history", str(history)] if history.is_dir() else [])], env)
        out["make paper: every notebook on the reference runs, warm cache (goal <= 30 s)"] = \
            f"{w:.1f} s (CPU {c:.1f} s)"
    if "startup" not in skip:
        with tempfile.TemporaryDirectory() as tmp:
            w, c, _ = run(tree, ["-m", "harness", "run", "--profile", "smoke", "--benchmarks", "bindings.select_fold",
                                 "--engines", "sqlite/sqlite3", "--processes", "1", "--iterations", "1", "--out", tmp],
                          env)
            lifetimes = [json.loads(p.read_text()) for p in Path(tmp).glob("*/processes/*.json")]
            worker = sum(r["ended"] - r["started"] for r in lifetimes)
        out["one-process smoke run: whole, and fixed cost = whole - the worker's life (goal <= 1 s)"] = \
            f"{w:.2f} s, fixed {w - worker:.2f} s (CPU {c:.1f} s)"
    if "stats" not in skip:
        w, c, text = run(tree, [str(tree / "benchmarks" / "bench_stats.py")])
        m = re.search(r"ratio scipy/ours: ([\d.]+)x", text)
        ours = re.search(r"ours .*?: ([\d.]+) s \(CPU ([\d.]+) s\)", text)
        theirs = re.search(r"scipy \(scipy.*?: ([\d.]+) s \(CPU ([\d.]+) s\)", text)
        cpu_ratio = float(theirs.group(2)) / float(ours.group(2)) if ours and theirs else float("nan")
        out["statistics vs scipy.stats.bootstrap (goal >= 20x)"] = (
            f"{m.group(1) if m else '?'}x wall, {cpu_ratio:.1f}x CPU")
    if "scale" not in skip:
        _, _, text = run(ROOT, [str(ROOT / "benchmarks" / "bench_scale.py"), "--iterations", str(scale_iterations),
                                "--tree", str(tree)])
        m = re.search(r"rows=(\d+).*summary_s=([\d.]+) peak_rss_mib=(\d+)", text)
        out["summary of a synthetic run (goal 10M rows <= 10 s, <= 1 GiB)"] = (
            f"{int(m.group(1)):,} rows: {m.group(2)} s, {m.group(3)} MiB" if m else text.strip())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, help="a checkout of the code to compare with (e.g. main)")
    ap.add_argument("--scale-iterations", type=int, default=2273)
    ap.add_argument("--skip", default="", help="rows to leave out: summary,paper,warmup,startup,stats,scale")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        before = rows(args.before.resolve(), Path(tmp) / "before", args.scale_iterations, skip) if args.before else {}
        after = rows(ROOT, Path(tmp) / "after", args.scale_iterations, skip)
    print(f"machine: {os.cpu_count()} CPUs; load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    print("| goal | before | after |")
    print("|---|---|---|")
    for goal, value in after.items():
        print(f"| {goal} | {before.get(goal, '-')} | {value} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
