"""Registry of engine adapters (worker side: standard library only)."""
from __future__ import annotations

import fnmatch
from typing import Dict, List

from harness.engines.apsw_engine import ApswEngine
from harness.engines.base import Connection, Engine, NotApplicable
from harness.engines.duckdb_engine import DuckdbEngine
from harness.engines.go_engines import RamsqlGoEngine, SqliteGlebarezEngine, SqliteGoEngine
from harness.engines.h2_engine import H2JdbcEngine
from harness.engines.haskell_engines import HASKELL_ENGINES
from harness.engines.mysqlclient_engine import MysqlclientEngine
from harness.engines.psycopg_engine import PsycopgEngine
from harness.engines.pymongo_engine import PymongoEngine
from harness.engines.pymysql_engine import PymysqlEngine
from harness.engines.native_c_engine import NativeCEngine
from harness.engines.sqlite3_engine import Sqlite3Engine

ENGINES: Dict[str, Engine] = {}


def register(engine: Engine) -> None:
    ENGINES[engine.name] = engine


for _engine in (Sqlite3Engine(), ApswEngine(), DuckdbEngine(), NativeCEngine(), PsycopgEngine(), PymysqlEngine(),
                MysqlclientEngine(), RamsqlGoEngine(), SqliteGlebarezEngine(), SqliteGoEngine(), PymongoEngine(),
                H2JdbcEngine(),
                *HASKELL_ENGINES):
    register(_engine)

#: engines that run in-process with nothing to start (the README's `make run` uses these)
EMBEDDED = tuple(n for n, e in ENGINES.items() if e.embedded and not e.native)



def get(name: str) -> Engine:
    try:
        return ENGINES[name]
    except KeyError:
        raise KeyError(f"unknown engine {name!r}; engines: {', '.join(sorted(ENGINES))}") from None


def match(patterns: List[str]) -> List[str]:
    """Engine names matching any of the glob patterns, in registry order."""
    return [n for n in ENGINES if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


__all__ = ["Connection", "Engine", "NotApplicable", "ENGINES", "EMBEDDED", "get", "match", "register"]
