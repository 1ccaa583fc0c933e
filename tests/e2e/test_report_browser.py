"""`report --html` writes one self-contained page that a real browser renders without errors."""
from __future__ import annotations

import re
import shutil

from browser import dump_dom, pixel_stats, screenshot
from conftest import harness


def test_report_renders_in_chromium(smoke_run, tmp_path):
    out = tmp_path / "report.html"
    harness("report", str(smoke_run), "--html", str(out), "--resamples", "500", timeout=600)
    page = out.read_text()
    # self-contained: nothing fetched from anywhere
    assert not re.search(r'(src|href)="(https?:|//|file:)', page)
    assert page.count('src="data:image/svg+xml;base64,') >= 3
    dom, console = dump_dom(out, tmp_path / "profile")
    assert console == [], console
    assert "<table" in dom and "bindings.select_fold" in dom
    assert re.search(r"\d(?: [a-zµ]+)? \[[\d.,]+, [\d.,]+\]", dom), "no interval printed as value [low, high]"
    for section in ("Warnings", "Protocol", "Runs", "Every cell", "Run sequences"):
        anchor = section.lower().replace(" ", "-")
        assert f'<h2 id="{anchor}">{section}</h2>' in dom and f'<a href="#{anchor}">{section}</a>' in dom
    assert 'id="noise"' in dom, "neither the noise warning nor the sentence saying there was none"
    assert not re.search(r"\d\.\d{6,}", re.sub(r'src="data:[^"]*"', "", dom)), "a number printed unrounded"
    png, console = screenshot(out, tmp_path / "report.png", tmp_path / "profile")
    assert console == [], console
    spread, inked = pixel_stats(png)
    assert spread > 20 and inked > 0.02, f"screenshot looks blank (grey sd {spread:.1f}, inked {inked:.3f})"
    keep = tmp_path.parent / "report-screenshot.png"  # left for a person to look at
    shutil.copy(png, keep)


def test_report_bad_input_is_one_line(tmp_path):
    missing = harness("report", str(tmp_path / "nope"), "--html", str(tmp_path / "r.html"), check=False)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert missing.stderr.strip().count("\n") == 0 and "no such run directory" in missing.stderr
