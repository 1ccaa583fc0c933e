"""The words and numbers that studies, the paper and the report share: one `mean [low, high]`
interval, one time format, one rate format, one rate unit and the noise warning's sentences.

An interval is always printed `mean [low, high]` (bootstrap intervals are not symmetric, so no ±);
what varies between tables is only how a number is written (`num`), where the unit goes and what
is printed when there is no mean or no interval. Times pick a unit (ns, µs, ms, s) in which the
mean, rounded, reads as 1 to 999, and never print exponent notation (`1.04 ms`, not `1.04e+03 µs`).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

from harness.analysis.textout import TIME_UNITS, finite

__all__ = ["sig", "plain", "fixed", "si_rate", "interval", "time_unit", "time_interval", "rate_unit",
           "rate_of", "noise_sentences"]


# ------------------------------------------------------------------------------------------
# Numbers
# ------------------------------------------------------------------------------------------

def sig(x: float, digits: int = 3) -> str:
    """`x` with `digits` significant digits and thousands commas, no exponent for everyday
    magnitudes (1e-3 to 1e9); `∞` and `—` for infinity and missing values."""
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return "∞" if isinstance(x, float) and math.isinf(x) and x > 0 else "—"
    if x == 0:
        return "0"
    if not 1e-3 <= abs(x) < 1e9:
        return f"{x:.{digits}g}"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def plain(x: float, digits: int = 3, trim: bool = False) -> str:
    """`x` rounded to `digits` significant digits, never in exponent notation and without commas
    (1.04, 76.2, 412, 1040, 0.000210); `trim` drops trailing zeros after the point as `g` does
    (71.0 -> 71, 0.950 -> 0.95); `?` when it is not a finite number."""
    if not finite(x):
        return "?"
    x = float(x)
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(float(f"{x:.{digits - 1}e}"))))  # the magnitude after rounding
    decimals = digits - 1 - mag
    text = f"{x:.{decimals}f}" if decimals >= 0 else f"{round(x, decimals):.0f}"  # 1145 -> 1140, as `g` rounds
    return text.rstrip("0").rstrip(".") if trim and "." in text else text


def fixed(decimals: int = 3) -> Callable[[float], str]:
    """A number format with `decimals` decimals; a positive number too small for them keeps
    `decimals` significant digits instead of reading as 0."""
    def num(x: float) -> str:
        text = f"{x:.{decimals}f}"
        return f"{x:.{decimals}g}" if x > 0 and float(text) == 0 else text
    return num


def si_rate(v: float) -> str:
    """A rate with three significant digits and an SI suffix, no space: `1.12M`, `835k`, `412`
    (999,999 rounds to `1M`, never to `1e+03k`); '' when it is not a finite number."""
    if not finite(v):
        return ""
    rounded = float(f"{v:.3g}")
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rounded >= scale:
            return f"{rounded / scale:.3g}{unit}"
    return f"{v:.3g}"


# ------------------------------------------------------------------------------------------
# Intervals
# ------------------------------------------------------------------------------------------

def interval(mean: float, low: float | None = math.nan, high: float | None = math.nan, *,
             num: Callable[[float], str] = sig, unit: str = "", unit_at: str = "mean", scale: float = 1.0,
             missing: str = "", no_ci: str = "") -> str:
    """`mean unit [low, high]`, every number written by `num` after dividing by `scale`.

    `unit_at` places the unit: `mean` (`8.49 ms [7.61, 9.55]`), `end` (`8.49 [7.61, 9.55] ms`)
    or `each` (`8.49ms [7.61ms, 9.55ms]`, the unit glued to every number). Without a finite mean
    the text is `missing`; without both bounds it is the mean with its unit followed by `no_ci`
    (such as ` (no CI)`)."""
    if not finite(mean):
        return missing
    glue = unit if unit_at == "each" else ""
    space = f" {unit}" if unit and unit_at != "each" else ""

    def n(x: float) -> str:
        return num(x / scale) + glue

    if not (finite(low) and finite(high)):
        return f"{n(mean)}{space}{no_ci}"
    bounds = f"[{n(low)}, {n(high)}]"
    if unit_at == "end":
        return f"{n(mean)} {bounds}{space}"
    return f"{n(mean)}{space} {bounds}"


def time_unit(seconds: float, digits: int = 3) -> tuple[float, str]:
    """(scale, unit) of ns, µs, ms, s in which `seconds`, rounded to `digits` significant
    digits, reads as 1 to 999 (999.6 µs is `1.00 ms`; below 1 ns stays in ns, above 999 s in s)."""
    if not finite(seconds) or seconds == 0:
        return 1.0, "s"
    a = abs(float(f"{float(seconds):.{digits - 1}e}"))
    return next(((f, u) for f, u in TIME_UNITS if a >= f), TIME_UNITS[-1])


def time_interval(mean: float, low: float | None = math.nan, high: float | None = math.nan, *,
                  digits: int = 3, trim: bool = False, unit_at: str = "mean", missing: str = "",
                  no_ci: str = "") -> str:
    """A time in seconds as `1.04 ms [0.981, 1.10]`: the unit from the mean (`time_unit`), the
    bounds in the same unit, `digits` significant digits (`trim`: without trailing zeros, as `plain`),
    no exponent notation."""
    if not finite(mean):
        return missing
    scale, unit = time_unit(mean, digits)
    return interval(mean, low, high, num=lambda x: plain(x, digits, trim), unit=unit, unit_at=unit_at, scale=scale,
                    no_ci=no_ci)


# ------------------------------------------------------------------------------------------
# Rates
# ------------------------------------------------------------------------------------------

#: queries are counted per query, every other rate per row; each rate has its own column so no
#: column mixes units (cycles_per_row is derived from rows_per_s alone)
RATE_COLUMNS = {"rows": ("rows_per_s", "rows/s"), "queries": ("queries_per_s", "queries/s")}


def rate_of(benchmark: str) -> tuple[str, str]:
    """(rate column, unit) of a benchmark: `queries_per_s`, `queries/s` for one-row point
    queries, else `rows_per_s`, `rows/s`."""
    from harness import workloads

    w = workloads.all_workloads().get(benchmark)
    return RATE_COLUMNS["queries" if getattr(w, "rows_param", None) == "queries" else "rows"]


def rate_unit(benchmark: str) -> str:
    """What a benchmark's rate counts: `rows/s` for scans, `queries/s` for one-row point queries."""
    return rate_of(benchmark)[1]


