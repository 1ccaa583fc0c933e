"""TPC-H: data generation and loading, the 22 queries per dialect, answer checking (E3)."""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from harness.workloads import tpch_check, tpch_queries

ANSWERS = Path(tpch_check.default_answers_dir())

needs_answers = pytest.mark.skipif(not (ANSWERS / "sf0.01").is_dir(),
                                   reason=f"TPC-H answer sets not found at {ANSWERS}")


@pytest.fixture(scope="session")
def tpch_cache(tmp_path_factory):
    """A private cache directory with TPC-H sf 0.01 generated and loaded into every database."""
    from harness.run.datasets import tpch_prepare

    root = tmp_path_factory.mktemp("tpch-cache")
    old = os.environ.get("CROSSINGS_TPCH_CACHE")
    os.environ["CROSSINGS_TPCH_CACHE"] = str(root)
    try:
        for engine, indexes in [("sqlite/sqlite3", False), ("sqlite/sqlite3", True), ("duckdb", False)]:
            tpch_prepare.prepare(engine, 0.01, indexes, progress=False)
        yield root
    finally:
        if old is None:
            os.environ.pop("CROSSINGS_TPCH_CACHE", None)
        else:
            os.environ["CROSSINGS_TPCH_CACHE"] = old


# ------------------------------------------------------------------------------ generation + load

def test_generate_and_load_sf001(tpch_cache):
    from harness.run.datasets import tpch, tpch_prepare

    d = tpch_cache / "sf0.01"
    meta = json.loads((d / "parquet" / "FINGERPRINT.json").read_text())
    assert meta["sf"] == "0.01" and meta["generator"].startswith("tpchgen-cli")
    assert meta["rows"]["lineitem"] == 60175 and meta["rows"]["orders"] == 15000
    for table in tpch.TABLES:
        assert meta["files"][f"{table}.parquet"] == tpch._sha256(d / "parquet" / f"{table}.parquet")
    assert meta["fingerprint"] == tpch._combined_fingerprint(meta["generator"], "0.01", meta["files"])

    # cached: same fingerprint, nothing rebuilt
    info = tpch_prepare.prepare("sqlite/apsw", 0.01, False, progress=False)
    assert info["fingerprint"] == meta["fingerprint"] == tpch.fingerprint(0.01)
    assert info["path"] == str(d / "sqlite-noindexes.db") and info["indexes"] is False and info["sf"] == 0.01
    assert tpch_prepare.prepare("duckdb", 0.01, True, progress=False)["indexes"] is None  # does not apply
    assert not list(d.glob(".*.tmp-*"))

    con = sqlite3.connect(str(d / "sqlite-noindexes.db"))
    assert con.execute("select count(*) from lineitem").fetchone()[0] == 60175
    types = con.execute("select typeof(l_orderkey), typeof(l_quantity), typeof(l_extendedprice), "
                        "typeof(l_shipdate), typeof(l_comment) from lineitem limit 1").fetchone()
    assert types == ("integer", "real", "real", "text", "text")
    # decimals are the nearest doubles of their decimal text, not cast artefacts (24386.670000000002)
    assert con.execute("select count(*) from lineitem where l_extendedprice != round(l_extendedprice, 2)"
                       ).fetchone()[0] == 0
    pk = [r[1] for r in con.execute("pragma table_info(lineitem)") if r[5]]
    assert pk == ["l_orderkey", "l_linenumber"]
    assert not con.execute("select name from sqlite_master where type='index' and name like 'idx_%'").fetchall()
    assert not con.execute("select name from sqlite_master where name = 'sqlite_stat1'").fetchall()
    assert con.execute("pragma journal_mode").fetchone()[0] == "delete"
    con.close()

    con = sqlite3.connect(str(d / "sqlite-indexes.db"))
    names = {r[0] for r in con.execute("select name from sqlite_master where type='index' and name like 'idx_%'")}
    assert names == {s.split()[2] for s in tpch.SQLITE_INDEXES}
    assert con.execute("select count(*) from sqlite_stat1").fetchone()[0] > 0
    con.close()

    import duckdb

    con = duckdb.connect(str(d / "duckdb.db"), read_only=True)
    assert con.execute("select count(*), sum(l_quantity) from lineitem").fetchone()[0] == 60175
    assert con.execute("select typeof(l_extendedprice), typeof(l_shipdate) from lineitem limit 1"
                       ).fetchone() == ("DECIMAL(15,2)", "DATE")
    con.close()


