"""Precision per machine-second: crossings' adaptive protocol against pyperf's defaults.

The same workload (E1 `bindings.select_fold` on `sqlite/sqlite3`, N = 10,000) measured by pyperf
with its defaults (benchmarks/pyperf_select_fold.py: 20 processes x 3 values after calibration
and a warm-up) and by crossings given the same wall-clock budget (`run --target-ci` with a target
it cannot reach, so it spends the budget as the planner chooses). Three repetitions, the first
tool alternating (pyperf, crossings / crossings, pyperf / pyperf, crossings); the budget is the
wall time of the first pyperf run. `--chunks K` splits each tool's turn into K alternating chunks
(ABBA order; pyperf 20 / K processes a chunk, crossings a run given the first pyperf chunk's wall
time), each tool's chunks pooled into one interval, so that both tools sample the host's speed
phases alike. Measured alone on 2026-11-26 with 4 chunks, the ratios at equal wall time ranged
less (quiet 0.65, 1.93, 0.51; beside the generator 0.67, 0.92, 1.10; with one run per tool, in
earlier sessions, 0.15 to 4.03) but were no lower: every crossings run pays its own start (a run
of a 4-6 s budget took 8-9 s of wall time). Both intervals are computed by our default method on the raw
values (pyperf's JSON imported with `harness import --format pyperf`; its warm-ups are not
imported), all iterations, 99%. Prints one row per measurement and the ratio of half-widths,
raw and at equal wall time (a half-width shrinks as 1/sqrt(time): ratio x sqrt(wall_c / wall_p)).
With --noise, `benchmarks/noisegen.py` disturbs the worker's CPU (crossings pins its workers
there; pyperf's may run on either CPU) for the whole measurement.
Usage: python benchmarks/bench_precision.py [--repetitions 3] [--n 10000] [--chunks 1] [--noise]
"""
from __future__ import annotations

import argparse
import contextlib
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.analysis.planner import relative_half_width  # noqa: E402
from harness.analysis.runset import summarize_runs  # noqa: E402


def _last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def run_pyperf(out: Path, n: int, processes: int = 20) -> tuple[Path, float]:
    json_path = out / f"pyperf-{time.time_ns()}.json"
    t0 = time.monotonic()
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pyperf_select_fold.py"), "--quiet", "-o",
                    str(json_path), "--n", str(n), "--processes", str(processes)], cwd=out, check=True,
                   capture_output=True, text=True)
    wall = time.monotonic() - t0
    imp = subprocess.run([sys.executable, "-m", "harness", "import", str(json_path), "--format", "pyperf",
                          "--engine", "sqlite/sqlite3", "--out", str(out)], cwd=ROOT, check=True,
                         capture_output=True, text=True)
    return Path(_last_line(imp.stdout)), wall


def run_crossings(out: Path, n: int, budget_s: float) -> tuple[Path, float]:
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "harness", "run", "--profile", "quick", "--benchmarks",
                        "bindings.select_fold", "--engines", "sqlite/sqlite3", "--param", f"n={n}",
                        "--target-ci", "0.5", "--max-time", f"{budget_s:.1f}", "--max-run-time", f"{budget_s:.1f}",
                        "--out", str(out), "--no-progress"], cwd=ROOT, check=True, capture_output=True, text=True)
    return Path(_last_line(p.stdout)), time.monotonic() - t0


def half_width(run_dirs: list[Path]) -> tuple[float, float, int, int, float]:
    """(relative 99% half-width by the default method, mean s, processes, values, the canary-adjusted
    interval's relative half-width or nan) of the one cell, its chunks' runs pooled."""
    s = summarize_runs(run_dirs)
    s = s[s["mean_s"].notna()]
    (r,) = s.itertuples()
    adj = relative_half_width(r.adj_mean_s, r.adj_ci_low_s, r.adj_ci_high_s) if hasattr(r, "adj_mean_s") else math.nan
    return relative_half_width(r.mean_s, r.ci_low_s, r.ci_high_s), r.mean_s, int(r.processes), int(r.n), adj


