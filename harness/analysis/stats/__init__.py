"""Statistics on raw timings: cell summaries, ratios, geometric means, benchstat-style comparison.

Everything here is a pure function of pandas DataFrames / numpy arrays of raw timings (the long
format: one row per iteration). Bootstrap resamples are drawn as whole numpy arrays, never in a
Python loop over resamples. Cells are reduced on a thread pool; each cell has its own generator
derived from the seed and its key (cell_seed), so results are bit-identical whatever the number
of threads (THREADS / CROSSINGS_STATS_THREADS).

What is estimated. A cell's number is an estimate of *the mean of a fresh process's steady
state on this machine*: the expected per-iteration time of a newly started process once its
warm-up is over. The unit of replication is the process (its address-space layout, JIT
decisions, CPU placement are fixed for its lifetime), so the estimate is the mean of the
processes' means and every interval resamples processes, never iterations within them.

Steady state by default. Each process's iterations before its detected steady state (see
`warmup.steady_state`: changepoints, then the classes flat / warm-up / slowdown / no steady
state) are left out; a process with no steady state keeps all of its iterations and is counted
(`no_steady`). `steady_state=False` (the CLI's `--all-iterations`) keeps every iteration. The
other choice is always computed too (alt_* columns), and `disagree` says where either estimate
lies outside the other's interval.

Confidence intervals (``method``):

``process-bootstrap`` (default)
    Resample the P process means with replacement; take the variance of the log of the
    replicates, times P/(P-1) (the bootstrap's plug-in variance is too small by (P-1)/P), as the
    variance of log(estimate); the interval is exp(log estimate -+ t * sd) with the t quantile of
    the effective degrees of freedom (`intervals.effective_df`: P - 1 when every process has as
    many iterations, fewer, down to 1, when uneven counts make a few noisy process means dominate;
    Satterthwaite, Kish's effective sample size in the large-P limit). On the log scale because
    times, rows/s, ratios and geometric means are positive and right-skewed: the bounds are
    always > 0, and the interval is asymmetric (printed `value [low, high]`, never +-). With
    equal counts this is the process-level t interval computed on the log scale.

``process-t``
    The textbook t interval over per-process means (P-1 df), on the linear scale; withheld
    (with a note) when its lower bound would be <= 0.

``pooled-t``
    The t interval over all iterations pooled (n-1 degrees of freedom): what the SQPyte paper
    reports; kept for reproducing published tables, not recommended (it ignores
    between-process variance and undercovers badly). Withheld like process-t when <= 0.

Too few processes. A cell with fewer than 3 processes gets no interval (between-process
variance cannot be estimated; with 2 the 99% t quantile is 63.7), and its `note` says how many
are needed; ratios and geometric means that involve such a cell get none either.

Ratios and geometric means. log(ratio) = log(num) - log(den) and log(geomean) = the mean of K
log ratios are linear in the cells' log estimates, which are independent, so their variance is
the sum of the cells' (squared coefficients times) log variances, with Welch-Satterthwaite
degrees of freedom; the interval is t on the log scale (bounds > 0).

Comparison (`compare`) follows benchstat exactly: medians with the order-statistic CI, and the
two-sided Mann-Whitney U test with its exact null distribution (with ties) up to 50 values per
side (25 with ties), the normal approximation beyond, `~` only when p > alpha, and a warning
when the samples are too small for any difference to reach alpha.
"""
from __future__ import annotations

from harness.analysis.stats.cells import (RATIO_COLUMNS, SUMMARY_COLUMNS, cell_samples, disagree, is_baseline,
                                         parse_baseline, ratio_rows, ratio_summary, split_cells, summarize_cells,
                                         summary_rows)
from harness.analysis.stats.compare import (COMPARE_COLUMNS, compare_cells, compare_runs, compare_samples,
                                           mann_whitney_p, median_ci, pct_range, quantile_ci_orders)
from harness.analysis.stats.intervals import (CellBoot, boot_cells, cell_boot, cell_interval, combine_log_ratios,
                                             effective_df, geomean_ratio_ci, log_interval, mean_ci, pairs_note,
                                             ratio_ci, t_interval, too_few_note)
from harness.analysis.stats.resample import (CELL_KEYS, METHODS, CellSample, bootstrap_means, cell_seed,
                                            uniform_indices)
from harness.analysis.stats.warmup import (WARMUP_CLASSES, changepoints, changepoints_batch, flag_outliers,
                                          steady_state, steady_states, warmup_analysis)

__all__ = ["CELL_KEYS", "COMPARE_COLUMNS", "METHODS", "RATIO_COLUMNS", "SUMMARY_COLUMNS", "WARMUP_CLASSES", "CellBoot",
           "CellSample", "boot_cells", "cell_interval", "disagree", "effective_df", "log_interval",
           "pairs_note", "split_cells", "too_few_note", "bootstrap_means", "cell_boot", "cell_samples", "cell_seed", "changepoints",
           "changepoints_batch", "combine_log_ratios", "compare_cells", "compare_runs", "compare_samples", "flag_outliers",
           "geomean_ratio_ci", "is_baseline", "mann_whitney_p", "mean_ci", "median_ci", "parse_baseline", "pct_range",
           "quantile_ci_orders", "ratio_ci", "ratio_rows", "ratio_summary", "summary_rows", "steady_state", "steady_states", "summarize_cells",
           "t_interval", "uniform_indices", "warmup_analysis"]
