"""One private (0700) temp directory per run: every worker's spec and result, every engine-probe
config (which may hold a DSN with a password) lives inside it, and it is removed when the run
ends. A run killed outside Python's control (SIGKILL) leaves it behind; the next run sweeps it.

The directory's name carries its runner's pid (`crossings-run-<pid>-XXXX`): only directories
whose runner is gone are swept, so concurrent runs never remove each other's files.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Iterator

PREFIX = "crossings-run-"
#: names of earlier harness versions' temp files, swept the same way
LEGACY_DIR_PREFIX = "crossings-worker-"
LEGACY_PROBE_GLOB = "crossings-probe-*.json"
#: a loose probe file older than this outlived its probe (the probe timeout is 120 s)
LEGACY_PROBE_MAX_AGE_S = 600.0


def _owner_gone(name: str, prefix: str) -> bool:
    pid = name[len(prefix):].split("-", 1)[0]
    return pid.isdigit() and not Path(f"/proc/{pid}").exists()


def sweep_stale(tmp: Path | None = None) -> list[Path]:
    """Remove temp directories (and loose probe files) of runners that are gone; returns them."""
    tmp = Path(tmp or tempfile.gettempdir())
    removed = []
    for prefix in (PREFIX, LEGACY_DIR_PREFIX):
        for d in tmp.glob(f"{prefix}*-*"):
            if _owner_gone(d.name, prefix):
                shutil.rmtree(d, ignore_errors=True)
                removed.append(d)
    now = time.time()
    for f in tmp.glob(LEGACY_PROBE_GLOB):
        with contextlib.suppress(OSError):
            if now - f.stat().st_mtime > LEGACY_PROBE_MAX_AGE_S:
                f.unlink()
                removed.append(f)
    return removed


@contextlib.contextmanager
def run_tempdir() -> Iterator[Path]:
    """A fresh 0700 directory for this run's temp files, removed at the end; stale ones swept first."""
    sweep_stale()
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
