"""The history study's sentences about its runs: moves between runs on different machines are counted apart."""


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
