"""benchstat-style comparison: seed 004's go test -bench output reproduces its benchstat table."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from harness.analysis import simdata, stats, tables
from harness.commands import compare as compare_cmd
from harness.analysis.importers import read_import
from harness.analysis.textout import time_text

DATA = Path(__file__).parent.parent / "data"

# seed 004, benchstat's "newbench.txt" column: median ± CI
SEED004 = {
    "RamSQLSelect": ("286.6µ", "4%"),
    "SQLiteSelect": ("10.73µ", "3%"),
    "RamSQLSelect10K": ("7.479m", "6%"),
    "SQLiteSelect10K": ("11.05µ", "1%"),
    "RamSQLInsert10": ("281.5µ", "6%"),
    "SQLiteInsert10": ("329.5µ", "4%"),
    "RamSQLSetup": ("820.0n", "2%"),
    "SQLiteSetup": ("811.1n", "0%"),
}


def test_seed004_medians_and_ci_reproduced():
    df = read_import(DATA / "seed004_newbench.txt", "gobench", engine="go")
    cmp = stats.compare_runs(df, df)
    got = {r.benchmark: (tables.fmt_si(r.new_median_s), tables.fmt_pct(r.new_ci_pct))
           for r in cmp.itertuples() if r.benchmark != "geomean"}
    assert got == SEED004
    geo = cmp[cmp.benchmark == "geomean"].iloc[0]
    assert tables.fmt_si(geo.new_median_s) == "44.61µ"  # benchstat's geomean of the new column
    assert (cmp.base_n.dropna() == 6).all()


def test_all_separated_p_value_is_benchstats():
    # two samples of 6 that do not overlap: exact two-sided p = 2 / C(12, 6) = 0.002 (seed 004's p=0.002)
    x = np.arange(6.0)
    y = np.arange(6.0) + 10
    assert stats.mann_whitney_p(x, y) == pytest.approx(2 / 924)
    assert stats.mann_whitney_p(x, y) == pytest.approx(sps.mannwhitneyu(x, y).pvalue)


def test_compare_runs_rows_and_geomean():
    base = simdata.simulate_run(benchmarks=3, engines=("e",), processes=8, iterations=10, seed=1, between=0.01)
    new = simdata.simulate_run(benchmarks=3, engines=("e",), processes=8, iterations=10, seed=2, between=0.01,
                               true_means={("bench00", "e"): 0.02, ("bench01", "e"): 0.012, ("bench02", "e"): 0.0144})
    cmp = stats.compare_runs(base, new, alpha=0.05)
    assert list(cmp.columns[:11]) == ["benchmark", "params", "engine", "runtime", "base_median_s", "base_ci_pct",
                                      "new_median_s", "new_ci_pct", "delta_pct", "p_value", "significant"]
    r0 = cmp.iloc[0]
    assert r0.significant and r0.delta_pct == pytest.approx(100, rel=0.1) and r0.delta.startswith("+")
    a = base[base.benchmark == "bench00"].groupby("process")["wall_ns"].mean() * 1e-9
    b = new[new.benchmark == "bench00"].groupby("process")["wall_ns"].mean() * 1e-9
    assert r0.p_value == pytest.approx(sps.mannwhitneyu(a, b, method="exact").pvalue)
    assert r0.base_median_s == pytest.approx(np.median(a))
    geo = cmp.iloc[-1]
    assert geo.benchmark == "geomean"
    assert geo.new_median_s == pytest.approx(np.exp(np.log(cmp.new_median_s[:-1]).mean()))
    # p >= alpha -> "~"
    same = stats.compare_runs(base, base)
    assert (same.delta[:-1] == "~").all() and not same.significant[:-1].any()
    text = tables.compare_text(cmp)
    assert "~" in text and "geomean" in text
    # regression gate
    assert len(compare_cmd.regressions(cmp, 50)) == 1
    assert len(compare_cmd.regressions(cmp, 150)) == 0


def test_tilde_only_when_p_above_alpha():
    """benchstat's rule: `~` iff p > alpha, so p == alpha shows the delta."""
    x, y = np.arange(4.0), np.arange(4.0) + 10  # p = 2 / C(8, 4) = 0.02857...
    p = stats.mann_whitney_p(x, y)
    assert p == pytest.approx(2 / 70)
    mk = lambda v: simdata.simulate_run(benchmarks=1, engines=("e",), processes=4, iterations=1, seed=1).assign(  # noqa: E731
        wall_ns=v * 1e9)
    cmp = stats.compare_runs(mk(x + 1), mk(y + 1), alpha=p)
    assert cmp.significant.iloc[0] and cmp.delta.iloc[0] != "~"
    cmp = stats.compare_runs(mk(x + 1), mk(y + 1), alpha=p * 0.999)
    assert cmp.delta.iloc[0] == "~"


