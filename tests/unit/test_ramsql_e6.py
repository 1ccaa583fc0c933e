"""E6 (seed 004): the Go program, the registry and the study agree on names; the study's pieces."""
from __future__ import annotations

import re

import pytest
from conftest import ROOT

from harness import workloads
from harness.engines.base import NotApplicable
from harness.run.go import launcher
from harness.studies import ramsql

GO_DIR = ROOT / "harness" / "run" / "go"
SEED_BENCHSTAT = """\
RamSQLSelect-8      287.8µ ±  4%   286.6µ ± 4%       ~ (p=0.818 n=6)
RamSQLSelect10K-8   8.246m ±  5%   7.479m ± 6%  -9.30% (p=0.004 n=6)
SQLiteSetup-8       844.1n ±  2%   811.1n ± 0%  -3.90% (p=0.002 n=6)
geomean             46.84µ         44.61µ       -4.75%
"""


def e6_workloads() -> dict:
    return {n: w for n, w in workloads.all_workloads().items() if n.startswith("ramsql.")}


def test_every_e6_benchmark_is_implemented_by_the_go_program_and_go_test():
    bench_go = (GO_DIR / "bench.go").read_text()
    implemented = set(re.findall(r'"(ramsql\.\w+)"', bench_go))
    assert implemented == set(e6_workloads())
    test_go = (GO_DIR / "bench_test.go").read_text()
    funcs = dict(re.findall(r'func Benchmark(\w+)\(b \*testing\.B\)\s*\{\s*runGoBench\(b, "[\w/]+", "([\w.]+)"\)\s*\}',
                            test_go))
    for name, w in e6_workloads().items():
        for prefix in ("RamSQL", "SQLite"):
            assert funcs.get(prefix + w.gotest) == name


def test_go_test_names_map_back_to_our_cells():
    assert ramsql._gotest_name("RamSQLSelect10K") == ("ramsql.select_10k", "ramsql/go")
    # the seed's names: SQLite is its driver, glebarez/go-sqlite
    assert ramsql._gotest_name("SQLiteSelect10KFixed") == ("ramsql.select_10k_fixed", "sqlite/glebarez")
    assert ramsql._gotest_name("SQLiteSetup") == ("ramsql.setup", "sqlite/glebarez")
    assert ramsql._gotest_name("PostgresSelect") is None


def test_benchstat_p_values_are_read_from_its_table():
    assert ramsql._benchstat_pvalues(SEED_BENCHSTAT) == {"RamSQLSelect": 0.818, "RamSQLSelect10K": 0.004,
                                                         "SQLiteSetup": 0.002}


def test_the_seeds_headline_ratios_follow_from_its_table():
    sec = ramsql.SEED_SEC_PER_OP
    assert round(sec["ramsql.select"]["ramsql/go"] / sec["ramsql.select"]["sqlite/glebarez"]) == 27
    assert round(sec["ramsql.select_10k"]["ramsql/go"] / sec["ramsql.select_10k"]["sqlite/glebarez"], -1) == 680


def test_go_only_benchmarks_refuse_a_python_worker():
    with pytest.raises(NotApplicable, match="runtime go"):
        e6_workloads()["ramsql.select"].setup(None, {"ops": 1}, {})


def test_missing_or_old_go_is_a_reason_not_a_crash(monkeypatch):
    monkeypatch.setenv("CROSSINGS_GO", "/nonexistent/go")
    assert "CROSSINGS_GO=/nonexistent/go" in launcher.unavailable_reason()
    assert launcher.probe("ramsql/go")["available"] is False
    assert launcher.parse_go_version("go version go1.19.8 linux/amd64") == (1, 19) < launcher.MIN_GO
    assert launcher.parse_go_version("go version go1.23.4 linux/amd64") >= launcher.MIN_GO
    assert "no Go program" in launcher.probe("sqlite/sqlite3")["reason"]


