"""What the server engines (PostgreSQL, MariaDB) share, worker side.

Python 3.9 compatible, standard library only. A server engine is reached through the
`engine_config` the runner hands it (in the worker spec, or for a probe in a 0600 JSON file):

    {"family": "postgresql", "dsn": "postgresql://user:PASSWORD@/db?host=/tmp/dir&port=5432",
     "source": "throwaway" | "user", "settings": "throwaway-default" | null,
     "server": {...what the runner knows about the server, no secrets...},
     "unavailable": "reason"  (only when no server can be reached: the probe says so, cells skip)}

The DSN is the only secret; it never leaves the worker unredacted: every message a connection
failure produces is scrubbed of the password (and of any DSN-like text) before it is reported.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional
from urllib.parse import parse_qs, unquote, urlsplit

from harness.engines.base import Connection, Engine
from harness.redaction import dsn_password, dsn_secrets, scrub

CONNECT_TIMEOUT_S = 10


def config_secrets(config: Dict[str, Any]) -> List[str]:
    """Every spelling of the config's DSN password (as typed, decoded, encoded) for `scrub`."""
    dsn = str(config.get("dsn") or "")
    pw = dsn_password(dsn)
    return dsn_secrets(dsn) + ([pw] if pw else [])


def describe_target(config: Dict[str, Any]) -> str:
    """Where a config points, for messages: redacted DSN and where it came from."""
    source = config.get("source") or "dsn"
    dsn = scrub(str(config.get("dsn") or ""), config_secrets(config))
    return "%s server %s" % (source, dsn)


def parse_mysql_dsn(dsn: str) -> Dict[str, Any]:
    """`mysql://user:password@host:port/database?unix_socket=/path` (or `mariadb://`) as
    connect() keyword arguments common to pymysql and mysqlclient."""
    parts = urlsplit(dsn)
    if parts.scheme not in ("mysql", "mariadb"):
        raise ValueError("a MariaDB DSN looks like mariadb://user:password@host:port/database"
                         "?unix_socket=/path (scheme mysql:// or mariadb://)")
    q = {k: v[0] for k, v in parse_qs(parts.query).items()}
    kw = {"host": parts.hostname or "localhost", "user": unquote(parts.username or ""),
          "password": unquote(parts.password or q.get("password", "")),
          "database": unquote(parts.path.lstrip("/")) or q.get("database", "")}  # type: Dict[str, Any]
    kw = {k: v for k, v in kw.items() if v or k == "password"}
    if parts.port:
        kw["port"] = parts.port
    sock = q.get("unix_socket") or q.get("socket")
    if sock:
        kw["unix_socket"] = sock
    return kw


#: why the client-side callback benchmarks (micro.pyfunction, micro.pyaggregate) do not apply to servers
POSTGRESQL_CALLBACK_REASON = ("PostgreSQL runs queries in a server process, which cannot call back into the "
                              "client's Python (micro.%s_server runs Python inside the server with PL/Python)")
MARIADB_CALLBACK_REASON = ("MariaDB runs queries in a server process, which cannot call back into the client's "
                           "Python (and MariaDB has no Python inside the server either)")


class ServerConnectError(ConnectionError):
    """A connection failed; the message names the driver's error, without the password."""


class ServerEngine(Engine):
    """An engine whose database runs in a server process reached by DSN.

    Subclasses implement `_probe_driver()` (versions and capabilities, no connection),
    `_connect(config, database)` (the driver connection wrapped in a Connection; `database` is a
    prepared data set's PostgreSQL schema / MariaDB database, e.g. `tpch_sf0_01`, or None for the
    DSN's own) and `_server_info(db)` (server version, settings, transport, over a live connection).
    """

    storage = "server database (throwaway instance started by the harness, or the user's DSN)"

    def probe(self, config: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:  # type: ignore[override]
        config = config or {}
        secrets = config_secrets(config)
        if config.get("unavailable"):
            return {"available": False, "reason": scrub(str(config["unavailable"]), secrets)}
        try:
            info = self._probe_driver()
        except ImportError as exc:
            return {"available": False, "reason": "driver not importable: %s" % exc}
        except Exception as exc:  # noqa: BLE001
            return {"available": False, "reason": scrub("%s: %s" % (type(exc).__name__, exc), secrets)}
        info.setdefault("available", True)
        info.setdefault("reason", "")
        info["driver"] = self.driver
        info["dialect"] = self.dialect
        info["storage"] = self.storage
        info["source"] = config.get("source")
        info["settings"] = config.get("settings")
        server = dict(config.get("server") or {})
        if not config.get("dsn"):
            # `list` without a server: the driver is there; whether a server can be had is the
            # runner's business (it adds the throwaway server's availability to the note).
            info["server"] = server
            info["versions"]["server"] = config.get("note") or "no server connected"
            return info
        try:
            db = self.connect(config, "", None)
            try:
                server.update(self._server_info(db))
            finally:
                db.close()
        except Exception as exc:  # noqa: BLE001 - unreachable server, wrong password, bad DSN
            msg = str(exc) if isinstance(exc, ServerConnectError) else "%s: %s" % (type(exc).__name__, exc)
            return {"available": False,
                    "reason": "%s: cannot connect to %s: %s" % (
                        self.server_family, describe_target(config), " ".join(scrub(msg, secrets).split()))}
        info["server"] = server
        info["versions"]["server"] = server.get("version")
        return info

    def _probe_driver(self) -> Dict[str, Any]:
        raise NotImplementedError

    def _connect(self, config: Dict[str, Any], database: Optional[str] = None) -> Connection:
        raise NotImplementedError

    def _server_info(self, db: Connection) -> Dict[str, Any]:
        raise NotImplementedError

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        """`database`: the schema (PostgreSQL, set as search_path) or database (MariaDB) a data set
        was loaded into by the runner (`harness.run.datasets.tpch`); None: the DSN's database."""
        if database is not None and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", database):
            raise ValueError("not a schema/database name: %r" % (database,))
        if config.get("unavailable"):
            raise RuntimeError(scrub(str(config["unavailable"]), config_secrets(config)))
        if not config.get("dsn"):
            raise RuntimeError("%s: no server configured (the runner passes a DSN in engine_config)"
                               % self.server_family)
        try:
            return self._connect(config, database)
        except Exception as exc:  # noqa: BLE001 - re-raised without the password in its message
            msg = scrub("%s: %s" % (type(exc).__name__, exc), config_secrets(config))
        raise ServerConnectError(" ".join(msg.split()))