def test_too_few_samples_warned_and_gate_exits_2(tmp_path, capsys):
    from harness.cli import main

    base = simdata.simulate_run(benchmarks=2, engines=("e",), processes=3, iterations=5, seed=1)
    new = simdata.simulate_run(benchmarks=2, engines=("e",), processes=3, iterations=5, seed=2,
                               true_means={("bench00", "e"): 0.05, ("bench01", "e"): 0.05})
    cmp = stats.compare_runs(base, new)
    # 3 vs 3: the smallest p is 0.1 > 0.05, benchstat warns "need >= 4 samples"
    assert (cmp.warning[:-1] == "need >= 4 samples to detect a difference at alpha level 0.05").all()
    assert "need >= 4 samples" in tables.compare_text(cmp)
    dirs = []
    for df in (base, new):
        cols = ["benchmark", "engine", "process", "iteration"]
        p = tmp_path / f"{len(dirs)}.csv"
        df.assign(seconds=df.wall_ns / 1e9)[cols + ["seconds"]].to_csv(p, index=False)
        assert main(["import", str(p), "--format", "csv", "--out", str(tmp_path)]) == 0
        dirs.append(capsys.readouterr().out.strip().splitlines()[-1])
    assert main(["compare", *dirs, "--fail-on-regression", "5"]) == 2
    assert "need >= 4 samples" in capsys.readouterr().err
    assert main(["compare", *dirs]) == 0  # without the gate: a warning, not an error


def test_sub_nanosecond_go_results_keep_their_precision(tmp_path, capsys):
    """go test -bench's 0.25 ns/op must not round to 0 (and drop out of the geomean)."""
    from harness.cli import main

    lines = ["goos: linux", "goarch: amd64", "pkg: x"]
    lines += [f"BenchmarkTiny-8   1000000000   {v} ns/op" for v in (0.2512, 0.2498, 0.2531, 0.2507, 0.2502, 0.2520)]
    lines += [f"BenchmarkBig-8   1000   {v} ns/op" for v in (1000.5, 1001.25, 999.75, 1000.0, 1002.0, 998.5)]
    p = tmp_path / "go.txt"
    p.write_text("\n".join(lines) + "\n")
    assert main(["import", str(p), "--format", "gobench", "--engine", "go", "--out", str(tmp_path)]) == 0
    run = capsys.readouterr().out.strip().splitlines()[-1]
    from harness.store import load_runs

    cmp = stats.compare_runs(load_runs([run]), load_runs([run]))
    tiny = cmp[cmp.benchmark.str.contains("Tiny")].iloc[0]
    assert tiny.base_median_s == pytest.approx(np.median([0.2512, 0.2498, 0.2531, 0.2507, 0.2502, 0.2520]) * 1e-9)
    geo = cmp[cmp.benchmark == "geomean"].iloc[0]
    assert geo.base_median_s == pytest.approx(np.sqrt(tiny.base_median_s * 1000.25e-9))


def _u_counts_by_enumeration(n1: int, values: np.ndarray) -> np.ndarray:
    """2 U1 counted over every way of choosing sample 1 (mid-ranks): the DP's definition."""
    from itertools import combinations

    ranks = sps.rankdata(values)
    counts: dict[int, int] = {}
    for pick in combinations(range(len(values)), n1):
        two_u = int(round(2 * ranks[list(pick)].sum() - n1 * (n1 + 1)))
        counts[two_u] = counts.get(two_u, 0) + 1
    out = np.zeros(max(counts) + 1)
    for k, v in counts.items():
        out[k] = v
    return out


