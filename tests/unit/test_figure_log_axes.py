"""Log axes read as plain numbers (1, 10, 100), never 10^k: the review found 10^k ticks unreadable."""
from __future__ import annotations

import pytest

from harness.analysis.figures.style import log_axis, plain_number, subplots


@pytest.mark.parametrize("value,text", [(0.01, "0.01"), (0.5, "0.5"), (1, "1"), (2, "2"), (10, "10"),
                                        (1000, "1,000"), (1e6, "1,000,000"), (0, ""), (float("nan"), "")])
def test_plain_number(value, text):
    assert plain_number(value) == text


def _labels(ax, which):
    import matplotlib

    matplotlib.use("Agg")
    ax.figure.canvas.draw()
    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    return [t.get_text() for t in axis.get_ticklabels() if lo <= t.get_position()[0 if which == "x" else 1] <= hi]


def test_a_wide_log_axis_has_decades_in_plain_numbers():
    fig, ax = subplots()
    ax.plot([1, 100_000], [0.02, 300], "o")
    log_axis(ax, "both")
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    x, y = _labels(ax, "x"), _labels(ax, "y")
    assert {"1", "10", "100", "1,000", "10,000", "100,000"} <= set(x)
    assert {"0.1", "1", "10", "100"} <= set(y)
    assert not any("10^" in t or "$" in t for t in x + y)
    assert not ax.xaxis.get_minor_locator()()  # no minor ticks


def test_a_narrow_log_axis_still_has_ticks_between_decades():
    fig, ax = subplots()
    ax.plot([0.6, 4.0], [1, 2], "o")
    log_axis(ax, "x")
    labels = _labels(ax, "x")
    assert {"1", "2"} <= set(labels) and len(labels) >= 2


@pytest.mark.parametrize("value,text", [(10, "10"), (1000, "1k"), (100_000, "100k"), (1e6, "1M"), (5e6, "5M")])
def test_compact_plain_number_for_narrow_axes(value, text):
    assert plain_number(value, compact=True) == text
