"""TPC-H data on the server engines: the cached parquet data loaded into PostgreSQL (COPY) or
MariaDB (LOAD DATA LOCAL INFILE), once per server, scale factor and index setting.

Split from `harness.run.datasets.tpch` (generation and the embedded engines);
`tpch_prepare.prepare` calls `load_server` for a server engine. Runner side.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from harness.run.datasets.tpch import (BUILD_VERSION, SERVER_FAMILIES, SQLITE_INDEXES, TABLES, _generate_locked,
                                       _Progress, _remove, format_sf, sf_dir)
from harness.errors import UserError
from harness.fsutil import locked

# Column types for the servers, from the TPC-H spec (clause 1.4): (name, kind, length). Identifiers
# INTEGER, DECIMAL(15,2) exact, dates DATE, CHAR/VARCHAR as VARCHAR(length) with a byte-order
# collation (PostgreSQL "C", MariaDB utf8mb4_bin), so that comparisons and ORDER BY behave as in the
# spec (and as SQLite and DuckDB) whatever the server's default collation is.
SERVER_COLUMNS = {
    "region": [("r_regionkey", "int", 0), ("r_name", "str", 25), ("r_comment", "str", 152)],
    "nation": [("n_nationkey", "int", 0), ("n_name", "str", 25), ("n_regionkey", "int", 0),
               ("n_comment", "str", 152)],
    "supplier": [("s_suppkey", "int", 0), ("s_name", "str", 25), ("s_address", "str", 40),
                 ("s_nationkey", "int", 0), ("s_phone", "str", 15), ("s_acctbal", "dec", 0),
                 ("s_comment", "str", 101)],
    "customer": [("c_custkey", "int", 0), ("c_name", "str", 25), ("c_address", "str", 40),
                 ("c_nationkey", "int", 0), ("c_phone", "str", 15), ("c_acctbal", "dec", 0),
                 ("c_mktsegment", "str", 10), ("c_comment", "str", 117)],
    "part": [("p_partkey", "int", 0), ("p_name", "str", 55), ("p_mfgr", "str", 25), ("p_brand", "str", 10),
             ("p_type", "str", 25), ("p_size", "int", 0), ("p_container", "str", 10),
             ("p_retailprice", "dec", 0), ("p_comment", "str", 23)],
    "partsupp": [("ps_partkey", "int", 0), ("ps_suppkey", "int", 0), ("ps_availqty", "int", 0),
                 ("ps_supplycost", "dec", 0), ("ps_comment", "str", 199)],
    "orders": [("o_orderkey", "int", 0), ("o_custkey", "int", 0), ("o_orderstatus", "str", 1),
               ("o_totalprice", "dec", 0), ("o_orderdate", "date", 0), ("o_orderpriority", "str", 15),
               ("o_clerk", "str", 15), ("o_shippriority", "int", 0), ("o_comment", "str", 79)],
    "lineitem": [("l_orderkey", "int", 0), ("l_partkey", "int", 0), ("l_suppkey", "int", 0),
                 ("l_linenumber", "int", 0), ("l_quantity", "dec", 0), ("l_extendedprice", "dec", 0),
                 ("l_discount", "dec", 0), ("l_tax", "dec", 0), ("l_returnflag", "str", 1),
                 ("l_linestatus", "str", 1), ("l_shipdate", "date", 0), ("l_commitdate", "date", 0),
                 ("l_receiptdate", "date", 0), ("l_shipinstruct", "str", 25), ("l_shipmode", "str", 10),
                 ("l_comment", "str", 44)],
}
PRIMARY_KEYS = {"region": "r_regionkey", "nation": "n_nationkey", "supplier": "s_suppkey",
                "customer": "c_custkey", "part": "p_partkey", "partsupp": "ps_partkey, ps_suppkey",
                "orders": "o_orderkey", "lineitem": "l_orderkey, l_linenumber"}
MARKER_TABLE = "crossings_dataset"


def server_database_name(sf, indexes: bool) -> str:
    """`tpch_sf0_01` (primary keys only) / `tpch_sf0_01_idx` (+ secondary indexes): the PostgreSQL
    schema or MariaDB database holding the data for this scale factor and index setting."""
    return "tpch_sf" + format_sf(sf).replace(".", "_") + ("_idx" if indexes else "")


def server_ddl(family: str, table: str, with_primary_key: bool) -> str:
    cols = []
    for name, kind, length in SERVER_COLUMNS[table]:
        if kind == "int":
            ty = "INTEGER"
        elif kind == "dec":
            ty = "DECIMAL(15,2)"
        elif kind == "date":
            ty = "DATE"
        else:
            ty = f'VARCHAR({length}) COLLATE "C"' if family == "postgresql" else f"VARCHAR({length})"
        cols.append(f"  {name} {ty} NOT NULL")
    if with_primary_key:
        cols.append(f"  PRIMARY KEY ({PRIMARY_KEYS[table]})")
    body = ",\n".join(cols)
    if family == "mariadb":
        return f"CREATE TABLE {table} (\n{body}\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
    return f"CREATE TABLE {table} (\n{body}\n)"


def _server_recipe(family: str, indexes: bool) -> dict:
    # ANALYZE runs in both settings on servers: PostgreSQL's autovacuum and InnoDB's automatic
    # statistics would otherwise gather statistics at a moment nobody controls, during the run.
    return {"build_version": BUILD_VERSION, "engine": family, "indexes": bool(indexes),
            "primary_keys": True, "secondary_indexes": SQLITE_INDEXES if indexes else [], "analyze": True,
            "types": "INTEGER, DECIMAL(15,2), DATE, VARCHAR(n) with byte-order collation"}


def _scrubbed(config: dict, exc: BaseException) -> str:
    from harness.engines.server_common import config_secrets, scrub

    return " ".join(scrub(f"{type(exc).__name__}: {exc}", config_secrets(config)).split())


def _write_csvs(parquet: Path, out: Path) -> dict:
    """One headerless CSV per table (dates ISO, decimals as exact text), written by DuckDB."""
    import duckdb

    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    con = duckdb.connect()
    try:
        for table in TABLES:
            src = str(parquet / f"{table}.parquet").replace("'", "''")
            dst = out / f"{table}.csv"
            names = ", ".join(c[0] for c in SERVER_COLUMNS[table])
            con.execute(f"COPY (SELECT {names} FROM read_parquet('{src}')) TO '{str(dst).replace(chr(39), chr(39) * 2)}' "
                        "(FORMAT csv, HEADER false, DELIMITER ',', QUOTE '\"', ESCAPE '\"')")
            paths[table] = dst
    finally:
        con.close()
    return paths


class _PostgresLoader:
    family = "postgresql"

    def __init__(self, config: dict) -> None:
        import psycopg

        self.conn = psycopg.connect(config["dsn"], autocommit=True, connect_timeout=10)
        self.version = "PostgreSQL " + self.conn.execute("SHOW server_version").fetchone()[0]

    def close(self) -> None:
        self.conn.close()

    def lock(self, name: str) -> None:
        self.conn.execute("SELECT pg_advisory_lock(hashtext(%s))", ("crossings " + name,))

    def unlock(self, name: str) -> None:
        self.conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", ("crossings " + name,))

    def read_marker(self, name: str) -> dict | None:
        row = self.conn.execute("SELECT to_regclass(%s)", (f"{name}.{MARKER_TABLE}",)).fetchone()
        if not row or row[0] is None:
            return None
        got = self.conn.execute(f"SELECT info FROM {name}.{MARKER_TABLE}").fetchone()
        try:
            return json.loads(got[0]) if got else None
        except ValueError:
            return None

    def reset(self, name: str) -> None:
        """An empty schema `name`: only the tables this loader makes are dropped, never the schema."""
        c = self.conn
        c.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
        c.execute(f"DROP VIEW IF EXISTS {name}.revenue0")
        for table in [MARKER_TABLE] + TABLES[::-1]:
            c.execute(f"DROP TABLE IF EXISTS {name}.{table}")

    def load_table(self, name: str, table: str, csv: Path, say) -> None:
        c = self.conn
        c.execute(server_ddl("postgresql", table, False).replace(f"CREATE TABLE {table}",
                                                                 f"CREATE TABLE {name}.{table}", 1))
        cols = ", ".join(col[0] for col in SERVER_COLUMNS[table])
        with c.cursor() as cur:
            with cur.copy(f"COPY {name}.{table} ({cols}) FROM STDIN (FORMAT csv)") as copy:
                with open(csv, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        copy.write(block)
        # the primary key after the load: one sorted index build instead of a per-row insert into it
        c.execute(f"ALTER TABLE {name}.{table} ADD PRIMARY KEY ({PRIMARY_KEYS[table]})")

    def index(self, name: str, stmt: str) -> None:
        self.conn.execute(stmt.replace(" ON ", f" ON {name}.", 1))

    def analyze(self, name: str) -> None:
        for table in TABLES:
            self.conn.execute(f"ANALYZE {name}.{table}")

    def count(self, name: str, table: str) -> int:
        return self.conn.execute(f"SELECT count(*) FROM {name}.{table}").fetchone()[0]

    def write_marker(self, name: str, info: dict) -> None:
        c = self.conn
        c.execute(f"CREATE TABLE {name}.{MARKER_TABLE} (info TEXT NOT NULL)")
        c.execute(f"INSERT INTO {name}.{MARKER_TABLE} (info) VALUES (%s)", (json.dumps(info, sort_keys=True),))

    def bulk_path(self) -> str:
        return "COPY FROM STDIN (CSV written by DuckDB from the parquet files)"


class _MariadbLoader:
    family = "mariadb"

    def __init__(self, config: dict) -> None:
        import pymysql

        from harness.engines.server_common import parse_mysql_dsn

        kw = parse_mysql_dsn(config["dsn"])
        kw.pop("database", None)
        self.conn = pymysql.connect(autocommit=True, connect_timeout=10, charset="utf8mb4", local_infile=True, **kw)
        self.version = "MariaDB " + self._one("SELECT VERSION()")[0].split("-MariaDB")[0]
        self.local_infile = bool(int(self._one("SELECT @@local_infile")[0]))

    def _one(self, sql: str, args=None):
        with self.conn.cursor() as cur:
            cur.execute(sql, args)
            return cur.fetchone()

    def _exec(self, sql: str, args=None) -> None:
        with self.conn.cursor() as cur:
            cur.execute(sql, args)

    def close(self) -> None:
        self.conn.close()

    def lock(self, name: str) -> None:
        if self._one("SELECT GET_LOCK(%s, 3600)", ("crossings " + name,))[0] != 1:
            raise RuntimeError(f"could not lock {name} on the MariaDB server within an hour")

    def unlock(self, name: str) -> None:
        self._one("SELECT RELEASE_LOCK(%s)", ("crossings " + name,))

    def read_marker(self, name: str) -> dict | None:
        got = self._one("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
                        (name, MARKER_TABLE))
        if not got or not got[0]:
            return None
        row = self._one(f"SELECT info FROM `{name}`.{MARKER_TABLE}")
        try:
            return json.loads(row[0]) if row else None
        except ValueError:
            return None

    def reset(self, name: str) -> None:
        """An empty database `name`: only the tables this loader makes are dropped, never the database."""
        try:
            self._exec(f"CREATE DATABASE IF NOT EXISTS `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        except Exception as exc:
            raise RuntimeError(f"cannot create database {name} (the DSN's user needs CREATE on `tpch\\_%`.*, "
                               f"e.g. GRANT ALL ON `tpch\\_%`.* TO user): {exc}") from exc
        self._exec(f"DROP VIEW IF EXISTS `{name}`.revenue0")
        for table in [MARKER_TABLE] + TABLES[::-1]:
            self._exec(f"DROP TABLE IF EXISTS `{name}`.{table}")

    def load_table(self, name: str, table: str, csv: Path, say) -> None:
        self._exec(f"USE `{name}`")
        self._exec(server_ddl("mariadb", table, True))
        cols = ", ".join(col[0] for col in SERVER_COLUMNS[table])
        if self.local_infile:
            path = str(csv).replace("\\", "\\\\").replace("'", "\\'")
            self._exec(f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE {table} CHARACTER SET utf8mb4 "
                       "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' "
                       f"LINES TERMINATED BY '\\n' ({cols})")
            return
        import csv as csvmod

        sql = f"INSERT INTO {table} ({cols}) VALUES ({', '.join(['%s'] * len(SERVER_COLUMNS[table]))})"
        with open(csv, newline="") as fh, self.conn.cursor() as cur:
            batch = []
            for row in csvmod.reader(fh):
                batch.append(row)
                if len(batch) >= 20000:
                    cur.executemany(sql, batch)  # pymysql sends multi-row INSERTs (up to max_allowed_packet)
                    batch = []
            if batch:
                cur.executemany(sql, batch)

    def index(self, name: str, stmt: str) -> None:
        self._exec(f"USE `{name}`")
        self._exec(stmt)

    def analyze(self, name: str) -> None:
        self._exec(f"USE `{name}`")
        for table in TABLES:
            with self.conn.cursor() as cur:
                cur.execute(f"ANALYZE TABLE {table} PERSISTENT FOR ALL")
                cur.fetchall()

    def count(self, name: str, table: str) -> int:
        return self._one(f"SELECT COUNT(*) FROM `{name}`.{table}")[0]

    def write_marker(self, name: str, info: dict) -> None:
        self._exec(f"CREATE TABLE `{name}`.{MARKER_TABLE} (info TEXT NOT NULL) ENGINE=InnoDB")
        self._exec(f"INSERT INTO `{name}`.{MARKER_TABLE} (info) VALUES (%s)", (json.dumps(info, sort_keys=True),))

    def bulk_path(self) -> str:
        if self.local_infile:
            return "LOAD DATA LOCAL INFILE (CSV written by DuckDB from the parquet files)"
        return "multi-row INSERTs of 20,000 rows (the server has local_infile=OFF)"


def load_server(family: str, sf, indexes: bool, config: dict | None, *, progress: bool = True,
                force: bool = False, root: Path | None = None) -> dict:
    """Ensure the server named by `config` (an engine_config: DSN) holds the TPC-H data for
    (sf, indexes) in schema/database `server_database_name(sf, indexes)`; load it if not.
    Returns the marker's contents (fingerprint, recipe, load time, ...) plus whether it was reused."""
    if family not in SERVER_FAMILIES:
        raise UserError(f"no TPC-H server loader for {family!r}")
    if not config or not config.get("dsn"):
        reason = (config or {}).get("unavailable") or "no server DSN in the engine configuration"
        raise UserError(f"cannot load TPC-H into {family}: {reason}")
    say = _Progress(progress)
    directory = sf_dir(sf, root)
    name = server_database_name(sf, indexes)
    recipe = _server_recipe(family, indexes)
    with locked(directory):
        data_meta = _generate_locked(sf, directory, say, False)
    try:
        loader = _PostgresLoader(config) if family == "postgresql" else _MariadbLoader(config)
    except Exception as exc:  # noqa: BLE001 - the message must not carry the password
        raise RuntimeError(f"cannot connect to the {family} server to load TPC-H: {_scrubbed(config, exc)}") from None
    where = "postgresql schema" if family == "postgresql" else "mariadb database"
    try:
        loader.lock(name)
        try:
            marker = loader.read_marker(name)
            if (not force and marker and marker.get("data_fingerprint") == data_meta["fingerprint"]
                    and marker.get("recipe") == recipe):
                say(f"sf{data_meta['sf']}: {where} {name} already holds this data ({loader.version})")
                return dict(marker, reused=True)
            say(f"sf{data_meta['sf']}: loading {where} {name} ({loader.version}, {loader.bulk_path()}) ...")
            t0 = time.perf_counter()
            loader.reset(name)
            with locked(directory):
                tmp = directory / f".csv-{family}.tmp-{os.getpid()}"
                _remove(tmp)
                try:
                    t1 = time.perf_counter()
                    csvs = _write_csvs(directory / "parquet", tmp)
                    csv_seconds = time.perf_counter() - t1
                    steps = {"csv": round(csv_seconds, 3)}
                    for table in TABLES:
                        t1 = time.perf_counter()
                        loader.load_table(name, table, csvs[table], say)
                        n = loader.count(name, table)
                        if n != data_meta["rows"][table]:
                            raise RuntimeError(f"{name}.{table} has {n} rows, the generator wrote "
                                               f"{data_meta['rows'][table]}")
                        steps[table] = round(time.perf_counter() - t1, 3)
                        say(f"  {family} {table}: {n:,} rows in {steps[table]:.1f}s")
                finally:
                    _remove(tmp)
            for stmt in recipe["secondary_indexes"]:
                t1 = time.perf_counter()
                loader.index(name, stmt)
                steps[stmt.split(" ON ")[0].split()[-1]] = round(time.perf_counter() - t1, 3)
            t1 = time.perf_counter()
            loader.analyze(name)
            steps["analyze"] = round(time.perf_counter() - t1, 3)
            seconds = time.perf_counter() - t0
            info = {"database": name, "data_fingerprint": data_meta["fingerprint"], "sf": data_meta["sf"],
                    "recipe": recipe, "load_seconds": round(seconds, 3), "load_steps": steps,
                    "bulk_path": loader.bulk_path(), "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    "versions": {family: loader.version}}
            loader.write_marker(name, info)
            say(f"sf{data_meta['sf']}: {where} {name} loaded in {seconds:.1f}s")
            return dict(info, reused=False)
        finally:
            try:
                loader.unlock(name)
            except Exception:  # noqa: BLE001 - the connection closes next, which releases the lock
                pass
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise RuntimeError(f"loading TPC-H into the {family} server failed: {_scrubbed(config, exc)}") from None
    finally:
        loader.close()
