"""A run's own report keeps what the run measured and drops the rest (studies/runreport.py)."""
from __future__ import annotations

from harness import paper, store
from harness.analysis import simdata
from harness.studies import runreport

TEMPLATE = """# The paper

*From data/reference/.*

## Abstract

The main findings:

<!-- BEGIN generated:abstract-e1 -->
committed E1 finding
<!-- END generated:abstract-e1 -->

<!-- BEGIN generated:noise -->
committed noise
<!-- END generated:noise -->

## 1. Introduction

Prose about the reference runs.

## 2. Method

<!-- BEGIN generated:protocol -->
committed protocol
<!-- END generated:protocol -->

## 3. E1

Intro to E1.

<!-- BEGIN generated:e1-table -->
committed table
<!-- END generated:e1-table -->

The cycles per row:

<!-- BEGIN generated:e1-cycles -->
committed cycles
<!-- END generated:e1-cycles -->

![a figure](figures/e1.png)

## 4. E2

<!-- BEGIN generated:e2-table -->
committed E2
<!-- END generated:e2-table -->

## How to reproduce

<!-- BEGIN generated:reproduce -->
committed
<!-- END generated:reproduce -->
"""


def test_unwritten_blocks_and_their_sections_are_dropped(tmp_path):
    df = simdata.simulate_run(benchmarks=1, engines=("e/a",), processes=3, iterations=4, seed=1)
    run = store.write_imported_run(tmp_path / "runs", df, {"machine": {}})
    (tmp_path / "report").mkdir()
    p = tmp_path / "report" / "paper.md"
    p.write_text(TEMPLATE)
    runreport.blank(p)
    assert "committed" not in p.read_text()
    paper.update_section(p, "e1-table", "| a |\n|---|\n| 1 |")  # what a notebook writes
    paper.update_section(p, "e1-cycles", "_No native C cell in these runs._")  # a placeholder
    dropped = runreport.finish(p, [run])
    text = p.read_text()
    assert dropped == ["figures/e1.png"] and "![a figure]" not in text
    assert text.startswith(f"# crossings report: run {run.name}")
    assert "committed" not in text and "_No native" not in text
    assert "The cycles per row:" not in text  # the sentence announcing a dropped block goes with it
    assert "## 3. E1" in text and "Intro to E1." in text and "| 1 |" in text
    assert "## 4. E2" not in text and "Introduction" not in text
    assert "## 2. Method" in text and f"Run `{run.name}`" in text  # protocol and reproduce from the run
    assert "python -m harness notebooks" in text
    assert runreport.missing_images(text, p.parent) == []


def test_placeholders():
    assert runreport.placeholder("") and runreport.placeholder("_No E1 cells in these runs._\n")
    assert runreport.placeholder("_no valid x cells_\n\nNo cell was excluded.")
    assert not runreport.placeholder("| a |\n|---|") and not runreport.placeholder("_Table_ below")


def test_a_runs_report_executes_only_the_notebooks_of_its_studies(tmp_path, capsys):
    from harness.commands.notebooks import own_notebooks

    df = simdata.simulate_run(benchmarks=1, engines=("e/a",), processes=2, iterations=3, seed=1)
    run = store.write_imported_run(tmp_path, df, {"machine": {}})  # benchmarks of no study's family
    names, extra = own_notebooks([run], None, history=False)
    assert "explorer" in names and not {"bindings", "micro", "tpch", "h2", "haskell", "history"} & set(names)
    assert extra == {}  # H2 and Haskell never read the committed runs for a run's report
    assert own_notebooks([run], ["bindings"], history=False)[0] == []
    assert "not executed" in capsys.readouterr().err


def test_no_native_vs_bindings_figure_without_a_native_cell(tmp_path):
    import pandas as pd

    from harness.analysis.figures.rates import plot_native_vs_bindings

    bindings_only = pd.DataFrame({"benchmark": ["bindings.select_fold"] * 2, "engine": ["sqlite/sqlite3", "sqlite/apsw"],
                                  "mean_s": [2e-4, 1.5e-4]})
    assert plot_native_vs_bindings(bindings_only, tmp_path / "f.png") is None
    assert not (tmp_path / "f.png").exists()
