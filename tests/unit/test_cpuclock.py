"""Runtimes as a dimension: PyPy beside CPython, the C speed-of-light baseline, cycles per row.

A missing pypy3 or C toolchain skips its tests with the reason, unless CROSSINGS_REQUIRE_RUNTIMES=1
(CI sets it): then it fails.
"""
from __future__ import annotations

import math
import os

import pandas as pd
import pytest

from harness.run import cpuclock

REQUIRE = "CROSSINGS_REQUIRE_RUNTIMES"
N = 1000  # the smoke profile's n for bindings.*


def test_cycles_per_row_arithmetic():
    # seed 000: 6.9M rows/s at 3.2 GHz is about 460 cycles per row
    assert cpuclock.cycles_per_row(10_000 / 6.9e6, 10_000, 3.2e9) == pytest.approx(463.8, abs=0.1)
    assert math.isnan(cpuclock.cycles_per_row(0.001, 1000, None))
    assert math.isnan(cpuclock.cycles_per_row(None, 1000, 3e9))


def test_add_cycles_per_row_to_a_summary():
    df = pd.DataFrame({"benchmark": ["a", "b", "c"], "mean_s": [0.001, 0.002, 0.5], "rows_per_s": [1e7, 5e6, None]})
    out = cpuclock.add_cycles_per_row(df, {"hz": 3e9, "source": "perf"})
    assert out["cycles_per_row"].tolist()[:2] == pytest.approx([300.0, 600.0])
    assert math.isnan(out["cycles_per_row"].iloc[2])
    assert out.attrs["cpu_clock"]["source"] == "perf"
    # a clock the hypervisor or sysfs reports is not a cycle counter: no cycles are printed from it
    nominal = cpuclock.add_cycles_per_row(df, {"hz": 3e9, "source": "proc-cpuinfo"})
    assert nominal["cycles_per_row"].isna().all()
    unknown = cpuclock.add_cycles_per_row(df, {"hz": None, "source": "unknown"})
    assert unknown["cycles_per_row"].isna().all()
    assert "cycles_per_row" not in df


def test_cpu_clock_states_its_source():
    clock = cpuclock.cpu_clock()
    assert isinstance(clock["source"], str) and clock["source"]
    if clock["hz"] is not None:
        assert 1e8 < clock["hz"] < 1e10
        assert clock["source"].split(":")[0] in cpuclock.SOURCE_ORDER
    else:
        assert clock["source"].startswith("unknown")


def test_perf_csv_parsing():
    text = "<not supported>,,cycles,0,100.00,,\n0.57,msec,task-clock,568232,100.00,0.315,CPUs utilized\n"
    assert cpuclock.parse_perf_csv(text) == {"cycles": None, "task-clock": 0.57}
    text = "520000000,,cycles,200000000,100.00,,\n200.0,msec,task-clock,200000000,100.00,1.0,CPUs utilized\n"
    v = cpuclock.parse_perf_csv(text)
    assert v["cycles"] / (v["task-clock"] / 1e3) == pytest.approx(2.6e9)


def test_clock_of_run_falls_back_to_the_machine_section(tmp_path):
    (tmp_path / "manifest.json").write_text('{"schema_version": 2, "machine": {"cpu": {"mhz_proc_cpuinfo": 3200.0}}}')
    clock = cpuclock.clock_of_run(tmp_path)
    assert clock["hz"] == pytest.approx(3.2e9) and clock["source"].startswith("proc-cpuinfo")
    (tmp_path / "manifest.json").write_text('{"schema_version": 2, "cpu_clock": {"hz": 2.5e9, "source": "perf: measured"}}')
    assert cpuclock.clock_of_run(tmp_path)["hz"] == 2.5e9
    # read through the store's checks: a manifest that is not one gives no clock, never a traceback
    for bad in ('[1, 2]', '{"cpu_clock": {"hz": 2.5e9}}', '{"schema_version": 99, "cpu_clock": {"hz": 2.5e9}}'):
        (tmp_path / "manifest.json").write_text(bad)
        assert cpuclock.clock_of_run(tmp_path)["hz"] is None
    assert os.path.exists(tmp_path / "manifest.json")
