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
# # E7: history across runs (after seed 003's nightly JRuby benchmarks tracked in Codespeed)
#
# Seed 003 ran Ruby benchmarks nightly on JRuby's newest commit and sent each result (commit, date, mean,
# standard deviation) to Codespeed, whose timeline view shows regressions. Here each run of the same
# cells is a point on a timeline in commit order, with its own interval, and a change from the previous
# run is marked only when `compare`'s test (benchstat's Mann-Whitney U on per-process means) finds it
# significant. All numbers are computed by `harness.studies.history`; this notebook only shows them.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # the main runs (not used here: a history needs its own runs, below)
history_dirs = []        # runs or folders of runs; empty: the committed runs in data/reference-history/
paper_path = None        # paper.md to update (None: do not touch the paper)
figures_dir = "../figures"
method = "process-bootstrap"  # CI method: process-bootstrap | process-t | pooled-t
benchmarks = None        # GLOB[,GLOB] or None for all
engines = None           # GLOB[,GLOB] or None for all
alpha = 0.05             # significance level of a change between consecutive runs
resamples = 10000

# %%
from pathlib import Path

from IPython.display import Image, display

from harness.studies import history

dirs = [Path(d) for d in history_dirs] or history.default_runs()
print("history runs:", ", ".join(str(d) for d in dirs))
result = history.compute(dirs, Path(figures_dir), benchmarks, engines, method=method, resamples=resamples, alpha=alpha)
print(result.text["findings"])
result.tables["runs"]

# %% [markdown]
# ## The timeline, per cell
#
# Each point is one run's mean with its 99% CI (from that run alone, as computed, so not symmetric);
# runs are placed in the order of their commits' dates. A triangle marks a change from the previous
# run that is significant at `alpha`: up for slower, down for faster, with the change of the median.

# %%
if result.figures["timeline"] is not None:
    display(Image(filename=str(result.figures["timeline"])))
result.tables["shown"]

# %%
if paper_path:
    print("updated", paper_path, result.write_paper(paper_path))
