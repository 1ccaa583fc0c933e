"""E4's workload logic in-process on the real sqlite3 module: rows, checksum, strategies, reset, grid."""
from __future__ import annotations

from decimal import Decimal

import pytest

from harness import engines, workloads
from harness.engines.base import NotApplicable
from harness.workloads import inserts
from harness.workloads.inserts import check_checksum, expected_checksum, make_rows


def test_every_double_is_exact_in_its_text_form():
    # the literal strategies write %.3f; the checksum compares exact sums: both need exact values
    for r in make_rows(100_000)[::97]:
        for d in r[1:4]:
            assert float("%.3f" % d) == d


def test_checksum_catches_a_missing_row_and_a_wrong_sum_and_accepts_server_types():
    rows = make_rows(1234)
    want = expected_checksum(rows)
    assert check_checksum(want, want) is None
    assert check_checksum((Decimal(want[0]), Decimal(want[1]), want[2], want[3], Decimal(str(want[4])), want[5]),
                          want) is None
    short = expected_checksum(rows[:-1])
    assert check_checksum(short, want) == "row count 1233 != 1234"
    wrong = list(want)
    wrong[4] += 0.125
    assert "sum(d1+d2+d3)" in check_checksum(wrong, want)
    assert "returned" in check_checksum(None, want)


def _run(engine: str, benchmark: str, tmp_path, iterations: int = 2, **params):
    w = workloads.get(benchmark)
    db = engines.get(engine).connect({}, str(tmp_path))
    try:
        state = w.setup(db, dict(w.default_params, **params), {"workdir": str(tmp_path)})
        problems = []
        for _ in range(iterations):
            w.reset(state)
            result = w.operation(state)
            problems.append(w.check(state, result))
        counts = w.counts(state, None)
        w.teardown(state)
        return problems, counts
    finally:
        db.close()


@pytest.mark.parametrize("strategy, calls", [("autocommit", 37), ("transaction", 39), ("prepared", 39),
                                             ("multirow", 3)])
def test_each_strategy_inserts_every_row_and_counts_its_statements(strategy, calls, tmp_path):
    # no syncs: a unit test must not wait for the disk (the grid test covers the syncing settings)
    problems, counts = _run("sqlite/sqlite3", "inserts." + strategy, tmp_path, rows=37, journal_mode="memory",
                            synchronous="off")
    assert problems == [None, None]
    assert counts == (calls, 7 * 37)


def test_multirow_sends_full_batches_and_a_tail(tmp_path):
    n = 2 * inserts.MULTIROW_BATCH + 34
    problems, counts = _run("sqlite/sqlite3", "inserts.multirow", tmp_path, rows=n, synchronous="off")
    assert problems == [None, None]
    assert counts[0] == 2 + 3  # BEGIN, COMMIT, two full batches and the tail


def test_each_iteration_starts_from_an_empty_table_in_a_fresh_file(tmp_path):
    w = workloads.get("inserts.prepared")
    db = engines.get("sqlite/sqlite3").connect({}, str(tmp_path))
    state = w.setup(db, dict(w.default_params, rows=50), {"workdir": str(tmp_path)})
    w.reset(state)
    w.operation(state)
    first = state["conn"]
    w.reset(state)
    assert state["conn"] is not first
    assert state["conn"].query("SELECT COUNT(*) FROM " + inserts.TABLE)[0][0] == 0
    w.teardown(state)
    db.close()


@pytest.mark.parametrize("journal, sync", [("wal", "normal"), ("memory", "off"), ("off", "full"),
                                           ("truncate", "off"), ("persist", "normal"), ("delete", "full")])
def test_journal_mode_and_synchronous_are_applied_and_read_back(journal, sync, tmp_path):
    w = workloads.get("inserts.prepared")
    db = engines.get("sqlite/sqlite3").connect({}, str(tmp_path))
    state = w.setup(db, dict(w.default_params, rows=20, journal_mode=journal, synchronous=sync),
                    {"workdir": str(tmp_path)})
    w.reset(state)
    conn = state["conn"]
    assert conn.query("PRAGMA journal_mode")[0][0] == journal
    assert inserts.SYNCHRONOUS_CODES[conn.query("PRAGMA synchronous")[0][0]] == sync
    assert w.check(state, w.operation(state)) is None
    w.teardown(state)
    db.close()


def test_datadir_places_the_database_file(tmp_path):
    elsewhere = tmp_path / "disk"
    elsewhere.mkdir()
    w = workloads.get("inserts.transaction")
    db = engines.get("sqlite/sqlite3").connect({}, str(tmp_path))
    state = w.setup(db, dict(w.default_params, rows=5, datadir=str(elsewhere)), {"workdir": str(tmp_path)})
    w.reset(state)
    assert state["dir"].startswith(str(elsewhere))
    assert any(p.name == "bench.db" for p in elsewhere.rglob("*"))
    w.teardown(state)
    assert not any(elsewhere.iterdir())
    db.close()


def test_sqlite_has_no_bulk_path_and_other_engines_no_journal(tmp_path):
    bulk = workloads.get("inserts.bulk")
    db = engines.get("sqlite/sqlite3").connect({}, str(tmp_path))
    assert "inserts.prepared" in bulk.not_applicable(db)
    db.close()
    duck = engines.get("duckdb").connect({}, str(tmp_path))
    w = workloads.get("inserts.prepared")
    with pytest.raises(NotApplicable, match="SQLite's settings"):
        w.setup(duck, dict(w.default_params, journal_mode="wal"), {"workdir": str(tmp_path)})
    duck.close()


def test_duckdb_bulk_path_inserts_every_row(tmp_path):
    problems, counts = _run("duckdb", "inserts.bulk", tmp_path, rows=1234)
    assert problems == [None, None]
    assert counts == (1, 7 * 1234)


def test_the_short_selftest_is_caught_by_the_checksum(tmp_path):
    problems, _ = _run("sqlite/sqlite3", "selftest.inserts_short", tmp_path, iterations=1, rows=30, synchronous="off")
    assert problems == ["row count 29 != 30"]
