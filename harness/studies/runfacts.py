"""What the paper says about the runs themselves: noise warnings, precision achieved, how to reproduce.

Read from the runs' manifests (their `doctor` findings, `adaptive` section and `command`) and
process records (`noise`), so the summary, every notebook and the paper say the same thing.
"""
from __future__ import annotations

import math
import shlex
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from harness.analysis.aa import POWER, detectable_effect
from harness.analysis.runset import manifest_of, process_frame, runtime_family
from harness.redaction import redact
from harness.studies.common import BASELINE

if TYPE_CHECKING:
    from harness.analysis.runset import RunSet
    from harness.record import Manifest


def noise_warning(processes: pd.DataFrame, manifests: list[Manifest]) -> str:
    """A warning when processes were marked noisy or a run started on a busy machine ('' if neither)."""
    from harness.analysis.summary import disturbed_facts, noise_facts
    from harness.analysis.wording import noise_sentences

    n, timed, busy = noise_facts(processes, manifests)
    parts = noise_sentences(n, timed, busy, disturbed=bool(disturbed_facts(processes)[1]))
    if not parts:
        return ""
    # a few disturbed processes, left out and rerun, on a machine that started quiet: a fact, not a warning
    heading = "**Interference.** " if not busy and timed and n / timed <= 0.1 else "**Warning: noisy run.** "
    return heading + ". ".join(p[0].upper() + p[1:] for p in parts) + "."


def noise_block(runs: RunSet) -> str:
    """The paper's noise paragraph: the warning, or a sentence saying no process was marked."""
    return noise_block_of(runs.run_dirs, runs.processes)


def noise_block_of(run_dirs: list[Path], processes: pd.DataFrame | None = None) -> str:
    """`noise_block` from run directories (their process records read here unless given)."""
    if processes is None:
        processes = process_frame(run_dirs)
    manifests = [manifest_of(d) for d in run_dirs]
    text = noise_warning(processes, manifests)
    if text:
        return text + per_study_disturbed(processes)
    marked = "noise" in processes and processes["noise"].map(lambda v: isinstance(v, dict)).any()
    checked = any(m.doctor for m in manifests)
    if not marked and not checked:
        return ("_These runs predate the noise checks: no process was checked for other programs' load and no "
                "`doctor` findings were recorded, so how busy the machine was is unknown._")
    return "No process was marked noisy and no run started on a busy machine."


def per_study_disturbed(processes: pd.DataFrame) -> str:
    """The sentence " Per study: E1 11 of 3,271; ...": each study's disturbed processes beside those whose
    interference was measured, so the warning's total can be traced to the runs ("" when none was)."""
    from harness.analysis.summary import disturbed_facts
    from harness.studies import STUDIES

    if processes.empty or "benchmark" not in processes:
        return ""
    fams = processes["benchmark"].astype(str).map(family)
    parts = []
    for fam in sorted(set(fams), key=lambda f: STUDIES.get(f, f)):
        flagged, measured, _ = disturbed_facts(processes[fams == fam])
        if measured:
            parts.append(f"{STUDIES.get(fam, fam)} {flagged:,} of {measured:,}")
    return (" Per study: " + "; ".join(parts) + ".") if parts else ""


def family(benchmark: str) -> str:
    """`tpch.q01` -> `tpch`; a benchmark without a family prefix (an imported run's own names,
    such as go test's `RamSQLSelect`) -> `imported`."""
    name = str(benchmark)
    return name.split(".", 1)[0] if "." in name else "imported"


