"""Issue 23, like with like: geometric means over one common subset, censored timeouts, captions
worded from intervals."""
from types import SimpleNamespace

from harness.studies import findings, micro


def _runs(keys):
    return SimpleNamespace(samples={k: [1.0, 1.0] for k in keys}, confidence=0.99)


KEYS = [("micro.select", "sf=0.01", "sqlite/sqlite3", "cpython3.11.7"),
        ("micro.select", "sf=0.01", "sqlite/native-c", "c-gcc12.2.0"),
        ("micro.select", "sf=0.01", "duckdb", "cpython3.11.7"),
        ("micro.pythonjoin", "sf=0.01", "sqlite/sqlite3", "cpython3.11.7"),
        ("micro.pythonjoin", "sf=0.01", "duckdb", "cpython3.11.7")]


def test_common_cells_are_those_every_side_ran():
    runs = _runs(KEYS)
    both = findings.common_cells(runs, "micro.", ["sqlite/sqlite3@cpython", "duckdb@cpython"])
    assert both == {("micro.select", "sf=0.01"), ("micro.pythonjoin", "sf=0.01")}
    every = findings.common_cells(runs, "micro.", ["sqlite/sqlite3@cpython", "duckdb@cpython", "sqlite/native-c@c"])
    assert every == {("micro.select", "sf=0.01")}


def test_every_e2_geomean_is_over_the_same_subset_and_says_what_it_left_out(monkeypatch):
    seen = []

    def fake(runs, prefix, a, b, label, only=None):
        seen.append(only)
        return f"{a} vs {b} {label}"

    monkeypatch.setattr(findings, "compare_family", fake)
    text = micro.findings_text(_runs(KEYS), "sqlite/sqlite3@cpython")
    # one subset for every engine: native-c lacks pythonjoin, so no geomean includes it
    assert seen and all(s == {("micro.select", "sf=0.01")} for s in seen)
    assert "same 1 cell (select)" in text and "pythonjoin (no timings on sqlite/native-c@c)" in text


def test_a_timed_out_cell_is_censored_never_a_number_and_left_out_of_the_geomean():
    import pandas as pd

    from harness.analysis import simdata, tables
    from harness.studies.common import censored_cells

    t = tables.build_table(simdata.simulate_run(benchmarks=3, engines=("sqlite/apsw", "sqlite/sqlite3"), seed=3),
                           "sqlite/apsw", resamples=200)
    rt = t[t.engine == "sqlite/sqlite3"].runtime.iloc[0]
    params = t[t.benchmark == "bench02"].params.iloc[0]
    dropped = t[~((t.benchmark == "bench02") & (t.engine == "sqlite/sqlite3"))]
    cut = {("bench02", params, "sqlite/sqlite3", rt): 40.0}
    md = tables.to_markdown(dropped, "sqlite/apsw", cut)
    row = next(line for line in md.splitlines() if line.startswith("| bench02"))
    assert row.endswith("| >40 s (timeout) |")
    ratio = md.splitlines()[md.splitlines().index(row) + 1]
    assert ratio.endswith("| >timeout |")
    assert "Censored" in md and "left out of the geometric mean" in md
    summary = pd.DataFrame({"benchmark": ["tpch.q19", "tpch.q01"], "params": ["sf=0.01"] * 2,
                            "engine": ["h2/jdbc"] * 2, "runtime": ["jvm"] * 2, "status": ["timeout", "ok"],
                            "reason": ["process exceeded the 40 s timeout and was killed", ""]})
    assert censored_cells(summary, "tpch.") == {("tpch.q19", "sf=0.01", "h2/jdbc", "jvm"): 40.0}


def test_the_h2_comparison_names_censored_queries():
    from harness.studies import seed001_h2

    table = __import__("pandas").DataFrame({"benchmark": ["tpch.q01", "geomean"], "engine": ["h2/jdbc"] * 2,
                                            "runtime": ["jvm-17"] * 2, "ratio": [10.0, 10.0],
                                            "ratio_ci_low": [9.0, 9.0], "ratio_ci_high": [11.0, 11.0], "n": [1, 1]})
    text = seed001_h2.comparison(table, "tpch.", censored=["tpch.q19", "tpch.q20"])
    assert "Censored: tpch.q19, tpch.q20 timed out" in text and "neither mean" in text


