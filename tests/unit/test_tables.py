"""Tables in the SQPyte layout, and the SQPyte paper's geometric mean from its published means."""
from __future__ import annotations

import numpy as np
import pytest

from harness.analysis import simdata, stats, tables
from harness.analysis.importers import read_import

# seed 001, Figure 16: mean seconds per micro-benchmark
FIG16 = {"select": (0.772, 3.382), "innerjoin": (0.578, 0.913), "pythonjoin": (1.397, 3.332),
         "pyfunction": (0.580, 3.861), "pyaggregate": (0.542, 2.558), "filltable": (0.067, 0.188)}


def test_sqpyte_geomean_from_figure16(tmp_path):
    p = tmp_path / "fig16.csv"
    lines = ["benchmark,engine,process,iteration,seconds"]
    for b, (sqpyte, sqlite) in FIG16.items():
        lines += [f"{b},sqpyte,0,0,{sqpyte}", f"{b},sqlite,0,0,{sqlite}"]
    p.write_text("\n".join(lines) + "\n")
    df = read_import(p, "csv")
    t = tables.build_table(df, "sqpyte", resamples=200)
    geo = t[(t.benchmark == "geomean") & (t.engine == "sqlite")].iloc[0]
    assert round(geo.ratio, 2) == 3.37  # paper: 3.367 ± 0.065
    assert np.isnan(geo.ratio_ci_low)  # single values: no interval claimed
    md = tables.to_markdown(t, "sqpyte")
    # 3.366 from the rounded published means (the paper, from its raw data: 3.367)
    assert "Geometric mean ×" in md and "3.366" in md


def _run():
    return simdata.simulate_run(benchmarks=3, engines=("sqlite/apsw", "sqlite/sqlite3"), seed=3)


def test_csv_columns_and_geomean_rows():
    t = tables.build_table(_run(), "sqlite/apsw", resamples=1000)
    need = ["benchmark", "params", "engine", "runtime", "mean_s", "ci_low_s", "ci_high_s", "ratio", "ratio_ci_low",
            "ratio_ci_high"]
    assert list(t.columns[:10]) == need
    csv = tables.to_csv(t)
    assert csv.splitlines()[0].startswith(",".join(need))
    geo = t[t.benchmark == "geomean"]
    assert set(geo.engine) == {"sqlite/apsw", "sqlite/sqlite3"}
    cells = t[(t.benchmark != "geomean") & (t.engine == "sqlite/sqlite3")]
    assert geo[geo.engine == "sqlite/sqlite3"].ratio.iloc[0] == pytest.approx(np.exp(np.log(cells.ratio).mean()))
    base = t[(t.benchmark == "bench00") & (t.engine == "sqlite/apsw")].iloc[0]
    other = t[(t.benchmark == "bench00") & (t.engine == "sqlite/sqlite3")].iloc[0]
    assert other.ratio == pytest.approx(other.mean_s / base.mean_s)


def test_markdown_layout():
    t = tables.build_table(_run(), "sqlite/apsw", resamples=1000)
    md = tables.to_markdown(t, "sqlite/apsw").splitlines()
    assert md[0] == "| Benchmark | sqlite/apsw | sqlite/sqlite3 |"
    assert md[2].startswith("| bench00 (ms) | ") and "±" not in "\n".join(md)
    row = t[(t.benchmark == "bench00") & (t.engine == "sqlite/apsw")].iloc[0]
    s = 1e3
    assert f"{row.mean_s * s:.3f} [{row.ci_low_s * s:.3f}, {row.ci_high_s * s:.3f}]" in md[2]
    assert md[3].startswith("| × |  | ") and " [" in md[3]
    assert md[8].startswith("| Geometric mean × (over 3 benchmarks) |")  # says what it is over
    assert "[99% confidence interval]" in "\n".join(md) and "5 processes × 50 iterations" in "\n".join(md)


def test_confidence_in_labels_and_no_interval_marks():
    t = tables.build_table(_run(), "sqlite/apsw", confidence=0.9, resamples=500)
    md = tables.to_markdown(t, "sqlite/apsw")
    assert "[90% confidence interval]" in md and "99%" not in md
    # two processes: no interval, a mark, and a footnote that says how many are needed
    df = _run()
    two = df[df.process < 2]
    t2 = tables.build_table(two, "sqlite/apsw", resamples=200)
    md2 = tables.to_markdown(t2, "sqlite/apsw")
    assert t2.ci_low_s.isna().all() and t2[t2.engine != "sqlite/apsw"].ratio_ci_low.isna().all()
    assert "*" in md2.splitlines()[2] and "at least 3" in md2 and "[" not in md2.splitlines()[2]


