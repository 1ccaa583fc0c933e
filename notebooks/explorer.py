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
# # Explorer: any runs, any study, any baseline
#
# Pick runs (the reference, the newest, any), a study, engines, runtimes, a baseline and an interval
# method; the ratio table (every interval `[low, high]`), the ratio plot and the run sequences redraw.
# Loading runs and bootstrapping their cells happens once per (runs, method, steady state): the
# `Explorer` keeps every RunSet it built, so switching back and forth, or changing engines, runtimes,
# baseline or benchmark, redraws from memory; the plots are inline SVG (run sequences longer than 300
# iterations per process are thinned for display only, and say so in their title). Open this in JupyterLab (`make lab`). Run headless (as
# `harness notebooks` does, with `interactive = False`) it shows the same views without widgets; it
# never writes the paper.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # run directories; empty: data/reference/ or else the newest run in data/runs/
paper_path = None        # ignored: the explorer never writes the paper
figures_dir = "../figures"  # ignored: the explorer draws in the notebook only
method = "process-bootstrap"  # CI method: process-bootstrap | process-t | pooled-t
baseline = "sqlite/sqlite3@cpython"  # ENGINE@RUNTIME
study = "bindings"       # bindings | micro | tpch
resamples = 10000
interactive = True       # False when run headless (harness notebooks): the same views, without widgets

# %%
import time
from pathlib import Path

from IPython.display import Markdown, display

from harness import store
from harness.studies import explorer as exploring
from harness.studies import runfacts

explorer = exploring.Explorer(resamples=resamples)
dirs = [Path(d) for d in run_dirs] or store.default_runs()
t0 = time.perf_counter()
display(Markdown(runfacts.noise_block_of(dirs)))  # a warning when a run was noisy
if interactive:
    display(exploring.ui(explorer, dirs, study=study, baseline=baseline, method=method))
else:
    runs = explorer.runset(dirs, method)
    first = sorted(exploring.cells_of(runs, study)["benchmark"].unique())[:1]
    for view in exploring.views(explorer, runs, study, baseline, benchmark=first[0] if first else None):
        if view is not None:
            display(view)
print(f"first load: {time.perf_counter() - t0:.1f} s (bootstrap of every cell, once)")

# %% [markdown]
# The same views without widgets, e.g. for a script: `explorer.runset(dirs, method)` gives the cached
# RunSet, `explorer.ratios(runs, study, baseline)` the ratio table (a DataFrame with `ratio`,
# `ratio_ci_low`, `ratio_ci_high`), `exploring.views(explorer, runs, study, baseline, engines, runtimes,
# benchmark)` the table, the ratio plot and the run sequences.

# %%
runs = explorer.runset(dirs, method)
t0 = time.perf_counter()
table, note = explorer.ratios(runs, study, baseline)
print(f"ratio table from the cache: {time.perf_counter() - t0:.3f} s")
table if table is not None else print(note)
