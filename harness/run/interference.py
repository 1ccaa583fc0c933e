"""Interference measured around every worker process, and the rule that calls a process disturbed.

Why: on a shared machine other programs' work enters the timings unseen. The load average and
a scan of other processes' CPU time at the two ends of a worker's life (`noise.load_during`)
miss a program that starts and exits inside that window, and cannot tell whether the others
ran on the worker's CPU. The kernel's per-CPU counters can: `/proc/stat` says how long the
worker's CPU was busy, whoever was on it, short-lived processes and interrupts included. The
busy time the worker, the runner and its servers did not spend themselves is other programs'
work on our CPU. Steal time (the hypervisor running another guest while ours wanted the CPU)
and the worker's own involuntary context switches (counted by the worker around its timed
loop) are kept beside it. All of it is read outside the timed region: before the worker
starts and after it exits.

The rule (`contaminated`): a process is disturbed when others held its CPU for more than
OTHERS_SHARE of its life (and at least OTHERS_MIN_S, two clock ticks, the counters' grain), when
steal took more than STEAL_SHARE, or when the worker was preempted more than IVCSW_PER_S times a
second of its timed loop while others held the CPU at least a tick (a multi-threaded engine
preempts its own main thread). Others' time must also stand above the counters' sampling grain
(GRAIN_Z, `grain_s`): /proc/stat charges each whole tick to whatever ran at it, so a CPU that goes
idle and busy often in a process's life (a worker that waits on fsync a hundred times) has its
busy time counted with a sampling error, while our own time (rusage) is exact; their difference
is then a few ticks of noise, not another program. A worker that never sleeps has no such error.
The thresholds were calibrated by `benchmarks/bench_interference.py`
against a noise generator that logs when it ran (precision and recall in docs/statistics-validation.md).
A disturbed process is rerun by the runner and left out of estimates unless asked for.
"""
from __future__ import annotations

import os
import resource
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

#: others' busy time on the worker's CPU, as a share of the process's life, above which it is disturbed
OTHERS_SHARE = 0.05
#: ... and at least this many seconds (two ticks of /proc/stat's 10 ms grain)
OTHERS_MIN_S = 0.02
#: steal time on the worker's CPU, as a share of the process's life
STEAL_SHARE = 0.05
#: involuntary context switches per second of the worker's timed loop (another task took the CPU)
IVCSW_PER_S = 50.0
#: ... and at least this many in the process. Was 10 ("a few are the kernel's own housekeeping");
#: the processes of a 4 ms cell time about 20 ms and were missed with one or two preemptions
#: beside others' time (recall 89%): one preemption while another task held the CPU, at that
#: rate, is a disturbed timed loop (in the quiet reference runs it flags 2 more of 9,704 processes)
IVCSW_MIN = 1
#: ... and only beside at least one clock tick of others' time on the CPU
IVCSW_OTHERS_S = 0.01
#: others' time counts only beyond this many standard errors of the tick counter's sampling. With
#: no neighbour the CPU is busy with our work a share p of a life of n ticks; each tick lands on
#: busy or idle time, so the busy ticks carry an error of at most sqrt(n p (1-p)) (binomial, for
#: bursts shorter than a tick), and never more than sqrt(k / 4) for k sleeps of the worker (each
#: busy burst's count is off by a Bernoulli part). Measured on this VM: 15 processes each doing
#: 100 autocommit inserts (0.1 s, CPU busy 80%, 1,250 sleeps) had busy minus own time of -0.016 ..
#: +0.021 s, standard deviation 0.012 s against the model's 0.013 s
GRAIN_Z = 3.0
#: the sleeps every worker makes outside its work (start-up, reading its spec, writing its result):
#: 31-40 measured for CPython, PyPy and DuckDB workers of CPU-bound cells (E4's autocommit workers
#: sleep 600-1,300 times). Only sleeps beyond these widen the grain, so a CPU-bound worker is judged
#: by the floors above, as the thresholds were calibrated
START_SLEEPS = 50
#: while waiting for a quiet CPU: the window sampled, and the busy share that counts as quiet
QUIET_WINDOW_S = 0.2
#: the gap since the last process counts as busy (so the runner waits for quiet before the next one) when it
#: lasted at least GAP_MIN_S and others used more than GAP_BUSY_SHARE of the worker's CPU in it
GAP_MIN_S = 0.05
GAP_BUSY_SHARE = 0.25
QUIET_SHARE = 0.1
#: the longest the runner waits before one process (then it runs, and the rule judges it)
MAX_WAIT_S = 30.0
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class CpuTicks:
    """One read of /proc/stat: per CPU (busy, steal) in seconds, and the time of the read."""

    wall: float
    per_cpu: dict[int, tuple[float, float]]


