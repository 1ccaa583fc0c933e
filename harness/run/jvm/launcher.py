"""Runner side of the Java worker (`h2/jdbc`, runtime `jvm`): build on demand, probe, launch, load.

`Bench.java` (next to this file) is compiled with the system's `javac` against H2's jar (Debian's
`libh2-java`: /usr/share/java/h2.jar) into `data/cache/jvm/bench-<key>/`, where <key> hashes the
source, javac (path and `javac -version`), the jar's bytes and the flags. Changing any of them
builds anew; otherwise the cached classes are reused. Each build writes `bench-<key>.json` beside
them (command, javac, jar, source hash, build seconds), which the probe reports and the manifest
records. Builds run under the cache directory's lock, so two runners never race.

Environment: `CROSSINGS_JAVA`, `CROSSINGS_JAVAC` (default `java`, `javac` on PATH),
`CROSSINGS_H2_JAR` (default /usr/share/java/h2.jar), `CROSSINGS_JVM_OPTS` (JVM options for the
worker, default none: H2 and HotSpot in their default configuration, as seed 001 ran them),
`CROSSINGS_JVM_CACHE` (the cache directory).

The runner calls `probe(engine)` once per run and `worker_argv(engine, spec_path, result_path)` per
process. The spec JSON becomes a task file (java.util.Properties) in the process's private workdir,
with what the Java program cannot compute itself: a TPC-H query's text in H2's dialect and its
expected answer (read with `harness.workloads.tpch_check`, so both sides read the same answer set).
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import env_words
from harness.run import build as builds
from harness.run.build import Build, BuildError
from harness.run.runtime_base import Runtime

JVM_DIR = Path(__file__).resolve().parent
SOURCE = JVM_DIR / "Bench.java"
MAIN_CLASS = "Bench"
DEFAULT_H2_JAR = "/usr/share/java/h2.jar"
JAVAC_FLAGS = ["-encoding", "UTF-8", "-Xlint:all,-path", "-Werror"]
PROGRAMS = {"h2/jdbc": SOURCE}
#: what the Java program implements; other benchmarks come back "not_applicable" from the program
IMPLEMENTED = ("micro.select", "micro.innerjoin", "micro.pythonjoin", "micro.pyfunction", "micro.pyaggregate",
               "micro.filltable", "selftest.wrong") + tuple("tpch.q%02d" % n for n in range(1, 23))
#: the answer's field separator in the task file (TPC-H text never contains it)
FIELD_SEP = "\u001f"

__all__ = ["Build", "BuildError", "JvmRuntime", "build", "build_for", "probe", "worker_argv"]


def cache_dir() -> Path:
    return builds.cache_dir("jvm", "CROSSINGS_JVM_CACHE")


def h2_jar() -> Path:
    return Path(os.environ.get("CROSSINGS_H2_JAR") or DEFAULT_H2_JAR)


def _tool(env: str, name: str, package: str) -> str:
    chosen = os.environ.get(env) or name
    found = shutil.which(chosen)
    if found is None:
        raise BuildError(f"{chosen!r} not found on PATH (install Debian's {package}, or set {env})")
    return found


def java() -> str:
    return _tool("CROSSINGS_JAVA", "java", "default-jdk-headless")


def javac() -> str:
    return _tool("CROSSINGS_JAVAC", "javac", "default-jdk-headless")


def jvm_opts() -> list[str]:
    return env_words("CROSSINGS_JVM_OPTS", "")


def _identity(path: str) -> str:
    out = builds.tool_output([path, "-version"])
    return (out.stdout + out.stderr).strip()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build_key(source: bytes, javac_path: str, javac_identity: str, jar: bytes, flags: list[str]) -> str:
    return builds.build_key([source, javac_path.encode(), javac_identity.encode(), hashlib.sha256(jar).digest(),
                             json.dumps(flags).encode()])


def build(source: Path = SOURCE, cache: Path | None = None, jar: Path | None = None) -> Build:
    """The compiled classes of `source`: from the cache, or compiled now. Raises BuildError."""
    javac_path = javac()
    jar = Path(jar or h2_jar())
    if not jar.is_file():
        raise BuildError(f"H2 jar {jar} not found (install Debian's libh2-java, or set CROSSINGS_H2_JAR)")
    cache = Path(cache or cache_dir())
    src = source.read_bytes()
    jar_bytes = jar.read_bytes()
    identity = _identity(javac_path)
    key = build_key(src, javac_path, identity, jar_bytes, JAVAC_FLAGS)
    classes = cache / f"{source.stem.lower()}-{key}"

    def make(scratch: Path) -> tuple[Path, dict[str, Any]]:
        tmp = scratch / "classes"
        tmp.mkdir()
        cmd = [javac_path, *JAVAC_FLAGS, "-cp", str(jar), "-d", str(tmp), str(source)]
        t0 = time.perf_counter()
        proc = builds.tool_output(cmd, timeout=600)
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            lines = [ln for ln in (proc.stderr or proc.stdout).strip().splitlines() if ln.strip()]
            raise BuildError(f"cannot build the Java worker: {' | '.join(lines[-3:]) or 'no output'}")
        info = {"source": builds.shown_path(source), "source_sha256": _sha256(src), "javac_path": javac_path,
                "javac_version": identity.splitlines()[0] if identity else "", "h2_jar": str(jar),
                "h2_jar_sha256": _sha256(jar_bytes), "flags": " ".join(JAVAC_FLAGS), "key": key,
                "build_seconds": round(seconds, 3),
                "command": " ".join(shlex.quote(str(classes) if c == str(tmp) else c) for c in cmd)}
        return tmp, info

    return builds.cached(cache, source.stem.lower(), key, make)


def build_for(engine: str) -> Build:
    """The build this runner process uses for `engine` (built or found in the cache once)."""
    try:
        source = PROGRAMS[engine]
    except KeyError:
        raise BuildError(f"{engine} has no Java program (Java programs: {', '.join(PROGRAMS)})") from None
    key = ("jvm", str(source), os.environ.get("CROSSINGS_JAVAC", ""), str(h2_jar()), str(cache_dir()))
    return builds.once(key, lambda: build(source))


def classpath(b: Build) -> str:
    return os.pathsep.join([str(b.classes), str(h2_jar())])


def java_argv(b: Build, *args: str) -> list[str]:
    return [java(), *jvm_opts(), "-cp", classpath(b), MAIN_CLASS, *args]


def probe(engine: str) -> dict[str, Any]:
    """Availability, versions and capabilities; builds the program if needed."""
    return builds.probed("jvm", lambda: _probe(engine))


def _probe(engine: str) -> dict[str, Any]:
    b = build_for(engine)
    out = builds.probe_json(java_argv(b, "--probe"), 120, MAIN_CLASS)
    if not out.get("available"):
        raise BuildError(str(out.get("reason")))
    h2 = str(out["h2"]).split()[0]
    return {
        "available": True,
        "reason": "",
        "runtime": out["runtime"],
        "executable": java(),
        "driver": "jdbc",
        "dialect": "h2",
        "storage": "a private copy of the prepared H2 file per process (TPC-H), else a fresh file in its temp dir",
        "versions": {"driver": f"H2 JDBC {h2}", "h2": str(out["h2"]), "java": out["java"],
                     "java_vm": out["java_vm"], "jvm_opts": " ".join(jvm_opts()) or "(default)",
                     "h2_settings": out.get("h2_settings", "")},
        "capabilities": {"scalar_callbacks": True, "aggregate_callbacks": True, "benchmarks": list(IMPLEMENTED)},
        "build": b.info,
    }


def unavailable_reason() -> str | None:
    """Why the jvm runtime cannot run here (no java, javac or H2 jar), without building."""
    try:
        java()
        javac()
    except BuildError as exc:
        return str(exc)
    if not h2_jar().is_file():
        return f"H2 jar {h2_jar()} not found (install Debian's libh2-java, or set CROSSINGS_H2_JAR)"
    return None


# ------------------------------------------------------------------------------ task files

def _escape(value: str) -> str:
    """A java.util.Properties value (the file is read as UTF-8)."""
    out = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return "\\" + out if out.startswith(" ") else out


def task_properties(spec: dict[str, Any], result_path: str, answers_dir: str | None = None) -> dict[str, str]:
    """What the Java program needs of the spec, plus a TPC-H query's text and expected answer."""
    params = spec.get("params") or {}
    data = spec.get("data") or {}
    benchmark = spec["benchmark"]
    task = {"benchmark": benchmark, "iterations": str(int(spec["iterations"])),
            "budget_s": repr(float(spec.get("budget_s") or 0)), "min_iterations": str(int(spec.get("min_iterations") or 2)),
            "workdir": str(spec["workdir"]), "result": result_path, "database": str(data.get("path") or ""),
            "rows": str(int(params.get("rows", 0) or 0))}
    if benchmark.startswith("tpch.q"):
        from harness.workloads import tpch_check, tpch_queries

        number = int(benchmark[len("tpch.q"):])
        query = tpch_queries.get("h2", number)
        task["query"] = str(number)
        task["sql"] = query.sql
        for i, sql in enumerate(query.setup):
            task[f"setup.{i}"] = sql
        for i, sql in enumerate(query.teardown):
            task[f"teardown.{i}"] = sql
        try:
            expected = tpch_check.load_expected(number, params["sf"], answers_dir)
        except LookupError as exc:
            task["not_applicable"] = f"answers cannot be checked: {exc}"
        else:
            task["expected.classes"] = " ".join(expected.classes)
            task["expected.rows"] = str(len(expected.rows))
            for i, row in enumerate(expected.rows):
                task[f"expected.row.{i}"] = FIELD_SEP.join(row)
    return task


