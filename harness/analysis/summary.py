"""Per-cell summaries of one or more runs: statistics plus each cell's status and derived rates.

Statistics come from `harness.analysis.stats`; this module adds what only the run
knows: the cell's status (ok / invalid / failed / skipped / not applicable, with the reason),
crossings and values converted per operation, and rows/s for the bindings study.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from harness.analysis import textout, wording
from harness.run import cpuclock

if TYPE_CHECKING:
    from harness.record import Manifest

KEYS = ["benchmark", "params", "engine", "runtime"]
FIRST_COLUMNS = ["benchmark", "params", "engine", "runtime", "processes", "iterations", "mean_s", "ci_low_s",
                 "ci_high_s", "median_s"]


#: what a benchmark's `rows_param` counts -> (its rate column, the unit people read): point
# the rate column and unit of a benchmark (rows/s, or queries/s for point queries): analysis.wording
RATE_COLUMNS = wording.RATE_COLUMNS
rate_of = wording.rate_of


def _param(params: str, key: str) -> float | None:
    for part in params.split(","):
        if part.startswith(key + "="):
            try:
                return float(part.split("=", 1)[1])
            except ValueError:
                return None
    return None


def cell_status(processes: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: worst status over its processes, and the first reason given.

    Processes that were skipped (not started: the run's time budget was spent, say) do not make
    a cell with measured processes `skipped`: it is measured, with the processes it got (its
    interval says how many), and `skipped_processes` counts the others; only a cell with no
    process that ran is `skipped`."""
    order = {"ok": 0, "invalid": 3, "error": 4, "failed": 4, "timeout": 4, "not_applicable": 5, "skipped": 6}
    if processes.empty:
        return pd.DataFrame(columns=[*KEYS[:3], "runtime_family", "status", "reason", "processes_ok", "processes_total",
                                     "noisy", "skipped_processes"])
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
        ok = status_v[idx] == "ok"
        skipped = status_v[idx] == "skipped"
        measured = bool(ok.any())
        ran = idx[~skipped] if measured else idx  # a measured cell is judged by the processes that ran
        worst = ran[np.lexsort((seq[ran], rank[ran]))[-1]]
        status = status_v[worst]
        bad = ran[status_v[ran] != "ok"]
        if status in ("failed", "timeout", "error") and measured:
            status = f"{status} ({len(bad)}/{len(ran)} processes)"
        if not len(bad):  # every process that ran is ok: the reason is why the others did not run
            bad = idx[skipped]
        reason = reason_v[bad[np.argsort(seq[bad], kind="stable")[0]]] if len(bad) else ""
        seen = idx[runtime_ok[idx]]
        runtime = runtime_v[seen[0]] if len(seen) else key[3]
        noisy = sum(bool(n.get("noisy")) for n in noise_v[idx] if isinstance(n, dict)) if noise_v is not None else 0
        rows.append({"benchmark": key[0], "params": key[1], "engine": key[2], "runtime_family": key[3],
                     "runtime_seen": runtime, "status": status, "reason": reason,
                     "processes_ok": int(ok.sum()), "processes_total": len(idx), "noisy": int(noisy),
                     "skipped_processes": int(skipped.sum()) if measured else 0})
    return pd.DataFrame(rows)


def _noisy(records: pd.DataFrame) -> int:
    """How many of these processes ran while other programs kept the machine busy."""
    if "noise" not in records:
        return 0
    return int(sum(bool(n.get("noisy")) for n in records["noise"] if isinstance(n, dict)))


def disturbed_facts(processes: pd.DataFrame) -> tuple[int, int, int]:
    """(processes flagged disturbed, processes whose interference was measured, reruns): from the
    records' `interference` (runs made before it was measured give (0, 0, 0))."""
    if processes.empty or "interference" not in processes:
        return 0, 0, 0
    measured = processes["interference"].map(lambda v: isinstance(v, dict))
    flagged = processes["interference"].map(lambda v: isinstance(v, dict) and v.get("contaminated") is True)
    reruns = int(processes["rerun_of"].notna().sum()) if "rerun_of" in processes else 0
    return int(flagged.sum()), int(measured.sum()), reruns


