"""E5's study tables (harness/studies/app.py) that the paper prints."""


def test_the_ratio_summary_counts_only_cells_with_a_ratio():
    """A cell the baseline never ran (corpus LG2) has no ratio: it is neither in the mean nor in the count."""
    import pandas as pd

    from harness.studies import app as app_study

    rows = [{"benchmark": b, "engine": "acidstate/acid-state", "runtime": "haskell-O0-ghc9.0.2", "ratio": r,
             "ratio_ci_low": r, "ratio_ci_high": r} for b, r in (("app.list_users", 0.3), ("app.query_user", 0.2),
                                                                  ("app.list_users", float("nan")))]
    rows.append({"benchmark": "geomean", "engine": "acidstate/acid-state", "runtime": "haskell-O0-ghc9.0.2",
                 "ratio": 0.245, "ratio_ci_low": 0.2, "ratio_ci_high": 0.3})
    text = app_study.ratios_summary(pd.DataFrame(rows), "sqlite/sqlite3@cpython", "process-bootstrap")
    assert "| acidstate/acid-state | haskell-O0-ghc9.0.2 | 0.245 [0.2, 0.3] | 2 |" in text
