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
# # Benchmarking methodology: a short course in live experiments
#
# Seven small experiments, each a second or two on a laptop, each followed by an exercise with its
# answer. Simulations have a known truth (`harness.analysis.simdata`); intervals and warm-up detection
# are the harness's own (`harness.analysis.stats`), so what you learn here is what the harness does.
# The experiments live in `harness.studies.course`; this notebook explains and shows. Numbers below
# are computed when you run it: on your machine they will differ a little, and the text says what to
# look for rather than quoting them. This notebook never writes the paper.

# %% tags=["parameters"]
# Parameters (the harness injects a cell after this one when it runs the notebook headless)
run_dirs = []            # real runs for the "real data" parts; empty: data/reference/ if present
paper_path = None        # ignored: the course never writes the paper
figures_dir = "../figures"  # ignored: the course draws in the notebook only
sets = 200               # simulated data sets per coverage cell (more: slower, tighter)

# %%
import time
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from harness import store
from harness.analysis import stats
from harness.analysis.figures.warmup import plot_run_sequence
from harness.studies import course, runfacts

started = time.perf_counter()
pd.set_option("display.precision", 3)
dirs = [Path(d) for d in run_dirs] or None  # None: the committed reference runs
raw = course.reference_raw(dirs)  # the raw iterations of the one benchmark plotted below
series = course.reference_series(dirs)  # every process's times, for the means of section 6
print("real data:", "none (simulations only)" if raw is None else
      f"{len(raw):,} timed iterations of {course.REAL_DATA}; {len(series.xs):,} processes in all")
if raw is not None:  # a warning when the real run was noisy
    display(Markdown(runfacts.noise_block_of([Path(d) for d in run_dirs] or store.default_runs())))

# %% [markdown]
# ## 1. The clock: resolution and overhead
#
# Every timing is the difference of two clock reads. The clock has a *resolution* (its smallest step)
# and an *overhead* (what one read costs); an operation much shorter than either cannot be timed one
# at a time. The harness times with `perf_counter_ns` (wall) and `process_time_ns` (CPU).

# %%
clocks = course.timer_experiment()
clocks

# %% [markdown]
# **Exercise 1.** With the median read-to-read time above as the overhead of one timing, how many
# operations of 50 ns must one timed iteration hold so that the overhead is at most 1% of what is
# measured?
#
# <details><summary>Answer</summary>
#
# k ≥ overhead / (1% × 50 ns); the cell below computes it from your clock. This is why the harness
# times whole queries (thousands of rows), never one row, and why `timeit` runs a statement in a loop.
# </details>

# %%
overhead = float(clocks.loc[clocks["clock"] == "perf_counter_ns", "median read-to-read (ns)"].iloc[0])
print(f"overhead {overhead:.0f} ns -> at least {course.batch_for_overhead(50, overhead)} operations per timed iteration")

# %% [markdown]
# ## 2. Warm-up and steady state
#
# A fresh process is often slower at first (JIT compilation on PyPy, caches, lazy loading). The
# harness finds where each process's steady state starts with changepoint analysis
# (`stats.steady_state`) and classes each process as flat, warm-up, slowdown or no steady state
# (Barrett et al. 2017). First on simulated data whose first 5 iterations are 3x slower:

# %%
sim = course.simulated_warmup()
display(stats.warmup_analysis(sim)[["process", "steady_start", "warmup"]])
display(plot_run_sequence(sim).figure)

# %% [markdown]
# How often does the detector get it right? 300 series with a 5-iteration warm-up and 300 flat ones
# (where any warm-up it reports is a false alarm):

# %%
course.detection_rates()

# %% [markdown]
# And on a real short run, timed now in this kernel (`SELECT id` over 20,000 rows of in-memory SQLite,
# folded in Python, 30 iterations). One process only: its class says nothing about other processes.

# %%
live = course.live_run()
print("steady state (start, class):", stats.steady_state(live["wall_ns"].to_numpy() / 1e9))
display(plot_run_sequence(live).figure)

# %% [markdown]
# In the stored runs (real data, when present), the classes per engine and runtime for E1's
# `select_fold`: PyPy's processes warm up (its JIT), which is why `--steady-state` exists.

# %%
course.warmup_classes(raw, "bindings.select_fold") if raw is not None else print("no stored runs")

# %% [markdown]
# **Exercise 2.** Why does the harness flag warm-up per *process* and never pool the iterations of
# all processes before detecting it?
#
# <details><summary>Answer</summary>
#
# Because warm-up happens in each process from its start: pooled, the slow first iterations of five
# processes are mixed with the steady iterations of the others and no changepoint remains. And
# processes differ in level (next section), which a pooled series would show as spurious changes.
# </details>

