"""H2's processes time a few iterations each, so the JVM's warm-up stays in its means: the paper
says its times are an upper bound on the steady state (harness/studies/h2.py)."""
from __future__ import annotations


def test_h2_with_too_few_iterations_is_called_an_upper_bound_on_steady_state(tmp_path):
    from harness import store
    from harness.analysis import simdata
    from harness.analysis.runset import RunSet
    from harness.studies import h2

    def note(iterations: int) -> str:
        df = simdata.simulate_run(benchmarks=["tpch.q01"], engines=("h2/jdbc",), processes=4,
                                  iterations=iterations, seed=1, params="sf=0.01")
        run = store.write_imported_run(tmp_path / str(iterations), df, {"source": "test"})
        return h2.processes_note(RunSet([run], resamples=200))

    short = note(2)
    assert "JIT's warm-up" in short and "upper bound on its steady-state time" in short
    assert "upper bound" not in note(20)
