"""The method's configuration constants, read from the code that uses them, for the paper's
Method section: the rules that call a process disturbed, the changepoint analysis that finds each
process's steady state, and the bootstrap. Nothing here is measured; every value is a constant
(or a default argument) of the module named beside it, so the paper cannot drift from the code."""
from __future__ import annotations

import inspect

from harness.analysis import interference as analysis_interference
from harness.analysis.stats import warmup
from harness.run import interference as run_interference


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _defaults(func) -> dict:
    return {k: p.default for k, p in inspect.signature(func).parameters.items()
            if p.default is not inspect.Parameter.empty}


def interference_constants() -> str:
    """Markdown: the three rules that call a process disturbed, and the wait for a quiet CPU."""
    r = run_interference
    return (
        f"- *others*: other programs used the worker's CPU for more than {_pct(r.OTHERS_SHARE)} of the "
        f"process's life and at least {r.OTHERS_MIN_S * 1000:.0f} ms (two ticks of `/proc/stat`);\n"
        f"- *steal*: the hypervisor's steal time on the worker's CPU exceeded {_pct(r.STEAL_SHARE)} of its life;\n"
        f"- *preempted*: more than {r.IVCSW_PER_S:.0f} involuntary context switches per second of the timed "
        f"loop, at least {r.IVCSW_MIN} in all, while others used at least {r.IVCSW_OTHERS_S * 1000:.0f} ms of "
        "the CPU.\n\n"
        "When the previous process was disturbed, or others used more than "
        f"{_pct(r.GAP_BUSY_SHARE)} of the worker's CPU in the gap since it ended, the runner samples the worker's "
        f"CPU over {r.QUIET_WINDOW_S * 1000:.0f} ms windows before the next process and starts it once others use "
        f"less than {_pct(r.QUIET_SHARE)} of a window, waiting at most {r.MAX_WAIT_S:.0f} s (and at most 10 times "
        f"that in a run); otherwise the next process starts at once. A cell keeps at least "
        f"{analysis_interference.MIN_CLEAN} clean processes: below "
        "that, its disturbed processes are kept and counted.")


def statistics_constants(resamples: int, confidence: float) -> str:
    """Markdown: the constants of steady-state detection and of the bootstrap."""
    w = _defaults(warmup.steady_state)
    steady = (
        f"Steady state (`harness/analysis/stats/warmup.py`): penalty {w['pen_scale']:g} log n per changepoint; "
        f"exact optimal partitioning up to {warmup.EXACT_MAX} iterations, above that the optimum over "
        f"{warmup.BLOCKS} blocks, refined; segments after the first shorter than max(3, 5% of n) are spikes; "
        f"neighbouring segments are one level when their medians differ by less than "
        f"max({_pct(w['rel_tol'])} of the median, {warmup.SE_TOL:g} standard errors of the difference); "
        f"the steady segment must cover at least {_pct(w['min_tail'])} of the iterations; drift is a rank "
        f"von Neumann z below {warmup.DRIFT_Z:g}, a trend a Spearman p below {warmup.TREND_P:g}; series "
        "shorter than 4 iterations are flat.")
    boot = (f"Bootstrap: B = {resamples:,} resamples of each cell's process means, {confidence:.0%} intervals, "
            "a fixed seed per cell, so that `make paper` reproduces every interval exactly.")
    return steady + "\n\n" + boot