def test_positive_bounds_for_noisy_cells():
    """Even when the linear t interval would reach below zero, times and ratios keep bounds > 0."""
    df = simdata.simulate_run(benchmarks=4, engines=("a", "b"), processes=3, iterations=5, between=0.8, seed=9)
    t = tables.build_table(df, "a", resamples=1000)
    cells = t[t.benchmark != "geomean"]
    assert (cells.ci_low_s > 0).all() and (t.ratio_ci_low.dropna() > 0).all()
    assert (cells.ci_low_s < cells.mean_s).all() and (cells.mean_s < cells.ci_high_s).all()


def test_disagreeing_cells_marked_with_the_other_estimate():
    df = simdata.simulate_run(benchmarks=2, engines=("a", "b"), processes=5, iterations=50, warmup=5, seed=4)
    t = tables.build_table(df, "a", resamples=500)
    md = tables.to_markdown(t, "a")
    assert t.disagree[t.benchmark != "geomean"].all()
    assert "†" in md and "With all iterations:" in md
    drift = df.copy()
    one = (drift.benchmark == "bench00") & (drift.engine == "b") & (drift.process == 0)
    drift.loc[one, "wall_ns"] *= np.linspace(1, 2, 50)
    md = tables.to_markdown(tables.build_table(drift, "a", resamples=500), "a")
    assert "no steady state" in md and "- bench00 on b (cpython3.11): 1 of 5" in md
    t_all = tables.build_table(df, "a", resamples=500, steady_state=False)
    assert "all iterations, warm-up included" in tables.caption(t_all, "a")


def test_latex_booktabs_and_caption():
    t = tables.build_table(_run(), "sqlite/apsw", method="pooled-t", resamples=1000)
    tex = tables.to_latex(t, "sqlite/apsw")
    for s in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{", "t-interval over all iterations pooled",
              r"5 processes $\times$ 50 iterations", " ["):
        assert s in tex
    assert r"\pm" not in tex


def test_table_cli(tmp_path, capsys):
    from harness.cli import main

    p = tmp_path / "r.csv"
    df = _run()
    df.assign(seconds=df.wall_ns / 1e9)[["benchmark", "engine", "process", "iteration", "seconds"]].to_csv(p, index=False)
    assert main(["import", str(p), "--format", "csv", "--out", str(tmp_path)]) == 0
    run_dir = capsys.readouterr().out.strip().splitlines()[-1]
    assert main(["table", run_dir, "--baseline", "sqlite/apsw", "--format", "csv", "--resamples", "500"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("benchmark,params,engine,runtime,mean_s") and "geomean" in out
    assert main(["table", run_dir, "--baseline", "nope"]) == 2


def test_fmt_si_benchstat_style():
    assert [tables.fmt_si(v) for v in (286.6e-6, 7.479e-3, 820e-9, 1.5)] == ["286.6µ", "7.479m", "820.0n", "1.500"]


def test_method_recorded_in_rows():
    t = tables.build_table(_run(), "sqlite/apsw", method="process-t", resamples=500)
    assert (t.method == "process-t").all()
    s = stats.summarize_cells(_run(), method="process-t")
    assert (s.method == "process-t").all()


def test_a_positive_bound_never_prints_as_zero():
    from harness.analysis.wording import fixed, interval

    def fmt_interval(value, low, high, scale=1.0, digits=3):
        return interval(value, low, high, num=fixed(digits), scale=scale, missing="—")

    text = fmt_interval(685e-6, 2.1e-12, 1.96, 1e-6)
    low = text.split("[")[1].split(",")[0]
    assert float(low) > 0 and low != "0.000"
    assert fmt_interval(0.5, 0.25, 0.75) == "0.500 [0.250, 0.750]"


def test_markdown_cells_escape_pipes():
    import pandas as pd
    from markdown_it import MarkdownIt

    from harness.analysis.markdown import to_markdown

    md = to_markdown(pd.DataFrame({"a|b": ["x | y", "line\nbreak"], "c": [1, 2]}))
    assert "a\\|b" in md and "x \\| y" in md and "line break" in md
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert html.count("<td>") == 4 and "x | y" in html


def test_a_table_wider_than_a_page_is_cut_into_parts_that_repeat_its_row_names():
    from harness.analysis.markdown import split_table

    header = ["name", "base"] + [f"e{i}" for i in range(15)]
    rows = [["r1", "1"] + [str(i) for i in range(15)], ["×", ""] + [f"x{i}" for i in range(15)]]
    parts = split_table(header, rows, keep=2, max_columns=9).split("\n\n")
    widths = [p.splitlines()[0].count("|") - 1 for p in parts]
    assert len(parts) == 3 and max(widths) <= 9 and min(widths) >= 6  # shared out evenly, no stub
    assert all(p.startswith("| name | base |") for p in parts)
    assert sum(w - 2 for w in widths) == 15 and "| x14 |" in parts[-1]
    assert split_table(header[:9], [r[:9] for r in rows], keep=2).count("\n\n") == 0  # narrow: one table
