"""E4's study code (harness/studies/inserts.py) on small fixtures: the syncing claims' storage rule,
the gains table's one N, and the time figure's own takeaway."""
from __future__ import annotations

import pandas as pd

from harness.studies import inserts
from harness.studies import seedclaims as sc
from harness.studies import verdicts as v

VDA = {"device": "/dev/vda", "fstype": "ext4", "kind": "disk", "mount": "/"}
NVME = {"device": "/dev/nvme0n1p2", "fstype": "ext4", "kind": "disk", "mount": "/"}
SHM = {"device": "tmpfs", "fstype": "tmpfs", "kind": "memory", "mount": "/dev/shm"}


def test_syncing_on_a_virtual_disk_or_in_memory_is_untestable_and_says_how():
    decided = v.Verdict(v.REFUTED, "cells: 1 refuted")
    on_vda = sc.on_storage(decided, inserts.sync_substitute([VDA]))
    assert on_vda.word == v.UNTESTABLE and "/dev/vda" in on_vda.why and "host" in on_vda.why
    assert inserts.sync_substitute([{**VDA, "device": "/dev/xvdb1"}])
    in_memory = sc.on_storage(decided, inserts.sync_substitute([SHM]))
    assert in_memory.word == v.UNTESTABLE and "writes nothing" in in_memory.why
    # a physical device, or no storage record at all, leaves the verdict to the intervals
    assert sc.on_storage(decided, inserts.sync_substitute([NVME])) == decided
    assert sc.on_storage(decided, inserts.sync_substitute([])) == decided
    assert not any(inserts.VIRTUAL_DEVICE.match(d) for d in ("/dev/sda", "/dev/sda1", "/dev/mapper/vg-root"))


def _sweep(cells: dict[str, dict[str, list[int]]]) -> pd.DataFrame:
    return pd.DataFrame([{"engine": e, "runtime_family": "cpython", "strategy": s, "rows": n}
                         for e, by in cells.items() for s, ns in by.items() for n in ns])


def test_each_gains_column_compares_every_row_at_the_largest_n_every_row_ran_both_strategies():
    d = _sweep({"a": {"autocommit": [10, 100], "transaction": [10, 100, 1000, 10_000], "prepared": [10, 100, 10_000]},
                "b": {"autocommit": [10, 100], "transaction": [10, 100, 10_000], "prepared": [10, 100, 10_000]},
                "c": {"multirow": [10, 1000]}})  # no strategy of the gains: not a row of the table
    assert inserts.common_n(d, ("autocommit", "transaction")) == 100
    assert inserts.common_n(d, ("transaction", "prepared")) == 10_000  # not held down by autocommit's cap
    d = _sweep({"a": {"autocommit": [10], "transaction": [10], "prepared": [10]},
                "b": {"autocommit": [100], "transaction": [100], "prepared": [100]}})
    assert inserts.common_n(d, ("autocommit", "transaction")) is None  # then the pair falls back to its own N


def test_time_figure_says_which_strategies_reach_the_largest_n():
    df = pd.DataFrame([{"engine": "sqlite/sqlite3", "runtime_family": "cpython", "strategy": s, "rows": n,
                        "journal_mode": "default", "synchronous": "default", "mean_s": t, "ci_low_s": t * 0.9,
                        "ci_high_s": t * 1.1}
                       for s, n, t in (("autocommit", 100, 0.04), ("prepared", 1000, 0.002),
                                       ("multirow", 1000, 0.001))])
    text = inserts.time_takeaway(df)
    assert "only 2 of the 3 strategies of Python's sqlite3 module on CPython reach its largest N, 1,000," in text
    one = inserts.time_takeaway(df[df["strategy"] != "multirow"])
    assert "only 1 of the 2 strategies of Python's sqlite3 module on CPython reaches its largest N" in one
    assert text.index("multirow") < text.index("prepared")  # fastest first
    assert "transaction makes" not in text  # the rate figure's point, not this one's


def test_the_gains_caption_names_one_n_once_when_both_gains_share_it():
    import pandas as pd

    from harness.studies.inserts import GAIN_PAIRS, gains_at_text

    labels = [label for label, _, _ in GAIN_PAIRS]
    same = pd.DataFrame({f"_{label} at N": [10] for label in labels})
    assert gains_at_text(same).startswith("both gains at N = 10 (the largest N")
    apart = pd.DataFrame({f"_{labels[0]} at N": [10], f"_{labels[1]} at N": [100]})
    assert gains_at_text(apart).startswith(f"the {labels[0]} at N = 10 and the {labels[1]} at N = 100")


def test_the_gains_caption_says_how_few_iterations_a_process_timed(tmp_path):
    from harness import store
    from harness.analysis import simdata
    from harness.analysis.runset import RunSet

    def note(iterations: int) -> str:
        df = simdata.simulate_run(benchmarks=["inserts.autocommit"], engines=("sqlite/sqlite3",), processes=6,
                                  iterations=iterations, seed=1, params="rows=10")
        run = store.write_imported_run(tmp_path / str(iterations), df, {"source": "test"})
        return inserts.iterations_note(RunSet([run], resamples=200))

    short = note(3)
    assert "timed 3 iterations (median over the 6 processes with timings)" in short and "taken whole" in short
    assert "spread of its 6 process means" in short
    assert "taken whole" not in note(12)  # long enough for the warm-up analysis


