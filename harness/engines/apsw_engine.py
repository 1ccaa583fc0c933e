"""SQLite through apsw, which bundles its own (newer) SQLite, so versions differ from sqlite3's."""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from harness.engines.base import Connection, Engine


class ApswConnection(Connection):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        # apsw runs every statement of a script; consume the cursor so it completes.
        for _ in self.raw.execute(sql, params):
            pass

    def executemany(self, sql, rows) -> None:
        self.raw.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] = ()) -> List[Tuple[Any, ...]]:
        return self.raw.execute(sql, params).fetchall()

    def commit(self) -> None:
        # apsw has no implicit transactions: workloads BEGIN/COMMIT explicitly.
        pass

    def create_scalar(self, name: str, nargs: int, fn: Callable[..., Any], arg_types=(), return_type="") -> None:
        self.raw.create_scalar_function(name, fn, nargs, deterministic=True)

    def create_aggregate(self, name: str, nargs: int, factory: Callable[[], Any]) -> None:
        # apsw wants a factory returning (context, step, final) and calls step(context, *args):
        # the class's own functions with the instance as context need no extra Python layer.
        step, finalize = factory.step, factory.finalize
        self.raw.create_aggregate_function(name, lambda: (factory(), step, finalize), nargs)


class ApswEngine(Engine):
    name = "sqlite/apsw"
    driver = "apsw"
    dialect = "sqlite"
    runtimes = ("cpython", "pypy")
    storage = "file database in the process's private temp dir (or the prepared data set's file)"

    def _probe(self) -> Dict[str, Any]:
        import apsw

        return {
            "versions": {"driver": "apsw " + apsw.apsw_version(), "sqlite": apsw.sqlite_lib_version()},
            "capabilities": {"scalar_callbacks": True, "aggregate_callbacks": True},
        }

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        import apsw

        if database:  # a prepared data set is shared by concurrent processes and runs: read-only
            return ApswConnection(self, apsw.Connection(database, flags=apsw.SQLITE_OPEN_READONLY))
        return ApswConnection(self, apsw.Connection(os.path.join(workdir, "bench.db")))

    def open_readonly(self, database: str, config: Optional[Dict[str, Any]] = None) -> Any:
        import apsw

        return apsw.Connection(database, flags=apsw.SQLITE_OPEN_READONLY)