def _manifest(run_id, engines):
    return SimpleNamespace(run_id=run_id, engines={f"{e}@cpython": {"available": True, "versions": {"sqlite": v}}
                                                   for e, v in engines.items()})


def test_two_drivers_with_one_sqlite_version_each_are_never_compared():
    from harness.studies import inserts

    runs = SimpleNamespace(manifests=lambda: [_manifest("r1", {"sqlite/sqlite3": "3.40.1", "sqlite/apsw": "3.54.1"})],
                           confidence=0.99)
    cmp, text = inserts.version_comparison(runs, {"sqlite/sqlite3": "3.40.1", "sqlite/apsw": "3.54.1"})
    assert cmp.empty and "No claim about SQLite versions" in text and "confound the driver" in text


def test_one_driver_with_two_sqlite_versions_is_compared_at_the_papers_confidence(monkeypatch):
    import pandas as pd

    from harness.analysis.stats import compare
    from harness.studies import inserts

    manifests = [_manifest("r1", {"sqlite/sqlite3": "3.40.1", "sqlite/apsw": "3.54.1"}),
                 _manifest("r2", {"sqlite/sqlite3": "3.45.0"})]
    assert inserts.driver_versions(SimpleNamespace(manifests=lambda: manifests)) == {
        "sqlite/sqlite3": {"3.40.1": ["r1"], "3.45.0": ["r2"]}, "sqlite/apsw": {"3.54.1": ["r1"]}}
    raw = pd.DataFrame({"benchmark": ["inserts.prepared"] * 2, "params": ["rows=10"] * 2,
                        "engine": ["sqlite/sqlite3"] * 2, "run_id": ["r1", "r2"]})
    seen = {}

    def fake_compare(a, b, alpha, confidence):
        seen.update(alpha=alpha, confidence=confidence, a=set(a["run_id"]), b=set(b["run_id"]))
        return pd.DataFrame()

    monkeypatch.setattr(compare, "compare_runs", fake_compare)
    runs = SimpleNamespace(manifests=lambda: manifests, confidence=0.99, raw_of=lambda pattern: raw)
    inserts.version_comparison(runs, {})
    assert seen["confidence"] == 0.99 and abs(seen["alpha"] - 0.01) < 1e-12
    assert seen["a"] == {"r1"} and seen["b"] == {"r2"}  # the same driver, old version against new


def test_the_abstracts_binding_comparison_says_when_the_sqlite_builds_differ(monkeypatch):
    from harness.studies import bindings

    builds = {"sqlite/apsw@cpython": "3.54.1", "sqlite/native-c@c": "3.40.1", "sqlite/sqlite3@cpython": "3.40.1"}
    monkeypatch.setattr(bindings, "sqlite_build", lambda runs, spec: builds[spec])
    differ = bindings.builds_clause(None, "sqlite/apsw@cpython", "sqlite/native-c@c")
    assert "different SQLite builds" in differ and "3.54.1" in differ and "3.40.1" in differ
    assert "@" not in differ  # the configurations in words, as the rest of the abstract
    assert bindings.builds_clause(None, "sqlite/native-c@c", "sqlite/sqlite3@cpython") == " Both link SQLite 3.40.1."


