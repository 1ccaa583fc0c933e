"""E1, the bindings study (seed 000): rows/s per engine, driver and runtime; native C vs bindings.

`compute(runs, figures_dir, baseline)` draws the figures and returns the tables, text and paper
blocks; the notebook `notebooks/bindings.py` shows them.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from harness import engines as engine_registry
from harness.analysis.figures.rates import e1_rows, plot_native_vs_bindings, plot_rows_per_s
from harness.analysis.figures.warmup import plot_run_sequences
from harness.analysis.markdown import to_markdown
from harness.analysis import methodfacts
from harness.analysis.runset import RunSet
from harness.analysis.summary import rate_of
from harness.analysis.wording import rate_unit
from harness.studies import envtable, findings, replicate, runfacts, runspread, seedclaims, seeds, sensitivity, widest
from harness.studies.common import (BASELINE, StudyResult, committed_reference, family_table, figure_link,
                                    heading_of, protocol_text)
from harness.studies.envtable import sqlite_build
from harness.studies.verdicts import rules_summary, rules_text as verdict_rules, substitutions_markdown

PREFIX = "bindings."
NATIVE = "sqlite/native-c"


def compute(runs: RunSet, figures_dir: Path | str, baseline: str = BASELINE) -> StudyResult:
    figures_dir = Path(figures_dir)
    # the verdicts' rules, the A/A check, the precision achieved and the replicates' comparison are defined on
    # one run's intervals; the tables, figures and findings show `runs` (ratios with the run-to-run spread)
    one = runspread.one_run(runs)
    summary = runs.summary
    e1 = summary[summary["benchmark"].str.startswith(PREFIX)]
    clock = runs.manifest(runs.run_dirs[0]).clock()
    method = runs.method
    drawn = method + runspread.means_spread(runs)  # what the figures' error bars are, in their titles
    native_fig = plot_native_vs_bindings(e1, figures_dir / "e1_native_vs_bindings.png", method=drawn)
    rates_fig = plot_rows_per_s(e1, figures_dir / "e1_rows_per_s.png", method=drawn,
                                title="E1, every engine, driver and runtime")
    table = e1_table(e1)
    cycles_text = cycles_paragraph(cycles_gap(e1), clock)
    socket_text = socket_paragraph(e1)
    ratio_table, ratio_md = family_table(runs, PREFIX, baseline)
    seq_raw = runs.raw_of("bindings.select_fold")
    seq_fig = plot_run_sequences(seq_raw, figures_dir / "e1_run_sequence.png", "bindings.select_fold")
    protocol = protocol_text(runs.run_dirs)
    found = findings_text(runs)
    seed_md = seeds.seed_table(runs, "000")
    noise = runfacts.noise_block(runs)
    verdicts = seedclaims.claims(one)
    between = replicate.between(one, verdicts)  # the replicates beside the reference runs (None otherwise)
    tau2 = replicate.tau2_by_family(between.moves) if between is not None else {}
    # the verdicts' own cells (HDBC-SQLite over AcidState, ...) moved between run and replicate too
    claims_moved = (runspread.claims_tau2(verdicts, between.swapped[2], one.confidence)
                    if between is not None and between.swapped else {})
    tau2 = sensitivity.with_claims(tau2, claims_moved)
    # the same at the Q-profile upper bound of each study's component, a reading of its own
    tau2_upper = (sensitivity.with_claims(runspread.tau2_upper_by_family(between.moves, one.confidence), claims_moved)
                  if between is not None else {})
    wide = sensitivity.widened_claims(one, tau2)  # the widened reading: the larger of study's and cells' spread
    # what the verdict table prints: the claims' evidence with the spread every other section prints (the study's)
    shown = seedclaims.claims(runs) if runs is not one else None
    readings = sensitivity.rows(one, verdicts, tau2, wide, tau2_upper)  # each decided verdict under the readings
    robust = held = others = None
    if between is not None and between.found:
        # the readings on the replicate runs too, for the table's column of readings that change a verdict
        there = sensitivity.rows(between.swapped[1], between.swapped[2]) if between.swapped else None
        robust = sensitivity.robust(readings, between.changed_quotes(), there)
        held = sensitivity.holds(readings, between.changed_quotes(), there)
        others = sensitivity.other_readings(readings, there)

    def blocks(paper_path: Path) -> dict[str, str]:
        caption = (f"Table: E1, time per operation and its rate (rows/s for the scans, queries/s for "
                   f"point_query), mean with 99% CI ({method} method{runspread.means_spread(runs)}: process-level "
                   "bootstrap of process "
                   "means, t quantile, log scale; rate bounds are N divided by the time bounds)"
                   + ("; cycles per row from the cycle counter (scans only)" if "cycles/row" in table else "")
                   + ". A/A twins left out." + (f" {note}" if (note := runspread.means_note(runs, "E1")) else ""))
        # which cell is fastest or slowest is a comparison within the run: one run's intervals decide it, since a
        # sitting moves every cell alike (the bars carry that spread)
        within = one.summary[one.summary["benchmark"].str.startswith(PREFIX)]
        said = rates_takeaway(within) + (" (told apart within the run)" if runspread.means_spread(runs) else "")
        figs = [figure_link(f"E1 rows/s of every engine, driver and runtime, 99% CI ({drawn}): {said}",
                            rates_fig, paper_path)]
        if native_fig is not None:
            native_says = findings.compare(runs, "bindings.select_fold", NATIVE + "@c", BASELINE,
                                           "folding over the rows", plain=True)
            # the sentence names its interval; the bars' are the rates' of the caption below (one label each)
            figs.insert(0, figure_link("E1 native C against the bindings, rows/s"
                                       + (f": {native_says}" if native_says else
                                          f", 99% CI ({drawn})"), native_fig, paper_path))
        aa = runfacts.aa_of(one)  # the twins' run set and A/A table, for the A/A block and the abstract
        environment = campaign_manifests(runs)
        out = {"protocol": protocol, "e1-table": to_markdown(table) + "\n\n" + caption,
               "e1-figure": "\n\n".join(figs), "e1-cycles": cycles_text, "e1-socket": socket_text,
               "e1-ratios": ratio_md, "e1-findings": found,
               "e1-steady": steady_caveat(e1) or "_Every E1 cell reached a steady state in most processes._",
               "steady-detector": runfacts.detector_block(summary),
               # the findings a reader meets first carry the run-to-run spread the replicates measured
               "abstract-e1": abstract(runspread.with_spread(runs)),
               "abstract-headline": abstract_headline(runspread.with_spread(runs)),
               "noise": noise, "precision": runfacts.precision_block(one), "aa": runfacts.aa_block(one, aa),
               "reproduce": runfacts.reproduce_block(campaign_dirs(runs)),
               "campaign-commits": runfacts.campaign_commits_block(campaign_dirs(runs)),
               "verdict-rules-dating": runfacts.rules_dating(campaign_dirs(runs)),
               "abstract-precision": runfacts.abstract_precision(one, aa[1]),
               "seed-verdicts": seedclaims.markdown(verdicts, one.confidence, method, held, shown, others),
               "seed-verdicts-untestable": seedclaims.untestable_markdown(verdicts, shown),
               "seed-verdict-notes": seedclaims.notes_markdown(verdicts, shown),
               "seed-verdict-cells": seedclaims.cells_markdown(verdicts),
               # E5's widest interval, diagnosed from its raw timings (its claims are decided here too)
               "e5-widest": widest.note(one),
               "verdict-sensitivity": sensitivity.markdown(readings)
               + (f"\n\n{moved}" if (moved := sensitivity.claims_sentence(claims_moved)) else ""),
               "verdict-sensitivity-summary": " ".join(
                   x for x in (sensitivity.sentence(readings), sensitivity.later_rules(one, verdicts),
                               seedclaims.strict_sentence(verdicts)) if x),
               "verdict-rules": substitutions_markdown(),
               "verdict-rules-full": verdict_rules(),
               "verdict-rules-summary": rules_summary(),
               # the names read on the widened runs, as the table's notes are: a verdict that holds must hold
               # there too, so the scrypt share's lowest cost is the widened one (review 89 saw 2^11 beside 2^12)
               "abstract-verdicts": seedclaims.abstract_sentence(
                   verdicts, robust, sensitivity.short_names(runs, robust or [])),
               "environment": envtable.markdown(*environment, with_history=committed_reference(runs)),
               "environment-hosts": envtable.hosts_sentence(*with_history(environment, runs)),
               "method-interference": methodfacts.interference_constants(),
               "method-statistics": methodfacts.statistics_constants(runs.resamples, runs.confidence)}
        out.update(replicate.blocks(one, verdicts, where=heading_of(paper_path, "replicate-table"),
                                    found_between=between))
        if seq_fig is not None:
            out["e1-warmup"] = figure_link("E1 run-sequence plots per process" + warmup_takeaway(seq_raw),
                                           seq_fig, paper_path)
        return out

    return StudyResult(
        tables={"cells": e1, "e1": table, "ratios": ratio_table},
        text={"clock": f"clock: {clock.get('hz')} Hz from {clock.get('source')}", "cycles": cycles_text,
              "socket": socket_text, "ratios": ratio_md, "findings": found, "seed": seed_md, "noise": noise},
        figures={"native_vs_bindings": native_fig, "rows_per_s": rates_fig, "run_sequence": seq_fig},
        make_blocks=blocks)


def apart_studies(runs: RunSet) -> list[tuple[str, Path]]:
    """(study, run directory) of the studies' runs that live apart, when `runs` are the committed reference runs:
    E2s's scale-factor sweep (data/reference-e2s/), E3h's steady state (data/reference-h2/) and E3d's diagnosis
    of q19 and q20 (data/reference-h2-diagnosis/)."""
    from harness.studies import h2, sweep

    if not committed_reference(runs):
        return []
    return [(study, d) for study, dirs in (("E2s", sweep.sweep_runs()), ("E3h", h2.steady_runs()),
                                           ("E3d", h2.diagnosis_runs())) for d in dirs]


def replicate_studies(runs: RunSet) -> list[tuple[str, Path]]:
    """("E5 replicate", run directory) of each study's replicate (data/reference*-replicate/, Appendix B.10),
    when `runs` are the committed reference runs (as `apart_studies`)."""
    if not committed_reference(runs):
        return []
    return [(f"{p.study} replicate", d) for p in replicate.pairs() for d in p.replicates]


def campaign_dirs(runs: RunSet) -> list[Path]:
    """Every run of the campaign: these runs, the studies' runs that live apart (`apart_studies`) and the replicates."""
    return ([Path(d) for d in runs.run_dirs] + [d for _, d in apart_studies(runs)]
            + [d for _, d in replicate_studies(runs)])


