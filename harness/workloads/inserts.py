"""E4, bulk inserts (seed 003, "Fast Bulk Inserts into SQLite" and "Some SQLite 3.7 Benchmarks").

The seed's table: a text id, three doubles, three integers (no key). Row i of N (0-based) is
`("id<i>", i + 0.5, i * 0.25, (i % 1000) * 0.125, i, i % 1000, (i * 7) % 1009)`: predictable
values, as the seed's getID()/getDouble()/getInt(), and every double a multiple of 1/8, so its
text form (`%.3f`, as C's sprintf and Python's `%` write it) is exact and so are the sums.

One iteration inserts the N rows (made untimed in set-up) into an empty table. Before each
iteration, untimed (`reset`): an embedded engine gets a fresh database file (the old one and its
journal/WAL deleted, a new connection opened, `journal_mode`/`synchronous` applied and read back,
the table created); a server gets its table dropped and created. After the clock stops the
engine computes a checksum in SQL (row count, the sums of each integer column, of d1 + d2 + d3 and
of the id lengths), checked against the same sums computed from the rows.

Strategies, as the seed writes them in C and as a Python user would:
- `autocommit`: one INSERT per row, each its own transaction; the statement's text is formatted
  per row with its literal values (the seed's sprintf + sqlite3_exec), so each row is parsed.
- `transaction`: the same statements between BEGIN and COMMIT.
- `prepared`: one parameterised INSERT reused for every row, in one transaction (C: prepare once,
  bind/step/reset; Python: `executemany`). The MySQL drivers have no server-side prepared
  statements: their `executemany` rewrites the INSERT into multi-row INSERTs in the client.
- `multirow`: INSERTs of MULTIROW_BATCH rows each (`VALUES (...), (...), ...`, parameters bound),
  in one transaction.
- `bulk`: the server's fast path. PostgreSQL: COPY FROM STDIN through psycopg's `cursor.copy`
  (`write_row` per row); MariaDB: `LOAD DATA LOCAL INFILE` of a CSV file written by the operation
  (the file write is timed: it is part of that path), not applicable where the server has
  `local_infile=OFF`; DuckDB (its appender is not in the Python API): `COPY ... FROM` a CSV file
  the operation writes, as for MariaDB (binding the columns as Python lists to
  `INSERT ... SELECT UNNEST(?)` was tried: about 60 µs per row, slower than the file). Not
  applicable on SQLite, whose fastest path is `prepared`.

Parameters: `rows` (N); `journal_mode` (delete, truncate, persist, memory, wal, off) and
`synchronous` (off, normal, full) for SQLite's file database, `default` leaving SQLite's own
(not applicable elsewhere when set); `datadir`: the directory the embedded engines' database
files go in (default: the process's private temp directory; the runner records its file system).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

from harness.engines.base import NotApplicable
from harness.workloads.base import Workload

TABLE = "crossings_inserts"
MULTIROW_BATCH = 500
JOURNAL_MODES = ("default", "delete", "truncate", "persist", "memory", "wal", "off")
SYNCHRONOUS = ("default", "off", "normal", "full")
SYNCHRONOUS_CODES = {0: "off", 1: "normal", 2: "full", 3: "extra"}
COLUMNS = "id, d1, d2, d3, i1, i2, i3"
LITERAL = "INSERT INTO " + TABLE + " VALUES ('%s', %.3f, %.3f, %.3f, %d, %d, %d)"

CREATE = {
    "sqlite": "CREATE TABLE %s (id TEXT, d1 REAL, d2 REAL, d3 REAL, i1 INTEGER, i2 INTEGER, i3 INTEGER)",
    "duckdb": "CREATE TABLE %s (id VARCHAR, d1 DOUBLE, d2 DOUBLE, d3 DOUBLE, i1 BIGINT, i2 BIGINT, i3 BIGINT)",
    "postgresql": ("CREATE TABLE %s (id TEXT, d1 DOUBLE PRECISION, d2 DOUBLE PRECISION, d3 DOUBLE PRECISION, "
                   "i1 BIGINT, i2 BIGINT, i3 BIGINT)"),
    "mariadb": ("CREATE TABLE %s (id VARCHAR(16), d1 DOUBLE, d2 DOUBLE, d3 DOUBLE, i1 BIGINT, i2 BIGINT, i3 BIGINT) "
                "ENGINE=InnoDB"),
}
CHECKSUM = "SELECT COUNT(*), SUM(i1), SUM(i2), SUM(i3), SUM(d1 + d2 + d3), SUM(LENGTH(id)) FROM " + TABLE
BEGIN = {"duckdb": "BEGIN TRANSACTION"}

Row = Tuple[str, float, float, float, int, int, int]


def make_rows(n: int) -> List[Row]:
    """The N rows of one iteration (the module docstring says why these values)."""
    return [("id%d" % i, i + 0.5, i * 0.25, (i % 1000) * 0.125, i, i % 1000, (i * 7) % 1009) for i in range(n)]


def expected_checksum(rows: Sequence[Row]) -> Tuple[int, int, int, int, float, int]:
    """What CHECKSUM must return for these rows (all sums exact: see make_rows)."""
    return (len(rows), sum(r[4] for r in rows), sum(r[5] for r in rows), sum(r[6] for r in rows),
            sum(r[1] + r[2] + r[3] for r in rows), sum(len(r[0]) for r in rows))


def check_checksum(got: Sequence[Any], expected: Sequence[Any]) -> Optional[str]:
    """None when the engine's checksum matches; else what differs (the row count first)."""
    if got is None or len(got) != 6:
        return "checksum query returned %r" % (got,)
    vals = [None if v is None else (float(v) if i == 4 else int(v)) for i, v in enumerate(got)]
    if vals[0] != expected[0]:
        return "row count %r != %d" % (vals[0], expected[0])
    names = ("rows", "sum(i1)", "sum(i2)", "sum(i3)", "sum(d1+d2+d3)", "sum(length(id))")
    for i in range(1, 6):
        v, e = vals[i], expected[i]
        if v is None or (abs(v - e) > 1e-12 * max(1.0, abs(e)) if i == 4 else v != e):
            return "%s %r != %r" % (names[i], v, e)
    return None


