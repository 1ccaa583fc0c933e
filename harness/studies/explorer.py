"""The explorer behind `notebooks/explorer.py`: pick runs, study, engines, runtimes, baseline and
method, and see the ratio table, the ratio plot and run sequences.

Why a cache: loading a run and bootstrapping its cells is the slow part (seconds to a minute on
the reference run); the views are cheap. `Explorer` keeps one RunSet per (runs, method,
steady state), which itself keeps each cell's bootstrap replicates, and one ratio table per
(that, study, baseline), so a new baseline only recombines replicates already drawn. The plots
are inline SVG written as text (`figures.svgplot`, milliseconds; a matplotlib panel took up to a
second on a loaded machine): one ratio plot per view with the chosen engines and runtimes as
series filtered from the cached table, and run sequences only for the chosen benchmark, one
panel per cell; each is kept, so going back to a view draws nothing. Widgets are built only by
`ui()`, so headless execution (`harness notebooks`, no browser) shows `views()` without widgets:
widget messages can stall nbclient (jupyter/nbclient#312), and nobody is there to click.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from harness.analysis.runset import RunSet, runtime_family
from harness.fsutil import PROJECT_ROOT
from harness.studies import family_studies
from harness.studies import study as study_of
from harness.studies.common import BASELINE


def available_runs(root: Path = PROJECT_ROOT) -> dict[str, Path]:
    """Label -> run directory: the committed reference runs first, then data/runs/ newest first."""
    out = {}
    for d in sorted((root / "data" / "reference").glob("*")):
        if (d / "manifest.json").exists():
            out[f"reference {d.name}"] = d
    for d in sorted((root / "data" / "runs").glob("*"), reverse=True):
        if (d / "manifest.json").exists():
            out[d.name] = d
    return out


def cells_of(runs: RunSet, study: str) -> pd.DataFrame:
    """The study's cells with timings (engine, runtime, benchmark) in the runs."""
    prefix = study_of(study).prefix
    s = runs.summary
    return s[s["benchmark"].str.startswith(prefix) & s["mean_s"].notna()]


def baselines(runs: RunSet, study: str) -> list[str]:
    """`ENGINE@RUNTIME` of every cell of the study, the usual baseline first when present."""
    c = cells_of(runs, study)
    names = sorted({f"{e}@{str(r).rstrip('0123456789.')}" for e, r in zip(c["engine"], c["runtime"])})
    return sorted(names, key=lambda b: b != BASELINE)


class Explorer:
    """RunSets and ratio tables, each computed once for the options that determine it."""

    def __init__(self, resamples: int = 10000, confidence: float = 0.99) -> None:
        self.resamples = resamples
        self.confidence = confidence
        self._runsets: dict[tuple, RunSet] = {}
        self._ratios: dict[tuple, tuple[pd.DataFrame | None, str]] = {}
        self._figures: dict[tuple, str | None] = {}
        self._warmup: dict[tuple, pd.DataFrame] = {}
        self._html: dict[tuple, str] = {}
        self._raw: dict[tuple, pd.DataFrame] = {}

    def runset(self, run_dirs: Iterable[Path | str], method: str = "process-bootstrap", steady_state: bool = True) -> RunSet:
        key = (tuple(dict.fromkeys(str(Path(d).resolve()) for d in run_dirs)), method, steady_state)  # each run once
        if key not in self._runsets:
            self._runsets[key] = RunSet([Path(d) for d in key[0]], method=method, confidence=self.confidence,
                                        resamples=self.resamples, steady_state=steady_state)
        return self._runsets[key]

    def ratios(self, runs: RunSet, study: str, baseline: str) -> tuple[pd.DataFrame | None, str]:
        """The study's ratio table over its valid cells (studies.common.family_table), cached."""
        from harness.studies.common import family_table

        key = (id(runs), study, baseline)
        if key not in self._ratios:
            self._ratios[key] = family_table(runs, study_of(study).prefix, baseline)
        return self._ratios[key]


    def html(self, key: tuple, make: Any) -> str:
        """A view's table as HTML, made once per key."""
        if key not in self._html:
            self._html[key] = make()
        return self._html[key]

    def raw_of(self, runs: RunSet, benchmark: str) -> pd.DataFrame:
        """The raw rows of one benchmark with each runtime's family, selected once per run set."""
        key = (id(runs), benchmark)
        if key not in self._raw:
            raw = runs.raw_of(benchmark)
            self._raw[key] = raw.assign(runtime_family=raw["runtime"].astype(str).map(runtime_family))
        return self._raw[key]

    def figure(self, key: tuple, draw: Any) -> str | None:
        """The SVG text `draw()` returns (None: no figure), drawn once per key."""
        if key not in self._figures:
            self._figures[key] = draw()
        return self._figures[key]

    def warmup_of(self, runs: RunSet, benchmark: str) -> pd.DataFrame:
        """Warm-up class and steady-state start of every process of the benchmark's valid rows, once."""
        from harness.analysis.stats import warmup_analysis

        key = (id(runs), benchmark)
        if key not in self._warmup:
            raw = self.raw_of(runs, benchmark)
            self._warmup[key] = warmup_analysis(raw[raw["check_ok"].astype(bool)].drop(columns=["runtime_family"]))
        return self._warmup[key]


