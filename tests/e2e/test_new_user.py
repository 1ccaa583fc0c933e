"""A new user's first hour, in a fresh clone: the README's first command gives an interval for every
cell, `make run` ends with the headline results and where the report is, and every image the
report links exists. (`make lab` is started and its explorer fetched by test_lab.py.)"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, last_line


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of this checkout (committed files only), sharing this checkout's venv (the
    README's `make setup` is what CI's own set-up ran) so the test does not reinstall it."""
    if not (ROOT / ".git").exists() or not shutil.which("git") or not shutil.which("make"):
        pytest.skip("needs git, make and a git checkout")
    dest = tmp_path_factory.mktemp("new-user") / "crossings"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "--quiet", "--detach",
                    subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                                   text=True, check=True).stdout.strip()], check=True)
    venv = Path(sys.executable).resolve().parent.parent
    (dest / ".venv").symlink_to(venv)
    stamp = venv / ".installed"
    if stamp.exists():  # make's set-up is up to date for this venv
        os.utime(stamp)
    return dest


def test_the_readme_first_command_gives_an_interval_for_every_cell(clone):
    readme = (clone / "README.md").read_text()
    first = next(line for line in readme.splitlines() if "harness run" in line and "--profile smoke" in line)
    args = first.split("harness", 1)[1].split()
    args = [a.strip("'") for a in args]
    out = subprocess.run([sys.executable, "-m", "harness", *args, "--out", str(clone / "data" / "runs"),
                          "--no-progress"], cwd=clone, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    run_dir = Path(last_line(out.stdout))
    summary = subprocess.run([sys.executable, "-m", "harness", "summary", str(run_dir), "--format", "csv"], cwd=clone,
                             capture_output=True, text=True, check=True).stdout
    import io

    import pandas as pd

    df = pd.read_csv(io.StringIO(summary))
    ok = df[df["status"] == "ok"]
    assert len(ok) and (ok["ci_low_s"] > 0).all() and (ok["ci_high_s"] >= ok["mean_s"]).all()


def test_make_run_ends_with_the_headline_and_the_report(clone):
    out = subprocess.run(["make", "run", f"PYTHON={sys.executable}"], cwd=clone, capture_output=True, text=True,
                         timeout=1500)
    assert out.returncode in (0, 1), out.stdout[-3000:] + out.stderr[-3000:]
    text = out.stdout
    assert "geometric mean of time / sqlite/sqlite3@cpython" in text and re.search(r"\d+(\.\d+)?x \[", text)
    assert "precision:" in text and "noise:" in text
    report = re.search(r"report:\s+(\S+)", text).group(1)
    paper = (clone / report) if not report.startswith("/") else Path(report)
    assert paper.exists()
    for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", paper.read_text()):
        assert (paper.parent / link).exists(), f"the report links {link}, which is missing"
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout
    assert status == "", f"make run changed tracked files:\n{status}"