def test_section_1_1_sets_c_against_pythons_sqlite3_both_ways_and_gives_the_seeds_own_pair(monkeypatch):
    """Both E1 comparisons are against Python's sqlite3 (one SQLite build with the C program, said once), and
    seed 000's own pair, Python fetching all rows against C folding, is given beside the seed's published
    ratio (2.76x), our interval from the same run set."""
    from harness.studies import bindings, findings, seedclaims

    monkeypatch.setattr(bindings, "sqlite_build", lambda runs, spec: "3.40.1")
    said = []
    monkeypatch.setattr(findings, "compare", lambda runs, bench, a, b, what, plain=False: said.append((a, b)) or "S.")
    monkeypatch.setattr(seedclaims, "ratio_at", lambda *a, **k: (4.87, 4.26, 5.57))
    text = bindings.abstract(SimpleNamespace(confidence=0.99))
    assert said == [("sqlite/native-c@c", "sqlite/sqlite3@cpython"), ("sqlite/sqlite3@cpython", "sqlite/native-c@c")]
    assert text.count("Both link SQLite 3.40.1.") == 1
    assert text.endswith("On seed 000's own pair, C stepping through the rows against Python fetching them all, C is "
                         "4.87 [4.26, 5.57] times faster (99% CI; the seed's draft's rates give 2.76x on its "
                         "machine).")


def test_sqlite_build_reads_the_manifest():
    from harness.studies import bindings

    m = SimpleNamespace(engines={"sqlite/apsw@cpython": {"available": True, "runtime": "cpython3.11.7",
                                                         "versions": {"driver": "apsw 3.54.1.0", "sqlite": "3.54.1"}}})
    runs = SimpleNamespace(manifests=lambda: [m])
    assert bindings.sqlite_build(runs, "sqlite/apsw@cpython") == "3.54.1"


def test_fastest_only_when_its_interval_is_apart_from_the_next():
    apart = [("a", 1.0, 0.9, 1.1), ("b", 2.0, 1.8, 2.2), ("c", 3.0, 2.5, 3.5)]
    assert findings.extreme_phrase(apart, "fastest") == "a is fastest"
    assert findings.extreme_phrase(apart, "slowest", higher_wins=True) == "c is slowest"
    overlap = [("a", 1.0, 0.8, 1.3), ("b", 1.1, 0.95, 1.4), ("c", 3.0, 2.5, 3.5)]
    out = findings.extreme_phrase(overlap, "fastest")
    assert "is fastest" not in out and out.startswith("a, b are among the fastest") and "cannot be told apart" in out
    no_interval = [("a", 1.0, float("nan"), float("nan")), ("b", 2.0, 1.9, 2.1)]
    assert "among the fastest" in findings.extreme_phrase(no_interval, "fastest")


def test_the_crossings_caption_says_rises_only_when_the_interval_excludes_zero():
    """A direction needs the bootstrap interval away from 0 and a rho the exact test over the benchmarks
    could reject at (with 8 benchmarks, 0.90 at 1%); with fewer points no direction is said."""
    def r(low, high, rho=None, points=8):
        return SimpleNamespace(rho=(low + high) / 2 if rho is None else rho, low=low, high=high, confidence=0.99,
                               points=points,
                               verdict="supported" if low > 0 else "contradicted" if high < 0 else "not supported")

    assert micro.spearman_critical(8, 0.01) <= 0.95
    assert "rises with crossings" in micro.figure_takeaway(r(0.9, 1.0, rho=0.95))
    weak = micro.figure_takeaway(r(0.14, 0.6))  # interval above 0, rho far below what the test needs
    assert "rises" not in weak and "shows no trend" in weak
    flat = micro.figure_takeaway(r(-0.2, 0.6))
    assert "rises" not in flat and "shows no trend" in flat


