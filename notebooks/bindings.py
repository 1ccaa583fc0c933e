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
# # E1: the bindings study (seed 000, "Benchmarking sqlite-simple")
#
# `SELECT id FROM testdata` over N rows, consumed by the client and checked against N(N+1)/2, on every
# engine, driver and runtime in the runs. Two variants: fold over the cursor, and materialise all rows
# first. All numbers below are computed from the raw timings by `harness.studies.bindings`; this
# notebook only shows them.

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

from IPython.display import Image, display

from harness.studies import bindings
from harness.studies.opening import open_runs

runs = open_runs(run_dirs, method=method, resamples=resamples)  # names the runs; warns when noisy
result = bindings.compute(runs, Path(figures_dir), baseline)
print(result.text["clock"])
result.tables["cells"][["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
                        "ci_high_s", "rows_per_s", "cycles_per_row", "status", "reason"]]

# %% [markdown]
# ## Native C vs bindings, and every engine and driver (seed 000's two charts)
#
# Bars: rows/s = N / mean time per operation; error bars: the 99% CI of the mean, inverted.
# The first chart keeps SQLite only, reached from C (the speed of light) and through each binding (Python,
# Haskell) and runtime; the second puts every engine, driver and runtime side by side.

# %%
for name in ("native_vs_bindings", "rows_per_s"):
    if result.figures[name] is not None:
        display(Image(filename=str(result.figures[name])))

# %%
print(result.text["cycles"])
print(result.text["socket"])
result.tables["e1"]

# %% [markdown]
# ## Ratios against the baseline, with intervals
#
# Per benchmark, each engine's time relative to the baseline engine (higher is slower), with the 99% CI
# of the ratio (bootstrap on both sides), and the geometric mean over the E1 benchmarks.

# %%
print(result.text["ratios"])

# %% [markdown]
# ## Warm-up: run-sequence plots per process
#
# Each line is one fresh process; the dashed line marks where changepoint analysis puts the start of its
# steady state, and the legend gives its class (flat, warm-up, slowdown, no steady state), as krun's
# papers show warm-up.

# %%
if result.figures["run_sequence"] is not None:
    display(Image(filename=str(result.figures["run_sequence"])))

# %%
if paper_path:
    print("updated", paper_path, result.write_paper(paper_path))
