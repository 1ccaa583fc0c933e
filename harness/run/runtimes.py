"""Language runtimes that execute a cell's processes: CPython (the harness's own), PyPy, C, the
JVM, Go and Haskell.

A runtime family name (`cpython`, `pypy`, `c`, `jvm`, `go`, `haskell`, `haskell-O0`) is what users
type; the raw rows record the exact version the worker reports (`cpython3.11.7`, `pypy3.9.16`,
`haskell-O2-ghc9.0.2`). Each runtime knows how to probe an engine and how to start one process of
a cell: the Python ones run `python -m harness.worker`, the C one builds and launches the native
program (`harness.run.native.launcher`), the JVM one the Java worker (`harness.run.jvm.launcher`),
the Go one E6's Go program (`harness.run.go.launcher`), the Haskell ones the Haskell worker
(`harness.run.haskell.launcher`), which reads the spec and writes the result itself.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from typing import Any

from harness.fsutil import PROJECT_ROOT


@dataclass(frozen=True)
class Runtime:
    name: str
    description: str

    def executable(self) -> str | None:
        return None

    def unavailable_reason(self) -> str | None:
        return None

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        """The command that runs one process of `engine`'s cell from its spec file."""
        raise NotImplementedError

    def annotate_probe(self, engine: str, info: dict[str, Any]) -> dict[str, Any]:
        """What the runtime adds to a probe run through `probe_argv` (e.g. its build record)."""
        return info

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        """The probe's answer, or None when the caller should run `probe_argv` in a subprocess."""
        return None

    def probe_argv(self, engine: str, config_path: str | None) -> list[str]:
        raise NotImplementedError


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
        return [exe, "-m", "harness.worker", *args]

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        return self.python_argv(spec_path, result_path)

    def probe_argv(self, engine: str, config_path: str | None) -> list[str]:
        return self.python_argv("--probe", engine, *([config_path] if config_path else []))


@dataclass(frozen=True)
class NativeRuntime(Runtime):
    """C programs linked against libsqlite3, built on demand (the speed-of-light baseline)."""

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        from harness.run.native import launcher

        return launcher.worker_argv(engine, spec_path, result_path)

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        from harness.run.native import launcher

        return launcher.probe(engine)


@dataclass(frozen=True)
class JvmRuntime(Runtime):
    """Java programs on the JDK's HotSpot JVM, built on demand (H2 embedded through JDBC)."""

    def executable(self) -> str | None:
        return shutil.which(os.environ.get("CROSSINGS_JAVA") or "java")

    def unavailable_reason(self) -> str | None:
        from harness.run.jvm import launcher

        return launcher.unavailable_reason()

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        from harness.run.jvm import launcher

        return launcher.worker_argv(engine, spec_path, result_path)

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        from harness.run.jvm import launcher

        return launcher.probe(engine)


@dataclass(frozen=True)
class HaskellRuntime(Runtime):
    """The Haskell worker compiled by Debian's ghc (`-O2`, or `-O0` for seed 002's comparison),
    built on demand; a missing ghc or library makes the runtime unavailable with the reason."""

    def unavailable_reason(self) -> str | None:
        from harness.run.haskell import launcher

        return launcher.unavailable_reason(self.name)

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        from harness.run.haskell import launcher

        return launcher.worker_argv(self.name, engine, spec_path, result_path)

    def probe_argv(self, engine: str, config_path: str | None) -> list[str]:
        from harness.run.haskell import launcher

        return launcher.probe_argv(self.name, engine, config_path)

    def annotate_probe(self, engine: str, info: dict[str, Any]) -> dict[str, Any]:
        from harness.run.haskell import launcher

        return launcher.annotate(self.name, info)


@dataclass(frozen=True)
class GoRuntime(Runtime):
    """E6's Go program (RamSQL and SQLite through database/sql), built on demand with `go`."""

    def executable(self) -> str | None:
        from harness.run.go import launcher

        return launcher.go_executable()

    def unavailable_reason(self) -> str | None:
        from harness.run.go import launcher

        return launcher.unavailable_reason()

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        from harness.run.go import launcher

        return launcher.worker_argv(engine, spec_path, result_path)

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        from harness.run.go import launcher

        return launcher.probe(engine)


RUNTIMES: dict[str, Runtime] = {
    "cpython": PythonRuntime("cpython", "CPython running the harness (the venv's interpreter)"),
    "pypy": PythonRuntime("pypy", "PyPy 3.9 from Debian's pypy3; workers use only the stdlib and the driver"),
    "c": NativeRuntime("c", "native C programs linked against libsqlite3 (speed-of-light baseline)"),
    "jvm": JvmRuntime("jvm", "Java programs on the JDK's JVM, H2 embedded through JDBC (seed 001's third engine)"),
    "haskell": HaskellRuntime("haskell", "the Haskell worker built by Debian's ghc -O2 (HDBC, persistent-sqlite, "
                                         "postgresql-simple, acid-state)"),
    "haskell-O0": HaskellRuntime("haskell-O0", "the same Haskell worker built with ghc -O0 (seed 002's "
                                               "unoptimised build)"),
    "go": GoRuntime("go", "E6's Go program (RamSQL, SQLite via mattn/go-sqlite3 on the system libsqlite3), "
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
