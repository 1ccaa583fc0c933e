"""E3, TPC-H (seed 001, SQPyte Figure 11): the 22 queries per engine, ratios and their geometric mean.

`compute(runs, figures_dir, baseline)` returns the table and its paper block; the notebook
`notebooks/tpch.py` shows it.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

from harness.analysis import wording
from harness.analysis.figures.family import plot_family
from harness.analysis.runset import RunSet
from harness.studies import findings, runspread, seed001_h2
from harness.studies.common import BASELINE, StudyResult, family_table, figure_link

PREFIX = "tpch."


def compute(runs: RunSet, figures_dir: Path | str | None = None,
            baseline: str = BASELINE) -> StudyResult:
    table, table_md = family_table(runs, PREFIX, baseline)
    found = findings_text(runs, baseline)
    fig = None
    if figures_dir is not None and table is not None:
        fig = plot_family(table, Path(figures_dir) / "e3_tpch.png", baseline, "E3, TPC-H",
                          runs.method + findings.spread_words(runs, ", "))

    def blocks(paper_path: Path | str) -> dict[str, str]:
        out = {"e3-table": table_md, "e3-findings": found, "e3-answers": answers_text(runs),
               "abstract-e3": abstract(runspread.with_spread(runs)), "conclusion-e3": conclusion(runspread.with_spread(runs))}
        out["e3-figure"] = (figure_link(f"E3, TPC-H (time ratios, log scale; 99% CI{findings.spread_words(runs)}): "
                                        f"{figure_takeaway(table, baseline)}", fig, paper_path)
                            if fig is not None else "_No TPC-H figure: no comparable cells in these runs._")
        return out

    return StudyResult(tables={"ratios": table}, text={"ratios": table_md, "findings": found},
                       figures={"tpch": fig}, make_blocks=blocks)


def figure_takeaway(table, baseline: str) -> str:
    """The figure's caption says what to see: the engines at either end, from the geometric means."""
    from harness.analysis.stats import is_baseline

    geo = table[(table["benchmark"] == "geomean") & table["ratio"].notna()]
    geo = geo[[not is_baseline(e, r, baseline) for e, r in zip(geo["engine"], geo["runtime"])]]
    if geo.empty:
        return f"no engine besides {baseline}"
    fast, slow = geo.sort_values("ratio").iloc[0], geo.sort_values("ratio").iloc[-1]

    from harness.studies.findings import extreme_phrase, plain_name

    def name(r) -> str:
        return plain_name(f"{r['engine']}@{r['runtime']}")

    items = [(name(r), float(r["ratio"]), float(r["ratio_ci_low"]), float(r["ratio_ci_high"]))
             for _, r in geo.iterrows()]
    return (f"{extreme_phrase(items, 'fastest')} (best estimate {fast['ratio']:.3g}x the time of {plain_name(baseline)}, "
            f"geometric mean), and {extreme_phrase(items, 'slowest', higher_wins=True)} (worst {slow['ratio']:.3g}x"
            + (", JIT warm-up included and its timed-out queries left out, Section 5.1" if slow["engine"] == seed001_h2.ENGINE
               else "") + "); "
            "the dots show how far single queries spread around each mean")


def _scale(runs: RunSet) -> str:
    """The TPC-H scale factor(s) of the runs' cells, for a sentence ("SF 0.01"); "" when unnamed."""
    sfs = sorted({x.split("=", 1)[1] for b, p in zip(runs.summary["benchmark"], runs.summary["params"].astype(str))
                  if str(b).startswith(PREFIX) for x in p.split(",") if x.startswith("sf=")}, key=float)
    return ", ".join(f"SF {x}" for x in sfs)


