"""Language runtimes that execute workers: CPython (the harness's own), PyPy, and C.

A runtime family name (`cpython`, `pypy`, `c`) is what users type; the raw rows record the exact
version the worker reports (`cpython3.11.7`, `pypy3.9.16`).
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Runtime:
    name: str
    description: str

    def executable(self) -> str | None:
        if self.name == "cpython":
            return sys.executable
        if self.name == "pypy":
            chosen = os.environ.get("CROSSINGS_PYPY")
            # which() also vets an explicit path: None unless it is an executable file
            return shutil.which(chosen) if chosen else shutil.which("pypy3")
        return None

    def unavailable_reason(self) -> str | None:
        if self.name == "pypy" and not self.executable():
            if os.environ.get("CROSSINGS_PYPY"):
                return f"CROSSINGS_PYPY={os.environ['CROSSINGS_PYPY']} is not an executable file"
            return "pypy3 not found on PATH: install Debian's pypy3 (or set CROSSINGS_PYPY)"
        return None

    def worker_argv(self, *args: str) -> list[str]:
        exe = self.executable()
        if exe is None:
            raise RuntimeError(f"runtime {self.name} has no Python worker")
        return [exe, "-m", "harness.worker", *args]


RUNTIMES: dict[str, Runtime] = {
    "cpython": Runtime("cpython", "CPython running the harness (the venv's interpreter)"),
    "pypy": Runtime("pypy", "PyPy 3.9 from Debian's pypy3; workers use only the stdlib and the driver"),
    "c": Runtime("c", "native C programs linked against libsqlite3 (speed-of-light baseline)"),
}


def worker_env() -> dict[str, str]:
    """Workers find `harness` on PYTHONPATH (the project root) whatever the runtime."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PROJECT_ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTHONSTARTUP", None)
    return env