@pytest.mark.parametrize("seed", range(6))
def test_exact_u_distribution_matches_enumeration_and_its_lower_tail_alone(seed):
    """The DP (in place, rows from the top) counts what enumeration counts, with and without ties;
    cut at any 2U it gives the same lower tail, which is all a p-value reads."""
    from harness.analysis.stats.compare import _u_counts

    rng = np.random.default_rng(seed)
    n1, n2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    values = rng.integers(0, 4 if seed % 2 else 1000, n1 + n2).astype(float)
    ties = [int(t) for t in np.unique(values, return_counts=True)[1]]
    full = _u_counts(n1, ties)
    enumerated = _u_counts_by_enumeration(n1, np.sort(values))
    assert np.array_equal(full[: len(enumerated)], enumerated) and not full[len(enumerated):].any()
    for cut in (0, 1, len(full) // 3, len(full) - 1, len(full) + 5):
        assert np.array_equal(_u_counts(n1, ties, cut)[: cut + 1], full[: cut + 1])


def _cmp_with_means(params: str = "n=10000,queries=100") -> "pd.DataFrame":
    """Two simulated runs compared, with made-up means beside the medians (as attach_means adds)."""
    import pandas as pd

    base = simdata.simulate_run(benchmarks=["bindings.point_query", "bindings.select_fold"],
                                engines=("sqlite/sqlite3", "mariadb/mysqlclient"), processes=6, iterations=5,
                                seed=1, params=params)
    new = simdata.simulate_run(benchmarks=["bindings.point_query", "bindings.select_fold"],
                               engines=("sqlite/sqlite3", "mariadb/mysqlclient"), processes=6, iterations=5,
                               seed=2, params=params)
    cmp = stats.compare_runs(base, new)
    summ = cmp[cmp.benchmark != "geomean"][["benchmark", "params", "engine", "runtime"]].copy()
    for side in ("base", "new"):
        m = cmp[cmp.benchmark != "geomean"][f"{side}_median_s"].to_numpy()
        summ_side = summ.assign(mean_s=m * 1.01, ci_low_s=m * 0.95, ci_high_s=m * 1.07)
        if side == "base":
            b = summ_side
        else:
            n = summ_side
    return tables.attach_means(cmp, pd.DataFrame(b), pd.DataFrame(n))


def test_compare_text_speaks_summary_vocabulary():
    cmp = _cmp_with_means()
    text = tables.compare_text(cmp, "before", "after")
    lines = text.splitlines()
    assert all(len(line) <= 120 for line in lines), max(map(len, lines))
    # summary's number format: a unit per value, three significant digits, [low, high]
    assert " ms [" in text and "sec/op" not in text and not any(c in text for c in ("286.6µ", "7.479m"))
    r = cmp.iloc[0]
    assert time_text(r.base_mean_s, r.base_mean_ci_low_s, r.base_mean_ci_high_s, r.base_median_s) in text
    assert "means [99% CI]" in text and "distribution-free 95% CI" in text
    # the engine is its own column, never inside the parameter bracket
    assert "[n=10000, queries=100]" in text and "sqlite/sqlite3]" not in text and "queries=100 sqlite" not in text
    assert sum(line.lstrip().startswith("mean") or " mean " in line for line in lines) >= 4


def test_compare_text_narrow_and_grouped_warnings():
    cmp = _cmp_with_means()
    cmp.loc[cmp.benchmark != "geomean", "warning"] = "need >= 4 samples to detect a difference at alpha level 0.05"
    text = tables.compare_text(cmp, width=90)
    assert all(len(line) <= 90 for line in text.splitlines())
    assert text.count("need >= 4 samples") == 1 and "all 4 cells" in text


def test_attach_means_matches_cells_and_leaves_geomean_empty():
    cmp = _cmp_with_means()
    assert set(tables.MEAN_COLUMNS) <= set(cmp.columns)
    cells = cmp[cmp.benchmark != "geomean"]
    assert cells["base_mean_s"].notna().all() and np.isnan(cmp[cmp.benchmark == "geomean"]["base_mean_s"]).all()
