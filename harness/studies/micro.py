"""E2, the boundary micro-benchmarks (seed 001, SQPyte Figures 15 and 16): crossings and ratios.

`compute(runs, figures_dir, baseline)` draws the figure and returns the tables and paper blocks;
the notebook `notebooks/micro.py` shows them.
"""
from __future__ import annotations

import math

from pathlib import Path

import pandas as pd

from harness.analysis import wording
from harness.analysis.figures.crossings import plot_ratio_vs_crossings, plot_sweep
from harness.analysis.markdown import to_markdown
from harness.analysis.runset import RunSet
from harness.studies import findings, runspread, seeds
from harness.studies import sweep as e2s
from harness.studies.common import BASELINE, StudyResult, family_table, figure_link, left_out_sentence

PREFIX = "micro."
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"


def compute(runs: RunSet, figures_dir: Path | str, baseline: str = BASELINE, sweep: RunSet | None = None) -> StudyResult:
    """E2's tables, figures and paper blocks; `sweep`: study E2s's run (PyPy against CPython across scale factors,
    widened here by E2's run-to-run spread when `runs` are the campaign's), or None."""
    figures_dir = Path(figures_dir)
    if sweep is not None:
        sweep = runspread.borrowed_spread(sweep, runs, "E2")
    sweep_fig = (plot_sweep(e2s.figure_rows(sweep), figures_dir / "e2s_sweep.png",
                            f"{sweep.confidence:.0%} CI ({sweep.method}{findings.spread_words(sweep, ', ')})")
                 if sweep is not None else None)
    summary = runs.summary
    counts = crossings_table(summary)
    table, table_md = family_table(runs, PREFIX, baseline)
    fig, r = None, None
    if table is not None:
        r = claim_result(runs)
        rho = ("" if r is None else f"Spearman's rho, crossings vs the speedup of {FAST} over {SLOW}: "
               f"{r.rho:.2f} (exact permutation p = {spearman_p(r.rho, r.points):.2f})")
        fig = plot_ratio_vs_crossings(table, summary, figures_dir / "e2_ratio_vs_crossings.png", baseline, rho,
                                      findings.spread_of(runs))

    claim = claim_text(runs)
    found = findings_text(runs)

    def blocks(paper_path: Path) -> dict[str, str]:
        out = {"e2-crossings": to_markdown(counts) +
               "\n\nTable: crossings and values converted per operation, counted by instrumented replay, one row per "
               "benchmark and count (engines that counted the same share a row; \"all N\" is every engine of the "
               "table); the last two columns are the SQPyte paper's Figure 15 on its TPC-H data "
               "(1.5 GiB, 8.7 million rows, which we read as about SF 1).",
               "e2-table": table_md, "e2-claim": claim, "e2-findings": found,
               "e2-left-out": left_out_sentence(summary, PREFIX) or "No cell was left out of this run.",
               "abstract-e2": abstract(runspread.with_spread(runs), claim_result(runs)),
               "seed-001": seeds.seed_table(runs, "001"),
               "e2s-sweep": e2s.sentence(sweep),
               "e2s-table": e2s.table_markdown(sweep, e2s.run_note(sweep) if sweep is not None else "")}
        if sweep_fig is not None:
            out["e2s-figure"] = figure_link("E2s: PyPy / CPython on sqlite3 against crossings as each benchmark's data "
                                            f"grow: {e2s.figure_takeaway(sweep)}", sweep_fig, paper_path)
        if fig is not None:
            out["e2-figure"] = figure_link(f"E2: time relative to {findings.plain_name(baseline)} against crossings, one point per "
                                           "benchmark and "
                                           f"engine, both axes log scale, error bars {runs.confidence:.0%} CI ({runs.method} method"
                                           + findings.spread_words(runs, ", ") + ")"
                                           + figure_takeaway(r), fig, paper_path)
        return out

    return StudyResult(tables={"crossings": counts, "ratios": table},
                       text={"ratios": table_md, "claim": claim, "findings": found},
                       figures={"ratio_vs_crossings": fig, "sweep": sweep_fig}, make_blocks=blocks)


