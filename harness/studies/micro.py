"""E2, the boundary micro-benchmarks (seed 001, SQPyte Figures 15 and 16): crossings and ratios.

`compute(runs, figures_dir, baseline)` draws the figure and returns the tables and paper blocks;
the notebook `notebooks/micro.py` shows them.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.analysis.figures.crossings import plot_ratio_vs_crossings
from harness.analysis.markdown import to_markdown
from harness.analysis.runset import RunSet
from harness.studies import seed001_h2
from harness.studies.common import StudyResult, family_table, figure_link

PREFIX = "micro."
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"


def compute(runs: RunSet, figures_dir: Path | str, baseline: str = "sqlite/sqlite3@cpython") -> StudyResult:
    figures_dir = Path(figures_dir)
    summary = runs.summary
    counts = crossings_table(summary)
    table, table_md = family_table(runs, PREFIX, baseline)
    h2 = seed001_h2.comparison(table, PREFIX, baseline)
    fig = None
    if table is not None:
        fig = plot_ratio_vs_crossings(table, summary, figures_dir / "e2_ratio_vs_crossings.png", baseline)

    def blocks(paper_path: Path) -> dict[str, str]:
        out = {"e2-crossings": to_markdown(counts) +
               "\n\nTable: crossings and values converted per operation, counted by instrumented replay; "
               "the last two columns are the SQPyte paper's Figure 15 at SF 1.",
               "e2-table": table_md, "e2-h2-seed001": h2}
        if fig is not None:
            out["e2-figure"] = figure_link(f"E2: time relative to {baseline} against crossings", fig, paper_path)
        return out

    return StudyResult(tables={"crossings": counts, "ratios": table}, text={"ratios": table_md, "h2_seed001": h2},
                       figures={"ratio_vs_crossings": fig}, make_blocks=blocks)


def sqpyte_figure15() -> pd.DataFrame:
    """The SQPyte paper's published counts at TPC-H SF 1 (cited reference data, seed 001)."""
    return pd.read_csv(REFERENCE_DIR / "sqpyte_figure15.csv")


def crossings_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Counted crossings and values converted per micro-benchmark and engine, beside the paper's."""
    df = summary[summary["benchmark"].str.startswith("micro.") & summary["crossings"].notna()]
    if df.empty:
        return pd.DataFrame()
    counts = (df.groupby(["benchmark", "params", "engine"], sort=True)[["crossings", "values_converted"]]
              .max().reset_index())
    counts["benchmark_short"] = counts["benchmark"].str.replace("micro.", "", regex=False)
    paper = sqpyte_figure15().rename(columns={"crossings": "paper_crossings_sf1",
                                              "values_converted": "paper_values_sf1"})
    out = counts.merge(paper, left_on="benchmark_short", right_on="benchmark", how="left", suffixes=("", "_p"))
    cols = ["benchmark", "params", "engine", "crossings", "values_converted", "paper_crossings_sf1", "paper_values_sf1"]
    out = out[cols].copy()
    for c in cols[3:]:
        out[c] = out[c].astype("Int64").astype(object).where(out[c].notna(), "")
    return out
