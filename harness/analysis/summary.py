"""Per-cell summaries of one or more runs: statistics plus each cell's status and derived rates.

Statistics come from `harness.analysis.stats`; this module adds what only the run
knows: the cell's status (ok / invalid / failed / skipped / not applicable, with the reason),
crossings and values converted per operation, and rows/s for the bindings study.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.run import cpuclock

KEYS = ["benchmark", "params", "engine", "runtime"]
FIRST_COLUMNS = ["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
                 "ci_high_s", "median_s"]


def _param(params: str, key: str) -> float | None:
    for part in params.split(","):
        if part.startswith(key + "="):
            try:
                return float(part.split("=", 1)[1])
            except ValueError:
                return None
    return None


def cell_status(processes: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: worst status over its processes, and the first reason given."""
    order = {"ok": 0, "invalid": 3, "error": 4, "failed": 4, "timeout": 4, "not_applicable": 5, "skipped": 6}
    if processes.empty:
        return pd.DataFrame(columns=[*KEYS[:3], "runtime_family", "status", "reason", "processes_ok", "processes_total",
                                     "noisy"])
    p = processes
    family = p.get("runtime_family", p["runtime"]).fillna(p["runtime"])
    rank = p["status"].map(order).fillna(4).to_numpy()
    seq = p["seq"].to_numpy()
    status_v = p["status"].to_numpy(dtype=object)
    reason_v = p["reason"].to_numpy(dtype=object)
    runtime_v = p["runtime"].to_numpy(dtype=object)
    runtime_ok = p["runtime"].notna().to_numpy()
    noise_v = p["noise"].to_numpy(dtype=object) if "noise" in p else None
    keys = p[["benchmark", "params", "engine"]].assign(runtime_family=family)
    rows = []
    # plain arrays per group (pandas per group cost ~15 ms a cell: most of a summary's time)
    for key, idx in keys.groupby(["benchmark", "params", "engine", "runtime_family"], sort=False).indices.items():
        idx = np.sort(idx)
        worst = idx[np.lexsort((seq[idx], rank[idx]))[-1]]
        ok = status_v[idx] == "ok"
        bad = idx[~ok]
        status = status_v[worst]
        if status in ("failed", "timeout", "error") and ok.any():
            status = f"{status} ({(~ok).sum()}/{len(idx)} processes)"
        reason = reason_v[bad[np.argsort(seq[bad], kind="stable")[0]]] if len(bad) else ""
        seen = idx[runtime_ok[idx]]
        runtime = runtime_v[seen[0]] if len(seen) else key[3]
        noisy = sum(bool(n.get("noisy")) for n in noise_v[idx] if isinstance(n, dict)) if noise_v is not None else 0
        rows.append({"benchmark": key[0], "params": key[1], "engine": key[2], "runtime_family": key[3],
                     "runtime_seen": runtime, "status": status, "reason": reason,
                     "processes_ok": int(ok.sum()), "processes_total": len(idx), "noisy": int(noisy)})
    return pd.DataFrame(rows)


def _noisy(records: pd.DataFrame) -> int:
    """How many of these processes ran while other programs kept the machine busy."""
    if "noise" not in records:
        return 0
    return int(sum(bool(n.get("noisy")) for n in records["noise"] if isinstance(n, dict)))


def noise_notes(processes: pd.DataFrame, manifests: list[dict]) -> list[str]:
    """One line per reason to distrust a run a little: noisy processes, a busy machine at its start."""
    from harness.run.doctor import noisy

    notes = []
    n = _noisy(processes)
    if n:
        timed = int(processes["noise"].map(lambda v: isinstance(v, dict)).sum())
        notes.append(f"note: {n} of {timed} processes ran while other programs used more than their threshold "
                     "of CPU (column noisy; records' `noise`)")
    for m in manifests:
        warnings = noisy(m.get("doctor"))
        if warnings:
            notes.append(f"warning: run {m.get('run_id')} started on a busy machine ({'; '.join(warnings)})")
    return notes


def cell_counts(raw: pd.DataFrame) -> pd.DataFrame:
    """Per cell (KEYS) the largest crossings and values_converted of its raw rows."""
    return raw.groupby(KEYS, sort=False)[["crossings", "values_converted"]].max().reset_index()


