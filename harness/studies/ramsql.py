"""E6, point queries on RamSQL vs SQLite in Go (seed 004, "Benchmarking RamSQL").

Two ways in to the same Go benchmarks (`harness/run/go/bench.go`): runtime `go` speaking the
worker protocol (engines ramsql/go, sqlite/glebarez and sqlite/go: fresh processes, interleaved,
`ops` operations per timed iteration) and `go test -bench` sessions imported as runs (`harness gobench`: engines
gotest-1 and gotest-2, benchmark names as the seed's, one sample per result line). This module
puts them side by side per operation, gives RamSQL/SQLite ratios, remakes the seed's benchstat
table (our `compare` beside real benchstat's stored output on the same lines) and the seed-vs-ours
table. Every number comes from the stored raw timings; the seed's are constants, labelled.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from harness import workloads
from harness.analysis import stats, tables, wording
from harness.analysis.figures.e6 import plot_per_op
from harness.analysis.markdown import to_markdown
from harness.analysis.runset import RunSet
from harness.analysis.stats.compare import samples_needed
from harness.analysis.stats.intervals import CellBoot, combine_log_ratios
from harness.studies.common import (
    StudyResult,
    excluded_cells,
    family_table,
    figure_link,
)
from harness.studies import runspread
from harness.studies.findings import spread_of

PREFIX = "ramsql."
#: RamSQL, and SQLite through the seed's driver (glebarez/go-sqlite, pure Go); CGO is SQLite's C library
#: through cgo (mattn/go-sqlite3), which differs from SQLITE by how Go reaches the same engine
RAMSQL, SQLITE, CGO = "ramsql/go", "sqlite/glebarez", "sqlite/go"
ENGINE_OF_PREFIX = {"RamSQL": RAMSQL, "SQLite": SQLITE}
GOTEST = ("gotest-1", "gotest-2")
SESSION_FILES = {"gotest-1": "bench.txt", "gotest-2": "newbench.txt"}
FAITHFUL = ("ramsql.select", "ramsql.select_10k", "ramsql.insert10", "ramsql.setup")
#: the seed's headline query, fixed so that both engines read the same rows: where the two harnesses are compared
HEADLINE = "ramsql.select_10k_fixed"

#: the seed's numbers (its first benchstat table, "newbench.txt" column: medians in s/op on an
#: i7-7700K with RamSQL before its v0.1.3 rewrite and the pure-Go SQLite glebarez/go-sqlite), typed from the
#: seed's text and labelled as the seed's wherever shown; ratios are computed from them
SEED_SEC_PER_OP = {
    "ramsql.select": {RAMSQL: 286.6e-6, SQLITE: 10.73e-6},
    "ramsql.select_10k": {RAMSQL: 7.479e-3, SQLITE: 11.05e-6},
    "ramsql.insert10": {RAMSQL: 281.5e-6, SQLITE: 329.5e-6},
    "ramsql.setup": {RAMSQL: 820.0e-9, SQLITE: 811.1e-9},
}
#: the seed's second benchstat table ("RamSQL version v0.1.3, after refactoring", newbench.txt column, s/op),
#: typed from the seed's text: the seed's benchmarks there renamed (select_10k: SelectBTree10K); its
#: `ramsql.select_10k` row is what the select claim's "100x" is checked against, beside the first table's
SEED_SECOND_VERSION = "v0.1.3"
SEED_SECOND_SEC_PER_OP = {
    "ramsql.select": {RAMSQL: 54.52e-6, SQLITE: 11.43e-6},  # SelectBTree: the range select over 100 rows
    "ramsql.select_10k": {RAMSQL: 682.3e-6, SQLITE: 12.50e-6},
    "ramsql.insert10": {RAMSQL: 211.9e-6, SQLITE: 106.7e-6},
    "ramsql.setup": {RAMSQL: 841.6e-9, SQLITE: 855.4e-9},
    # SelectHashMap10K: the point query by id that select_key fixes
    "ramsql.select_key": {RAMSQL: 30.73e-6, SQLITE: 8.651e-6},
}
#: the seed's benchstat geomean row: bench.txt, newbench.txt (s/op) and the change it printed
SEED_GEOMEAN = (46.84e-6, 44.61e-6, -4.75)

#: why our number differs from the seed's, per row of the seed-vs-ours table (facts about the set-ups)
REASONS = {
    "ramsql.select": ("SQLite stores NULL ids (BIGSERIAL is no rowid alias), so its side returns no row in the "
                      "seed and here; RamSQL v0.1.5 (ours) is the rewrite the seed's second table measures, "
                      "not the pre-v0.1 engine of its first; another CPU, and a shared 2-core VM"),
    "ramsql.select_10k": ("the RamSQL versions differ (ours v0.1.5; the seed's first table predates the v0.1.3 rewrite, its "
                          "second, on v0.1.3, gives 682 µs for this query), and SQLite again returns no row, so "
                          "the ratio sets RamSQL's 29-row range against SQLite's empty index probe; another CPU, "
                          "and a shared 2-core VM"),
    "ramsql.insert10": ("both sides insert 10 rows; RamSQL versions differ as above (the seed's own two tables "
                        "put this ratio on either side of 1)"),
    "ramsql.setup": ("sql.Open connects to nothing: both sides time database/sql's bookkeeping, so the ratio "
                     "says nothing about the engines, here or in the seed"),
    "geomean": ("another machine and RamSQL version; the seed's change compares two commits, "
                "ours two sessions of the same code (an A/A test)"),
}


def compute(runs: RunSet, figures_dir: Path | str, baseline: str = SQLITE) -> StudyResult:
    figures_dir = Path(figures_dir)
    summary = runs.summary
    ours = per_op(runs)
    gotest = gotest_per_op(runs)
    side = side_by_side(ours, gotest)
    agree_text = agreement_text(side, harnesses_apart(runs, sorted(set(side["benchmark"]))) if len(side) else None)
    why_text = harness_difference(runs)
    ratio_table, ratio_md = family_table(runs, PREFIX, baseline)
    ratios = engine_ratios(runs)
    seed = seed_table(runs, ratios, ours)
    bench = benchstat_remake(runs)
    findings = findings_text(ours, ratios, gotest_ratios(runs, HEADLINE), gotest_where(runs),
                             engine_ratios(runs, CGO, SQLITE), harness_ratios(runs), runs.confidence, spread_of(runs))
    drawn = runs.method + runspread.means_spread(runs)  # what the cells' intervals are, for the figure and captions
    fig = plot_per_op(side, figures_dir / "e6_per_op.png", method=drawn) if len(side) else None
    excluded = excluded_cells(summary, PREFIX)
    order = order_text(runs)  # the diagnosis of go test's process history (committed reference runs only)
    if order:
        findings += " Appendix B.7 tests one cause: the benchmarks that run before it in go test's process."

    def blocks(paper_path: Path) -> dict[str, str]:
        caption = (f"Table: E6, time per operation (one iteration's time / ops), mean with 99% CI ({drawn}); "
                   "worker: runtime go, fresh processes; go test: each `go test -bench` result line one sample "
                   "(sessions bench.txt and newbench.txt); rows/op: rows each operation read (crossings / ops "
                   "- statements). ")
        out = {"e6-table": (to_markdown(side_table(side)) if len(side) else "_no E6 cells in these runs_")
               + "\n\n" + caption + excluded + "\n\n" + agree_text + ("\n\n" + why_text if why_text else "")
               + ("\n\n" + order if order else ""),
               "e6-findings": findings, "e6-ratios": ratio_md, "e6-seed": seed_markdown(seed, spread_of(runs)),
               "e6-benchstat": bench["markdown"], "abstract-e6": abstract(runs),
               "e6-gotest-env": gotest_env(runs), "e6-gotest-intro": gotest_intro(runs, side)}
        out["e6-figure"] = (figure_link(f"E6 time per operation (log scale), worker vs go test, 99% CI ({drawn}). "
                                        f"{agree_text.strip()}" + (figure_host_note(runs) if why_text else ""), fig,
                                        paper_path) if fig is not None else "_no E6 cells in these runs_")
        return out

    return StudyResult(
        tables={"cells": summary[summary["benchmark"].str.startswith(PREFIX)], "per_op": side, "ratios": ratio_table,
                "engine_ratios": ratios, "seed": seed, "compare": bench["compare"]},
        text={"findings": findings, "agreement": agree_text, "ratios": ratio_md, "benchstat": bench["markdown"]},
        figures={"per_op": fig}, make_blocks=blocks)


def order_text(runs: RunSet) -> str:
    """The diagnosis of go test's process history (`gotest_order.text`), when `runs` are the committed reference
    runs (a run's own report reads no diagnosis); "" otherwise or without it."""
    from harness.studies import gotest_order
    from harness.studies.common import committed_reference, cpu_model

    if not committed_reference(runs):
        return ""
    raw = runs.raw_of(PREFIX + "*")
    ids = set(raw["run_id"]) if "run_id" in raw else set()
    worker = [Path(d) for d in runs.run_dirs if Path(d).name in ids and (Path(d) / "plan.json").exists()]
    return gotest_order.text(runs, harness_ratios(runs), e6_cpu=cpu_model(worker[0]) if worker else "")


def _ops(benchmark: str, params: str) -> int:
    m = re.search(r"(?:^|,)ops=(\d+)", params or "")
    if m:
        return int(m.group(1))
    return int(workloads.get(benchmark).default_params.get("ops", 1))


def _unit(value: float) -> CellBoot:
    """A known constant as a cell with no variance (so that mean / ops keeps the cell's interval)."""
    return CellBoot(float(value), 1, 0.0, 1e9)


def per_op(runs: RunSet) -> pd.DataFrame:
    """Worker-protocol E6 cells per operation: mean and 99% CI / ops (the summary's, so with the run-to-run spread
    of a cell mean where `runs` carry it), rows read per operation."""
    s = runs.summary
    df = s[s["benchmark"].str.startswith(PREFIX) & s["engine"].isin([RAMSQL, SQLITE, CGO]) & (s["status"] == "ok")
           & s["mean_s"].notna()]
    timed = set(runs.samples)
    rows = []
    for r in df.itertuples(index=False):
        key = (r.benchmark, r.params, r.engine, r.runtime)
        ops = _ops(r.benchmark, r.params)
        if key not in timed:
            continue
        est, lo, hi = r.mean_s / ops, r.ci_low_s / ops, r.ci_high_s / ops
        crossings = float(r.crossings) if pd.notna(r.crossings) else math.nan
        statements = 10 if "insert10" in r.benchmark else 1
        rows.append({"benchmark": r.benchmark, "engine": r.engine, "runtime": r.runtime, "ops": ops,
                     "mean_s": est, "low_s": lo, "high_s": hi, "processes": r.processes,
                     "rows_per_op": crossings / ops - statements if "select" in r.benchmark else math.nan,
                     "faithful": r.benchmark in FAITHFUL})
    return pd.DataFrame(rows)


def _gotest_name(name: str) -> tuple[str, str] | None:
    """`RamSQLSelect10K` -> ("ramsql.select_10k", "ramsql/go"), by the workloads' `gotest` names."""
    for prefix, engine in ENGINE_OF_PREFIX.items():
        if name.startswith(prefix):
            rest = name[len(prefix):]
            for w in workloads.all_workloads().values():
                if getattr(w, "gotest", None) == rest:
                    return w.name, engine
    return None


def gotest_per_op(runs: RunSet) -> pd.DataFrame:
    """Imported `go test -bench` cells (engines gotest-N), mapped to our benchmark and engine."""
    s = runs.summary
    df = s[s["engine"].isin(GOTEST) & s["mean_s"].notna()]
    rows = []
    for r in df.itertuples(index=False):
        mapped = _gotest_name(r.benchmark)
        if mapped is None:
            continue
        rows.append({"benchmark": mapped[0], "engine": mapped[1], "session": SESSION_FILES[r.engine],
                     "mean_s": r.mean_s, "low_s": r.ci_low_s, "high_s": r.ci_high_s, "samples": r.processes})
    return pd.DataFrame(rows)


def side_by_side(ours: pd.DataFrame, gotest: pd.DataFrame) -> pd.DataFrame:
    """One row per (benchmark, engine): the worker's per-op interval and each go test session's."""
    if ours.empty:
        return ours
    out = ours.copy()
    for sess in SESSION_FILES.values():
        part = gotest[gotest["session"] == sess] if len(gotest) else pd.DataFrame(
            columns=["benchmark", "engine", "mean_s", "low_s", "high_s"])
        part = part[["benchmark", "engine", "mean_s", "low_s", "high_s"]].rename(
            columns={c: f"{sess}_{c}" for c in ("mean_s", "low_s", "high_s")})
        out = out.merge(part, on=["benchmark", "engine"], how="left")
        lo, hi = out[f"{sess}_low_s"], out[f"{sess}_high_s"]
        out[f"{sess}_overlap"] = np.where(lo.notna() & hi.notna() & out["low_s"].notna(),
                                          (lo <= out["high_s"]) & (out["low_s"] <= hi), np.nan)
    order = {w: i for i, w in enumerate(workloads.all_workloads())}
    out["_o"] = out["benchmark"].map(order)
    return out.sort_values(["_o", "engine"]).drop(columns="_o").reset_index(drop=True)


def _fmt(m: float, lo: float, hi: float) -> str:
    """benchstat's style, the unit on every number: `286.6µs [280.1µs, 293.0µs]`."""
    return wording.interval(m, lo, hi, num=tables.fmt_si, unit="s", unit_at="each", no_ci=" (no CI)")


def side_table(side: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({
        "benchmark": side["benchmark"].str.replace(PREFIX, "", regex=False)
        + np.where(side["faithful"], " (seed)", " (fixed)"),
        "engine": side["engine"],
        "worker, per op": [_fmt(m, lo, hi) for m, lo, hi in zip(side["mean_s"], side["low_s"], side["high_s"])],
        "rows/op": side["rows_per_op"].map(lambda v: "" if not np.isfinite(v) else f"{v:.0f}"),
    })
    for sess in SESSION_FILES.values():
        if f"{sess}_mean_s" in side:
            out[f"go test {sess}"] = [_fmt(m, lo, hi) for m, lo, hi in
                                      zip(side[f"{sess}_mean_s"], side[f"{sess}_low_s"], side[f"{sess}_high_s"])]
            out[f"overlap {sess}"] = side[f"{sess}_overlap"].map(
                lambda v: "" if pd.isna(v) else ("yes" if v else "no"))
    return out


def agreement_text(side: pd.DataFrame, apart: dict[str, tuple[int, int]] | None = None) -> str:
    """How many cells' worker intervals overlap the go test sessions' intervals, and which do not; with `apart`
    (`harnesses_apart`), in how many cells the direct test, go test / worker, tells the two apart, since two
    intervals can overlap while their ratio's excludes 1."""
    if side.empty or "bench.txt_overlap" not in side or side["bench.txt_overlap"].isna().all():
        return "No `go test -bench` run is in these runs, so the two ways in are not compared here."
    parts = []
    for sess in SESSION_FILES.values():
        col = side[f"{sess}_overlap"].dropna()
        if col.empty:
            continue
        bad = side[side[f"{sess}_overlap"] == False]
        names = ", ".join(f"{b.replace(PREFIX, '')} on {e}" for b, e in zip(bad["benchmark"], bad["engine"]))
        k, n = (apart or {}).get(sess, (0, 0))
        parts.append(f"against {sess}, {int(col.sum())} of {len(col)} worker intervals overlap go test's"
                     + (f" (not: {names})" if names and len(bad) <= 4 else "")
                     + (f", yet go test / worker excludes 1 in {k} of {n}" if n else ""))
    return "The two ways in: " + "; ".join(parts) + "."


def harnesses_apart(runs: RunSet, benches: list[str]) -> dict[str, tuple[int, int]]:
    """Per go test session file: (cells whose go test / worker interval excludes 1, cells compared), over
    `benches` and both engines (`harness_ratios`)."""
    out: dict[str, tuple[int, int]] = {}
    for bench in benches:
        for _, sess, _, lo, hi in harness_ratios(runs, bench):
            k, n = out.get(sess, (0, 0))
            out[sess] = (k + (lo > 1 or hi < 1), n + 1)
    return out


def _hosts(runs: RunSet) -> tuple[list, list]:
    """The imported go test sessions' manifests and the worker's runs' manifests (E6 engines)."""
    gotest, worker = [], []
    for m in runs.manifests():
        src = m.source if isinstance(m.source, dict) else {}
        if src.get("format") == "gobench":
            gotest.append(m)
        elif _measures_e6(m):
            worker.append(m)
    return gotest, worker


def _measures_e6(m) -> bool:
    """Whether a run is one of E6's worker runs: it planned ramsql.* benchmarks on an E6 engine that
    was available (a run of another study lists every engine it probed, E6's included, as unavailable)."""
    conf = m.configuration if isinstance(getattr(m, "configuration", None), dict) else {}
    benchmarks = conf.get("benchmarks")
    if benchmarks is not None and not any(str(b).startswith("ramsql.") for b in benchmarks):
        return False
    return any(str(e).startswith(("ramsql/", "sqlite/go", "sqlite/glebarez"))
               and (not isinstance(v, dict) or v.get("available", True))
               for e, v in (m.engines or {}).items())


def _side_facts(ms: list) -> tuple[str, str, str]:
    """CPU model(s), commit(s) and day(s) of some runs' manifests."""
    cpus = sorted({str((m.machine or {}).get("cpu", {}).get("model") or "unknown CPU") for m in ms})
    commits = sorted({str((m.project or {}).get("commit") or "?")[:7]
                      + (" (uncommitted changes)" if (m.project or {}).get("dirty") else "") for m in ms})
    days = sorted({str(m.started or "")[:10] for m in ms})
    return " / ".join(cpus), ", ".join(commits), ", ".join(days)


def _commits(listed: str) -> str:
    return ("commits " if "," in listed else "commit ") + listed


def host_key(m) -> tuple[str, str, str]:
    """What names a host in a manifest: CPU model, kernel and hostname."""
    mach = m.machine or {}
    return (str((mach.get("cpu") or {}).get("model") or "?"), str(mach.get("kernel") or "?"),
            str(mach.get("hostname") or "?"))


def same_host(gotest: list, worker: list) -> bool | None:
    """Whether the go test sessions and the worker's runs ran on one host (every manifest of both
    sides the same CPU model, kernel and hostname); None when either side is missing."""
    if not gotest or not worker:
        return None
    return len({host_key(m) for m in [*gotest, *worker]}) == 1


def _load_per_core(ms: list) -> float:
    """The largest 15-minute load average per core the manifests recorded (nan when none did)."""
    vals = []
    for m in ms:
        mach = m.machine or {}
        load, cores = mach.get("loadavg_before"), (mach.get("cpu") or {}).get("cores")
        if isinstance(load, (list, tuple)) and len(load) == 3 and cores:
            vals.append(float(load[2]) / float(cores))
    return max(vals) if vals else math.nan


def _bracketed(gotest: list, worker: list) -> bool:
    """Whether a go test session was made before the E6 worker's run and another after it (ABA)."""
    e6 = [m for m in worker if any(str(e).startswith("ramsql/") for e in (m.engines or {}))] or worker
    starts = sorted(str(m.started or "") for m in gotest)
    w0, w1 = min(str(m.started or "") for m in e6), max(str(m.ended or m.started or "") for m in e6)
    return bool(starts) and starts[0] <= w0 and starts[-1] >= w1


def gotest_where(runs: RunSet) -> str:
    """Where the go test sessions ran, as the manifests say, for a sentence: "on this host", "on this
    host under load", "on another host", "on another, loaded host" ("" without go test sessions or
    worker runs). A session's host is this host when its CPU model, kernel and hostname are the
    worker's; loaded: a 15-minute load average above one runnable thread per core."""
    gotest, worker = _hosts(runs)
    same = same_host(gotest, worker)
    if same is None:
        return ""
    loaded = _load_per_core(gotest) > 1.0
    if same:
        return "on this host under load" if loaded else "on this host"
    return "on another, loaded host" if loaded else "on another host"


def gotest_flags(runs: RunSet) -> str:
    """go test's flags as the sessions' manifests recorded them (`-count 3 -benchtime 50ms`)."""
    gotest, _ = _hosts(runs)
    out = []
    for m in gotest:
        cmd = str((m.source or {}).get("go_test") or "")
        f = " ".join(re.findall(r"-(?:count|benchtime) \S+", cmd))
        if f and f not in out:
            out.append(f)
    return " / ".join(out)


def figure_host_note(runs: RunSet) -> str:
    """The E6 figure caption's sentence on where go test ran (what differs from the worker's runs)."""
    gotest, worker = _hosts(runs)
    same = same_host(gotest, worker)
    if same is None:
        return ""
    g_cpu, g_commit, _ = _side_facts(gotest)
    w_cpu, w_commit, _ = _side_facts(worker)
    diffs = (["on another CPU" if g_cpu != w_cpu else "on another host"] if not same else ["on this host"])
    if g_commit not in w_commit.split(", "):
        diffs.append("at another commit")
    if _load_per_core(gotest) > 1.0:
        diffs.append("on a loaded VM")
    return f" The go test sessions ran {', '.join(diffs)}; see the text below the E6 table."


def count_word(n: int) -> str:
    """1 -> "one", 2 -> "two", ... 9; larger numbers as digits."""
    return ("zero one two three four five six seven eight nine".split() + [str(n)])[n if 0 <= n < 10 else 10]


def _day_gap(gotest: list, worker: list) -> str:
    """When the go test sessions were made, against the E6 worker run: "the same day", "3 days earlier"."""
    from datetime import datetime

    def day(m):
        try:
            return datetime.strptime(str(m.started or "")[:10], "%Y-%m-%d")
        except ValueError:
            return None

    e6 = [m for m in worker if any(str(e).startswith("ramsql/") for e in (m.engines or {}))] or worker
    g = [d for d in map(day, gotest) if d]
    w = [d for d in map(day, e6) if d]
    if not g or not w:
        return "on a day not recorded"
    n = (min(w) - max(g)).days if max(g) <= min(w) else (max(g) - min(w)).days
    if n == 0:
        return "the same day"
    return f"{n} day{'s' if n != 1 else ''} " + ("earlier" if max(g) <= min(w) else "later")


def gotest_env(runs: RunSet) -> str:
    """Appendix E's sentence on where E6's `go test` sessions were made, from the manifests."""
    gotest, worker = _hosts(runs)
    same = same_host(gotest, worker)
    if same is None:
        return "No `go test -bench` session is in these runs."
    n = len(gotest)
    sessions = f"The {count_word(n)} `go test` session{'s' if n != 1 else ''} of E6"
    if same:
        order = (", one before the worker's E6 run and one after it" if _bracketed(gotest, worker) else
                 f", {_day_gap(gotest, worker)} than the worker's E6 run".replace("the same day than", "the same day as"))
        load = " under load" if _load_per_core(gotest) > 1.0 else ""
        return (f"{sessions} were made on this machine too{load}{order} (the manifests record the same CPU "
                "model, kernel and hostname; Appendix B.7), so E6 compares our worker with `go test` on one machine.")
    cores = {(m.machine or {}).get("cpu", {}).get("cores") for m in gotest} - {None}
    guest = f"{max(cores)}-core guest" if cores else "machine"
    loaded = ", loaded" if _load_per_core(gotest) > 1.0 else ""
    return (f"{sessions} were made {_day_gap(gotest, worker)} on another{loaded} {guest} (Appendix B.7), so E6 "
            "compares our worker with `go test` across two machines.")


def few_samples_clause(flags: str, alpha: float = 0.05, confidence: float = 0.95) -> str:
    """`; 4 samples a side, fewer than the 6 benchstat asks for ...` when go test's -count is below what
    benchstat needs for a median's interval: why that count (the fewest for which a two-sided
    Mann-Whitney test can reach p <= alpha, the A/A bracket's test), '' otherwise."""
    m = re.search(r"-count (\d+)", flags)
    if not m:
        return ""
    count, (_, need_ci), (_, need_test) = int(m.group(1)), tables.ci_samples_needed(confidence), samples_needed(alpha)
    if count >= need_ci:
        return ""
    why = (f" but the fewest with which a Mann-Whitney test can reach p <= {alpha:g}, to fit the campaign's slot"
           if count == need_test else "")
    return f"; {count} a side, below benchstat's {need_ci} for an interval{why}"


def gotest_intro(runs: RunSet, side: pd.DataFrame) -> str:
    """Section 8's paragraph on the `go test` sessions: flags, where and when, what a sample is, how
    their times compare with the worker's (geometric mean over the cells both measured), and why."""
    gotest, worker = _hosts(runs)
    if not gotest:
        return ("No `go test -bench` session is in these runs (`python -m harness gobench` makes them); E6's "
                "ratios are the worker's.")
    same = same_host(gotest, worker)
    flags = gotest_flags(runs) or "its default flags"
    n = len(gotest)
    where = (("on this host, one before the worker's run and one after it" if _bracketed(gotest, worker)
              else f"on this host, {_day_gap(gotest, worker)}") if same else
             f"{_day_gap(gotest, worker)}, on another{', loaded' if _load_per_core(gotest) > 1.0 else ''} host")
    g_commit, w_commit = _side_facts(gotest)[1], _side_facts(worker)[1] if worker else ""
    commit = " at the worker's commit" if g_commit in w_commit.split(", ") else " at another commit"
    text = (f"The same Go code also ran under `go test -bench . {flags}` (the seed's was -count 6, at go test's "
            f"default -benchtime of 1s{few_samples_clause(flags)}), "
            f"in {count_word(n)} session{'s' if n != 1 else ''} {where}{commit} (Appendix E): an A/A test of `go test` and "
            "benchstat there. A `go test` sample is one timing loop of one test binary, not a fresh process.")
    ratios, cells, sessions = [], set(), 0
    for sess in SESSION_FILES.values():
        col = f"{sess}_mean_s"
        if col in side:
            r = side[col] / side["mean_s"]
            ok = [(i, float(x)) for i, x in enumerate(r) if np.isfinite(x) and x > 0]
            ratios += [x for _, x in ok]
            cells |= {i for i, _ in ok}
            sessions += bool(ok)
    if ratios:
        # the factor always, with the cells' range: "about the worker's" dropped the number, and the
        # sentence after it spoke of "the difference" even when there was none to speak of
        gm = float(np.exp(np.mean(np.log(ratios))))
        over = f"{len(cells)} cells" + (f", {count_word(sessions)} sessions" if sessions > 1 else "")
        text += (f" Its times are {gm:.2f} times the worker's for the same operation (geometric mean over {over}; "
                 f"{min(ratios):.2f} to {max(ratios):.2f} by cell)")
        text += ("; both ran on this host, so no gap comes from a different machine, though the sessions ran at "
                 "other minutes of the sitting. E6's ratios are the worker's." if same else
                 "; reading both harnesses finds no cause but the host, so E6's ratios are the worker's.")
    return text + " Appendix B.7 has every cell both ways and benchstat's table remade."


def harness_difference(runs: RunSet) -> str:
    """What the worker and `go test -bench` differ in, from the manifests: both time bench.go's same
    operation (go test: its loop over b.N operations / b.N; the worker: `ops` operations / ops; set-up,
    resets and checks untimed in both, the set-up remade, RamSQL's table dropped and refilled, on every
    call, so no rows pile up as b.N grows). On another host the gap is put down to the host; on this
    host (same CPU model, kernel and hostname) the host does not explain it."""
    gotest, worker = _hosts(runs)
    if not gotest or not worker:
        return ""
    g_cpu, g_commit, g_day = _side_facts(gotest)
    w_cpu, w_commit, w_day = _side_facts(worker)
    loads = [(m.machine or {}).get("loadavg_before") for m in gotest]
    loads = [l for l in loads if isinstance(l, (list, tuple)) and len(l) == 3]
    cores = {(m.machine or {}).get("cpu", {}).get("cores") for m in gotest} - {None}
    load = ""
    if loads and cores:
        l15 = max(l[2] for l in loads)
        load = (f", on a {max(cores)}-core VM whose load average over 15 minutes was {l15:.1f} when they were "
                f"imported ({l15 / max(cores):.{0 if l15 / max(cores) >= 10 else 1}f} runnable threads per core)")
    same_code = ("both time the same code (bench.go) and the same operation (go test's ns/op is "
                 "its timed loop over b.N operations / b.N, the worker's an iteration of `ops` operations / ops; set-up, "
                 "resets and checks untimed in both; every call remakes the set-up, RamSQL's table dropped and refilled, "
                 "so no rows pile up as b.N grows)")
    if same_host(gotest, worker):
        order = (" (one session before the worker's E6 run, one after it, so a drift of the host over the study "
                 "shows as a difference between the two sessions)" if _bracketed(gotest, worker) else "")
        return (f"How the two compare: {same_code}. Both ran on this host ({w_cpu}; the manifests record the same "
                f"CPU model, kernel and hostname): the go test sessions at {_commits(g_commit)} on {g_day}{load}"
                f"{order}; the worker's runs at {_commits(w_commit)} on {w_day}. The host does not explain a gap "
                "between them; what is left is how each harness runs the code (go test: one process, its loop of "
                "b.N operations timed as one sample; the worker: fresh processes, `ops` operations an iteration).")
    return (f"Why the two disagree: {same_code}. What differs is the host: the go test sessions ran on "
            f"{g_cpu} at {_commits(g_commit)} on {g_day}{load}; the worker's runs on {w_cpu} at {_commits(w_commit)} on "
            f"{w_day}. Reading the two finds no other difference, so we put the gap down to the host (another CPU"
            + (", oversubscribed" if _load_per_core(gotest) > 1.0 else "") + "); go test's cells "
            "here say nothing about the engines' speed on our host.")


def engine_ratios(runs: RunSet, num: str = RAMSQL, den: str = SQLITE) -> pd.DataFrame:
    """`num` / `den` (by default RamSQL / SQLite through the seed's driver) per E6 benchmark (worker cells;
    same ops on both sides), with its 99% CI."""
    boots = runs.boots()
    s = runs.summary
    ok = s[s["benchmark"].str.startswith(PREFIX) & (s["status"] == "ok")]
    rows = []
    for bench in [w for w in workloads.all_workloads() if w.startswith(PREFIX)]:
        keys = {}
        for r in ok[ok["benchmark"] == bench].itertuples(index=False):
            keys[r.engine] = (r.benchmark, r.params, r.engine, r.runtime)
        if num in keys and den in keys and keys[num] in boots and keys[den] in boots:
            est, lo, hi = combine_log_ratios([(boots[keys[num]], boots[keys[den]])], runs.confidence)
            rows.append({"benchmark": bench, "ratio": est, "low": lo, "high": hi})
    return pd.DataFrame(rows, columns=["benchmark", "ratio", "low", "high"])


def gap_ratio(runs: RunSet, bench: str, other: str, num: str = RAMSQL, den: str = SQLITE) -> tuple[float, float, float]:
    """How `num`'s gap to `den` on `bench` compares with its gap on `other`: (num/den on bench) / (num/den on
    other), with its interval (t on the log scale over the four cells' variances), nan where a cell is missing.
    (a/b) / (c/d) is the square of the geometric mean of a/b and d/c, so `combine_log_ratios` gives it."""
    boots = runs.boots()
    s = runs.summary
    ok = s[(s["status"] == "ok") & s["benchmark"].isin((bench, other)) & s["engine"].isin((num, den))]
    keys = {(r.benchmark, r.engine): (r.benchmark, r.params, r.engine, r.runtime) for r in ok.itertuples(index=False)
            if "aa=twin" not in str(r.params)}
    need = [(bench, num), (bench, den), (other, num), (other, den)]
    if not all(k in keys and keys[k] in boots for k in need):
        return math.nan, math.nan, math.nan
    a, b, c, d = (boots[keys[k]] for k in need)
    est, lo, hi = combine_log_ratios([(a, b), (d, c)], runs.confidence)
    return est ** 2, lo ** 2, hi ** 2


def _ratio_str(r: float, lo: float, hi: float) -> str:
    if not np.isfinite(r):
        return "not measured"
    digits = 1 if r >= 10 else 2
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{r:.{digits}f}x (no CI)"
    return f"{r:.{digits}f}x [{lo:.{digits}f}, {hi:.{digits}f}]"


def faithful_geomean(runs: RunSet, ours: pd.DataFrame) -> tuple[float, float, float]:
    """Geometric mean of the seed's 8 cells per operation (worker), with its 99% CI (one run's, as `per_op`)."""
    boots = runspread.one_run(runs).boots()
    s = runs.summary
    pairs = []
    for r in s[s["benchmark"].isin(FAITHFUL) & s["engine"].isin([RAMSQL, SQLITE]) & (s["status"] == "ok")
               ].itertuples(index=False):
        key = (r.benchmark, r.params, r.engine, r.runtime)
        if key in boots:
            pairs.append((boots[key], _unit(_ops(r.benchmark, r.params))))
    if len(pairs) != 2 * len(FAITHFUL):
        return math.nan, math.nan, math.nan
    return combine_log_ratios(pairs, runs.confidence)


def seed_table(runs: RunSet, ratios: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """The seed's headline numbers (constants, labelled) beside ours, with the reason for each difference."""
    by = ratios.set_index("benchmark") if len(ratios) else pd.DataFrame(columns=["ratio", "low", "high"])
    rows = []
    for bench, sec in SEED_SEC_PER_OP.items():
        seed_ratio = sec[RAMSQL] / sec[SQLITE]
        r = by.loc[bench] if bench in by.index else None
        ours_s = _ratio_str(r["ratio"], r["low"], r["high"]) if r is not None else "not measured"
        fixed = bench + "_fixed" if bench + "_fixed" in by.index else None
        fixed_s = _ratio_str(*by.loc[fixed, ["ratio", "low", "high"]]) if fixed else ""
        rows.append({"what": f"RamSQL / SQLite, {bench.replace(PREFIX, '')}", "seed (its table)": f"{seed_ratio:.1f}x"
                     if seed_ratio >= 10 else f"{seed_ratio:.2f}x", "ours, seed's code": ours_s,
                     "ours, fixed variant": fixed_s, "why they differ": REASONS[bench]})
    gm, lo, hi = faithful_geomean(runs, ours)
    rows.append({"what": "geomean of the seed's 8 cells, s/op", "seed (its table)": f"{tables.fmt_si(SEED_GEOMEAN[1])}s",
                 "ours, seed's code": _fmt(gm, lo, hi) or "not measured", "ours, fixed variant": "",
                 "why they differ": REASONS["geomean"]})
    return pd.DataFrame(rows)


def seed_markdown(seed: pd.DataFrame, spread: str = "") -> str:
    """`spread`: what the ratios' intervals add beyond one run (`findings.spread_of`), "" for none."""
    return (to_markdown(seed) + "\n\nTable: E6, the seed's numbers (from its first benchstat table, medians of 6 "
            f"samples, no interval given) beside ours (worker protocol: ratio of means with 99% CI{' ' + spread if spread else ''}, "
            "bootstrap of both cells on the log scale; geomean with one run's 99% CI from the cells' log variances). "
            "The seed's values are constants typed from its text; everything else is computed from our raw "
            "timings.")


def _gotest_raw(runs: RunSet) -> dict[str, pd.DataFrame]:
    raw = runs.raw_of("RamSQL*", "SQLite*")  # the imported go test sessions' benchmark names
    return {e: raw[raw["engine"] == e].assign(engine="gotest") for e in GOTEST if (raw["engine"] == e).any()}


def _benchstat_output(runs: RunSet) -> tuple[str | None, str]:
    """benchstat's stored output on the same lines (from an imported run's gobench/ folder), or why not.
    A run whose benchstat ran comes first: of sessions made one per `gobench` call (the reference
    campaign's E6: the second continues the first, `--after`), only the second compared the two."""
    import json

    reasons = []
    for d in runs.run_dirs:
        folder = Path(d) / "gobench"
        if (folder / "gobench.json").exists():
            meta = json.loads((folder / "gobench.json").read_text())
            info = meta.get("benchstat") or {}
            if "skipped" in info:
                reasons.append(f"benchstat was not run: {info['skipped']}")
                continue
            text = (folder / "benchstat.txt").read_text() if (folder / "benchstat.txt").exists() else ""
            if info.get("status") or not text.strip():
                reasons.append(f"benchstat failed (status {info.get('status')}): {info.get('stderr', '')[:200]}")
                continue
            return text, ""
    if reasons:
        return None, reasons[0]
    return None, "no imported `go test -bench` sessions (`harness gobench`) in these runs"


def _benchstat_pvalues(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+?)(?:-\d+)?\s.*\(p=([0-9.]+) n=", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def benchstat_remake(runs: RunSet) -> dict:
    """The seed's benchstat table remade: our compare of the two go test sessions beside benchstat's."""
    raw = _gotest_raw(runs)
    if len(raw) < 2:
        return {"compare": pd.DataFrame(), "markdown": "_No pair of `go test -bench` sessions in these runs "
                                                       "(`python -m harness gobench` makes one), so the seed's "
                                                       "benchstat table is not remade._"}
    cmp = stats.compare_runs(raw["gotest-1"], raw["gotest-2"], alpha=0.05, confidence=0.95)
    ours = tables.compare_text(cmp, "bench.txt", "newbench.txt", 0.05, 0.95)
    text, reason = _benchstat_output(runs)
    parts = ["Our `compare` on the two sessions (A/A: the same code run twice):", "```text\n" + ours.rstrip() + "\n```"]
    if text is None:
        parts.append(f"Real benchstat: skipped ({reason}).")
    else:
        parts += ["Real benchstat on the same raw lines, as it printed them:", "```text\n" + text.rstrip() + "\n```"]
        theirs = _benchstat_pvalues(text)
        rows = cmp[cmp["benchmark"] != "geomean"]
        same = sum(1 for r in rows.itertuples() if r.benchmark in theirs
                   and abs(round(r.p_value, 3) - theirs[r.benchmark]) < 5e-4)
        sig = int(rows["significant"].sum())
        geo = cmp[cmp["benchmark"] == "geomean"]["delta_pct"]
        parts.append(f"The p-values agree to benchstat's three decimals on {same} of {len(rows)} rows. "
                     f"{sig} of {len(rows)} rows differ significantly (p <= 0.05) between two sessions of the same "
                     f"code; the geomean moves {float(geo.iloc[0]):+.2f}% (the seed's table: "
                     f"{SEED_GEOMEAN[2]:+.2f}% between two commits).")
    return {"compare": cmp, "markdown": "\n\n".join(parts)}


def cgo_text(cgo: pd.DataFrame) -> str:
    """How SQLite's time changes when Go reaches it through cgo (mattn/go-sqlite3, the system's libsqlite3)
    instead of the seed's pure-Go translation (glebarez/go-sqlite): per fixed benchmark, cgo / pure Go."""
    if cgo.empty:
        return ""
    by = cgo.set_index("benchmark")
    bits = [f"{b.replace(PREFIX, '')} {_ratio_str(*by.loc[b, ['ratio', 'low', 'high']])}"
            for b in ("ramsql.select_10k_fixed", "ramsql.select_key", "ramsql.insert10_fixed", "ramsql.setup_fixed")
            if b in by.index]
    if not bits:
        return ""
    return ("SQLite through cgo (mattn/go-sqlite3 on the system's library) against the seed's pure-Go "
            "glebarez/go-sqlite, time / time: " + "; ".join(bits) + " (99% CI; the two also link different "
            "SQLite releases, Appendix E).")


def _gotest_cell(boots: dict, bench: str, prefix: str, session_engine: str) -> tuple | None:
    """The key of `bench`'s imported go test cell for one engine (`prefix`: RamSQL or SQLite, go test's name
    for it) in one session (engine gotest-N), or None (no go test name, or not in these runs)."""
    name = getattr(workloads.all_workloads().get(bench), "gotest", None)
    if not name:
        return None
    return next((k for k in boots if k[0] == f"{prefix}{name}" and k[2] == session_engine), None)


def harness_ratios(runs: RunSet, bench: str = HEADLINE) -> list[tuple[str, str, float, float, float]]:
    """go test's time per operation over the worker's, per engine (RamSQL, SQLite through the seed's driver) and
    `go test` session, with its interval (t on the log scale; the worker's iteration divided by its `ops`):
    (engine, session file, estimate, low, high). Empty without both harnesses' cells."""
    boots = runs.boots()
    out = []
    for prefix, engine in ENGINE_OF_PREFIX.items():
        worker = sorted(k for k in boots if k[0] == bench and k[2] == engine and "aa=twin" not in str(k[1]))
        if not worker:
            continue
        ops = _ops(bench, worker[0][1])
        for gengine, sess in SESSION_FILES.items():
            g = _gotest_cell(boots, bench, prefix, gengine)
            if g is not None:
                est, lo, hi = combine_log_ratios([(boots[g], boots[worker[0]])], runs.confidence)
                out.append((engine, sess, est * ops, lo * ops, hi * ops))
    return out


def ratios_apart(worker: tuple[float, float, float] | None,
                 gotest: list[tuple[str, float, float, float]] | None) -> list[str] | None:
    """The `go test` sessions whose RamSQL / SQLite interval does not overlap the worker's ((est, low, high)); None
    when either side is missing, so no sentence says the ratios overlap without having compared them."""
    if worker is None or not gotest or not all(math.isfinite(x) for x in worker[1:]):
        return None
    return [sess for sess, _, lo, hi in gotest if hi < worker[1] or lo > worker[2]]


def gap_text(found: list[tuple[str, str, float, float, float]], bench: str = HEADLINE,
             confidence: float = 0.99, spread: str = "", apart_sessions: list[str] | None = None) -> str:
    """Where the worker's RamSQL / SQLite and go test's part, on one benchmark (`harness_ratios`' rows): each
    engine's go test time per operation over the worker's, per session with its interval, and on which engine
    the two harnesses disagree (an interval that excludes 1). "" without both engines."""
    by: dict[str, list[tuple[str, float, float, float]]] = {}
    for engine, sess, est, lo, hi in found:
        by.setdefault(engine, []).append((sess, est, lo, hi))
    if len(by) < 2:
        return ""
    sessions = ", ".join(sess for sess, *_ in next(iter(by.values())))
    said = "; ".join(f"{e} " + " and ".join(f"{est:.2f}x [{lo:.2f}, {hi:.2f}]" for _, est, lo, hi in rows)
                     for e, rows in by.items())
    apart = [e for e, rows in by.items() if any(lo > 1 or hi < 1 for _, _, lo, hi in rows)]
    text = (f"On {bench.replace(PREFIX, '')}, go test's time per operation over the worker's is {said} ({sessions}; "
            f"{confidence:.0%} CI{' ' + spread if spread else ''})")
    if apart:
        text += f": the harnesses disagree on {' and '.join(apart)}'s time."
        if apart_sessions is None:
            return text
        if not apart_sessions:
            return text + " The ratios' intervals overlap, so the two harnesses cannot be told apart on the ratio."
        return text + (f" The ratio's interval of {' and '.join(apart_sessions)} does not overlap the worker's, so "
                       "the two harnesses disagree on the ratio too.")
    return text + ": every interval includes 1, so the harnesses do not disagree on either engine's time."


def findings_text(ours: pd.DataFrame, ratios: pd.DataFrame, gotest: list | None = None,
                  where: str = "on another host", cgo: pd.DataFrame | None = None,
                  harness: list | None = None, confidence: float = 0.99, spread: str = "") -> str:
    """Generated sentences: what the seed's code measured per engine (rows read) and the fixed ratios, and
    (`harness`, `harness_ratios` of the headline query) where the two ways in part on it. `spread`: what the
    ratios' intervals add beyond one run (`findings.spread_of`)."""
    if ours.empty:
        return "_No E6 cells in these runs._"
    parts = []
    sel = ours[ours["benchmark"].isin(["ramsql.select", "ramsql.select_10k"])]
    for bench, grp in sel.groupby("benchmark", sort=False):
        per = ", ".join(f"{r.rows_per_op:.0f} on {r.engine}" for r in grp.drop_duplicates("engine").itertuples())
        parts.append(f"{bench.replace(PREFIX, '')} {per}")
    text = ("Rows read per query by the seed's code: " + "; ".join(parts) + ".") if parts else ""
    by = ratios.set_index("benchmark") if len(ratios) else None
    bits, gap = [], ""
    if by is not None:
        for bench in ("ramsql.select_fixed", "ramsql.select_10k_fixed", "ramsql.select_key", "ramsql.insert10_fixed",
                      "ramsql.setup_fixed"):
            if bench in by.index:
                r = by.loc[bench]
                bits.append(f"{bench.replace(PREFIX, '')} {_ratio_str(r['ratio'], r['low'], r['high'])}")
    if bits:
        text += (" With the fixes, RamSQL / SQLite is, in our worker: " + "; ".join(bits)
                 + f" (99% CI{' ' + spread if spread else ''}).")
        if gotest is not None and len(gotest):
            gt = [f"{_ratio_str(r, lo, hi)} ({sess})" for sess, r, lo, hi in gotest]
            if gt:
                text += (f" `go test -bench`, {where or 'on another host'} (Appendix B.7), gives select_10k_fixed "
                         + " and ".join(gt) + ".")
                worker = (tuple(by.loc[HEADLINE, ["ratio", "low", "high"]]) if HEADLINE in by.index else None)
                gap = (gap_text(harness, confidence=confidence, spread=spread,
                                apart_sessions=ratios_apart(worker, gotest)) if harness else "")
    if cgo is not None:
        text += " " + cgo_text(cgo)
    return text.strip() + (f"\n\n{gap}" if gap else "")  # a paragraph of its own: how the two ways in part


def abstract(runs: RunSet) -> str:
    """The abstract's E6 sentence: RamSQL against SQLite on the seed's headline query, fixed so that
    both engines read the same rows."""
    from harness.studies import findings

    runs = runspread.with_spread(runs)  # the reader's first number carries the run-to-run spread
    s = findings.compare(runs, HEADLINE, f"{RAMSQL}@go", f"{SQLITE}@go",
                         "on the seed's range select over 10,000 rows, fixed so that both read the same rows",
                         plain=True)
    if not s:
        return "_No E6 comparison in these runs._"
    gt = gotest_ratios(runs, HEADLINE)
    if gt:
        s = s.rstrip(".") + (f", by our worker; `go test -bench`, run {gotest_where(runs) or 'on another host'}, gives "
                             + " and ".join(_ratio_str(r, lo, hi) for _, r, lo, hi in gt) + ".")
        apart = sorted({e for e, _, _, lo, hi in harness_ratios(runs) if lo > 1 or hi < 1})
        if apart:  # the two harnesses time an engine differently; whether the ratio moves with them is compared
            names = " and ".join(findings.plain_name(f"{e}@go") for e in apart)
            worker = findings.pair_ratio(runs, HEADLINE, f"{RAMSQL}@go", f"{SQLITE}@go")
            off = ratios_apart(worker, gt)
            s += (f" The two harnesses disagree on the time of {names}" + (
                  "" if off is None else ", but their ratios' intervals overlap" if not off else
                  f", and on the ratio too ({' and '.join(off)})") + " (Section 8).")
    return s


def gotest_ratios(runs: RunSet, bench: str) -> list[tuple[str, float, float, float]]:
    """RamSQL / SQLite on one benchmark in each imported `go test -bench` session, with its CI
    (each result line one sample, as the go test cells of the E6 table)."""
    boots = runs.boots()
    out = []
    for engine, sess in SESSION_FILES.items():
        ka, kb = _gotest_cell(boots, bench, "RamSQL", engine), _gotest_cell(boots, bench, "SQLite", engine)
        if ka and kb:
            est, lo, hi = combine_log_ratios([(boots[ka], boots[kb])], runs.confidence)
            out.append((sess, est, lo, hi))
    return out
