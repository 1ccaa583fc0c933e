"""The widest cell's diagnosis is computed from the raw timings: which cell, how many processes kept every
iteration, and the first iteration against the rest."""
from types import SimpleNamespace

import pandas as pd
import pytest

from harness.studies import widest


def _summary(rows):
    return pd.DataFrame([dict(benchmark=b, params=p, engine=e, runtime="haskell-O0", mean_s=m, ci_low_s=lo,
                              ci_high_s=hi) for b, p, e, m, lo, hi in rows])


def _raw(first_over_rest, rest_s=1e-4, n=10, engine="acidstate/acid-state"):
    rows = []
    for proc, ratio in enumerate(first_over_rest):
        for it in range(n):
            rows.append(dict(benchmark="app.insert_item", params="corpus=LG2", engine=engine, runtime="haskell-O0",
                             run_id="r1", process=proc, iteration=it, check_ok=True,
                             wall_ns=(ratio if it == 0 else 1.0) * rest_s * 1e9))
    return pd.DataFrame(rows)


def _runs(summary, raw):
    return SimpleNamespace(summary=summary, raw_of=lambda bench: raw[raw["benchmark"] == bench])


def test_the_widest_cell_is_the_one_whose_bounds_lie_furthest_apart_within_the_study():
    s = _summary([("app.a", "", "x", 1.0, 0.9, 1.1), ("app.b", "", "x", 1.0, 0.1, 30.0),
                  ("other.c", "", "x", 1.0, 1e-3, 1e3), ("app.d", "", "x", 1.0, 0.0, 2.0)])
    assert widest.widest_cell(s, "app.")["benchmark"] == "app.b"  # other studies and bounds <= 0 are not read
    assert widest.widest_cell(s, "none.") is None


def test_the_first_iteration_is_compared_with_the_median_of_the_rest_per_process():
    raw = _raw([400.0, 2.0])
    assert widest.first_iteration_ratios(raw) == pytest.approx([400.0, 2.0])
    raw.loc[raw["iteration"] == 0, "check_ok"] = False  # a failed check is not an iteration: the next one leads
    assert widest.first_iteration_ratios(raw) == pytest.approx([1.0, 1.0])


def test_the_note_names_the_cell_the_processes_that_kept_every_iteration_and_the_slow_start(monkeypatch):
    s = _summary([("app.insert_item", "corpus=LG2", "acidstate/acid-state", 9.88e-4, 3.59e-5, 2.72e-2)])
    raw = _raw([400.0] * 9 + [490.0])
    classes = pd.DataFrame({"warmup": ["warm-up"] * 9 + ["no steady state"]})
    monkeypatch.setattr(widest, "warmup_analysis", lambda df: classes)
    text = widest.note(_runs(s, raw))
    assert text.startswith("*The widest cell.* acidstate/acid-state's insert_item at corpus=LG2 on haskell-O0, "
                           "988 µs [35.9, 27200], spans 760 times from bound to bound, because of one process of its 10.")
    assert "In every process the first iteration takes 400 to 490 times the median of the rest (by our inference" in text
    assert "kept every iteration (Section 2.4)" in text
    # two processes without a steady state, and a slow start in only some processes
    classes = pd.DataFrame({"warmup": ["flat"] * 8 + ["no steady state"] * 2})
    monkeypatch.setattr(widest, "warmup_analysis", lambda df: classes)
    hdbc = s.assign(engine="sqlite/hdbc")
    text = widest.note(_runs(hdbc, _raw([1.0] * 7 + [50.0] * 3, engine="sqlite/hdbc")))
    assert "because of 2 processes of its 10." in text and "In 3 of its 10 processes" in text
    assert "by our inference" not in text  # the inference is acid-state's
    # no slow start: the detector's choice alone is said
    text = widest.note(_runs(s, _raw([1.0] * 10)))
    assert "The detector found no steady state in 2 processes, which kept every iteration" in text


def test_no_note_when_no_interval_spans_an_order_of_magnitude_or_every_process_is_steady(monkeypatch):
    narrow = _summary([("app.insert_item", "corpus=LG2", "acidstate/acid-state", 1e-4, 0.5e-4, 4.9e-4)])
    assert widest.note(_runs(narrow, _raw([1.0] * 3))) == ""
    wide = _summary([("app.insert_item", "corpus=LG2", "acidstate/acid-state", 1e-4, 1e-5, 1e-3)])
    monkeypatch.setattr(widest, "warmup_analysis", lambda df: pd.DataFrame({"warmup": ["flat"] * 3}))
    assert widest.note(_runs(wide, _raw([1.0] * 3))).endswith("its processes differ among themselves.")
    assert widest.note(_runs(_summary([]).reindex(columns=["benchmark", "ci_low_s", "ci_high_s"]), _raw([]))) == ""
