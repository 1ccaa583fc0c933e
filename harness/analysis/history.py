"""History across runs: each run of the same cells on a timeline, and the changes that matter.

What seed 003 did with nightly JRuby builds and Codespeed (a result per commit, plotted by commit
date), with two things Codespeed's mean and standard deviation could not give: each point
carries its own interval (the cell's mean and confidence interval, computed from that run
alone), and a change between consecutive runs is called significant only by the test
`compare` uses (benchstat's: per-process means, two-sided Mann-Whitney U, significant when
p <= alpha). Runs are ordered by the date of the commit they measured (a run made today of an
old commit goes where the commit goes), then by when they started.
"""
from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import UserError, did_you_mean

if TYPE_CHECKING:
    import pandas as pd

CELL = ["benchmark", "params", "engine", "runtime"]

HISTORY_COLUMNS = ["benchmark", "params", "engine", "runtime", "position", "run_id", "commit", "commit_date",
                   "dirty", "started", "versions", "status", "processes", "noisy", "loadavg", "mean_s", "ci_low_s",
                   "ci_high_s", "method", "confidence", "previous_run_id", "median_s", "previous_median_s",
                   "delta_pct", "p_value", "significant", "change", "n", "previous_n", "warning", "changed"]


@dataclass(frozen=True)
class RunTag:
    """What a run says it measured: where it sits on the timeline and with which versions."""

    run_dir: Path
    run_id: str
    commit: str | None
    commit_date: str | None  # ISO 8601; from the manifest, or git when the manifest predates it
    dirty: bool | None
    started: str | None
    python: str | None
    cpus: int | None = None
    ended: str | None = None  # ISO 8601, from the manifest (None when the run did not record it)
    libraries: dict = field(default_factory=dict)
    engines: dict = field(default_factory=dict)  # "engine@runtime family" -> versions

    @property
    def when(self) -> str:
        """The date the timeline places the run at: its commit's, else its start."""
        return self.commit_date or self.started or ""

    def versions(self, engine: str, runtime: str) -> str:
        """The versions the manifest recorded for this engine on this runtime ('' if none)."""
        family = str(runtime).rstrip("0123456789.")
        v = self.engines.get(f"{engine}@{family}") or {}
        return ", ".join(str(x) if k == "driver" else f"{k} {x}" for k, x in sorted(v.items(), key=lambda kv: kv[0] != "driver"))


def _iso(date: str | None) -> str | None:
    """ISO 8601 in UTC (manifests write +0000, git the committer's offset), so dates sort as times."""
    if not date:
        return None
    from datetime import datetime, timezone

    for parse in (lambda d: datetime.strptime(d, "%Y-%m-%dT%H:%M:%S%z"), datetime.fromisoformat):
        try:
            t = parse(date)
        except ValueError:
            continue
        return (t.astimezone(timezone.utc) if t.tzinfo else t).isoformat()
    return date


def expand_run_dirs(paths: Iterable[Path | str]) -> list[Path]:
    """Each path as a run, or a folder of runs as its runs; anything else is a one-line error."""
    out: list[Path] = []
    given = [Path(p) for p in paths]
    if not given:
        raise UserError("no run given: name run directories or a folder of runs")
    for p in given:
        if (p / "manifest.json").is_file():
            out.append(p)
        elif p.is_dir():
            runs = sorted(d for d in p.iterdir() if (d / "manifest.json").is_file())
            if not runs:
                raise UserError(f"{p}: not a run directory (no manifest.json) and holds no runs")
            out.extend(d for d in runs if _readable(d))
        else:
            raise UserError(f"{p}: no such run directory")
    seen: dict[Path, Path] = {}
    for d in out:
        seen.setdefault(d.resolve(), d)
    return list(seen.values())