def multirow_sql(k: int, placeholder: str) -> str:
    one = "(" + ", ".join([placeholder] * 7) + ")"
    return "INSERT INTO %s VALUES %s" % (TABLE, ", ".join([one] * k))


class _Inserts(Workload):
    strategy = ""
    default_params = {"rows": 1000, "journal_mode": "default", "synchronous": "default", "datadir": ""}
    #: the summary derives rows/s (here inserts/s) from this parameter
    rows_param = "rows"
    #: the values `run --param` accepts for these parameters (checked before a run starts)
    param_choices = {"journal_mode": JOURNAL_MODES, "synchronous": SYNCHRONOUS}

    def not_applicable(self, db: Any) -> Optional[str]:
        return None

    # ---------------------------------------------------------------- set-up (untimed)
    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        n = int(params["rows"])
        journal = str(params.get("journal_mode") or "default").lower()
        sync = str(params.get("synchronous") or "default").lower()
        datadir = str(params.get("datadir") or "")
        if journal not in JOURNAL_MODES or sync not in SYNCHRONOUS:
            raise ValueError("journal_mode takes %s; synchronous takes %s" % (", ".join(JOURNAL_MODES),
                                                                          ", ".join(SYNCHRONOUS)))
        embedded = db.engine.server_family is None
        if db.dialect != "sqlite" and (journal != "default" or sync != "default"):
            raise NotApplicable("journal_mode and synchronous are SQLite's settings of its file database; "
                                "%s has neither" % db.engine.name)
        if not embedded and datadir:
            raise NotApplicable("datadir places an embedded engine's database file; %s keeps its data in the "
                                "server's own directory" % db.engine.name)
        self.prepare(db, n)
        rows = make_rows(n)
        state = {"db": db, "n": n, "rows": rows, "expected": expected_checksum(rows), "journal": journal,
                 "sync": sync, "embedded": embedded, "conn": None, "dir": None,
                 "workdir": ctx["workdir"], "placeholder": db.placeholder}
        state["csv"] = os.path.join(ctx["workdir"], "inserts.csv")  # the file-based bulk paths write it
        if embedded:
            state["dir"] = tempfile.mkdtemp(prefix="inserts-", dir=datadir or ctx["workdir"])
        else:
            db.execute("DROP TABLE IF EXISTS " + TABLE)
            self.server_setup(state)
        return state

    def prepare(self, db: Any, n: int) -> None:
        """Strategy-specific checks before any data is made (raise NotApplicable)."""

    def server_setup(self, state: Dict[str, Any]) -> None:
        """Strategy-specific set-up on a server (e.g. MariaDB's local_infile)."""

    def reset(self, state: Dict[str, Any]) -> None:
        """Untimed, before every iteration: an empty table (a fresh file for embedded engines)."""
        db = state["db"]
        if not state["embedded"]:
            db.execute("DROP TABLE IF EXISTS " + TABLE)
            db.execute(CREATE[db.dialect] % TABLE)
            return
        if state["conn"] is not None:
            state["conn"].close()
            state["conn"] = None
        d = state["dir"]
        for name in os.listdir(d):
            os.unlink(os.path.join(d, name))
        conn = db.engine.connect({}, d)
        state["conn"] = conn
        if db.dialect == "sqlite":
            apply_pragmas(conn, state["journal"], state["sync"])
        conn.execute(CREATE[db.dialect] % TABLE)

    def conn(self, state: Dict[str, Any]) -> Any:
        return state["conn"] if state["embedded"] else state["db"]

    # ---------------------------------------------------------------- checks (untimed)
    def check(self, state: Any, result: Any) -> Optional[str]:
        got = self.conn(state).query(CHECKSUM)
        return check_checksum(got[0] if got else None, state["expected"])

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        """Statements the engine executes per operation (each row of an executemany is one; BEGIN
        and COMMIT count; a bulk load is one), and the values handed over (7 per row)."""
        return self.calls(state["n"]), 7 * state["n"]

    def calls(self, n: int) -> int:
        return n

    def teardown(self, state: Any) -> None:
        if state["conn"] is not None:
            state["conn"].close()
            state["conn"] = None
        if state["dir"]:
            shutil.rmtree(state["dir"], ignore_errors=True)
        if not state["embedded"]:
            state["db"].execute("DROP TABLE IF EXISTS " + TABLE)


