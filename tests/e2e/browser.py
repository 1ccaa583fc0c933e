"""Open a page in headless Chromium (Debian's `chromium`): its DOM, its console messages, a screenshot.

Console messages (errors, failed loads, uncaught exceptions) reach stderr as `:CONSOLE:` lines
with `--enable-logging=stderr --v=0`; a page that renders cleanly produces none.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import require

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-extensions", "--enable-logging=stderr", "--v=0"]


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        require("CROSSINGS_REQUIRE_BROWSER", "chromium not installed (Debian: apt-get install chromium)")
    return exe


def _run(args: list[str], profile: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, HOME=str(profile))
    return subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                          text=True, timeout=180, env=env)


def console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def dump_dom(page: Path, profile: Path) -> tuple[str, list[str]]:
    """(the DOM after load, the console messages)."""
    proc = _run(["--dump-dom", page.resolve().as_uri()], profile)
    return proc.stdout, console_lines(proc.stderr)


def screenshot(page: Path, out: Path, profile: Path, size: str = "1280,2400") -> tuple[Path, list[str]]:
    """(the PNG written, the console messages)."""
    proc = _run([f"--screenshot={out}", f"--window-size={size}", page.resolve().as_uri()], profile)
    assert out.exists(), f"chromium wrote no screenshot:\n{proc.stderr[-2000:]}"
    return out, console_lines(proc.stderr)


def pixel_stats(png: Path) -> tuple[float, float]:
    """(standard deviation of grey levels, fraction of pixels that are not near-white)."""
    import numpy as np
    from PIL import Image

    grey = np.asarray(Image.open(png).convert("L"), dtype=float)
    return float(grey.std()), float((grey < 200).mean())


def screenshot_url(url: str, out: Path, profile: Path, size: str = "1280,800",
                   wait_ms: int = 15000) -> tuple[Path, list[str]]:
    """A screenshot of a page served over HTTP, after `wait_ms` of virtual time for its scripts
    (JupyterLab builds its page in JavaScript after load)."""
    proc = _run([f"--screenshot={out}", f"--window-size={size}", f"--virtual-time-budget={wait_ms}", url], profile)
    assert out.exists(), f"chromium wrote no screenshot:\n{proc.stderr[-2000:]}"
    return out, console_lines(proc.stderr)