def select(table: pd.DataFrame, engines: Iterable[str], runtimes: Iterable[str]) -> pd.DataFrame:
    """Rows of the chosen engines and runtimes (runtime given as its family: `cpython` for
    `cpython3.11.7`, `c` for `c-gcc12.2.0`)."""
    keep = table["engine"].isin(set(engines)) & table["runtime"].astype(str).map(runtime_family).isin(set(runtimes))
    return table[keep]


def _grid(svgs: list[str]) -> Any:
    """Panels side by side (wrapping), as one HTML object; None when there are none."""
    from IPython.display import HTML

    if not svgs:
        return None
    return HTML('<div style="display:flex;flex-wrap:wrap;gap:4px">' + "".join(f"<div>{s}</div>" for s in svgs) + "</div>")


def views(explorer: Explorer, runs: RunSet, study: str, baseline: str | None, engines: Iterable[str] | None = None,
          runtimes: Iterable[str] | None = None, benchmark: str | None = None) -> tuple[Any, Any, Any]:
    """(ratio table as HTML, ratio plot, run sequences of `benchmark`), each None when there is
    nothing to show; engines and runtimes default to all of the study's.

    Everything comes from cached data: the ratio table once per (study, baseline) from the
    RunSet's cached bootstrap replicates; the plot is one inline SVG per view with the chosen
    engines and runtimes as series (filtering the cached table, each engine keeping its colour);
    run sequences are drawn only for `benchmark`, one SVG panel per cell, each kept. SVG text
    takes milliseconds where a matplotlib panel took up to a second (`figures.svgplot`).
    """
    from IPython.display import HTML

    from harness.analysis.figures.svgplot import ratio_svg, sequence_svg
    from harness.analysis.stats import is_baseline
    from harness.studies.report import ratio_section

    cells = cells_of(runs, study)
    chosen = (tuple(sorted(cells["engine"].unique())) if engines is None else tuple(sorted(engines)),
              tuple(sorted({runtime_family(r) for r in cells["runtime"]})) if runtimes is None else tuple(sorted(runtimes)))
    table, note = explorer.ratios(runs, study, baseline) if baseline else (None, "_no baseline in these runs_")
    if table is None:
        return HTML(ratio_section(None, note, str(baseline), runs, "")), None, None
    html = HTML(explorer.html(("table", id(runs), study, baseline, chosen),
                              lambda: ratio_section(select(table, *chosen), note, baseline, runs, study + ".")))

    def draw_ratios() -> str | None:
        keep = [not is_baseline(e, str(r), baseline) for e, r in zip(table["engine"], table["runtime"])]
        colours = {e: i for i, e in enumerate(sorted(table["engine"].unique()))}  # the same colour in every selection
        caption = f"{study}: time / time of {baseline}; bars {runs.confidence:.0%} CI ({runs.method} method)"
        return ratio_svg(select(table[keep], *chosen), baseline, caption, colours)

    plot = explorer.figure(("ratios", id(runs), study, baseline, chosen), draw_ratios)
    seqs = []
    if benchmark:
        raw = explorer.raw_of(runs, benchmark)
        raw = raw[raw["engine"].isin(chosen[0]) & raw["runtime_family"].isin(chosen[1]) & raw["check_ok"].astype(bool)]
        for key, cell in raw.groupby(["params", "engine", "runtime"], sort=True):
            def draw(cell: pd.DataFrame = cell, key: tuple = key) -> str | None:
                w = explorer.warmup_of(runs, benchmark)
                w = w[(w["params"] == key[0]) & (w["engine"] == key[1]) & (w["runtime"] == key[2])]
                return sequence_svg(cell, w, f"{benchmark} {key[0]} — {key[1]} ({key[2]})".replace("  ", " "))

            svg = explorer.figure(("sequence", id(runs), benchmark, *key), draw)
            if svg:
                seqs.append(svg)
    return html, None if plot is None else HTML(plot), _grid(seqs)