def noise_facts(processes: pd.DataFrame, manifests: list[Manifest]) -> tuple[int, int, list[tuple[str, list[str]]]]:
    """(noisy processes, processes whose noise was watched, [(run id, its doctor's busy-machine
    findings)] for each run that started on a busy machine): what the noise warnings say. Where
    the interference was measured per process, the noisy ones are those it flagged disturbed."""
    from harness.run.doctor import noisy

    flagged, measured, _ = disturbed_facts(processes)
    if measured:
        busy = [(m.run_id, found) for m in manifests if (found := noisy(m.doctor))]
        return flagged, measured, busy
    n = _noisy(processes) if len(processes) else 0
    timed = int(processes["noise"].map(lambda v: isinstance(v, dict)).sum()) if n else 0
    busy = [(m.run_id, found) for m in manifests if (found := noisy(m.doctor))]
    return n, timed, busy


def noise_notes(processes: pd.DataFrame, manifests: list[Manifest]) -> list[str]:
    """One line per reason to distrust a run a little: noisy processes, a busy machine at its start."""
    n, timed, busy = noise_facts(processes, manifests)
    disturbed = bool(n and disturbed_facts(processes)[1])
    notes = []
    for k, sentence in enumerate(wording.noise_sentences(n, timed, busy, disturbed)):
        if k == 0 and disturbed:
            notes.append(f"note: {sentence} (a cell that would keep fewer than 3 clean processes keeps them all; "
                         "columns disturbed, excluded, reruns; --keep-contaminated puts them back everywhere)")
        else:
            notes.append(f"warning: {sentence}")
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
    rates: dict[str, list[float]] = {column: [] for column, _ in RATE_COLUMNS.values()}
    for _, r in merged.iterrows():
        w = all_workloads.get(r["benchmark"])
        key = getattr(w, "rows_param", None) if w else None
        n = _param(r["params"], key) if key else None
        rate = n / r["mean_s"] if n and r.get("mean_s") and r["mean_s"] > 0 else np.nan
        own = RATE_COLUMNS["queries" if key == "queries" else "rows"][0]
        for column, values in rates.items():
            values.append(rate if column == own else np.nan)
    for column, values in rates.items():
        merged[column] = values
    merged = cpuclock.add_cycles_per_row(merged, cpuclock.clock_of_run(run_dirs[0]))
    cols = FIRST_COLUMNS + [c for c in merged.columns if c not in FIRST_COLUMNS]
    merged = merged.sort_values(KEYS, kind="stable").reset_index(drop=True)
    return merged[[c for c in cols if c in merged.columns]]


def _adjustment_matters(r: dict) -> bool:
    """Whether a cell's canary-adjusted interval is worth a note in the text summary: at most two
    thirds as wide as the raw one (the host's phases explain much of the spread). csv and json
    always carry it (adj_*)."""
    raw = r.get("ci_high_s", math.nan) - r.get("ci_low_s", math.nan)
    adj = r.get("adj_ci_high_s", math.nan) - r.get("adj_ci_low_s", math.nan)
    return _finite(raw) and _finite(adj) and adj <= 2 / 3 * raw


ADAPTIVE_COLUMNS = ["target_pct", "achieved_pct", "stop"]


def adaptive_facts(manifests: list[Manifest]) -> pd.DataFrame:
    """Per adaptive cell (benchmark, params, engine, runtime family): its target and achieved
    relative half-width in percent and why it stopped, from the manifests' `adaptive` records."""
    rows = []
    for m in manifests:
        for c in (m.adaptive or {}).get("cells", []):
            got = c.get("achieved")
            rows.append((c.get("benchmark"), c.get("params"), c.get("engine"), c.get("runtime"),
                         100 * float(c.get("target") or math.nan),
                         100 * float(got) if isinstance(got, (int, float)) else math.nan, str(c.get("stop") or "")))
    df = pd.DataFrame(rows, columns=["benchmark", "params", "engine", "runtime_family", *ADAPTIVE_COLUMNS])
    return df.drop_duplicates(["benchmark", "params", "engine", "runtime_family"], keep="last")


def _interval_text(m: float, lo: float, hi: float) -> str:
    if pd.isna(m):
        return ""
    if pd.isna(lo) or pd.isna(hi):
        return f"{m:.6g}"
    return f"{m:.6g} [{lo:.6g}, {hi:.6g}]"


