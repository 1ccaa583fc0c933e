"""Helpers for the server tests: skip-or-fail on a missing server, find leftovers."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

REQUIRE_ENV = "CROSSINGS_REQUIRE_SERVERS"
DRIVERS = {"postgresql": ("psycopg",), "mariadb": ("pymysql", "MySQLdb")}


def require_or_skip(reason: str) -> None:
    """Skip with `reason`; when CROSSINGS_REQUIRE_SERVERS=1 (CI sets it), fail instead."""
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason} (and {REQUIRE_ENV}=1 forbids skipping)")
    pytest.skip(reason)


def require_family(family: str) -> None:
    """The family's throwaway server binaries and its drivers must be here."""
    from harness.run.servers import unavailable_reason

    reason = unavailable_reason(family)
    if reason:
        require_or_skip(reason)
    missing = [d for d in DRIVERS[family] if importlib.util.find_spec(d) is None]
    if missing:
        require_or_skip(f"{family} drivers not installed: {', '.join(missing)} (pip install psycopg[binary] pymysql "
                        "mysqlclient)")


def processes_mentioning(marker: str) -> list[tuple[int, str]]:
    """(pid, command line) of every live process whose command line contains `marker`."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if ") Z " in stat:  # zombie: already dead, waiting to be reaped
            continue
        cmd = raw.replace(b"\0", b" ").decode(errors="replace")
        if marker in cmd and int(entry.name) != os.getpid():
            out.append((int(entry.name), cmd))
    return out


def leftovers(tmpdir: Path) -> list[str]:
    """What the harness left in its TMPDIR (servers' and workers' private directories)."""
    return sorted(p.name for p in tmpdir.iterdir() if p.name.startswith("crossings-"))


def grep_tree(root: Path, needle: str) -> list[str]:
    """Files under `root` whose bytes contain `needle`."""
    hits = []
    for p in root.rglob("*"):
        if p.is_file() and needle.encode() in p.read_bytes():
            hits.append(str(p))
    return hits