def attach_run_facts(summary: pd.DataFrame, counts: pd.DataFrame, procs: pd.DataFrame,
                     run_dirs: list[Path]) -> pd.DataFrame:
    """Per-cell statistics plus what only the runs know: each cell's status and reason (cells
    without timings included), crossings and values converted (`counts`: KEYS, crossings,
    values_converted per cell, as `cell_counts` gives), rows/s and cycles per row."""
    from harness import workloads

    status = cell_status(procs)
    if not counts.empty:
        summary = summary.merge(counts, on=KEYS, how="left")
    # attach status: runtime in the raw rows is the exact version; processes know both
    if not status.empty:
        status["runtime"] = status["runtime_seen"]
        merged = status.drop(columns=["runtime_seen"]).merge(summary, on=KEYS, how="left")
    else:
        merged = summary.assign(status="ok", reason="")
    all_workloads = workloads.all_workloads()
    rows_per_s = []
    for _, r in merged.iterrows():
        w = all_workloads.get(r["benchmark"])
        key = getattr(w, "rows_param", None) if w else None
        n = _param(r["params"], key) if key else None
        rows_per_s.append(n / r["mean_s"] if n and r.get("mean_s") and r["mean_s"] > 0 else np.nan)
    merged["rows_per_s"] = rows_per_s
    merged = cpuclock.add_cycles_per_row(merged, cpuclock.clock_of_run(run_dirs[0]))
    cols = FIRST_COLUMNS + [c for c in merged.columns if c not in FIRST_COLUMNS]
    merged = merged.sort_values(KEYS, kind="stable").reset_index(drop=True)
    return merged[[c for c in cols if c in merged.columns]]


def _interval_text(m: float, lo: float, hi: float) -> str:
    if pd.isna(m):
        return ""
    if pd.isna(lo) or pd.isna(hi):
        return f"{m:.6g}"
    return f"{m:.6g} [{lo:.6g}, {hi:.6g}]"


def format_summary(df: pd.DataFrame, fmt: str) -> str:
    """Render a summary as csv, markdown or aligned text (intervals as `mean [low, high]`)."""
    if fmt == "csv":
        return df.to_csv(index=False)
    show = df.copy()
    conf = show["confidence"].dropna()
    label = f"mean [{conf.iloc[0] * 100:.10g}% CI] (s)" if len(conf) else "mean [CI] (s)"
    show[label] = [_interval_text(m, lo, hi) for m, lo, hi in zip(show["mean_s"], show["ci_low_s"], show["ci_high_s"])]
    if "alt_mean_s" in show:
        used = show["alt_used"].dropna()
        alt_label = f"{used[used != ''].iloc[0] if (used != '').any() else 'other'} iterations, where they disagree"
        show[alt_label] = [_interval_text(m, lo, hi) if bool(d) else ""
                           for m, lo, hi, d in zip(show["alt_mean_s"], show["alt_ci_low_s"], show["alt_ci_high_s"],
                                                   show["disagree"].fillna(False))]
    else:
        alt_label = None
    for c in ["median_s", "std_s"]:
        if c in show:
            show[c] = show[c].map(lambda v: "" if pd.isna(v) else f"{v:.6g}")
    for c in ("rows_per_s", "cycles_per_row"):
        if c in show:
            show[c] = show[c].map(lambda v: "" if pd.isna(v) else f"{v:,.0f}")
    cols = [c for c in ["benchmark", "params", "engine", "runtime", "processes", "iterations", label, alt_label,
                        "median_s", "rows_per_s", "cycles_per_row", "crossings", "method", "used", "warmup",
                        "no_steady", "outliers", "noisy", "note", "status", "reason"] if c and c in show]
    show = show[cols].astype(object).where(show[cols].notna(), "")
    if fmt == "markdown":
        return show.to_markdown(index=False) if _has_tabulate() else _md(show)
    return show.to_string(index=False)


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401  (pandas' to_markdown needs it)
    except ImportError:
        return False
    return True


def _md(df: pd.DataFrame) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])
