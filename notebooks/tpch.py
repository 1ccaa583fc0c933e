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
# # E3: TPC-H (seed 001, SQPyte Figure 11)
#
# The 22 TPC-H queries on every engine in the runs, each answer checked against the TPC-H answer set
# for its scale factor. Layout of the SQPyte paper's Figure 11: per query, mean time [99% CI] per
# engine, then × ratio [99% CI] against the baseline engine, and a geometric-mean row.
# A query whose answer was wrong is kept out of the table and named below it. Computed by
# `harness.studies.tpch`.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # run directories; empty: data/reference/ or else the newest run in data/runs/
paper_path = None        # paper.md to update (None: do not touch the paper)
figures_dir = "../figures"
method = "process-bootstrap"  # CI method: process-bootstrap | process-t | pooled-t
baseline = "sqlite/sqlite3@cpython"  # ENGINE or ENGINE@RUNTIME
resamples = 10000

# %%
from pathlib import Path

from IPython.display import Markdown, display

from harness.studies import tpch
from harness.studies.opening import open_runs

runs = open_runs(run_dirs, method=method, resamples=resamples)  # names the runs; warns when noisy
result = tpch.compute(runs, Path(figures_dir), baseline)
print(result.text["ratios"])
display(Markdown(result.text["findings"]))

# %%
if paper_path:
    print("updated", paper_path, result.write_paper(paper_path))
