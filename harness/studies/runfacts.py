"""What the paper says about the runs themselves: noise warnings, precision achieved, how to reproduce.

Read from the runs' manifests (their `doctor` findings, `adaptive` section and `command`) and
process records (`noise`), so the summary, every notebook and the paper say the same thing.
"""
from __future__ import annotations

import math
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness.redaction import redact
from harness.run.runtimes import runtime_family
from harness.store import load_process_records, read_manifest, read_plan

if TYPE_CHECKING:
    from harness.analysis.runset import RunSet


def noise_warning(processes: pd.DataFrame, manifests: list[dict[str, Any]]) -> str:
    """A warning when processes were marked noisy or a run started on a busy machine ('' if neither)."""
    from harness.analysis.summary import disturbed_facts, noise_facts

    parts = []
    n, timed, busy = noise_facts(processes, manifests)
    if n and disturbed_facts(processes)[1]:
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
    if not parts:
        return ""
    return "**Warning: noisy run.** " + ". ".join(p[0].upper() + p[1:] for p in parts) + "."


def noise_block(runs: RunSet) -> str:
    """The paper's noise paragraph: the warning, or a sentence saying no process was marked."""
    return noise_block_of(runs.run_dirs, runs.processes)


def noise_block_of(run_dirs: list[Path], processes: pd.DataFrame | None = None) -> str:
    """`noise_block` from run directories (their process records read here unless given)."""
    if processes is None:
        processes = load_process_records(run_dirs)
    manifests = [read_manifest(Path(d)) for d in run_dirs]
    text = noise_warning(processes, manifests)
    if text:
        return text
    marked = "noise" in processes and processes["noise"].map(lambda v: isinstance(v, dict)).any()
    checked = any(m.get("doctor") for m in manifests)
    if not marked and not checked:
        return ("_These runs predate the noise checks: no process was checked for other programs' load and no "
                "`doctor` findings were recorded, so how busy the machine was is unknown._")
    return "No process was marked noisy and no run started on a busy machine."


def family(benchmark: str) -> str:
    """`tpch.q01` -> `tpch`; a benchmark without a family prefix (an imported run's own names,
    such as go test's `RamSQLSelect`) -> `imported`."""
    name = str(benchmark)
    return name.split(".", 1)[0] if "." in name else "imported"


def _run_cells(run_dir: Path) -> set[tuple]:
    """The cell keys (benchmark, params, engine, runtime family) a run planned, from its plan.json."""
    from harness.protocol import canonical_params

    plan = read_plan(Path(run_dir)) or {}
    cells = {(c["benchmark"], canonical_params(c["params"]), c["engine"], c["runtime"]) for c in plan.get("cells", [])}
    if cells:
        return cells
    # an imported run has no planned cells: its process records name them
    recs = load_process_records([Path(run_dir)])
    if recs.empty:
        return set()
    fams = recs["runtime_family"] if "runtime_family" in recs else recs["runtime"].astype(str).map(runtime_family)
    return set(zip(recs["benchmark"], recs["params"].map(canonical_params), recs["engine"], fams))