def test_interrupted_build_leaves_nothing_usable(tpch_cache, monkeypatch):
    from harness.run.datasets import tpch

    d = tpch_cache / "sf0.01"
    db = d / "sqlite-noindexes.db"
    before = db.stat().st_mtime_ns

    def interrupted(parquet, out, say):
        sqlite3.connect(str(out)).execute("create table lineitem (x)")  # a half-built file
        raise KeyboardInterrupt

    monkeypatch.setattr(tpch, "_build_sqlite_noindexes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tpch.load("sqlite", 0.01, False, progress=False, force=True)
    assert not list(d.glob(".*.tmp-*"))
    # the old file is no longer vouched for (its sidecar is gone), so it is rebuilt, never used as is
    assert not (d / "sqlite-noindexes.db.json").exists()
    monkeypatch.undo()
    info = tpch.load("sqlite", 0.01, False, progress=False)
    assert db.stat().st_mtime_ns != before
    assert info["data_fingerprint"] == tpch.fingerprint(0.01)
    con = sqlite3.connect(str(db))
    assert con.execute("select count(*) from lineitem").fetchone()[0] == 60175
    con.close()


def test_stale_database_is_rebuilt(tpch_cache):
    from harness.run.datasets import tpch

    d = tpch_cache / "sf0.01"
    side = d / "duckdb.db.json"
    doc = json.loads(side.read_text())
    doc["data_fingerprint"] = "sha256:" + "0" * 64
    side.write_text(json.dumps(doc))
    info = tpch.load("duckdb", 0.01, progress=False)
    assert info["data_fingerprint"] == tpch.fingerprint(0.01)


# ------------------------------------------------------------------------------------- queries


def test_sqlite_cast_as_date_pitfall(tpch_cache):
    """CAST('1998-09-02' AS date) is valid SQLite and yields 1998: a naive port runs and is wrong."""
    con = sqlite3.connect(str(tpch_cache / "sf0.01" / "sqlite-noindexes.db"))
    assert con.execute("select cast('1998-09-02' as date)").fetchone()[0] == 1998
    assert con.execute("select date('1998-12-01', '-90 day')").fetchone()[0] == "1998-09-02"
    good = tpch_queries.get("sqlite", 6)
    naive = good._replace(sql=good.sql.replace(
        "l_shipdate >= '1994-01-01'", "l_shipdate >= cast('1994-01-01' as date)").replace(
        "l_shipdate < date('1994-01-01', '+1 year')", "l_shipdate < cast('1995-01-01' as date)"))
    assert naive.sql != good.sql
    assert tpch_check.check_answer(6, tpch_queries.run_query(con, good), 0.01) is None
    reason = tpch_check.check_answer(6, tpch_queries.run_query(con, naive), 0.01)
    assert reason is not None and "NULL" in reason  # every text date > any integer: no rows at all
    # and Q6's between 0.06 - 0.01 and 0.06 + 0.01 in binary floating point loses l_discount = 0.07
    assert 0.06 + 0.01 < 0.07
    con.close()


@needs_answers
@pytest.mark.parametrize("engine,indexes", [("sqlite/sqlite3", True), ("duckdb", False)])
def test_queries_validate_sf001(tpch_cache, engine, indexes):
    from harness.run.datasets.tpch_validate import validate

    results, info = validate(engine, 0.01, indexes=indexes, progress=False, save=False, cross=False)
    failures = [(r.number, r.reason) for r in results if not r.ok]
    assert failures == []
    assert len(results) == 22


@needs_answers
def test_cross_engine_comparison(tpch_cache):
    from harness.run.datasets.tpch_validate import validate

    validate("duckdb", 0.01, queries=[1, 15], progress=False)
    results, info = validate("sqlite/apsw", 0.01, indexes=False, queries=[1, 15], progress=False)
    assert info["compared_with"] == ["duckdb"]
    assert all(r.ok and r.cross == [("duckdb", None)] for r in results)


# ---------------------------------------------------------------------------- answer checking


@needs_answers
def test_wrong_answer_detected(tpch_cache):
    import duckdb

    con = duckdb.connect(str(tpch_cache / "sf0.01" / "duckdb.db"), read_only=True)
    rows = tpch_queries.run_query(con, tpch_queries.get("duckdb", 1))
    con.close()
    assert tpch_check.check_answer(1, rows, 0.01) is None

    def mutated(i, j, value):
        out = [list(r) for r in rows]
        out[i][j] = value
        return [tuple(r) for r in out]

    assert "count_order" in tpch_check.check_answer(1, mutated(0, 9, rows[0][9] + 1), 0.01)
    assert "l_linestatus" in tpch_check.check_answer(1, mutated(2, 1, "X"), 0.01)
    assert "sum_qty" in tpch_check.check_answer(1, mutated(1, 2, rows[1][2] + 150), 0.01)
    assert tpch_check.check_answer(1, mutated(1, 2, rows[1][2] + 50), 0.01) is None  # SUM: within $100
    assert "avg_qty" in tpch_check.check_answer(1, mutated(0, 6, rows[0][6] * 1.02), 0.01)
    assert "3 rows, expected 4" in tpch_check.check_answer(1, rows[:3], 0.01)
    assert "row 1" in tpch_check.check_answer(1, [rows[1], rows[0]] + rows[2:], 0.01)  # order matters


# ------------------------------------------------------------------------------------------- CLI

def test_cli_validate_errors(tpch_cache, capsys):
    from harness.cli import main

    assert main(["validate", "tpch", "--engine", "oracle", "--sf", "0.01"]) == 2
    err = capsys.readouterr().err
    assert "sqlite/sqlite3" in err and "sqlite/apsw" in err and "duckdb" in err
    assert main(["validate", "tpch", "--engine", "duckdb", "--sf", "0.5"]) == 2
    assert "no TPC-H answer set for sf 0.5" in capsys.readouterr().err


@needs_answers
def test_cli_data_and_validate(tpch_cache, capsys):
    from harness.cli import main

    assert main(["data", "tpch", "--sf", "0.01", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "fingerprint: sha256:" in out and "duckdb.db" in out and "sqlite-indexes.db" in out
    assert main(["validate", "tpch", "--engine", "duckdb", "--sf", "0.01", "--quiet",
                 "--queries", "1,6,15", "--no-cross"]) == 0
    out = capsys.readouterr().out
    assert "3/3 passed" in out and "q15   pass" in out


# ------------------------------------------------------------------------------------------ slow

@needs_answers
@pytest.mark.slow
@pytest.mark.parametrize("engine", ["sqlite/sqlite3", "duckdb"])
def test_queries_validate_sf01(engine):
    from harness.run.datasets.tpch_validate import validate

    results, _ = validate(engine, 0.1, indexes=True, progress=False)
    assert [(r.number, r.reason) for r in results if not r.ok] == []


@pytest.mark.slow
def test_queries_validate_sf1_duckdb_official():
    if not (ANSWERS / "sf1" / "q1.out").exists():
        pytest.skip("no official sf1 answers")
    from harness.run.datasets.tpch_validate import validate

    results, info = validate("duckdb", 1, progress=False)
    assert info["answer_kind"] == "official TPC-H kit answers"
    assert [(r.number, r.reason) for r in results if not r.ok] == []