def read_cpu_ticks(path: str = "/proc/stat") -> CpuTicks:
    """Busy (user, nice, system, irq, softirq; guest is inside user) and steal seconds per CPU."""
    per_cpu: dict[int, tuple[float, float]] = {}
    try:
        with open(path) as f:
            for line in f:
                if not line.startswith("cpu") or line.startswith("cpu "):
                    continue
                name, *fields = line.split()
                v = [int(x) for x in fields[:8]] + [0] * max(0, 8 - len(fields))
                busy = v[0] + v[1] + v[2] + v[5] + v[6]
                per_cpu[int(name[3:])] = (busy / _TICK, v[7] / _TICK)
    except (OSError, ValueError):
        pass
    return CpuTicks(time.monotonic(), per_cpu)


def own_cpu_s() -> tuple[float, float]:
    """(this process's CPU seconds, its reaped children's): the runner's own work and its workers'."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def children_sleeps() -> int:
    """Voluntary context switches of this process's reaped children (a worker's waits on I/O)."""
    return int(resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw)


@dataclass(frozen=True)
class Mark:
    """What the runner reads just before a worker starts (and just after it was reaped)."""

    ticks: CpuTicks
    own: tuple[float, float]
    waited_s: float = 0.0
    sleeps: int | None = None  # children_sleeps() at the mark


def mark(waited_s: float = 0.0) -> Mark:
    return Mark(read_cpu_ticks(), own_cpu_s(), waited_s, children_sleeps())


def _cpu_delta(a: CpuTicks, b: CpuTicks, cpu: int | None) -> tuple[float, float]:
    """(busy, steal) seconds between two reads on `cpu` (None: summed over every CPU)."""
    cpus = [cpu] if cpu is not None else sorted(set(a.per_cpu) & set(b.per_cpu))
    busy = steal = 0.0
    for c in cpus:
        if c in a.per_cpu and c in b.per_cpu:
            busy += b.per_cpu[c][0] - a.per_cpu[c][0]
            steal += b.per_cpu[c][1] - a.per_cpu[c][1]
    return max(busy, 0.0), max(steal, 0.0)


def canary_facts(result: dict[str, Any]) -> dict[str, Any] | None:
    """The canary of a worker's result, reduced: its work, how many runs, their median and the
    median without the first run (a cold first run, a JIT still compiling)."""
    times = [t for t in (result.get("canary_ns") or []) if isinstance(t, (int, float)) and t > 0]
    if not times:
        return None
    rest = times[1:] if len(times) >= 3 else times
    return {"work": str(result.get("canary_work") or ""), "n": len(times), "first_ns": int(times[0]),
            "median_ns": float(statistics.median(rest))}


def measure(start: Mark, end: Mark, cpu: int | None, servers_cpu_s: float = 0.0, ivcsw: int | None = None,
            timed_s: float | None = None) -> dict[str, Any]:
    """The interference of the process that ran since `start` (call right after it was reaped).

    `servers_cpu_s`: CPU seconds the runner's servers spent meanwhile (ours, not others');
    `ivcsw` and `timed_s`: the worker's involuntary switches and the length of its timed loop."""
    end_ticks, end_own = end.ticks, end.own
    wall = max(end_ticks.wall - start.ticks.wall, 1e-9)
    busy, steal = _cpu_delta(start.ticks, end_ticks, cpu)
    worker_s = max(end_own[1] - start.own[1], 0.0)
    ours_s = max(end_own[0] - start.own[0], 0.0) + max(servers_cpu_s, 0.0) + worker_s
    others = max(busy - ours_s, 0.0)
    out: dict[str, Any] = {
        "cpu": cpu, "wall_s": round(wall, 6), "busy_s": round(busy, 3), "worker_cpu_s": round(worker_s, 6),
        "ours_cpu_s": round(ours_s, 6), "others_s": round(others, 3), "others_share": round(others / wall, 4),
        "steal_s": round(steal, 3), "steal_share": round(steal / wall, 4), "waited_s": round(start.waited_s, 3),
        "ivcsw": ivcsw,
        "worker_sleeps": (end.sleeps - start.sleeps) if end.sleeps is not None and start.sleeps is not None else None,
        "ivcsw_per_s": round(ivcsw / timed_s, 2) if ivcsw is not None and timed_s else None,
        "available": bool(end_ticks.per_cpu),
    }
    out["grain_s"] = round(grain_s(wall, ours_s, out["worker_sleeps"]), 4)
    out["why"] = why_contaminated(out)
    out["contaminated"] = bool(out["why"])
    return out