def _readable(run_dir: Path) -> bool:
    """Whether a run found in a folder has a readable manifest, plan and records; if not, a
    one-line warning and the folder's other runs go on without it (a run named on its own
    is an error instead)."""
    from harness import store

    try:
        store.verify_records(run_dir, store.manifest_of(run_dir), store.plan_of(run_dir), store.records_of(run_dir))
    except UserError as exc:
        skip_bad_run(run_dir, exc)
        return False
    return True


class SkippedRunWarning(UserWarning):
    """A run inside a folder that cannot be read: left out, the folder's other runs used."""


def skip_bad_run(run_dir: Path, exc: Exception) -> None:
    """The one-line warning of a run left out of a folder-level command."""
    import warnings

    warnings.warn(f"skipping {run_dir}: {exc}", SkippedRunWarning, stacklevel=3)


def run_tag(run_dir: Path, lookup: Callable[[str], str | None] | None = None) -> RunTag:
    """The tag of one run, read from its manifest; `lookup(commit)` supplies commit dates that
    manifests written before they recorded one lack (git, by default)."""
    from harness.store import manifest_of

    if lookup is None:
        from harness.run.manifest import commit_date as lookup
    m = manifest_of(run_dir)
    project = m.project or {}
    segments = m.segments or []
    commit = project.get("commit") or next((s.get("commit") for s in segments if s.get("commit")), None)
    commits = {s.get("commit") for s in segments if s.get("commit")}
    if len(commits) > 1:  # resumed at another commit: the run is of no single commit
        commit = "+".join(sorted(c[:12] for c in commits))
    dirty = project.get("dirty")
    if any(s.get("dirty") for s in segments):
        dirty = True
    date = project.get("commit_date") or (lookup(commit) if commit and len(commits) <= 1 else None)
    engines = {k: v.get("versions") or {} for k, v in (m.engines or {}).items() if isinstance(v, dict)}
    return RunTag(run_dir=Path(run_dir), run_id=str(m.run_id), commit=commit, commit_date=_iso(date),
                  dirty=dirty, started=_iso(m.started), python=((m.python or {}).get("version") or
                                                              "").split(" ")[0] or None,
                  cpus=((m.machine or {}).get("cpu") or {}).get("cores"), ended=_iso(m.ended),
                  libraries=dict(m.libraries or {}), engines=engines)


def order_runs(tags: Iterable[RunTag]) -> list[RunTag]:
    """Timeline order: by commit date (a run without one by its start), then start, then id."""
    return sorted(tags, key=lambda t: (t.when, t.started or "", t.run_id))


def split_globs(text: str | None) -> list[str]:
    return [g.strip() for g in (text or "").split(",") if g.strip()]


def check_globs(kind: str, globs: list[str], names: Iterable[str]) -> None:
    """Every glob must match a name in the runs; otherwise one line listing what there is."""
    names = sorted(set(names))
    for g in globs:
        if not any(fnmatch.fnmatchcase(n, g) for n in names):
            raise UserError(f"--{kind} {g!r} matches nothing in these runs{did_you_mean(g, names)}; "
                            f"{kind}: {', '.join(names) or 'none'}")


def _matches(value: str, globs: list[str]) -> bool:
    return not globs or any(fnmatch.fnmatchcase(value, g) for g in globs)


def _change_text(delta: float, p: float, significant: bool) -> str:
    if not math.isfinite(p):
        return ""
    if not significant:
        return "~"
    return f"{delta:+.1f}%"