def test_captions_word_fastest_from_intervals():
    import pandas as pd

    from harness.studies import app, bindings, tpch

    geo = pd.DataFrame({"benchmark": ["geomean"] * 3, "engine": ["duckdb", "h2/jdbc", "sqlite/apsw"],
                        "runtime": ["cpython3.11", "jvm-17", "cpython3.11"], "ratio": [0.3, 20.0, 0.32],
                        "ratio_ci_low": [0.28, 18.0, 0.29], "ratio_ci_high": [0.33, 22.0, 0.35]})
    cap = tpch.figure_takeaway(geo, "sqlite/sqlite3@cpython")
    assert "DuckDB from CPython, the apsw driver on CPython are among the fastest" in cap
    assert "H2 over JDBC on the JVM is slowest" in cap and "sqlite/" not in cap  # plain names in captions
    assert "JIT warm-up included and its timed-out queries left out" in cap  # H2's processes keep their warm-up (Section 5.1)
    cells = pd.DataFrame({"corpus": ["SM"] * 2, "operation": ["app.query_user"] * 2, "series": ["x", "y"],
                          "mean_s": [1.0, 1.05], "ci_low_s": [0.9, 0.95], "ci_high_s": [1.1, 1.15], "hash": ["off"] * 2})
    # a difference is called from the ratio's interval (runner-up / fastest), never from overlapping bars
    assert "cannot be told apart (1.05x [0.9, 1.2] includes 1)" in app.app_takeaway(cells, lambda a, b: (1.05, 0.9, 1.2))
    assert "x is fastest, y next at 1.05x [1.01, 1.1]" in app.app_takeaway(cells, lambda a, b: (1.05, 1.01, 1.1))
    two = pd.concat([cells, cells.assign(operation="app.list_users")], ignore_index=True)
    assert "x is fastest at all 2 operations, the runner-up 1.05x as slow" in app.app_takeaway(
        two, lambda a, b: (1.05, 1.01, 1.1))
    assert "cannot be told apart at any of the 2 operations" in app.app_takeaway(two, lambda a, b: (1.05, 0.9, 1.2))
    summary = pd.DataFrame({"benchmark": ["bindings.select_fold"] * 2, "engine": ["a", "b"], "runtime": ["c", "c"],
                            "mean_s": [1.0, 3.0], "ci_low_s": [0.9, 2.8], "ci_high_s": [1.1, 3.2],
                            "rows_per_s": [10.0, 3.333]})
    text = bindings.rates_takeaway(summary)
    assert "a on C is fastest" in text and "b on C is slowest" in text


def test_a_long_tie_is_counted_not_listed():
    many = [(f"s{i}", 1.0 + i / 100, 0.8, 1.5) for i in range(6)]
    out = findings.extreme_phrase(many, "fastest")
    assert out == "s0 is fastest by its estimate, but 5 others' intervals overlap its, so none can be called fastest"


def test_every_e3_geomean_is_over_the_queries_every_engine_ran(monkeypatch):
    from harness.studies import tpch

    keys = [("tpch.q01", "sf=0.01", e, rt) for e, rt in (("sqlite/sqlite3", "cpython3.11.7"), ("h2/jdbc", "jvm-17"),
                                                          ("duckdb", "cpython3.11.7"))]
    keys += [("tpch.q19", "sf=0.01", "sqlite/sqlite3", "cpython3.11.7"), ("tpch.q19", "sf=0.01", "duckdb", "cpython3.11.7")]
    seen = []
    monkeypatch.setattr(findings, "compare_family",
                        lambda runs, prefix, a, b, label, only=None: seen.append(only) or f"{a} {label}")
    monkeypatch.setattr(findings, "count_verdicts", lambda *a: {"faster": 0, "slower": 0, "same": 1, "unknown": 0})
    pairs = []
    monkeypatch.setattr(findings, "geomean_ratio",
                        lambda runs, prefix, a, b, only=None: pairs.append((a, only)) or (0.5, 0.4, 0.6, len(only)))
    text = tpch.findings_text(_runs(keys))
    assert seen and all(s == {("tpch.q01", "sf=0.01")} for s in seen)  # q19 timed out on H2: out of every mean
    assert "q19 (no timings on h2/jdbc@jvm)" in text
    # an engine that ran more than every engine did also gets its own mean over what it and the baseline ran
    assert pairs == [("duckdb@cpython", {("tpch.q01", "sf=0.01"), ("tpch.q19", "sf=0.01")})]
    assert "Over the 2 queries both ran, its geometric-mean time ratio is 0.500 [0.400, 0.600]." in text


