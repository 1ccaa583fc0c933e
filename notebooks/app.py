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
# # E5: the application workload (seed 002, "AcidState vs. The World")
#
# The seed's four operations (insert a user, optionally with a scrypt password hash; list users; insert an
# item into a user; query a user) on its corpora SM, MD, LG and LG2, on every engine in the runs, each
# iteration's answer checked after the clock stops. Everything below is computed from the raw timings by
# `harness.studies.app`; this notebook only shows it.

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

from IPython.display import Image, Markdown, display

from harness.studies import app
from harness.studies.opening import open_runs

runs = open_runs(run_dirs, method=method, resamples=resamples)  # names the runs; warns when noisy
result = app.compute(runs, Path(figures_dir), baseline)
result.tables["e5"]

# %% [markdown]
# ## Time per operation, corpus and engine
#
# Markers: mean time per operation; bars: its 99% CI (log scale), measured corpora only. Insertions with the scrypt hash are in the
# table only (the hash, not the database, dominates them).

# %%
for fig in result.figures.values():  # one figure per group of at most six series
    display(Image(filename=str(fig)))

# %% [markdown]
# ## The seed's headline claims, tested
#
# Each claim is supported only when every interval it rests on is on its side of the line; "not testable
# here" says which cells would be needed (AcidState and the `-O` comparison come from the Haskell worker).

# %%
display(Markdown(result.text["claims"]))

# %%
print(result.text["ratios"])

# %%
if paper_path:
    print("updated", paper_path, result.write_paper(paper_path))
