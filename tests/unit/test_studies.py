"""The paper path computes once: each study reads one RunSet, and every cell is bootstrapped once."""
from __future__ import annotations

import importlib

import pytest
from conftest import ROOT

from harness.analysis.runset import RunSet
from harness.studies import STUDIES, family_studies

REFERENCE = sorted(p for p in (ROOT / "data" / "reference").glob("*") if (p / "manifest.json").exists())


@pytest.mark.skipif(not REFERENCE, reason="no committed reference run")
def test_every_study_bootstraps_each_cell_once(tmp_path):
    runs = RunSet(REFERENCE, resamples=200, aa_twins=False)  # as the studies' notebooks read them
    # the studies of the main runs (history, h2 and haskell read runs of their own)
    modules = [importlib.import_module(f"harness.studies.{name}") for name in family_studies()]
    results = [m.compute(runs, tmp_path, "sqlite/sqlite3@cpython") for m in modules]
    assert runs.boot_counts, "nothing was bootstrapped"
    assert set(runs.boot_counts.values()) == {1}
    assert set(runs.boot_counts) == {k for k, s in runs.samples.items() if s.n}
    blocks = {name for r in results for name in r.blocks(tmp_path / "paper.md")}
    assert {"protocol", "e1-table", "e2-table", "e3-table"} <= blocks


@pytest.mark.skipif(not REFERENCE, reason="no committed reference run")
def test_a_cells_numbers_do_not_depend_on_which_cells_are_asked_first():
    one = RunSet(REFERENCE, resamples=200)
    two = RunSet(REFERENCE, resamples=200)
    key = sorted(one.samples)[-1]
    first = one.boots([key])[key].reps
    two.boots()
    assert (two.boots([key])[key].reps == first).all()


def test_every_study_has_a_notebook():
    assert all((ROOT / "notebooks" / f"{name}.py").exists() for name in STUDIES)
