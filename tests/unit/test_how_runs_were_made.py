"""Generated sentences about how runs were made: the history's moves across machines, an A/A pair's two sides."""


def test_moves_between_runs_on_two_machines_are_counted_apart(monkeypatch, tmp_path):
    import types

    import pandas as pd

    from harness.analysis import runset
    from harness.analysis.history import RunTag
    from harness.studies import history as study

    cpu = {"a": "AMD EPYC", "b": "AMD EPYC", "c": "Intel Xeon"}
    monkeypatch.setattr(runset, "manifest_of", lambda d: types.SimpleNamespace(machine={"cpu": {"model": cpu[d.name]}}))
    tags = [RunTag(tmp_path / r, r, r * 7, None, False, None, None) for r in "abc"]
    moves = pd.DataFrame({"run_id": ["b", "c", "c"], "previous_run_id": ["a", "b", "b"],
                          "significant": [True, True, False]})
    assert study.machine_moves(moves, tags) == (["AMD EPYC", "Intel Xeon"], 2, 1)
    cpu["c"] = "AMD EPYC"
    assert study.machine_moves(moves, tags) is None  # one machine: nothing to say


def test_an_aa_pair_called_different_says_how_each_side_was_measured(monkeypatch):
    import types

    import pandas as pd

    from harness.analysis import aa
    from harness.studies import runfacts

    rows = pd.DataFrame([("bindings.point_query", "n=10", "sqlite/sqlite3", "pypy", 3.48, 2.64, 4.59, True),
                         ("bindings.select_all", "n=10", "sqlite/sqlite3", "pypy", 1.0, 0.9, 1.1, False)],
                        columns=aa.AA_COLUMNS)
    monkeypatch.setattr(aa, "aa_rows", lambda runs: rows)
    summary = pd.DataFrame({"benchmark": ["bindings.point_query"] * 2, "engine": ["sqlite/sqlite3"] * 2,
                            "runtime": ["pypy"] * 2, "params": ["aa=twin,n=10", "n=10"], "processes": [53, 24],
                            "iterations": [61.0, 132.0], "median_s": [0.00836, 0.00824], "no_steady": [19, 20],
                            "stop": ["budget", "no steady state"]})
    text = runfacts.aa_differs_sentence(types.SimpleNamespace(summary=summary), "bindings")
    assert text == ("Called different: bindings.point_query on sqlite/sqlite3 pypy, twin / cell 3.48x [2.64, 4.59]: "
                    "the twin 53 processes of 61 iterations on average, median iteration 8.36 ms, 19 with no steady "
                    "state, stopped by budget; the cell 24 processes of 132 iterations on average, median iteration "
                    "8.24 ms, 20 with no steady state, stopped by no steady state.")
    assert runfacts.aa_differs_sentence(types.SimpleNamespace(summary=summary), "micro") == ""
