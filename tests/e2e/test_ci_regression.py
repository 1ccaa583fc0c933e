"""The sample CI job (tools/ci_regression.sh): passes on unchanged code, fails on a real slowdown.

The job runs from a copy of the checkout (harness/ and tools/), as CI runs a fresh checkout of each
commit. The slowdown is a change to the code, as a regressing commit would make: the copy's
`selftest.sleep` is edited to sleep three times as long, so the cell (benchmark, params, engine,
runtime) stays the same and only its timings move. (A longer `seconds` parameter would make another
cell, which `compare` does not pair with the old one.)
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

# tiny: 5 processes per side is the fewest with which benchstat's test can reach p <= 0.05 at n=5+5
# with margin (n=4+4 is the minimum); 0.05 s sleeps stay far above the machine's timer noise
TINY = ("--profile smoke --processes 5 --iterations 3 --benchmarks selftest.sleep --engines sqlite/sqlite3 "
        "--param seconds=0.05")


def _checkout(tmp: Path) -> Path:
    co = tmp / "checkout"
    shutil.copytree(ROOT / "harness", co / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tools", co / "tools")
    return co


def _job(co: Path, history: Path, tmp: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHON=sys.executable, CROSSINGS_CI_RUN_ARGS=TINY, CROSSINGS_CI_THRESHOLD="25",
               TMPDIR=str(tmp))
    env.pop("PYTHONPATH", None)
    return subprocess.run(["sh", str(co / "tools" / "ci_regression.sh"), str(history)], cwd=co, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_ci_job_passes_twice_then_fails_on_a_slowdown(tmp_path):
    co = _checkout(tmp_path)
    history = tmp_path / "history"
    first = _job(co, history, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "first run of the history" in first.stderr
    good = (history / "LAST_GOOD").read_text().strip()
    second = _job(co, history, tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "no significant slowdown above 25%" in second.stderr
    assert "selftest.sleep" in second.stdout  # compare's table
    good2 = (history / "LAST_GOOD").read_text().strip()
    assert good2 != good
    # a "commit" that makes the operation three times slower
    workload = co / "harness" / "workloads" / "selftest.py"
    text = workload.read_text()
    assert "        time.sleep(state)\n" in text
    workload.write_text(text.replace("        time.sleep(state)\n", "        time.sleep(3 * state)\n", 1))
    third = _job(co, history, tmp_path)
    assert third.returncode == 1, third.stdout + third.stderr
    assert "regression over 25.0%: selftest.sleep [" in third.stderr and "] sqlite/sqlite3 +" in third.stderr
    assert (history / "LAST_GOOD").read_text().strip() == good2  # the slow run does not become the baseline
    runs = sorted(d for d in history.iterdir() if (d / "manifest.json").exists())
    assert len(runs) == 3  # ... but stays in the history
    # and the history command marks the step
    proc = subprocess.run([sys.executable, "-m", "harness", "history", str(history), "--resamples", "200",
                           "--format", "csv"], cwd=co, capture_output=True, text=True, timeout=600,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, check=False)
    assert proc.returncode == 0, proc.stderr
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert len(rows) == 3 and rows[0]["significant"] == "False"  # the first run has nothing before it
    # the unchanged commit: sleep()'s overshoot drifts a little between runs, and with per-process
    # means a drift of a few percent can test significant; what must not happen is a large change
    assert rows[1]["significant"] == "False" or abs(float(rows[1]["delta_pct"])) < 25, rows[1]
    assert rows[2]["significant"] == "True" and float(rows[2]["delta_pct"]) > 100, rows[2]
