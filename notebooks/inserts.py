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
# # E4: bulk inserts and journal modes (seed 003)
#
# N rows inserted into an empty table by five strategies (one INSERT per row in autocommit, all in one
# transaction, a prepared statement reused, multi-row VALUES, the engine's bulk path), on every engine in
# the runs; then SQLite's journal_mode x synchronous grid; then two SQLite versions side by side in
# benchstat's terms; then seed 003's headlines beside ours. Every number is computed from the raw timings
# by `harness.studies.inserts`; this notebook only shows them.

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

from harness.studies import inserts
from harness.studies.opening import open_runs

runs = open_runs(run_dirs, method=method, resamples=resamples)  # names the runs; warns when noisy
result = inserts.compute(runs, Path(figures_dir), baseline)
result.tables.get("scaling")

# %% [markdown]
# Time and inserts/s against N, one line per strategy and one panel per engine (log axes, as the seed's
# charts).

# %%
for name in ("time_vs_n", "inserts_per_s"):
    if result.figures.get(name) is not None:
        display(Image(filename=str(result.figures[name])))

# %% [markdown]
# The gain of a transaction and of a prepared statement, ratios of means with 99% intervals.

# %%
result.tables.get("gains")

# %% [markdown]
# SQLite's journal_mode x synchronous grid (inserts.prepared on a file database).

# %%
result.tables.get("grid")

# %%
if result.figures.get("journal_grid") is not None:
    display(Image(filename=str(result.figures["journal_grid"])))

# %% [markdown]
# Two SQLite versions: sqlite3 (the system's library) against apsw (its bundled one), in benchstat's terms.

# %%
print(result.text.get("versions", ""))

# %% [markdown]
# Seed 003's headlines (its numbers, quoted from its text) beside ours.

# %%
result.tables.get("seed")

# %%
print(result.text.get("storage", ""))

# %%
if paper_path:
    print("updated", paper_path, result.write_paper(paper_path))
