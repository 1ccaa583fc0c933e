"""A noise generator with a log: the known neighbour that calibrates and checks the interference rule.

Two kinds of trouble a shared machine really has, on one CPU (the worker's):
- a bursty CPU burner: idle for a random 0.3-2.5 s, then busy for a random 0.1-1.2 s;
- a storm of short-lived processes: every random 0.5-3 s, a burst of 2-8 processes of about
  20-60 ms of CPU each (what a build or a test suite starts), each born and gone between two
  /proc snapshots, which is what the old whole-process scan could not see.
Every burst is logged as one JSON line {kind, start, end} in wall-clock seconds (time.time(),
the clock the runner's process records use), so a benchmark can say which processes truly ran
beside it. Usage: python benchmarks/noisegen.py --cpu 1 --log FILE [--seconds 600] [--seed 0]
Stops on SIGTERM/SIGINT or after --seconds, finishing the line of the burst under way.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

#: what one short-lived process of the storm does: a little CPU, then exit
_STORM_CHILD = "import sys\nx=0\nfor i in range(int(sys.argv[1])): x=(x*7+i)&0xFFFF\n"


def _pin(cpu: int | None) -> None:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})


class Log:
    """One JSON line per burst, flushed at once (a killed generator loses nothing it logged)."""

    def __init__(self, path: Path) -> None:
        self.f = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def write(self, kind: str, start: float, end: float, **extra: object) -> None:
        with self.lock:
            self.f.write(json.dumps({"kind": kind, "start": start, "end": end, **extra}) + "\n")


def burner(stop: threading.Event, log: Log, rng: random.Random, cpu: int | None) -> None:
    """Idle, then burn the CPU, again and again (in a child process pinned to `cpu`)."""
    while not stop.wait(rng.uniform(0.3, 2.5)):
        length = rng.uniform(0.1, 1.2)
        start = time.time()
        p = subprocess.Popen([sys.executable, "-c", f"import time\nt=time.time()+{length}\nwhile time.time()<t: pass"],
                             preexec_fn=lambda: _pin(cpu))
        p.wait()
        log.write("burn", start, time.time())


def storm(stop: threading.Event, log: Log, rng: random.Random, cpu: int | None) -> None:
    """Bursts of short-lived processes, one after another, pinned to `cpu`."""
    while not stop.wait(rng.uniform(0.5, 3.0)):
        start = time.time()
        count = rng.randint(2, 8)
        for _ in range(count):
            subprocess.run([sys.executable, "-S", "-c", _STORM_CHILD, str(rng.randint(100_000, 300_000))],
                           preexec_fn=lambda: _pin(cpu), check=False)
        log.write("storm", start, time.time(), processes=count)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", type=int, default=None, help="the CPU to disturb (default: any)")
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    log = Log(args.log)
    threads = [threading.Thread(target=f, args=(stop, log, random.Random(args.seed * 2 + i), args.cpu), daemon=True)
               for i, f in enumerate((burner, storm))]
    for t in threads:
        t.start()
    stop.wait(args.seconds)
    stop.set()
    for t in threads:
        t.join(timeout=5)
    return 0


def read_log(path: Path) -> list[dict]:
    """The bursts a generator logged."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def overlap_s(bursts: list[dict], start: float, end: float) -> float:
    """Seconds of [start, end] during which the generator was busy."""
    return sum(max(0.0, min(end, b["end"]) - max(start, b["start"])) for b in bursts)


if __name__ == "__main__":
    sys.exit(main())
