"""A static HTML report of one or more runs: what was run, how, what went wrong, and the results.

For the engineer who wants to see a run in a browser without Jupyter: the manifest's facts, the
protocol, every cell that failed, was skipped or gave a wrong answer (with its reason), every
cell's mean with its interval, each study's ratio table and figures, and run-sequence plots. All
of it is computed from the stored raw timings through the same RunSet and study code as the
paper; the page embeds its figures (SVG data URIs) and needs nothing else to display.
"""
from __future__ import annotations

import fnmatch
import tempfile
from pathlib import Path

import pandas as pd

from harness.analysis import html, wording
from harness.analysis.figures.warmup import plot_run_sequences
from harness.analysis.methods import METHOD_NAMES
from harness.analysis.runset import RunSet, manifest_of
from harness.redaction import redact
from harness.studies import family_studies, study
from harness.studies.common import BASELINE, excluded_cells, protocol_text

NOT_OK = ("failed", "timeout", "error", "invalid")


def default_sequences(benchmarks: list[str]) -> list[str]:
    """The first benchmark of each family: run sequences of every cell would make the page huge."""
    first: dict[str, str] = {}
    for b in sorted(benchmarks):
        first.setdefault(b.split(".", 1)[0], b)
    return list(first.values())


def manifest_section(run_dirs: list[Path]) -> list[html.Section]:
    """Per run: the facts a reader needs to judge it (command, protocol, machine, versions)."""
    out = []
    for d in run_dirs:
        m = manifest_of(d)
        c = m.configuration or {}
        mach = m.machine or {}
        cpu = mach.get("cpu") or {}
        proj = m.project or {}
        load = (f"{html.readable(mach.get('loadavg_before'))} / {html.readable(mach.get('loadavg_after'))}"
                " (1, 5 and 15 minutes)")
        rows = [
            ("run id", m.run_id), ("status", m.status), ("started", m.started),
            ("ended", m.ended), ("command", redact(" ".join(map(str, m.command)) if isinstance(
                m.command, list) else html.readable(m.command)) if m.command else None),
            ("profile", c.get("profile")),
            ("processes x iterations", f"{c.get('processes')} x {c.get('iterations')}"),
            ("order seed", c.get("seed")), ("per-process timeout (s)", html.readable(c.get("timeout_s"))),
            ("per-process budget (s)", html.readable(c.get("budget_s"))),
            ("process outcomes", ", ".join(f"{k}: {v}" for k, v in sorted((m.process_counts or {}).items()))),
            ("CPU", f"{cpu.get('model')}, {cpu.get('cores')} cores, governor {cpu.get('governor') or 'not readable'}"),
            ("clock", (m.cpu_clock or {}).get("source")), ("kernel", mach.get("kernel")),
            ("load average before / after", load),
            ("Python", (m.python or {}).get("version")),
            ("project commit", f"{proj.get('commit')}{' (dirty)' if proj.get('dirty') else ''}"),
            ("libraries", ", ".join(f"{k} {v}" for k, v in sorted((m.libraries or {}).items()))),
        ]
        engines = sorted((k, v) for k, v in (m.engines or {}).items() if isinstance(v, dict))
        avail = [f"{k} ({', '.join(f'{n} {x}' for n, x in (v.get('versions') or {}).items())})"
                 for k, v in engines if v.get("available")]
        rows.append(("engines available", "; ".join(avail) or "none"))
        out.append(html.Section(f"Run {m.run_id}", html.table(
            ["fact", "value"], [(k, html.readable(v)) for k, v in rows]), level=3))
    return out


