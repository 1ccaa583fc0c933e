"""The shared wording (harness.analysis.wording): intervals, times, rates, the noise sentences."""
import math

import numpy as np

from harness.analysis import wording


def test_wording_time_picks_unit_without_exponent():
    assert wording.time_interval(0.00104) == "1.04 ms"
    assert wording.time_interval(999.6e-6) == "1.00 ms"  # rounds up into the next unit, never 1e+03 µs
    assert wording.time_interval(8.49e-3, 7.61e-3, 9.55e-3) == "8.49 ms [7.61, 9.55]"
    assert wording.time_interval(8.49e-3, 7.61e-3, 9.55e-3, unit_at="end") == "8.49 [7.61, 9.55] ms"
    assert wording.time_interval(990e-6, 950e-6, 1.04e-3, unit_at="end") == "990 [950, 1040] µs"
    assert wording.time_interval(2.5e-9) == "2.50 ns" and wording.time_interval(42.0) == "42.0 s"
    assert wording.time_interval(math.nan, 1, 2, missing="—") == "—"
    assert wording.time_interval(3e-6, math.nan, 1, no_ci=" (no CI)") == "3.00 µs (no CI)"


def test_wording_no_exponent_from_ns_to_hours():
    for seconds in np.logspace(-9, 4, 400):
        for low, high in ((seconds * 0.93, seconds * 1.07), (seconds * 0.5, seconds * 2.0)):
            text = wording.time_interval(seconds, low, high)
            assert "e+" not in text and "e-" not in text, text
            mean = text.split(" ")[0]
            assert len(mean.replace(".", "").strip("0")) <= 4, text


def test_wording_plain_and_fixed_numbers():
    assert wording.plain(1145) == "1140" and wording.plain(1176.4) == "1180" and wording.plain(99999) == "100000"
    assert wording.plain(1040) == "1040" and wording.plain(0.00021) == "0.000210" and wording.plain(76.24) == "76.2"
    assert wording.plain(math.inf) == "?" and wording.plain(0) == "0"
    assert wording.fixed(3)(0.5) == "0.500" and wording.fixed(3)(2.1e-6) == "2.1e-06"
    assert wording.sig(1234.5) == "1,234" and wording.sig(8.49) == "8.49" and wording.sig(math.nan) == "—"


def test_wording_interval_unit_positions():
    assert wording.interval(2.0, 1.5, 3.5) == "2.00 [1.50, 3.50]"
    assert wording.interval(8.49e-3, 7.61e-3, 9.55e-3, scale=1e-3, unit="ms") == "8.49 ms [7.61, 9.55]"
    assert wording.interval(1.0, 0.5, 2.0, num=lambda x: f"{x:.1f}", unit="s", unit_at="each") == "1.0s [0.5s, 2.0s]"
    assert wording.interval(1.0, None, None, unit="x", no_ci=" (no interval)") == "1.00 x (no interval)"
    assert wording.interval(None, 1, 2, missing="not measured") == "not measured"


def test_wording_rates():
    assert wording.si_rate(1_120_000) == "1.12M" and wording.si_rate(999_999) == "1M" and wording.si_rate(835) == "835"
    assert wording.si_rate(math.nan) == ""
    assert wording.interval(1.12e6, 0.9e6, 1.3e6, num=wording.si_rate, no_ci=" (no CI)") == "1.12M [900k, 1.3M]"
    assert wording.interval(1.12e6, math.nan, 1.3e6, num=wording.si_rate, no_ci=" (no CI)") == "1.12M (no CI)"


def test_wording_rate_unit_and_noise_sentences():
    assert wording.rate_unit("bindings.select_all") == "rows/s"
    said = wording.noise_sentences(2, 5, [("r", ["load: 3.0"])], disturbed=False)
    assert said[0].startswith("2 of 5 processes ran while other programs") and "run r started on a busy machine" in said[1]
    assert wording.noise_sentences(0, 0, [], disturbed=True) == []
    assert "were disturbed" in wording.noise_sentences(1, 9, [], disturbed=True)[0]