# %% [markdown]
# ## 3. Between- and within-process variance
#
# Some things are fixed for the life of a process: address-space layout, where the heap lands, which
# core it runs on, JIT decisions. They make whole processes faster or slower, so the iterations of one
# process are not independent samples of the cell. In the stored runs, the native C processes of E1
# fall into two clusters:

# %%
course.process_means(raw, "bindings.select_fold", "sqlite/native-c") if raw is not None else print("no stored runs")

# %% [markdown]
# Simulated, with between-process sd 5% and within-process sd 1%: how precise is a cell's mean for
# different numbers of processes P and iterations I?

# %%
course.precision_by_design()

# %% [markdown]
# **Exercise 3.** You can afford 500 timed iterations. Is 5 x 100 or 50 x 10 the better design here?
#
# <details><summary>Answer</summary>
#
# 50 x 10: the between-process term shrinks only with P (b²/P), the within term with P·I. At 5
# processes the estimate cannot get better than b/√5 however many iterations each process runs. This is
# why the harness runs fresh processes, and why P (not I) is the number that matters.
# </details>

# %% [markdown]
# ## 4. Do the intervals cover? Pooled-t against process-level intervals
#
# A 99% confidence interval should contain the true mean in 99% of experiments. Simulate many
# experiments whose truth is known and count. `pooled-t` treats all P x I iterations as independent
# (the SQPyte paper's interval); `process-t` is a t interval over the P process means;
# `process-bootstrap` is the harness's default (process means resampled, t quantile with P-1
# degrees of freedom, on the log scale so its bounds stay positive).

# %%
cov = course.coverage(sets=sets)
cov

# %% [markdown]
# **Exercise 4.** Why does pooled-t get *worse* going from 5 x 10 to 5 x 50?
#
# <details><summary>Answer</summary>
#
# Its width shrinks like 1/√(P·I) as if every iteration were independent, but the error of the mean is
# dominated by the between-process term, which does not shrink with I. More iterations make it more
# confident, not more right. The process-level intervals keep their width and their coverage.
# </details>

# %% [markdown]
# ## 5. Interleaved vs blocked order under drift
#
# Machines drift: thermal throttling, a background job, a filling disk. Two engines with the *same* true
# time, measured while the machine slows down by 10% over the run: run all of A's processes, then all
# of B's (blocked), or all processes in one random order (interleaved, what the harness's plan does).

# %%
course.drift_experiment()

# %% [markdown]
# **Exercise 5.** Blocked order reports a difference that does not exist. Why does interleaving
# remove the bias rather than just widen the interval?
#
# <details><summary>Answer</summary>
#
# With a random order each engine's processes are spread over the whole run, so the drift hits both
# alike on average (it becomes noise shared by both sides); blocked, the drift is confounded with the
# engine. Randomising the order is what turns a systematic error into a random one.
# </details>

# %% [markdown]
# ## 6. Arithmetic vs geometric mean of ratios
#
# Over several benchmarks, how much slower is B than A? Averaging the ratios arithmetically gives an
# answer that depends on which engine is the baseline (Fleming & Wallace 1986). Two constructed cases:

# %%
display(course.mean_of_ratios([1, 10], [10, 1]))
display(course.mean_of_ratios([2, 10, 5], [8, 2, 5]))

# %% [markdown]
# And on the stored E3 (TPC-H) means, SQLite against DuckDB, each as the baseline:

# %%
if series is not None:
    a, b, names = course.cell_means(series, "tpch.", "sqlite/sqlite3", "duckdb")
    display(course.mean_of_ratios(a, b) if len(names) else "no TPC-H cells on both engines")

# %% [markdown]
# **Exercise 6.** In the first case the arithmetic mean says each engine is 5x slower than the other.
# What property of the geometric mean prevents this?
#
# <details><summary>Answer</summary>
#
# gm(1/r) = 1/gm(r): swapping the baseline inverts the geometric mean, so the verdict cannot flip. The
# arithmetic mean of reciprocals is not the reciprocal of the arithmetic mean (AM(r)·AM(1/r) ≥ 1, with
# equality only when all ratios are equal). The harness reports the geometric mean of ratios.
# </details>

# %% [markdown]
# ## 7. Why ± misleads for skewed intervals
#
# A ratio's bootstrap interval is computed on the log scale and is not symmetric around the estimate.
# Written as `value ± half-width` it claims a different interval than the one computed:

# %%
course.skewed_interval()

# %% [markdown]
# **Exercise 7.** Which end does `±` get wrong here, and in which direction would a reader be misled?
#
# <details><summary>Answer</summary>
#
# Both: `±` moves the low end below the computed one (claiming a faster best case than the data
# support) and the high end below the computed high (hiding how slow it may be). Intervals are
# therefore printed as `value [low, high]`.
# </details>

# %%
print(f"the whole course ran in {time.perf_counter() - started:.1f} s")