def with_history(environment: tuple[list, dict[str, str]], runs: RunSet) -> tuple[list, dict[str, str]]:
    """`campaign_manifests` and, when `runs` are the committed reference runs, the history's runs (E7's points,
    data/reference-history/), which Section 2.6 counts among the machines (a history made on two machines
    mixes the machine into its moves) though Appendix E's tables leave them out."""
    from harness.analysis.runset import manifest_of
    from harness.studies.history import REFERENCE_HISTORY

    manifests, studies = list(environment[0]), dict(environment[1])
    if committed_reference(runs):
        for d in sorted(p.parent for p in REFERENCE_HISTORY.glob("*/manifest.json")):
            m = manifest_of(d)
            manifests.append(m)
            studies[str(m.run_id)] = "E7"
    return manifests, studies


def campaign_manifests(runs: RunSet) -> tuple[list, dict[str, str]]:
    """The manifests of Appendix E and Section 2.6, with the studies each run measured: these runs, and, when
    they are the committed reference runs, the runs of studies E2s, E3h and E3d beside them (`apart_studies`) and
    the replicates (`replicate_studies`)."""
    from harness.analysis.runset import manifest_of

    manifests, studies = list(runs.manifests()), envtable.run_studies(runs)
    for study, d in apart_studies(runs) + replicate_studies(runs):
        m = manifest_of(d)
        manifests.append(m)
        studies[str(m.run_id)] = study
    return manifests, studies