def test_the_headline_gain_says_the_rule_for_its_n_every_n_both_ran_and_the_iterations_behind_it():
    """E4's headline is read at the largest N every engine ran both strategies; it says so, at which
    Ns its engine ran both, and how few iterations its two cells rest on (warm-up included)."""
    cells = pd.DataFrame([{"engine": "sqlite/sqlite3", "runtime_family": "cpython", "strategy": s, "rows": n,
                           "journal_mode": "default", "synchronous": "default", "mean_s": 0.01,
                           "processes": 10, "iterations": it}
                          for s, n, it in (("autocommit", 10, 3), ("autocommit", 100, 3), ("transaction", 10, 3),
                                           ("transaction", 1000, 5))])
    gain = pd.DataFrame({"engine": ["sqlite/sqlite3"], "runtime": ["cpython"], "_transaction gain": [(7.0, 5.0, 9.0)],
                         "_transaction gain at N": ["10"]})
    text = inserts.headline_basis(gain, cells)
    assert text.startswith("N = 10: the largest N every engine ran both strategies at; it ran both at that N only")
    assert "10 processes of 3 iterations each" in text and "first iteration (warm-up) included" in text
    assert text[:-1] in inserts.abstract(gain, basis=text)
    assert inserts.headline_basis(gain.iloc[0:0], cells) == ""
    assert inserts.headline_basis(gain, cells, rule=False).startswith("The headline's engine, sqlite/sqlite3, ran both")


def test_e4_seed_tables_shared_reason_is_printed_once_under_the_table():
    import pandas as pd

    from harness.studies import inserts as study
    seed = pd.DataFrame([{"why they differ": "note 1 under the table"}] * 3)
    seed.attrs["notes"] = ["Note 1: the seed gives no number."]
    out = study.seed_notes(seed)
    assert out.count("the seed gives no number") == 1 and out.startswith("\n\nNote 1:")


def test_the_process_records_say_what_they_count_beside_the_processes_with_timings():
    """E4's storage line counts every process record (twins, disturbed processes and reruns included) and the
    iterations note counts the processes with timings: the records line says how the two counts relate."""
    rec = pd.DataFrame([
        {"run_id": "r", "benchmark": "inserts.prepared", "params": "rows=10", "engine": "e", "runtime": "c", "process": 0,
         "interference": {"contaminated": False}, "rerun_of": float("nan")},
        {"run_id": "r", "benchmark": "inserts.prepared", "params": "rows=10", "engine": "e", "runtime": "c", "process": 1,
         "interference": {"contaminated": True}, "rerun_of": float("nan")},
        {"run_id": "r", "benchmark": "inserts.prepared", "params": "rows=10", "engine": "e", "runtime": "c", "process": 2,
         "interference": {"contaminated": False}, "rerun_of": 1.0},
        {"run_id": "r", "benchmark": "inserts.prepared", "params": "aa=twin,rows=10", "engine": "e", "runtime": "c",
         "process": 3, "interference": {"contaminated": True}, "rerun_of": float("nan")},
        {"run_id": "r", "benchmark": "inserts.bulk", "params": "rows=10", "engine": "e", "runtime": "c", "process": 4,
         "interference": None, "rerun_of": float("nan")}])
    timed = {("r", "inserts.prepared", "rows=10", "e", "c", p) for p in (0, 1, 2)}
    text = inserts.records_breakdown(rec, timed)
    assert text == ("5 process records, every E4 process the run started: 3 with timings, over which the gains "
                    "table's iteration count is a median (1 of them disturbed, left out of every estimate, and 1 rerun in their "
                    "place); besides, 1 A/A twin (timed, read by the A/A check only; 1 of them disturbed) and 1 "
                    "not applicable, with nothing timed")


def test_the_prepared_gain_is_not_compared_where_the_shared_commit_is_most_of_the_time():
    """A 5 ms commit (autocommit 10 rows: 10 x 5.1 ms; a transaction of 10: 1 + 5 ms) is 83% of a transaction at
    N = 10 and 5% at N = 1,000: those N rows are commit-bound for that engine; an engine whose commit is cheap
    has none; the caption says the rule when a column cannot compare every row at one N."""
    row = 1e-4

    def cells(engine: str, commit: float) -> list[dict]:
        plan = [("autocommit", 10, 10 * (row + commit)), ("transaction", 10, 10 * row + commit),
                ("prepared", 10, 10 * row + commit), ("transaction", 1000, 1000 * row + commit)]
        return [{"engine": engine, "runtime_family": "cpython", "strategy": s, "rows": n, "journal_mode": "default",
                 "synchronous": "default", "params": f"rows={n}", "mean_s": t} for s, n, t in plan]

    df = pd.DataFrame(cells("sqlite/sqlite3", 5e-3) + cells("duckdb", 1e-6))
    bound = inserts.commit_bound_rows(df, df)
    assert set(df[bound]["rows"]) == {10} and set(df[bound]["engine"]) == {"sqlite/sqlite3"}
    caption = inserts.gains_at_text(pd.DataFrame({"_transaction gain at N": [100], "prepared gain at N": ["1,000"]}))
    assert ("the prepared gain at each engine's largest N where its commit is at most 50% of a transaction's "
            "time (column `at N`)") in caption
