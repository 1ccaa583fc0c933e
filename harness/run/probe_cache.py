"""What `list` probed, remembered until something installed changes.

A cold `list` starts a worker per engine (each imports its driver) and asks each runtime's
toolchain whether it works: tens of seconds on a busy machine. Nothing it reports changes unless
an installed version does, so the answers are kept in one JSON file named by a fingerprint of
everything that installing, upgrading or removing a component changes: the interpreters and
toolchains found on PATH (path and stat), the Python import path's directories (pip adds and
removes entries there), Debian's package database (apt), the harness's build caches (C, Java, Go,
Haskell), the harness's own source, and PATH and the CROSSINGS_* environment variables. A probe
that connects to a user's server (a DSN in the environment) is never remembered: the server may
have gone.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from harness.fsutil import PROJECT_ROOT, write_bytes_atomic
from harness.fsutil import cache_dir as cache_dir_of

#: programs whose presence or version a probe or a runtime's check depends on
TOOLS = ("pypy3", "java", "javac", "go", "ghc", "gcc", "cc", "pkg-config", "pg_ctl", "initdb", "postgres",
         "mariadbd", "mysqld", "mariadb-install-db", "mysql_install_db", "ferretdb")
#: files and folders whose stat moves when something is installed or built
WATCHED = ("/var/lib/dpkg/status", "/usr/lib/postgresql", "/usr/share/java", "~/.local/lib", "~/.cabal", "~/.ghcup")
BUILD_CACHES = ("native", "jvm", "go", "haskell", "ferretdb")


def cache_dir() -> Path:
    """Where the answers live (`CROSSINGS_LIST_CACHE` moves it; `off` turns it off)."""
    return cache_dir_of("list", "CROSSINGS_LIST_CACHE")


def enabled() -> bool:
    return os.environ.get("CROSSINGS_LIST_CACHE", "").lower() not in ("off", "0", "no")


def _stat_line(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}\x1f-"
    return f"{path}\x1f{st.st_ino}\x1f{st.st_size}\x1f{st.st_mtime_ns}\x1f{st.st_ctime_ns}"


def installed_fingerprint() -> str:
    """A hash that changes when an installed version that `list` reports may have changed."""
    lines = [sys.version, os.environ.get("PATH", "")]
    lines += sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("CROSSINGS_") and k != "CROSSINGS_LIST_CACHE")
    lines.append(_stat_line(os.path.realpath(sys.executable)))
    for tool in TOOLS:
        found = shutil.which(tool)
        lines.append(f"{tool}\x1f" + (_stat_line(os.path.realpath(found)) if found else "-"))
    # where pip installs (not the current directory, which `python -m` puts first and which changes often)
    lines += [_stat_line(p) for p in sys.path if p and ("-packages" in p) and os.path.isdir(p)]
    lines += [_stat_line(os.path.expanduser(p)) for p in WATCHED]
    lines += [_stat_line(str(cache_dir_of(name))) for name in BUILD_CACHES]
    source = PROJECT_ROOT / "harness"
    lines += [_stat_line(str(p)) for p in sorted(source.rglob("*.py"))]
    return hashlib.blake2b("\n".join(lines).encode(), digest_size=16).hexdigest()


def read(fingerprint: str) -> dict[str, Any]:
    """The answers remembered under this fingerprint (empty when none, or unreadable)."""
    try:
        data = json.loads((cache_dir() / f"{fingerprint}.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("fingerprint") == fingerprint else {}


def write(fingerprint: str, answers: dict[str, Any]) -> None:
    """Remember the answers under this fingerprint; answers of older fingerprints are dropped.
    A cache that cannot be written (read-only checkout) is no error: the next list probes again."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.json"):
            if old.stem != fingerprint:
                old.unlink(missing_ok=True)
        write_bytes_atomic(folder / f"{fingerprint}.json",
                           json.dumps({"fingerprint": fingerprint, **answers}, sort_keys=True).encode(), sync=False)
    except OSError:
        pass


def remembered(keys: list[str], compute: Callable[[str], Any], cached: dict[str, Any],
               keep: Callable[[str], bool] = lambda key: True, workers: int = 4) -> dict[str, Any]:
    """`{key: compute(key)}`, taken from `cached` where it is there; the rest computed side by
    side (each is a subprocess or two: threads suffice). `keep(key)` false: never taken from the cache."""
    out = {k: cached[k] for k in keys if k in cached and keep(k)}
    todo = [k for k in keys if k not in out]
    if todo:
        with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
            out.update(zip(todo, pool.map(compute, todo)))
    return {k: out[k] for k in keys}
