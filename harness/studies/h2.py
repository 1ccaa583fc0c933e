"""H2 on the JVM (seed 001's third engine): E2 and E3 on `h2/jdbc` beside the SQLite baseline
measured in the same runs.

These runs live apart from the main reference (`data/reference-h2/`): their baseline cells
(`sqlite/sqlite3` on CPython at the same parameters as the main runs' cells) were measured at
another time, under other load, and pooling them with the main runs' cells would mix two
machines' states into one estimate. So this study reads its own runs, and its ratios compare
H2 with the SQLite processes that ran interleaved with it.
"""
from __future__ import annotations

from pathlib import Path

from harness import store
from harness.analysis.runset import RunSet
from harness.fsutil import PROJECT_ROOT
from harness.studies import seed001_h2
from harness.studies.common import StudyResult, family_table

#: where `make paper` finds the H2 runs (and the notebook, when given none)
DEFAULT_DIR = PROJECT_ROOT / "data" / "reference-h2"


def default_runs() -> list[Path]:
    """The committed H2 runs: every run directory under data/reference-h2/."""
    return store.runs_under(DEFAULT_DIR)


def compute(runs: RunSet, figures_dir: Path | str | None = None,
            baseline: str = "sqlite/sqlite3@cpython") -> StudyResult:
    tables, text, blocks = {}, {}, {}
    for prefix, name in (("micro.", "e2"), ("tpch.", "e3")):
        table, table_md = family_table(runs, prefix, baseline)
        tables[name] = table
        text[name] = table_md
        blocks[f"{name}-h2-table"] = table_md
        blocks[f"{name}-h2-seed001"] = seed001_h2.comparison(table, prefix, baseline)
    return StudyResult(tables=tables, text=text, make_blocks=lambda paper_path: blocks)
