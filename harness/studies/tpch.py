"""E3, TPC-H (seed 001, SQPyte Figure 11): the 22 queries per engine, ratios and their geometric mean.

`compute(runs, figures_dir, baseline)` returns the table and its paper block; the notebook
`notebooks/tpch.py` shows it.
"""
from __future__ import annotations

from pathlib import Path

from harness.analysis.runset import RunSet
from harness.studies import seed001_h2
from harness.studies.common import StudyResult, family_table

PREFIX = "tpch."


def compute(runs: RunSet, figures_dir: Path | str | None = None,
            baseline: str = "sqlite/sqlite3@cpython") -> StudyResult:
    table, table_md = family_table(runs, PREFIX, baseline)
    h2 = seed001_h2.comparison(table, PREFIX, baseline)
    return StudyResult(tables={"ratios": table}, text={"ratios": table_md, "h2_seed001": h2},
                       make_blocks=lambda paper_path: {"e3-table": table_md, "e3-h2-seed001": h2})