def ui(explorer: Explorer, run_dirs: list[Path] | None = None, study: str = "bindings",
       baseline: str = BASELINE, method: str = "process-bootstrap") -> Any:
    """The widgets, wired: any change redraws the table, the ratio plot and the run sequences."""
    import ipywidgets as w
    from IPython.display import display

    from harness.analysis.methods import METHODS

    known = available_runs()
    paths = {Path(v).resolve() for v in known.values()}
    for d in run_dirs or []:
        if Path(d).resolve() not in paths:
            known[Path(d).name] = Path(d)
    wanted = {Path(d).resolve() for d in run_dirs or []}
    chosen = [k for k, v in known.items() if Path(v).resolve() in wanted]
    runs_w = w.SelectMultiple(options=list(known), value=tuple(chosen or list(known)[:1]), description="runs",
                              rows=min(6, max(2, len(known))), layout=w.Layout(width="420px"))
    study_w = w.Dropdown(options=list(family_studies()), value=study, description="study")
    method_w = w.Dropdown(options=list(METHODS), value=method, description="method")
    steady_w = w.Checkbox(value=True, description="steady state only")
    baseline_w = w.Dropdown(options=[baseline], value=baseline, description="baseline")  # kept if in the runs
    engines_w = w.SelectMultiple(description="engines", rows=6)
    runtimes_w = w.SelectMultiple(description="runtimes", rows=3)
    bench_w = w.Dropdown(description="sequences of")
    status = w.HTML()
    out_table, out_plot, out_seq = w.Output(), w.Output(), w.Output()
    busy = {"on": False}

    def current() -> RunSet:
        return explorer.runset([known[k] for k in runs_w.value], method_w.value, steady_w.value)

    def refresh_choices() -> None:
        runs = current()
        cells = cells_of(runs, study_w.value)
        engines = sorted(cells["engine"].unique())
        runtimes = sorted({runtime_family(r) for r in cells["runtime"]})
        bases = baselines(runs, study_w.value)
        busy["on"] = True
        keep = baseline_w.value  # setting options resets the value
        baseline_w.options = bases
        baseline_w.value = keep if keep in bases else (bases[0] if bases else None)
        engines_w.options, engines_w.value = engines, tuple(engines)
        runtimes_w.options, runtimes_w.value = runtimes, tuple(runtimes)
        benches = sorted(cells["benchmark"].unique())
        bench_w.options = benches
        bench_w.value = benches[0] if benches else None
        busy["on"] = False

    def redraw(*_: Any) -> None:
        if busy["on"] or not runs_w.value:
            return
        runs = current()
        shown = views(explorer, runs, study_w.value, baseline_w.value, engines_w.value, runtimes_w.value,
                      bench_w.value)
        for out, item in zip((out_table, out_plot, out_seq), shown):
            out.clear_output(wait=True)
            with out:
                if item is not None:
                    display(item)
        status.value = (f"<small>{len(explorer._runsets)} run set(s) cached; cells bootstrapped: "
                        f"{len(runs.boot_counts)}</small>")

    def reload(*_: Any) -> None:
        if busy["on"] or not runs_w.value:
            return
        status.value = "<small>loading and bootstrapping (once per runs x method x steady state)...</small>"
        refresh_choices()
        redraw()

    for widget in (runs_w, study_w, method_w, steady_w):
        widget.observe(reload, names="value")
    for widget in (baseline_w, engines_w, runtimes_w, bench_w):
        widget.observe(redraw, names="value")
    reload()
    controls = w.HBox([w.VBox([runs_w, study_w, method_w, steady_w]),
                       w.VBox([baseline_w, engines_w, runtimes_w, bench_w])])
    return w.VBox([controls, status, w.HTML("<h3>Ratios</h3>"), out_table, out_plot,
                   w.HTML("<h3>Run sequences</h3>"), out_seq])
