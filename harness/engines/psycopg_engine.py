"""PostgreSQL through psycopg 3 (its C implementation: `psycopg-binary` or `psycopg-c`).

Choices, recorded in the probe's capabilities:
- Autocommit connection: workloads open transactions with explicit BEGIN/COMMIT, as on
  sqlite3 (isolation_level=None); psycopg would otherwise open one implicitly.
- `rows()` iterates a client-side cursor: libpq receives the whole result in one PGresult,
  psycopg turns each row into a tuple only when the iteration reaches it. `query()` is
  `fetchall()` on the same kind of cursor (every row converted at once into a list). A
  server-side (named) cursor would add a round trip per `itersize` rows and needs a
  transaction; it is not what a program folding over a result normally does.
- Parameters are bound server-side (extended protocol); a statement without parameters goes
  through the simple protocol (psycopg gets `None` as params). psycopg prepares a statement
  after `prepare_threshold` (default 5) executions: the driver's default, kept and recorded,
  so the first iterations of a process may differ from later ones (warm-up is kept, never cut).
- Results come back in text format (the driver's default).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from harness.engines.base import Connection, NotApplicable
from harness.engines.server_common import CONNECT_TIMEOUT_S, POSTGRESQL_CALLBACK_REASON, ServerEngine

SETTINGS = ("shared_buffers", "fsync", "synchronous_commit", "full_page_writes", "wal_level", "work_mem",
            "max_connections", "jit", "ssl")


class PsycopgConnection(Connection):
    placeholder = "%s"

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.raw.execute(sql, params or None)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.raw.cursor() as cur:
            cur.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] = ()) -> List[Tuple[Any, ...]]:
        return self.raw.execute(sql, params or None).fetchall()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Tuple[Any, ...]]:
        return self.raw.execute(sql, params or None)

    def commit(self) -> None:
        self.raw.commit()

    def create_scalar(self, name: str, nargs: int, fn: Callable[..., Any], arg_types: Sequence[str] = (),
                      return_type: str = "") -> None:
        raise NotApplicable(POSTGRESQL_CALLBACK_REASON % "pyfunction")

    def create_aggregate(self, name: str, nargs: int, factory: Callable[[], Any]) -> None:
        raise NotApplicable(POSTGRESQL_CALLBACK_REASON % "pyaggregate")


class PsycopgEngine(ServerEngine):
    name = "postgresql/psycopg"
    driver = "psycopg"
    dialect = "postgresql"
    server_family = "postgresql"
    runtimes = ("cpython", "pypy")

    def timeout_statement(self, seconds: float) -> str:
        """SQL that makes the server cancel a statement running longer than `seconds`."""
        return "SET statement_timeout = %d" % int(seconds * 1000)

    def _probe_driver(self) -> Dict[str, Any]:
        import psycopg

        impl = psycopg.pq.__impl__
        return {
            "versions": {"driver": "psycopg %s (%s implementation)" % (psycopg.__version__, impl),
                         "libpq": _libpq_version(psycopg.pq.version())},
            "capabilities": {"scalar_callbacks": False, "aggregate_callbacks": False, "pq_impl": impl,
                             "c_implementation": impl in ("c", "binary"), "autocommit": True,
                             "rows_cursor": "client-side cursor, rows converted as iterated",
                             "query": "client-side cursor fetchall",
                             "parameters": "server-side binding (extended protocol)",
                             "prepare_threshold": 5},
        }

    def _connect(self, config: Dict[str, Any], database: Optional[str] = None) -> Connection:
        import psycopg

        raw = psycopg.connect(config["dsn"], autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        if database:
            # a data set's schema (harness.run.datasets.tpch): its tables are found unqualified
            try:
                if raw.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (database,)).fetchone() is None:
                    raise RuntimeError("schema %s does not exist on the server" % database)
                raw.execute('SET search_path TO "%s"' % database)
            except BaseException:
                raw.close()
                raise
        return PsycopgConnection(self, raw)

    def _server_info(self, db: Connection) -> Dict[str, Any]:
        raw = db.raw
        settings = {}
        for name in SETTINGS:
            settings[name] = raw.execute("SELECT current_setting(%s, true)", (name,)).fetchone()[0]
        version = raw.execute("SHOW server_version").fetchone()[0]
        full = raw.execute("SELECT version()").fetchone()[0]
        host = raw.info.host
        port = raw.info.port
        if host.startswith("/"):
            transport = "unix socket %s/.s.PGSQL.%s" % (host, port)
        else:
            transport = "tcp %s:%s" % (raw.info.hostaddr or host, port)
        return {"version": "PostgreSQL " + version, "version_string": full, "settings": settings,
                "transport": transport, "tls": bool(raw.pgconn.ssl_in_use)}


def _libpq_version(v: int) -> str:
    return "%d.%d" % (v // 10000, v % 100) if v >= 100000 else "%d.%d.%d" % (v // 10000, v // 100 % 100, v % 100)