def apply_pragmas(conn: Any, journal: str, sync: str) -> None:
    """Set journal_mode and synchronous on a fresh SQLite connection and read them back."""
    if journal != "default":
        got = str(conn.query("PRAGMA journal_mode=%s" % journal)[0][0]).lower()
        if got != journal:
            raise RuntimeError("PRAGMA journal_mode=%s left journal_mode %s" % (journal, got))
    if sync != "default":
        conn.execute("PRAGMA synchronous=%s" % sync)
        got = SYNCHRONOUS_CODES.get(int(conn.query("PRAGMA synchronous")[0][0]))
        if got != sync:
            raise RuntimeError("PRAGMA synchronous=%s left synchronous %s" % (sync, got))


def _executor(conn: Any) -> Any:
    """The driver's own execute for the timed loops (no wrapper layer per row)."""
    raw = conn.raw
    if conn.dialect == "mariadb":
        return raw.cursor().execute
    return raw.execute


def _begin(conn: Any) -> str:
    return BEGIN.get(conn.dialect, "BEGIN")


class Autocommit(_Inserts):
    name = "inserts.autocommit"
    strategy = "autocommit"
    description = "E4: one INSERT per row, autocommit, statement text formatted per row (seed 003's naive inserts)"

    def operation(self, state: Any) -> Any:
        ex = _executor(self.conn(state))
        fmt = LITERAL
        for r in state["rows"]:
            ex(fmt % r)
        return None


class Transaction(_Inserts):
    name = "inserts.transaction"
    strategy = "transaction"
    description = "E4: one INSERT per row, formatted per row, all in one transaction (BEGIN ... COMMIT)"

    def operation(self, state: Any) -> Any:
        conn = self.conn(state)
        ex = _executor(conn)
        fmt = LITERAL
        ex(_begin(conn))
        for r in state["rows"]:
            ex(fmt % r)
        ex("COMMIT")
        return None

    def calls(self, n: int) -> int:
        return n + 2


