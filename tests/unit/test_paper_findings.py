"""Generated prose follows the data: wording by interval, the rank-correlation test of a claim,
the precision block from an adaptive record, the noise warning, and the aligned summary text."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from harness.analysis.stats import CellSample
from harness.analysis.stats.rankcorr import rank_correlation, spearman
from harness.analysis.summary import format_text, rate_text, time_text
from harness.record import Manifest
from harness.studies import findings, runfacts
from harness.studies.common import shorten


def test_faster_only_when_the_interval_lies_below_one():
    s = findings.ratio_sentence("A", "B", 0.5, 0.4, 0.625)
    assert s.startswith("A is 2.00 [1.60, 2.50] times faster than B")


def test_slower_only_when_the_interval_lies_above_one():
    s = findings.ratio_sentence("A", "B", 1.5, 1.2, 1.9)
    assert "A is 1.50 [1.20, 1.90] times slower than B" in s


def test_an_interval_including_one_is_worded_as_cannot_be_told_apart():
    for lo, hi in ((0.9, 1.1), (0.5, 1.0001), (0.9999, 3.0)):
        s = findings.ratio_sentence("A", "B", 0.95, lo, hi)
        assert "cannot be told apart" in s and "includes 1" in s
        assert "faster" not in s and "slower" not in s


def test_no_interval_claims_nothing():
    s = findings.ratio_sentence("A", "B", 0.5, math.nan, math.nan)
    assert "no interval" in s and "faster" not in s and "slower" not in s


def _cells(means: list[float], rng: np.random.Generator, sd: float = 0.01, procs: int = 8) -> list[CellSample]:
    return [CellSample([rng.normal(m, sd * m, 10) * rng.normal(1, sd) for _ in range(procs)]) for m in means]


def test_rank_correlation_finds_a_known_positive_relation():
    rng = np.random.default_rng(1)
    counts = [10, 100, 1000, 10_000, 100_000, 1_000_000]
    speedups = [1.1, 1.5, 2.0, 3.0, 4.5, 6.0]  # grows with counts
    slow = _cells([s for s in speedups], rng)
    fast = _cells([1.0] * 6, rng)
    r = rank_correlation(counts, slow, fast, resamples=2000)
    assert r.rho == 1.0 and r.low > 0 and r.verdict == "supported"


def test_rank_correlation_with_no_relation_is_not_supported():
    rng = np.random.default_rng(2)
    counts = [10, 100, 1000, 10_000, 100_000, 1_000_000]
    slow = _cells([2.0] * 6, rng, sd=0.2, procs=4)  # the same speedup everywhere, noisy
    fast = _cells([1.0] * 6, rng, sd=0.2, procs=4)
    r = rank_correlation(counts, slow, fast, resamples=2000)
    assert r.low < 0 < r.high and r.verdict == "not supported"


def test_rank_correlation_contradicted_and_undecided():
    rng = np.random.default_rng(3)
    counts = [1, 2, 3, 4, 5]
    r = rank_correlation(counts, _cells([5, 4, 3, 2, 1.5], rng), _cells([1] * 5, rng), resamples=1000)
    assert r.verdict == "contradicted"
    few = rank_correlation(counts[:2], _cells([1, 2], rng), _cells([1, 1], rng))
    assert few.verdict == "undecided"


def test_spearman_averages_tied_ranks():
    assert spearman([1, 1, 2, 3], np.array([1.0, 2.0, 3.0, 4.0])) > 0.9
    assert spearman([1, 2, 3], np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).tolist() == [1.0, -1.0]


def _fake_run(tmp_path, adaptive: dict | None, doctor: list | None = None):
    d = tmp_path / "20260101-000000-abcdef"
    d.mkdir()
    m = {"schema_version": 2, "run_id": d.name, "command": "python -m harness run --benchmarks 'bindings.*' --target-ci 3",
         "project": {"commit": "0123456789abcdef"}}
    if adaptive:
        m["adaptive"] = adaptive
    if doctor:
        m["doctor"] = doctor
    (d / "manifest.json").write_text(json.dumps(m))
    return d


class _FakeRuns:
    def __init__(self, run_dir, summary=None, processes=None):
        self.run_dirs = [run_dir]
        self.confidence = 0.99
        self.method = "process-bootstrap"
        self.summary = summary if summary is not None else pd.DataFrame(
            columns=["benchmark", "mean_s", "ci_low_s", "ci_high_s"])
        self.processes = processes if processes is not None else pd.DataFrame()

    def manifest(self, run_dir):
        from harness.analysis.runset import manifest_of

        return manifest_of(run_dir)

    def run_cells(self, run_dir):
        from harness.analysis.runset import run_cells

        return run_cells(run_dir)


def test_precision_block_reads_the_adaptive_record(tmp_path):
    cells = [{"benchmark": f"bindings.b{i}", "params": "", "engine": "e", "runtime": "cpython", "target": 0.03,
              "stop": stop, "achieved": a}
             for i, (stop, a) in enumerate([("met", 0.02), ("met", 0.03), ("budget", 0.08), ("no steady state", 0.2)])]
    cells.append({"benchmark": "tpch.q01", "params": "", "engine": "e", "runtime": "pypy", "target": 0.03,
                  "stop": "not run"})
    # an A/A twin is not one of the study's cells
    cells.append({"benchmark": "bindings.b0", "params": "aa=twin", "engine": "e", "runtime": "cpython",
                  "target": 0.03, "stop": "met", "achieved": 0.01})
    d = _fake_run(tmp_path, {"settings": {"target": 0.03}, "cells": cells})
    block = runfacts.precision_block(_FakeRuns(d))
    rows = [line for line in block.splitlines() if f"| {d.name} |" in line]
    assert len(rows) == 2
    b = rows[0].split(" | ")
    assert b[0] == "| E1 (bindings)" and b[2] == "4"
    assert b[3] == f"±{100 * np.median([0.02, 0.03, 0.08, 0.2]):.1f}%"
    assert b[4] == "2 of 4"
    assert "E1: 1 budget, 1 no steady state" in block and "E3: 1 not run" in block
    assert "within ±5%" in block and "within ±3%" in block


def test_precision_block_of_a_fixed_run_says_so(tmp_path):
    d = _fake_run(tmp_path, None)
    summary = pd.DataFrame({"benchmark": ["bindings.a", "bindings.b", "bindings.c"], "mean_s": [1.0, 2.0, np.nan],
                            "ci_low_s": [0.9, 1.6, np.nan], "ci_high_s": [1.1, 2.4, np.nan]})
    block = runfacts.precision_block(_FakeRuns(d, summary))
    assert f"| E1 (bindings) | {d.name} | 3 | ±15.0% | — (fixed) |" in block and "A fixed run" in block


def test_precision_block_counts_cells_with_ten_clean_processes(tmp_path):
    """Of the cells measured, those whose estimate used at least 10 processes (disturbed ones left out);
    a twin and a cell that never ran are not counted."""
    d = _fake_run(tmp_path, None)
    cells = [{"benchmark": f"bindings.{b}", "params": p, "engine": "e", "runtime": "cpython"}
             for b, p in (("a", {}), ("b", {}), ("c", {}), ("a", {"aa": "twin"}))]
    (d / "plan.json").write_text(json.dumps({"cells": cells, "order": []}))
    summary = pd.DataFrame({"benchmark": ["bindings.a", "bindings.b", "bindings.c", "bindings.a"],
                            "params": ["", "", "", "aa=twin"], "engine": ["e"] * 4, "runtime": ["cpython"] * 4,
                            "processes": [10, 9, np.nan, 12], "mean_s": [1.0, 2.0, np.nan, 1.0],
                            "ci_low_s": [0.9, 1.6, np.nan, 0.9], "ci_high_s": [1.1, 2.4, np.nan, 1.1]})
    block = runfacts.precision_block(_FakeRuns(d, summary))
    assert "| 1 of 2 measured |" in block


class _GeoRuns(_FakeRuns):
    """Two runs of one study (like E5's first run and its LG2 step): ratio_rows gives one geometric mean per
    engine whose half-width grows with the cells it is over, so each run's own is told apart."""

    def __init__(self, run_dirs, summary):
        super().__init__(run_dirs[0], summary)
        self.run_dirs = list(run_dirs)

    def ratio_rows(self, keys, baseline):
        keys = list(keys)
        engines = sorted({k[2] for k in keys} - {"sqlite/sqlite3"})
        half = 0.01 * len(keys)
        return pd.DataFrame({"benchmark": ["geomean"] * len(engines), "engine": engines,
                             "runtime": ["cpython"] * len(engines), "ratio": [1.0] * len(engines),
                             "ratio_ci_low": [1.0 - half] * len(engines), "ratio_ci_high": [1.0 + half] * len(engines),
                             "n": [len(keys)] * len(engines)})


def test_precision_block_gives_each_run_of_a_study_its_own_geometric_means(tmp_path):
    """A study of two runs gets each run's geometric means, over that run's cells, not the study's repeated
    on both rows (E5's LG2 step once showed the first run's '0 of 12' again)."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    d1, d2 = _fake_run(first, None), _fake_run(second, None)
    m = json.loads((d2 / "manifest.json").read_text())
    m["run_id"] = "20260101-000001-fedcba"
    (d2 / "manifest.json").write_text(json.dumps(m))
    one = [("app.a", "sqlite/sqlite3"), ("app.a", "x"), ("app.b", "sqlite/sqlite3"), ("app.b", "x"),
           ("app.b", "y")]
    two = [("app.c", "haskell/acid")]  # no baseline cell in this run: no geometric mean of its own
    for d, cells in ((d1, one), (d2, two)):
        plan = [{"benchmark": b, "params": {}, "engine": e, "runtime": "cpython"} for b, e in cells]
        (d / "plan.json").write_text(json.dumps({"cells": plan, "order": []}))
    rows = one + two
    summary = pd.DataFrame({"benchmark": [b for b, _ in rows], "params": [""] * len(rows),
                            "engine": [e for _, e in rows], "runtime": ["cpython"] * len(rows),
                            "processes": [10] * len(rows), "mean_s": [1.0] * len(rows),
                            "ci_low_s": [0.9] * len(rows), "ci_high_s": [1.1] * len(rows)})
    runs = _GeoRuns([d1, d2], summary)
    geo = runfacts.geomean_precision(runs, cells=runs.run_cells(d1))
    assert sorted(geo["engine"]) == ["x", "y"] and set(geo["n"]) == {5}
    assert runfacts.geomean_precision(runs, cells=runs.run_cells(d2)).empty
    block = runfacts.precision_block(runs)
    row1 = next(line for line in block.splitlines() if f"| {d1.name} |" in line)
    row2 = next(line for line in block.splitlines() if "| 20260101-000001-fedcba |" in line)
    assert row1.startswith("| E5 (app) |") and row2.startswith("| E5 (app) |")
    assert row1.endswith("| 0 of 2 (±5.0%) |")
    assert row2.endswith("| 0 of 0 (—) |")


def test_noise_warning_counts_noisy_processes_and_busy_starts(tmp_path):
    procs = pd.DataFrame({"noise": [{"noisy": True}, {"noisy": False}, {"noisy": True}, None]})
    text = runfacts.noise_warning(procs, [])
    assert text.startswith("**Warning: noisy run.** 2 of 3 processes")
    busy = [{"check": "load", "status": "warn", "value": "3.1 (of 2 CPUs)", "advice": ""}]
    assert "started on a busy machine (load: 3.1" in runfacts.noise_warning(pd.DataFrame(), [
        Manifest(run_id="r", doctor=busy)])
    # a load that is the tail of work already ended (no program busy now) is not a busy start
    tail = [{"check": "load", "status": "warn", "value": "0.70 1.11 (of 2 CPUs)", "advice": ""},
            {"check": "busy processes", "status": "ok", "value": "none", "advice": ""}]
    assert runfacts.noise_warning(pd.DataFrame(), [Manifest(run_id="r", doctor=tail)]) == ""
    quiet = pd.DataFrame({"noise": [{"noisy": False}]})
    assert runfacts.noise_warning(quiet, [Manifest(run_id="r", doctor=[])]) == ""


def test_reproduce_block_quotes_the_manifest_command(tmp_path):
    d = _fake_run(tmp_path, None)
    text = runfacts.reproduce_block([d])
    assert "python -m harness run --benchmarks 'bindings.*' --target-ci 3" in text and "0123456789ab" in text


def test_exclusion_reasons_are_cut_at_a_word():
    assert shorten("alpha beta gamma delta", 13) == "alpha beta …"
    assert shorten("short", 10) == "short"


def test_units_are_chosen_per_cell():
    assert time_text(0.00849, 0.00761, 0.00955) == "8.49 ms [7.61, 9.55]"
    assert time_text(2.5e-6, 2.0e-6, 3.0e-6) == "2.50 µs [2.00, 3.00]"
    assert time_text(1.0, math.nan, math.nan) == "1.00 s"
    assert rate_text(3_880_000, "rows/s") == "3.88 M rows/s" and rate_text(104_000, "queries/s") == "104 k queries/s"


def test_summary_text_is_aligned_and_narrow():
    rows = []
    for bench, params, rate in (("bindings.select_fold", "n=10000", 1e6), ("bindings.point_query", "n=10,queries=5", 9e4)):
        for engine, mean in (("sqlite/sqlite3", 0.00849), ("mariadb/mysqlclient", 0.171)):
            rows.append({"benchmark": bench, "params": params, "engine": engine, "runtime": "cpython3.11.7",
                         "processes": 5, "iterations": 10, "mean_s": mean, "ci_low_s": mean * 0.9,
                         "ci_high_s": mean * 1.1, "rows_per_s": rate, "confidence": 0.99,
                         "method": "process-bootstrap", "status": "ok", "reason": "", "no_steady": 0, "noisy": 0})
    rows.append({**rows[0], "engine": "duckdb", "status": "invalid", "mean_s": np.nan, "rows_per_s": np.nan,
                 "reason": "wrong answer " * 30})
    text = format_text(pd.DataFrame(rows))
    lines = text.splitlines()
    assert all(len(line) <= 120 for line in lines)
    assert "8.49 ms [7.64, 9.34]" in text and "171 ms [154, 188]" in text
    assert "90.0 k queries/s" in text and "1.00 M rows/s" in text
    cells = [line for line in lines if " ms [" in line]
    ends = {line.index(" ms [") + len(line.split(" ms [")[1].split("]")[0]) + 5 for line in cells}
    assert len(cells) == 4 and len(ends) == 1, "the interval column is right-aligned"
    assert "…" in text  # a long reason is cut at a word, not mid-word
    flat = " ".join(text.split())
    assert "bindings.point_query [n=10, queries=5]" in flat or "[n=10," in text  # the label may wrap at a space
    assert "queries=5 sqlite" not in flat and "sqlite/sqlite3]" not in flat  # the engine is outside the bracket
    assert all(len(line) <= 80 for line in format_text(pd.DataFrame(rows), width=80).splitlines())


def _manifest_run(tmp_path, name, commit, dirty=False, imported=False, started="2026-11-26T14:00:00+0000",
                  ended="2026-11-26T14:20:00+0000"):
    d = tmp_path / name
    d.mkdir()
    m = {"schema_version": 2, "run_id": name, "project": {"commit": commit, "dirty": dirty},
         "started": started, "ended": ended}
    if imported:
        m["imported"] = True
    else:
        m["segments"] = [{"commit": commit, "dirty": dirty, "started": started, "ended": ended}]
    (d / "manifest.json").write_text(json.dumps(m))
    return d


def test_campaign_commits_block_says_whether_one_commit_made_every_run(tmp_path):
    a = _manifest_run(tmp_path, "20261126-140000-aaaaaa", "0123456789abcdef")
    b = _manifest_run(tmp_path, "20261126-142000-bbbbbb", "0123456789abcdef", started="2026-11-26T14:20:00+0000",
                      ended="2026-11-26T15:10:00+0000")
    g = _manifest_run(tmp_path, "20261123-151536-cccccc", "fedcba9876543210", imported=True,
                      started="2026-11-23T15:15:36+0000")
    text = runfacts.campaign_commits_block([a, b, g])
    assert text.startswith("All 2 measured runs were made at one commit, `0123456789ab` (a clean tree)")
    assert "between 2026-11-26 14:00 and 15:10 UTC" in text
    assert "Imported from another tool's output: `20261123-151536-cccccc` (2026-11-23)" in text
    c = _manifest_run(tmp_path, "20261126-160000-dddddd", "1111111111111111", dirty=True)
    two = runfacts.campaign_commits_block([a, c])
    assert "at 2 commits" in two and "`111111111111` (uncommitted changes): `20261126-160000-dddddd`" in two


def test_verdict_rules_name_the_factor_the_rules_use():
    from harness.studies import verdicts

    text = verdicts.rules_text()
    assert f"factor of {verdicts.ABOUT:g}" in text and "more than half" in text
    lo, hi = 2.0 / verdicts.ABOUT, 2.0 * verdicts.ABOUT
    assert verdicts.about(lo, hi, 2.0).word == verdicts.SUPPORTED  # the rule as written is the rule applied
    assert verdicts.about(hi * 1.01, hi * 1.5, 2.0).word == verdicts.REFUTED


def test_e2_figure_caption_says_which_way_the_speedup_goes_with_crossings():
    from types import SimpleNamespace

    from harness.studies import micro

    r = SimpleNamespace(rho=0.31, low=0.14, high=0.6, confidence=0.99, verdict="supported", points=6)
    # an interval above 0 over 6 benchmarks is these runs' ordering: the exact test rejects only at |rho| = 1
    p = micro.spearman_p(0.31, 6)
    assert 0.5 < p < 0.6
    assert ("shows no trend with crossings that these benchmarks can establish (Spearman's rho 0.31, exact "
            f"permutation p = {p:.2f} over 6 benchmarks, Appendix B.2)") in micro.figure_takeaway(r)
    assert "rises" not in micro.figure_takeaway(r)
    assert "shows no trend" in micro.figure_takeaway(SimpleNamespace(**{**vars(r), "verdict": "not supported"}))
    assert micro.figure_takeaway(None) == ""


def test_run_sequence_caption_counts_the_plotted_processes_by_warm_up_class():
    from harness.analysis import simdata
    from harness.analysis.stats import warmup_analysis
    from harness.studies import bindings

    df = simdata.simulate_run(benchmarks=1, engines=("e", "f"), processes=6, iterations=30, warmup=3, seed=9)
    text = bindings.warmup_takeaway(df)
    counts = warmup_analysis(df)["warmup"].value_counts()
    assert text.startswith(": of 12 processes in 2 cells, ")
    assert sum(int(p.split()[0]) for p in text.split("cells, ")[1].split(", ")) == 12 == counts.sum()
    assert bindings.warmup_takeaway(df.iloc[0:0]) == ""


def test_e1_steady_state_caveat_names_the_cells_whose_processes_mostly_reached_none():
    """E1's main text says which cells' means include warm-up: most of their processes reached no steady
    state (k of n reached one, per cell), counted from the summary's per-cell `no_steady`."""
    import pandas as pd

    from harness.studies import bindings

    s = pd.DataFrame([
        {"benchmark": "bindings.select_fold", "engine": "sqlite/apsw", "runtime": "cpython3.11.7", "processes": 48, "no_steady": 42},
        {"benchmark": "bindings.select_fold", "engine": "sqlite/sqlite3", "runtime": "pypy3.9.16", "processes": 48, "no_steady": 35},
        {"benchmark": "bindings.point_query", "engine": "sqlite/sqlite3", "runtime": "pypy3.9.16", "processes": 24, "no_steady": 21},
        {"benchmark": "bindings.select_all", "engine": "sqlite/sqlite3", "runtime": "cpython3.11.7", "processes": 59, "no_steady": 0},
        {"benchmark": "bindings.select_all", "engine": "duckdb", "runtime": "cpython3.11.7", "processes": 60, "no_steady": 30},  # half: not most
        {"benchmark": "bindings.select_all", "engine": "ferretdb/pymongo", "runtime": "cpython3.11.7", "processes": float("nan"), "no_steady": float("nan")},
        {"benchmark": "micro.select", "engine": "sqlite/sqlite3", "runtime": "pypy3.9.16", "processes": 10, "no_steady": 10}])
    text = bindings.steady_caveat(s)
    assert text.startswith("Most processes of 3 E1 cells reached no steady state")
    assert "those means include warm-up" in text
    assert "sqlite/apsw@cpython select_fold 6 of 48; sqlite/sqlite3@pypy point_query 3 of 24, select_fold 13 of 48." in text
    assert "duckdb" not in text and "micro" not in text and "select_all" not in text
    assert bindings.steady_caveat(s[s["no_steady"] == 0]) == ""
    assert bindings.steady_caveat(pd.DataFrame()) == ""


def test_a_geometric_mean_whose_answer_warm_up_changes_carries_the_dagger(monkeypatch):
    """As Appendix B.2's † marks a cell, Section 1.1's subset mean says when counting every iteration puts its
    interval on the other side of 1; when both choices agree nothing is added."""
    from types import SimpleNamespace

    from harness.studies import findings, micro

    runs = SimpleNamespace(steady_state=True)
    monkeypatch.setattr(findings, "geomean_ratio", lambda *a, alt=False, **k: (1.025, 0.908, 1.157, 2))
    assert micro.warmup_flag(runs, set(), 0.678, 0.882) == " (†: counting every iteration, 1.02 [0.908, 1.16])"
    assert micro.warmup_flag(runs, set(), 0.95, 1.10) == ""  # both include 1


def test_the_exact_spearman_p_value_counts_every_order():
    """n = 3: the six orders give rho 1, 0.5, 0.5, -0.5, -0.5, -1; n = 6: a perfect ranking is 2 of 720."""
    from harness.studies import micro

    assert micro.spearman_p(1.0, 3) == 2 / 6 and micro.spearman_p(0.5, 3) == 1.0 and micro.spearman_p(-1.0, 3) == 2 / 6
    assert micro.spearman_p(1.0, 6) == 2 / 720 and micro.spearman_p(0.0, 6) == 1.0
    assert micro.spearman_p(0.9, 9) != micro.spearman_p(0.9, 9)  # too many orders to count: nan
    # one-sided (a rise stated before the data): only the upper tail counts
    assert micro.spearman_p(1.0, 3, one_sided=True) == 1 / 6 and micro.spearman_p(-1.0, 3, one_sided=True) == 1.0
    assert micro.spearman_p(0.5, 3, one_sided=True) == 3 / 6 and micro.spearman_p(29 / 35, 6, one_sided=True) == 21 / 720


def test_a_finding_whose_direction_warm_up_changes_carries_the_dagger():
    """As the tables' † does: when counting every iteration puts the ratio's interval on another side of 1,
    the sentence says so with that estimate; when both choices agree, nothing is added."""
    from harness.analysis.stats import CellBoot
    from harness.studies import findings

    a, b = ("bindings.select_fold", "n=10", "sqlite/sqlite3", "pypy3.9"), ("bindings.select_fold", "n=10", "sqlite/sqlite3", "cpython3.11")

    class Runs:
        confidence, steady_state = 0.99, True
        samples = {a: None, b: None}

        def __init__(self, steady, every):
            self._s, self._e = steady, every

        def boots(self, keys):
            return {k: self._s[k] for k in keys}

        def alt_boots(self, keys):
            return {k: self._e[k] for k in keys}

    steady = {a: CellBoot(1.0, 20, 1e-3, 19.0), b: CellBoot(1.4, 20, 1e-3, 19.0)}   # PyPy faster in steady state
    every = {a: CellBoot(2.4, 20, 1e-3, 19.0), b: CellBoot(1.4, 20, 1e-3, 19.0)}    # slower with its warm-up
    text = findings.compare(Runs(steady, every), "bindings.select_fold", "sqlite/sqlite3@pypy", "sqlite/sqlite3@cpython")
    assert "faster" in text and "†: counting every iteration, 1.71 [" in text and text.endswith("times slower.")
    same = findings.compare(Runs(steady, steady), "bindings.select_fold", "sqlite/sqlite3@pypy", "sqlite/sqlite3@cpython")
    assert "†" not in same


def test_a_geometric_mean_over_benchmarks_that_go_both_ways_says_so(monkeypatch):
    """E2's geometric mean of PyPy / CPython pools benchmarks on which PyPy is faster with others on which it
    is slower: the sentence counts each side (by each benchmark's own interval), and says nothing when all go
    one way."""
    from harness.studies import micro

    monkeypatch.setattr(findings, "count_verdicts", lambda *a: {"faster": 2, "slower": 1, "same": 3, "unknown": 0})
    assert micro.both_ways(None) == (" Per benchmark it goes both ways: PyPy is faster on 2, slower on 1 and cannot "
                                     "be told apart on 3 (Appendix B.2).")
    monkeypatch.setattr(findings, "count_verdicts", lambda *a: {"faster": 2, "slower": 0, "same": 4, "unknown": 0})
    assert micro.both_ways(None) == ""


def test_the_texts_dagger_follows_the_tables_rule():
    """Warm-up changes the answer when either estimate lies outside the other's interval, or the intervals lie
    on different sides of 1 (tables.py's † note); two overlapping estimates inside each other's intervals do not."""
    assert findings.disagrees((3.32, 3.18, 3.46), (2.93, 2.81, 3.05))  # same side, estimates apart
    assert findings.disagrees((0.72, 0.62, 0.84), (1.69, 1.46, 1.96))  # the side flips
    assert not findings.disagrees((1.05, 1.02, 1.09), (1.06, 1.01, 1.11))
    assert not findings.disagrees((1.05, 1.02, 1.09), (math.nan, math.nan, math.nan))


def test_a_jits_ratio_says_both_choices_of_iterations_even_when_they_agree():
    """Reviews 78 and 79: PyPy's ratio in Section 1.1 gives the estimate counting every iteration beside the one
    without warm-up, even where the tables' rule sees no difference; elsewhere only a difference is said."""
    class Runs:
        steady_state = True

    same = findings.said_dagger(Runs(), (1.05, 1.02, 1.09), (1.06, 1.01, 1.11), always=True)
    assert same == " Counting every iteration, the same answer: 1.06 [1.01, 1.11]."
    assert findings.said_dagger(Runs(), (1.05, 1.02, 1.09), (1.06, 1.01, 1.11)) == ""
    apart = findings.said_dagger(Runs(), (1.05, 1.02, 1.09), (1.69, 1.46, 1.96), always=True)
    assert apart == " †: counting every iteration, 1.69 [1.46, 1.96] times slower."
    assert findings.said_dagger(Runs(), (1.05, 1.02, 1.09), (math.nan,) * 3, always=True) == ""