def warmup_takeaway(raw: pd.DataFrame) -> str:
    """The run-sequence figure's point: how the plotted processes' warm-up classes split, from the
    same detection the figure marks ("" when nothing was plotted)."""
    from harness.analysis.stats.warmup import WARMUP_CLASSES, warmup_analysis

    df = raw[raw["check_ok"].astype(bool)] if len(raw) else raw
    if df.empty:
        return ""
    w = warmup_analysis(df)
    counts = w["warmup"].value_counts()
    parts = [f"{int(counts[c])} {c}" for c in WARMUP_CLASSES if c in counts]
    cells = len(w[["engine", "runtime", "params"]].drop_duplicates())
    return f": of {len(w)} processes in {cells} cells, {', '.join(parts)}"


def steady_caveat(summary: pd.DataFrame, prefix: str = PREFIX) -> str:
    """The caveat under E1's findings: the cells most of whose processes reached no steady state (the
    detector's per-process class, summed per cell as `no_steady`), grouped by engine and runtime, with how
    many of their processes did reach one; such a process enters its cell's mean with every iteration,
    its warm-up included. '' when no cell is so."""
    need = {"benchmark", "engine", "runtime", "processes", "no_steady"}
    if summary.empty or not need <= set(summary.columns):
        return ""
    d = summary[summary["benchmark"].astype(str).str.startswith(prefix) & summary["processes"].notna()
                & summary["no_steady"].notna()]
    d = d[(d["processes"] > 0) & (2 * d["no_steady"] > d["processes"])]
    if d.empty:
        return ""
    groups = []
    for (engine, runtime), g in d.groupby(["engine", "runtime"], sort=True):
        family = str(runtime).rstrip("0123456789.")
        cells = ", ".join(f"{str(r.benchmark).replace(prefix, '')} {int(r.processes - r.no_steady)} of "
                          f"{int(r.processes)}" for r in g.sort_values("benchmark").itertuples())
        groups.append(f"{engine}@{family} {cells}")
    n = len(d)
    return (f"Most processes of {n} E1 cell{'' if n == 1 else 's'} reached no steady state; such a process "
            "enters its cell's mean with every iteration, so "
            f"{'that mean includes' if n == 1 else 'those means include'} warm-up. Processes that reached one: "
            + "; ".join(groups) + ".")


