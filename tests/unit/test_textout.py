"""One number format and one table renderer for every command (analysis.textout)."""
from __future__ import annotations

import math

import pytest

from harness.analysis import textout

ROWS = [["bindings.select_fold [n=10000]", "sqlite/sqlite3", "cpython3.11.7", "5 x 10", "8.49 ms [7.61, 9.55]",
         "1.18 M rows/s", "noisy 2; no steady state in 1"],
        ["", "mariadb/mysqlclient", "cpython3.11.7", "5 x 10", "171 ms [154, 188]", "58.5 k rows/s", ""]]
COLS = [textout.Col("benchmark [params]"), textout.Col("engine"), textout.Col("runtime"),
        textout.Col("P x I", "right", wrap=False), textout.Col("mean [99% CI]", "right", wrap=False),
        textout.Col("rate", "right", wrap=False), textout.Col("notes")]


@pytest.mark.parametrize("width", [60, 80, 100, 120, 160])
def test_table_never_exceeds_the_width(width):
    text = textout.table(COLS, ROWS, width)
    assert max(len(line) for line in text.splitlines()) <= width


def test_table_keeps_numbers_and_names_whole_when_they_fit():
    text = textout.table(COLS, ROWS, 120)
    for cell in ("bindings.select_fold", "8.49 ms [7.61, 9.55]", "mariadb/mysqlclient", "58.5 k rows/s"):
        assert cell in text
    assert "[n=10000]" in text  # brackets are text, not rich markup


def test_same_format_as_summary():
    assert textout.time_text(0.00849, 0.00761, 0.00955) == "8.49 ms [7.61, 9.55]"
    assert textout.time_text(0.000412, unit_of=0.0021) == "0.412 ms"  # a row's values share a unit
    assert textout.time_text(math.nan) == "" and textout.rate_text(104_000, "queries/s") == "104 k queries/s"
    assert textout.seconds_text(47.15) == "47.1 s" and textout.seconds_text(196.8) == "3 min"


def test_width_is_120_off_a_terminal_whatever_columns_says(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("CROSSINGS_WIDTH", raising=False)
    assert textout.output_width() == 120  # stdout is captured here: not a terminal
    monkeypatch.setenv("CROSSINGS_WIDTH", "100")
    assert textout.output_width() == 100


def test_a_table_is_text_inside_a_notebook_kernel_too(monkeypatch):
    """rich sends output to the notebook's display when it detects Jupyter; the paper blocks the
    notebooks write need the text."""
    import builtins

    class ZMQInteractiveShell:  # the class name rich looks for
        pass

    monkeypatch.setattr(builtins, "get_ipython", lambda: ZMQInteractiveShell(), raising=False)
    from harness.analysis import textout

    out = textout.table(["benchmark", "time"], [["select", "1.0 ms"]], 40)
    assert "select" in out and "1.0 ms" in out