@contextlib.contextmanager
def _noise(on: bool, tmp: Path):
    if not on:
        yield
        return
    import os
    import signal

    cpu = sorted(os.sched_getaffinity(0))[-1]
    gen = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "noisegen.py"), "--cpu", str(cpu), "--log",
                            str(tmp / "noise.jsonl"), "--seconds", "86400"])
    try:
        yield
    finally:
        gen.send_signal(signal.SIGTERM)
        gen.wait(timeout=30)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--chunks", type=int, default=1,
                    help="alternating chunks per tool and repetition: 1, 2, 4, 10 or 20 (default 1)")
    ap.add_argument("--noise", action="store_true", help="run the noise generator on the worker's CPU meanwhile")
    args = ap.parse_args()
    if args.chunks not in (1, 2, 4, 10, 20):
        ap.error("--chunks must be 1, 2, 4, 10 or 20 (pyperf's 20 processes split evenly)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, _noise(args.noise, Path(tmp)):
        out = Path(tmp)
        budget = None
        for rep in range(args.repetitions):
            first, second = ("pyperf", "crossings") if rep % 2 == 0 else ("crossings", "pyperf")
            if budget is None and first == "crossings":
                first, second = second, first  # the first chunk of all sets the crossings budget
            order = [first if i % 4 in (0, 3) else second for i in range(2 * args.chunks)]  # ABBA ABBA ...
            dirs: dict[str, list[Path]] = {"pyperf": [], "crossings": []}
            walls = {"pyperf": 0.0, "crossings": 0.0}
            for tool in order:
                if tool == "pyperf":
                    run_dir, wall = run_pyperf(out, args.n, 20 // args.chunks)
                    budget = budget or wall
                else:
                    run_dir, wall = run_crossings(out, args.n, budget)
                dirs[tool].append(run_dir)
                walls[tool] += wall
            got = {}
            for tool in ("pyperf", "crossings"):
                h, mean, procs, values, adj = half_width(dirs[tool])
                got[tool] = h
                rows.append((rep + 1, tool, walls[tool], mean, procs, values, h, adj))
                stop = ""
                if tool == "crossings":
                    from harness.store import manifest_of

                    stops = sorted({c["stop"] for d in dirs[tool]
                                    for c in (manifest_of(d).adaptive or {})["cells"]})
                    stop = f"  stop: {', '.join(stops)}; canary-adjusted +-{100 * adj:.2f}%"
                print(f"rep {rep + 1} {tool:9s} wall {walls[tool]:6.1f} s  mean {mean * 1e3:7.3f} ms  "
                      f"{procs:4d} processes {values:6d} values  99% half-width +-{100 * h:.2f}%{stop}", flush=True)
            print(f"rep {rep + 1} ratio crossings/pyperf half-width: {got['crossings'] / got['pyperf']:.3f}", flush=True)
    ratios = [c[6] / p[6] for c, p in zip([r for r in rows if r[1] == "crossings"], [r for r in rows if r[1] == "pyperf"])]
    walls = [c[2] / p[2] for c, p in zip([r for r in rows if r[1] == "crossings"], [r for r in rows if r[1] == "pyperf"])]
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\nbudget {budget:.1f} s per crossings run (the first pyperf run's wall time); half-width ratio crossings/pyperf per repetition: "
          + ", ".join(f"{r:.3f}" for r in ratios) + f"; geometric mean {gm:.3f} (goal <= 0.5)")
    print("wall ratio crossings/pyperf per repetition: " + ", ".join(f"{w:.2f}" for w in walls))
    eq = [r * math.sqrt(w) for r, w in zip(ratios, walls)]
    gm_eq = math.exp(sum(map(math.log, eq)) / len(eq))
    print("half-width ratio at equal wall time: " + ", ".join(f"{r:.3f}" for r in eq) + f"; geometric mean {gm_eq:.3f}")
    crossings = [r for r in rows if r[1] == "crossings"]
    pyperf = [r for r in rows if r[1] == "pyperf"]
    adj = [c[7] / p[6] * math.sqrt(w) for c, p, w in zip(crossings, pyperf, walls)]
    if all(math.isfinite(a) for a in adj):
        gm_adj = math.exp(sum(map(math.log, adj)) / len(adj))
        print("crossings' canary-adjusted interval (the mean at the run's median machine speed; pyperf's raw one "
              "estimates the mean over its own phases) / pyperf's, at equal wall time: "
              + ", ".join(f"{a:.3f}" for a in adj) + f"; geometric mean {gm_adj:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
