"""Ask a worker whether an engine is usable on a runtime, and with which versions.

The answers go into the manifest and into `list`; a pair that cannot run marks its cells
skipped with the reason, so a missing component never crashes a run.
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import engines as engine_registry
from harness.fsutil import PROJECT_ROOT
from harness.redaction import redact
from harness.run.runtimes import RUNTIMES, worker_env

if TYPE_CHECKING:
    from harness.run.plan import LivePlan


def probe(engine: str, runtime: str, timeout: float = 120.0, config: dict[str, Any] | None = None,
          tmpdir: Path | None = None) -> dict[str, Any]:
    """Whether `engine` is usable on `runtime`, and with which versions.

    A server engine's probe needs its engine_config (DSN): it goes to the worker in a 0600
    JSON file named by a third argument (`--probe ENGINE CONFIG.json`), never on the command
    line. Without one (e.g. `list`), `harness.run.servers.listing_config` says what can be had.
    The file lives in `tmpdir` (the run's private temp directory; without one, a private
    directory made for this probe) and is deleted however the probe ends."""
    rt = RUNTIMES[runtime]
    eng = engine_registry.get(engine)
    if runtime not in eng.runtimes:
        return {"available": False, "reason": f"not available on {runtime}: {engine} runs on {', '.join(eng.runtimes)}"}
    direct = rt.probe(engine, None, timeout)
    if direct is not None:
        return direct
    reason = rt.unavailable_reason()
    if reason:
        return {"available": False, "reason": f"not available on {runtime}: {reason}"}
    if config is None and eng.server_family:
        from harness.run.servers import listing_config

        config = listing_config(engine)
    if config is None:
        return _run_probe(rt, runtime, engine, None, timeout)
    if tmpdir is None:
        from harness.run.tempdir import run_tempdir

        with run_tempdir() as private:
            return probe(engine, runtime, timeout, config, private)
    config_path = None
    try:
        fd, config_path = tempfile.mkstemp(prefix="probe-", suffix=".json", dir=tmpdir)  # mode 0600
        with os.fdopen(fd, "w") as f:
            json.dump(config, f)
        return _run_probe(rt, runtime, engine, config_path, timeout)
    finally:
        if config_path:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(config_path)


def _run_probe(rt: Any, runtime: str, engine: str, config_path: str | None, timeout: float) -> dict[str, Any]:
    try:
        proc = subprocess.run(rt.probe_argv(engine, config_path), capture_output=True, text=True,
                              timeout=timeout, cwd=PROJECT_ROOT, env=worker_env())
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": f"probe on {runtime} timed out after {timeout:.0f} s"}
    except OSError as exc:  # e.g. CROSSINGS_PYPY names a file that is missing or not executable
        return {"available": False, "reason": f"not available on {runtime}: cannot start {rt.executable()}: "
                                              f"{exc.strerror or exc}"}
    try:
        info = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return {"available": False, "reason": redact(f"probe on {runtime} failed: {tail[0]}")}
    if info.get("reason"):
        info["reason"] = redact(str(info["reason"]))
    if not info.get("available") and runtime != "cpython":
        info["reason"] = f"not available on {runtime}: {info.get('reason')}"
    return rt.annotate_probe(engine, info)


def probe_all(plan: LivePlan, engine_configs: dict[str, dict[str, Any]],
              tmpdir: Path | None = None) -> dict[str, dict[str, Any]]:
    """Probe every (engine, runtime) pair of the plan once; mark cells of unusable pairs unavailable.
    Server engines are probed with the run's engine_config (they connect to the server)."""
    probes: dict[str, dict[str, Any]] = {}
    for e in plan.engines:
        config = engine_configs.get(e)
        if config is None and engine_registry.get(e).server_family:
            config = {"unavailable": f"no server for {e} in this run: `harness run` starts one, or give --dsn"}
        for r in plan.runtimes:
            probes[f"{e}@{r}"] = probe(e, r, config=config, tmpdir=tmpdir)
    for i, c in enumerate(plan.cells):
        info = probes[f"{c.engine}@{c.runtime}"]
        if not info.get("available"):
            plan.unavailable[str(i)] = info.get("reason") or "unavailable"
    return probes
