"""Engine adapters, worker side: how to reach one database engine through one driver.

Python 3.9 compatible, standard library only; the driver is imported inside methods, so that a
missing driver makes the engine unavailable with a reason instead of breaking every import.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple


class NotApplicable(Exception):
    """The engine lacks a capability the benchmark needs (e.g. Python aggregates in DuckDB)."""


class Connection:
    """A thin wrapper over a driver connection.

    Workloads call these helpers so that one benchmark body serves every engine. Each helper
    hands back the driver's own objects (its cursor, its list of rows), so a timed loop over
    `rows()` runs the driver's native iteration with no extra Python layer per row.
    """

    placeholder = "?"

    def __init__(self, engine: "Engine", raw: Any) -> None:
        self.engine = engine
        self.raw = raw

    @property
    def dialect(self) -> str:
        return self.engine.dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.raw.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.raw.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] = ()) -> List[Tuple[Any, ...]]:
        """All result rows, materialised by the driver (fetchall)."""
        return self.raw.execute(sql, params).fetchall()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Tuple[Any, ...]]:
        """The driver's own row iterator: rows are fetched as the caller consumes them."""
        return self.raw.execute(sql, params)

    def commit(self) -> None:
        self.raw.commit()

    def create_scalar(self, name: str, nargs: int, fn: Callable[..., Any], arg_types: Sequence[str] = (),
                      return_type: str = "") -> None:
        """Register a Python scalar function; engines that need SQL types use `arg_types`/`return_type`."""
        raise NotApplicable(f"{self.engine.name} cannot call Python scalar functions")

    def create_aggregate(self, name: str, nargs: int, factory: Callable[[], Any]) -> None:
        """`factory` is a class with `step(self, *args)` and `finalize(self)` (sqlite3's protocol)."""
        raise NotApplicable(f"{self.engine.name} cannot call Python aggregate functions")

    def close(self) -> None:
        self.raw.close()


def batched_rows(fetchmany: Callable[[int], List[Any]], size: int = 1024) -> Iterable[Any]:
    """Rows from a driver that has no row iterator, pulled in batches by C-level iterators."""
    return itertools.chain.from_iterable(iter(lambda: fetchmany(size), []))


class Engine:
    """Describes one engine+driver. Subclasses set the class attributes and implement
    `_probe` (versions, capabilities; raises ImportError when the driver is missing) and
    `connect`."""

    name = ""
    driver = ""
    dialect = ""
    #: runtime families this adapter's worker can run on
    runtimes: Tuple[str, ...] = ("cpython",)
    #: what a user must know about where the data lives (recorded in the manifest)
    storage = ""
    #: the server family this engine needs started (or named by a DSN); None: embedded
    server_family: Optional[str] = None
    #: processes are native programs (runtime `c`), not `harness.worker`
    native = False
    #: benchmark globs of the workloads this adapter was made for (e.g. `ramsql.*` for the Go
    #: program's engines), run when a request names no benchmarks; empty: the profile's
    benchmarks: Tuple[str, ...] = ()

    @property
    def family(self) -> str:
        """The database engine, whatever the driver: `sqlite` for `sqlite/apsw`."""
        return self.name.split("/", 1)[0]

    @property
    def embedded(self) -> bool:
        return self.server_family is None

    def probe(self) -> Dict[str, Any]:
        """Availability, versions and capabilities, as the manifest and `list` show them."""
        try:
            info = self._probe()
        except ImportError as exc:
            return {"available": False, "reason": f"driver not importable: {exc}"}
        except Exception as exc:  # noqa: BLE001 - any failure means "not available, here is why"
            return {"available": False, "reason": f"{type(exc).__name__}: {exc}"}
        info.setdefault("available", True)
        info.setdefault("reason", "")
        info["driver"] = self.driver
        info["dialect"] = self.dialect
        info["storage"] = self.storage
        return info

    def _probe(self) -> Dict[str, Any]:
        raise NotImplementedError

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        """Open a connection. `database` is a prepared database file (e.g. TPC-H); without it,
        a fresh database private to this process is made in `workdir`."""
        raise NotImplementedError

    def open_readonly(self, database: str, config: Optional[Dict[str, Any]] = None) -> Any:
        """The driver's own connection to a prepared database, opened read-only where the engine
        can (validation and shared data sets use it, so concurrent readers never lock)."""
        return self.connect(config or {}, "", database).raw
