"""The explorer's cache and filters (the widgets themselves need a browser; the e2e notebook test runs them)."""
from __future__ import annotations

import pandas as pd

from harness import store
from harness.analysis import simdata
from harness.studies import explorer


def test_runtime_family_and_select():
    assert [explorer.runtime_family(r) for r in ("cpython3.11.7", "pypy3.9.16", "c-gcc12.2.0")] == ["cpython", "pypy", "c"]
    t = pd.DataFrame({"engine": ["a", "a", "b"], "runtime": ["cpython3.11.7", "c-gcc12.2.0", "cpython3.11.7"]})
    assert len(explorer.select(t, ["a"], ["c"])) == 1  # `c` is not a prefix match for cpython
    assert len(explorer.select(t, ["a", "b"], ["cpython"])) == 2


def test_explorer_caches_runsets_and_figures(tmp_path):
    df = simdata.simulate_run(benchmarks=["bindings.select_fold"], engines=("sqlite/sqlite3", "duckdb"), processes=3,
                              iterations=6, seed=3)
    run = store.write_imported_run(tmp_path, df, {"machine": {}})
    ex = explorer.Explorer(resamples=200)
    runs = ex.runset([run])
    assert ex.runset([str(run)]) is runs and ex.runset([run], "pooled-t") is not runs
    assert ex.runset([run, str(run)]) is runs  # a run named twice is loaded once
    table, _ = ex.ratios(runs, "bindings", "sqlite/sqlite3@cpython")
    assert ex.ratios(runs, "bindings", "sqlite/sqlite3@cpython")[0] is table
    assert set(table["engine"]) == {"sqlite/sqlite3", "duckdb"}
    calls = []
    draw = lambda: calls.append(1)  # noqa: E731  (returns None: no figure)
    assert ex.figure(("k",), draw) is None and ex.figure(("k",), draw) is None and calls == [1]
    assert explorer.baselines(runs, "bindings")[0] == "sqlite/sqlite3@cpython"


def test_views_and_widgets_redraw_from_the_cache(tmp_path):
    df = simdata.simulate_run(benchmarks=["bindings.select_fold", "bindings.select_all"],
                              engines=("sqlite/sqlite3", "duckdb"), processes=3, iterations=6, seed=4)
    run = store.write_imported_run(tmp_path, df, {"machine": {}})
    ex = explorer.Explorer(resamples=200)
    runs = ex.runset([run])
    html, ratios, sequences = explorer.views(ex, runs, "bindings", "sqlite/sqlite3@cpython",
                                             benchmark="bindings.select_fold")
    assert "[" in html.data and "baseline" in html.data
    assert ratios.data.count("<svg") == 1  # one plot, the engines as series: duckdb (the baseline has none)
    assert ratios.data.count('class="series"') == 1 and 'data-engine="duckdb"' in ratios.data
    assert sequences.data.count("<svg") == 2  # one panel per cell
    assert ratios.data == explorer.views(ex, runs, "bindings", "sqlite/sqlite3@cpython")[1].data  # cached text
    panel = explorer.ui(ex, [run], study="bindings")
    (left, right) = panel.children[0].children
    runs_w, study_w, method_w, steady_w = left.children
    baseline_w, engines_w, runtimes_w, bench_w = right.children
    assert baseline_w.value == "sqlite/sqlite3@cpython" and set(engines_w.value) == {"sqlite/sqlite3", "duckdb"}
    drawn = len(ex._figures)
    assert drawn == 1 + 2 + 2  # the ratio plot; two cells each of select_all (the first) and select_fold
    bench_w.value = "bindings.select_fold"
    assert len(ex._figures) == drawn  # select_fold's panels were drawn by views() above: picked, not redrawn
    engines_w.value = ("duckdb",)
    assert len(ex._figures) == drawn + 1  # one new view of the ratio plot; duckdb's sequence panel was drawn
    engines_w.value = ("sqlite/sqlite3", "duckdb")
    assert len(ex._figures) == drawn + 1  # back to a view seen before: nothing drawn
    assert len(ex._runsets) == 1 and max(runs.boot_counts.values()) == 1  # every cell bootstrapped once
    method_w.value = "process-t"
    assert len(ex._runsets) == 2
    other = explorer.ui(ex, [run], study="bindings", baseline="duckdb@cpython")
    assert other.children[0].children[1].children[0].value == "duckdb@cpython"  # the baseline asked for
