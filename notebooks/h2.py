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
# # H2 on the JVM (seed 001's third engine): E2 and E3
#
# `h2/jdbc` on runtime `jvm` (a Java worker running H2 embedded through JDBC) beside
# `sqlite/sqlite3` measured in the same runs (E2's and E3's), interleaved, so H2 is compared only
# with SQLite processes that ran beside it; seed 001's comparison is like for like, H2 over SQLite
# called from PyPy (the seed's SQLite column). Computed by `harness.studies.h2`, with seed 001's geometric means quoted by
# `harness.studies.seed001_h2`.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # the main runs (not used here: H2 has its own runs, below)
h2_dirs = []             # runs with H2 cells; empty: the committed E2 and E3 runs in data/reference/
steady_dirs = None       # the steady-state H2 run (study E3h); None: data/reference-h2/; []: none
diagnosis_dirs = None    # H2's q19 and q20 diagnosed (study E3d); None: data/reference-h2-diagnosis/; []: none
paper_path = None        # paper.md to update (None: do not touch the paper)
figures_dir = "../figures"
method = "process-bootstrap"  # CI method: process-bootstrap | process-t | pooled-t
baseline = "sqlite/sqlite3@cpython"  # ENGINE or ENGINE@RUNTIME
resamples = 10000

# %%
from pathlib import Path

from IPython.display import Markdown, display

from harness.studies import h2
from harness.studies.opening import open_runs

runs = open_runs(h2_dirs, h2.default_runs, method=method, resamples=resamples, label="H2 runs")
steady = (open_runs(steady_dirs or [], h2.steady_runs, method=method, resamples=resamples, label="steady-state H2 run")
          if steady_dirs is None or steady_dirs else None)
diagnosis = (open_runs(diagnosis_dirs or [], h2.diagnosis_runs, method=method, resamples=resamples,
                       label="H2 q19/q20 diagnosis run") if diagnosis_dirs is None or diagnosis_dirs else None)
if runs is not None:
    result = h2.compute(runs, Path(figures_dir), baseline, steady=steady, diagnosis=diagnosis)
    display(Markdown(result.blocks(paper_path or "paper.md")["h2-steady"]))
    display(Markdown(result.blocks(paper_path or "paper.md")["h2-diagnosis"]))
    for name in ("e3", "e2"):
        display(Markdown(result.blocks(paper_path or "paper.md")[f"{name}-h2-seed001"]))
        print(result.text[name])

# %%
if paper_path and runs is not None:
    print("updated", paper_path, result.write_paper(paper_path))
