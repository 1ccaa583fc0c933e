"""Does the machine itself change speed during a run? Process speed against time, across cells.

Each measured process is compared with its own cell: its median steady iteration (iterations
after the first) over the median of the cell's processes. A process 1.4x slower than its cell is
slow. If slowness came from the processes themselves it would be spread evenly over the run; if
the machine slows down (a busy host under a virtual machine, throttling), the slow processes of
*all* cells bunch together in time. The table bins the run by start time and prints per bin the
processes, their median relative time and the share that is slow. A run whose bins range from
~0 to most processes slow has machine-level phases: between-process variance no pinning or
load check inside the guest can remove, and only more processes (interleaved) average out.

  python tools/slow_phases.py RUN_DIR [--bin 30] [--slow 1.4] [--min-processes 6]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq


def relative_speeds(run_dir: Path, min_processes: int) -> list[tuple[float, float]]:
    """(start time, process median / cell median) of every process in cells with enough of them."""
    by_cell: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
    for path in sorted((run_dir / "processes").glob("*.json")):
        r = json.loads(path.read_text())
        if r.get("status") != "ok":
            continue
        wall = pq.read_table(run_dir / "timings" / f"{r['seq']:06d}.parquet", columns=["wall_ns"]).column(0)
        w = np.asarray(wall.to_numpy(), dtype=float)
        if len(w) < 2:
            continue
        by_cell[(r["benchmark"], r["params"], r["engine"], r["runtime"])].append((r["started"], float(np.median(w[1:]))))
    out = []
    for rows in by_cell.values():
        if len(rows) < min_processes:
            continue
        med = float(np.median([m for _, m in rows]))
        out += [(t, m / med) for t, m in rows]
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--bin", type=float, default=30.0, help="seconds per time bin")
    ap.add_argument("--slow", type=float, default=1.4, help="a process this many times its cell's median is slow")
    ap.add_argument("--min-processes", type=int, default=6, help="cells with fewer processes are left out")
    args = ap.parse_args(argv)
    if not (args.run_dir / "processes").is_dir():
        print(f"error: {args.run_dir} is not a run directory (no processes/)", file=sys.stderr)
        return 2
    rel = relative_speeds(args.run_dir, args.min_processes)
    if not rel:
        print(f"no cell of {args.run_dir} has {args.min_processes} measured processes of 2+ iterations")
        return 1
    t0 = rel[0][0]
    bins: dict[int, list[float]] = defaultdict(list)
    for t, x in rel:
        bins[int((t - t0) // args.bin)].append(x)
    print(f"{'from s':>7} {'processes':>9} {'median rel.':>11} {'slow':>6}")
    shares = []
    for b in sorted(bins):
        a = np.array(bins[b])
        shares.append(float(np.mean(a > args.slow)))
        print(f"{b * args.bin:7.0f} {len(a):9d} {np.median(a):11.2f} {shares[-1]:6.0%}")
    x = np.array([r for _, r in rel])
    print(f"\n{len(x)} processes: {np.mean(x > args.slow):.0%} slower than {args.slow}x their cell's median; "
          f"slow share per {args.bin:.0f} s bin from {min(shares):.0%} to {max(shares):.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