def write_task(path: Path, task: dict[str, str]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        for k, v in task.items():
            f.write(f"{k}={_escape(v)}\n")


def worker_argv(engine: str, spec_path: str, result_path: str) -> list[str]:
    """argv of one Java process for the spec the runner wrote; its task file goes into the workdir."""
    with open(spec_path) as f:
        spec = json.load(f)
    try:
        b = build_for(engine)
        java()
    except BuildError as exc:
        return builds.failing_argv(f"Java worker unavailable: {exc}")
    task_path = Path(spec["workdir"]) / "task.properties"
    write_task(task_path, task_properties(spec, result_path))
    return java_argv(b, "run", str(task_path))


@dataclass(frozen=True)
class JvmRuntime(Runtime):
    """Java programs on the JDK's HotSpot JVM, built on demand (H2 embedded through JDBC)."""

    def executable(self) -> str | None:
        return shutil.which(os.environ.get("CROSSINGS_JAVA") or "java")

    def unavailable_reason(self) -> str | None:
        return unavailable_reason()

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        return worker_argv(engine, spec_path, result_path)

    def probe(self, engine: str, config_path: str | None, timeout: float) -> dict[str, Any] | None:
        return probe(engine)


def run_script(url: str, statements: list[str], workdir: Path, timeout: float = 24 * 3600) -> list[Any]:
    """Run SQL statements in H2 through the Java program (the TPC-H loader); returns the first value
    of each SELECT's first row, in order. Raises BuildError (with H2's message) when one fails."""
    b = build_for("h2/jdbc")
    script = workdir / "load.sql"
    script.write_text("\n;\n".join(statements) + "\n", encoding="utf-8")
    proc = subprocess.run(java_argv(b, "load", url, str(script)), capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or "").strip().splitlines() if ln.strip()]
        raise BuildError(f"H2 load failed: {' | '.join(lines[:2]) or 'no output'}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["values"]


def run_once(engine: str, spec: dict[str, Any], timeout: float | None = None,
             answers_dir: str | None = None) -> dict[str, Any]:
    """One Java process for `spec` (its workdir must exist), waited for; its result JSON, or an
    error result saying why there is none. `validate tpch --engine h2/jdbc` runs the queries so."""
    b = build_for(engine)
    workdir = Path(spec["workdir"])
    result_path = workdir / "result.json"
    task_path = workdir / "task.properties"
    write_task(task_path, task_properties(spec, str(result_path), answers_dir))
    try:
        proc = subprocess.run(java_argv(b, "run", str(task_path)), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "reason": f"exceeded the {timeout:.0f} s timeout", "wall_ns": []}
    if not result_path.exists():
        tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return {"status": "error", "reason": f"the Java worker exited {proc.returncode} without a result: {tail[0]}",
                "wall_ns": []}
    return json.loads(result_path.read_text())
