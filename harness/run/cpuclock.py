"""The CPU's clock, and cycles per row (the bindings study reports cycles per row where the clock is known).

Seed 000 turned rows/s into clock cycles per row on a 3.2 GHz machine ("6.9M rows/s means SQLite
spends roughly 460 clock cycles per row"). That needs the clock, and how the clock was obtained
matters as much as its value, so `cpu_clock()` returns both: `{"hz", "source", "candidates"}`.
Sources, best first:

1. `perf`: `perf stat -e cycles,task-clock` around a busy loop: cycles counted by the CPU divided
   by the CPU time they took. The only source that sees the real clock under load (turbo, power
   management). Often unavailable in VMs and containers ("<not supported>") or when
   `kernel.perf_event_paranoid` forbids it.
2. `sysfs-max`: `/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq`, the highest clock the
   kernel says the CPU may run at; a busy single-threaded benchmark usually runs near it.
3. `sysfs-cur`: `scaling_cur_freq` of cpu0 when read (may be an idle clock).
4. `proc-cpuinfo`: the highest "cpu MHz" in `/proc/cpuinfo` when read; on a VM this is the clock
   the hypervisor reports (typically the host's nominal/TSC clock).

Nothing known: `hz` is None and `cycles_per_row` gives NaN; nothing is ever guessed.
Runner side (may use pandas), but `cpu_clock` itself needs only the standard library.
"""
from __future__ import annotations

import functools
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping

SYSFS_CPU0 = Path("/sys/devices/system/cpu/cpu0/cpufreq")
PROC_CPUINFO = Path("/proc/cpuinfo")
#: how long the busy loop under `perf stat` spins
PERF_SPIN_S = 0.2

SOURCE_ORDER = ("perf", "sysfs-max", "sysfs-cur", "proc-cpuinfo")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def from_sysfs(cpufreq: Path = SYSFS_CPU0) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key, name, what in (("sysfs-max", "cpuinfo_max_freq", "highest clock the CPU may run at"),
                            ("sysfs-cur", "scaling_cur_freq", "clock of cpu0 when read")):
        text = _read(cpufreq / name)
        try:
            khz = float(text) if text else None
        except ValueError:
            khz = None
        if khz and khz > 0:
            out[key] = {"hz": khz * 1e3, "source": f"sysfs {cpufreq / name}: {what}"}
    return out


def from_proc_cpuinfo(path: Path = PROC_CPUINFO) -> dict[str, dict[str, Any]]:
    mhz = []
    for line in (_read(path) or "").splitlines():
        if line.startswith("cpu MHz"):
            try:
                mhz.append(float(line.split(":", 1)[1]))
            except (IndexError, ValueError):
                pass
    if not mhz or max(mhz) <= 0:
        return {}
    return {"proc-cpuinfo": {"hz": max(mhz) * 1e6,
                             "source": f"{path} 'cpu MHz' (highest of {len(mhz)} cpus when read; on a VM, "
                                       "the clock the hypervisor reports)"}}


def parse_perf_csv(text: str) -> dict[str, float | None]:
    """Counter values from `perf stat -x,` output (stderr); None for '<not supported>' and the like."""
    values: dict[str, float | None] = {}
    for line in text.splitlines():
        parts = line.split(",")
        if len(parts) < 3 or line.startswith("#"):
            continue
        value, event = parts[0].strip(), parts[2].strip()
        try:
            values[event] = float(value)
        except ValueError:
            values[event] = None
    return values


def from_perf(spin_s: float = PERF_SPIN_S, perf: str | None = None) -> tuple[dict[str, dict[str, Any]], str]:
    """Measure the clock with `perf stat`; returns (candidate or {}, why not)."""
    perf = perf or shutil.which("perf")
    if not perf:
        return {}, "perf not found on PATH (Debian's linux-perf)"
    spin = f"import time\nt=time.perf_counter()+{spin_s}\nwhile time.perf_counter()<t: pass"
    why = ""
    for event in ("cycles", "cycles:u"):
        proc = None
        for target in (["true"], [sys.executable, "-c", spin]):  # cheap support check first, then measure
            cmd = [perf, "stat", "-x", ",", "-e", f"{event},task-clock", "--", *target]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30 + 10 * spin_s)
            except (OSError, subprocess.SubprocessError) as exc:
                return {}, f"perf stat failed: {exc}"
            if proc.returncode != 0 or not parse_perf_csv(proc.stderr).get(event):
                break
        assert proc is not None
        values = parse_perf_csv(proc.stderr)
        cycles = values.get(event)
        task_ms = values.get("task-clock")
        if proc.returncode == 0 and cycles and task_ms:
            hz = cycles / (task_ms / 1e3)
            return {"perf": {"hz": hz, "source": f"measured: perf stat -e {event},task-clock over a "
                                                 f"{spin_s:g} s busy loop ({cycles:.0f} cycles / "
                                                 f"{task_ms:.1f} ms CPU time)"}}, ""
        raw = next((ln.split(",")[0] for ln in proc.stderr.splitlines() if f",{event}," in ln), None)
        why = f"perf stat -e {event}: {raw or (proc.stderr.strip().splitlines() or ['no output'])[-1]}"
    return {}, why