def conclusion(runs: RunSet, baseline: str = BASELINE) -> str:
    """The conclusion's E3 sentence: what E3 shows at its scale, not in general: how far the engine
    moved the geometric mean over the queries every configuration completed (H2 aside: its times keep
    the JIT's warm-up, Section 5.1), against how far the driver on one engine and the runtime did."""
    specs = _specs(runs)
    if baseline not in specs:
        return "_No E3 cells in these runs._"
    common = findings.common_cells(runs, PREFIX, specs) or None
    ratio = {spec: findings.geomean_ratio(runs, PREFIX, spec, baseline, common) for spec in specs if spec != baseline}

    def engine(spec: str) -> str:
        return spec.split("@")[0].split("/")[0]

    def show(r: tuple) -> str:
        return f"{r[0]:.3g}x [{r[1]:.3g}, {r[2]:.3g}]"

    others = {s: r for s, r in ratio.items() if engine(s) not in (engine(baseline), engine(seed001_h2.ENGINE))
              and r[3] and math.isfinite(r[0])}
    if not others:
        return "_No other engine in the E3 runs._"
    lo, hi = min(others, key=lambda s: others[s][0]), max(others, key=lambda s: others[s][0])
    n = others[lo][3]
    text = (f"At E3's scale ({_scale(runs) or 'its scale factor'}), over the {n} queries every configuration "
            f"completed, the other engines' geometric-mean time ranged from {show(others[lo])} "
            f"({findings.plain_name(lo)}) to {show(others[hi])} ({findings.plain_name(hi)}) that of "
            f"{findings.plain_name(baseline)} ({runs.confidence:.0%} CI"
            + findings.spread_words(runs)
            + ("; H2 aside, Section 5.1" if engine(seed001_h2.ENGINE) in {engine(s) for s in specs} else "") + ")")
    drivers, builds = [], ""
    fam = lambda s: (engine(s), s.split("@", 1)[1])  # noqa: E731
    for a, b in itertools.combinations(specs, 2):
        if fam(a) == fam(b) and a != b and engine(a) != engine(seed001_h2.ENGINE):
            r = findings.geomean_ratio(runs, PREFIX, a, b, common)
            if r[3] and math.isfinite(r[0]):
                r = r if r[0] >= 1 else (1 / r[0], 1 / r[2], 1 / r[1], r[3])
                drivers.append((r, a, b))
    if drivers:
        r, a, b = max(drivers, key=lambda d: d[0][0])
        text += f"; the driver on one engine moved it by up to {show(r)} ({a.split('@')[0]} against {b.split('@')[0]})"
        from harness.studies.envtable import sqlite_build

        va, vb = sqlite_build(runs, a), sqlite_build(runs, b)
        if "unrecorded" not in (va, vb) and va != vb:  # then the library's version is in that ratio too
            builds = (f" The two drivers link SQLite {va} and {vb}, so that ratio holds the library's version "
                      "as well as the driver.")
    same_driver = [s for s in specs if s.split("@")[0] == baseline.split("@")[0] and s != baseline]
    for s in same_driver:
        r = ratio[s]
        text += (f", and the runtime ({s.split('@')[1]} for {baseline.split('@')[1]}) by {show(r)}"
                 + (", which includes 1" if r[1] <= 1 <= r[2] else ""))
    return text + "." + builds + " No larger scale factor was run."


def _specs(runs: RunSet) -> list[str]:
    return findings.family_specs(runs, PREFIX)


def findings_text(runs: RunSet, baseline: str = BASELINE) -> str:
    """Per engine: its geometric-mean ratio to the baseline over the queries, worded by the
    interval, and on how many single queries it is faster, slower or indistinguishable."""
    out = []
    others = [spec for spec in _specs(runs) if spec != baseline]
    # like with like: every geometric mean over the queries every engine ran (a timed-out query is censored)
    common = findings.common_cells(runs, PREFIX, [baseline, *others])
    for spec in others:
        s = findings.compare_family(runs, PREFIX, spec, baseline, "queries every engine here ran", common)
        if not s:
            continue
        v = findings.count_verdicts(runs, PREFIX, spec, baseline)
        both = sum(v.values())  # every query both ran, the censored ones aside: may exceed the mean's subset
        pair = findings.common_cells(runs, PREFIX, [baseline, spec])
        # a query one engine timed out on leaves every engine's mean; the pair's own mean keeps what both ran
        own = findings.geomean_ratio(runs, PREFIX, spec, baseline, pair) if pair != common else None
        out.append(s + (f" Over the {own[3]} queries both ran, its geometric-mean time ratio is "
                        f"{wording.interval(*own[:3])}." if own and own[3] else "")
                   + f" Query by query, over the {both} queries both ran, it is faster on {v['faster']}, slower on "
                   f"{v['slower']} and cannot be "
                   f"told apart on {v['same']}" + (f" (no interval on {v['unknown']})" if v["unknown"] else "")
                   + ".")
    if not out:
        return "_No comparable E3 cells in these runs._"
    return "\n".join(f"- {s}" for s in out) + "\n\n" + findings.subset_note(runs, PREFIX, [baseline, *others], common,
                                                                           "(query, setting) cell")


