"""The steady-state detector's rate on runtimes with no JIT, beside those with one (review 86)."""
import pandas as pd

from harness.studies import runfacts


def test_the_detectors_no_steady_state_rate_is_split_by_whether_the_runtime_has_a_jit():
    summary = pd.DataFrame([
        ("bindings.select_fold", "n=10000", "c-gcc12.2.0", 48, 26),
        ("bindings.select_all", "n=10000", "cpython3.11.7", 48, 35),
        ("bindings.select_all", "n=10000,aa=twin", "cpython3.11.7", 48, 48),  # a twin: left out
        ("bindings.select_all", "n=10000", "haskell-O0-ghc9.0.2", 20, 1),
        ("bindings.select_all", "n=10000", "pypy3.9.16", 24, 20),
        ("tpch.q01", "sf=0.01", "jvm-17.0.15", 10, 2),
        ("bindings.point_query", "n=10000", "go1.26.8", None, None),  # imported: no call
    ], columns=["benchmark", "params", "runtime", "processes", "no_steady"])
    text = runfacts.detector_block(summary)
    assert "on runtimes with no JIT, where no compiler warms up, 62 of 116 processes (53.4%)" in text
    assert "c 26 of 48; cpython 35 of 48; haskell 1 of 20" in text
    assert "(pypy, jvm), 22 of 34 processes (64.7%) (jvm 2 of 10; pypy 20 of 24)" in text
    assert "No process" in runfacts.detector_block(summary.iloc[:0])
