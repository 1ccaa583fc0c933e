"""E1, the bindings study (seed 000, "Benchmarking sqlite-simple").

`testdata(id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP)` with N rows exactly as the seed's
db-util made it: id 1..N, `str` cycling "a", "ab", "abc", "abcd", `t` = 2010-10-10 00:00:00.
The timed operation is `SELECT id FROM testdata` consumed by the client, with the checksum
N(N+1)/2 checked afterwards. Two variants, as in the seed: fold over the cursor
(`selectIntsFold`) and materialise all rows first (`selectInts`).
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from harness.workloads.base import Workload, count_rows_and_values

SELECT_IDS = "SELECT id FROM testdata"
STRS = ("a", "ab", "abc", "abcd")
TIMESTAMP = "2010-10-10 00:00:00"

CREATE = {
    "sqlite": "CREATE TABLE testdata (id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP)",
    "duckdb": "CREATE TABLE testdata (id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP)",
    "postgresql": "CREATE TABLE testdata (id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP)",
    "mariadb": "CREATE TABLE testdata (id INTEGER PRIMARY KEY, str TEXT, t TIMESTAMP) ENGINE=InnoDB",
}

#: set-up fills that the engine computes itself from a row generator (same rows as `STRS` and
#: `TIMESTAMP` give): DuckDB's executemany inserts one row per call (about 5 s for 10,000 rows),
#: which made the untimed set-up most of an E1 process's lifetime.
BULK_FILL = {
    "duckdb": ("INSERT INTO testdata SELECT i, ['a', 'ab', 'abc', 'abcd'][((i - 1) % 4) + 1], "
               "TIMESTAMP '2010-10-10 00:00:00' FROM range(1, {n} + 1) AS r(i)"),
    "postgresql": ("INSERT INTO testdata SELECT i, (ARRAY['a', 'ab', 'abc', 'abcd'])[((i - 1) % 4) + 1], "
                   "TIMESTAMP '2010-10-10 00:00:00' FROM generate_series(1, {n}) AS i"),
}


def create_testdata(db: Any, n: int) -> None:
    """Drop and fill `testdata` in one transaction (untimed set-up)."""
    db.execute("DROP TABLE IF EXISTS testdata")
    db.execute(CREATE[db.dialect])
    bulk = BULK_FILL.get(db.dialect)
    db.execute("BEGIN")
    if bulk is not None:  # the engine generates the rows itself: one statement, no row-at-a-time round trips
        db.execute(bulk.format(n=int(n)))
    else:
        rows = [(i, STRS[(i - 1) % 4], TIMESTAMP) for i in range(1, n + 1)]
        sql = "INSERT INTO testdata (id, str, t) VALUES ({0}, {0}, {0})".format(db.placeholder)
        db.executemany(sql, rows)
    db.execute("COMMIT")


class _SelectIds(Workload):
    default_params = {"n": 10000}
    #: the summary derives rows/s from this parameter
    rows_param = "n"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        n = int(params["n"])
        create_testdata(db, n)
        return {"db": db, "n": n, "expected": n * (n + 1) // 2}

    def check(self, state: Any, result: Any) -> Optional[str]:
        if result != state["expected"]:
            return "checksum %r != N(N+1)/2 = %d" % (result, state["expected"])
        return None

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        return count_rows_and_values(state["db"].rows(SELECT_IDS))


class SelectFold(_SelectIds):
    name = "bindings.select_fold"
    description = "E1: SELECT id FROM testdata, folded over the cursor row by row (sum of ids)"

    def operation(self, state: Any) -> Any:
        total = 0
        for row in state["db"].rows(SELECT_IDS):
            total += row[0]
        return total


class SelectAll(_SelectIds):
    name = "bindings.select_all"
    description = "E1: SELECT id FROM testdata, all rows materialised (fetchall), then summed"

    def operation(self, state: Any) -> Any:
        rows = state["db"].query(SELECT_IDS)
        total = 0
        for row in rows:
            total += row[0]
        return total


class PointQuery(Workload):
    """Per-query cost rather than per-row: K point selects by primary key, one row each.

    On an embedded engine this is a function call; on a server each query is a round trip over
    the socket, which is what the paper's paragraph on the socket's cost per query needs.
    """

    name = "bindings.point_query"
    description = "E1: K point selects by primary key on testdata (one row each): cost per query"
    default_params = {"n": 10000, "queries": 1000}
    #: each query fetches one row, so rows/s is also queries/s
    rows_param = "queries"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        n = int(params["n"])
        k = int(params["queries"])
        create_testdata(db, n)
        step = max(1, n // k)
        keys = [(1 + (i * step) % n,) for i in range(k)]
        sql = "SELECT str FROM testdata WHERE id = %s" % db.placeholder
        expected = sum(len(STRS[(key - 1) % 4]) for (key,) in keys)
        return {"db": db, "keys": keys, "sql": sql, "expected": expected}

    def operation(self, state: Any) -> Any:
        query = state["db"].query
        sql = state["sql"]
        total = 0
        for key in state["keys"]:
            total += len(query(sql, key)[0][0])
        return total

    def check(self, state: Any, result: Any) -> Optional[str]:
        if result != state["expected"]:
            return "total length %r != %r" % (result, state["expected"])
        return None

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        k = len(state["keys"])
        # per query: the call with its one parameter, then one row of one value
        return 2 * k, 2 * k


WORKLOADS = [SelectFold(), SelectAll(), PointQuery()]