def sqpyte_figure15() -> pd.DataFrame:
    """The SQPyte paper's published counts at TPC-H SF 1 (cited reference data, seed 001)."""
    return pd.read_csv(REFERENCE_DIR / "sqpyte_figure15.csv")


def crossings_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Counted crossings and values converted per micro-benchmark and engine, beside the paper's."""
    df = summary[summary["benchmark"].str.startswith("micro.") & summary["crossings"].notna()]
    if df.empty:
        return pd.DataFrame()
    counts = (df.groupby(["benchmark", "params", "engine"], sort=True)[["crossings", "values_converted"]]
              .max().reset_index())
    counts["benchmark_short"] = counts["benchmark"].str.replace("micro.", "", regex=False)
    paper = sqpyte_figure15().rename(columns={"crossings": "paper_crossings_sf1",
                                              "values_converted": "paper_values_sf1"})
    out = counts.merge(paper, left_on="benchmark_short", right_on="benchmark", how="left", suffixes=("", "_p"))
    cols = ["benchmark", "params", "engine", "crossings", "values_converted", "paper_crossings_sf1", "paper_values_sf1"]
    out = out[cols].copy()
    for c in cols[3:]:
        out[c] = out[c].astype("Int64").astype(object).where(out[c].notna(), "")
    # one row per benchmark and count: engines that counted the same are named together
    every = sorted(set(out["engine"]))
    rows = []
    for key, g in out.groupby([c for c in cols if c != "engine"], sort=True, dropna=False):
        names = sorted(g["engine"])
        rows.append({**dict(zip([c for c in cols if c != "engine"], key)),
                     "engines": f"all {len(names)}" if names == every else ", ".join(names)})
    return pd.DataFrame(rows, columns=["benchmark", "params", "engines", *cols[3:]])


FAST, SLOW = "sqlite/sqlite3@pypy", BASELINE


def claim_points(runs: RunSet, fast: str = FAST, slow: str = SLOW) -> list[tuple[str, float, tuple, tuple]]:
    """(benchmark, crossings, slow cell, fast cell) of every micro-benchmark measured on both sides."""
    s = runs.summary
    out = []
    for bench in sorted({k[0] for k in runs.samples if k[0].startswith(PREFIX)}):
        a, b = findings.cells(runs, bench, slow), findings.cells(runs, bench, fast)
        for params in sorted(set(a) & set(b)):
            row = s[(s["benchmark"] == bench) & (s["params"] == params) & s["crossings"].notna()]
            if len(row):
                out.append((bench, float(row["crossings"].max()), a[params], b[params]))
    return out


def claim_result(runs: RunSet, fast: str = FAST, slow: str = SLOW):
    """Spearman's rho between crossings and the speedup time(slow) / time(fast), with its bootstrap
    interval (processes resampled within each cell), or None with fewer than 3 benchmarks."""
    from harness.analysis.stats.rankcorr import rank_correlation

    pts = claim_points(runs, fast, slow)
    if len(pts) < 3:
        return None
    return rank_correlation([p[1] for p in pts], [runs.samples[p[2]] for p in pts],
                            [runs.samples[p[3]] for p in pts], runs.confidence, runs.resamples, runs.seed)


#: counts closer than this (relative) are an order no claim about crossings can rest on: treated as tied
NEAR_TIE = 0.01


def near_ties(counts: list[float], rel: float = NEAR_TIE) -> list[list[int]]:
    """Groups (indices, by count) of two or more counts within `rel` of their group's smallest: equal
    counts, which Spearman's rho already ranks by their average rank, and counts a hair apart."""
    order = sorted(range(len(counts)), key=lambda i: counts[i])
    groups, cur = [], order[:1]
    for i in order[1:]:
        if counts[i] - counts[cur[0]] <= rel * abs(counts[cur[0]]):
            cur.append(i)
        else:
            groups.append(cur)
            cur = [i]
    groups.append(cur)
    return [g for g in groups if len(g) > 1]


