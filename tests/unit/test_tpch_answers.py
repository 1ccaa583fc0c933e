"""TPC-H: data generation and loading, the 22 queries per dialect, answer checking (E3)."""
from __future__ import annotations

import datetime
import decimal
from pathlib import Path

import pytest

from harness.workloads import tpch_check, tpch_queries

ANSWERS = Path(tpch_check.default_answers_dir())

needs_answers = pytest.mark.skipif(not (ANSWERS / "sf0.01").is_dir(),
                                   reason=f"TPC-H answer sets not found at {ANSWERS}")


def test_format_sf():
    from harness.run.datasets import tpch, tpch_prepare
    from harness.errors import UserError

    assert [tpch.format_sf(x) for x in (0.01, 0.1, 1, 1.0, "0.10", 10)] == ["0.01", "0.1", "1", "1", "0.1", "10"]
    assert tpch_check.format_sf(1.0) == "1"
    with pytest.raises(UserError):
        tpch.format_sf(0)
    with pytest.raises(UserError):
        tpch_prepare.prepare("postgresql/psycopg", 0.01, True, progress=False)


def test_queries_structure():
    for dialect in ("sqlite", "duckdb", "postgresql", "mariadb", "standard"):
        qs = tpch_queries.all_queries(dialect)
        assert [q.number for q in qs] == list(range(1, 23))
        for q in qs:
            assert q.sql and ";" not in q.sql
            view = q.number == 15 and dialect != "mariadb"  # MariaDB's Q15: the spec's WITH variant, no DDL
            assert (q.setup != []) == view and (q.teardown != []) == view
    q15 = tpch_queries.get("sqlite", 15)
    assert "temporary view revenue0" in q15.setup[0] and q15.teardown == ["drop view revenue0"]
    with pytest.raises(KeyError):
        tpch_queries.get("oracle", 1)
    with pytest.raises(KeyError):
        tpch_queries.get("sqlite", 23)


def test_sqlite_queries_avoid_date_pitfalls():
    for q in tpch_queries.all_queries("sqlite"):
        text = " ".join([q.sql] + q.setup).lower()
        assert "date '" not in text, q.number
        assert "interval" not in text, q.number
        assert "as date" not in text, q.number
        assert "extract(" not in text, q.number
        assert "substring(" not in text, q.number
    assert "date('1998-12-01', '-90 day')" in tpch_queries.get("sqlite", 1).sql


def test_colprecision_matches_kit_file():
    path = ANSWERS / "sf1" / "colprecision.txt"
    if not path.exists():
        pytest.skip("no sf1/colprecision.txt")
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    assert lines == [tpch_check.COLPRECISION[i] for i in range(1, 23)]


@needs_answers
def test_load_expected_formats():
    e = tpch_check.load_expected(1, 1, str(ANSWERS))
    assert e.source.endswith("q1.out") and len(e.rows) == 4
    assert e.rows[0] == ["A", "F", "37734107.00", "56586554400.73", "53758257134.87", "55909065222.83",
                         "25.52", "38273.13", "0.05", "1478493"]
    e2 = tpch_check.load_expected(2, "1", str(ANSWERS))
    assert len(e2.rows) == 100 and e2.rows[0][1] == "Supplier#000005359"  # padding removed
    e3 = tpch_check.load_expected(1, 0.01, str(ANSWERS))
    assert e3.source.endswith("q01.csv") and e3.rows[0][-1] == "14876"
    with pytest.raises(LookupError):
        tpch_check.load_expected(1, 0.5, str(ANSWERS))


def test_precision_rules():
    cv = tpch_check.compare_value
    # str: exact, trailing blanks ignored (official answers pad CHAR columns), dates as ISO text
    assert cv("str", "Supplier#000005359", "Supplier#000005359") is None
    assert cv("str", "abc  ", "abc") is None
    assert cv("str", "abd", "abc") is not None
    assert cv("str", datetime.date(1995, 3, 5), "1995-03-05") is None
    # int / cnt: exact
    assert cv("int", 1995, "1995") is None and cv("int", 1995.0, "1995") is None
    assert cv("int", "1995", "1995") is None and cv("cnt", decimal.Decimal(7), "7") is None
    assert cv("cnt", 1478494, "1478493") is not None and cv("int", 1995.5, "1995") is not None
    # num: singleton decimals identical at 1/100 (half up)
    assert cv("num", 9938.53, "9938.53") is None and cv("num", 9938.534, "9938.53") is None
    assert cv("num", 9938.535, "9938.54") is None and cv("num", 9938.54, "9938.53") is not None
    assert cv("num", "13", "13") is None  # Q22's cntrycode
    # sum: within $100 at 1/100
    assert cv("sum", 56586554400.73 + 99.99, "56586554400.73") is None
    assert cv("sum", 56586554400.73 - 100.0, "56586554400.73") is None
    assert cv("sum", 56586554400.73 + 100.02, "56586554400.73") is not None
    assert cv("sum", decimal.Decimal("505822441.4861"), "505822441.4861") is None
    # avg: within 1% at 1/100
    assert cv("avg", 25.52 * 1.0099, "25.52") is None and cv("avg", 25.52 * 1.011, "25.52") is not None
    assert cv("avg", 0.0500813, "0.05008133906964238") is None  # CSV answers are rounded too
    # rat: within 1% of the value reported to 1/100
    assert cv("rat", 0.0344, "0.03") is None  # Q8 at sf1: reported 0.03
    assert cv("rat", 0.0356, "0.03") is not None  # reported 0.04: 33% off
    assert cv("rat", 16.3799, "16.38") is None and cv("rat", 16.60, "16.38") is not None
    assert cv("rat", 0.0, "0.0") is None and cv("rat", 0.01, "0.0") is not None
    # binary floating-point noise at a rounding boundary never fails an answer
    assert cv("rat", 0.034999999999999996, "0.04") is None
    assert cv("rat", 0.034999999999999996, "0.03") is None
    # NULL
    assert cv("avg", None, "NULL") is None and cv("avg", None, "348406.02") is not None
    assert cv("avg", 1.0, "NULL") is not None


def test_ctrl_c_during_tpch_generation_leaves_no_partial_parquet(tmp_path, monkeypatch):
    """Ctrl-C while tpchgen-cli writes: its half-written output is removed at once, so the cache
    holds the data set whole or not at all and the next preparation generates it again."""
    import subprocess

    from harness.run.datasets import tpch as tpch_data

    def interrupted(cmd, **kw):
        out = Path(cmd[cmd.index("--output-dir") + 1])
        (out / "lineitem.parquet").write_bytes(b"PAR1 half")
        raise KeyboardInterrupt

    monkeypatch.setattr(tpch_data, "generator_version", lambda: "tpchgen-cli test")
    monkeypatch.setattr(subprocess, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tpch_data.generate(0.01, progress=False, root=tmp_path)
    d = tmp_path / "sf0.01"
    assert sorted(p.name for p in d.iterdir()) == [".lock"]
