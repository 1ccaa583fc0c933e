"""The explorer behind `notebooks/explorer.py`: pick runs, study, engines, runtimes, baseline and
method, and see the ratio table, the ratio plot and run sequences.

Why a cache: loading a run and bootstrapping its cells is the slow part (seconds to a minute on
the reference run); the views are cheap. `Explorer` keeps one RunSet per (runs, method,
steady state), which itself keeps each cell's bootstrap, and one ratio table per (that, study,
baseline), so changing the engines, runtimes or benchmark redraws from memory and changing the
baseline only recombines replicates already drawn. Widgets are built only by `ui()`, so headless
execution (`harness notebooks`, no browser) shows `views()` without widgets: widget messages
can stall nbclient (jupyter/nbclient#312), and nobody is there to click.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from harness.analysis.runset import RunSet
from harness.fsutil import PROJECT_ROOT
from harness.run.runtimes import runtime_family
from harness.studies import family_studies


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
    prefix = importlib.import_module(f"harness.studies.{study}").PREFIX
    s = runs.summary
    return s[s["benchmark"].str.startswith(prefix) & s["mean_s"].notna()]


def baselines(runs: RunSet, study: str) -> list[str]:
    """`ENGINE@RUNTIME` of every cell of the study, the usual baseline first when present."""
    c = cells_of(runs, study)
    names = sorted({f"{e}@{str(r).rstrip('0123456789.')}" for e, r in zip(c["engine"], c["runtime"])})
    return sorted(names, key=lambda b: b != "sqlite/sqlite3@cpython")


class Explorer:
    """RunSets and ratio tables, each computed once for the options that determine it."""

    def __init__(self, resamples: int = 10000, confidence: float = 0.99) -> None:
        self.resamples = resamples
        self.confidence = confidence
        self._runsets: dict[tuple, RunSet] = {}
        self._ratios: dict[tuple, tuple[pd.DataFrame | None, str]] = {}
        self._pngs: dict[tuple, bytes | None] = {}
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
            prefix = importlib.import_module(f"harness.studies.{study}").PREFIX
            self._ratios[key] = family_table(runs, prefix, baseline)
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
            raw = runs.raw[runs.raw["benchmark"] == benchmark]
            self._raw[key] = raw.assign(runtime_family=raw["runtime"].astype(str).map(runtime_family))
        return self._raw[key]

    def png(self, key: tuple, draw: Any) -> bytes | None:
        """The PNG of the figure `draw()` returns (None: no figure), rendered once per key."""
        if key not in self._pngs:
            import io

            import matplotlib.pyplot as plt

            fig = draw()
            if fig is None:
                self._pngs[key] = None
            else:
                buf = io.BytesIO()
                # one draw: bbox_inches="tight" would lay the figure out twice (half the redraw time)
                fig.savefig(buf, format="png", dpi=90)
                plt.close(fig)
                self._pngs[key] = buf.getvalue()
        return self._pngs[key]


def select(table: pd.DataFrame, engines: Iterable[str], runtimes: Iterable[str]) -> pd.DataFrame:
    """Rows of the chosen engines and runtimes (runtime given as its family: `cpython` for
    `cpython3.11.7`, `c` for `c-gcc12.2.0`)."""
    keep = table["engine"].isin(set(engines)) & table["runtime"].astype(str).map(runtime_family).isin(set(runtimes))
    return table[keep]


def runtime_family(runtime: str) -> str:
    """`cpython3.11.7` -> `cpython`, `pypy3.9.16` -> `pypy`, `c-gcc12.2.0` -> `c`."""
    return str(runtime).rstrip("0123456789.").split("-", 1)[0]


def _grid(pngs: list[bytes], width: int) -> Any:
    """Panels side by side (wrapping), as one HTML object; None when there are none."""
    import base64

    from IPython.display import HTML

    if not pngs:
        return None
    imgs = "".join(f'<img style="width:{width}px;margin:2px" src="data:image/png;base64,'
                   f'{base64.b64encode(p).decode()}"/>' for p in pngs)
    return HTML(f'<div style="display:flex;flex-wrap:wrap">{imgs}</div>')


def views(explorer: Explorer, runs: RunSet, study: str, baseline: str | None, engines: Iterable[str] | None = None,
          runtimes: Iterable[str] | None = None, benchmark: str | None = None) -> tuple[Any, Any, Any]:
    """(ratio table as HTML, ratio plots, run sequences of `benchmark`), each None when there is
    nothing to show; engines and runtimes default to all of the study's.

    The plots are panels, one per engine and runtime (ratios) or per cell (run sequences), each
    drawn once and kept: changing the engines or runtimes shown only picks panels already drawn.
    """
    from IPython.display import HTML

    from harness.analysis.figures.ratios import plot_ratios
    from harness.analysis.figures.style import subplots
    from harness.analysis.figures.warmup import plot_run_sequence
    from harness.analysis.stats import is_baseline
    from harness.studies.report import ratio_section

    cells = cells_of(runs, study)
    chosen = (tuple(sorted(cells["engine"].unique())) if engines is None else tuple(engines),
              tuple(sorted({runtime_family(r) for r in cells["runtime"]})) if runtimes is None else tuple(runtimes))
    table, note = explorer.ratios(runs, study, baseline) if baseline else (None, "_no baseline in these runs_")
    if table is None:
        return HTML(ratio_section(None, note, str(baseline), runs, "")), None, None
    html = HTML(explorer.html(("table", id(runs), study, baseline, chosen),
                              lambda: ratio_section(select(table, *chosen), note, baseline, runs, study + ".")))
    keep = [not is_baseline(e, str(r), baseline) for e, r in zip(table["engine"], table["runtime"])]
    others = select(table[keep], *chosen)
    ratio_pngs = []
    for (engine, runtime), g in others.groupby(["engine", "runtime"], sort=True):
        def draw_ratios(g: pd.DataFrame = g, name: str = f"{engine} ({runtime})") -> Any:
            if not g["ratio"].notna().any():
                return None
            fig = plot_ratios(g, baseline)
            ax = fig.axes[0]
            if ax.get_legend() is not None:
                ax.get_legend().remove()  # one engine per panel: its name is the title
            ax.set_title(f"{name}: time / time of {baseline}", loc="left", fontsize=8)
            ax.set_xlabel(f"ratio, {runs.confidence:.0%} CI ({runs.method}); log scale, < 1 is faster", fontsize=7)
            return _fixed_margins(fig, left_in=1.9)

        png = explorer.png(("ratios", id(runs), study, baseline, engine, str(runtime)), draw_ratios)
        if png:
            ratio_pngs.append(png)
    seq_pngs = []
    if benchmark:
        raw = explorer.raw_of(runs, benchmark)
        raw = raw[raw["engine"].isin(chosen[0]) & raw["runtime_family"].isin(chosen[1]) & raw["check_ok"].astype(bool)]
        for key, cell in raw.groupby(["params", "engine", "runtime"], sort=True):
            def draw(cell: pd.DataFrame = cell) -> Any:
                fig, ax = subplots(figsize=(6.5, 3.2))
                plot_run_sequence(cell.drop(columns=["runtime_family"]), ax=ax)
                ax.title.set_fontsize(8)
                return _fixed_margins(fig, left_in=0.75)

            png = explorer.png(("sequence", id(runs), benchmark, *key), draw)
            if png:
                seq_pngs.append(png)
    return html, _grid(ratio_pngs, 470), _grid(seq_pngs, 470)


def _fixed_margins(fig: Any, left_in: float) -> Any:
    """Margins in inches instead of a layout pass (tight_layout measures every label: most of a
    panel's drawing time), wide enough for the labels these panels have."""
    w, h = fig.get_size_inches()
    fig.subplots_adjust(left=min(0.6, left_in / w), right=1 - 0.15 / w, bottom=min(0.45, 0.55 / h),
                        top=1 - min(0.3, 0.35 / h))
    return fig


def ui(explorer: Explorer, run_dirs: list[Path] | None = None, study: str = "bindings",
       baseline: str = "sqlite/sqlite3@cpython", method: str = "process-bootstrap") -> Any:
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
