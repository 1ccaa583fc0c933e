"""`make lab` starts JupyterLab (as root or not) on the notebooks, with the project's kernel,
the paired .py files hidden, and serves the explorer notebook."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def lab(tmp_path):
    if not shutil.which("make"):
        pytest.skip("make not installed")
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    args = f"--no-browser --ip=127.0.0.1 --port={port} --ServerApp.port_retries=0 --IdentityProvider.token={token}"
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(["make", "-C", str(ROOT), "lab", f"PYTHON={sys.executable}", f"LAB_ARGS={args}"],
                            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if _get(f"{base}/api/status?token={token}")[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            assert proc.poll() is None, f"make lab exited {proc.returncode}:\n{(tmp_path / 'lab.log').read_text()}"
            assert time.monotonic() < deadline, f"JupyterLab did not answer:\n{(tmp_path / 'lab.log').read_text()}"
            time.sleep(0.5)
        yield base, token, tmp_path
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # make, and jupyter it started, in their own session
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def test_make_lab_serves_the_explorer_on_the_project_kernel(lab):
    base, token, tmp_path = lab
    status, body = _get(f"{base}/api/contents/explorer.ipynb?token={token}")
    assert status == 200
    nb = json.loads(body)["content"]
    assert nb["metadata"]["kernelspec"]["name"] == "crossings"
    assert any("explorer" in "".join(c["source"]) for c in nb["cells"])

    specs = json.loads(_get(f"{base}/api/kernelspecs?token={token}")[1])
    assert "crossings" in specs["kernelspecs"] and specs["default"] == "crossings"

    listing = json.loads(_get(f"{base}/api/contents?token={token}")[1])["content"]
    names = {item["name"] for item in listing}
    assert "explorer.ipynb" in names
    assert not [n for n in names if n.endswith(".py")], f"paired .py files shown: {sorted(names)}"

    status, page = _get(f"{base}/lab?token={token}")
    assert status == 200 and b"JupyterLab" in page

    from browser import screenshot_url

    if shutil.which("chromium") or shutil.which("chromium-browser"):  # the page as a person sees it
        png, _ = screenshot_url(f"{base}/lab/tree/explorer.ipynb?token={token}", tmp_path / "lab.png",
                                tmp_path / "profile", wait_ms=20000)
        shutil.copy(png, tmp_path.parent / "lab-screenshot.png")  # left for a person to look at
