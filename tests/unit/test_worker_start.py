"""A Python worker starts without `site` and still finds the drivers `site` would have found."""
from __future__ import annotations

import json
import subprocess
import sys

from harness.fsutil import PROJECT_ROOT
from harness.run import runtimes
from harness.run.runtimes import RUNTIMES, worker_env


def test_the_worker_starts_without_site_and_imports_a_driver_from_site_packages():
    argv = RUNTIMES["cpython"].python_argv("--probe", "sqlite/apsw")
    assert argv[1] == "-S" and "harness.worker" in argv[3]
    p = subprocess.run(argv, capture_output=True, text=True, cwd=PROJECT_ROOT, env=worker_env(), timeout=60)
    assert p.returncode == 0, p.stderr
    answer = json.loads(p.stdout.strip().splitlines()[-1])
    assert answer["available"] is True, answer  # apsw lives in the venv's site-packages, not the stdlib


def test_site_dirs_are_what_site_adds_and_nothing_else(monkeypatch):
    monkeypatch.setattr(runtimes, "_SITE_DIRS", {})
    dirs = runtimes.site_dirs(sys.executable)
    assert dirs and all("site-packages" in d or "dist-packages" in d for d in dirs), dirs
    bare = json.loads(subprocess.run([sys.executable, "-S", "-c", "import sys, json; print(json.dumps(sys.path))"],
                                     capture_output=True, text=True, check=True).stdout)
    assert not set(dirs) & set(bare)


def test_an_interpreter_that_cannot_be_asked_starts_with_site(monkeypatch, tmp_path):
    monkeypatch.setattr(runtimes, "_SITE_DIRS", {})
    assert runtimes.site_dirs(str(tmp_path / "no-such-python")) is None
