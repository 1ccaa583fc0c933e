"""Runner side of the C baseline (`sqlite/native-c`, runtime `c`): build on demand, probe, launch.

`bench.c` (next to this file) is compiled with the system's C compiler against Debian's
libsqlite3-dev into `data/cache/native/bench-<key>`, where <key> hashes the source, the compiler
(path and `--version`), the flags and the libraries. Changing any of them builds a new binary;
otherwise the cached one is reused. Each build writes `bench-<key>.json` beside it (command,
compiler, flags, source hash), which the probe reports and the manifest records.

Environment: `CROSSINGS_CC` (else `CC`, else `cc`) and `CROSSINGS_NATIVE_CFLAGS` (default `-O2`)
choose the compiler and its flags; `CROSSINGS_NATIVE_CACHE` moves the cache directory.

The runner calls `probe(engine)` once per run and `worker_argv(engine, spec_path, result_path)`
per process. The worker's spec JSON is translated here into argv, so the C program parses no JSON.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import env_words
from harness.run import build as builds
from harness.run.build import Build, BuildError
from harness.run.runtime_base import Runtime

NATIVE_DIR = Path(__file__).resolve().parent
SOURCE = NATIVE_DIR / "bench.c"
DEFAULT_CFLAGS = "-O2"
LDLIBS = ["-lsqlite3", "-lm"]
#: C programs per engine (only one so far)
PROGRAMS = {"sqlite/native-c": SOURCE}
#: what the C program implements; other benchmarks come back "not_applicable" from the program itself
IMPLEMENTED = ("bindings.select_fold", "bindings.select_all", "bindings.point_query", "micro.select",
               "micro.innerjoin", "micro.filltable", "inserts.autocommit", "inserts.transaction", "inserts.prepared",
               "inserts.multirow", "selftest.wrong", "selftest.inserts_short")
#: which spec parameters make the C program's N argument, per benchmark, joined with ":" (so "N" or
#: "N:K"); unlisted benchmarks pass "n" (micro.select/innerjoin read the TPC-H file instead)
N_PARAM = {"bindings.select_fold": ("n",), "bindings.select_all": ("n",),
           "bindings.point_query": ("n", "queries"), "micro.filltable": ("rows",), "inserts.autocommit": ("rows",),
           "inserts.transaction": ("rows",), "inserts.prepared": ("rows",), "inserts.multirow": ("rows",),
           "inserts.bulk": ("rows",), "selftest.inserts_short": ("rows",)}
#: spec parameters passed as KEY=VALUE arguments after DATABASE (inserts.*: SQLite's file settings)
OPTION_PARAMS = ("journal_mode", "synchronous", "datadir")

__all__ = ["Build", "BuildError", "NativeRuntime", "build", "build_for", "probe", "worker_argv"]


def cache_dir() -> Path:
    return builds.cache_dir("native", "CROSSINGS_NATIVE_CACHE")


def compiler() -> str:
    return os.environ.get("CROSSINGS_CC") or os.environ.get("CC") or "cc"


def cflags() -> list[str]:
    return env_words("CROSSINGS_NATIVE_CFLAGS", DEFAULT_CFLAGS)


def build_key(source: bytes, cc_path: str, cc_identity: str, flags: list[str], ldlibs: list[str]) -> str:
    return builds.build_key([source, cc_path.encode(), cc_identity.encode(), json.dumps(flags).encode(),
                             json.dumps(ldlibs).encode()])


def build(source: Path = SOURCE, flags: list[str] | None = None, cache: Path | None = None,
          cc: str | None = None) -> Build:
    """The binary for `source` under these flags: from the cache, or compiled now. Raises BuildError."""
    cc_name = cc or compiler()
    cc_path = shutil.which(cc_name)
    if cc_path is None:
        raise BuildError(f"no C compiler: {cc_name!r} not found on PATH (install Debian's gcc, or set CROSSINGS_CC)")
    flags = list(cflags() if flags is None else flags)
    cache = Path(cache or cache_dir())
    src = source.read_bytes()
    out = builds.tool_output([cc_path, "--version"], timeout=30)
    identity = (out.stdout or out.stderr).strip()
    key = build_key(src, cc_path, identity, flags, LDLIBS)
    binary = cache / f"{source.stem}-{key}"

    def make(scratch: Path) -> tuple[Path, dict[str, Any]]:
        tmp = str(scratch / source.stem)
        define = "-DCROSSINGS_CFLAGS=" + json.dumps(" ".join(flags))
        cmd = [cc_path, *flags, define, "-o", tmp, str(source), *LDLIBS]
        proc = builds.tool_output(cmd, timeout=300)
        if proc.returncode != 0:
            raise BuildError(_explain_failure(proc.stderr, cmd))
        os.chmod(tmp, 0o755)
        info = {"source": builds.shown_path(source), "source_sha256": hashlib.sha256(src).hexdigest(),
                "compiler_path": cc_path, "compiler_version": identity.splitlines()[0] if identity else "",
                "flags": " ".join(flags), "ldlibs": " ".join(LDLIBS), "key": key,
                "command": " ".join(shlex.quote(str(binary) if c == tmp else c) for c in cmd)}
        return Path(tmp), info

    return builds.cached(cache, source.stem, key, make)


def _explain_failure(stderr: str, cmd: list[str]) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    if "sqlite3.h" in stderr and ("No such file" in stderr or "not found" in stderr):
        return "cannot build the C baseline: sqlite3.h not found (install Debian's libsqlite3-dev)"
    if "-lsqlite3" in stderr or "cannot find -lsqlite3" in stderr:
        return "cannot build the C baseline: libsqlite3 not found for linking (install Debian's libsqlite3-dev)"
    tail = " | ".join(lines[-3:]) or "no output"
    return f"cannot build the C baseline ({' '.join(cmd[:1] + cmd[1:-3])}): {tail}"


def _program(engine: str) -> Path:
    try:
        return PROGRAMS[engine]
    except KeyError:
        raise BuildError(f"{engine} has no C program (C programs: {', '.join(PROGRAMS)})") from None


def build_for(engine: str) -> Build:
    """The build this runner process uses for `engine` (built or found in the cache once)."""
    source = _program(engine)
    return builds.once(("c", str(source), compiler(), json.dumps(cflags()), str(cache_dir())), lambda: build(source))


def probe(engine: str) -> dict[str, Any]:
    """Availability, versions and capabilities of a native engine; builds the program if needed."""
    return builds.probed("c", lambda: _probe(engine))


def _probe(engine: str) -> dict[str, Any]:
    b = build_for(engine)
    out = builds.probe_json([str(b.binary), "--probe"], 60, b.binary.name)
    return {
        "available": True,
        "reason": "",
        "runtime": out["runtime"],
        "executable": str(b.binary),
        "driver": "libsqlite3",
        "dialect": "sqlite",
        "storage": "file database in the process's private temp dir",
        "versions": {"driver": "libsqlite3 C API (" + out["compiler"] + " " + b.info["flags"] + ")",
                     "sqlite": out["sqlite"], "compiler": out["compiler"], "flags": b.info["flags"]},
        "sqlite_library": {"libversion": out["sqlite"], "source_id": out.get("sqlite_source_id"),
                           "header_version": out.get("sqlite_header"), "threadsafe": out.get("threadsafe")},
        "capabilities": {"scalar_callbacks": False, "aggregate_callbacks": False, "benchmarks": list(IMPLEMENTED)},
        "build": b.info,
    }


def worker_argv(engine: str, spec_path: str, result_path: str) -> list[str]:
    """argv of one C process for the spec the runner wrote (the C program reads no JSON)."""
    with open(spec_path) as f:
        spec = json.load(f)
    try:
        b = build_for(engine)
    except BuildError as exc:
        return builds.failing_argv(f"C baseline unavailable: {exc}")
    benchmark = spec["benchmark"]
    params = spec.get("params") or {}
    size = ":".join(str(int(params.get(name, 0) or 0)) for name in N_PARAM.get(benchmark, ("n",)))
    database = (spec.get("data") or {}).get("path") or ""
    argv = [str(b.binary), benchmark, size, str(int(spec["iterations"])), spec["workdir"], result_path]
    options = [f"{k}={params[k]}" for k in OPTION_PARAMS if k in params]
    if database or options:
        argv.append(str(database))
    return argv + options


@dataclass(frozen=True)
class NativeRuntime(Runtime):
    """C programs linked against libsqlite3, built on demand (the speed-of-light baseline)."""

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        return worker_argv(engine, spec_path, result_path)

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        return probe(engine)
