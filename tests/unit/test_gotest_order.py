"""E6's diagnosis of go test's process history (harness/studies/gotest_order.py): sessions told apart by the
command their manifests record, the ratio after / alone per engine, and what it says beside the harnesses' gap."""
from __future__ import annotations

from harness.studies import gotest_order


def _session(tmp_path, name: str, bench: str, ramsql_s: float, seed: int):
    from harness import store
    from harness.analysis import simdata

    df = simdata.simulate_run(benchmarks=["RamSQLSelect10KFixed", "SQLiteSelect10KFixed"], engines=("gotest-1",),
                              processes=6, iterations=1, seed=seed, runtime="go",
                              true_means={("RamSQLSelect10KFixed", "gotest-1"): ramsql_s,
                                          ("SQLiteSelect10KFixed", "gotest-1"): 30e-6})
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    command = f"/usr/local/go/bin/go test -tags libsqlite3 -run ^$ -bench {bench} -count 6 -benchtime 50ms -timeout 0"
    return store.write_imported_run(folder, df, {"source": {"format": "gobench", "engine": "gotest-1",
                                                            "go_test": command}})


def test_the_diagnosis_sets_go_tests_time_after_the_other_benchmarks_beside_its_time_alone(tmp_path):
    from harness.analysis.runset import RunSet

    folder = tmp_path / "diag"
    for k in range(2):
        _session(tmp_path, "diag", "Select10KFixed", 500e-6, seed=2 * k)
        _session(tmp_path, "diag", ".", 700e-6, seed=2 * k + 1)
    alone, after = gotest_order.sessions(folder)
    assert len(alone) == len(after) == 2
    like = RunSet(alone, resamples=200)  # the paper's statistical options (any run set carries them)
    found = gotest_order.effect(like, folder)
    ram = found[0]
    assert ram[0] == "RamSQL" and 1.2 < ram[3][0] < 1.6 and ram[3][1] > 1  # 1.4x, its interval above 1
    text = gotest_order.text(like, [("ramsql/go", "bench.txt", 2.09, 1.19, 3.66)], folder)
    assert "`go test -tags libsqlite3 -run ^$ -bench . -count 6 -benchtime 50ms -timeout 0` and the same" in text
    assert "ran in 4 alternated sessions" in text and "RamSQL 5" in text and "slower)" in text
    assert "less than go test's gap to the worker in the E6 run (2.09x" in text
    # a gap no larger than the effect is not said to be larger
    close = gotest_order.text(like, [("ramsql/go", "bench.txt", 1.3, 1.1, 1.6)], folder)
    assert "by about go test's gap" in close
    assert gotest_order.text(like, [], tmp_path / "none") == ""