def _pct(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"±{100 * x:.1f}%"


STOPS = ("met", "budget", "no steady state", "timeout", "not run")


def _twin(params: str) -> bool:
    from harness.analysis.runset import is_twin

    return is_twin(params)


def precision_table(runs: RunSet) -> pd.DataFrame:
    """Per run and benchmark family: target, median and 90th-percentile achieved relative half-width
    (99% CI, default method, steady state; from the manifest's `adaptive` record where there is
    one, otherwise from the summary), and the number of cells by stop reason."""
    from harness.analysis.planner import relative_half_width

    rows = []
    clean = _clean_processes(runs)
    for d in runs.run_dirs:
        m = runs.manifest(d)
        mine = runs.run_cells(d)  # this run's cells (a cell two runs share is counted in both)
        adaptive = m.adaptive
        if adaptive:
            cells = pd.DataFrame(adaptive.get("cells", []))
            if cells.empty:
                continue
            if "params" in cells:
                cells = cells[~cells["params"].astype(str).map(_twin)]
            cells["family"] = cells["benchmark"].map(family)
            target = (adaptive.get("settings") or {}).get("target")
            for fam, g in cells.groupby("family"):
                got = pd.to_numeric(g.get("achieved"), errors="coerce").dropna()
                stops = g["stop"].value_counts()
                rows.append({"run": m.run_id, "family": fam, "protocol": "adaptive", "target": target,
                             "cells": len(g), "median": float(np.median(got)) if len(got) else math.nan,
                             "p90": float(np.quantile(got, 0.9)) if len(got) else math.nan,
                             **{s: int(stops.get(s, 0)) for s in STOPS},
                             "other": int(len(g) - sum(stops.get(s, 0) for s in STOPS)),
                             "ten": _at_least_ten(clean, mine, fam)})
        else:
            s = runs.summary
            if mine:
                fam_of = s["runtime"].astype(str).map(runtime_family)
                keep = [(b, p, e, f) in mine for b, p, e, f in zip(s["benchmark"], s["params"], s["engine"], fam_of)]
                s = s[keep]
            s = s.assign(family=s["benchmark"].map(family))
            for fam, g in s.groupby("family"):
                got = pd.Series([relative_half_width(a, lo, hi) for a, lo, hi in
                                 zip(g["mean_s"], g["ci_low_s"], g["ci_high_s"])]).dropna()
                ran = int(g["mean_s"].notna().sum())
                rows.append({"run": m.run_id, "family": fam, "protocol": "fixed", "target": None,
                             "cells": len(g), "median": float(np.median(got)) if len(got) else math.nan,
                             "p90": float(np.quantile(got, 0.9)) if len(got) else math.nan,
                             "met": 0, "budget": 0, "no steady state": 0, "timeout": 0, "not run": len(g) - ran,
                             "other": 0, "ten": _at_least_ten(clean, mine, fam)})
    return pd.DataFrame(rows)


#: the fewest clean processes a cell of the reference campaign should have (or its target met)
MIN_CLEAN = 10


def _clean_processes(runs: RunSet) -> dict[tuple, int]:
    """Per cell (benchmark, params, engine, runtime family): the processes its estimate used (disturbed
    ones left out), twins excluded."""
    s = runs.summary
    if s.empty or "processes" not in s:
        return {}
    fams = s["runtime"].astype(str).map(runtime_family)
    return {(b, p, e, f): int(n) for b, p, e, f, n in zip(s["benchmark"], s["params"], s["engine"], fams,
                                                          s["processes"].fillna(0)) if not _twin(str(p))}


def _at_least_ten(clean: dict[tuple, int], run_cells: set[tuple], fam: str) -> tuple[int, int]:
    """(cells with at least MIN_CLEAN clean processes, cells measured) among a run's cells of `fam`."""
    counts = [clean[k] for k in run_cells if family(k[0]) == fam and clean.get(k, 0) > 0]
    return sum(1 for n in counts if n >= MIN_CLEAN), len(counts)


#: each family's baseline for its geometric means (E6 is in Go: its SQLite is the seed's driver,
#: glebarez/go-sqlite)
FAMILY_BASELINE = {"ramsql": "sqlite/glebarez@go"}
#: the precision targets the reference campaign aims at: per-cell half-width and geometric means
CELL_TARGET, GEOMEAN_TARGET = 0.05, 0.03


def geomean_precision(runs: RunSet, baseline: str = BASELINE, cells: set[tuple] | None = None) -> pd.DataFrame:
    """Per family and engine/runtime: the geometric mean of time / the family's baseline over the
    family's benchmarks, its interval and relative half-width (high - low) / (2 ratio). With `cells`
    (one run's keys, benchmark, params, engine, runtime family: `RunSet.run_cells`), over those cells
    only, so a study of two runs gets each run's own geometric means."""
    from harness.analysis.stats import is_baseline

    columns = ["family", "engine", "runtime", "baseline", "ratio", "low", "high", "half", "n"]
    s = runs.summary
    if not {"benchmark", "params", "engine", "runtime", "mean_s"} <= set(s.columns):
        return pd.DataFrame(columns=columns)
    if cells is not None:
        fams = s["runtime"].astype(str).map(runtime_family)
        s = s[[k in cells for k in zip(s["benchmark"], s["params"], s["engine"], fams)]]
    timed = s[s["mean_s"].notna() & (s["status"] == "ok")] if "status" in s else s[s["mean_s"].notna()]
    rows = []
    for fam in sorted({family(b) for b in timed["benchmark"]}):
        base = FAMILY_BASELINE.get(fam, baseline)
        keys = list(timed[timed["benchmark"].map(family) == fam][["benchmark", "params", "engine", "runtime"]]
                    .itertuples(index=False, name=None))
        if not any(is_baseline(k[2], k[3], base) for k in keys):
            continue  # no baseline cell in this family: no geometric mean to give
        ratios = runs.ratio_rows(keys, base)
        geo = ratios[(ratios["benchmark"] == "geomean") & ratios["ratio"].notna()]
        for r in geo.itertuples(index=False):
            if is_baseline(r.engine, r.runtime, base):
                continue
            ok = math.isfinite(r.ratio_ci_low) and math.isfinite(r.ratio_ci_high) and r.ratio > 0
            half = (r.ratio_ci_high - r.ratio_ci_low) / (2 * r.ratio) if ok else math.nan
            rows.append({"family": fam, "engine": r.engine, "runtime": r.runtime, "baseline": base,
                         "ratio": r.ratio, "low": r.ratio_ci_low, "high": r.ratio_ci_high, "half": half,
                         "n": int(r.n)})
    return pd.DataFrame(rows, columns=columns)


def precision_block(runs: RunSet) -> str:
    """Markdown: the precision table per study (run and family) against the campaign's targets,
    and a sentence per protocol saying what it means."""
    from harness.studies import STUDIES

    t = precision_table(runs)
    if t.empty:
        return "_No cells in these runs._"
    # each run's own geometric means: a study of two runs (E5's LG2 step) gets a row per run, each
    # over that run's cells, not the study's means repeated
    dirs = {runs.manifest(d).run_id: d for d in runs.run_dirs}
    geo_of = {run: geomean_precision(runs, cells=runs.run_cells(d)) for run, d in dirs.items()}
    conf = f"{runs.confidence:.0%}"
    lines = [f"| study | run | cells | median half-width | met their target | ≥ {MIN_CLEAN} clean processes | "
             f"geometric means within ±{GEOMEAN_TARGET:.0%} (the widest) |",
             "|---|---|---:|---:|---:|---:|---:|"]
    stop_notes = []
    # in study order (E1, E2, ...), another tool's imported runs last
    records = sorted(t.to_dict("records"), key=lambda r: (r["family"] == "imported",
                                                          str(STUDIES.get(r["family"], r["family"])), str(r["run"])))
    for r in records:
        geo = geo_of.get(r["run"], pd.DataFrame(columns=["family", "half"]))
        g = geo[geo["family"] == r["family"]] if len(geo) else geo
        within = int((g["half"] <= GEOMEAN_TARGET).sum()) if len(g) else 0
        widest = _pct(float(g["half"].max())) if len(g) and g["half"].notna().any() else "—"
        met = f"{r['met']} of {r['cells']}" if r["protocol"] == "adaptive" else "— (fixed)"
        study = STUDIES.get(r["family"], r["family"])
        name = (study if study == r["family"] else f"{study} ({r['family']})") if r["family"] != "imported" else \
            "imported (another tool's output, e.g. E6's `go test` sessions)"
        lines.append(f"| {name} | {r['run']} | {r['cells']} | {_pct(r['median'])} | {met} | "
                     f"{r['ten'][0]} of {r['ten'][1]} measured | {within} of {len(g)} ({widest}) |")
        if r["protocol"] == "adaptive":
            others = [f"{r[k]} {k}" for k in STOPS[1:] if r[k]]
            if others:
                stop_notes.append(f"{study}: {', '.join(others)}")
    notes = [f"Targets: a median per-cell half-width within ±{CELL_TARGET:.0%} and every geometric mean within "
             f"±{GEOMEAN_TARGET:.0%}."]
    if (t["protocol"] == "adaptive").any():
        notes.append("An adaptive run adds processes to each cell until its interval meets the target; a cell that "
                     "did not stopped for its time budget (`budget`), for lack of a steady state, for a process "
                     "timeout, or because it could not run (`not run`: a runtime without that driver or engine, such as "
                     "DuckDB or psycopg on PyPy, a component not built on the machine, or a cell left out to fit the "
                     "study's budget)" + (f" ({'; '.join(stop_notes)})" if stop_notes else "")
                     + ".")
    if (t["protocol"] == "fixed").any():
        notes.append("A fixed run used a set number of processes and iterations per cell; its half-widths are "
                     "what that protocol achieved.")
    caption = (f"Table: precision achieved per study: relative half-width (high - low) / (2 mean) of each cell's "
               f"one-run {conf} confidence interval ({runs.method} method, steady-state iterations, A/A twins left "
               "out), "
               "median over the cells with an interval; and the geometric means of time / the study's baseline "
               "over its benchmarks, one per engine and runtime, with their relative half-widths.")
    return "\n".join(lines) + "\n\n" + " ".join(notes) + "\n\n" + caption


def aa_of(runs: RunSet) -> tuple[RunSet, pd.DataFrame]:
    """The runs with their A/A twins kept (the same statistical options) and the A/A table per family
    (`aa.aa_by_family`): computed once for the A/A block and the abstract."""
    from harness.analysis import aa
    from harness.analysis.runset import RunSet as Runs

    twins = Runs(runs.run_dirs, method=runs.method, confidence=runs.confidence, resamples=runs.resamples,
                 seed=runs.seed, steady_state=runs.steady_state, aa_twins=True)
    return twins, aa.aa_by_family(twins)


def abstract_precision(runs: RunSet, aa_table: pd.DataFrame | None = None) -> str:
    """The abstract's sentence on what the runs could resolve: the range of the studies' median
    per-cell half-widths, how many geometric means met their target, and the A/A check (`aa_table`:
    `aa_of(runs)[1]`, computed here when not given)."""
    from harness.studies import STUDIES

    t = precision_table(runs)
    t = t[(t["family"] != "imported") & t["median"].notna()] if len(t) else t
    if t.empty:
        return "_No cells in these runs._"
    # each study by its main run (the one with the most cells), not by a small step run beside it
    t = t.sort_values("cells", ascending=False, kind="stable").drop_duplicates("family")
    lo, hi = t.loc[t["median"].idxmin()], t.loc[t["median"].idxmax()]
    geo = geomean_precision(runs)
    within = int((geo["half"] <= GEOMEAN_TARGET).sum()) if len(geo) else 0
    text = (f"The intervals are wide: the median per-cell half-width of the studies' main runs ranges from "
            f"{_pct(lo['median'])} "
            f"({STUDIES.get(lo['family'], lo['family'])}) to {_pct(hi['median'])} "
            f"({STUDIES.get(hi['family'], hi['family'])}), and {within} of {len(geo)} geometric means are within "
            f"the ±{GEOMEAN_TARGET:.0%} we aimed at (Section 2.5).")
    a = aa_of(runs)[1] if aa_table is None else aa_table
    if len(a):
        pairs, differs = int(a["pairs"].sum()), int(a["differs"].sum())
        ok = int(sum(1 for r in a.to_dict("records") if r["low"] <= 1.0 <= r["high"]))
        text += (f" The A/A check called {differs} of {pairs} pairs of a cell and its twin different "
                 f"({differs / pairs:.1%}, where chance alone gives about {1 - runs.confidence:.0%}), and the "
                 f"twin / cell interval includes 1 in {ok} of {len(a)} studies")
        det = a["detectable"].dropna() if "detectable" in a else pd.Series(dtype=float)
        if len(det):
            text += (f"; a single pair could only have seen a bias of {det.min():.0%} to {det.max():.0%} "
                     f"(the studies' median pairs, at {POWER:.0%} power)")
        text += "."
    return text


def aa_block(runs: RunSet, aa: tuple[RunSet, pd.DataFrame] | None = None) -> str:
    """Markdown: the within-run A/A check of each study (its baseline measured twice under two
    names, interleaved): pairs, how many were called different, and the geometric mean of twin /
    cell with its interval, which must include 1 (`aa`: `aa_of(runs)`, computed here when not given)."""
    from harness.studies import STUDIES

    twins, t = aa_of(runs) if aa is None else aa
    conf = f"{runs.confidence:.0%}"
    if t.empty:
        return "_No A/A twins in these runs (`harness run --aa`)._"
    lines = [f"| study | family | A/A pairs | called different | twin / cell, geometric mean [{conf} CI] | includes 1 "
             f"| one pair detects ({POWER:.0%} power) |",
             "|---|---|---:|---:|---:|---|---:|"]
    for r in sorted(t.to_dict("records"), key=lambda r: str(STUDIES.get(r["family"], r["family"]))):  # E1, E2, ...
        ok = math.isfinite(r["low"]) and math.isfinite(r["high"])
        ci = f"{r['geomean']:.3f} [{r['low']:.3f}, {r['high']:.3f}]" if ok else f"{r['geomean']:.3f} (no interval)"
        inside = ("yes" if r["low"] <= 1.0 <= r["high"] else "**no**") if ok else "—"
        det = f"±{r['detectable']:.0%}" if math.isfinite(r.get("detectable", math.nan)) else "—"
        lines.append(f"| {STUDIES.get(r['family'], '')} | {r['family']} | {r['pairs']} | {r['differs']} | {ci} | {inside} "
                     f"| {det} |")
    explain = [aa_drift_sentence(twins, r["family"], STUDIES.get(r["family"], r["family"])) for r in t.to_dict("records")
               if math.isfinite(r["low"]) and math.isfinite(r["high"]) and not r["low"] <= 1.0 <= r["high"]]
    pairs, differs = int(t["pairs"].sum()), int(t["differs"].sum())
    share = differs / pairs if pairs else math.nan
    # how likely this count is by chance alone (independent pairs, each a false alarm with 1 - confidence)
    chance = float(sps.binom.pmf(differs, pairs, 1 - runs.confidence)) if pairs else math.nan
    total = (f"Across the studies, {differs} of {pairs} A/A pairs ({share:.1%}) were called different at {conf}; "
             f"by chance alone about {1 - runs.confidence:.0%} would be ({differs} of {pairs}: probability {chance:.2f}).")
    pooled = [detectable_effect(r["low"], r["high"], runs.confidence) for r in t.to_dict("records")]
    pooled = [d for d in pooled if math.isfinite(d)]
    if pooled:
        total += (f" Pooled over a study's pairs, the geometric mean would have found a bias shared by all its "
                  f"twins of {min(pooled):.0%} to {max(pooled):.0%} ({POWER:.0%} power): the check rules out large "
                  "protocol biases, not small ones, nor, twin and cell sharing a run, what a run adds (the "
                  "replicates below measure it).")
    caption = (f"Table: the within-run A/A check. Each study's run measured its baseline engine's cells twice, "
               f"the second time under the parameter `aa=twin`, interleaved with everything else; a pair is called "
               f"different when the {conf} interval of twin / cell ({runs.method} method, log scale) excludes 1. "
               f"The last column is the check's power: the smallest true difference between twin and cell that one "
               f"pair's interval would call different {POWER:.0%} of the time (the median pair's, normal "
               "approximation on the log scale). The twins are left out of every other table.")
    why = ("\n\n" + " ".join(e for e in explain if e)) if any(explain) else ""
    return "\n".join(lines) + "\n\n" + total + why + "\n\n" + caption


def aa_differs_sentence(runs: RunSet, family_name: str) -> str:
    """The pairs of a family's A/A check called different, each side as measured: processes, iterations per
    process, the estimate of every iteration's median, how many processes reached no steady state, and why
    the adaptive rounds stopped adding processes; twin and cell may differ in how much warm-up each kept
    though nothing else differs (`aa_rows` decides which pairs differ)."""
    from harness.analysis import aa

    rows = aa.aa_rows(runs)
    rows = rows[rows["differs"].astype(bool) & (rows["benchmark"].astype(str).map(family) == family_name)] \
        if len(rows) else rows
    s = runs.summary
    out = []
    for r in rows.itertuples():
        side = s[(s["benchmark"] == r.benchmark) & (s["engine"] == r.engine) & (s["runtime"] == r.runtime)]
        twin = side[side["params"].astype(str).map(_twin)]
        cell = side[side["params"].astype(str) == str(r.params)]
        if twin.empty or cell.empty:
            continue
        t, c = twin.iloc[0], cell.iloc[0]

        def said(x: pd.Series) -> str:
            stop = f", stopped by {x['stop']}" if isinstance(x.get("stop"), str) and x.get("stop") else ""
            return (f"{int(x['processes'])} processes of {x['iterations']:.0f} iterations on average, median "
                    f"iteration {x['median_s'] * 1e3:.3g} ms, {int(x.get('no_steady') or 0)} with no steady "
                    f"state{stop}")

        out.append(f"{r.benchmark} on {r.engine} {r.runtime}, twin / cell {r.ratio:.3g}x [{r.ratio_ci_low:.3g}, "
                   f"{r.ratio_ci_high:.3g}]: the twin {said(t)}; the cell {said(c)}")
    return ("Called different: " + "; ".join(out) + ".") if out else ""


def aa_drift_sentence(runs: RunSet, family_name: str, study: str) -> str:
    """Why a study's A/A check failed, from its process records: when in the run the twins' and their
    cells' processes ran (mean position, % of the run), and how the canary (a fixed piece of work)
    moved between the run's first and last third: a host that slowed while one side kept running
    makes that side slower though nothing else differs."""
    p = runs.processes
    if p.empty or not {"seq", "params", "benchmark", "status"} <= set(p.columns):
        return ""
    p = p[(p["benchmark"].astype(str).map(family) == family_name) & (p["status"] == "ok")]
    if p.empty:
        return ""
    span = float(p["seq"].max() - p["seq"].min()) or 1.0
    pos = (p["seq"] - p["seq"].min()) / span
    twin = p["params"].astype(str).map(_twin)
    base = p[~twin & p.set_index(["benchmark", "engine", "runtime"]).index.isin(
        p[twin].set_index(["benchmark", "engine", "runtime"]).index)]
    if base.empty:
        return ""
    text = (f"In {study} the twins' processes ran on average at {100 * pos[twin].mean():.0f}% of the run and their "
            f"cells' at {100 * pos[base.index].mean():.0f}% (the cells got {len(base) / max(1, int(twin.sum())):.1f}x "
            "as many processes, the later ones added by the adaptive rounds)")
    if "canary" in p:
        can = p["canary"].map(lambda c: c.get("median_ns") if isinstance(c, dict) else np.nan).astype(float)
        first, last = can[pos <= 1 / 3].median(), can[pos >= 2 / 3].median()
        if np.isfinite(first) and np.isfinite(last) and first > 0:
            text += (f"; the canary took {100 * (last / first - 1):+.0f}% as long in the run's last third as in its "
                     "first, so the host's speed moved under the run, and a side measured later is measured on a "
                     "different machine. Ratios against this study's baseline may carry a bias of the size of its "
                     "A/A ratio")
    text += "."
    differs = aa_differs_sentence(runs, family_name)
    return text + (" " + differs if differs else "")


def _quote(arg: str) -> str:
    return shlex.quote(arg)


def _when(t: Any) -> datetime | None:
    """A manifest's timestamp (`2026-11-26T14:21:17+0000`), or None when it is missing or malformed."""
    try:
        return datetime.strptime(str(t), "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return None


def wall_text(manifest: Manifest) -> str:
    """`, in 12 min on host X (2 segments)`: the run's wall time, summed over its segments (a
    resumed run has several), and the machine(s) they ran on; empty when the manifest has no times."""
    segs = manifest.segments or [{"started": manifest.started, "ended": manifest.ended}]
    total, hosts = 0.0, []
    for seg in segs:
        a, b = _when(seg.get("started")), _when(seg.get("ended"))
        if a and b:
            total += (b - a).total_seconds()
        host = (seg.get("machine") or {}).get("hostname") if isinstance(seg.get("machine"), dict) else None
        if host and host not in hosts:
            hosts.append(host)
    if total <= 0:
        return ""
    took = "imported in" if manifest.imported else "in"  # an import's time, not the producing tool's
    text = f", {took} {total / 60:.0f} min" if total >= 60 else f", {took} {total:.0f} s"
    if hosts:
        text += f" on {', '.join(hosts)}"
    if len(segs) > 1:
        text += f" ({len(segs)} segments)"
    return text


def campaign_commits_block(run_dirs: list[Path]) -> str:
    """Which commits the campaign's runs were made at (every segment's, and whether its tree had
    uncommitted changes), when they ran, and the imported runs apart: a reader sees at once whether
    one code base made every number."""
    commits: dict[str, list[str]] = {}
    dirty: set[str] = set()
    times: list[datetime] = []
    imported = []
    for d in run_dirs:
        m = manifest_of(d)
        if m.imported:
            imported.append(f"`{m.run_id}` ({str(m.started or '')[:10]})")
            continue
        segs = m.segments or [{"commit": m.commit, "dirty": (m.project or {}).get("dirty"),
                               "started": m.started, "ended": m.ended}]
        for seg in segs:
            c = str(seg.get("commit") or m.commit or "unknown")[:12]
            commits.setdefault(c, [])
            if m.run_id not in commits[c]:
                commits[c].append(str(m.run_id))
            if seg.get("dirty"):
                dirty.add(c)
            times += [t for t in (_when(seg.get("started")), _when(seg.get("ended"))) if t]
    if not commits:
        return "_No measured runs here._"
    n = sum(len(v) for v in commits.values())
    span = (f", between {min(times):%Y-%m-%d %H:%M} and {max(times):%H:%M} UTC" if times and
            min(times).date() == max(times).date() else
            f", from {min(times):%Y-%m-%d %H:%M} to {max(times):%Y-%m-%d %H:%M} UTC" if times else "")
    if len(commits) == 1:
        c = next(iter(commits))
        text = ((f"All {n} measured runs were made at one commit, `{c}`" if n > 1 else
                 f"The measured run was made at commit `{c}`")
                + (" (with uncommitted changes in the tree)" if c in dirty else " (a clean tree)") + span + ".")
    else:
        parts = [f"`{c}`{' (uncommitted changes)' if c in dirty else ''}: {', '.join(f'`{r}`' for r in runs)}"
                 for c, runs in commits.items()]
        text = f"The {n} measured runs were made at {len(commits)} commits{span}: " + "; ".join(parts) + "."
    if imported:
        text += (f" Imported from another tool's output: {', '.join(imported)}.")
    return text


def reproduce_block(run_dirs: list[Path], reference: bool = True) -> str:
    """The exact command that made each run (its manifest's `command`), then how the paper was made:
    `make paper` from data/reference/ (`reference`), or `harness notebooks` on the runs themselves
    (a run's own report)."""
    out = []
    for d in run_dirs:
        m = manifest_of(d)
        cmd = m.command
        if isinstance(cmd, list):
            cmd = " ".join(_quote(a) for a in cmd)
        elif isinstance(cmd, str):
            try:
                cmd = " ".join(_quote(a) for a in shlex.split(cmd))
            except ValueError:  # a recorded command with an unbalanced quote: shown as recorded
                pass
        if isinstance(cmd, str):
            cmd = redact(cmd)  # the second net: the runner scrubbed the known passwords already
        commit = (m.commit or "unknown")[:12]
        src = m.source or {}
        if not cmd and m.imported:  # an imported run: what produced the file, then its import
            made = src.get("go_test") or "(the producing command is not recorded)"
            cmd = (f"{made}   # -> {src.get('file', 'its output')}\n"
                   f"python -m harness import {src.get('file', 'FILE')} --format {src.get('format', 'FORMAT')}"
                   + (f" --engine {src['engine']}" if src.get("engine") else ""))
        copied = (" the run directory was then copied to "
                  f"`data/{Path(d).parent.name}/{Path(d).name}`" if reference else "")
        took = wall_text(m)
        out.append(f"Run `{m.run_id}` was made at commit `{commit}`{took} by\n\n```sh\n"
                   f"{cmd or '(the manifest does not record its command)'}\n```\n\n"
                   f"(`--out` only chooses where the run directory goes{';' + copied if copied else ''}.)")
    if not reference:
        dirs = " ".join(_quote(str(d)) for d in run_dirs)
        out.append(f"This report was then made from the runs by\n\n```sh\npython -m harness notebooks {dirs}\n```")
        return "\n\n".join(out)
    out.append("The tables, figures and generated text of this paper are then made from the runs by\n\n```sh\n"
               "make paper   # python -m harness notebooks data/reference/*/ --paper paper.md --figures figures \\\n"
               "             #   --executed data/reference-notebooks --history data/reference-history\n"
               "```")
    return "\n\n".join(out)


#: runtimes with a JIT compiler, whose processes may warm up by compiling; on the others a detected warm-up or a
#: missing steady state is the machine's or the program's (caches, allocation), never a compiler's
JIT_RUNTIMES = ("pypy", "jvm")


def detector_block(summary: pd.DataFrame) -> str:
    """How often the steady-state detector finds no steady state on runtimes with no JIT, where no compiler warms
    up, beside runtimes with one (review 86 asked for its rate on series with no JIT): per runtime family, over every
    cell of these runs (A/A twins left out)."""
    need = {"params", "runtime", "processes", "no_steady"}
    if summary.empty or not need <= set(summary.columns):
        return "_No process of these runs has a steady-state call to count._"
    d = summary[summary["processes"].notna() & summary["no_steady"].notna()
                & ~summary["params"].astype(str).str.contains("aa=twin")]
    d = d[d["processes"] > 0]
    if d.empty:
        return "_No process of these runs has a steady-state call to count._"
    fam = d["runtime"].astype(str).map(runtime_family).str.split("-").str[0]  # haskell-O0 with haskell
    by = d.groupby(fam)[["processes", "no_steady"]].sum()
    jit = by[by.index.isin(JIT_RUNTIMES)]
    plain = by[~by.index.isin(JIT_RUNTIMES)]

    def share(g: pd.DataFrame) -> str:
        n, k = int(g["processes"].sum()), int(g["no_steady"].sum())
        return f"{k} of {n} processes ({100 * k / n:.1f}%)" if n else "no process"

    def each(g: pd.DataFrame) -> str:
        return "; ".join(f"{name} {int(r.no_steady)} of {int(r.processes)}" for name, r in g.iterrows())

    return (f"How often the detector finds no steady state, over every cell of these runs (A/A twins left out): on "
            f"runtimes with no JIT, where no compiler warms up, {share(plain)} ({each(plain)}); on those with one "
            f"({', '.join(JIT_RUNTIMES)}), {share(jit)} ({each(jit)}). The first rate is the detector's on series "
            "whose drift is the machine's or the program's own (caches, allocation), not a compiler's: such a process "
            "keeps all its iterations, so its cell's mean carries that drift rather than leaving it out.")


#: the code that reads the seeds' claims and decides their verdicts, dated against the runs by `rules_dating`
RULES_CODE = ("harness/studies/verdicts.py", "harness/studies/seedclaims.py", "harness/studies/sensitivity.py",
              "harness/studies/app.py")


#: the studies whose cells the verdicts read (seeds 003, 002 and 004: inserts, the application, RamSQL); every other
#: claim is untestable here, our numbers beside it context only
VERDICT_STUDIES = ("E4", "E5", "E6")


def _first_start(run_dirs: list[Path]) -> datetime | None:
    times = sorted(t for d in run_dirs if not (m := manifest_of(d)).imported for t in [_when(m.started)] if t)
    return times[0] if times else None


def rules_dating(run_dirs: list[Path], root: Path | None = None, deciding: tuple[str, ...] = VERDICT_STUDIES) -> str:
    """How many commits changed the verdicts' rules and readings (`RULES_CODE`) after the campaign's first run, and
    whether any did after the first run of the studies that decide the verdicts (`deciding`, their replicates
    included), from git: whether the rules were fixed before the data is a fact of the history, said here rather
    than claimed."""
    from harness.analysis.campaign import commits_touching, last_commit_touching, study_runs
    from harness.fsutil import PROJECT_ROOT

    first = _first_start(run_dirs)
    if first is None:
        return "_No measured runs to date the verdicts' rules against._"
    root = root or PROJECT_ROOT
    found = commits_touching(list(RULES_CODE), first.isoformat(), "now", root)
    files = ", ".join(f"`{Path(p).name}`" for p in RULES_CODE)
    if found is None:
        return (f"Whether the verdicts' rules ({files}) changed after the campaign's first run "
                f"({first:%Y-%m-%d %H:%M} UTC) is not known here: this checkout has no full git history.")
    if not found:
        return (f"The verdicts' rules ({files}) were last changed before the campaign's first run "
                f"({first:%Y-%m-%d %H:%M} UTC): every verdict's rule was fixed before the data.")
    head = (f"The files holding the verdicts' rules and readings ({files}) were changed at {len(found)} commits after "
            f"the campaign's first run ({first:%Y-%m-%d %H:%M} UTC), by git's history: many readings were written "
            "with data in view.")
    tail = (" That is why a verdict keeps one run's word only where the replicate and the run-to-run spread leave it "
            "(Section 10), and why this appendix lists the other readings a reader might hold and what each changes.")
    runs = [d for study in deciding for d in study_runs(study, root)]
    first_d = _first_start(runs)
    after = commits_touching(list(RULES_CODE), first_d.isoformat(), "now", root) if first_d else None
    last = last_commit_touching(list(RULES_CODE), first_d.isoformat(), root) if first_d else None
    studies = ", ".join(deciding[:-1]) + f" and {deciding[-1]}" if len(deciding) > 1 else "".join(deciding)
    if after is None or first_d is None:
        return head + " So no verdict here is a test fixed in advance." + tail
    if after:
        return (head + f" {len(after)} of those commits came after the first run of the studies whose cells decide "
                f"the verdicts ({studies}, {first_d:%Y-%m-%d %H:%M} UTC), so no verdict here is a test fixed in "
                "advance." + tail)
    at = f" at commit {last[0]} ({last[1][:16].replace('T', ' ')})" if last else ""
    # what decides the verdicts first, then the history that shaped the rules (review 88 read the two as at odds)
    return (f"The files holding the verdicts' rules and readings ({files}) were last changed{at}, before the runs "
            f"whose cells decide every verdict read here ({studies} and their replicates, the first started "
            f"{first_d:%Y-%m-%d %H:%M} UTC), and not since: those runs are decided by rules fixed before their data. "
            f"The rules were not fixed before every run, though: they changed at {len(found)} commits after the "
            f"campaign's first run ({first:%Y-%m-%d %H:%M} UTC), by git's history, and were shaped by earlier runs of "
            "the same studies, since replaced; so the verdicts confirm rules written with earlier data in view." + tail)

