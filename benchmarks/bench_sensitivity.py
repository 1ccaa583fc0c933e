"""Can `compare` find a 3% slowdown beside a noisy neighbour, and does it leave an A/A pair alone?

Each trial is one interleaved run of `bindings.select_fold` on `sqlite/sqlite3` at N = 10,000 and
N = 10,300 (3% more rows, so about 3% slower), plus an A/A twin of each (`run --aa`), every cell
given `--seconds` of machine time by the adaptive protocol (a target it cannot reach), with
`benchmarks/noisegen.py` disturbing the worker's CPU throughout (`--quiet`: without it). Then
`compare RUN --base-params n=10000 --new-params n=10300` must call the slowdown (Mann-Whitney on
per-process means, alpha 0.05, delta > 0), and `compare RUN --base-params aa= --new-params aa=twin`
must not call the N = 10,000 pair different. Both are asked with and without `--adjust canary`.
Goals: the slowdown found in >= 19 of 20 trials, the A/A pair in <= 1 of 20.
Usage: python benchmarks/bench_sensitivity.py [--trials 20] [--seconds 30] [--quiet]
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _harness(*args: str) -> str:
    p = subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"harness {' '.join(args)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return p.stdout


def trial(out: Path, seconds: float, seed: int) -> Path:
    stdout = _harness("run", "--profile", "quick", "--benchmarks", "bindings.select_fold", "--engines", "sqlite/sqlite3",
                      "--param", "n=10000,10300", "--aa", "sqlite/sqlite3", "--target-ci", "0.1",
                      "--max-time", f"{seconds:g}", "--max-run-time", f"{4 * seconds:g}", "--seed", str(seed),
                      "--out", str(out), "--no-progress")
    return Path(stdout.strip().splitlines()[-1])


def called(run_dir: Path, base: str, new: str, adjust: str, params: str) -> tuple[bool, float]:
    """(significant slowdown or difference called, delta %) for the cell with `params` left."""
    text = _harness("compare", str(run_dir), "--base-params", base, "--new-params", new, "--adjust", adjust,
                    "--format", "csv")
    for r in csv.DictReader(io.StringIO(text)):
        if r["benchmark"] == "bindings.select_fold" and r["params"] == params:
            return r["significant"] == "True", float(r["delta_pct"])
    sys.exit(f"no row for {params} in:\n{text}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30.0, help="machine seconds per cell (default 30)")
    ap.add_argument("--quiet", action="store_true", help="no noise generator")
    args = ap.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    found = {"none": 0, "canary": 0}
    aa = {"none": 0, "canary": 0}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        gen = None
        if not args.quiet:
            gen = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "noisegen.py"), "--cpu", str(cpu),
                                    "--log", str(out / "noise.jsonl"), "--seconds", "86400"])
        try:
            for t in range(args.trials):
                t0 = time.monotonic()
                run_dir = trial(out, args.seconds, seed=t)
                line = [f"trial {t + 1:2d} ({time.monotonic() - t0:.0f} s):"]
                for adjust in ("none", "canary"):
                    slow, d = called(run_dir, "n=10000", "n=10300", adjust, "")
                    same, d_aa = called(run_dir, "aa=", "aa=twin", adjust, "n=10000")
                    found[adjust] += slow and d > 0
                    aa[adjust] += same
                    line.append(f"{adjust}: slowdown {d:+.2f}% {'found' if slow and d > 0 else 'missed'}, "
                                f"A/A {d_aa:+.2f}% {'CALLED' if same else 'ok'};")
                print(" ".join(line), flush=True)
        finally:
            if gen is not None:
                gen.send_signal(signal.SIGTERM)
                gen.wait(timeout=30)
    for adjust in ("none", "canary"):
        print(f"{'beside noise' if not args.quiet else 'quiet'}, adjust {adjust}: 3% slowdown found in "
              f"{found[adjust]} of {args.trials} (goal >= 95%); A/A called different in {aa[adjust]} of {args.trials} "
              "(goal <= 5%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