def format_summary(df: pd.DataFrame, fmt: str) -> str:
    """Render a summary as csv (seconds, every column), text for people (`format_text`), or a
    Markdown table in the text's vocabulary (`8.49 ms [7.61, 9.55]`, rates with their unit)."""
    if fmt == "csv":
        return df.to_csv(index=False)
    if fmt == "text":
        return format_text(df)
    show = df.copy()
    conf = show["confidence"].dropna()
    label = f"mean [{conf.iloc[0] * 100:.10g}% CI]" if len(conf) else "mean [CI]"
    show[label] = [time_text(m, lo, hi) for m, lo, hi in zip(show["mean_s"], show["ci_low_s"], show["ci_high_s"])]
    if "alt_mean_s" in show:
        used = show["alt_used"].dropna()
        alt_label = f"{used[used != ''].iloc[0] if (used != '').any() else 'other'} iterations, where they disagree"
        show[alt_label] = [time_text(m, lo, hi) if bool(d) else ""
                           for m, lo, hi, d in zip(show["alt_mean_s"], show["alt_ci_low_s"], show["alt_ci_high_s"],
                                                   show["disagree"].fillna(False))]
    else:
        alt_label = None
    names = {"median_s": "median", "std_s": "sd", "rows_per_s": "rows/s", "queries_per_s": "queries/s",
             "cycles_per_row": "cycles/row"}
    for c in ("median_s", "std_s"):
        if c in show:
            show[c] = show[c].map(time_text)
    for c in ("rows_per_s", "queries_per_s", "cycles_per_row"):
        if c in show:
            show[c] = show[c].map(lambda v: "" if pd.isna(v) else f"{v:,.0f}")
    cols = [c for c in ["benchmark", "params", "engine", "runtime", "processes", "iterations", label, alt_label,
                        "median_s", "rows_per_s", "queries_per_s", "cycles_per_row", "crossings", "method", "used", "warmup",
                        "no_steady", "outliers", "noisy", "note", "status", "reason"] if c and c in show]
    show = show[cols].astype(object).where(show[cols].notna(), "").rename(columns=names)
    if fmt == "markdown":
        return show.to_markdown(index=False) if _has_tabulate() else _md(show)
    return show.to_string(index=False)


# ------------------------------------------------------------------------------------------
# Text for people: one aligned table (analysis.textout), units chosen per cell
# ------------------------------------------------------------------------------------------

TIME_UNITS = textout.TIME_UNITS
_digits = textout.digits3
time_text = textout.time_text
rate_text = textout.rate_text
_finite = textout.finite