def rates_takeaway(summary: pd.DataFrame, benchmark: str = "bindings.select_fold") -> str:
    """What the rates figure shows, from the data: the fastest and slowest cell of the fold."""
    df = e1_rows(summary, benchmark)
    df = df[df["rows_per_s"] > 0] if len(df) else df
    if df.empty:
        return "no fold measured"
    fast, slow = df.loc[df["rows_per_s"].idxmax()], df.loc[df["rows_per_s"].idxmin()]
    items = [(findings.plain_name(f"{r['engine']}@{r['runtime']}"), float(r["rows_per_s"]), float(r["rows_per_s_low"]),
              float(r["rows_per_s_high"])) for _, r in df.iterrows()]
    # "fastest" / "slowest" only where the rate's interval is apart from every other's
    return (f"folding over the rows, {findings.extreme_phrase(items, 'fastest', higher_wins=True)} "
            f"(top rate {fast['rows_per_s'] / 1e6:.2f} M rows/s) and {findings.extreme_phrase(items, 'slowest')} "
            f"(bottom rate {slow['rows_per_s'] / 1e6:.2f} M rows/s), {fast['rows_per_s'] / slow['rows_per_s']:.0f}x apart")


def e1_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The E1 table: per benchmark and engine, mean time with CI and rows/s with CI."""
    parts = [e1_rows(summary, b) for b in sorted(summary["benchmark"].unique()) if b.startswith("bindings.")]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts)

    def ci(lo: float, hi: float, fmt: str) -> str:
        """` [low, high]`, or ` (no interval)` when the cell has none (fewer than 3 processes)."""
        return " (no interval)" if pd.isna(lo) or pd.isna(hi) else f" [{lo:{fmt}}, {hi:{fmt}}]"

    out = pd.DataFrame({
        "benchmark": df["benchmark"], "engine": df["engine"], "runtime": df["runtime"],
        "mean (ms)": [f"{m * 1e3:.3f}{ci(lo * 1e3, hi * 1e3, '.3f')}"
                      for m, lo, hi in zip(df["mean_s"], df["ci_low_s"], df["ci_high_s"])],
        "rate (thousands per s)": [f"{r / 1e3:,.1f}{ci(lo / 1e3, hi / 1e3, ',.1f')} {rate_unit(b)}"
                                   for b, r, lo, hi in _rates(df)],
    })
    if "cycles_per_row" in df and df["cycles_per_row"].notna().any():
        out["cycles/row"] = [("" if pd.isna(v) or rate_unit(b) != "rows/s" else f"{v:.0f}")
                             for b, v in zip(df["benchmark"], df["cycles_per_row"])]
    return out.reset_index(drop=True)


def _rates(df: pd.DataFrame) -> list[tuple[str, float, float, float]]:
    """(benchmark, rate, low, high) per row of e1_rows' output, each from its benchmark's own
    rate column (rows/s, or queries/s for point queries)."""
    out = []
    for r in df.to_dict("records"):
        column = rate_of(r["benchmark"])[0]
        out.append((r["benchmark"], r.get(column), r.get(f"{column}_low"), r.get(f"{column}_high")))
    return out


def cycles_gap(summary: pd.DataFrame, benchmark: str = "bindings.select_fold") -> pd.DataFrame:
    """Per cell: nanoseconds per row (and cycles per row where a cycle counter measured the clock),
    and how many more than native C: the binding's own cost per row."""
    df = e1_rows(summary, benchmark)
    if df.empty or NATIVE not in set(df["engine"]):
        return pd.DataFrame()
    df = df[df["rows_per_s"] > 0]
    if NATIVE not in set(df["engine"]):
        return pd.DataFrame()
    native = df.loc[df["engine"] == NATIVE].iloc[0]
    out = df[["engine", "runtime", "rows_per_s", "mean_s"]].copy()
    out["ns_per_row"] = 1e9 / out["rows_per_s"]
    out["extra_ns_per_row"] = out["ns_per_row"] - 1e9 / native["rows_per_s"]
    out["cycles_per_row"] = df["cycles_per_row"] if "cycles_per_row" in df else float("nan")
    out["time_vs_native"] = out["mean_s"] / native["mean_s"]
    return out.drop(columns=["mean_s"]).reset_index(drop=True)