def timeline(run_dirs: Iterable[Path | str], benchmarks: str | list[str] | None = None,
             engines: str | list[str] | None = None, method: str | None = None, confidence: float = 0.99,
             resamples: int = 10000, seed: int = 0, alpha: float = 0.05, steady_state: bool = True,
             lookup: Callable[[str], str | None] | None = None) -> tuple[pd.DataFrame, list[RunTag]]:
    """One row per (cell, run) in timeline order (HISTORY_COLUMNS), and the ordered run tags.

    mean_s [ci_low_s, ci_high_s]: the cell's estimate from that run alone (the summary's method).
    Against the previous run that measured the cell: medians of per-process means, delta_pct,
    the Mann-Whitney p-value and `significant` exactly as `compare` computes them (its benchstat
    rule and its too-few-samples warning); `changed` says what else differs (commit, versions).
    """
    import numpy as np
    import pandas as pd

    from harness.analysis import stats
    from harness.analysis.methods import DEFAULT_METHOD
    from harness.analysis.runset import RunSet

    if not 0 < alpha < 1:
        raise UserError("--alpha must be between 0 and 1, e.g. 0.05")
    bglobs = split_globs(benchmarks) if isinstance(benchmarks, str) or benchmarks is None else list(benchmarks)
    eglobs = split_globs(engines) if isinstance(engines, str) or engines is None else list(engines)
    run_dirs = [Path(p) for p in run_dirs]
    named = {Path(p).resolve() for p in run_dirs if (Path(p) / "manifest.json").is_file()}
    tags = order_runs(run_tag(d, lookup) for d in expand_run_dirs(run_dirs))
    sets = [RunSet(t.run_dir, method=method or DEFAULT_METHOD, confidence=confidence, resamples=resamples,
                   seed=seed, steady_state=steady_state) for t in tags]
    tags, sets, summaries = _summaries(tags, sets, named)
    check_globs("benchmarks", bglobs, (b for s in summaries for b in s["benchmark"]))
    check_globs("engines", eglobs, (e for s in summaries for e in s["engine"]))
    rows = []
    last: dict[tuple, tuple[int, object]] = {}  # cell -> (position, its compare samples) in its latest run
    for pos, (tag, rs, summ) in enumerate(zip(tags, sets, summaries), start=1):
        summ = summ[summ["benchmark"].map(lambda b: _matches(b, bglobs))
                    & summ["engine"].map(lambda e: _matches(e, eglobs))]
        raw = rs.raw
        samples = stats.compare_samples(raw) if len(raw) else {}
        procs = rs.processes
        measured = "noise" in procs and bool(procs["noise"].map(lambda v: isinstance(v, dict)).any())
        loads = [n.get("loadavg_before") for n in procs["noise"] if isinstance(n, dict)] if measured else []
        load = float(np.median([v for v in loads if v is not None])) if any(v is not None for v in loads) else math.nan
        for r in summ.itertuples(index=False):
            key = (r.benchmark, r.params, r.engine, r.runtime)
            row = {"benchmark": r.benchmark, "params": r.params, "engine": r.engine, "runtime": r.runtime,
                   "position": pos, "run_id": tag.run_id, "commit": tag.commit, "commit_date": tag.commit_date,
                   "dirty": tag.dirty, "started": tag.started, "versions": tag.versions(r.engine, r.runtime),
                   "status": r.status, "processes": r.processes, "noisy": getattr(r, "noisy", 0) if measured else math.nan, "loadavg": load,
                   "mean_s": r.mean_s, "ci_low_s": r.ci_low_s, "ci_high_s": r.ci_high_s, "method": r.method,
                   "confidence": r.confidence, "previous_run_id": "", "median_s": math.nan,
                   "previous_median_s": math.nan, "delta_pct": math.nan, "p_value": math.nan,
                   "significant": False, "change": "", "n": math.nan, "previous_n": math.nan, "warning": "",
                   "changed": ""}
            # only a cell whose processes all measured with right answers is compared or compared with
            has_data = r.status == "ok" and key in samples
            if has_data and key in last:
                prev_pos, prev_samples = last[key]
                c = stats.compare_cells({key: prev_samples}, {key: samples[key]}, alpha=alpha).iloc[0]
                prev_tag = tags[prev_pos - 1]
                row.update(previous_run_id=prev_tag.run_id, median_s=c.new_median_s,
                           previous_median_s=c.base_median_s, delta_pct=c.delta_pct, p_value=c.p_value,
                           significant=bool(c.significant), n=c.new_n, previous_n=c.base_n, warning=c.warning,
                           change=_change_text(c.delta_pct, c.p_value, bool(c.significant)),
                           changed=what_changed(prev_tag, tag, r.engine, r.runtime))
            elif has_data:
                row["median_s"] = float(np.median(samples[key]))
            if has_data:
                last[key] = (pos, samples[key])
            rows.append(row)
    out = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    if out.empty:
        raise UserError("no cell of the runs matches --benchmarks and --engines together")
    out = out.sort_values(CELL + ["position"], kind="stable").reset_index(drop=True)
    return out, tags


