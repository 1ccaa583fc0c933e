# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python (crossings)
#     language: python
#     name: crossings
# ---

# %% [markdown]
# # E2: boundary micro-benchmarks (seed 001, SQPyte Figures 15 and 16)
#
# Six micro-benchmarks that push data across the language/database boundary. First the counted
# crossings and values converted (Figure 15), beside the paper's counts at TPC-H SF 1; then times and
# ratios against the baseline (Figure 16); then the paper's claim made measurable: how the ratio moves
# with the number of crossings. Computed by `harness.studies.micro`.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # run directories; empty: data/reference/ or else the newest run in data/runs/
paper_path = None        # paper.md to update (None: do not touch the paper)
figures_dir = "../figures"
method = "process-bootstrap"  # CI method: process-bootstrap | process-t | pooled-t
baseline = "sqlite/sqlite3@cpython"  # ENGINE or ENGINE@RUNTIME
resamples = 10000
sweep_dirs = None        # study E2s (PyPy against CPython across scale factors); None: data/reference-e2s/; []: none

# %%
from pathlib import Path

from IPython.display import Image, Markdown, display

from harness.studies import micro, sweep
from harness.studies.opening import open_runs

runs = open_runs(run_dirs, method=method, resamples=resamples)  # names the runs; warns when noisy
steps = (open_runs(sweep_dirs or [], sweep.sweep_runs, method=method, resamples=resamples, label="E2s run")
         if sweep_dirs is None or sweep_dirs else None)
result = micro.compute(runs, Path(figures_dir), baseline, sweep=steps)
result.tables["crossings"]

# %% [markdown]
# Our counts are per operation at the run's scale factor; the paper's are at SF 1, where lineitem has
# 6,001,215 rows, so row-driven counts scale with the scale factor. The per-row accounting is described
# in `harness/workloads/micro.py`.

# %%
print(result.text["ratios"])

# %%
if result.figures["ratio_vs_crossings"] is not None:
    display(Image(filename=str(result.figures["ratio_vs_crossings"])))

# %% [markdown]
# ## Findings, and the claim "the speedup grows with crossings" tested
#
# A rank correlation (Spearman) between crossings and the speedup of PyPy over CPython on the same
# SQLite, with a bootstrap interval (processes resampled within each cell): supported only if the
# interval lies above 0.

# %%
display(Markdown(result.text["findings"]))
display(Markdown(result.text["claim"]))

# %% [markdown]
# ## Within a benchmark: study E2s
#
# The same four benchmarks at three scale factors, PyPy against CPython, long enough processes for the JIT's
# warm-up to be left out: does PyPy's speedup grow as one benchmark's crossings grow?

# %%
if result.figures.get("sweep") is not None:
    display(Image(filename=str(result.figures["sweep"])))
display(Markdown(result.blocks(paper_path or "paper.md")["e2s-sweep"]))

# %%
if paper_path:
    print("updated", paper_path, result.write_paper(paper_path))
