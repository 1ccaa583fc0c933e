"""Every study has its notebook. (That each study reads one RunSet and bootstraps every cell once
is checked over the whole reference in tests/e2e/test_reference_data.py.)"""
from __future__ import annotations

from conftest import ROOT

from harness.studies import STUDIES


def test_every_study_has_a_notebook():
    assert all((ROOT / "notebooks" / f"{name}.py").exists() for name in STUDIES)