# ------------------------------------------------------------------------------------------
# The noise warning
# ------------------------------------------------------------------------------------------

def noise_sentences(n: int, timed: int, busy: Sequence[tuple[str, list[str]]], disturbed: bool) -> list[str]:
    """The reasons to distrust runs a little, one clause each (lower case, no final stop):
    `n` of `timed` processes disturbed (`disturbed`: interference measured per process, those
    processes left out) or noisy, and each (run id, doctor findings) that started on a busy
    machine. The paper's warning and the summary's notes are both made of these."""
    parts = []
    if n and disturbed:
        parts.append(f"{n} of {timed} processes were disturbed: other programs held the worker's CPU, the "
                     "hypervisor stole it, or the worker was preempted while it ran (their records' "
                     "`interference`); they are left out of every estimate here and were run again where the "
                     "cell's budget allowed")
    elif n:
        parts.append(f"{n} of {timed} processes ran while other programs kept the machine busier than the "
                     "noise threshold (their records' `noise`, the summary's column `noisy`): their times may be "
                     "inflated, and the intervals of their cells wider, than on a quiet machine")
    for run_id, found in busy:
        parts.append(f"run {run_id} started on a busy machine ({'; '.join(found)}), so every "
                     "absolute time in it may be slower than the machine can do; ratios within the run "
                     "are less affected, because cells were interleaved")
    return parts