@functools.lru_cache(maxsize=None)
def _cpu_clock(measure: bool) -> tuple[tuple[str, Any], ...]:
    candidates: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    if measure and os.environ.get("CROSSINGS_NO_PERF") != "1":
        found, why = from_perf()
        candidates.update(found)
        if why:
            notes.append(why)
    candidates.update(from_sysfs())
    candidates.update(from_proc_cpuinfo())
    for key in SOURCE_ORDER:
        if key in candidates:
            best = {"hz": candidates[key]["hz"], "source": f"{key}: {candidates[key]['source']}"}
            break
    else:
        best = {"hz": None, "source": "unknown: no perf cycles counter, no cpufreq in sysfs, no 'cpu MHz' "
                                      "in /proc/cpuinfo"}
    return tuple({**best, "candidates": candidates, "notes": notes}.items())


def cpu_clock(measure: bool = True) -> dict[str, Any]:
    """`{"hz": float | None, "source": str, "candidates": {...}, "notes": [...]}`; cached per process.

    `measure=False` skips `perf` (which spins the CPU for PERF_SPIN_S). For the run manifest.
    """
    return dict(_cpu_clock(measure))


def cycles_per_row(seconds_per_op: float | None, rows: float | None, hz: float | None) -> float:
    """Clock cycles spent per row: seconds per operation x clock rate / rows per operation (NaN if unknown)."""
    try:
        if not seconds_per_op or not rows or not hz or seconds_per_op <= 0 or rows <= 0 or hz <= 0:
            return math.nan
        return float(seconds_per_op) * float(hz) / float(rows)
    except TypeError:
        return math.nan


def _hz(clock: Any) -> float | None:
    if clock is None:
        return None
    if isinstance(clock, Mapping):
        return clock.get("hz")
    return float(clock)


def clock_of_run(run_dir: Path | str) -> dict[str, Any]:
    """The clock a run recorded (`record.Manifest.clock`: its `cpu_clock`, else what `machine.cpu`
    read); `hz` None when the run has no readable manifest."""
    from harness.errors import UserError
    from harness.store import manifest_of  # the store's checks (schema version, an object), as every reader's

    try:
        manifest = manifest_of(Path(run_dir))
    except (OSError, ValueError, UserError):
        return {"hz": None, "source": f"unknown: no readable manifest in {run_dir}"}
    return manifest.clock()


def add_cycles_per_row(summary: "Any", clock: Any = None) -> "Any":
    """A copy of a summary DataFrame with `cycles_per_row` (= clock Hz / rows_per_s, i.e.
    mean_s x Hz / rows) where rows/s is known; NaN elsewhere, when the clock is unknown, or when
    it was not measured by the CPU's cycle counter (`perf`): a clock the hypervisor or sysfs
    reports is a nominal number, and wall time times it is not cycles (it moved 4x with load).

    `clock`: a dict from `cpu_clock()`/`clock_of_run()`, a number in Hz, or None for this machine's
    clock (use `clock_of_run` for runs measured elsewhere). The clock used is kept in
    `df.attrs["cpu_clock"]`.
    """
    import numpy as np

    if clock is None:
        clock = cpu_clock()
    hz = _hz(clock)
    df = summary.copy()
    if "rows_per_s" in df:
        rps = df["rows_per_s"].astype(float)
    elif {"mean_s", "rows"} <= set(df.columns):
        rps = df["rows"].astype(float) / df["mean_s"].astype(float)
    else:
        raise KeyError("summary needs a rows_per_s column (or mean_s and rows)")
    counted = not isinstance(clock, Mapping) or clock.get("source") == "perf"
    if hz and hz > 0 and counted:
        df["cycles_per_row"] = np.where(rps > 0, hz / rps.where(rps > 0), np.nan)
    else:
        df["cycles_per_row"] = np.nan
    df.attrs["cpu_clock"] = dict(clock) if isinstance(clock, Mapping) else {"hz": hz, "source": "given"}
    return df


def describe(clock: Mapping[str, Any]) -> str:
    """One line for reports: '2.596 GHz (proc-cpuinfo: ...)'."""
    hz = clock.get("hz")
    return f"{hz / 1e9:.3f} GHz ({clock.get('source')})" if hz else str(clock.get("source"))


__all__ = ["cpu_clock", "cycles_per_row", "add_cycles_per_row", "clock_of_run", "describe", "parse_perf_csv",
           "from_perf", "from_sysfs", "from_proc_cpuinfo"]


def _main(argv: Iterable[str]) -> int:
    import json

    print(json.dumps(cpu_clock(), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
