"""DuckDB through its Python package (in-process, columnar, vectorised)."""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple

from harness.engines.base import Connection, Engine, NotApplicable, batched_rows


class DuckdbConnection(Connection):
    def rows(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Tuple[Any, ...]]:
        # DuckDB's result is not iterable row by row; fetchmany batches chained by C iterators
        # are the closest to a cursor fold (fetchone per row would measure call overhead only).
        cursor = self.raw.execute(sql, params)
        return batched_rows(cursor.fetchmany, 2048)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.raw.execute(sql, params or None)

    def query(self, sql: str, params: Sequence[Any] = ()):
        return self.raw.execute(sql, params or None).fetchall()

    def commit(self) -> None:
        pass

    def create_scalar(self, name: str, nargs: int, fn: Callable[..., Any], arg_types: Sequence[str] = (),
                      return_type: str = "") -> None:
        # DuckDB needs SQL types; 'native' calls the Python function once per row, like SQLite.
        if len(arg_types) != nargs or not return_type:
            raise NotApplicable("duckdb: a Python scalar function needs declared argument and return types")
        try:
            self.raw.remove_function(name)
        except Exception:  # noqa: BLE001 - not registered yet
            pass
        self.raw.create_function(name, fn, list(arg_types), return_type, type="native", side_effects=False)

    def create_aggregate(self, name: str, nargs: int, factory: Callable[[], Any]) -> None:
        raise NotApplicable("duckdb has no Python aggregate functions (only scalar UDFs)")


class DuckdbEngine(Engine):
    name = "duckdb"
    driver = "duckdb"
    dialect = "duckdb"
    runtimes = ("cpython",)
    storage = "file database in the process's private temp dir (or the prepared data set's file)"

    def _probe(self) -> Dict[str, Any]:
        import duckdb

        return {
            "versions": {"driver": "duckdb " + duckdb.__version__, "duckdb": duckdb.__version__},
            "capabilities": {"scalar_callbacks": True, "aggregate_callbacks": False},
        }

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        import duckdb

        if database:  # a prepared data set is shared by concurrent processes and runs: read-only
            return DuckdbConnection(self, duckdb.connect(database, read_only=True))
        return DuckdbConnection(self, duckdb.connect(os.path.join(workdir, "bench.duckdb")))

    def open_readonly(self, database: str, config: Optional[Dict[str, Any]] = None) -> Any:
        import duckdb

        return duckdb.connect(database, read_only=True)
