"""Runner side of E6's Go program (engines `ramsql/go`, `sqlite/glebarez` and `sqlite/go`, runtime `go`): build,
probe, launch.

The module next to this file (`go.mod`, `go.sum`, `*.go`; third-party modules come from the Go
module proxy, nothing is vendored) is built with `go build -tags libsqlite3` (mattn/go-sqlite3
through cgo against the system's libsqlite3, the library the C baseline and Python's sqlite3
use; glebarez/go-sqlite, the seed's driver, is pure Go and links no C) into `data/cache/go/e6-<key>`,
where <key> hashes the sources, the `go` executable's path
and `go version`, and the build flags. Each build writes `e6-<key>.json` beside it (command, Go
version, source hash, seconds it took), which the probe reports and the manifest records.
GOPATH, GOMODCACHE and GOCACHE live in `data/cache/go/` too, so builds work as root and offline
once the modules have been fetched.

Environment: `CROSSINGS_GO` (else `go` on PATH) chooses the toolchain; `CROSSINGS_GO_CACHE`
moves the cache directory. Unlike the C program, the Go program reads the spec JSON itself.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.run import build as builds
from harness.run.build import Build, BuildError
from harness.run.runtime_base import Runtime

GO_DIR = Path(__file__).resolve().parent
#: the Go engines; other engines have no Go program
ENGINES = ("ramsql/go", "sqlite/glebarez", "sqlite/go")
TAGS = "libsqlite3"
#: each engine's database/sql driver, as the manifest records it
DRIVERS = {"ramsql/go": "ramsql", "sqlite/glebarez": "glebarez/go-sqlite (pure Go: modernc.org/sqlite, no cgo)",
           "sqlite/go": "mattn/go-sqlite3 (cgo, system libsqlite3)"}
#: the oldest Go the modules build with (ramsql v0.1.5's go.mod says go 1.20)
MIN_GO = (1, 20)

__all__ = ["Build", "BuildError", "GoRuntime", "build", "build_for", "probe", "worker_argv"]


def cache_dir() -> Path:
    return builds.cache_dir("go", "CROSSINGS_GO_CACHE")


def go_executable() -> str | None:
    chosen = os.environ.get("CROSSINGS_GO")
    return shutil.which(chosen) if chosen else shutil.which("go")


def sources() -> list[Path]:
    return sorted([GO_DIR / "go.mod", GO_DIR / "go.sum", *GO_DIR.glob("*.go")])


def go_env(cache: Path) -> dict[str, str]:
    """The toolchain's environment: every cache inside `cache`, no toolchain download, cgo on."""
    env = dict(os.environ)
    env.update(GOPATH=str(cache / "gopath"), GOMODCACHE=str(cache / "gopath" / "pkg" / "mod"),
               GOCACHE=str(cache / "gocache"), GOFLAGS="-modcacherw -mod=readonly", GOTOOLCHAIN="local",
               CGO_ENABLED="1", GO111MODULE="on")
    env.setdefault("GOPROXY", "https://proxy.golang.org,direct")
    return env


def parse_go_version(text: str) -> tuple[int, int] | None:
    m = re.search(r"go(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def go_version(go: str) -> str:
    out = builds.tool_output([go, "version"])
    return (out.stdout or out.stderr).strip()


def unavailable_reason() -> str | None:
    """Why runtime `go` cannot run here, or None (a cheap check: the toolchain, not a build)."""
    go = go_executable()
    if go is None:
        if os.environ.get("CROSSINGS_GO"):
            return f"CROSSINGS_GO={os.environ['CROSSINGS_GO']} is not an executable file"
        return "go not found on PATH: install Debian's golang-go (Go >= 1.20), or set CROSSINGS_GO"
    return None


def build(cache: Path | None = None) -> Build:
    """The Go program: from the cache, or built now (modules fetched once). Raises BuildError."""
    reason = unavailable_reason()
    go = go_executable()
    if reason or go is None:
        raise BuildError(reason or "no Go toolchain")
    version = go_version(go)
    parsed = parse_go_version(version)
    if parsed is not None and parsed < MIN_GO:
        raise BuildError(f"{version} is too old: the modules need Go >= {MIN_GO[0]}.{MIN_GO[1]} "
                         "(set CROSSINGS_GO to a newer toolchain)")
    cache = Path(cache or cache_dir())
    srcs = sources()
    flags = ["-tags", TAGS, "-trimpath"]
    parts = [p.name.encode() + b"\0" + p.read_bytes() for p in srcs]
    key = builds.build_key(parts + [go.encode(), version.encode(), json.dumps(flags).encode()])
    binary = cache / f"e6-{key}"

    def make(scratch: Path) -> tuple[Path, dict[str, Any]]:
        tmp = scratch / "e6"
        cmd = [go, "build", *flags, "-o", str(tmp), "."]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=GO_DIR, env=go_env(cache))
        except (OSError, subprocess.SubprocessError) as exc:
            raise BuildError(f"go build failed to run: {exc}") from None
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            raise BuildError(_explain_failure(proc.stderr, version))
        os.chmod(tmp, 0o755)
        h = hashlib.sha256()
        for part in parts:
            h.update(part)
        info = {"source": builds.shown_path(GO_DIR), "source_sha256": h.hexdigest(), "go_path": go,
                "go_version": version, "flags": " ".join(flags), "key": key, "build_seconds": round(seconds, 1),
                "command": " ".join([go, "build", *flags, "-o", str(binary), "."])}
        return tmp, info

    return builds.cached(cache, "e6", key, make)


