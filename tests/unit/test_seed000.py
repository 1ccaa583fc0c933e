"""Seed 000 beside ours: the seed's constants stay labelled, only N = 10,000 cells are set beside
them, the verdict follows the interval, and systems Debian does not package say so."""
from __future__ import annotations

import pandas as pd

from harness.studies import seed000


def _summary(rows):
    out = []
    for bench, params, engine, runtime, mean, lo, hi in rows:
        n = int(params.split("=")[1])
        out.append({"benchmark": bench, "params": params, "engine": engine, "runtime": runtime, "mean_s": mean,
                    "ci_low_s": lo, "ci_high_s": hi, "rows_per_s": n / mean, "cycles_per_row": 2.6e9 * mean / n,
                    "processes": 5, "noisy": 2 if engine == "sqlite/hdbc" else 0})
    return pd.DataFrame(out)


def test_seed_rows_meet_our_cells_of_the_same_n_as_a_point_ratio_without_a_verdict():
    s = _summary([
        # HDBC: 10,000 rows in 0.05 s = 200K rows/s, interval [166K, 250K] above the seed's 105.5K
        ("bindings.select_all", "n=10000", "sqlite/hdbc", "haskell-O2-ghc9.0.2", 0.05, 0.04, 0.06),
        # postgresql-simple: 400K [250K, 1M], straddles the seed's 467K
        ("bindings.select_all", "n=10000", "postgresql/simple", "haskell-O2-ghc9.0.2", 0.025, 0.01, 0.04),
        # direct-sqlite's substitute measured at another N only: not set beside the seed
        ("bindings.select_fold", "n=1000", "sqlite/persistent", "haskell-O2-ghc9.0.2", 0.001, 0.0009, 0.0011),
        # the -O0 build is not the seed's row
        ("bindings.select_all", "n=10000", "sqlite/sqlite3", "cpython3.11.7", 0.002, float("nan"), float("nan")),
    ])
    t = seed000.seed_table(s).set_index("seed system")
    assert t.loc["HDBC-sqlite3", "seed rows/s (its machine)"] == "106K"
    assert t.loc["HDBC-sqlite3", "our rows/s"] == "200K [167K, 250K]"
    # across machines, against a number without an interval: a point ratio, no bound and no word (reviews 70, 71:
    # one run's interval set against another machine's number read as agreement)
    assert t.loc["HDBC-sqlite3", "ours / seed"] == f"{200000 / 105529:.2f}"
    assert t.loc["postgresql-simple", "ours / seed"] == f"{400000 / 466932:.2f}"
    assert t.loc["direct-sqlite", "ours / seed"] == "" and "not in these runs" in t.loc["direct-sqlite", "our cell"]
    for system in ("sqlite-simple (fold_)", "sqlite-simple (query_)", "mysql-simple"):
        assert "not packaged in Debian" in t.loc[system, "what it is here"] and t.loc[system, "our cell"] == ""
    text = seed000.seed_paragraph(seed000.seed_table(s))
    assert "HDBC-sqlite3" in text and "Not measured here" in text
    assert f"ours / seed = {200000 / 105529:.2f}." in text
    assert "includes the seed's number" not in text and "more rows/s" not in text
    assert "noise threshold" not in text  # disturbed processes are left out of the cells already
    assert "context only" in text and "distinguishable" not in text
    assert "_verdict" not in seed000.markdown_table(seed000.seed_table(s)).columns


def test_seed_constants_are_the_seeds_chart_data():
    got = {r.system: r.rows_per_s for r in seed000.SEED_ROWS}
    assert got["HDBC-sqlite3"] == 105529 and got["postgresql-simple"] == 466932 and got["direct-sqlite"] == 3600395
    assert seed000.seed_paragraph(seed000.seed_table(_summary([]))).startswith("_None of seed 000")