def _summaries(tags: list[RunTag], sets: list, named: set[Path]) -> tuple[list[RunTag], list, list]:
    """Each run's summary; a run found in a folder whose timings cannot be read is skipped with
    a warning (the others go on), a run named on its own is an error."""
    out: tuple[list, list, list] = ([], [], [])
    for tag, rs in zip(tags, sets):
        try:
            summary = rs.summary
        except UserError as exc:
            if Path(tag.run_dir).resolve() in named:
                raise
            skip_bad_run(tag.run_dir, exc)
            continue
        for part, v in zip(out, (tag, rs, summary)):
            part.append(v)
    if not out[0]:
        raise UserError("no readable run among those given")
    return out


def what_changed(a: RunTag, b: RunTag, engine: str, runtime: str) -> str:
    """What differs between two runs of a cell besides the timings: commit, dirty tree, versions."""
    parts = []
    if a.commit != b.commit:
        parts.append(f"commit {(a.commit or '?')[:7]} -> {(b.commit or '?')[:7]}")
    elif a.dirty != b.dirty or b.dirty:
        parts.append("uncommitted changes" if b.dirty else "same commit")
    else:
        parts.append("same commit")
    va, vb = a.versions(engine, runtime), b.versions(engine, runtime)
    if va != vb:
        parts.append(f"versions {va or '?'} -> {vb or '?'}")
    if a.python != b.python:
        parts.append(f"python {a.python} -> {b.python}")
    return "; ".join(parts)


def runs_table(tags: list[RunTag], history: pd.DataFrame) -> pd.DataFrame:
    """One row per run on the timeline: position, run, commit, dates, noisy processes."""
    import pandas as pd

    noisy = history.groupby("run_id")["noisy"].sum(min_count=1)
    procs = history.groupby("run_id")["processes"].sum()
    load = history.groupby("run_id")["loadavg"].first()

    def noise(run_id: str) -> str:
        v = noisy.get(run_id)
        return "not measured" if v is None or math.isnan(v) else str(int(v))

    return pd.DataFrame([{
        "position": i, "run_id": t.run_id, "commit": (t.commit or "unknown")[:12] + (" (dirty)" if t.dirty else ""),
        "commit date (UTC)": short_date(t.commit_date), "run started (UTC)": short_date(t.started),
        "processes": int(procs.get(t.run_id, 0)), "noisy": noise(t.run_id),
        "load": "not measured" if math.isnan(load.get(t.run_id, math.nan)) else f"{load[t.run_id]:.1f}",
    } for i, t in enumerate(tags, start=1)])


def short_date(iso: str | None) -> str:
    """`YYYY-MM-DD HH:MM` of a UTC ISO date."""
    return (iso or "")[:16].replace("T", " ")


def _interval(m: float, lo: float, hi: float, unit_of: float) -> str:
    """summary's `8.49 ms [7.61, 9.55]`, in one unit per cell (that of `unit_of`)."""
    from harness.analysis.textout import finite, time_text

    if not finite(m):
        return "—"
    text = time_text(m, lo, hi, unit_of)
    return text if finite(lo) and finite(hi) else f"{text} (no interval)"


def _p_text(r) -> str:
    if not math.isfinite(r.p_value):
        return ""
    return f"(p={r.p_value:.2g} n={int(r.previous_n)}+{int(r.n)})"


