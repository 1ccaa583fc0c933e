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

    def create_scalar(self, name: str, nargs: int, fn: Callable[..., Any]) -> None:
        raise NotApplicable(
            "duckdb: Python scalar UDFs need declared SQL types and numpy/pyarrow; "
            "see the micro workload for the typed variant"
        )


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

        path = database or os.path.join(workdir, "bench.duckdb")
        return DuckdbConnection(self, duckdb.connect(path, read_only=bool(database and config.get("read_only"))))