def tie_note(runs: RunSet, r, fast: str = FAST, slow: str = SLOW) -> str:
    """How ties in crossings are ranked, and, where two benchmarks' counts are a hair apart, rho with
    them counted as tied (average ranks) and its exact p."""
    from harness.analysis.stats.rankcorr import rank_correlation

    pts = claim_points(runs, fast, slow)
    counts = [p[1] for p in pts]
    text = "Equal crossings share their average rank."
    groups = near_ties(counts)
    if r is None or not groups:
        return text
    merged = list(counts)
    for g in groups:
        for i in g:
            merged[i] = sum(counts[j] for j in g) / len(g)
    t = rank_correlation(merged, [runs.samples[p[2]] for p in pts], [runs.samples[p[3]] for p in pts],
                         runs.confidence, runs.resamples, runs.seed)
    names = "; ".join(" and ".join(f"{pts[i][0]} ({counts[i]:,.0f})" for i in g) for g in groups)
    apart = max((max(counts[i] for i in g) - min(counts[i] for i in g)) / min(counts[i] for i in g) for g in groups)
    p = spearman_p(t.rho, len(pts))
    return (text + f" {names} are {apart:.3%} apart; counted as tied (average ranks), rho is {t.rho:.2f}"
            + (f" (exact p = {p:.2f})." if math.isfinite(p) else "."))


def figure_takeaway(r, fast: str = FAST, slow: str = SLOW) -> str:
    """The E2 figure's point: whether the speedup of `fast` over `slow` shows a trend with crossings ("" without
    an interval). A direction is said only when the exact permutation test over the benchmarks could reject no
    trend at that rho (`spearman_critical`): the bootstrap interval resamples timings with the benchmarks' order
    by crossings held fixed, so an interval away from 0 over a handful of benchmarks is these runs' ordering,
    not a trend."""
    if r is None or r.verdict == "undecided":
        return ""
    crit = spearman_critical(r.points, 1 - r.confidence) if getattr(r, "points", 0) else math.nan
    shown = f"Spearman's rho {r.rho:.2f} [{r.low:.2f}, {r.high:.2f}], {r.confidence:.0%}"
    name = f"the speedup of {findings.plain_name(fast)} over {findings.plain_name(slow)}"
    if r.verdict in ("supported", "contradicted") and math.isfinite(crit) and abs(r.rho) >= crit:
        side = "rises" if r.verdict == "supported" else "falls"
        return f"; {name} {side} with crossings ({shown}; the exact test over {r.points} benchmarks rejects no trend)"
    p = spearman_p(r.rho, r.points) if getattr(r, "points", 0) else math.nan
    if math.isfinite(p):  # the test across benchmarks, not the bootstrap interval, which holds their order fixed
        return (f"; {name} shows no trend with crossings that these benchmarks can establish (Spearman's rho "
                f"{r.rho:.2f}, exact permutation p = {p:.2f} over {r.points} benchmarks, Appendix B.2)")
    why = "its interval includes 0" if r.verdict == "not supported" else "with the benchmarks' order held fixed"
    return f"; {name} shows no trend with crossings that these benchmarks can establish ({shown}, {why})"


