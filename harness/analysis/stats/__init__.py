"""Statistics on raw timings: cell summaries, ratios, geometric means, benchstat-style comparison.

Everything here is a pure function of pandas DataFrames / numpy arrays of raw timings (the long
format: one row per iteration). Bootstrap resamples are drawn as whole numpy arrays
(resamples x processes x iterations), never in a Python loop over resamples; the only Python
loops are over cells (tens to hundreds), processes and cache-sized chunks of resamples. Cells
are bootstrapped on a thread pool (numpy releases the GIL in the heavy steps); each cell has its
own generator derived from the seed and its key (cell_seed), so results are bit-identical
whatever the number of threads (THREADS / CROSSINGS_STATS_THREADS).

Confidence intervals of the mean (``method``):

``hierarchical`` (default)
    Kalibera & Jones (2013): each bootstrap replicate resamples the processes of a cell with
    replacement, then the iterations within each resampled process with replacement, and takes
    the mean of all resampled iterations. Between-process variation (address-space layout, JIT
    decisions, CPU placement: everything that is fixed for one process) is what a pooled
    interval misses, and is usually the largest term.

    Why the interval is *expanded*: with the 5 processes of the SQPyte protocol a plain
    percentile interval of that bootstrap distribution undercovers badly. Its spread is that of
    the plug-in variance, which is too small by the factor (P-1)/P (sd by sqrt((P-1)/P)), and it
    uses normal-like tail quantiles where the uncertainty of a variance estimated from P=5 values
    calls for Student's t with P-1 = 4 degrees of freedom (t_0.995,4 = 4.60 against z = 2.58).
    We therefore keep the bootstrap's shape (its quantiles, so skew is respected) but stretch
    its deviations from the estimate by

        c = sqrt(P / (P - 1)) * t_{1-a/2, P-1} / z_{1-a/2}

    (an "expanded percentile" interval in the spirit of Hesterberg 2015, calibrated with the
    t quantile so that it reduces to the exact process-level t interval when process means are
    normal; c -> 1 as P grows). Resampling iterations inside processes counts the within-process
    variance a second time, so when there is no between-process variance the interval is
    conservative, never liberal. On simulated data with strong between-process variance (5 x 50,
    400 data sets) it covers the true mean in ~99% of data sets, where pooled-t covers in
    well under half (see tests/unit/test_stats_coverage.py for the measured numbers).
    A cell with a single process cannot show between-process variance: it falls back to
    resampling its iterations (and says so by having processes == 1).

``pooled-t``
    The t interval over all iterations pooled (n-1 degrees of freedom): what the SQPyte paper
    reports; kept for reproducing published tables, not recommended.

``process-t``
    The t interval over per-process means (P-1 degrees of freedom), centred on their mean.

Ratios and geometric means always use a bootstrap (each cell resampled independently, with
the scheme matching ``method``: two-level for hierarchical, pooled iterations for pooled-t,
process means for process-t), taken on the log scale and expanded the same way, with the
expansion factor and degrees of freedom combined over the contributing cells by
Welch-Satterthwaite. A geometric-mean replicate resamples every benchmark on both sides.
"""
from __future__ import annotations

from harness.analysis.stats.cells import (RATIO_COLUMNS, SUMMARY_COLUMNS, cell_samples, is_baseline,
                                         parse_baseline, ratio_rows, ratio_summary, summarize_cells,
                                         summary_rows)
from harness.analysis.stats.compare import (COMPARE_COLUMNS, compare_runs, compare_samples, mann_whitney_p, median_ci,
                                           pct_range, quantile_ci_orders)
from harness.analysis.stats.intervals import (CellBoot, boot_cells, cell_boot, combine_log_ratios, geomean_ratio_ci,
                                             mean_ci, ratio_ci, t_interval)
from harness.analysis.stats.resample import (CELL_KEYS, METHODS, CellSample, bootstrap_means, cell_seed,
                                            uniform_indices)
from harness.analysis.stats.warmup import (WARMUP_CLASSES, changepoints, changepoints_batch, flag_outliers,
                                          steady_state, steady_states, warmup_analysis)

__all__ = ["CELL_KEYS", "COMPARE_COLUMNS", "METHODS", "RATIO_COLUMNS", "SUMMARY_COLUMNS", "WARMUP_CLASSES", "CellBoot",
           "CellSample", "boot_cells", "bootstrap_means", "cell_boot", "cell_samples", "cell_seed", "changepoints",
           "changepoints_batch", "combine_log_ratios", "compare_runs", "compare_samples", "flag_outliers",
           "geomean_ratio_ci", "is_baseline", "mann_whitney_p", "mean_ci", "median_ci", "parse_baseline", "pct_range",
           "quantile_ci_orders", "ratio_ci", "ratio_rows", "ratio_summary", "summary_rows", "steady_state", "steady_states", "summarize_cells",
           "t_interval", "uniform_indices", "warmup_analysis"]
