"""The A/A check within a run: a cell measured twice under two names must not differ.

Why: an interval is only as honest as the protocol under it. A run made with `run --aa GLOBS`
measures the cells of those engines twice, the twin named by the parameter `aa=twin`,
interleaved with everything else. The ratio twin / cell has a true value of exactly 1, so its
interval must include 1 (at 99%, 1 pair in 100 may miss by chance); a run whose A/A pairs are
called different more often than that is measuring the machine, not the code.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from harness.analysis.runset import RunSet

AA_COLUMNS = ["benchmark", "params", "engine", "runtime", "ratio", "ratio_ci_low", "ratio_ci_high", "differs"]


def _without_aa(params: str) -> str:
    return ",".join(p for p in params.split(",") if p and not p.startswith("aa="))


def _pairs(runs: RunSet) -> list[tuple[tuple, tuple]]:
    """(twin key, its cell's key) for every twin whose cell the runs also hold."""
    samples = runs.samples
    out = []
    for key in samples:
        bench, params, engine, runtime = key
        if "aa=twin" in params.split(","):
            original = (bench, _without_aa(params), engine, runtime)
            if original in samples:
                out.append((key, original))
    return out


def aa_rows(runs: RunSet) -> pd.DataFrame:
    """Per twin cell: the ratio of its mean to its cell's, the interval (the default method's
    log-ratio interval at the run set's confidence) and whether the interval excludes 1."""
    from harness.analysis import stats

    pairs = _pairs(runs)
    boots = runs.boots([k for pair in pairs for k in pair])  # only the pairs' cells are bootstrapped
    rows = []
    for key, original in pairs:
        if key not in boots or original not in boots:
            continue
        bench, params, engine, runtime = key
        r, lo, hi = stats.combine_log_ratios([(boots[key], boots[original])], runs.confidence)
        differs = bool(math.isfinite(lo) and math.isfinite(hi) and not lo <= 1.0 <= hi)
        rows.append((bench, _without_aa(params), engine, runtime, r, lo, hi, differs))
    return pd.DataFrame(rows, columns=AA_COLUMNS)


FAMILY_COLUMNS = ["family", "pairs", "differs", "geomean", "low", "high", "detectable"]

#: the power at which `detectable_effect` states the smallest difference a check would find
POWER = 0.8


def detectable_effect(low: float, high: float, confidence: float, power: float = POWER) -> float:
    """The smallest true ratio difference (e.g. 0.12 = 12%) that a comparison with this interval
    would call different with probability `power`: on the log scale the interval is estimate ±
    z·se, so a true log-ratio of (z_conf + z_power)·se clears it that often (normal approximation).
    NaN when the interval is missing or not positive."""
    from scipy.stats import norm

    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or high <= low:
        return math.nan
    z = float(norm.ppf(0.5 + confidence / 2))
    se = (math.log(high) - math.log(low)) / (2 * z)
    return math.exp((z + float(norm.ppf(power))) * se) - 1


def aa_by_family(runs: RunSet) -> pd.DataFrame:
    """Per benchmark family (one study's run each): how many A/A pairs, how many were called
    different, and the geometric mean of twin / cell over the pairs with its interval (true value 1)."""
    from harness.analysis import stats

    pairs = _pairs(runs)
    boots = runs.boots([k for pair in pairs for k in pair])
    per: dict[str, list] = {}
    for key, original in pairs:
        if key in boots and original in boots:
            per.setdefault(key[0].split(".", 1)[0], []).append((boots[key], boots[original]))
    rows = []
    for family, bs in per.items():
        g, lo, hi = stats.combine_log_ratios(bs, runs.confidence)
        differs, detectable = 0, []
        for b in bs:
            _, l1, h1 = stats.combine_log_ratios([b], runs.confidence)
            differs += bool(math.isfinite(l1) and math.isfinite(h1) and not l1 <= 1.0 <= h1)
            detectable.append(detectable_effect(l1, h1, runs.confidence))
        finite = [d for d in detectable if math.isfinite(d)]
        # the median pair's: what one cell's A/A comparison could have seen
        rows.append((family, len(bs), differs, g, lo, hi, float(pd.Series(finite).median()) if finite else math.nan))
    return pd.DataFrame(rows, columns=FAMILY_COLUMNS)


def aa_text(df: pd.DataFrame, confidence: float) -> list[str]:
    """One line per A/A pair and a total: how often the run told a cell from itself."""
    if df.empty:
        return []
    lines = [f"A/A check: each twin's mean / its cell's mean [{confidence:.0%} CI] (true value 1)"]
    for r in df.itertuples(index=False):
        ci = f"[{r.ratio_ci_low:.3f}, {r.ratio_ci_high:.3f}]" if math.isfinite(r.ratio_ci_low) else "(no interval)"
        lines.append(f"  {r.benchmark} [{r.params}] {r.engine} {r.runtime}: {r.ratio:.3f} {ci}"
                     + ("  DIFFERS" if r.differs else ""))
    lines.append(f"  {int(df['differs'].sum())} of {len(df)} A/A pairs called different "
                 f"(expected by chance: {1 - confidence:.0%} of pairs)")
    return lines