def test_e5_findings_are_said_in_prose_once_per_figure_group():
    import pandas as pd

    from harness.studies import app

    cells = pd.DataFrame({"corpus": ["MD"] * 4, "operation": ["app.query_user"] * 4, "series": ["x", "y", "u", "v"],
                          "mean_s": [1.0, 1.05, 2.0, 8.0], "ci_low_s": [0.9, 0.95, 1.9, 7.5],
                          "ci_high_s": [1.1, 1.15, 2.1, 8.5], "hash": ["off"] * 4})
    ratios = {("y", "x"): (1.05, 0.9, 1.2), ("v", "u"): (4.0, 3.5, 4.6)}
    by_series = dict(enumerate(cells["series"]))

    def ratio(a, b):
        return ratios[(by_series[a], by_series[b])]

    text = app.findings_paragraph(cells, ratio, [("Python drivers", ["x", "y"]), ("Haskell builds", ["u", "v"])])
    assert text.startswith("What the figures show, at corpus MD, the largest measured for every store")
    assert "Python drivers: query_user: x and y cannot be told apart (1.05x [0.9, 1.2] includes 1)." in text
    assert "Haskell builds: query_user: u is fastest, v next at 4x [3.5, 4.6]." in text
    assert "excludes 1" in text and len(text) <= 1200  # a paragraph, within the paper's limit
    # the caption says the same as the prose (one helper behind both)
    assert "u is fastest, v next at 4x [3.5, 4.6]" in app.app_takeaway(cells, ratio, ["u", "v"])
    assert app.findings_paragraph(cells.iloc[0:0], None, []) == "_no valid app.* cells in these runs_"


def test_e5_findings_table_has_a_row_per_group_and_operation_and_calls_fastest_only_by_the_interval():
    import pandas as pd

    from harness.studies import app

    cells = pd.DataFrame({"corpus": ["MD"] * 4 + ["SM"], "operation": ["app.query_user"] * 5,
                          "series": ["x", "y", "u", "v", "x"], "mean_s": [1e-3, 1.05e-3, 2e-3, 8e-3, 5e-4],
                          "ci_low_s": [0.9e-3, 0.95e-3, 1.9e-3, 7.5e-3, 4e-4],
                          "ci_high_s": [1.1e-3, 1.15e-3, 2.1e-3, 8.5e-3, 6e-4], "hash": ["off"] * 5})
    ratios = {("y", "x"): (1.05, 0.9, 1.2), ("v", "u"): (4.0, 3.5, 4.6)}
    by_series = dict(enumerate(cells["series"]))
    table = app.findings_table(cells, lambda a, b: ratios[(by_series[a], by_series[b])],
                               [("Python drivers", ["x", "y"]), ("Haskell builds", ["u", "v"])])
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 2 and max(len(line.split("|")) - 2 for line in table.splitlines() if line.startswith("|")) <= 7
    assert "| Python drivers, corpus MD | query_user | x | 1 [0.9, 1.1] ms | y | 1.05x [0.9, 1.2]: not told apart |" in rows
    assert "| Haskell builds, corpus MD | query_user | u | 2 [1.9, 2.1] ms | v | 4x [3.5, 4.6]: fastest |" in rows
    assert "at corpus MD (each group at the largest measured for every store of it" in table
    assert ", corpus MD |" in table  # the group's first row names its corpus (SM's faster x is not shown)
    assert app.findings_table(cells.iloc[0:0], None, []) == ""
    # a larger corpus measured for some stores of a group only (E5's LG2) does not move the group's row
    lg2 = pd.concat([cells, pd.DataFrame({"corpus": ["LG2"], "operation": ["app.query_user"], "series": ["u"],
                                          "mean_s": [9e-3], "ci_low_s": [8e-3], "ci_high_s": [1e-2], "hash": ["off"]})],
                    ignore_index=True)
    by_series = dict(enumerate(lg2["series"]))
    again = app.findings_table(lg2, lambda a, b: ratios[(by_series[a], by_series[b])],
                               [("Python drivers", ["x", "y"]), ("Haskell builds", ["u", "v"])])
    assert "| Haskell builds, corpus MD | query_user | u | 2 [1.9, 2.1] ms | v | 4x [3.5, 4.6]: fastest |" in again
    assert app.largest_common_corpus(lg2[lg2["series"].isin(["u", "v"])]) == "MD"
    assert app.largest_common_corpus(lg2[lg2["series"] == "u"]) == "LG2"
