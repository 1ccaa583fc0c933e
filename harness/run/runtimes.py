"""Language runtimes that execute a cell's processes: CPython (the harness's own), PyPy, C, the
JVM, Go and Haskell.

A runtime family name (`cpython`, `pypy`, `c`, `jvm`, `go`, `haskell`, `haskell-O0`) is what users
type; the raw rows record the exact version the worker reports (`cpython3.11.7`, `pypy3.9.16`,
`haskell-O2-ghc9.0.2`). Each runtime knows how to probe an engine and how to start one process of
a cell: the Python ones run `harness.worker` (without `site`: see `site_dirs`), the C one builds
and launches the native program (`harness.run.native.launcher`), the JVM one the Java worker (`harness.run.jvm.launcher`),
the Go one E6's Go program (`harness.run.go.launcher`), the Haskell ones the Haskell worker
(`harness.run.haskell.launcher`), which reads the spec and writes the result itself. Each foreign
runtime's class is defined beside its launcher; this module holds the Python ones and the registry.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from harness.fsutil import PROJECT_ROOT
from harness.run.go.launcher import GoRuntime
from harness.run.haskell.launcher import HaskellRuntime
from harness.run.jvm.launcher import JvmRuntime
from harness.run.native.launcher import NativeRuntime
from harness.run.runtime_base import Runtime


@dataclass(frozen=True)
class PythonRuntime(Runtime):
    """A Python interpreter running `harness.worker` (stdlib + the driver only)."""

    def executable(self) -> str | None:
        if self.name == "cpython":
            return sys.executable
        chosen = os.environ.get("CROSSINGS_PYPY")
        # which() also vets an explicit path: None unless it is an executable file
        return shutil.which(chosen) if chosen else shutil.which("pypy3")

    def unavailable_reason(self) -> str | None:
        if self.name == "pypy" and not self.executable():
            if os.environ.get("CROSSINGS_PYPY"):
                return f"CROSSINGS_PYPY={os.environ['CROSSINGS_PYPY']} is not an executable file"
            return "pypy3 not found on PATH: install Debian's pypy3 (or set CROSSINGS_PYPY)"
        return None

    def python_argv(self, *args: str) -> list[str]:
        exe = self.executable()
        if exe is None:
            raise RuntimeError(f"runtime {self.name} has no Python interpreter here")
        dirs = site_dirs(exe)
        if dirs is None:
            return [exe, "-m", "harness.worker", *args]
        return [exe, "-S", "-c", _BOOT % (dirs,), *args]

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        return self.python_argv(spec_path, result_path)

    def probe_argv(self, engine: str, config_path: str | None) -> list[str]:
        return self.python_argv("--probe", engine, *([config_path] if config_path else []))


#: A worker starts without `site` (-S) and this bootstrap appends the directories site would have
#: added, in site's order, then runs `harness.worker` as `-m` would. With site, a venv's start runs
#: every .pth file (the editable install's finder imports importlib.util and pathlib): measured alone,
#: a whole select_fold process took 177.5 ms with site and 171.7 without on CPython, 443.7 and 414.7
#: ms on PyPy (`benchmarks/bench_process_cost.py`, medians of 30); on a busy machine the gap grows.
_BOOT = ("import sys; sys.path.extend(%r); import runpy; "
         "runpy.run_module('harness.worker', run_name='__main__', alter_sys=True)")
_PATH_OF = "import sys, json; print(json.dumps(sys.path))"
_SITE_DIRS: dict[str, list[str] | None] = {}


def site_dirs(exe: str) -> list[str] | None:
    """The existing directories `site` adds to `exe`'s sys.path (asked once per interpreter), or None
    when the interpreter cannot be asked (then workers start with site, as before)."""
    if exe not in _SITE_DIRS:
        try:
            full, bare = _sys_path(exe), _sys_path(exe, "-S")
            _SITE_DIRS[exe] = [d for d in full if d and d not in bare and os.path.exists(d)]
        except (OSError, subprocess.SubprocessError, ValueError):
            _SITE_DIRS[exe] = None
    return _SITE_DIRS[exe]


def _sys_path(exe: str, *flags: str) -> list[str]:
    """`exe`'s sys.path when started with `flags`."""
    run = subprocess.run([exe, *flags, "-c", _PATH_OF], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(run.stdout)


RUNTIMES: dict[str, Runtime] = {
    "cpython": PythonRuntime("cpython", "CPython running the harness (the venv's interpreter)"),
    "pypy": PythonRuntime("pypy", "PyPy 3.9 from Debian's pypy3; workers use only the stdlib and the driver"),
    "c": NativeRuntime("c", "native C programs linked against libsqlite3 (speed-of-light baseline)"),
    "jvm": JvmRuntime("jvm", "Java programs on the JDK's JVM, H2 embedded through JDBC (seed 001's third engine)"),
    "haskell": HaskellRuntime("haskell", "the Haskell worker built by Debian's ghc -O2 (HDBC, persistent-sqlite, "
                                         "postgresql-simple, acid-state)"),
    "haskell-O0": HaskellRuntime("haskell-O0", "the same Haskell worker built with ghc -O0 (seed 002's "
                                               "unoptimised build)"),
    "haskell-O1": HaskellRuntime("haskell-O1", "the same Haskell worker built with ghc -O1 (what seed 002's "
                                               "`ghc -O --make` means)"),
    "go": GoRuntime("go", "E6's Go program (RamSQL; SQLite via glebarez/go-sqlite, pure Go, and via "
                          "mattn/go-sqlite3 on the system libsqlite3), "
                          "built on demand with the Go toolchain"),
}


def worker_env() -> dict[str, str]:
    """Workers find `harness` on PYTHONPATH (the project root) whatever the runtime."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PROJECT_ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTHONSTARTUP", None)
    return env


def runtime_family(runtime: str) -> str:
    """The family of a runtime as the raw rows record it: `cpython3.11.7` -> `cpython`,
    `c-gcc12.2.0` -> `c`, `haskell-O0-ghc9.0.2` -> `haskell-O0`, `haskell-O2-ghc9.0.2` -> `haskell`."""
    text = str(runtime)
    prefixed = [name for name in RUNTIMES if text == name or text.startswith(name + "-")]
    if prefixed:
        return max(prefixed, key=len)
    return text.rstrip("0123456789.").split("-", 1)[0]
