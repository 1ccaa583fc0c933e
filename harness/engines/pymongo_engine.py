"""The MongoDB wire protocol through pymongo, served by FerretDB over PostgreSQL.

MongoDB itself has no Debian package; `ferretdb/pymongo` is the seed 002 MongoDB back-end's
stand-in: the same protocol and a MongoDB driver, but FerretDB stores documents as PostgreSQL
`jsonb` rows, so its storage and query costs are PostgreSQL's, not MongoDB's. The engine_config
DSN is a `mongodb://` URL (a throwaway FerretDB's Unix socket, or the user's server with
`--dsn ferretdb=mongodb://...`, which may be a real MongoDB); its path names the database.

It speaks no SQL: every SQL benchmark is not applicable here (only `app.*` has a MongoDB
back-end). pymongo's defaults are kept: acknowledged writes (w=1), no journaling wait.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from harness.engines.base import Connection, NotApplicable
from harness.engines.server_common import CONNECT_TIMEOUT_S, ServerEngine

NO_SQL = "ferretdb/pymongo speaks the MongoDB protocol, not SQL: only the app.* benchmarks have a MongoDB back-end"
DEFAULT_DATABASE = "crossings"


class PymongoConnection(Connection):
    """`raw` is the pymongo Database; the client is kept to close it."""

    def __init__(self, engine: Any, raw: Any, client: Any) -> None:
        super().__init__(engine, raw)
        self.client = client

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        raise NotApplicable(NO_SQL)

    def executemany(self, sql: str, rows: Any) -> None:
        raise NotApplicable(NO_SQL)

    def query(self, sql: str, params: Sequence[Any] = ()) -> Any:
        raise NotApplicable(NO_SQL)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> Any:
        raise NotApplicable(NO_SQL)

    def commit(self) -> None:
        pass

    def close(self) -> None:
        self.client.close()


class PymongoEngine(ServerEngine):
    name = "ferretdb/pymongo"
    driver = "pymongo"
    dialect = "mongodb"
    server_family = "ferretdb"
    runtimes = ("cpython",)
    storage = ("FerretDB (MongoDB wire protocol) storing jsonb rows in a throwaway PostgreSQL started by the "
               "harness, or the user's MongoDB-wire server")

    def timeout_statement(self, seconds: float) -> str:
        return ""

    def _probe_driver(self) -> Dict[str, Any]:
        import pymongo

        return {"versions": {"driver": "pymongo %s" % pymongo.version},
                "capabilities": {"scalar_callbacks": False, "aggregate_callbacks": False, "sql": False,
                                 "c_extensions": bool(pymongo.has_c()), "write_concern": "default (w=1)"}}

    def _connect(self, config: Dict[str, Any], database: Optional[str] = None) -> Connection:
        import pymongo

        client = pymongo.MongoClient(config["dsn"], serverSelectionTimeoutMS=CONNECT_TIMEOUT_S * 1000,
                                     connectTimeoutMS=CONNECT_TIMEOUT_S * 1000)
        try:
            client.admin.command("ping")
            db = client.get_default_database(database or DEFAULT_DATABASE)
        except BaseException:
            client.close()
            raise
        return PymongoConnection(self, db, client)

    def _server_info(self, db: Connection) -> Dict[str, Any]:
        info = db.raw.command("buildInfo")
        out = {"version": "MongoDB wire %s" % info.get("version"),
               "transport": "unix socket" if "%2F" in str(db.client.address or "") else str(db.client.address)}
        for key in ("ferretdbVersion", "ferretdb"):
            if key in info:
                out["ferretdb"] = str(info[key])
        if out.get("ferretdb"):
            out["version"] = "FerretDB %s (MongoDB wire %s)" % (out["ferretdb"], info.get("version"))
        return out