def warnings_section(summary: pd.DataFrame, run_dirs: list[Path]) -> str:
    """Every cell that is not ok, with its reason: failures and wrong answers one by one, skipped
    and not-applicable cells grouped by reason."""
    parts = []
    for d in run_dirs:
        status = manifest_of(d).status
        if status != "complete":
            parts.append(f'<p class="warn">Run <code>{html.esc(Path(d).name)}</code> has status '
                         f"<b>{html.esc(status)}</b>: it did not finish; its cells may be incomplete.</p>")
    st = summary["status"].astype(str)
    bad = summary[st.str.split(" ").str[0].isin(NOT_OK)]
    if len(bad):
        rows = [(r.benchmark, r.params, r.engine, r.runtime, r.status, str(r.reason)) for r in bad.itertuples()]
        parts.append('<div class="warn"><p><b>Cells that failed, timed out or gave a wrong answer</b> '
                     "(kept out of every ratio and table of results):</p>"
                     + html.table(["benchmark", "params", "engine", "runtime", "status", "reason"], rows) + "</div>")
    for kind in ("skipped", "not_applicable"):
        g = summary[st == kind]
        if len(g):
            counts = g.groupby(g["reason"].astype(str)).size().sort_values(ascending=False)
            parts.append(f'<details><summary>{len(g)} cells {kind.replace("_", " ")}, by reason</summary>'
                         + html.table(["reason", "cells"], counts.items(), numeric=[False, True]) + "</details>")
    if not len(bad) and not parts:
        parts.append('<p class="ok">Every cell ran and every answer was correct.</p>')
    return "\n".join(parts)


def summary_section(runs: RunSet) -> str:
    """Every cell with timings: mean with its interval, median, warm-up classes."""
    s = runs.summary[runs.summary["mean_s"].notna()]
    rows = []
    for r in s.itertuples():
        scale, unit = html.unit_for([r.mean_s])
        rows.append((r.benchmark, r.params, r.engine, r.runtime, f"{int(r.processes)} x {int(r.iterations)}",
                     wording.interval(r.mean_s, r.ci_low_s, r.ci_high_s, scale=scale, unit=unit, missing="—"),
                     wording.interval(r.median_s, scale=scale, unit=unit, missing="—"), getattr(r, "warmup", ""),
                     r.status))
    conf = f"{runs.confidence:.0%}"
    caption = (f"Mean time per iteration with its {conf} confidence interval [low, high] "
               f"({METHOD_NAMES.get(runs.method, runs.method)}; "
               f"{'steady-state iterations only' if runs.steady_state else 'all iterations'}); "
               "P x I: processes x iterations per process; warm-up: class of each process (changepoint analysis).")
    return html.table(["benchmark", "params", "engine", "runtime", "P x I", f"mean [{conf} CI]", "median",
                       "warm-up", "status"], rows, caption=caption,
                      numeric=[False, False, False, False, True, True, True, False, False])


def ratio_section(table: pd.DataFrame | None, note: str, baseline: str, runs: RunSet, prefix: str) -> str:
    """A study's ratio table: each cell's time and its ratio to the baseline, both with intervals."""
    from harness.analysis.stats import is_baseline

    if table is None:
        return html.markdown(note)
    rows = []
    for r in table.itertuples():
        if r.benchmark == "geomean":
            rows.append(("geometric mean", "", r.engine, r.runtime, "",
                         wording.interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, unit="x", missing="—")))
            continue
        scale, unit = html.unit_for([r.mean_s])
        ratio = "baseline" if is_baseline(r.engine, str(r.runtime), baseline) else \
            wording.interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, unit="x", missing="—")
        rows.append((r.benchmark, r.params, r.engine, r.runtime,
                     wording.interval(r.mean_s, r.ci_low_s, r.ci_high_s, scale=scale, unit=unit, missing="—"), ratio))
    conf = f"{runs.confidence:.0%}"
    caption = (f"Time per iteration and time relative to {baseline} (> 1 is slower), each with its {conf} "
               f"confidence interval [low, high] ({METHOD_NAMES.get(runs.method, runs.method)}; ratios and the "
               "geometric mean by bootstrap on the log scale).")
    excluded = excluded_cells(runs.summary, prefix)
    return (html.table(["benchmark", "params", "engine", "runtime", f"time [{conf} CI]", f"ratio [{conf} CI]"], rows,
                       caption=caption, numeric=[False, False, False, False, True, True])
            + html.markdown(excluded))