def _cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:(") + " …"


#: notes longer than this go under the table (the row says `note N`), so the notes column stays narrow
NOTE_INLINE = 24


def _rate(r: dict) -> str:
    column, unit = rate_of(str(r["benchmark"]))
    value = r.get(column)
    if not _finite(value) and column != "rows_per_s":  # a summary made before the rate columns split
        value = r.get("rows_per_s")
    return rate_text(value, unit)


def bench_label(benchmark: str, params: str) -> str:
    """`bindings.point_query [n=10, queries=5]`: the parameters (empty ones left out) in brackets
    after the benchmark, a space after each comma so a narrow column wraps between them."""
    shown = [p for p in str(params).split(",") if p and not p.endswith("=")]
    return f"{benchmark} [{', '.join(shown)}]" if shown else benchmark


def format_text(df: pd.DataFrame, width: int = 118) -> str:
    """The summary for a terminal: per benchmark (and params) a header line, then one aligned
    line per engine and runtime with P x I, mean [CI] in a unit chosen per cell, the rate, and
    notes (status, no steady state, disturbed processes, an adaptive cell's stop, the canary-adjusted
    mean, the all-iterations estimate where it disagrees)."""
    if df.empty:
        return "no cells"
    conf = df["confidence"].dropna() if "confidence" in df else pd.Series(dtype=float)
    method = df["method"].dropna() if "method" in df else pd.Series(dtype=object)
    head = (f"mean time per iteration [{conf.iloc[0]:.0%} CI] ({method.iloc[0] if len(method) else 'default'} "
            "method); P x I: processes x iterations per process" if len(conf) else "mean time per iteration")
    rows = []
    for r in df.to_dict("records"):
        notes = []
        status = str(r.get("status") or "")
        if status and status != "ok":
            notes.append(f"{status}: {r.get('reason') or ''}".rstrip(": "))
        elif _finite(r.get("skipped_processes")) and r["skipped_processes"]:
            n = int(r["skipped_processes"])
            notes.append(f"{n} process{'es' if n > 1 else ''} {r.get('reason') or 'not run'}")
        if _finite(r.get("no_steady")) and r["no_steady"]:
            notes.append(f"no steady state in {int(r['no_steady'])}")
        if _finite(r.get("disturbed")) and r["disturbed"]:
            kept = int(r["disturbed"]) - int(r.get("excluded") or 0)
            notes.append(f"{int(r['disturbed'])} disturbed" + (f", {kept} kept" if kept else ", left out")
                         + (f", {int(r['reruns'])} rerun" if _finite(r.get("reruns")) and r["reruns"] else ""))
        elif _finite(r.get("noisy")) and r["noisy"]:
            notes.append(f"noisy {int(r['noisy'])}")
        if r.get("stop"):
            got = r.get("achieved_pct")
            notes.append(f"{r['stop']}: ±{_digits(got)}% of ±{_digits(r['target_pct'])}%" if _finite(got)
                         else f"{r['stop']} (target ±{_digits(r['target_pct'])}%)")
        if _finite(r.get("adj_mean_s")) and _adjustment_matters(r):
            notes.append(f"canary-adjusted {time_text(r['adj_mean_s'], r.get('adj_ci_low_s'), r.get('adj_ci_high_s'))}")
        if r.get("disagree") is True:
            notes.append(f"† all iterations: {time_text(r.get('alt_mean_s'), r.get('alt_ci_low_s'), r.get('alt_ci_high_s'))}")
        if r.get("note") and not _finite(r.get("ci_low_s")) and _finite(r.get("mean_s")):
            notes.append(str(r["note"]))
        p, i = r.get("processes"), r.get("iterations")
        pxi = f"{int(p)} x {int(i)}" if _finite(p) and _finite(i) else ""
        rows.append((bench_label(str(r["benchmark"]), str(r.get("params") or "")),
                     str(r["engine"]), str(r.get("runtime") if _finite(r.get("mean_s")) or r.get("runtime") else ""),
                     pxi, time_text(r.get("mean_s"), r.get("ci_low_s"), r.get("ci_high_s")), _rate(r), notes))
    return _table_text(head, rows, min(width, textout.output_width()))


def _table_text(head: str, rows: list[tuple], width: int) -> str:
    """format_text's rows (label, engine, runtime, P x I, mean [CI], rate, [notes]) as one table
    (analysis.textout): a group per benchmark [params], its label on its first row; a note longer
    than NOTE_INLINE numbered under the table once, its number in each row that has it."""
    table_rows, sections, current, footnotes = [], [], None, {}
    for label, *cells, notes in rows:
        if label != current:
            if current is not None:
                sections.append(len(table_rows))
            current, shown = label, label
        else:
            shown = ""
        parts = [f"note {footnotes.setdefault(n, len(footnotes) + 1)}" if len(n) > NOTE_INLINE else n for n in notes]
        table_rows.append([shown, *cells, "; ".join(parts)])
    conf = re.search(r"\[(\d+%) CI\]", head)
    columns = [textout.Col("benchmark [params]"), textout.Col("engine"), textout.Col("runtime"),
               textout.Col("P x I", "right", wrap=False),
               textout.Col(f"mean [{conf.group(1)} CI]" if conf else "mean", "right", wrap=False),
               textout.Col("rate", "right", wrap=False), textout.Col("notes")]
    out = [textout.wrap(head, width), "", textout.table(columns, table_rows, width, sections)]
    if footnotes:
        out.append("")
        out += [textout.wrap(f"note {k}: {_cut(n, 240)}", width, indent="  ") for n, k in footnotes.items()]
    return "\n".join(out)


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401  (pandas' to_markdown needs it)
    except ImportError:
        return False
    return True


def _md(df: pd.DataFrame) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])
