"""The conclusion's E3 sentence says what E3 shows at its scale factor, with its numbers: how far
the engine moved the geometric mean against the driver on one engine (harness/studies/tpch.py)."""
from __future__ import annotations


def test_the_conclusion_gives_the_engine_and_driver_spread_at_e3s_scale(tmp_path):
    from harness import store
    from harness.analysis import simdata
    from harness.analysis.runset import RunSet
    from harness.studies import tpch

    benches = ["tpch.q01", "tpch.q02", "tpch.q03"]
    means = {}
    for b in benches:
        means.update({(b, "sqlite/sqlite3"): 0.010, (b, "sqlite/apsw"): 0.008, (b, "duckdb"): 0.003,
                      (b, "mariadb/pymysql"): 0.017})
    df = simdata.simulate_run(benchmarks=benches, engines=("sqlite/sqlite3", "sqlite/apsw", "duckdb",
                                                           "mariadb/pymysql"),
                              processes=4, iterations=10, seed=2, true_means=means, params="sf=0.01")
    run = store.write_imported_run(tmp_path, df, {"source": "test"})
    text = tpch.conclusion(RunSet([run], resamples=200))
    assert text.startswith("At E3's scale (SF 0.01), over the 3 queries every configuration completed")
    assert "(DuckDB from CPython)" in text and "driver on one engine moved it by up to 1.2" in text
    assert "No larger scale factor was run" in text
    # one run's intervals say so; with the replicates' spread (the paper's) the label says that instead
    assert "that of Python's sqlite3 module on CPython (99% CI)" in text