def test_rows_read_by_the_seeds_selects_are_said_once_per_benchmark():
    import pandas as pd
    ours = pd.DataFrame([{"benchmark": b, "engine": e, "rows_per_op": rows}
                         for b in ("ramsql.select", "ramsql.select_10k")
                         for e, rows in (("ramsql/go", 29.0), ("sqlite/go", 0.0))])
    ratios = pd.DataFrame([{"benchmark": "ramsql.select_10k_fixed", "ratio": 16.0, "low": 10.0, "high": 25.0}])
    text = ramsql.findings_text(ours, ratios, [("bench.txt", 300.0, 140.0, 800.0)])
    assert text.count("Rows read per query") == 1 and text.count("(the seed's code)") == 0
    assert "select 29 on ramsql/go, 0 on sqlite/go; select_10k 29 on ramsql/go, 0 on sqlite/go." in text
    assert "in our worker" in text and "`go test -bench`" in text and "300.0x" in text


def test_the_go_test_gap_is_put_to_the_host_from_the_manifests():
    from types import SimpleNamespace as NS
    gotest = NS(source={"format": "gobench"}, started="2026-11-23T15:15:35+0000", engines={},
                machine={"cpu": {"model": "AMD EPYC", "cores": 2}, "loadavg_before": [19.0, 22.9, 23.3]},
                project={"commit": "a870eefc62549f", "dirty": True})
    worker = NS(source={}, started="2026-11-26T15:20:21+0000", engines={"ramsql/go": {}, "sqlite/go": {}},
                machine={"cpu": {"model": "Intel Xeon", "cores": 2}}, project={"commit": "f1debe9fbc64"})
    text = ramsql.harness_difference(NS(manifests=lambda: [gotest, worker]))
    for part in ("AMD EPYC", "Intel Xeon", "a870eef (uncommitted changes)", "f1debe9", "23.3", "2-core",
                 "b.N", "no rows pile up", "the host"):
        assert part in text, part
    assert "host's speed" not in text
    assert ramsql.harness_difference(NS(manifests=lambda: [worker])) == ""


def test_the_harnesses_disagree_on_an_engine_whose_time_ratio_excludes_1():
    """go test's time per operation over the worker's per engine and session, with its interval: an interval
    that excludes 1 is a disagreement of the two harnesses on that engine's time, said even though the ratios'
    intervals overlap (the harness rule then does not fire); every interval including 1 is said too."""
    from harness.analysis.stats import CellBoot

    rs, sq = ramsql.RAMSQL, ramsql.SQLITE
    found = [(rs, "bench.txt", 2.09, 1.2, 3.6), (rs, "newbench.txt", 3.22, 1.5, 6.9),
             (sq, "bench.txt", 1.29, 0.7, 2.4), (sq, "newbench.txt", 1.21, 0.8, 1.8)]
    text = ramsql.gap_text(found)
    assert "ramsql/go 2.09x [1.20, 3.60] and 3.22x [1.50, 6.90]; sqlite/glebarez 1.29x" in text
    assert "(bench.txt, newbench.txt; 99% CI)" in text
    assert "the harnesses disagree on ramsql/go's time" in text and "sqlite/glebarez's time" not in text
    alike = [(e, sess, est, 0.5, 4.0) for e, sess, est, _, _ in found]
    assert "so the harnesses do not disagree on either engine's time" in ramsql.gap_text(alike)
    assert ramsql.gap_text(found[:2]) == ""  # one engine alone
    # whether the ratios agree is said only once compared (review 91 found "which overlap" asserted unchecked)
    assert "overlap" not in text
    assert "the ratios' intervals overlap, so the two harnesses cannot be told apart" in ramsql.gap_text(found, apart_sessions=[]).lower()
    assert "of bench.txt does not overlap" in ramsql.gap_text(found, apart_sessions=["bench.txt"])


    class Runs:  # the worker's iteration (20 operations) against go test's per-operation time
        confidence = 0.99

        def boots(self):
            return {("ramsql.select_10k_fixed", "ops=20", rs, "go"): CellBoot(20 * 600e-6, 10, 0.01, 9.0),
                    ("ramsql.select_10k_fixed", "aa=twin,ops=20", rs, "go"): CellBoot(1.0, 10, 0.01, 9.0),
                    ("RamSQLSelect10KFixed", "", "gotest-1", "go"): CellBoot(1200e-6, 4, 0.02, 3.0)}

    name = workloads.get("ramsql.select_10k_fixed").gotest
    if name != "Select10KFixed":  # the go test name is the workload's; the stand-in cells follow it
        Runs.boots = lambda self, _b=Runs.boots: {(f"RamSQL{name}" if k[0].startswith("RamSQL") else k[0], *k[1:]): v
                                                 for k, v in _b(self).items()}
    (engine, sess, est, lo, hi), = ramsql.harness_ratios(Runs())
    assert (engine, sess) == (rs, "bench.txt") and abs(est - 2.0) < 1e-9 and lo < 2.0 < hi  # the twin never used


