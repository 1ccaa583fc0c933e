"""Shared fixtures: run the CLI as a user would, in a subprocess, on temporary run folders."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A shell started without job control (`bash .ci/run &`, nohup, some CI runners) runs its
# background commands with SIGINT ignored, and every child inherits that: the harness the tests
# start would never see the Ctrl-C the tests send. With a handler here, children start with the
# default disposition again (exec resets handlers, not ignores).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# the analysis cache (data/cache/series, data/cache/replicates) of tests goes to a temporary
# directory, never the checkout's; subprocesses inherit it
if "CROSSINGS_ANALYSIS_CACHE" not in os.environ:
    import tempfile

    os.environ["CROSSINGS_ANALYSIS_CACHE"] = tempfile.mkdtemp(prefix="crossings-test-cache-")


# runs made by the tests neither wait for a quiet CPU nor rerun disturbed processes (on a busy CI
# machine that would make process counts and run times depend on the load); the interference
# tests turn both back on for their own runs
os.environ.setdefault("CROSSINGS_RERUN", "0")
os.environ.setdefault("CROSSINGS_MAX_WAIT", "0")


def harness(*args: str, timeout: float = 600, check: bool = True, **kw) -> subprocess.CompletedProcess:
    """`python -m harness ARGS` in a fresh process; returns the completed process."""
    proc = subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, **kw)
    if check and proc.returncode != 0:
        raise AssertionError(f"harness {' '.join(args)} exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                             f"stderr:\n{proc.stderr}")
    return proc


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """One smoke run of the E1 study on the embedded engines, shared by tests that only read it."""
    out = tmp_path_factory.mktemp("runs")
    proc = harness("run", "--profile", "smoke", "--benchmarks", "bindings.*", "--engines", "sqlite/*,duckdb",
                   "--out", str(out), "--no-progress")
    run_dir = Path(last_line(proc.stdout))
    assert run_dir.is_dir()
    return run_dir


def require(env_var: str, reason: str) -> None:
    """Skip with `reason`, unless `env_var`=1 (CI sets it): then a missing component fails."""
    if os.environ.get(env_var) == "1":
        pytest.fail(f"{reason} (and {env_var}=1 forbids skipping)")
    pytest.skip(reason)


def record_matrix(layer: str, case: str, exit_status: int, message: str, rows_lost: int = 0,
                  leftovers: int = 0) -> None:
    """Append one row of the fault and bad-input matrix to $CROSSINGS_MATRIX (JSON lines), if set:
    the table in the robustness report is made from what the tests saw, not written by hand."""
    path = os.environ.get("CROSSINGS_MATRIX")
    if not path:
        return
    import json

    with open(path, "a") as f:
        f.write(json.dumps({"layer": layer, "case": case, "exit": exit_status, "message": message,
                            "rows_lost": rows_lost, "leftovers": leftovers}) + "\n")


def one_line_error(stderr: str) -> str:
    """The single `error: ...` line a user's mistake must produce (no traceback, nothing else)."""
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    return lines[0]