def grain_s(wall_s: float, ours_s: float | None, sleeps: int | None = None) -> float:
    """How much others' time the tick counter's sampling alone can show (GRAIN_Z standard errors)
    in a process of `wall_s` during which we (worker, runner, servers) ran `ours_s` and the worker
    slept `sleeps` times (voluntary context switches; None: unknown). 0 when ours is unknown."""
    if ours_s is None or wall_s <= 0:
        return 0.0
    ticks = wall_s * _TICK
    p = min(max(ours_s / wall_s, 0.0), 1.0)
    var = ticks * p * (1.0 - p)
    if sleeps is not None:
        var = min(var, max(sleeps - START_SLEEPS, 0) / 4.0)
    return GRAIN_Z * var ** 0.5 / _TICK


def why_contaminated(m: dict[str, Any]) -> str:
    """The rule, on stored measures: '' for a clean process, else what disturbed it."""
    reasons = []
    wall = m.get("wall_s") or 0.0
    others = m.get("others_s") or 0.0
    ours = m.get("ours_cpu_s")
    if ours is None and m.get("busy_s") is not None:
        ours = max(m["busy_s"] - others, 0.0)
    grain = grain_s(wall, ours, m.get("worker_sleeps"))
    pinned = m.get("cpu") is not None  # unpinned, the counters speak for the machine, not one CPU
    if pinned and others >= max(OTHERS_MIN_S, grain) and others > OTHERS_SHARE * wall:
        reasons.append(f"others held its CPU {100 * others / wall:.0f}% of its life")
    if (m.get("steal_s") or 0.0) >= OTHERS_MIN_S and (m.get("steal_s") or 0.0) > STEAL_SHARE * wall:
        reasons.append(f"steal {100 * m['steal_s'] / wall:.0f}%")
    iv, rate = m.get("ivcsw"), m.get("ivcsw_per_s")
    # preemption counts only beside some foreign busy time: a multi-threaded engine (DuckDB) preempts
    # its own main thread on the one pinned CPU, which is the engine's cost, not interference
    if iv is not None and rate is not None and iv >= IVCSW_MIN and rate > IVCSW_PER_S and others >= max(IVCSW_OTHERS_S, grain):
        reasons.append(f"preempted {rate:.0f} times/s")
    return "; ".join(reasons)


def wait_for_quiet(cpu: int | None, max_wait_s: float = MAX_WAIT_S, window_s: float = QUIET_WINDOW_S,
                   quiet_share: float = QUIET_SHARE, say: Callable[[str], None] | None = None,
                   sleep: Callable[[float], None] = time.sleep) -> tuple[float, float]:
    """Wait (bounded) until the worker's CPU is quiet: (seconds waited, last busy share seen).

    The runner sleeps while it samples, so the busy time of the window is others' (its servers
    idle between processes). With no pinned CPU it watches the whole machine, one CPU's worth."""
    t0 = time.monotonic()
    said = False
    share = 0.0
    while True:
        a = read_cpu_ticks()
        sleep(window_s)
        _, share = _busy_share(a, read_cpu_ticks(), cpu)
        waited = time.monotonic() - t0
        if share <= quiet_share or waited >= max_wait_s:
            if said and say is not None:
                say(f"worker CPU {'quiet' if share <= quiet_share else 'still busy'} after {waited:.1f} s "
                    f"(busy {100 * share:.0f}%)")
            return waited, share
        if not said and say is not None:
            say(f"worker CPU {cpu if cpu is not None else '(any)'} busy ({100 * share:.0f}%): waiting up to "
                f"{max_wait_s:.0f} s before the next process")
            said = True


def others_share_since(start: Mark, cpu: int | None) -> tuple[float, float]:
    """(seconds since `start`, others' share of the worker's CPU since then, the runner's own work
    taken out): what happened in the gap between two processes."""
    now = mark()
    ours = max(now.own[0] - start.own[0], 0.0) + max(now.own[1] - start.own[1], 0.0)
    return _busy_share(start.ticks, now.ticks, cpu, ours)


def _busy_share(a: CpuTicks, b: CpuTicks, cpu: int | None, ours_s: float = 0.0) -> tuple[float, float]:
    """(seconds between two reads, the share of them the CPU was busy or stolen, `ours_s` of our own
    work taken out); with no pinned CPU, the whole machine's busy time in CPUs' worth."""
    span = max(b.wall - a.wall, 1e-9)
    busy, steal = _cpu_delta(a, b, cpu)
    share = (max(busy - ours_s, 0.0) + steal) / span
    if cpu is None:
        share /= max(len(b.per_cpu), 1)
    return span, share
