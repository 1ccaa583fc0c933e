"""E6, point queries on RamSQL vs SQLite in Go (seed 004, "Benchmarking RamSQL").

These benchmarks are implemented only by the Go program in `harness/run/go/` (`bench.go` says
what each does and why each fixed variant differs from the seed's code); here they are named for
the registry (`list`, plan resolution) and refuse to run in a Python worker. One timed iteration
is `ops` operations (one operation is one of the seed's `b.N` loop bodies), so the clock is read
around milliseconds, not around the sub-microsecond `sql.Open`; the study divides by `ops`.
"""
from __future__ import annotations

from typing import Any, Dict

from harness.engines.base import NotApplicable
from harness.workloads.base import Workload


class _GoOnly(Workload):
    #: the study reports time per operation: iteration time / ops
    ops_param = "ops"
    #: the seed's `go test` name after the engine prefix (RamSQL<name>, SQLite<name>)
    gotest = ""
    faithful = True

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        raise NotApplicable(f"{self.name} is implemented by the Go program only: run it on runtime go "
                            "(engines ramsql/go, sqlite/glebarez, sqlite/go)")

    def operation(self, state: Any) -> Any:
        raise NotApplicable(f"{self.name} runs on runtime go only")


def _make(name: str, gotest: str, ops: int, faithful: bool, description: str) -> _GoOnly:
    w = _GoOnly()
    w.name = name
    w.gotest = gotest
    w.faithful = faithful
    w.default_params = {"ops": ops}
    w.description = description
    return w


WORKLOADS = [
    _make("ramsql.select", "Select", 100, True,
          "E6 seed Select: `id > 20 AND id < 50` on 100 rows (BIGSERIAL ids: SQLite's are NULL, 0 rows)"),
    _make("ramsql.select_10k", "Select10K", 20, True, "E6 seed Select10K: the same query on 10,000 rows"),
    _make("ramsql.insert10", "Insert10", 10, True,
          "E6 seed Insert10: 10 autocommit inserts, random values made in the timed loop, table grows"),
    _make("ramsql.setup", "Setup", 1000, True, "E6 seed Setup: sql.Open + Close (connects to nothing)"),
    _make("ramsql.select_fixed", "SelectFixed", 100, False,
          "E6 fixed Select: explicit ids 1..100, both engines return the 29 rows"),
    _make("ramsql.select_10k_fixed", "Select10KFixed", 20, False,
          "E6 fixed Select10K: explicit ids 1..10,000, both engines return the 29 rows"),
    _make("ramsql.select_key", "SelectKey", 100, False,
          "E6 fixed point query: `WHERE id = $1` on 10,000 rows, every key present (one row each)"),
    _make("ramsql.insert10_fixed", "Insert10Fixed", 10, False,
          "E6 fixed Insert10: values made before the clock, table emptied before each iteration"),
    _make("ramsql.setup_fixed", "SetupFixed", 100, False,
          "E6 fixed Setup: sql.Open + Ping (a real connection) + Close"),
]