def studies_section(runs: RunSet, baseline: str, figures_dir: Path) -> list[html.Section]:
    """Each study that has cells in the runs: its ratio table, its prose numbers and its figures."""
    benchmarks = set(runs.summary["benchmark"])
    out = []
    for name, label in family_studies().items():
        s = study(name)
        if not s.has_cells(benchmarks):
            continue
        result = s.compute(runs, figures_dir, baseline)
        parts = [ratio_section(result.tables.get("ratios"), result.text.get("ratios", ""), baseline, runs, s.prefix)]
        for key in ("cycles", "socket"):
            if result.text.get(key):
                parts.append(html.markdown(result.text[key]))
        for key, fig in result.figures.items():
            if fig is not None:
                caption = (f"{label} {key.replace('_', ' ')}: error bars are {runs.confidence:.0%} confidence intervals "
                           f"({runs.method} method), drawn as computed (not symmetric)."
                           if key != "run_sequence" else f"{label}: run sequence per process (see below).")
                parts.append(html.figure(fig, caption))
        out.append(html.Section(f"{label}: {name}", "\n".join(parts)))
    return out


def sequences_section(runs: RunSet, patterns: list[str] | None, figures_dir: Path) -> str:
    """Run-sequence plots (time per iteration, one colour per process) for the chosen benchmarks."""
    benchmarks = sorted(set(runs.raw["benchmark"]))
    chosen = ([b for b in benchmarks if any(fnmatch.fnmatchcase(b, p) for p in patterns)] if patterns
              else default_sequences(benchmarks))
    out = ["<p>Each panel is one cell; each colour one fresh process; line style and marker give the process's "
           "warm-up class (solid/circle flat, dashed/triangle up warm-up, dotted/triangle down slowdown, "
           "dash-dot/cross no steady state); a thin vertical line marks where its steady state starts.</p>"]
    for b in chosen:
        fig = plot_run_sequences(runs.raw, figures_dir / f"sequence_{b}.png", b)
        if fig is not None:
            out.append(html.figure(fig, f"Run sequences of {b}, every engine and runtime."))
    if len(chosen) < len(benchmarks):
        out.append(f"<p>Shown: {', '.join(chosen) or 'none'}. Others with <code>--sequences GLOB</code>.</p>")
    return "\n".join(out)


def source_text(run_dirs: list[Path], run_names: dict[str, str] | None = None, store: str | None = None) -> str:
    """Where the page's timings come from, as the user named it: the run directories as given
    (`run_names`: directory name -> name to show), or the run ids and the results store they were
    read from (`store`, password redacted), never the private temporary folder a `--from` store
    was read into (it is deleted when the command ends)."""
    names = [(run_names or {}).get(Path(d).name, str(d)) for d in run_dirs]
    codes = ", ".join(f"<code>{html.esc(n)}</code>" for n in names)
    if store:
        return (f"the run{'' if len(names) == 1 else 's'} {codes} read from the results store "
                f"<code>{html.esc(store)}</code>")
    return f"the run director{'y' if len(names) == 1 else 'ies'} {codes}"


def build(runs: RunSet, baseline: str = BASELINE, sequences: list[str] | None = None,
          run_names: dict[str, str] | None = None, store: str | None = None) -> str:
    """The whole page as one HTML string (figures drawn in a temporary folder and embedded).
    `run_names` and `store` name the runs as the user gave them (see `source_text`)."""
    from harness.studies.runfacts import noise_block_of, noise_warning

    names = ", ".join(d.name for d in runs.run_dirs)
    intro = (f"<p>Everything on this page is computed from the raw timings stored in "
             f"{source_text(runs.run_dirs, run_names, store)} by "
             f"<code>python -m harness report</code>. Intervals are {runs.confidence:.0%} confidence intervals "
             f"[low, high], {html.esc(METHOD_NAMES.get(runs.method, runs.method))}; baseline "
             f"<code>{html.esc(baseline)}</code>.</p>")
    noise = noise_block_of(runs.run_dirs, runs.processes)
    warned = bool(noise_warning(runs.processes, runs.manifests()))
    with tempfile.TemporaryDirectory(prefix="crossings-report-") as tmp:
        figs = Path(tmp)
        sections = [
            html.Section("Warnings", warnings_section(runs.summary, runs.run_dirs)),
            html.Section("Protocol", html.markdown(protocol_text(runs.run_dirs))),
            html.Section("Runs", ""), *manifest_section(runs.run_dirs),
            html.Section("Every cell", summary_section(runs)),
            *studies_section(runs, baseline, figs),
            html.Section("Run sequences", sequences_section(runs, sequences, figs)),
        ]
        return html.page(f"crossings report: {names}", sections, intro=intro,
                         noise=noise if warned else "", noise_ok="" if warned else noise)
