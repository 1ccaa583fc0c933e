"""Study E2s: PyPy's speedup over CPython read within a benchmark as its data (and crossings) grow."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.analysis.stats import CellBoot
from harness.analysis.stats.intervals import combine_log_ratios, log_contrast
from harness.studies import sweep

PY, CP = "pypy3.9.16", "cpython3.11.7"


class _Runs:
    """A run set of fixed cell reductions: PyPy and CPython cells of a few benchmarks at a few scale factors."""

    confidence = 0.99
    method = "process-bootstrap"

    def __init__(self, means: dict[tuple[str, float], tuple[float, float]], log_var: float = 1e-3,
                 alt: dict[tuple[str, float], tuple[float, float]] | None = None):
        self._b, self._alt, rows, raw = {}, {}, [], []
        for (bench, sf), (pypy, cpython) in means.items():
            params = f"indexes=off,sf={sf:g}"
            for rt, mean in ((PY, pypy), (CP, cpython)):
                key = (bench, params, "sqlite/sqlite3", rt)
                self._b[key] = CellBoot(mean, 6, log_var, 5.0)
                other = (alt or {}).get((bench, sf))
                self._alt[key] = CellBoot(other[0] if rt == PY else other[1], 6, log_var, 5.0) if other else self._b[key]
                rows.append({"benchmark": bench, "params": params, "engine": "sqlite/sqlite3", "runtime": rt,
                             "crossings": 6e6 * sf, "processes": 6, "no_steady": 1 if rt == PY else 0})
                raw += [{"run_id": "r", "benchmark": bench, "params": params, "engine": "sqlite/sqlite3",
                         "runtime": rt, "process": p} for p in range(6) for _ in range(20)]
        self.samples = dict.fromkeys(self._b)
        self.summary = pd.DataFrame(rows)
        self.raw = pd.DataFrame(raw)

    def boots(self, keys=None):
        return {k: b for k, b in self._b.items() if keys is None or k in set(keys)}

    def alt_boots(self, keys=None):
        return {k: b for k, b in self._alt.items() if keys is None or k in set(keys)}

    def manifests(self):
        return []


def test_a_contrast_of_four_cells_is_the_ratio_of_two_ratios_with_their_variances_summed():
    a, b, c, d = (CellBoot(m, 6, v, 5.0) for m, v in ((1.0, 0.01), (2.0, 0.02), (3.0, 0.03), (4.0, 0.04)))
    est, lo, hi = log_contrast([(a, 1.0), (b, -1.0), (c, -1.0), (d, 1.0)])
    assert est == pytest.approx((1 / 2) / (3 / 4))
    # four independent cells: the log variance is their sum; the interval is symmetric on the log scale
    assert math.log(hi / est) == pytest.approx(math.log(est / lo))
    one = log_contrast([(a, 1.0), (b, -1.0)])
    assert one == pytest.approx(combine_log_ratios([(a, b)]))  # a ratio is the contrast +1, -1
    assert math.log(hi / est) > math.log(one[2] / one[0])  # more cells, a wider interval
    assert math.isnan(log_contrast([])[0])


def test_the_speedup_grows_on_a_benchmark_whose_pypy_time_falls_faster_than_cpythons():
    """select: PyPy / CPython goes 1.0 -> 0.5 as SF grows tenfold, so its speedup doubles (growth 2x, above 1);
    pyfunction: 1.0 at both (cannot be told apart); innerjoin: 0.5 -> 1.0 (shrinks)."""
    means = {("micro.select", 0.01): (1.0, 1.0), ("micro.select", 0.1): (5.0, 10.0),
             ("micro.pyfunction", 0.01): (1.0, 1.0), ("micro.pyfunction", 0.1): (10.0, 10.0),
             ("micro.innerjoin", 0.01): (0.5, 1.0), ("micro.innerjoin", 0.1): (10.0, 10.0)}
    runs = _Runs(means)
    grown = {b: r for b, lo, hi, r in sweep.growth(runs)}
    assert grown["micro.select"][0] == pytest.approx(2.0) and grown["micro.select"][1] > 1
    assert grown["micro.pyfunction"][1] < 1 < grown["micro.pyfunction"][2]
    assert grown["micro.innerjoin"][0] == pytest.approx(0.5) and grown["micro.innerjoin"][2] < 1
    assert sweep.growth_geomean(runs)[0] == pytest.approx(1.0)  # (2 x 1 x 0.5)^(1/3)
    text = sweep.sentence(runs)
    assert "From SF 0.01 to 0.1 (crossings x10), PyPy's speedup over CPython changes by" in text
    assert "it grows on 1 (select), shrinks on 1 (innerjoin), cannot be told apart on 1 (pyfunction)" in text
    assert "every process timing 20 iterations; 30 of 36 PyPy processes reached a steady state" in text
    g = sweep.growth_geomean(runs)
    assert (f"geometric mean is 1.00x [{g[1]:.2f}, {g[2]:.2f}]: more crossings within a benchmark moved PyPy's "
            "speedup by no more than these bounds.") in text
    # every benchmark's PyPy time falling twice as fast as CPython's: the geometric mean says the speedup grows
    up = _Runs({("micro.select", 0.01): (1.0, 1.0), ("micro.select", 0.1): (5.0, 10.0),
                ("micro.pyfunction", 0.01): (1.0, 1.0), ("micro.pyfunction", 0.1): (5.0, 10.0)})
    assert "PyPy's speedup grows with the crossings within a benchmark." in sweep.sentence(up)
    said = sweep.figure_takeaway(runs)
    assert said.startswith("from SF 0.01 to 0.1, PyPy's speedup over CPython grows on 1, shrinks on 1 and cannot be "
                           "told apart on 1 of the 3 benchmarks")
    flat = _Runs({("micro.select", 0.01): (1.0, 1.0), ("micro.select", 0.1): (10.0, 10.0),
                  ("micro.pyfunction", 0.01): (1.0, 1.0), ("micro.pyfunction", 0.1): (10.0, 10.0)})
    assert "no change of PyPy's speedup over CPython is told apart on any of the 2 benchmarks" in sweep.figure_takeaway(flat)
    up = _Runs({("micro.select", 0.01): (1.0, 1.0), ("micro.select", 0.1): (5.0, 10.0)})
    assert "PyPy's speedup over CPython grows on every one of the 1" in sweep.figure_takeaway(up)
    assert "no change is told apart on any." in sweep.sentence(flat)


def test_the_table_gives_every_point_with_both_choices_of_iterations():
    runs = _Runs({("micro.select", 0.01): (1.0, 2.0), ("micro.select", 0.03): (2.0, 4.0)},
                 alt={("micro.select", 0.01): (3.0, 2.0), ("micro.select", 0.03): (2.0, 4.0)})
    md = sweep.table_markdown(runs)
    assert "| select | 0.01 | 60,000 | 0.50x [" in md and "| 1.50x [" in md and "| 5 of 6 |" in md
    assert md.index("| select | 0.01 |") < md.index("| select | 0.03 |")  # in scale-factor order
    assert [r[1] for r in sweep.figure_rows(runs)] == [60000.0, 180000.0]


def test_no_run_or_one_scale_factor_is_said_not_computed():
    assert "No E2s run" in sweep.sentence(None) and "No E2s run" in sweep.table_markdown(None)
    one = _Runs({("micro.select", 0.01): (1.0, 2.0)})
    assert sweep.growth(one) == [] and "at two scale factors" in sweep.sentence(one)
    assert sweep.figure_takeaway(one) == ""
    assert sweep.scale_factor("indexes=off,sf=0.03") == 0.03 and math.isnan(sweep.scale_factor("rows=10"))
