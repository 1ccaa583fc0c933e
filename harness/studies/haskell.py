"""E1 in Haskell (seed 000's own language): the Haskell bindings beside native C and CPython's
sqlite3, and seed 000's published rows/s beside ours.

These runs live apart from the main reference (`data/reference-haskell/`): their C and CPython
cells have the same keys as the main runs' E1 cells but were measured at another time, under other
load, and pooling them would mix two machines' states into one estimate (it once cut native C's
rate to a fifth). So this study reads its own runs, and its comparisons are with the baseline
processes that ran interleaved with the Haskell ones.
"""
from __future__ import annotations

from pathlib import Path

from harness import store
from harness.analysis.markdown import to_markdown
from harness.analysis.runset import RunSet
from harness.fsutil import PROJECT_ROOT
from harness.studies import seed000
from harness.studies.bindings import PREFIX, e1_table
from harness.studies.common import StudyResult

#: where `make paper` finds the Haskell runs (and the notebook, when given none)
DEFAULT_DIR = PROJECT_ROOT / "data" / "reference-haskell"


def default_runs() -> list[Path]:
    """The committed Haskell runs: every run directory under data/reference-haskell/."""
    return store.runs_under(DEFAULT_DIR)


def compute(runs: RunSet, figures_dir: Path | str | None = None,
            baseline: str = "sqlite/sqlite3@cpython") -> StudyResult:
    summary = runs.summary
    e1 = summary[summary["benchmark"].str.startswith(PREFIX)]
    table = e1_table(e1)
    seeds = seed000.seed_table(e1)
    paragraph = seed000.seed_paragraph(seeds)
    block = "\n\n".join([to_markdown(seed000.markdown_table(seeds)), seed000.CAPTION, paragraph, seed000.WHY])
    cells = to_markdown(table) if not table.empty else "_No E1 cells in the Haskell runs._"
    return StudyResult(tables={"e1": table, "seed000": seed000.markdown_table(seeds)},
                       text={"seed000": paragraph, "e1": cells},
                       make_blocks=lambda paper_path: {"e1-seed000": block, "e1-haskell-table": cells})
