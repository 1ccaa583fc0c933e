"""What a run records about itself: command, configuration, commit, machine, versions.

Everything here is read, not assumed; what cannot be read is recorded as null, never guessed.
Secrets never enter: DSNs pass through `redact` first.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.fsutil import PROJECT_ROOT
from harness.protocol import SCHEMA_VERSION
from harness.record import Manifest
from harness.redaction import redact
from harness.run.cpuclock import cpu_clock

#: the analysis side's libraries and the drivers' builds; the drivers themselves come from the
#: engines registry (`library_names`), so a new engine's driver is recorded without a second list
LIBRARIES = ["numpy", "pandas", "scipy", "pyarrow", "matplotlib", "tpchgen-cli", "nbclient", "psycopg-binary",
             "psycopg-c"]


def library_names() -> list[str]:
    """Every library whose version a manifest records: the analysis side's, then each engine's driver
    (a name that is no installed distribution, such as `sqlite3` or `jdbc`, is simply not found)."""
    from harness import engines

    drivers = sorted({e.driver for e in engines.ENGINES.values() if e.driver})
    return LIBRARIES + [d for d in drivers if d not in LIBRARIES]


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _git(*args: str, root: Path | None = None) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=root or PROJECT_ROOT, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def changed_files(root: Path | None = None) -> list[str] | None:
    """The tracked files changed since the last commit, leaving out what the campaign itself writes
    (data/reference*, paper.md, paper.pdf, figures/); None when git cannot tell."""
    status = _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)data/reference*",
                  ":(exclude)paper.md", ":(exclude)paper.pdf", ":(exclude)figures", root=root)
    # porcelain lines are "XY path"; the output comes stripped, so split rather than slice
    return None if status is None else [line.split(None, 1)[1] for line in status.splitlines() if line.strip()]


#: the code a benchmark run executes (the runner, the worker, engines, workloads, builds, servers) and the
#: pinned dependencies; the analysis and paper side, which only reads stored runs, left out
RUN_CODE = ("harness", "pyproject.toml", "requirements.lock", "requirements-mysqlclient.lock")
NOT_RUN_CODE = ("harness/analysis", "harness/studies", "harness/paper.py", "harness/notebooks.py")


def run_code_changes(first: str, second: str, root: Path | None = None) -> list[str] | None:
    """The files of the code a run executes (`RUN_CODE`) that differ between two commits: [] when the two
    commits ran the same code, None when git cannot tell (no checkout, a shallow clone, an unknown commit)."""
    if not first or not second:
        return None
    if first == second:
        return []
    out = _git("diff", "--name-only", first, second, "--", *RUN_CODE, *(f":(exclude){p}" for p in NOT_RUN_CODE),
               root=root)
    return None if out is None else [line for line in out.splitlines() if line.strip()]


def git_commit() -> dict[str, Any]:
    commit = _git("rev-parse", "HEAD")
    # the code's state: the runs and paper the campaign itself writes do not make the code dirty
    changed = changed_files()
    date = _git("show", "-s", "--format=%cI", "HEAD") if commit else None
    return {"commit": commit, "dirty": bool(changed) if changed is not None else None, "commit_date": date}


def commit_date(commit: str, root: Path = PROJECT_ROOT) -> str | None:
    """The committer date (ISO 8601) of `commit` in the checkout at `root`, or None when git or
    the commit is not there: runs made before manifests recorded it are placed by it in a history."""
    if not commit or not all(c in "0123456789abcdef" for c in commit.lower()):
        return None
    try:
        out = subprocess.run(["git", "show", "-s", "--format=%cI", commit], cwd=root, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def cpu_info() -> dict[str, Any]:
    model = None
    mhz = None
    text = _read("/proc/cpuinfo") or ""
    for line in text.splitlines():
        if line.startswith("model name") and model is None:
            model = line.split(":", 1)[1].strip()
        if line.startswith("cpu MHz") and mhz is None:
            mhz = float(line.split(":", 1)[1])
    governor = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    no_turbo = _read("/sys/devices/system/cpu/intel_pstate/no_turbo")
    boost = _read("/sys/devices/system/cpu/cpufreq/boost")
    turbo = None
    if no_turbo is not None:
        turbo = no_turbo == "0"
    elif boost is not None:
        turbo = boost == "1"
    return {"model": model, "cores": os.cpu_count(), "mhz_proc_cpuinfo": mhz, "governor": governor, "turbo": turbo,
            "max_khz_sysfs": _read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")}


def memory_bytes() -> int | None:
    for line in (_read("/proc/meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return None


def machine() -> dict[str, Any]:
    return {"hostname": platform.node(), "cpu": cpu_info(), "memory_bytes": memory_bytes(),
            "kernel": platform.release(), "os": platform.platform(), "loadavg_before": os.getloadavg()}


def library_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in library_names():
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def base_manifest(run_id: str, command: list[str] | None) -> Manifest:
    """The manifest a run starts with: what it is, where and with which versions (a record
    built in code: these keys, in this order)."""
    return Manifest.from_dict({
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "ended": None,
        "status": "running",
        "command": redact(" ".join(command)) if command else None,
        "project": git_commit(),
        "machine": machine(),
        "cpu_clock": cpu_clock(),
        "python": {"version": sys.version, "executable": sys.executable},
        "libraries": library_versions(),
    })
