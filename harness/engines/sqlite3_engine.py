"""SQLite through the standard library's `sqlite3` module (links the system's libsqlite3)."""
from __future__ import annotations

import os
from urllib.parse import quote
from typing import Any, Callable, Dict, Optional

from harness.engines.base import Connection, Engine


class Sqlite3Connection(Connection):
    def create_scalar(self, name: str, nargs: int, fn: Callable[..., Any], arg_types=(), return_type="") -> None:
        self.raw.create_function(name, nargs, fn, deterministic=True)

    def create_aggregate(self, name: str, nargs: int, factory: Callable[[], Any]) -> None:
        # sqlite3 instantiates the class itself, once per group.
        self.raw.create_aggregate(name, nargs, factory)


class Sqlite3Engine(Engine):
    name = "sqlite/sqlite3"
    driver = "sqlite3"
    dialect = "sqlite"
    runtimes = ("cpython", "pypy")
    storage = "file database in the process's private temp dir (or the prepared data set's file)"

    def _probe(self) -> Dict[str, Any]:
        import sqlite3
        import sys

        return {
            "versions": {
                "driver": "sqlite3 (Python %s stdlib)" % sys.version.split()[0],
                "sqlite": sqlite3.sqlite_version,
            },
            "capabilities": {"scalar_callbacks": True, "aggregate_callbacks": True},
        }

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        import sqlite3

        # isolation_level=None: autocommit; workloads open transactions explicitly with BEGIN.
        # A prepared data set is shared by concurrent processes and runs: opened read-only.
        if database:
            raw = sqlite3.connect("file:%s?mode=ro" % quote(database), uri=True, isolation_level=None)
        else:
            raw = sqlite3.connect(os.path.join(workdir, "bench.db"), isolation_level=None)
        return Sqlite3Connection(self, raw)

    def open_readonly(self, database: str, config: Optional[Dict[str, Any]] = None) -> Any:
        import sqlite3

        return sqlite3.connect("file:%s?mode=ro" % database, uri=True)
