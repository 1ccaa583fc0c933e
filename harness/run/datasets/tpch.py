"""TPC-H data: generation with `tpchgen-cli`, a per-scale-factor cache, loading into SQLite and DuckDB.

Runner side (may import duckdb / pyarrow). Layout of the cache, one directory per scale factor::

    data/cache/tpch/sf<SF>/
        .lock                       flock(2) held while building, so two preparers never race
        parquet/<table>.parquet     what tpchgen-cli generated (never edited)
        parquet/FINGERPRINT.json    generator version, sf, sha256 of each file, combined fingerprint
        sqlite-noindexes.db(.json)  primary keys only
        sqlite-indexes.db(.json)    primary keys + secondary indexes + ANALYZE
        duckdb.db(.json)            DuckDB's own file format

Every artefact is built under a temporary name in the same directory and renamed into place only
when complete; the sidecar `<db>.json` (written after the rename) records which data fingerprint and
build recipe the database was made from, so an interrupted or stale build is rebuilt, never used.

Server engines (PostgreSQL, MariaDB) get the same parquet data loaded into the server named by the
run's engine_config, once per server, scale factor and index setting: PostgreSQL into the schema
`tpch_sf<SF>` (e.g. `tpch_sf0_01`, `tpch_sf0_01_idx` with secondary indexes) of the DSN's database,
by `COPY ... FROM STDIN`; MariaDB into the database of that name, by `LOAD DATA LOCAL INFILE` (or
multi-row INSERTs when the server refuses local files). Both from CSV written by DuckDB from the
parquet files. A marker table `crossings_dataset` in that schema/database records the data
fingerprint and the recipe; a server already holding the same data (a user's server) is not
reloaded. See docs/servers.md.

`harness.run.datasets.tpch_prepare.prepare(engine_name, sf, indexes)` is what the runner calls
before worker processes start.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from harness import fsutil
from harness.errors import UserError
from harness.fsutil import locked, write_json_atomic

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]

# Bump when the schema, the index set or the load recipe changes: cached databases are rebuilt.
BUILD_VERSION = 1

# SQLite schema. Types follow the TPC-H spec mapped to SQLite affinities: identifiers INTEGER,
# DECIMAL(15,2) as REAL (NUMERIC affinity would store 17.00 as the integer 17, so a column would
# come back as a mix of int and float), CHAR/VARCHAR as TEXT, dates as ISO-8601 text in a DATE
# column (compare them with text literals or date('...'), never CAST(... AS date): see
# harness.workloads.tpch_queries).
SQLITE_SCHEMA = {
    "region": """CREATE TABLE region (
  r_regionkey INTEGER PRIMARY KEY,
  r_name TEXT NOT NULL,
  r_comment TEXT NOT NULL)""",
    "nation": """CREATE TABLE nation (
  n_nationkey INTEGER PRIMARY KEY,
  n_name TEXT NOT NULL,
  n_regionkey INTEGER NOT NULL,
  n_comment TEXT NOT NULL)""",
    "supplier": """CREATE TABLE supplier (
  s_suppkey INTEGER PRIMARY KEY,
  s_name TEXT NOT NULL,
  s_address TEXT NOT NULL,
  s_nationkey INTEGER NOT NULL,
  s_phone TEXT NOT NULL,
  s_acctbal REAL NOT NULL,
  s_comment TEXT NOT NULL)""",
    "customer": """CREATE TABLE customer (
  c_custkey INTEGER PRIMARY KEY,
  c_name TEXT NOT NULL,
  c_address TEXT NOT NULL,
  c_nationkey INTEGER NOT NULL,
  c_phone TEXT NOT NULL,
  c_acctbal REAL NOT NULL,
  c_mktsegment TEXT NOT NULL,
  c_comment TEXT NOT NULL)""",
    "part": """CREATE TABLE part (
  p_partkey INTEGER PRIMARY KEY,
  p_name TEXT NOT NULL,
  p_mfgr TEXT NOT NULL,
  p_brand TEXT NOT NULL,
  p_type TEXT NOT NULL,
  p_size INTEGER NOT NULL,
  p_container TEXT NOT NULL,
  p_retailprice REAL NOT NULL,
  p_comment TEXT NOT NULL)""",
    "partsupp": """CREATE TABLE partsupp (
  ps_partkey INTEGER NOT NULL,
  ps_suppkey INTEGER NOT NULL,
  ps_availqty INTEGER NOT NULL,
  ps_supplycost REAL NOT NULL,
  ps_comment TEXT NOT NULL,
  PRIMARY KEY (ps_partkey, ps_suppkey))""",
    "orders": """CREATE TABLE orders (
  o_orderkey INTEGER PRIMARY KEY,
  o_custkey INTEGER NOT NULL,
  o_orderstatus TEXT NOT NULL,
  o_totalprice REAL NOT NULL,
  o_orderdate DATE NOT NULL,
  o_orderpriority TEXT NOT NULL,
  o_clerk TEXT NOT NULL,
  o_shippriority INTEGER NOT NULL,
  o_comment TEXT NOT NULL)""",
    "lineitem": """CREATE TABLE lineitem (
  l_orderkey INTEGER NOT NULL,
  l_partkey INTEGER NOT NULL,
  l_suppkey INTEGER NOT NULL,
  l_linenumber INTEGER NOT NULL,
  l_quantity REAL NOT NULL,
  l_extendedprice REAL NOT NULL,
  l_discount REAL NOT NULL,
  l_tax REAL NOT NULL,
  l_returnflag TEXT NOT NULL,
  l_linestatus TEXT NOT NULL,
  l_shipdate DATE NOT NULL,
  l_commitdate DATE NOT NULL,
  l_receiptdate DATE NOT NULL,
  l_shipinstruct TEXT NOT NULL,
  l_shipmode TEXT NOT NULL,
  l_comment TEXT NOT NULL,
  PRIMARY KEY (l_orderkey, l_linenumber))""",
}

# Secondary indexes of the `indexes=on` setting: every foreign key not already the leading column of
# a primary key, plus the date columns the queries filter on. Followed by ANALYZE.
SQLITE_INDEXES = [
    "CREATE INDEX idx_nation_regionkey ON nation (n_regionkey)",
    "CREATE INDEX idx_supplier_nationkey ON supplier (s_nationkey)",
    "CREATE INDEX idx_customer_nationkey ON customer (c_nationkey)",
    "CREATE INDEX idx_partsupp_suppkey ON partsupp (ps_suppkey)",
    "CREATE INDEX idx_orders_custkey ON orders (o_custkey)",
    "CREATE INDEX idx_orders_orderdate ON orders (o_orderdate)",
    "CREATE INDEX idx_lineitem_partkey_suppkey ON lineitem (l_partkey, l_suppkey)",
    "CREATE INDEX idx_lineitem_suppkey ON lineitem (l_suppkey)",
    "CREATE INDEX idx_lineitem_shipdate ON lineitem (l_shipdate)",
]

# DuckDB schema: the spec's types. No primary keys: DuckDB does not use them to plan these queries
# and they only slow the load (ART indexes); `indexes` does not apply to DuckDB.
DUCKDB_SCHEMA = {
    "region": "r_regionkey BIGINT NOT NULL, r_name VARCHAR NOT NULL, r_comment VARCHAR NOT NULL",
    "nation": "n_nationkey BIGINT NOT NULL, n_name VARCHAR NOT NULL, n_regionkey BIGINT NOT NULL, "
              "n_comment VARCHAR NOT NULL",
    "supplier": "s_suppkey BIGINT NOT NULL, s_name VARCHAR NOT NULL, s_address VARCHAR NOT NULL, "
                "s_nationkey BIGINT NOT NULL, s_phone VARCHAR NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL, "
                "s_comment VARCHAR NOT NULL",
    "customer": "c_custkey BIGINT NOT NULL, c_name VARCHAR NOT NULL, c_address VARCHAR NOT NULL, "
                "c_nationkey BIGINT NOT NULL, c_phone VARCHAR NOT NULL, c_acctbal DECIMAL(15,2) NOT NULL, "
                "c_mktsegment VARCHAR NOT NULL, c_comment VARCHAR NOT NULL",
    "part": "p_partkey BIGINT NOT NULL, p_name VARCHAR NOT NULL, p_mfgr VARCHAR NOT NULL, "
            "p_brand VARCHAR NOT NULL, p_type VARCHAR NOT NULL, p_size INTEGER NOT NULL, "
            "p_container VARCHAR NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR NOT NULL",
    "partsupp": "ps_partkey BIGINT NOT NULL, ps_suppkey BIGINT NOT NULL, ps_availqty INTEGER NOT NULL, "
                "ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR NOT NULL",
    "orders": "o_orderkey BIGINT NOT NULL, o_custkey BIGINT NOT NULL, o_orderstatus VARCHAR NOT NULL, "
              "o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, "
              "o_orderpriority VARCHAR NOT NULL, o_clerk VARCHAR NOT NULL, o_shippriority INTEGER NOT NULL, "
              "o_comment VARCHAR NOT NULL",
    "lineitem": "l_orderkey BIGINT NOT NULL, l_partkey BIGINT NOT NULL, l_suppkey BIGINT NOT NULL, "
                "l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, "
                "l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL, "
                "l_tax DECIMAL(15,2) NOT NULL, l_returnflag VARCHAR NOT NULL, l_linestatus VARCHAR NOT NULL, "
                "l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL, "
                "l_shipinstruct VARCHAR NOT NULL, l_shipmode VARCHAR NOT NULL, l_comment VARCHAR NOT NULL",
}

ENGINE_FAMILIES = ("sqlite", "duckdb")
SERVER_FAMILIES = ("postgresql", "mariadb")
KNOWN_SF = (0.01, 0.1, 1.0)  # scale factors with answer sets; others can be generated, not validated


# ---------------------------------------------------------------------------------------- helpers

def cache_root() -> Path:
    """`data/cache/tpch` under the project root, or $CROSSINGS_TPCH_CACHE."""
    return fsutil.cache_dir("tpch", "CROSSINGS_TPCH_CACHE")


def format_sf(sf) -> str:
    """0.01 -> '0.01', 1.0 -> '1', '0.10' -> '0.1'."""
    value = float(sf)
    if value <= 0:
        raise UserError(f"scale factor must be positive, not {sf!r}")
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def sf_dir(sf, root: Path | None = None) -> Path:
    return (root or cache_root()) / f"sf{format_sf(sf)}"


class _Progress:
    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.t0 = time.perf_counter()

    def __call__(self, message: str) -> None:
        if self.enabled:
            print(f"[tpch {time.perf_counter() - self.t0:7.1f}s] {message}", file=sys.stderr, flush=True)




def _read_json(path: Path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _clean_stale_temps(directory: Path) -> None:
    """Remove leftovers of interrupted builds (we hold the lock, so nobody else is building)."""
    for path in directory.glob(".*.tmp-*"):
        _remove(path)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ------------------------------------------------------------------------------------- generation

def tpchgen_command() -> list[str]:
    exe = Path(sys.executable).parent / "tpchgen-cli"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("tpchgen-cli")
    if found:
        return [found]
    raise UserError(
        "tpchgen-cli not found (neither next to this Python nor on PATH); install it with "
        "`pip install tpchgen-cli`"
    )


def generator_version() -> str:
    out = subprocess.run(tpchgen_command() + ["--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip()  # e.g. "tpchgen-cli 4.0.0"


def _combined_fingerprint(generator: str, sf: str, files: dict) -> str:
    h = hashlib.sha256()
    h.update(f"tpch|{generator}|sf={sf}|format=parquet\n".encode())
    for name in sorted(files):
        h.update(f"{name} {files[name]}\n".encode())
    return "sha256:" + h.hexdigest()


def generate(sf, *, progress: bool = True, force: bool = False, root: Path | None = None) -> dict:
    """Generate the parquet files for `sf` (cached) and return the contents of FINGERPRINT.json."""
    say = _Progress(progress)
    directory = sf_dir(sf, root)
    with locked(directory):
        return _generate_locked(sf, directory, say, force)


def _generate_locked(sf, directory: Path, say, force: bool) -> dict:
    # every temp file here is made under this lock: any we find was left by a killed builder
    _clean_stale_temps(directory)
    sf_text = format_sf(sf)
    target = directory / "parquet"
    meta = _read_json(target / "FINGERPRINT.json")
    generator = generator_version()
    if meta and not force and meta.get("generator") == generator and meta.get("sf") == sf_text:
        say(f"sf{sf_text}: parquet cached ({meta['fingerprint'][:19]}...)")
        return meta
    tmp = directory / f".parquet.tmp-{os.getpid()}"
    _remove(tmp)
    tmp.mkdir(parents=True)
    say(f"sf{sf_text}: generating with {generator} ...")
    cmd = tpchgen_command() + ["parquet", "--scale-factor", sf_text, "--output-dir", str(tmp), "--no-progress"]
    try:  # Ctrl-C (or any failure) mid-generation leaves no half-written parquet behind
        return _generate_into(tmp, target, directory, cmd, generator, sf_text, say)
    except BaseException:
        _remove(tmp)
        raise


def _generate_into(tmp: Path, target: Path, directory: Path, cmd: list[str], generator: str, sf_text: str,
                   say) -> dict:
    """Run the generator into `tmp`, check and fingerprint its files, rename it to `target`."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        _remove(tmp)
        raise UserError(f"tpchgen-cli failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    gen_seconds = time.perf_counter() - t0
    files = {}
    rows = {}
    import pyarrow.parquet as pq

    for table in TABLES:
        path = tmp / f"{table}.parquet"
        if not path.exists():
            _remove(tmp)
            raise UserError(f"tpchgen-cli did not write {path.name}")
        files[path.name] = _sha256(path)
        rows[table] = pq.ParquetFile(path).metadata.num_rows
    meta = {
        "dataset": "tpch",
        "generator": generator,
        "sf": sf_text,
        "format": "parquet",
        "files": files,
        "rows": rows,
        "fingerprint": _combined_fingerprint(generator, sf_text, files),
        "generate_seconds": round(gen_seconds, 3),
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    write_json_atomic(tmp / "FINGERPRINT.json", meta)
    if target.exists():
        old = directory / f".parquet-old.tmp-{os.getpid()}"
        os.replace(target, old)
        _remove(old)
    os.replace(tmp, target)
    say(f"sf{sf_text}: generated {sum(rows.values()):,} rows in {gen_seconds:.1f}s "
        f"(fingerprint {meta['fingerprint'][:19]}...)")
    return meta


# ---------------------------------------------------------------------------------------- loading

def db_filename(family: str, indexes: bool) -> str:
    if family == "sqlite":
        return "sqlite-indexes.db" if indexes else "sqlite-noindexes.db"
    if family == "duckdb":
        return "duckdb.db"
    raise UserError(f"no TPC-H loader for engine family {family!r} (known: {', '.join(ENGINE_FAMILIES)})")


def _recipe(family: str, indexes: bool) -> dict:
    recipe = {"build_version": BUILD_VERSION, "engine": family}
    if family == "sqlite":
        recipe["indexes"] = bool(indexes)
        recipe["secondary_indexes"] = SQLITE_INDEXES if indexes else []
        recipe["analyze"] = bool(indexes)
    return recipe


def _db_is_current(db: Path, data_meta: dict, recipe: dict) -> bool:
    side = _read_json(db.with_name(db.name + ".json"))
    return (
        db.exists()
        and side is not None
        and side.get("data_fingerprint") == data_meta["fingerprint"]
        and side.get("recipe") == recipe
    )


def _arrow_batches_as_rows(path: Path, batch_size: int = 100_000):
    """Yield lists of Python tuples ready for SQLite: decimals as float (parsed from their exact
    decimal text, so 24386.67 is the nearest double, not the 24386.670000000002 a direct cast gives),
    dates as ISO text, strings as str."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    for batch in pf.iter_batches(batch_size=batch_size):
        columns = []
        for col in batch.columns:
            ty = col.type
            if pa.types.is_decimal(ty):
                col = col.cast(pa.string()).cast(pa.float64())
            elif pa.types.is_date(ty):
                col = col.cast(pa.string())
            elif pa.types.is_string_view(ty) or pa.types.is_large_string(ty):
                col = col.cast(pa.string())
            columns.append(col.to_pylist())
        yield list(zip(*columns))


def _build_sqlite_noindexes(parquet: Path, out: Path, say) -> None:
    import sqlite3

    con = sqlite3.connect(str(out), isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("PRAGMA cache_size=-262144")  # 256 MiB while loading
        con.execute("BEGIN")
        for table in TABLES:
            t0 = time.perf_counter()
            con.execute(SQLITE_SCHEMA[table])
            names = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
            import pyarrow.parquet as pq

            file_names = pq.ParquetFile(parquet / f"{table}.parquet").schema_arrow.names
            if file_names != names:
                raise RuntimeError(f"{table}: parquet columns {file_names} do not match the schema {names}")
            sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
            n = 0
            for rows in _arrow_batches_as_rows(parquet / f"{table}.parquet"):
                con.executemany(sql, rows)
                n += len(rows)
            say(f"  sqlite {table}: {n:,} rows in {time.perf_counter() - t0:.1f}s")
        con.execute("COMMIT")
    finally:
        con.close()


def _add_sqlite_indexes(out: Path, say) -> None:
    import sqlite3

    con = sqlite3.connect(str(out), isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("PRAGMA cache_size=-262144")
        con.execute("BEGIN")
        for stmt in SQLITE_INDEXES:
            t0 = time.perf_counter()
            con.execute(stmt)
            say(f"  sqlite {stmt.split(' ON ')[0].split()[-1]}: {time.perf_counter() - t0:.1f}s")
        con.execute("COMMIT")
        t0 = time.perf_counter()
        con.execute("ANALYZE")
        say(f"  sqlite ANALYZE: {time.perf_counter() - t0:.1f}s")
    finally:
        con.close()


def _finish_sqlite(path: Path, expected_rows: dict) -> None:
    """Leave the file in the default rollback-journal mode and check every table is complete
    (row counts against the generator's; cheaper than PRAGMA quick_check, ~10 s at SF 1)."""
    import sqlite3

    con = sqlite3.connect(str(path), isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=DELETE")
        for table, n in expected_rows.items():
            got = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            if got != n:
                raise RuntimeError(f"{path.name}: {table} has {got} rows, the generator wrote {n}")
    finally:
        con.close()


def _build_duckdb(parquet: Path, out: Path, say, expected_rows: dict) -> None:
    import duckdb

    con = duckdb.connect(str(out))
    try:
        for table in TABLES:
            t0 = time.perf_counter()
            con.execute(f"CREATE TABLE {table} ({DUCKDB_SCHEMA[table]})")
            src = str(parquet / f"{table}.parquet").replace("'", "''")
            con.execute(f"INSERT INTO {table} SELECT * FROM read_parquet('{src}')")
            n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            if n != expected_rows[table]:
                raise RuntimeError(f"{out.name}: {table} has {n} rows, the generator wrote {expected_rows[table]}")
            say(f"  duckdb {table}: {n:,} rows in {time.perf_counter() - t0:.1f}s")
        con.execute("CHECKPOINT")
    finally:
        con.close()


def load(family: str, sf, indexes: bool = False, *, progress: bool = True, force: bool = False,
         root: Path | None = None) -> dict:
    """Ensure the database for (family, sf, indexes) exists; generate the data first if needed."""
    say = _Progress(progress)
    directory = sf_dir(sf, root)
    if family not in ENGINE_FAMILIES:
        db_filename(family, indexes)  # raises UserError
    if family == "duckdb":
        indexes = False
    with locked(directory):
        data_meta = _generate_locked(sf, directory, say, False)
        return _load_locked(family, sf, bool(indexes), directory, data_meta, say, force)


def _load_locked(family, sf, indexes, directory, data_meta, say, force) -> dict:
    db = directory / db_filename(family, indexes)
    recipe = _recipe(family, indexes)
    sidecar = db.with_name(db.name + ".json")
    if not force and _db_is_current(db, data_meta, recipe):
        say(f"sf{data_meta['sf']}: {db.name} cached")
        return _read_json(sidecar)
    _clean_stale_temps(directory)
    _remove(sidecar)  # the old database (if any) is no longer vouched for
    parquet = directory / "parquet"
    tmp = directory / f".{db.name}.tmp-{os.getpid()}"
    _remove(tmp)
    t0 = time.perf_counter()
    say(f"sf{data_meta['sf']}: building {db.name} ...")
    try:
        if family == "sqlite":
            base = directory / db_filename("sqlite", False)
            base_recipe = _recipe("sqlite", False)
            if indexes and not force and _db_is_current(base, data_meta, base_recipe):
                say(f"  copying {base.name}")
                shutil.copyfile(base, tmp)
            else:
                _build_sqlite_noindexes(parquet, tmp, say)
            if indexes:
                _add_sqlite_indexes(tmp, say)
            _finish_sqlite(tmp, data_meta["rows"])
        else:
            _build_duckdb(parquet, tmp, say, data_meta["rows"])
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, db)
    except BaseException:
        _remove(tmp)
        for extra in directory.glob(f".{db.name}.tmp-{os.getpid()}*"):  # -journal, .wal
            _remove(extra)
        raise
    seconds = time.perf_counter() - t0
    info = {
        "path": str(db),
        "data_fingerprint": data_meta["fingerprint"],
        "sf": data_meta["sf"],
        "recipe": recipe,
        "load_seconds": round(seconds, 3),
        "size_bytes": db.stat().st_size,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "versions": _engine_versions(family),
    }
    write_json_atomic(sidecar, info)
    say(f"sf{data_meta['sf']}: {db.name} built in {seconds:.1f}s ({info['size_bytes'] / 1e6:.0f} MB)")
    return info


def _engine_versions(family: str) -> dict:
    if family == "sqlite":
        import sqlite3

        return {"sqlite": sqlite3.sqlite_version}
    import duckdb

    return {"duckdb": duckdb.__version__}


def fingerprint(sf, root: Path | None = None) -> str | None:
    """The cached data set's fingerprint, or None if it was never generated."""
    meta = _read_json(sf_dir(sf, root) / "parquet" / "FINGERPRINT.json")
    return meta["fingerprint"] if meta else None
