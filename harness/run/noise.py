"""Noise control around each worker: CPU pinning, and what else ran on the machine meanwhile.

Pinning: a worker that migrates between CPUs loses its caches and meets whatever runs on the
other CPU; pinned to one CPU it sees one cache and one scheduler queue. The worker gets the
last CPU the runner may use. With more than two CPUs the runner itself (and so every throwaway
server it starts afterwards, which inherit its mask) is moved to the others, so the database
never competes with the client for its CPU; with two, the servers stay unpinned, since a
server confined to the one remaining CPU would queue behind the runner.

Load: between processes (never while one is timed inside the worker) the runner reads the
load average and every process's CPU time from /proc, before the worker starts and after it
exits. The difference says how much CPU other programs took during the worker's life; a
process during which they took more than `threshold_cpus` CPUs on average is marked noisy.
"""
from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

#: other programs' average CPU use (in CPUs) above which a process is marked noisy
NOISE_THRESHOLD_CPUS = 0.5
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def choose_cpus(pin: bool = True) -> dict[str, Any]:
    """{available, worker_cpu, runner_cpus}: where workers and the runner (and its servers) run."""
    try:
        available = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return {"available": None, "worker_cpu": None, "runner_cpus": None, "reason": "no sched_setaffinity here"}
    if not pin or len(available) < 2:
        return {"available": available, "worker_cpu": None, "runner_cpus": None,
                "reason": "pinning off" if not pin else "one CPU: nothing to pin to"}
    worker = available[-1]
    runner = available[:-1] if len(available) > 2 else None
    return {"available": available, "worker_cpu": worker, "runner_cpus": runner,
            "reason": "" if runner else "two CPUs: servers left unpinned"}


@contextlib.contextmanager
def runner_pinned(choice: dict[str, Any]) -> Iterator[None]:
    """Confine the runner (and the servers it starts) to `runner_cpus` for the block."""
    cpus = choice.get("runner_cpus")
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def pin_to(cpu: int | None) -> None:
    """In a worker before exec: stay on `cpu` (an error here fails the Popen, never silently)."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})


# ----------------------------------------------------------------------------------------------
# What else ran
# ----------------------------------------------------------------------------------------------


@dataclass
class Snapshot:
    wall: float
    loadavg: tuple[float, float, float]
    #: pid -> (ppid, comm, cpu seconds)
    procs: dict[int, tuple[int, str, float]] = field(default_factory=dict)


def _read_procs() -> dict[int, tuple[int, str, float]]:
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            text = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        f = text[text.rindex(")") + 2:].split()
        # fields after comm: state ppid ... utime(12) stime(13) cutime(14) cstime(15): with its reaped
        # children's time, a short-lived child (a compiler under make, a server's backend) is seen
        # through its parent even though it came and went between two snapshots
        out[int(d)] = (int(f[1]), comm, (int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])) / _TICK)
    return out


def snapshot() -> Snapshot:
    try:
        procs = _read_procs()
    except OSError:
        procs = {}
    return Snapshot(time.time(), os.getloadavg(), procs)


def _ours(procs: dict[int, tuple[int, str, float]], root: int) -> set[int]:
    """`root` and its descendants: the runner, its worker, the servers it started."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = set(), [root]
    while todo:
        p = todo.pop()
        if p not in out:
            out.add(p)
            todo.extend(children.get(p, []))
    return out


def ours_cpu_during(before: Snapshot, after: Snapshot) -> float:
    """CPU seconds the runner's descendants (its servers, their backends) spent between two
    snapshots; the runner's own time and its reaped workers' are counted apart (getrusage)."""
    me = os.getpid()
    ours = (_ours(after.procs, me) | _ours(before.procs, me)) - {me}
    total = 0.0
    for pid in ours:
        now = after.procs.get(pid)
        if now is None:
            continue
        prev = before.procs.get(pid)
        total += max(now[2] - (prev[2] if prev else 0.0), 0.0)
    return total


def load_during(before: Snapshot, after: Snapshot, threshold_cpus: float = NOISE_THRESHOLD_CPUS,
                top: int = 3) -> dict[str, Any]:
    """What other programs did between two snapshots: their CPU use (in CPUs), the busiest, noisy?"""
    wall = max(after.wall - before.wall, 1e-9)
    ours = _ours(after.procs, os.getpid()) | _ours(before.procs, os.getpid())
    used = []
    for pid, (_, comm, cpu) in after.procs.items():
        if pid in ours:
            continue
        prev = before.procs.get(pid)
        delta = cpu - prev[2] if prev else cpu  # a process born in the window spent all its time in it
        if delta > 0:
            used.append((delta / wall, pid, comm))
    used.sort(reverse=True)
    others = sum(u for u, _, _ in used)
    return {"loadavg_before": round(before.loadavg[0], 2), "others_cpus": round(others, 3),
            "busiest": [{"pid": pid, "comm": comm, "cpus": round(u, 3)} for u, pid, comm in used[:top]],
            "noisy": others > threshold_cpus}