def display_table(history: pd.DataFrame, split_cell: bool = False) -> pd.DataFrame:
    """The timeline for people: per cell and run, the commit, its date, the mean [low, high] in
    one unit per cell, and the change from the previous run (`~`, or the delta when significant).
    `split_cell`: the cell's name also in three columns (benchmark [params], engine, runtime)."""
    import pandas as pd


    from harness.analysis.summary import bench_label

    rows = []
    for _, g in history.groupby(CELL, sort=False):
        means = g["mean_s"].dropna()
        unit_of = float(means.median()) if len(means) else math.nan
        for r in g.itertuples(index=False):
            change = r.change + (f" {_p_text(r)}" if r.change else "") + (f" ({r.warning})" if r.warning else "")
            parts = ({"benchmark [params]": bench_label(r.benchmark, r.params), "engine": r.engine,
                      "runtime": r.runtime} if split_cell else {})
            rows.append({"cell": f"{bench_label(r.benchmark, r.params)} {r.engine} {r.runtime}", **parts,
                         "#": r.position,
                         "commit": (r.commit or "unknown")[:7] + ("+" if r.dirty else ""),
                         "commit date (UTC)": short_date(r.commit_date),
                         f"mean [{r.confidence:.0%} CI]": (_interval(r.mean_s, r.ci_low_s, r.ci_high_s, unit_of)
                                                          if r.status == "ok" else f"{r.status}"),
                         "change vs previous": change})
    return pd.DataFrame(rows)


def format_history(history: pd.DataFrame, fmt: str = "text", alpha: float = 0.05) -> str:
    """The timeline as aligned text (one block per cell), CSV (every column, seconds) or Markdown."""
    if fmt == "csv":
        return history.to_csv(index=False, float_format="%.9g")
    if fmt == "markdown":
        from harness.analysis.markdown import to_markdown

        return to_markdown(display_table(history))
    return history_text(display_table(history, split_cell=True), caption(history, alpha))


def history_text(table: pd.DataFrame, under: str, width: int | None = None) -> str:
    """display_table's rows for a terminal: one group per cell (its name on its first row), at
    most `width` characters a line (default 120), the caption wrapped beneath."""
    from harness.analysis import textout

    width = width or textout.output_width()
    if table.empty:
        return textout.wrap(under, width) + "\n"
    one_runtime = table["runtime"].nunique() == 1
    if one_runtime:  # said once under the table
        under += f" Runtime {table['runtime'].iloc[0]}."
    names = ["benchmark [params]", "engine"] + ([] if one_runtime else ["runtime"])
    shown = [c for c in table.columns if c not in ("benchmark [params]", "engine", "runtime", "cell")]
    rows, sections, last = [], [], None
    for r in table.to_dict("records"):
        first = r["cell"] != last
        if first and last is not None:
            sections.append(len(rows))
        last = r["cell"]
        rows.append([r[c] if first else "" for c in names] + [r[c] for c in shown])
    columns = [textout.Col(c) for c in names] + [
        textout.Col(c, "right" if c in ("#",) or c.startswith("mean") else "left", wrap=c == "change vs previous")
        for c in shown]
    return textout.table(columns, rows, width, sections) + "\n\n" + textout.wrap(under, width) + "\n"


def caption(history: pd.DataFrame, alpha: float = 0.05) -> str:
    """How the numbers were made, for under a table or a figure."""
    from harness.analysis.methods import METHOD_NAMES

    method = str(history["method"].dropna().iloc[0]) if history["method"].notna().any() else "?"
    conf = float(history["confidence"].dropna().iloc[0]) if history["confidence"].notna().any() else 0.99
    return (f"Runs in order of the date of the commit they measured. Mean [{conf:.0%} CI] per run from that run "
            f"alone ({METHOD_NAMES.get(method, method)}). Change vs the previous run of the cell: medians of "
            f"per-process means, two-sided Mann-Whitney U as `compare` (benchstat) computes it; `~` when "
            f"p > {alpha:g}, else the change of the median.")