def cycles_paragraph(gap: pd.DataFrame, clock: dict) -> str:
    """Prose for the paper, every number taken from `gap`: time per row against native C (cycles
    only where the CPU's cycle counter measured the clock)."""
    if gap.empty:
        return "_No native C baseline in these runs, so no cost per row over C can be given._"
    native = gap[gap["engine"] == NATIVE].iloc[0]
    counted = clock.get("source") == "perf" and pd.notna(native["cycles_per_row"])
    unit = (f"{native['ns_per_row']:.0f} ns per row ({native['cycles_per_row']:.0f} cycles, counted)" if counted
            else f"{native['ns_per_row']:.0f} ns per row")
    parts = [f"Native C folds over the result at {native['rows_per_s'] / 1e6:.1f} M rows/s, {unit}: the reference "
             "point for this query on this machine."]
    if not counted:
        parts.append("This machine has no cycle counter (clock source: " + str(clock.get("source") or "none")
                     + "), so no cost is given in clock cycles: wall time times a nominal clock is not cycles.")
    others = gap[gap["engine"] != NATIVE].sort_values("ns_per_row")
    if len(others):
        parts.append("Each binding's time per row over C's:\n\n" + "\n".join(
            f"- {r.engine} on {r.runtime}: {r.extra_ns_per_row:+.0f} ns per row ({r.time_vs_native:.1f}x C's time)"
            for r in others.itertuples()))
    return " ".join(parts[:-1]) + "\n\n" + parts[-1] if len(others) else " ".join(parts)


def socket_paragraph(summary: pd.DataFrame, baseline: str = "sqlite/sqlite3") -> str:
    """What the socket costs per row (E1 select_all) and per query (E1 point_query), against an
    in-process baseline; every number from the summary."""
    def cell(bench: str, engine: str) -> pd.Series | None:
        df = summary[(summary["benchmark"] == bench) & (summary["engine"] == engine) & summary["mean_s"].notna()
                     & summary["runtime"].astype(str).str.startswith("cpython")]
        return df.iloc[0] if len(df) else None

    servers = sorted(e for e in summary["engine"].unique()
                     if e in engine_registry.ENGINES and engine_registry.get(e).server_family)
    if not servers:
        return "_No client/server engine in these runs._"
    parts = []
    base_all = cell("bindings.select_all", baseline)
    base_point = cell("bindings.point_query", baseline)
    for engine in servers:
        row_all = cell("bindings.select_all", engine)
        row_point = cell("bindings.point_query", engine)
        bits = []
        if row_all is not None and base_all is not None:
            n = row_all["rows_per_s"] * row_all["mean_s"]
            per_row = row_all["mean_s"] / n * 1e9
            base_row = base_all["mean_s"] / (base_all["rows_per_s"] * base_all["mean_s"]) * 1e9
            bits.append(f"{per_row:.0f} ns per row fetched in bulk ({per_row - base_row:+.0f} ns against {baseline})")
        if row_point is not None and base_point is not None:
            k = row_point["queries_per_s"] * row_point["mean_s"]
            per_q = row_point["mean_s"] / k * 1e6
            base_q = base_point["mean_s"] / (base_point["queries_per_s"] * base_point["mean_s"]) * 1e6
            bits.append(f"{per_q:.1f} µs per point query ({per_q / base_q:.0f}x {baseline}'s {base_q:.1f} µs)")
        if bits:
            parts.append(f"{engine}: " + "; ".join(bits) + ".")
    return " ".join(parts) or "_No comparable E1 cells for the server engines in these runs._"


