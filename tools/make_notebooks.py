"""Write the committed notebooks from the cell sources below (run after editing them).

Notebooks are committed without outputs; this script is the single place their cells are
authored, so a review sees plain Python rather than JSON.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS: dict[str, list[tuple[str, str, list[str]]]] = {}


def md(text: str) -> tuple[str, str, list[str]]:
    return ("markdown", text.strip("\n"), [])


def code(text: str, tags: list[str] | None = None) -> tuple[str, str, list[str]]:
    return ("code", text.strip("\n"), tags or [])


PARAMS = code('''
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # run directories; empty: data/reference/ or else the newest run in data/runs/
paper_path = None        # paper.md to update (None: do not touch the paper)
figures_dir = "../figures"
method = "hierarchical"  # CI method: hierarchical | pooled-t | process-t
baseline = "sqlite/sqlite3@cpython"  # ENGINE or ENGINE@RUNTIME
resamples = 10000
''', ["parameters"])

SETUP = code('''
import os
from pathlib import Path
import pandas as pd
from harness import figures, paper, report, store
from harness.summary import summarize_runs

run_dirs = [Path(d) for d in run_dirs] or store.default_runs()
figures_dir = Path(figures_dir)
print("runs:", ", ".join(str(d) for d in run_dirs))
''')

NOTEBOOKS["bindings"] = [
    md('''
# E1: the bindings study (seed 000, "Benchmarking sqlite-simple")

`SELECT id FROM testdata` over N rows, consumed by the client and checked against N(N+1)/2, on every
engine, driver and runtime in the runs. Two variants: fold over the cursor, and materialise all rows
first. All numbers below are computed from the raw timings by `harness`; this notebook only shows them.
'''),
    PARAMS,
    SETUP,
    code('''
from harness import cpuclock
raw = store.load_runs(run_dirs)
summary = summarize_runs(run_dirs, method=method, resamples=resamples)
e1 = summary[summary["benchmark"].str.startswith("bindings.")]
clock = cpuclock.clock_of_run(run_dirs[0])
print(f"clock: {clock.get('hz')} Hz from {clock.get('source')}")
e1[["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s", "ci_high_s",
    "rows_per_s", "cycles_per_row", "status", "reason"]]
'''),
    md('''
## Native C vs bindings, and every engine and driver (seed 000's two charts)

Bars: rows/s = N / mean time per operation; error bars: the 99% CI of the mean, inverted.
The first chart keeps SQLite only, reached from C (the speed of light) and through each Python binding
and runtime; the second puts every engine, driver and runtime side by side.
'''),
    code('''
from IPython.display import Image, display
native_fig = figures.plot_native_vs_bindings(e1, figures_dir / "e1_native_vs_bindings.png", method=method)
fig_path = figures.plot_rows_per_s(e1, figures_dir / "e1_rows_per_s.png", method=method,
                                   title="E1, every engine, driver and runtime")
for f in (native_fig, fig_path):
    if f is not None:
        display(Image(filename=str(f)))
'''),
    code('''
table = figures.e1_table(e1)
gap = figures.cycles_gap(e1)
cycles_text = figures.cycles_paragraph(gap, clock)
print(cycles_text)
print(figures.socket_paragraph(e1))
table
'''),
    md('''
## Ratios against the baseline, with intervals

Per benchmark, each engine's time relative to the baseline engine (higher is slower), with the 99% CI
of the ratio (hierarchical bootstrap on both sides), and the geometric mean over the E1 benchmarks.
'''),
    code('''
ratio_table, ratio_md = report.family_table(raw, summary, "bindings.", baseline, method=method,
                                            resamples=resamples)
print(ratio_md)
'''),
    md('''
## Warm-up: run-sequence plots per process

Each line is one fresh process; the dashed line marks where changepoint analysis puts the start of its
steady state, and the legend gives its class (flat, warm-up, slowdown, no steady state), as krun's
papers show warm-up.
'''),
    code('''
seq_fig = figures.plot_run_sequences(raw, figures_dir / "e1_run_sequence.png", "bindings.select_fold")
if seq_fig is not None:
    display(Image(filename=str(seq_fig)))
'''),
    code('''
if paper_path:
    def rel(p):
        return os.path.relpath(p, Path(paper_path).resolve().parent)
    paper.update_section(paper_path, "protocol", report.protocol_text(run_dirs))
    caption = (f"Table: E1, time per operation and rows/s, mean with 99% CI ({method} method; "
               "rows/s bounds are N divided by the time bounds); cycles per row at the recorded clock.")
    paper.update_section(paper_path, "e1-table", figures.to_markdown(table) + "\\n\\n" + caption)
    figs = [f"![E1 rows/s per engine, driver and runtime, 99% CI ({method})]({rel(fig_path)})"]
    if native_fig is not None:
        figs.insert(0, f"![E1 native C vs bindings, rows/s, 99% CI ({method})]({rel(native_fig)})")
    paper.update_section(paper_path, "e1-figure", "\\n\\n".join(figs))
    paper.update_section(paper_path, "e1-cycles", cycles_text)
    paper.update_section(paper_path, "e1-socket", figures.socket_paragraph(e1))
    paper.update_section(paper_path, "e1-ratios", ratio_md)
    if seq_fig is not None:
        paper.update_section(paper_path, "e1-warmup", f"![E1 run-sequence plots per process]({rel(seq_fig)})")
    print("updated", paper_path)
'''),
]


NOTEBOOKS["tpch"] = [
    md('''
# E3: TPC-H (seed 001, SQPyte Figure 11)

The 22 TPC-H queries on every engine in the runs, each answer checked against the TPC-H answer set
for its scale factor. Layout of the SQPyte paper's Figure 11: per query, mean time ± half-width of the
99% CI per engine, then × ratio ± half-width against the baseline engine, and a geometric-mean row.
A query whose answer was wrong is kept out of the table and named below it.
'''),
    PARAMS,
    SETUP,
    code('''
raw = store.load_runs(run_dirs)
summary = summarize_runs(run_dirs, method=method, resamples=resamples)
table, table_md = report.family_table(raw, summary, "tpch.", baseline, method=method, resamples=resamples)
print(table_md)
'''),
    code('''
if paper_path:
    paper.update_section(paper_path, "e3-table", table_md)
    print("updated", paper_path)
'''),
]

NOTEBOOKS["micro"] = [
    md('''
# E2: boundary micro-benchmarks (seed 001, SQPyte Figures 15 and 16)

Six micro-benchmarks that push data across the language/database boundary. First the counted
crossings and values converted (Figure 15), beside the paper's counts at TPC-H SF 1; then times and
ratios against the baseline (Figure 16); then the paper's claim made measurable: how the ratio moves
with the number of crossings.
'''),
    PARAMS,
    SETUP,
    code('''
raw = store.load_runs(run_dirs)
summary = summarize_runs(run_dirs, method=method, resamples=resamples)
counts = figures.crossings_table(summary)
counts
'''),
    md('''
Our counts are per operation at the run's scale factor; the paper's are at SF 1, where lineitem has
6,001,215 rows, so row-driven counts scale with the scale factor. The per-row accounting is described
in `harness/workloads/micro.py`.
'''),
    code('''
table, table_md = report.family_table(raw, summary, "micro.", baseline, method=method, resamples=resamples)
print(table_md)
'''),
    code('''
fig_path = None
if table is not None:
    fig_path = figures.plot_ratio_vs_crossings(table, summary, figures_dir / "e2_ratio_vs_crossings.png", baseline)
    from IPython.display import Image
    display(Image(filename=str(fig_path)))
'''),
    code('''
if paper_path:
    paper.update_section(paper_path, "e2-crossings", figures.to_markdown(counts) +
                         "\\n\\nTable: crossings and values converted per operation, counted by instrumented replay; "
                         "the last two columns are the SQPyte paper's Figure 15 at SF 1.")
    paper.update_section(paper_path, "e2-table", table_md)
    if fig_path is not None:
        rel = os.path.relpath(fig_path, Path(paper_path).resolve().parent)
        paper.update_section(paper_path, "e2-figure", f"![E2: time relative to {baseline} against crossings]({rel})")
    print("updated", paper_path)
'''),
]


def build(name: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, src, tags in NOTEBOOKS[name]:
        cell = nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
        if tags:
            cell.metadata["tags"] = tags
        cell.pop("id", None)
        nb.cells.append(cell)
    nb.nbformat_minor = 4
    return nb


def main() -> int:
    for name in (sys.argv[1:] or NOTEBOOKS):
        nbformat.write(build(name), ROOT / "notebooks" / f"{name}.ipynb")
        print("wrote", ROOT / "notebooks" / f"{name}.ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
