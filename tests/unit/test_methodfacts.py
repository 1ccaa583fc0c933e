"""The Method section's constants come from the code that uses them (harness/analysis/methodfacts.py)."""
from harness.analysis import interference as analysis_interference
from harness.analysis import methodfacts
from harness.run import interference as run_interference


def test_the_interference_text_prints_the_runners_own_thresholds(monkeypatch):
    text = methodfacts.interference_constants()
    assert "{" not in text and "}" not in text  # every placeholder filled
    assert "more than 25% of the worker's CPU in the gap since it ended" in text and "200 ms windows" in text
    assert f"at least {analysis_interference.MIN_CLEAN} clean processes" in text
    monkeypatch.setattr(run_interference, "GAP_BUSY_SHARE", 0.4)
    assert "more than 40% of the worker's CPU in the gap" in methodfacts.interference_constants()


def test_the_statistics_text_has_no_unfilled_placeholder():
    text = methodfacts.statistics_constants(10000, 0.99)
    assert "{" not in text and "}" not in text and ("10,000" in text or "10000" in text)