def answers_text(runs: RunSet) -> str:
    """How the answers were checked, by scale factor (what the answer files are depends on it)."""
    sfs = sorted({p.split("sf=", 1)[1].split(",", 1)[0] for b, p, *_ in runs.samples
                  if b.startswith(PREFIX) and "sf=" in p}, key=float)
    if not sfs:
        return "_No TPC-H cells in these runs._"
    parts = []
    for sf in sfs:
        if float(sf) == 1.0:
            parts.append(f"At SF {sf} every answer is checked against the official answer set of the TPC-H 2.14.0 "
                         "kit, independent of every engine measured.")
        else:
            parts.append(f"At SF {sf} there is no official answer set: answers are checked against a set computed "
                         "by DuckDB from data with dbgen-compatible text columns (`data/tpch-answers/README.md`). "
                         "For every other engine that is an independent check; for DuckDB it only shows that it "
                         "agrees with its own earlier answer, so at this scale factor a DuckDB error would be "
                         "caught only by the other engines disagreeing with it.")
    return " ".join(parts)


def left_out(runs: RunSet) -> tuple[set[tuple[str, str]], str]:
    """(the (query, params) cells every engine ran, over which E3's geometric means are taken; the clause
    naming the queries left out and why: "q19, q20 left out: H2 over JDBC on the JVM timed out on them",
    '' when none is)."""
    specs = _specs(runs)
    common = findings.common_cells(runs, PREFIX, specs) if specs else set()
    every = sorted({k[0] for k in runs.samples if k[0].startswith(PREFIX)})
    left = [b for b in every if b not in {c[0] for c in common}]
    lacking = sorted({findings.plain_name(spec) for b in left for spec in specs if not findings.cells(runs, b, spec)})
    summ = runs.summary
    timed_out = bool(left) and set(left) <= set(summ.loc[summ["status"] == "timeout", "benchmark"])
    clause = (f"{', '.join(b.replace(PREFIX, '') for b in left)} left out: {', '.join(lacking)} "
              f"{'timed out on' if timed_out else 'has no timing for'} {'it' if len(left) == 1 else 'them'}"
              if left and lacking else "")
    return common, clause


def abstract(runs: RunSet) -> str:
    """The abstract's E3 sentence."""
    indexes = {x for b, p in zip(runs.summary["benchmark"], runs.summary["params"].astype(str))
               if str(b).startswith(PREFIX) for x in p.split(",") if x.startswith("indexes=")}
    what = "TPC-H (query, index setting) pairs" if len(indexes) > 1 else "TPC-H queries"
    # the same queries as Appendix B.3's geometric means: the ones every engine ran (a timed-out
    # query is censored), the ones left out named with who lacks them
    common, clause = left_out(runs)
    label = f"{what} every engine completed" + (f" ({clause})" if clause else "")
    # the queries left out are named once, in the first sentence
    # PyPy's ratio says both choices of iterations (its JIT's warm-up is what they differ by); DuckDB's the other
    # only where it changes the answer (the tables' †)
    out = [findings.compare_family(runs, PREFIX, spec, BASELINE, label if k == 0 else f"{what} every engine completed",
                                   common or None, plain=True, both=spec.endswith("@pypy"))
           for k, spec in enumerate(("sqlite/sqlite3@pypy", "duckdb@cpython"))]
    return " ".join(s for s in out if s) or "_No E3 cells in these runs._"