def _pct(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"±{100 * x:.1f}%"


STOPS = ("met", "budget", "no steady state", "timeout", "not run")


def precision_table(runs: RunSet) -> pd.DataFrame:
    """Per run and benchmark family: target, median and 90th-percentile achieved relative half-width
    (99% CI, default method, steady state; from the manifest's `adaptive` record where there is
    one, otherwise from the summary), and the number of cells by stop reason."""
    from harness.analysis.planner import relative_half_width

    rows = []
    for d in runs.run_dirs:
        m = read_manifest(Path(d))
        adaptive = m.get("adaptive")
        if adaptive:
            cells = pd.DataFrame(adaptive.get("cells", []))
            if cells.empty:
                continue
            cells["family"] = cells["benchmark"].map(family)
            target = (adaptive.get("settings") or {}).get("target")
            for fam, g in cells.groupby("family"):
                got = pd.to_numeric(g.get("achieved"), errors="coerce").dropna()
                stops = g["stop"].value_counts()
                rows.append({"run": m.get("run_id"), "family": fam, "protocol": "adaptive", "target": target,
                             "cells": len(g), "median": float(np.median(got)) if len(got) else math.nan,
                             "p90": float(np.quantile(got, 0.9)) if len(got) else math.nan,
                             **{s: int(stops.get(s, 0)) for s in STOPS},
                             "other": int(len(g) - sum(stops.get(s, 0) for s in STOPS))})
        else:
            s = runs.summary
            mine = _run_cells(Path(d))  # this run's cells (a cell two runs share is counted in both)
            if mine:
                fam_of = s["runtime"].astype(str).map(runtime_family)
                keep = [(b, p, e, f) in mine for b, p, e, f in zip(s["benchmark"], s["params"], s["engine"], fam_of)]
                s = s[keep]
            s = s.assign(family=s["benchmark"].map(family))
            for fam, g in s.groupby("family"):
                got = pd.Series([relative_half_width(a, lo, hi) for a, lo, hi in
                                 zip(g["mean_s"], g["ci_low_s"], g["ci_high_s"])]).dropna()
                ran = int(g["mean_s"].notna().sum())
                rows.append({"run": m.get("run_id"), "family": fam, "protocol": "fixed", "target": None,
                             "cells": len(g), "median": float(np.median(got)) if len(got) else math.nan,
                             "p90": float(np.quantile(got, 0.9)) if len(got) else math.nan,
                             "met": 0, "budget": 0, "no steady state": 0, "timeout": 0, "not run": len(g) - ran,
                             "other": 0})
    return pd.DataFrame(rows)


def precision_block(runs: RunSet) -> str:
    """Markdown: the precision table and a sentence per protocol saying what it means."""
    t = precision_table(runs)
    if t.empty:
        return "_No cells in these runs._"
    conf = f"{runs.confidence:.0%}"
    lines = ["| run | family | protocol | target | cells | median half-width | 90th percentile | met | budget "
             "| no steady state | timeout | not run |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in t.to_dict("records"):
        target = _pct(r["target"]) if r["target"] is not None and pd.notna(r["target"]) else "none (fixed)"
        stops = [str(r[k]) if r["protocol"] == "adaptive" or k == "not run" else "—" for k in STOPS]
        lines.append(f"| {r['run']} | {r['family']} | {r['protocol']} | {target} | {r['cells']} | {_pct(r['median'])} | "
                     f"{_pct(r['p90'])} | " + " | ".join(stops) + " |")
    notes = []
    if (t["protocol"] == "fixed").any():
        notes.append("A run with protocol `fixed` used a fixed number of processes and iterations per cell (no "
                     "target, so no stop reasons); its half-widths are what that protocol happened to achieve.")
    if (t["protocol"] == "adaptive").any():
        notes.append("An `adaptive` run added processes to each cell until its interval met the target (`met`), "
                     "its time budget was spent (`budget`), its processes showed no steady state, a process "
                     "exceeded the per-process timeout (`timeout`: the cell stops there), or it could not "
                     "run; the achieved half-widths are those recorded when each cell stopped.")
    caption = (f"Table: precision achieved per benchmark family: relative half-width (high - low) / (2 mean) of "
               f"each cell's {conf} confidence interval ({runs.method} method, steady-state iterations), median "
               "and 90th percentile over the family's cells with an interval, and cells by stop reason.")
    return "\n".join(lines) + "\n\n" + " ".join(notes) + "\n\n" + caption


def _quote(arg: str) -> str:
    return shlex.quote(arg)


def reproduce_block(run_dirs: list[Path], reference: bool = True) -> str:
    """The exact command that made each run (its manifest's `command`), then how the paper was made:
    `make paper` from data/reference/ (`reference`), or `harness notebooks` on the runs themselves
    (a run's own report)."""
    out = []
    for d in run_dirs:
        m = read_manifest(Path(d))
        cmd = m.get("command")
        if isinstance(cmd, list):
            cmd = " ".join(_quote(a) for a in cmd)
        elif isinstance(cmd, str):
            try:
                cmd = " ".join(_quote(a) for a in shlex.split(cmd))
            except ValueError:  # a recorded command with an unbalanced quote: shown as recorded
                pass
        if isinstance(cmd, str):
            cmd = redact(cmd)  # the second net: the runner scrubbed the known passwords already
        commit = ((m.get("project") or {}).get("commit") or "unknown")[:12]
        src = m.get("source") or {}
        if not cmd and m.get("imported"):  # an imported run: what produced the file, then its import
            made = src.get("go_test") or "(the producing command is not recorded)"
            cmd = (f"{made}   # -> {src.get('file', 'its output')}\n"
                   f"python -m harness import {src.get('file', 'FILE')} --format {src.get('format', 'FORMAT')}"
                   + (f" --engine {src['engine']}" if src.get("engine") else ""))
        copied = (" the run directory was then copied to "
                  f"`data/reference/{Path(d).name}`" if reference else "")
        out.append(f"Run `{m.get('run_id')}` was made at commit `{commit}` by\n\n```sh\n"
                   f"{cmd or '(the manifest does not record its command)'}\n```\n\n"
                   f"(`--out` only chooses where the run directory goes{';' + copied if copied else ''}.)")
    if not reference:
        dirs = " ".join(_quote(str(d)) for d in run_dirs)
        out.append(f"This report was then made from the runs by\n\n```sh\npython -m harness notebooks {dirs}\n```")
        return "\n\n".join(out)
    out.append("The tables, figures and generated text of this paper are then made from the runs by\n\n```sh\n"
               "make paper   # python -m harness notebooks data/reference/*/ --paper paper.md --figures figures \\\n"
               "             #   --executed data/reference-notebooks --history data/reference-history\n"
               "             # (the H2 and Haskell studies read data/reference-h2/ and data/reference-haskell/)\n"
               "```")
    return "\n\n".join(out)
