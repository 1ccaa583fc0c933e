# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
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
# # E1 in Haskell (seed 000's own language)
#
# The Haskell bindings Debian packages (HDBC-sqlite3, persistent-sqlite's `Database.Sqlite`,
# HDBC-postgresql, postgresql-simple), built by the harness with `ghc -O2` (runtime `haskell`) and
# `-O0` (`haskell-O0`), beside native C and CPython's sqlite3 measured in the same run (E1's),
# interleaved, so the baselines are the processes that ran beside the Haskell ones. Computed by `harness.studies.haskell`, with seed
# 000's numbers quoted by `harness.studies.seed000`.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # the main runs (not used here: the Haskell study has its own runs, below)
haskell_dirs = []        # runs with Haskell E1 cells; empty: the committed E1 run in data/reference/
paper_path = None        # paper.md to update (None: do not touch the paper)
figures_dir = "../figures"
method = "process-bootstrap"  # CI method: process-bootstrap | process-t | pooled-t
baseline = "sqlite/sqlite3@cpython"  # ENGINE or ENGINE@RUNTIME
resamples = 10000

# %%
from pathlib import Path

from IPython.display import Markdown, display

from harness.studies import haskell
from harness.studies.opening import open_runs

runs = open_runs(haskell_dirs, haskell.default_runs, method=method, resamples=resamples, label="Haskell runs")
if runs is not None:
    result = haskell.compute(runs, Path(figures_dir), baseline)
    display(Markdown(result.text["e1"]))
    display(Markdown(result.text["seed000"]))
    display(result.tables["seed000"])

# %%
if paper_path and runs is not None:
    print("updated", paper_path, result.write_paper(paper_path))
