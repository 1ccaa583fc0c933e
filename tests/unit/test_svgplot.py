"""The explorer's inline-SVG plots: every series drawn, nothing invented, long sequences thinned for display only."""
from __future__ import annotations

import re

import pandas as pd

from harness.analysis.figures import svgplot


def _table() -> pd.DataFrame:
    return pd.DataFrame({"benchmark": ["b.x", "b.y", "geomean", "b.x"], "engine": ["duckdb", "duckdb", "duckdb", "apsw"],
                         "runtime": ["cpython3.11.7"] * 3 + ["pypy3.9.16"], "ratio": [0.5, 2.0, 1.0, float("nan")],
                         "ratio_ci_low": [0.4, 1.5, 0.8, float("nan")], "ratio_ci_high": [0.6, 2.5, 1.2, float("nan")]})


def test_ratio_svg_draws_each_series_and_row():
    svg = svgplot.ratio_svg(_table(), "sqlite@cpython", "caption <1>", colours={"duckdb": 2})
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "caption &lt;1&gt;" in svg  # text escaped
    assert svg.count('class="series"') == 1  # apsw has no ratio: no series, no legend entry
    assert "b.x" in svg and "b.y" in svg and "geometric mean" in svg and "apsw" not in svg
    assert svg.count(svgplot.PALETTE[2]) >= 3 * 2  # duckdb keeps colour 2: a bar and a marker per row
    assert svgplot.ratio_svg(_table().iloc[3:], "s@c", "c") is None  # no ratio at all: no figure


def test_ticks_cover_the_range():
    assert svgplot._nice_ticks(0.0, 10.0, 5) == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    assert svgplot._log_ticks(0.3, 3.0) == [0.5, 1.0, 2.0]
    assert svgplot._log_ticks(0.001, 1000.0) == [0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]  # decades when many


def test_sequence_svg_thins_long_sequences_for_display_only():
    n = 1000
    cell = pd.DataFrame({"process": [0] * n + [1] * 5, "iteration": list(range(n)) + list(range(5)),
                         "wall_ns": [1e6 + i for i in range(n)] + [2e6] * 5})
    warm = pd.DataFrame({"process": [0, 1], "warmup": ["warm-up", "flat"], "steady_iteration": [10, 0],
                         "steady_start": [10, 0]})
    svg = svgplot.sequence_svg(cell, warm, "t")
    stride = svgplot.thin(n)
    assert stride == 4 and f"every {stride}th iteration shown" in svg
    lines = re.findall(r'<polyline points="([^"]*)"', svg)
    assert [len(p.split()) for p in lines] == [n // stride, 5]  # at most MAX_POINTS per process
    assert svg.count('stroke-dasharray="1,2"') == 1  # one steady-state start line (process 0; process 1 is flat from 0)
    assert "process 0: warm-up" in svg and 'stroke-dasharray="5,3"' in svg
    short = svgplot.sequence_svg(cell[cell["process"] == 1], warm, "t")
    assert "iteration shown" not in short and svgplot.sequence_svg(cell.iloc[:0], warm, "t") is None
