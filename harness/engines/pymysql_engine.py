"""MariaDB through PyMySQL (pure Python: the wire protocol and every conversion in Python).

Choices, recorded in the probe's capabilities (the same for `mariadb/mysqlclient`):
- Autocommit connection: workloads open transactions with explicit BEGIN/COMMIT.
- `rows()` streams with the driver's unbuffered `SSCursor`: each row is read from the socket
  and converted when the iteration reaches it, like a fold over a cursor. `query()` uses the
  default buffered `Cursor`, which reads and converts every row inside `execute`, then
  `fetchall()` hands them over. (Iterating a default cursor would only walk a list that
  `execute` already built, so "fold over the cursor" would measure the materialise variant.)
  A streaming cursor left unread is closed (drained) before the connection's next statement.
- Parameters are interpolated into the SQL text by the client (MySQL drivers' `%s` style);
  `executemany` of one INSERT ... VALUES is sent as multi-row INSERTs by the driver itself.
- DSN: `mariadb://user:password@host:port/database?unix_socket=/path` (or `mysql://`).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from harness.engines.base import Connection, NotApplicable
from harness.engines.server_common import (CONNECT_TIMEOUT_S, MARIADB_CALLBACK_REASON, ServerEngine,
                                             parse_mysql_dsn)

SETTINGS = ("innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_doublewrite", "sync_binlog",
            "log_bin", "character_set_server", "max_connections")

CAPABILITIES = {"scalar_callbacks": False, "aggregate_callbacks": False, "autocommit": True,
                "rows_cursor": "SSCursor (unbuffered: rows read and converted as iterated)",
                "query": "default Cursor (buffered: all rows read and converted in execute), fetchall",
                "parameters": "client-side interpolation"}


class MysqlConnection(Connection):
    """Shared by pymysql and mysqlclient: both follow DB-API with the same cursor classes."""

    placeholder = "%s"

    def __init__(self, engine: Any, raw: Any, ss_cursor: Any) -> None:
        super().__init__(engine, raw)
        self._ss_cursor = ss_cursor
        self._streaming = None  # type: Any

    def _finish_stream(self) -> None:
        if self._streaming is not None:
            cur, self._streaming = self._streaming, None
            cur.close()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._finish_stream()
        cur = self.raw.cursor()
        try:
            cur.execute(sql, params or None)
        finally:
            cur.close()

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._finish_stream()
        cur = self.raw.cursor()
        try:
            cur.executemany(sql, list(rows))
        finally:
            cur.close()

    def query(self, sql: str, params: Sequence[Any] = ()) -> List[Tuple[Any, ...]]:
        self._finish_stream()
        cur = self.raw.cursor()
        try:
            cur.execute(sql, params or None)
            return cur.fetchall()
        finally:
            cur.close()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Tuple[Any, ...]]:
        self._finish_stream()
        cur = self.raw.cursor(self._ss_cursor)
        cur.execute(sql, params or None)
        self._streaming = cur
        return cur

    def commit(self) -> None:
        self._finish_stream()
        self.raw.commit()

    def create_scalar(self, name: str, nargs: int, fn: Callable[..., Any], arg_types: Sequence[str] = (),
                      return_type: str = "") -> None:
        raise NotApplicable(MARIADB_CALLBACK_REASON)

    def create_aggregate(self, name: str, nargs: int, factory: Callable[[], Any]) -> None:
        raise NotApplicable(MARIADB_CALLBACK_REASON)

    def close(self) -> None:
        try:
            self._finish_stream()
        finally:
            self.raw.close()


def mysql_server_info(db: MysqlConnection, host_info: str) -> Dict[str, Any]:
    cur = db.raw.cursor()
    try:
        cur.execute("SELECT VERSION(), @@version_comment, " + ", ".join("@@" + s for s in SETTINGS))
        row = cur.fetchone()
        cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
        ssl = cur.fetchone()
    finally:
        cur.close()
    settings = {}
    for name, value in zip(SETTINGS, row[2:]):
        settings[name] = value.decode() if isinstance(value, bytes) else value
    version = row[0].decode() if isinstance(row[0], bytes) else row[0]
    cipher = ssl[1] if ssl else ""
    if isinstance(cipher, bytes):
        cipher = cipher.decode()
    return {"version": "MariaDB " + version.split("-MariaDB")[0] if "MariaDB" in version else "MySQL " + version,
            "version_string": "%s (%s)" % (version, row[1]), "settings": settings, "transport": host_info,
            "tls": bool(cipher)}


class PymysqlEngine(ServerEngine):
    name = "mariadb/pymysql"
    driver = "pymysql"
    dialect = "mariadb"
    server_family = "mariadb"
    runtimes = ("cpython", "pypy")

    def timeout_statement(self, seconds: float) -> str:
        """SQL that makes the server cancel a statement running longer than `seconds`."""
        return "SET SESSION max_statement_time = %s" % float(seconds)

    def _probe_driver(self) -> Dict[str, Any]:
        import pymysql

        return {"versions": {"driver": "pymysql " + pymysql.VERSION_STRING},
                "capabilities": dict(CAPABILITIES, implementation="pure Python")}

    def _connect(self, config: Dict[str, Any], database: Optional[str] = None) -> Connection:
        import pymysql
        import pymysql.cursors

        kw = parse_mysql_dsn(config["dsn"])
        if database:
            kw["database"] = database  # a data set's database (harness.run.datasets.tpch)
        # local_infile: the client may send a file when asked (inserts.bulk's LOAD DATA LOCAL INFILE)
        raw = pymysql.connect(autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, charset="utf8mb4", local_infile=True,
                              **kw)
        return MysqlConnection(self, raw, pymysql.cursors.SSCursor)

    def _server_info(self, db: Connection) -> Dict[str, Any]:
        raw = db.raw
        if raw.unix_socket:
            where = "unix socket %s" % raw.unix_socket
        else:
            where = "tcp %s:%s" % (raw.host, raw.port)
        return mysql_server_info(db, where)  # type: ignore[arg-type]