def test_the_headline_says_when_the_two_harnesses_disagree_on_an_engines_own_time(monkeypatch):
    from harness.studies import findings, ramsql, runspread

    monkeypatch.setattr(runspread, "with_spread", lambda runs: runs)
    monkeypatch.setattr(findings, "compare", lambda *a, **k: "RamSQL is 21.5 [15.0, 30.8] times slower (99% CI).")
    monkeypatch.setattr(ramsql, "gotest_ratios", lambda runs, b: [("bench.txt", 34.8, 18.3, 66.1)])
    monkeypatch.setattr(ramsql, "gotest_where", lambda runs: "on this host")
    rows = [("ramsql/go", "bench.txt", 2.09, 1.19, 3.66), ("sqlite/glebarez", "bench.txt", 1.29, 0.76, 2.19)]
    monkeypatch.setattr(ramsql, "harness_ratios", lambda runs: rows)
    monkeypatch.setattr(findings, "pair_ratio", lambda *a, **k: (21.5, 15.0, 30.8))
    text = ramsql.abstract(None)
    assert "(99% CI), by our worker; `go test -bench`, run on this host, gives 34.8x [18.3, 66.1]." in text
    assert text.endswith("The two harnesses disagree on the time of RamSQL, but their ratios' intervals overlap "
                         "(Section 8).")
    monkeypatch.setattr(findings, "pair_ratio", lambda *a, **k: (10.0, 8.0, 12.0))
    assert ramsql.abstract(None).endswith("and on the ratio too (bench.txt) (Section 8).")
    monkeypatch.setattr(ramsql, "harness_ratios", lambda runs: rows[1:])
    assert "disagree" not in ramsql.abstract(None)


def test_the_figures_caption_counts_the_direct_test_beside_the_overlap(monkeypatch):
    """Review 78: two overlapping intervals are not agreement. The caption counts, per go test session, the cells
    whose go test / worker interval excludes 1, beside the overlaps the figure shows."""
    import pandas as pd

    side = pd.DataFrame({"benchmark": ["ramsql.select", "ramsql.select"], "engine": ["ramsql/go", "sqlite/glebarez"],
                         "bench.txt_overlap": [True, True], "newbench.txt_overlap": [True, False]})
    found = {"ramsql.select": [("ramsql/go", "bench.txt", 2.0, 1.2, 3.6), ("sqlite/glebarez", "bench.txt", 1.1, 0.8, 1.5),
                               ("ramsql/go", "newbench.txt", 1.0, 0.7, 1.4),
                               ("sqlite/glebarez", "newbench.txt", 0.5, 0.3, 0.8)]}
    monkeypatch.setattr(ramsql, "harness_ratios", lambda runs, bench: found.get(bench, []))
    apart = ramsql.harnesses_apart(None, ["ramsql.select", "ramsql.insert10"])
    assert apart == {"bench.txt": (1, 2), "newbench.txt": (1, 2)}
    text = ramsql.agreement_text(side, apart)
    assert "against bench.txt, 2 of 2 worker intervals overlap go test's, yet go test / worker excludes 1 in 1 of 2" in text
    assert "against newbench.txt, 1 of 2 worker intervals overlap go test's (not: select on sqlite/glebarez)" in text
    assert "excludes 1" not in ramsql.agreement_text(side)  # without the direct test, only the overlaps


def test_the_harnesses_ratios_are_apart_only_when_their_intervals_do_not_overlap():
    worker = (23.0, 18.7, 28.4)
    sessions = [("bench.txt", 48.8, 19.0, 125.0), ("newbench.txt", 21.8, 16.1, 29.6)]
    assert ramsql.ratios_apart(worker, sessions) == []
    assert ramsql.ratios_apart(worker, sessions + [("third.txt", 40.0, 30.0, 50.0)]) == ["third.txt"]
    assert ramsql.ratios_apart(worker, [("low.txt", 10.0, 8.0, 12.0)]) == ["low.txt"]
    assert ramsql.ratios_apart(None, sessions) is None and ramsql.ratios_apart(worker, []) is None
    assert ramsql.ratios_apart((23.0, float("nan"), 28.4), sessions) is None