def claim_text(runs: RunSet, fast: str = FAST, slow: str = SLOW) -> str:
    """Seed 001's claim "the more a benchmark crosses the boundary, the greater the JIT side's
    advantage", on our closest pair: Spearman's rho between crossings and the speedup, read by the exact
    permutation test across the benchmarks (a bootstrap interval would say only how timing noise moves rho
    with the benchmarks held fixed, which is not the question), and which way the speedup goes per benchmark."""
    r = claim_result(runs, fast, slow)
    if r is None:
        return (f"_Too few micro-benchmarks measured on both {fast} and {slow} (at least 3 are needed) to test "
                "whether the speedup grows with crossings._")
    crit = spearman_critical(r.points, 1 - r.confidence)
    p = spearman_p(r.rho, r.points)
    rejects = (f"at {1 - r.confidence:.0%} it rejects only for |rho| >= {crit:.2f}" if crit <= 1 else
               f"at {1 - r.confidence:.0%} it rejects for no rho at all")
    found = "these benchmarks show a trend" if math.isfinite(p) and p < 1 - r.confidence else \
        "these benchmarks cannot show a trend"
    n = findings.count_verdicts(runs, PREFIX, fast, slow)
    who = findings.runtime_words(fast.partition("@")[2])
    ways = (f"{who} is faster on {n['faster']} of them, slower on {n['slower']} and cannot be told apart on "
            f"{n['same']} (each by its own interval)")
    return (f"Across the {r.points} micro-benchmarks measured on both, Spearman's rank correlation between "
            f"crossings per operation and the speedup of {fast} over {slow} (time on {slow} / time on {fast}) is "
            f"{r.rho:.2f}. The exact test over all {math.factorial(r.points):,} orders of the benchmarks gives "
            f"p = {p:.2f}, and {rejects}: {found}. This is not a test of seed 001's claim, which is about SQPyte "
            "inlining across the boundary (untestable here, Section 10): the pair is stock SQLite under PyPy "
            f"against CPython, and {ways}. Another six benchmarks could order otherwise, and micro.filltable's "
            "row count does not scale with the scale factor, so that order is not the seed's.\n\n"
            + tie_note(runs, r, fast, slow))


def _rho_counts(n: int, signed: bool = False) -> dict[int, int]:
    """|rho| * n(n^2 - 1) -> how many of the n! orders of `n` ranked pairs give it: |d - 6 sum d_i^2|, an
    integer, so no rounding is needed (`signed`: rho * n(n^2 - 1) itself, for a one-sided test)."""
    import itertools
    from collections import Counter

    d = n * (n * n - 1)
    values = (d - 6 * sum((i - j) ** 2 for i, j in enumerate(perm)) for perm in itertools.permutations(range(n)))
    return Counter(values if signed else (abs(x) for x in values))


def spearman_p(rho: float, n: int, one_sided: bool = False) -> float:
    """The exact two-sided permutation p-value of Spearman's rho = 0 over `n` ranked pairs (all n! orders,
    so n <= 8): the share of orders whose |rho| is at least the observed one's; nan outside 2..8.
    `one_sided`: against a rise stated before the data (a seed's own hypothesis), the share of orders whose
    rho is at least the observed one."""
    if n < 2 or n > 8 or not math.isfinite(rho):
        return math.nan
    d = n * (n * n - 1)
    # the observed rho (ties averaged) need not be an order's; one equal to an order's must count as reached
    observed = (rho if one_sided else abs(rho)) * d - 1e-9 * d
    return sum(c for k, c in _rho_counts(n, one_sided).items() if k >= observed) / math.factorial(n)


def spearman_critical(n: int, alpha: float) -> float:
    """The smallest |rho| at which an exact two-sided permutation test of Spearman's rho = 0 over `n` ranked
    pairs rejects at `alpha` (all n! orders, so n <= 8); above 1 when no rho can."""
    if n < 2 or n > 8:
        return math.nan
    d = n * (n * n - 1)
    counts = _rho_counts(n)
    total, tail, best = math.factorial(n), 0, 2.0
    for k in sorted(counts, reverse=True):  # from |rho| = 1 down: P(|rho| >= k / d)
        tail += counts[k]
        if tail / total > alpha:
            break
        best = k / d
    return best


def spec_of(key: tuple) -> str:
    """`ENGINE@RUNTIME-FAMILY` of a cell key (cpython3.11.7 -> cpython, c-gcc12.2.0 -> c)."""
    return f"{key[2]}@{str(key[3]).rstrip('0123456789.').split('-', 1)[0]}"


