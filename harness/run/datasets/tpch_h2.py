"""TPC-H data in H2: the cached parquet data as an H2 database file, loaded by the Java program.

Runner side. One file per scale factor and index setting in the scale factor's cache directory,
`data/cache/tpch/sf<SF>/h2-noindexes.mv.db` (primary keys only) or `h2-indexes.mv.db` (+ the
secondary indexes SQLite gets, then ANALYZE), with a sidecar `<file>.json` (data fingerprint,
recipe, H2 version) written after the file is renamed into place, as for SQLite and DuckDB. The
load: DuckDB writes one headerless CSV per table from the parquet files, then H2 (through
`Bench load`, the Java worker's loader mode) runs `CREATE TABLE t (typed columns, PRIMARY KEY) AS
SELECT * FROM CSVREAD(...)` per table (keeping leading blanks: TPC-H comments have them) and counts
the rows, which must match the generator's.
Column types are the server engines' (INTEGER, DECIMAL(15,2), DATE, VARCHAR(n)); H2 compares
VARCHAR by code point, as the spec's answers expect. Workers copy the file into their private
directory (set-up may create a function, an aggregate or Q15's view in it), so the cached file is
only ever read.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from harness.fsutil import locked, write_json_atomic
from harness.run.datasets.tpch import (BUILD_VERSION, SQLITE_INDEXES, TABLES, _generate_locked, _Progress,
                                       _read_json, _remove, sf_dir)
from harness.run.datasets.tpch_servers import PRIMARY_KEYS, SERVER_COLUMNS, _write_csvs

FAMILY = "h2"


def db_stem(indexes: bool) -> str:
    """The H2 database name (H2 adds `.mv.db` to the file)."""
    return "h2-indexes" if indexes else "h2-noindexes"


def recipe(indexes: bool) -> dict:
    return {"build_version": BUILD_VERSION, "engine": FAMILY, "indexes": bool(indexes), "primary_keys": True,
            "secondary_indexes": SQLITE_INDEXES if indexes else [], "analyze": bool(indexes),
            "types": "INTEGER, DECIMAL(15,2), DATE, VARCHAR(n)", "load": "CREATE TABLE ... AS SELECT * FROM CSVREAD(..., preserveWhitespace=true)"}


def ddl(table: str, csv: Path) -> str:
    cols = []
    for name, kind, length in SERVER_COLUMNS[table]:
        ty = {"int": "INTEGER", "dec": "DECIMAL(15,2)", "date": "DATE"}.get(kind, f"VARCHAR({length})")
        cols.append(f"  {name} {ty} NOT NULL")
    cols.append(f"  PRIMARY KEY ({PRIMARY_KEYS[table]})")
    names = ",".join(c[0].upper() for c in SERVER_COLUMNS[table])
    path = str(csv).replace("'", "''")
    return (f"CREATE TABLE {table} (\n" + ",\n".join(cols) + "\n) AS SELECT * FROM CSVREAD('"
            f"{path}', '{names}', 'charset=UTF-8 fieldSeparator=, preserveWhitespace=true')")


def load_h2(sf, indexes: bool, *, progress: bool = True, force: bool = False, root: Path | None = None) -> dict:
    """Ensure the H2 file for (sf, indexes) exists; returns its sidecar (with "path": the name to
    open, without `.mv.db`). Raises the launcher's BuildError when Java or H2 is missing."""
    from harness.run.jvm import launcher

    say = _Progress(progress)
    directory = sf_dir(sf, root)
    stem = db_stem(indexes)
    db_file = directory / f"{stem}.mv.db"
    sidecar = directory / f"{stem}.mv.db.json"
    wanted = recipe(indexes)
    with locked(directory):
        data_meta = _generate_locked(sf, directory, say, False)
        side = _read_json(sidecar)
        if (not force and db_file.exists() and side and side.get("data_fingerprint") == data_meta["fingerprint"]
                and side.get("recipe") == wanted):
            say(f"sf{data_meta['sf']}: {db_file.name} cached")
            return side
        _remove(sidecar)
        tmp = Path(tempfile.mkdtemp(prefix=f".{stem}.tmp-", dir=directory))
        try:
            t0 = time.perf_counter()
            say(f"sf{data_meta['sf']}: building {db_file.name} ...")
            csvs = _write_csvs(directory / "parquet", tmp / "csv")
            statements = [ddl(t, csvs[t]) for t in TABLES]
            if indexes:
                statements += SQLITE_INDEXES + ["ANALYZE"]
            statements += [f"SELECT COUNT(*) FROM {t}" for t in TABLES]
            statements.append("SELECT H2VERSION()")
            values = launcher.run_script(f"jdbc:h2:file:{tmp / stem}", statements, tmp)
            counts = dict(zip(TABLES, (int(v) for v in values[:len(TABLES)])))
            for table, n in counts.items():
                if n != data_meta["rows"][table]:
                    raise RuntimeError(f"{db_file.name}: {table} has {n} rows, the generator wrote {data_meta['rows'][table]}")
            built = tmp / f"{stem}.mv.db"
            with open(built, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(built, db_file)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        seconds = time.perf_counter() - t0
        info = {"path": str(directory / stem), "data_fingerprint": data_meta["fingerprint"], "sf": data_meta["sf"],
                "recipe": wanted, "load_seconds": round(seconds, 3), "size_bytes": db_file.stat().st_size,
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": {"h2": str(values[-1])}}
        write_json_atomic(sidecar, info)
        say(f"sf{data_meta['sf']}: {db_file.name} built in {seconds:.1f}s ({info['size_bytes'] / 1e6:.0f} MB)")
        return info