class Prepared(_Inserts):
    name = "inserts.prepared"
    strategy = "prepared"
    description = ("E4: one parameterised INSERT reused for all rows in one transaction (executemany; "
                   "C: prepare once, bind/step/reset)")

    def operation(self, state: Any) -> Any:
        conn = self.conn(state)
        ex = _executor(conn)
        ex(_begin(conn))
        sql = "INSERT INTO %s VALUES (%s)" % (TABLE, ", ".join([state["placeholder"]] * 7))
        if conn.dialect == "mariadb" or conn.dialect == "postgresql":
            with conn.raw.cursor() as cur:
                cur.executemany(sql, state["rows"])
        else:
            conn.raw.executemany(sql, state["rows"])
        ex("COMMIT")
        return None

    def calls(self, n: int) -> int:
        return n + 2


class Multirow(_Inserts):
    name = "inserts.multirow"
    strategy = "multirow"
    description = "E4: multi-row INSERT ... VALUES (...), (...) of %d rows each, parameters bound, one transaction" % (
        MULTIROW_BATCH)

    def operation(self, state: Any) -> Any:
        conn = self.conn(state)
        ex = _executor(conn)
        rows = state["rows"]
        n = len(rows)
        b = MULTIROW_BATCH
        full = multirow_sql(b, state["placeholder"])
        ex(_begin(conn))
        for start in range(0, n, b):
            chunk = rows[start:start + b]
            flat = [v for r in chunk for v in r]
            ex(full if len(chunk) == b else multirow_sql(len(chunk), state["placeholder"]), flat)
        ex("COMMIT")
        return None

    def calls(self, n: int) -> int:
        return 2 + (n + MULTIROW_BATCH - 1) // MULTIROW_BATCH


class Bulk(_Inserts):
    name = "inserts.bulk"
    strategy = "bulk"
    description = ("E4: the engine's bulk path: PostgreSQL COPY FROM STDIN (psycopg cursor.copy), MariaDB LOAD DATA "
                   "LOCAL INFILE and DuckDB COPY FROM of a CSV file the operation writes")

    def not_applicable(self, db: Any) -> Optional[str]:
        if db.dialect == "sqlite":
            return ("SQLite has no bulk-load path in its API: its fastest is a prepared INSERT in one transaction "
                    "(inserts.prepared)")
        return None

    def server_setup(self, state: Dict[str, Any]) -> None:
        db = state["db"]
        if db.dialect == "mariadb":
            on = db.query("SELECT @@local_infile")[0][0]
            if not int(on):
                raise NotApplicable("the MariaDB server has local_infile=OFF, so LOAD DATA LOCAL INFILE is refused "
                                    "(inserts.multirow is the other fast path)")

    def operation(self, state: Any) -> Any:
        conn = self.conn(state)
        rows = state["rows"]
        if conn.dialect == "postgresql":
            with conn.raw.cursor() as cur, cur.copy("COPY %s (%s) FROM STDIN" % (TABLE, COLUMNS)) as copy:
                write = copy.write_row
                for r in rows:
                    write(r)
        elif conn.dialect == "mariadb":
            fmt = "%s,%.3f,%.3f,%.3f,%d,%d,%d\n"
            with open(state["csv"], "w") as f:
                f.write("".join([fmt % r for r in rows]))
            path = state["csv"].replace("\\", "\\\\").replace("'", "\\'")
            cur = conn.raw.cursor()
            try:
                cur.execute("LOAD DATA LOCAL INFILE '%s' INTO TABLE %s FIELDS TERMINATED BY ',' "
                            "LINES TERMINATED BY '\\n' (%s)" % (path, TABLE, COLUMNS))
            finally:
                cur.close()
        else:  # duckdb: COPY from a CSV file written here (its appender is not in the Python API)
            fmt = "%s,%.3f,%.3f,%.3f,%d,%d,%d\n"
            with open(state["csv"], "w") as f:
                f.write("".join([fmt % r for r in rows]))
            conn.raw.execute("COPY %s FROM '%s' (FORMAT csv, HEADER false)" % (TABLE, state["csv"].replace("'", "''")))
        return None

    def calls(self, n: int) -> int:
        return 1


WORKLOADS = [Autocommit(), Transaction(), Prepared(), Multirow(), Bulk()]
