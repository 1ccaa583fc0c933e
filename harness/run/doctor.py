"""Is this machine fit to benchmark on? Each setting that adds noise, read, with what to do.

In the spirit of `pyperf system show`: frequency governor, turbo, frequency scaling, SMT, load
and other busy processes, hardware performance counters, a cgroup CPU quota, and whether the
data directory is on tmpfs or a disk. Every finding is read, never assumed; a setting that
cannot be read (a VM without cpufreq) is reported as unknown, not as fine. Each run's manifest
holds the findings of its start, so a reader can tell a run on a noisy machine.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.run import noise
from harness.run.manifest import _read, cpu_info

OK, WARN, INFO = "ok", "warn", "info"
#: checks whose warning makes a run "noisy" (what was running, not how the machine is configured)
NOISE_CHECKS = ("load", "busy processes")


def fingerprint() -> dict[str, Any]:
    """The machine a process ran on, as each process record names it: host, CPU model, cores,
    kernel, governor, memory, and `id`, a short hash of them (two hosts are two machines, and a
    host whose kernel or governor changed is counted as another)."""
    import hashlib
    import json
    import platform

    from harness.run.manifest import memory_bytes

    cpu = cpu_info()
    fp = {"hostname": platform.node(), "cpu_model": cpu["model"], "cores": cpu["cores"],
          "kernel": platform.release(), "governor": cpu["governor"], "memory_bytes": memory_bytes()}
    fp["id"] = hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:12]
    return fp


def _finding(check: str, status: str, value: Any, advice: str = "") -> dict[str, Any]:
    return {"check": check, "status": status, "value": value, "advice": advice}


def _cpus() -> list[str]:
    return sorted(p.name for p in Path("/sys/devices/system/cpu").glob("cpu[0-9]*"))


def governor() -> dict[str, Any]:
    govs = {_read(f"/sys/devices/system/cpu/{c}/cpufreq/scaling_governor") for c in _cpus()} - {None}
    if not govs:
        return _finding("governor", INFO, None, "no cpufreq interface (a VM?): the host sets the frequency; "
                                                "say so when you report results")
    if govs == {"performance"}:
        return _finding("governor", OK, "performance")
    return _finding("governor", WARN, ",".join(sorted(govs)),
                    "set the performance governor: sudo cpupower frequency-set -g performance")


def turbo() -> dict[str, Any]:
    on = cpu_info()["turbo"]
    if on is None:
        return _finding("turbo", INFO, None, "cannot be read here (no intel_pstate/cpufreq boost)")
    if on:
        return _finding("turbo", WARN, "on", "turbo makes the clock depend on temperature and load: disable it "
                                             "(echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo, or "
                                             "echo 0 > /sys/devices/system/cpu/cpufreq/boost)")
    return _finding("turbo", OK, "off")


def frequency_scaling() -> dict[str, Any]:
    ranges = set()
    for c in _cpus():
        lo = _read(f"/sys/devices/system/cpu/{c}/cpufreq/scaling_min_freq")
        hi = _read(f"/sys/devices/system/cpu/{c}/cpufreq/scaling_max_freq")
        if lo and hi:
            ranges.add((int(lo), int(hi)))
    if not ranges:
        return _finding("frequency scaling", INFO, None, "cannot be read here; cycles per row use the measured "
                                                         "clock (cpu_clock in the manifest)")
    if all(lo == hi for lo, hi in ranges):
        return _finding("frequency scaling", OK, "fixed")
    return _finding("frequency scaling", WARN, ", ".join(f"{lo // 1000}-{hi // 1000} MHz" for lo, hi in sorted(ranges)),
                    "fix the frequency: sudo cpupower frequency-set -d MAX -u MAX (or pyperf system tune)")


def smt() -> dict[str, Any]:
    active = _read("/sys/devices/system/cpu/smt/active")
    if active is None:
        return _finding("SMT", INFO, None, "cannot be read here")
    if active == "1":
        return _finding("SMT", WARN, "on", "hyper-threads share a core's caches and units: echo off | sudo tee "
                                           "/sys/devices/system/cpu/smt/control, or keep the sibling idle")
    return _finding("SMT", OK, "off")


def load() -> dict[str, Any]:
    one, five, _ = os.getloadavg()
    cpus = os.cpu_count() or 1
    value = f"{one:.2f} {five:.2f} (of {cpus} CPUs)"
    if one >= 0.5:
        return _finding("load", WARN, value, "other work competes with the benchmark: wait for an idle machine; "
                                             "processes that ran while it was busy are marked noisy in the run")
    return _finding("load", OK, value)


def busy_processes(window_s: float = 0.5) -> dict[str, Any]:
    a = noise.snapshot()
    time.sleep(window_s)
    seen = noise.load_during(a, noise.snapshot(), top=5)
    busy = [f"{b['comm']}[{b['pid']}] {100 * b['cpus']:.0f}%" for b in seen["busiest"] if b["cpus"] >= 0.05]
    if seen["noisy"]:
        return _finding("busy processes", WARN, ", ".join(busy),
                        f"other programs use {seen['others_cpus']:.2f} CPUs: stop them or run elsewhere")
    return _finding("busy processes", OK, ", ".join(busy) or "none")


def perf_counters() -> dict[str, Any]:
    paranoid = _read("/proc/sys/kernel/perf_event_paranoid")
    pmu = Path("/sys/bus/event_source/devices/cpu").exists() or any(
        Path("/sys/bus/event_source/devices").glob("cpu_*"))
    value = f"perf_event_paranoid={paranoid}, hardware PMU {'present' if pmu else 'absent'}, " \
            f"perf {'installed' if shutil.which('perf') else 'not installed'}"
    if not pmu:
        return _finding("perf counters", INFO, value, "no hardware counters (a VM without PMU passthrough): "
                                                      "cycles and instructions cannot be counted here")
    if paranoid is not None and int(paranoid) > 2:
        return _finding("perf counters", WARN, value, "counters closed to users: sudo sysctl kernel.perf_event_paranoid=2")
    return _finding("perf counters", OK, value)


def cgroup_quota() -> dict[str, Any]:
    v2 = _read("/sys/fs/cgroup/cpu.max")
    if v2:
        quota, _, period = v2.partition(" ")
        cpus = None if quota == "max" else int(quota) / int(period or 100000)
    else:
        quota = _read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") or _read("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us")
        period = _read("/sys/fs/cgroup/cpu/cpu.cfs_period_us") or _read("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us")
        if quota is None:
            return _finding("cgroup CPU quota", INFO, None, "cannot be read here")
        cpus = None if int(quota) < 0 else int(quota) / int(period or 100000)
    if cpus is None:
        return _finding("cgroup CPU quota", OK, "none")
    return _finding("cgroup CPU quota", WARN, f"{cpus:.2f} CPUs",
                    "a quota throttles in 100 ms periods, which shows up as bimodal timings: run without it")


def _fstype(path: Path) -> str | None:
    best, fstype = "", None
    target = str(path.resolve())
    for line in (_read("/proc/mounts") or "").splitlines():
        parts = line.split()
        if len(parts) > 2 and (target == parts[1] or target.startswith(parts[1].rstrip("/") + "/")) \
                and len(parts[1]) >= len(best):
            best, fstype = parts[1], parts[2]
    return fstype


def _mount(path: Path) -> tuple[str, str, str]:
    """(mount point, fstype, device) of the longest /proc/mounts entry holding `path`."""
    best = ("", "unknown", "")
    target = str(path.resolve())
    for line in (_read("/proc/mounts") or "").splitlines():
        parts = line.split()
        if len(parts) > 2 and (target == parts[1] or target.startswith(parts[1].rstrip("/") + "/")) \
                and len(parts[1]) >= len(best[0]):
            best = (parts[1], parts[2], parts[0])
    return best


def filesystem(path: Path | str) -> dict[str, Any]:
    """Where a benchmark's files live: the directory, its mount point, file system type, device,
    and `kind` (memory for tmpfs/ramfs, else disk), as a process record stores it."""
    d = Path(path)
    while not d.exists() and d != d.parent:
        d = d.parent
    mount, fstype, device = _mount(d)
    return {"path": str(Path(path)), "mount": mount, "fstype": fstype, "device": device,
            "kind": "memory" if fstype in ("tmpfs", "ramfs") else "disk"}


def storage(data_dir: Path) -> dict[str, Any]:
    d = Path(data_dir)
    while not d.exists() and d != d.parent:
        d = d.parent
    data, tmp = _fstype(d), _fstype(Path(tempfile.gettempdir()))
    value = f"data directory {data}, worker temp ({tempfile.gettempdir()}) {tmp}"
    if tmp == "tmpfs":
        return _finding("storage", OK, value)
    return _finding("storage", INFO, value, "the engines' files live in the worker temp directory on a disk: "
                                            "writes that sync (micro.filltable) pay its latency; TMPDIR=/dev/shm "
                                            "measures CPU only")


def findings(data_dir: Path, window_s: float = 0.2) -> list[dict[str, Any]]:
    """Every check, in the order `harness doctor` prints them."""
    return [governor(), turbo(), frequency_scaling(), smt(), load(), busy_processes(window_s), perf_counters(),
            cgroup_quota(), storage(data_dir)]


def noisy(found: list[dict[str, Any]] | None) -> list[str]:
    """The warnings that say a run's machine was busy when it started.

    The load average lags the machine by about a minute: when the doctor also watched the running
    processes and found none busy, a load warning is the tail of work that has already ended (the
    previous run of a campaign, say), not work that competes with this run, and it is not counted."""
    found = found or []
    watched = {f["check"]: f["status"] for f in found}
    quiet_now = watched.get("busy processes") == OK
    return [f"{f['check']}: {f['value']}" for f in found if f["status"] == WARN and f["check"] in NOISE_CHECKS
            and not (f["check"] == "load" and quiet_now)]


def format_findings(found: list[dict[str, Any]]) -> str:
    width = max(len(f["check"]) for f in found)
    lines = []
    for f in found:
        value = "unknown" if f["value"] is None else f["value"]
        lines.append(f"{f['status']:<4}  {f['check']:<{width}}  {value}")
        if f["advice"] and f["status"] != OK:
            lines.append(f"{'':<4}  {'':<{width}}  -> {f['advice']}")
    warns = sum(f["status"] == WARN for f in found)
    lines.append("")
    lines.append(f"{warns} warning{'s' if warns != 1 else ''}" + (": results from this machine now will be noisy"
                                                                   if noisy(found) else ""))
    return "\n".join(lines)