def findings_text(runs: RunSet, baseline: str = SLOW) -> str:
    """E2's findings: each engine's geometric-mean ratio to the baseline, worded by its interval, every
    one over the same benchmarks (the ones every engine here and the baseline ran), so that the
    geometric means can be set beside each other; the benchmarks left out are named, with who lacks them."""
    specs = sorted({spec_of(k) for k in runs.samples if k[0].startswith(PREFIX)})
    others = [s for s in specs if s != baseline]
    if not others:
        return "_No comparable E2 cells in these runs._"
    common = findings.common_cells(runs, PREFIX, [baseline, *others])
    if not common:
        return ("_No micro-benchmark was run by every engine here, so no two geometric means would be over the "
                "same benchmarks; Appendix B has the per-benchmark ratios._")
    out = [findings.compare_family(runs, PREFIX, spec, baseline, "micro-benchmarks every engine here ran", common)
           for spec in others]
    note = findings.subset_note(runs, PREFIX, [baseline, *others], common, "cell")
    return "\n".join(f"- {s}" for s in out if s) + f"\n\n{note}"


def warmup_flag(runs: RunSet, only: set, lo: float, hi: float) -> str:
    """` (†: counting every iteration, 1.03 [0.908, 1.16])` when the other choice of iterations moves the
    geometric mean's interval to the other side of 1 (or onto it), as Appendix B.2's † marks a cell; ""
    otherwise."""
    a, alo, ahi, n = findings.geomean_ratio(runs, PREFIX, FAST, SLOW, only, alt=True)
    if not n or not (math.isfinite(alo) and math.isfinite(ahi)):
        return ""
    if findings.interval_side(lo, hi) == findings.interval_side(alo, ahi):
        return ""
    other = "every iteration" if runs.steady_state else "steady states only"
    return f" (†: counting {other}, {wording.interval(a, alo, ahi)})"


def both_ways(runs: RunSet) -> str:
    """` Per benchmark it goes both ways: ...` when the family's geometric mean pools benchmarks on which the
    faster runtime is faster and others on which it is slower (each by its own interval), "" otherwise."""
    n = findings.count_verdicts(runs, PREFIX, FAST, SLOW)
    if not (n["faster"] and n["slower"]):
        return ""
    who = findings.runtime_words(FAST.partition("@")[2])
    return (f" Per benchmark it goes both ways: {who} is faster on {n['faster']}, slower on {n['slower']}"
            + (f" and cannot be told apart on {n['same']}" if n["same"] else "") + " (Appendix B.2).")


def abstract(runs: RunSet, claim) -> str:
    """The abstract's E2 sentence: the family's geometric mean (the rank correlation with crossings is
    a contrast, not a finding of the seed's claim, and stays in Appendix B.2)."""
    s = findings.compare_family(runs, PREFIX, FAST, SLOW, "micro-benchmarks both ran", plain=True, both=True).strip()
    if not s:
        return "_No E2 cells in these runs._"
    s += both_ways(runs)
    every = findings.common_cells(runs, PREFIX, findings.family_specs(runs, PREFIX))
    both = findings.common_cells(runs, PREFIX, [FAST, SLOW])
    if every and every != both:
        r, lo, hi, n = findings.geomean_ratio(runs, PREFIX, FAST, SLOW, every)
        if n:
            names = " and ".join(sorted({b.replace(PREFIX, "") for b, _ in every}))
            s += (f" Over only the {n} micro-benchmark{'' if n == 1 else 's'} that every engine ran ({names}), the "
                  "same ratio is "
                  f"{wording.interval(r, lo, hi)}")
            flag = warmup_flag(runs, every, lo, hi)
            s += (f"{flag}: which benchmarks a mean is over, and how warm-up is counted, matter as much as the "
                  "runtime." if flag else ": which benchmarks a mean is over matters as much as the runtime.")
    return s
