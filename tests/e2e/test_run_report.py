"""`harness notebooks RUN` writes RUN/report/paper.md about that run only: what it measured, no
study it did not measure, nothing from the committed data, and every image it links exists."""
from __future__ import annotations

import re

from conftest import harness


def test_a_runs_report_shows_that_run(smoke_run):
    harness("notebooks", str(smoke_run), timeout=900)
    report = smoke_run / "report" / "paper.md"
    text = report.read_text()
    run_id = smoke_run.name
    assert text.startswith(f"# crossings report: run {run_id}")
    assert "**E1 (bindings)**: 9 cells" in text  # the abstract says what was measured
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert any(h.startswith("3. E1") for h in headings), headings
    for absent in ("E2", "E3", "E4", "E5", "E6", "E7", "H2", "Threats", "Conclusion"):  # not measured, or
        assert not any(absent in h for h in headings), (absent, headings)     # about the reference runs
    assert not re.search(r"^_[Nn]o .*_$", text, re.M), "a placeholder left in"
    assert not re.search(r"data/reference(-\w+)?/\d", text), "a committed run named in a run's report"
    # every block about the runs names this run, and no other
    assert set(re.findall(r"Run `([\w-]+)`", text)) == {run_id}
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links, "no figure linked"
    missing = [link for link in links if not (report.parent / link).is_file()]
    assert not missing, missing
    # no native C cell in the smoke run: no "native C vs bindings" figure
    assert "native_vs_bindings" not in text
    assert "[nan" not in text