def findings_text(runs: RunSet) -> str:
    """E1's findings as sentences whose wording follows each interval (studies.findings)."""
    py, pypy, c, apsw = BASELINE, "sqlite/sqlite3@pypy", NATIVE + "@c", "sqlite/apsw@cpython"
    items = [
        ("bindings.select_fold", c, py, "folding over 10,000 rows"),
        ("bindings.select_fold", apsw, py, "folding over the rows"),
        ("bindings.select_all", apsw, py, "materialising all rows"),
        ("bindings.select_fold", pypy, py, "folding over the rows"),
        ("bindings.point_query", apsw, c, "per point query"),
        ("bindings.point_query", py, c, "per point query"),
        ("bindings.point_query", "postgresql/psycopg@cpython", py, "per point query (a round trip each)"),
        ("bindings.point_query", "mariadb/mysqlclient@cpython", py, "per point query (a round trip each)"),
    ]
    out = [findings.compare(runs, b, x, y, what) for b, x, y, what in items]
    out = [s for s in out if s]
    return "\n".join(f"- {s}" for s in out) or "_No comparable E1 cells in these runs._"


def builds_clause(runs: RunSet, a: str, b: str) -> str:
    """Whether a comparison of `a` with `b` is of one SQLite build or of two, said in the sentence:
    a ratio between two builds mixes the binding with the library's version."""
    va, vb = sqlite_build(runs, a), sqlite_build(runs, b)
    na, nb = findings.plain_name(a), findings.plain_name(b)
    if "unrecorded" in (va, vb):
        return f" The SQLite builds of {na} and {nb} are not both recorded, so the ratio may include a library difference."
    if va == vb:
        return f" Both link SQLite {va}."
    return (f" The two link different SQLite builds (SQLite {va} for {na}, {vb} for {nb}), so this ratio mixes the "
            "binding with the library's version.")


def abstract_headline(runs: RunSet) -> str:
    """The abstract's one number: native C against Python's sqlite3 folding over rows (E1)."""
    s = findings.compare(runs, "bindings.select_fold", NATIVE + "@c", BASELINE, "at folding over a query's rows",
                         plain=True)
    return (s + builds_clause(runs, NATIVE + "@c", BASELINE)) if s else "_No E1 comparison with native C._"


def abstract(runs: RunSet) -> str:
    """Section 1.1's E1 sentences, each comparison saying whether its two sides link one SQLite build (both
    against Python's sqlite3, which links the C program's build, so neither mixes in the library's version),
    and seed 000's own pair beside the seed's ratio (`seed_pair`)."""
    out, said = [], ""
    for bench, a, b, what in (("bindings.select_fold", NATIVE + "@c", BASELINE, "at folding over a query's rows"),
                              ("bindings.point_query", BASELINE, NATIVE + "@c", "per point query")):
        s = findings.compare(runs, bench, a, b, what, plain=True)
        if s:
            builds = builds_clause(runs, a, b)
            out.append(s + (builds if builds != said else ""))  # the same builds are said once
            said = builds
    pair = seed_pair(runs)
    return " ".join(out + ([pair] if pair else [])) or ("_No E1 comparison with native C (sqlite/native-c@c "
                                                        "against sqlite3) in these runs._")


def seed_pair(runs: RunSet) -> str:
    """Seed 000's own pair, Python fetching every row (its bench.py's fetchall) against C stepping through them,
    ours with its interval beside the ratio of the seed's draft's rates (another machine: context)."""
    from harness.studies.seeds import C, PY, SEEDS

    r = seedclaims.ratio_at(runs, "bindings.select_all", PY, C, "n=10000", benchmark_b="bindings.select_fold")
    if not all(map(math.isfinite, r)):
        return ""
    seed = {n.key: n for n in SEEDS["000"][1]}["c_vs_py"].value
    spread = findings.spread_of(runs)
    return (f"On seed 000's own pair, C stepping through the rows against Python fetching them all, C is "
            f"{findings.num(r[0])} [{findings.num(r[1])}, {findings.num(r[2])}] times faster ({runs.confidence:.0%} CI"
            + (f" {spread}" if spread else "") + f"; the seed's draft's rates give {findings.num(seed)}x on its "
            "machine).")
