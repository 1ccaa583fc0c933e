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
# # E6: point queries, RamSQL vs SQLite in Go (seed 004, "Benchmarking RamSQL")
#
# The seed's Go benchmarks (select, select over 10K rows, insert 10, set-up) on RamSQL and on SQLite
# (through the seed's pure-Go glebarez/go-sqlite, and through cgo with mattn/go-sqlite3), faithful and fixed where the seed's code
# measures something else than its name says (`harness/run/go/bench.go` says what and why). Two ways in:
# runtime `go` speaking the worker protocol, and `go test -bench` sessions imported as runs
# (`python -m harness gobench`). All numbers are computed by `harness.studies.ramsql`; this notebook
# only shows them.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # run directories; empty: data/reference/ or else the newest run in data/runs/
paper_path = None        # paper.md to update (None: do not touch the paper)
figures_dir = "../figures"
method = "process-bootstrap"  # CI method: process-bootstrap | process-t | pooled-t
baseline = "sqlite/glebarez"  # the engine RamSQL is compared with (the seed's SQLite driver)
resamples = 10000

# %%
from pathlib import Path

from IPython.display import Image, Markdown, display

from harness.studies import ramsql
from harness.studies.opening import open_runs

runs = open_runs(run_dirs, method=method, resamples=resamples)  # names the runs; warns when noisy
result = ramsql.compute(runs, Path(figures_dir), baseline)
print(result.text["findings"])

# %% [markdown]
# ## Per operation: the worker protocol beside `go test -bench`
#
# Worker: one timed iteration is `ops` operations, divided by `ops`; 99% CI of the mean of fresh processes.
# go test: each result line (ns/op of one `b.N` loop) is one sample; the two sessions are the seed's
# `bench.txt` and `newbench.txt`. "overlap" says whether the two intervals share any value.

# %%
print(result.text["agreement"])
ramsql.side_table(result.tables["per_op"]) if len(result.tables["per_op"]) else "no E6 cells"

# %%
if result.figures["per_op"] is not None:
    display(Image(filename=str(result.figures["per_op"])))

# %% [markdown]
# ## RamSQL against SQLite, and the seed's numbers beside ours

# %%
print(result.text["ratios"])
display(Markdown(ramsql.seed_markdown(result.tables["seed"])))

# %% [markdown]
# ## The seed's benchstat table, remade
#
# The seed compared two commits with benchstat; we have one RamSQL version, so the two `go test` sessions
# run the same code (an A/A comparison). Our `compare` and real benchstat read the same raw lines.

# %%
display(Markdown(result.text["benchstat"]))

# %%
if paper_path:
    print("updated", paper_path, result.write_paper(paper_path))
