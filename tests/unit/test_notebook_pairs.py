"""Every notebook is a jupytext pair: `notebooks/<name>.py` (percent format) and `<name>.ipynb`."""
from __future__ import annotations

import jupytext

from harness import notebooks


def test_pairs_are_in_step():
    assert notebooks.out_of_step() == [], "run `make notebooks-sync` (jupytext --sync notebooks/*.py)"


def test_every_notebook_opens_on_the_project_kernel():
    """`make lab` registers the kernel `crossings`; a notebook naming another opens on the wrong Python."""
    for path in sorted(notebooks.NOTEBOOK_DIR.glob("*.ipynb")) + sorted(notebooks.NOTEBOOK_DIR.glob("*.py")):
        assert jupytext.read(path).metadata.get("kernelspec", {}).get("name") == "crossings", path.name


def test_a_pair_out_of_step_is_reported(tmp_path, monkeypatch):
    src = notebooks.NOTEBOOK_DIR / "tpch.py"
    (tmp_path / "tpch.py").write_text(src.read_text())
    nb = jupytext.read(src)
    nb.cells[-1].source += "\nprint('edited in JupyterLab only')"
    jupytext.write(nb, tmp_path / "tpch.ipynb")
    monkeypatch.setattr(notebooks, "NOTEBOOK_DIR", tmp_path)
    assert notebooks.out_of_step() == ["tpch"]


def test_notebooks_hold_a_parameters_cell_and_call_into_studies():
    for name in notebooks.available():
        nb = jupytext.read(notebooks.NOTEBOOK_DIR / f"{name}.py")
        tags = [c.metadata.get("tags", []) for c in nb.cells]
        assert ["parameters"] in tags, name
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert f"from harness.studies import {name}" in code, name


def test_explorer_and_course_never_write_the_paper():
    for name in ("explorer", "course"):
        code = "\n".join(c.source for c in jupytext.read(notebooks.NOTEBOOK_DIR / f"{name}.py").cells
                         if c.cell_type == "code")
        assert "write_paper" not in code and "update_section" not in code, name


def test_the_notebooks_slowest_last_time_start_first(tmp_path):
    """Executed copies record each cell's start and end; the scheduler starts the slowest first,
    and notebooks never executed (no copy, or an unreadable one) before all."""
    import json

    def copy(name: str, seconds: list[float]) -> None:
        cells = [{"cell_type": "code", "metadata": {"execution": {
            "iopub.execute_input": "2026-01-01T00:00:00.000000Z",
            "shell.execute_reply": f"2026-01-01T00:00:{s:09.6f}Z"}}} for s in seconds]
        (tmp_path / f"{name}.ipynb").write_text(json.dumps({"cells": cells}))

    copy("fast", [0.5, 0.25])
    copy("slow", [3.0, 4.5])
    copy("middle", [2.0])
    (tmp_path / "broken.ipynb").write_text("{not json")
    assert notebooks.previous_seconds(tmp_path / "slow.ipynb") == 7.5
    assert notebooks.previous_seconds(tmp_path / "broken.ipynb") is None
    order = notebooks.longest_first(["fast", "middle", "new", "slow", "broken"], tmp_path)
    assert order == ["new", "broken", "slow", "middle", "fast"]
