"""E1 in Haskell (seed 000's own language): the Haskell bindings beside native C and CPython's
sqlite3, and seed 000's published rows/s beside ours.

The Haskell cells are measured inside the E1 run, interleaved with native C and every Python
binding, so the comparisons are with baseline processes that ran beside them (never with cells of a
run made apart: pooling those once cut native C's rate to a fifth). The paper shows the Haskell
cells only in the E1 table (every E1 cell); this study's table of them beside native C and CPython's
sqlite3 is the notebook's, not repeated in the paper.
"""
from __future__ import annotations

from pathlib import Path

from harness.analysis.markdown import to_markdown
from harness.analysis.runset import RunSet, run_cells, runs_under, runtime_family
from harness.fsutil import PROJECT_ROOT
from harness.studies import runspread, seed000
from harness.studies.bindings import PREFIX, e1_table
from harness.studies.common import BASELINE, StudyResult

#: where `make paper` finds the run holding the Haskell E1 cells (and the notebook, when given none)
DEFAULT_DIR = PROJECT_ROOT / "data" / "reference"
#: the cells the Haskell table shows beside the Haskell ones
REFERENCE_CELLS = {("sqlite/native-c", "c"), ("sqlite/sqlite3", "cpython")}


def default_runs(folder: Path = DEFAULT_DIR) -> list[Path]:
    """The committed runs holding E1 cells on a Haskell runtime (the E1 run)."""
    return [d for d in runs_under(folder)
            if any(str(c[0]).startswith(PREFIX) and str(c[3]).startswith("haskell") for c in run_cells(d))]


def _shown(e1):
    """The Haskell cells, with native C and CPython's sqlite3 beside them."""
    fam = e1["runtime"].astype(str).map(runtime_family)
    return e1[[f.startswith("haskell") or (e, f) in REFERENCE_CELLS for e, f in zip(e1["engine"], fam)]]


def compute(runs: RunSet, figures_dir: Path | str | None = None,
            baseline: str = BASELINE) -> StudyResult:
    summary = runs.summary
    e1 = _shown(summary[summary["benchmark"].str.startswith(PREFIX)])
    table = e1_table(e1)
    seeds = seed000.seed_table(e1)
    paragraph = seed000.seed_paragraph(seeds)
    note = runspread.means_note(runs, "E1")  # ours are absolute rates: one run's intervals, said with how far a second moved
    block = "\n\n".join([to_markdown(seed000.markdown_table(seeds)), seed000.CAPTION + (f" {note}" if note else ""),
                          paragraph, seed000.WHY])
    cells = to_markdown(table) if not table.empty else "_No E1 cells in the Haskell runs._"
    return StudyResult(tables={"e1": table, "seed000": seed000.markdown_table(seeds)},
                       text={"seed000": paragraph, "e1": cells},
                       make_blocks=lambda paper_path: {"e1-seed000": block})
