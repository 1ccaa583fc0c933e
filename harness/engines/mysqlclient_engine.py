"""MariaDB through mysqlclient (`MySQLdb`: a C extension over libmariadb/libmysqlclient).

Same choices as `mariadb/pymysql` (see harness/engines/pymysql_engine.py): autocommit,
`rows()` streams with `MySQLdb.cursors.SSCursor` (mysql_use_result: each row fetched and
converted as iterated), `query()` uses the default buffered cursor (mysql_store_result, all
rows converted in `execute`) and `fetchall()`, client-side parameter interpolation.
DSN: `mariadb://user:password@host:port/database?unix_socket=/path` (or `mysql://`).
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from harness.engines.base import Connection
from harness.engines.pymysql_engine import CAPABILITIES, MysqlConnection, mysql_server_info
from harness.engines.server_common import CONNECT_TIMEOUT_S, ServerEngine, parse_mysql_dsn


class MysqlclientEngine(ServerEngine):
    name = "mariadb/mysqlclient"
    driver = "mysqlclient"
    dialect = "mariadb"
    server_family = "mariadb"
    runtimes = ("cpython",)

    def timeout_statement(self, seconds: float) -> str:
        """SQL that makes the server cancel a statement running longer than `seconds`."""
        return "SET SESSION max_statement_time = %s" % float(seconds)

    def _probe_driver(self) -> Dict[str, Any]:
        import MySQLdb
        import MySQLdb._mysql

        version = ".".join(str(p) for p in MySQLdb.version_info[:3])
        return {"versions": {"driver": "mysqlclient " + version,
                             "client_library": MySQLdb._mysql.get_client_info()},
                "capabilities": dict(CAPABILITIES, implementation="C extension")}

    def _connect(self, config: Dict[str, Any], database: Optional[str] = None) -> Connection:
        import MySQLdb
        import MySQLdb.cursors

        kw = parse_mysql_dsn(config["dsn"])
        if database:
            kw["database"] = database  # a data set's database (harness.run.datasets.tpch)
        # local_infile: the client may send a file when asked (inserts.bulk's LOAD DATA LOCAL INFILE)
        raw = MySQLdb.connect(autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, charset="utf8mb4", local_infile=1,
                              **kw)
        return MysqlConnection(self, raw, MySQLdb.cursors.SSCursor)

    def _server_info(self, db: Connection) -> Dict[str, Any]:
        info = db.raw.get_host_info()  # "Localhost via UNIX socket" / "127.0.0.1 via TCP/IP"
        sock = parse_mysql_dsn_socket(db)
        where = "unix socket %s" % sock if "socket" in info.lower() and sock else info
        if "tcp" in info.lower():
            where = "tcp " + info.split(" via ")[0]
        return mysql_server_info(db, where)  # type: ignore[arg-type]


def parse_mysql_dsn_socket(db: Any) -> str:
    cur = db.raw.cursor()
    try:
        cur.execute("SELECT @@socket")
        row = cur.fetchone()
    finally:
        cur.close()
    value = row[0] if row else ""
    return value.decode() if isinstance(value, bytes) else (value or "")
