"""TPC-H data, validation and the E2 micro-benchmarks on the server engines (PostgreSQL, MariaDB).

Real throwaway servers only (Debian's postgresql, postgresql-plpython3-15 and mariadb-server); without
them the tests skip with the reason, and with CROSSINGS_REQUIRE_SERVERS=1 (CI) they fail instead.
Kept small: SF 0.01, one process per cell.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import harness, last_line
from helpers_servers import require_family
from test_servers import assert_clean, env_with_tmp, private_tmp, records  # noqa: F401 - fixture

LINEITEM_SF001 = 60175


@pytest.mark.parametrize("engine", ["postgresql/psycopg", "mariadb/pymysql", "mariadb/mysqlclient"])
def test_validate_tpch_22_of_22_on_a_throwaway_server(engine, private_tmp):  # noqa: F811
    require_family(engine.split("/")[0])
    proc = harness("validate", "tpch", "--engine", engine, "--sf", "0.01", "--no-cross", "--quiet",
                   env=env_with_tmp(private_tmp), timeout=300)
    assert "22/22 passed" in proc.stdout, proc.stdout
    assert "on the throwaway" in proc.stdout
    assert_clean(private_tmp)  # the throwaway server is stopped and its directory removed


@pytest.mark.parametrize("family,engine", [("postgresql", "postgresql/psycopg"), ("mariadb", "mariadb/mysqlclient")])
def test_data_goes_into_its_own_schema_once(family, engine, private_tmp, monkeypatch):  # noqa: F811
    require_family(family)
    monkeypatch.setenv("TMPDIR", str(private_tmp))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    from harness import engines
    from harness.run.datasets import tpch_prepare
    from harness.run.servers import throwaway

    with throwaway(family) as server:
        config = server.engine_config()
        first = tpch_prepare.prepare(engine, 0.01, False, progress=False, engine_config=config)
        again = tpch_prepare.prepare(engine, 0.01, False, progress=False, engine_config=config)
        assert first["path"] == first["database"] == "tpch_sf0_01" and first["reused"] is False
        assert again["reused"] is True and again["fingerprint"] == first["fingerprint"]
        db = engines.get(engine).connect(config, "", first["path"])
        try:
            assert db.query("SELECT COUNT(*) FROM lineitem")[0][0] == LINEITEM_SF001
        finally:
            db.close()
        plain = engines.get(engine).connect(config, "", None)  # the DSN's own database: no TPC-H tables
        try:
            if family == "postgresql":
                tables = plain.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
            else:
                tables = plain.query("SHOW TABLES")
            assert tables == [] or tables == ()
        finally:
            plain.close()
    assert_clean(private_tmp)


def test_micro_and_tpch_smoke_on_the_server_engines(tmp_path, private_tmp):  # noqa: F811
    require_family("postgresql")
    require_family("mariadb")
    proc = harness("run", "--profile", "smoke", "--benchmarks", "micro.*,tpch.q13,tpch.q15", "--engines",
                   "postgresql/*,mariadb/*", "--processes", "1", "--iterations", "2", "--param", "rows=1000",
                   "--out", str(tmp_path), "--no-progress", env=env_with_tmp(private_tmp), timeout=300)
    run_dir = Path(last_line(proc.stdout))
    got = {(r["benchmark"], r["engine"]): r for r in records(run_dir)}
    servers = ("postgresql/psycopg", "mariadb/pymysql", "mariadb/mysqlclient")
    for bench in ("micro.select", "micro.innerjoin", "micro.pythonjoin", "micro.filltable", "tpch.q13", "tpch.q15"):
        for engine in servers:
            assert got[(bench, engine)]["status"] == "ok", (bench, engine, got[(bench, engine)]["reason"])
    assert got[("micro.pyfunction_server", "postgresql/psycopg")]["status"] == "ok"
    assert got[("micro.pyaggregate_server", "postgresql/psycopg")]["status"] == "ok"
    for bench in ("micro.pyfunction", "micro.pyaggregate"):
        for engine in servers:
            r = got[(bench, engine)]
            assert r["status"] == "not_applicable" and "cannot call back into the client's Python" in r["reason"]
    for bench in ("micro.pyfunction_server", "micro.pyaggregate_server"):
        for engine in ("mariadb/pymysql", "mariadb/mysqlclient"):
            r = got[(bench, engine)]
            assert r["status"] == "not_applicable" and "MariaDB has no Python inside the server" in r["reason"]
    import pandas as pd

    df = pd.concat(pd.read_parquet(p) for p in (run_dir / "timings").glob("*.parquet"))
    counts = df.groupby(["benchmark", "engine"])[["crossings", "values_converted"]].first()
    # one call per lineitem row, counted inside the server by PL/Python: query + rows + calls
    assert tuple(counts.loc[("micro.pyfunction_server", "postgresql/psycopg")]) == (
        1 + 2 * LINEITEM_SF001, 3 * LINEITEM_SF001)
    assert tuple(counts.loc[("micro.pyaggregate_server", "postgresql/psycopg")]) == (
        1 + LINEITEM_SF001 + 1 + 1, 4 * LINEITEM_SF001 + 2 + 1)
    for engine in servers:  # the same data, so the same counts on every driver
        assert tuple(counts.loc[("micro.select", engine)]) == (1 + LINEITEM_SF001, 3 * LINEITEM_SF001)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    ds = manifest["datasets"]["tpch:postgresql/psycopg:indexes=off,sf=0.01"]
    assert ds["database"] == "tpch_sf0_01" and ds["fingerprint"].startswith("sha256:")
    assert_clean(private_tmp)
