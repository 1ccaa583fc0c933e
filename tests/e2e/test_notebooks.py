"""Every notebook executes headless on a smoke run; a second execution changes nothing."""
from __future__ import annotations

import re
import shutil

from conftest import ROOT, harness
from harness import notebooks, paper


def test_notebooks_execute_and_are_idempotent(smoke_run, tmp_path):
    paper_copy = tmp_path / "paper.md"
    shutil.copy(ROOT / "paper.md", paper_copy)
    figs = tmp_path / "figures"
    args = ["notebooks", str(smoke_run), "--paper", str(paper_copy), "--figures", str(figs),
            "--executed", str(tmp_path / "executed")]
    proc = harness(*args, timeout=900)
    seconds = dict(re.findall(r"executing notebooks/(\w+)\.ipynb \.\.\..*?done in ([\d.]+) s", proc.stderr, re.S))
    assert float(seconds["course"]) < 180, f"the course must run in under 3 minutes: {seconds}"
    executed = sorted(p.stem for p in (tmp_path / "executed").glob("*.ipynb"))
    assert executed == notebooks.available()
    first = paper_copy.read_text()
    assert first != (ROOT / "paper.md").read_text()
    assert "bindings.select_fold" in first
    figure_bytes = {p.name: p.read_bytes() for p in figs.glob("*.*")}
    assert {"e1_rows_per_s.png", "e1_rows_per_s.svg"} <= set(figure_bytes)
    harness(*args, timeout=900)
    assert paper_copy.read_text() == first
    assert {p.name: p.read_bytes() for p in figs.glob("*.*")} == figure_bytes


def test_paper_blocks_replace_only_between_markers(tmp_path):
    p = tmp_path / "p.md"
    p.write_text("intro\n<!-- BEGIN generated:x -->\nold\n<!-- END generated:x -->\noutro\n")
    assert paper.update_section(p, "x", "new") is True
    assert p.read_text() == "intro\n<!-- BEGIN generated:x -->\nnew\n<!-- END generated:x -->\noutro\n"
    assert paper.update_section(p, "x", "new") is False