def _explain_failure(stderr: str, version: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    if "sqlite3.h" in stderr:
        return "cannot build the Go program: sqlite3.h not found (install Debian's libsqlite3-dev)"
    if "gcc" in stderr and ("not found" in stderr or "executable file not found" in stderr):
        return "cannot build the Go program: cgo needs a C compiler (install Debian's gcc)"
    if "dial tcp" in stderr or "proxy.golang.org" in stderr or "missing go.sum entry" in stderr:
        return ("cannot build the Go program: its modules are not in data/cache/go and cannot be fetched "
                f"from the Go module proxy ({lines[-1] if lines else 'no output'})")
    tail = " | ".join(lines[-3:]) or "no output"
    return f"cannot build the Go program with {version}: {tail}"


def build_for() -> Build:
    """The build this runner process uses (built or found in the cache once)."""
    return builds.once(("go", str(go_executable()), str(cache_dir())), build)


def probe(engine: str) -> dict[str, Any]:
    """Availability, versions and capabilities of a Go engine; builds the program if needed."""
    if engine not in ENGINES:
        return {"available": False, "reason": f"not available on go: {engine} has no Go program "
                                              f"(Go engines: {', '.join(ENGINES)})"}
    return builds.probed("go", lambda: _probe(engine))


def _probe(engine: str) -> dict[str, Any]:
    b = build_for()
    out = builds.probe_json([str(b.binary), "--probe", engine], 60, b.binary.name, check=False)
    if not out.get("available"):
        return {"available": False, "reason": f"not available on go: {out.get('reason')}"}
    versions = dict(out.get("versions") or {})
    return {
        "available": True, "reason": "", "runtime": out.get("runtime"), "executable": str(b.binary),
        "driver": DRIVERS[engine],
        "dialect": "ramsql" if engine.startswith("ramsql") else "sqlite",
        "storage": "in memory (RamSQL's engine; SQLite's :memory:), one connection",
        "versions": versions,
        "capabilities": {"scalar_callbacks": False, "aggregate_callbacks": False,
                         "benchmarks": out.get("benchmarks") or []},
        "build": b.info,
    }


def worker_argv(engine: str, spec_path: str, result_path: str) -> list[str]:
    """argv of one Go process: the program reads the runner's spec JSON itself."""
    try:
        b = build_for()
    except BuildError as exc:
        return builds.failing_argv(f"Go program unavailable: {exc}")
    return [str(b.binary), spec_path, result_path]


@dataclass(frozen=True)
class GoRuntime(Runtime):
    """E6's Go program (RamSQL and SQLite through database/sql), built on demand with `go`."""

    def executable(self) -> str | None:
        return go_executable()

    def unavailable_reason(self) -> str | None:
        return unavailable_reason()

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        return worker_argv(engine, spec_path, result_path)

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        return probe(engine)


def gotest_argv(count: int = 6, benchtime: str = "1s", bench: str = ".") -> tuple[list[str], dict[str, str]]:
    """The `go test -bench` command (and its environment) for the same benchmarks, run in GO_DIR."""
    go = go_executable()
    if go is None:
        raise BuildError(unavailable_reason() or "no Go toolchain")
    argv = [go, "test", "-tags", TAGS, "-run", "^$", "-bench", bench, "-count", str(count), "-benchtime", benchtime,
            "-timeout", "0"]  # no limit: go test stops at 10 minutes by default
    return argv, go_env(cache_dir())
