"""E2, the boundary micro-benchmarks (seed 001, the SQPyte paper, Figures 15-17).

Each one is built to pass large quantities of data across the language/database boundary. They
run on TPC-H data at a chosen scale factor (`sf`), except `filltable`, which makes its own table.
What each does, and how it matches the paper's description and its Figure 15 counts at SF 1
(lineitem 6,001,215 rows, partsupp 800,000, part 200,000):

- `select`: three lineitem columns consumed by a Python loop (the paper's running example,
  Figure 3: a Python-side filter and sum). One row fetched per lineitem row, three values each:
  the paper counts 6,001,217 crossings and 18,003,645 values; ours count one crossing per row
  plus one for the query (6,001,216) and the same 18,003,645 values.
- `innerjoin`: the engine joins part and partsupp; the 800,000 result rows of two values are
  consumed in Python (paper: 800,002 crossings, 1,600,000 values).
- `pythonjoin`: the same join done in Python: the outer relation (partsupp) is fetched, then one
  parameterised point query on part per outer row. The paper's counts (4,000,002 crossings,
  4,800,000 values) come from its own per-step accounting of SQPyte's API; ours count each
  query, each fetched row, each parameter and each value, so they are lower (see `counts`).
- `pyfunction`: the engine calls a Python scalar function once per lineitem row
  (`l_extendedprice * py_net(l_discount)`) and Python consumes the result rows: two crossings and
  three values per row, as in the paper (12,002,434 crossings, 18,003,645 values).
- `pyaggregate`: a Python aggregate over lineitem (`py_revenue(l_extendedprice, l_discount)`):
  one step call with two values per row, then one final call (paper: 6,001,218 and 12,002,431).
- `filltable`: create a two-column table, fill it with 100,000 rows through a prepared insert
  (executemany) in one transaction, read it back (paper: 200,004 crossings, 400,000 values).

- `pyfunction_server`, `pyaggregate_server`: the same two computations with the Python running
  *inside the database server* (PostgreSQL's PL/Python, `plpython3u`), where a server engine
  cannot call back into the client: `pg_temp.py_net(...)` resp. the aggregate
  `pg_temp.py_revenue(...)`, created per session in set-up (session-temporary: nothing is left in
  the database; `CREATE EXTENSION plpython3u` needs a superuser, which the throwaway server's user
  is; on a user's server without it, or without PL/Python installed, the cell is not applicable
  with the server's reason). What they measure: the SQL->Python crossings happen inside the
  server process (PL/Python converts each argument from a SQL datum to a Python object and the
  result back), not over the client socket; the client still crosses the socket once per result
  row. Their counts add both kinds: the query, each row fetched by the client, each PL/Python call
  (counted by instrumented replay: a counting version of the function increments a counter in
  PL/Python's session dictionary `GD`, read back afterwards). The aggregate's state is a SQL value
  in PostgreSQL, so each step converts three values in (state, price, discount) and one out,
  where the client-side `pyaggregate` passes two; the final function converts one in and one out.
  Not applicable on MariaDB (no Python inside the server) nor on the embedded engines (their
  callbacks run in the client's own process: that is `pyfunction`/`pyaggregate`). The client-side
  `pyfunction`/`pyaggregate` are not applicable on PostgreSQL and MariaDB (a server cannot call
  the client's Python).

Decimal columns are read as doubles on every engine (SQLite stores them as REAL; DuckDB,
PostgreSQL and MariaDB get an explicit cast), so each engine converts the same kind of value.
Every result is checked against the same quantity computed by the engine in SQL, untimed.
Crossings are counted by instrumented replays outside the timed region: callbacks are counted
by registering counting wrappers and running the operation once more.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from harness.workloads.base import Workload, count_rows_and_values

REL_TOL = 1e-9

_DOUBLE = {"sqlite": "{0}", "duckdb": "CAST({0} AS DOUBLE)", "postgresql": "CAST({0} AS DOUBLE PRECISION)",
           "mariadb": "CAST({0} AS DOUBLE)"}


def num(db: Any, column: str) -> str:
    """A decimal column read as a double in this engine's dialect."""
    return _DOUBLE[db.dialect].format(column)


def expected_revenue(db: Any) -> Tuple[int, float]:
    """(lineitem rows, sum of price * (1 - discount)) computed by the engine: the untimed check."""
    e = db.query("SELECT COUNT(*), SUM(%s * (1 - %s)) FROM lineitem"
                 % (num(db, "l_extendedprice"), num(db, "l_discount")))[0]
    return int(e[0]), float(e[1])


def expected_margin(db: Any) -> Tuple[int, float]:
    """(part x partsupp join rows, sum of retail price - supply cost) computed by the engine."""
    e = db.query("SELECT COUNT(*), SUM(%s - %s) FROM part JOIN partsupp ON p_partkey = ps_partkey"
                 % (num(db, "p_retailprice"), num(db, "ps_supplycost")))[0]
    return int(e[0]), float(e[1])


def close_enough(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(1.0, abs(a), abs(b))


def _check_pair(result: Any, expected: Tuple[int, float]) -> Optional[str]:
    count, total = result
    if count != expected[0] or not close_enough(total, expected[1]):
        return "got (rows %r, sum %r), expected (%r, %r)" % (count, total, expected[0], expected[1])
    return None


class _TpchMicro(Workload):
    dataset = "tpch"
    default_params = {"sf": 0.01, "indexes": "off"}

    def check(self, state: Any, result: Any) -> Optional[str]:
        return _check_pair(result, state["expected"])


class Select(_TpchMicro):
    name = "micro.select"
    description = "E2: three lineitem columns consumed by a Python loop (filter and sum in Python)"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        sql = "SELECT %s, %s, %s FROM lineitem" % (num(db, "l_quantity"), num(db, "l_extendedprice"),
                                                   num(db, "l_discount"))
        expected = db.query("SELECT COUNT(*), SUM(CASE WHEN %s < 24 THEN %s * (1 - %s) ELSE 0 END) FROM lineitem"
                            % (num(db, "l_quantity"), num(db, "l_extendedprice"), num(db, "l_discount")))[0]
        return {"db": db, "sql": sql, "expected": (int(expected[0]), float(expected[1]))}

    def operation(self, state: Any) -> Any:
        count = 0
        revenue = 0.0
        for quantity, price, discount in state["db"].rows(state["sql"]):
            count += 1
            if quantity < 24:
                revenue += price * (1 - discount)
        return count, revenue

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        rows, values = count_rows_and_values(state["db"].rows(state["sql"]))
        return rows + 1, values


class InnerJoin(_TpchMicro):
    name = "micro.innerjoin"
    description = "E2: part JOIN partsupp done by the engine, result rows consumed in Python"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        sql = ("SELECT %s, %s FROM part JOIN partsupp ON p_partkey = ps_partkey"
               % (num(db, "p_retailprice"), num(db, "ps_supplycost")))
        e = expected_margin(db)
        return {"db": db, "sql": sql, "expected": e}

    def operation(self, state: Any) -> Any:
        count = 0
        margin = 0.0
        for retail, cost in state["db"].rows(state["sql"]):
            count += 1
            margin += retail - cost
        return count, margin

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        rows, values = count_rows_and_values(state["db"].rows(state["sql"]))
        return rows + 1, values


class PythonJoin(_TpchMicro):
    name = "micro.pythonjoin"
    description = "E2: the same join done in Python: one parameterised point query on part per partsupp row"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        outer = "SELECT ps_partkey, %s FROM partsupp" % num(db, "ps_supplycost")
        inner = "SELECT %s FROM part WHERE p_partkey = %s" % (num(db, "p_retailprice"), db.placeholder)
        e = expected_margin(db)
        return {"db": db, "outer": outer, "inner": inner, "expected": e}

    def operation(self, state: Any) -> Any:
        query = state["db"].query
        inner = state["inner"]
        count = 0
        margin = 0.0
        # The outer result is fetched in full first: DuckDB (and MySQL drivers) cannot run a second
        # query on a connection while the first one's rows are still being read.
        for partkey, cost in query(state["outer"]):
            for (retail,) in query(inner, (partkey,)):
                count += 1
                margin += retail - cost
        return count, margin

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        db = state["db"]
        outer = db.query(state["outer"])
        crossings = 1 + len(outer)
        values = 2 * len(outer)
        for partkey, _ in outer:
            rows = db.query(state["inner"], (partkey,))
            crossings += 1 + len(rows)  # the query with its parameter, then each row
            values += 1 + sum(len(r) for r in rows)
        return crossings, values


def py_net(discount: float) -> float:
    return 1.0 - discount


class PyFunction(_TpchMicro):
    name = "micro.pyfunction"
    description = "E2: the engine calls a Python scalar function per lineitem row; Python sums the results"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        db.create_scalar("py_net", 1, py_net, ["DOUBLE"], "DOUBLE")
        sql = "SELECT %s * py_net(%s) FROM lineitem" % (num(db, "l_extendedprice"), num(db, "l_discount"))
        return {"db": db, "sql": sql, "expected": expected_revenue(db)}

    def operation(self, state: Any) -> Any:
        count = 0
        total = 0.0
        for (value,) in state["db"].rows(state["sql"]):
            count += 1
            total += value
        return count, total

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        db = state["db"]
        calls = [0]

        def counting(discount: float) -> float:
            calls[0] += 1
            return 1.0 - discount

        db.create_scalar("py_net", 1, counting, ["DOUBLE"], "DOUBLE")
        try:
            rows, values = count_rows_and_values(db.rows(state["sql"]))
        finally:
            db.create_scalar("py_net", 1, py_net, ["DOUBLE"], "DOUBLE")
        # per call: one argument in, one result out; per row: its values; plus the query itself
        return 1 + rows + calls[0], values + 2 * calls[0]


class Revenue:
    """The Python aggregate: sum of price * (1 - discount) (protocol: `step(*args)`, `finalize()`)."""

    __slots__ = ("total",)

    def __init__(self) -> None:
        self.total = 0.0

    def step(self, price: float, discount: float) -> None:
        self.total += price * (1 - discount)

    def finalize(self) -> float:
        return self.total


class PyAggregate(_TpchMicro):
    name = "micro.pyaggregate"
    description = "E2: a Python aggregate (step per lineitem row, then final) computing revenue"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        db.create_aggregate("py_revenue", 2, Revenue)  # raises NotApplicable where the engine cannot
        sql = "SELECT py_revenue(%s, %s) FROM lineitem" % (num(db, "l_extendedprice"), num(db, "l_discount"))
        return {"db": db, "sql": sql, "expected": expected_revenue(db)}

    def operation(self, state: Any) -> Any:
        return state["db"].query(state["sql"])[0][0]

    def check(self, state: Any, result: Any) -> Optional[str]:
        if not close_enough(result, state["expected"][1]):
            return "revenue %r, expected %r" % (result, state["expected"][1])
        return None

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        db = state["db"]
        steps = [0]

        class Counting(Revenue):
            __slots__ = ()

            def step(self, price: float, discount: float) -> None:
                steps[0] += 1
                Revenue.step(self, price, discount)

        db.create_aggregate("py_revenue", 2, Counting)
        try:
            rows, values = count_rows_and_values(db.rows(state["sql"]))
        finally:
            db.create_aggregate("py_revenue", 2, Revenue)
        # query + each step + the final call + the result row; two values per step, and the
        # final's result, which is the one value fetched
        return 1 + steps[0] + 1 + rows, 2 * steps[0] + values


class FillTable(Workload):
    name = "micro.filltable"
    description = "E2: create a 2-column table, fill 100,000 rows by prepared insert, read it back"
    default_params = {"rows": 100000}

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        n = int(params["rows"])
        data = [(i, "row %d" % i) for i in range(n)]
        insert = "INSERT INTO filltable (a, b) VALUES (%s, %s)" % (db.placeholder, db.placeholder)
        return {"db": db, "n": n, "data": data, "insert": insert,
                "expected": (n, float(n * (n - 1) // 2))}

    def operation(self, state: Any) -> Any:
        db = state["db"]
        db.execute("DROP TABLE IF EXISTS filltable")
        db.execute("CREATE TABLE filltable (a INTEGER, b VARCHAR(32))")
        db.execute("BEGIN")
        db.executemany(state["insert"], state["data"])
        db.execute("COMMIT")
        count = 0
        total = 0
        for a, _b in db.rows("SELECT a, b FROM filltable"):
            count += 1
            total += a
        return count, float(total)

    def check(self, state: Any, result: Any) -> Optional[str]:
        return _check_pair(result, state["expected"])

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        n = state["n"]
        rows, values = count_rows_and_values(state["db"].rows("SELECT a, b FROM filltable"))
        # create + one execution per inserted row with its 2 parameters + the read-back query and rows
        inserted_values = sum(len(r) for r in state["data"])
        return 1 + n + 1 + rows, inserted_values + values


# ------------------------------------------------------------- Python inside the server (PL/Python)

_PLPY_COUNTER = """
CREATE OR REPLACE FUNCTION pg_temp.crossings_calls(what text) RETURNS bigint LANGUAGE plpython3u AS $$
n = GD.get("crossings_" + what, 0)
GD["crossings_" + what] = 0
return n
$$"""


def _server_python_reason(db: Any) -> Optional[str]:
    if db.dialect == "postgresql":
        return None
    if db.dialect == "mariadb":
        return "MariaDB has no Python inside the server (stored functions and aggregates are SQL only)"
    return ("an embedded engine runs in the client's own process: its Python callbacks are what "
            "micro.pyfunction / micro.pyaggregate measure")


def _plpython(db: Any, statements: Any) -> None:
    """Run set-up statements that need PL/Python; a server that cannot makes the cell not applicable."""
    from harness.engines.base import NotApplicable

    try:
        installed = db.query("SELECT 1 FROM pg_extension WHERE extname = 'plpython3u'")
        if not installed:
            db.execute("CREATE EXTENSION IF NOT EXISTS plpython3u")
        for sql in statements:
            db.execute(sql)
    except Exception as exc:  # noqa: BLE001 - no superuser, package missing: say so
        msg = " ".join(str(exc).split())
        raise NotApplicable("PL/Python (plpython3u) not usable on this PostgreSQL server: %s: %s"
                            % (type(exc).__name__, msg))


def _py_net_sql(counting: bool) -> str:
    body = 'GD["crossings_calls"] = GD.get("crossings_calls", 0) + 1\n' if counting else ""
    return ("CREATE OR REPLACE FUNCTION pg_temp.py_net(discount double precision) RETURNS double precision "
            "LANGUAGE plpython3u AS $$\n%sreturn 1.0 - discount\n$$" % body)


class PyFunctionServer(_TpchMicro):
    name = "micro.pyfunction_server"
    description = ("E2: PostgreSQL calls a PL/Python scalar function per lineitem row inside the server; "
                   "the client sums the results")

    def not_applicable(self, db: Any) -> Optional[str]:
        return _server_python_reason(db)

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        _plpython(db, [_py_net_sql(False), _PLPY_COUNTER])
        sql = "SELECT %s * pg_temp.py_net(%s) FROM lineitem" % (num(db, "l_extendedprice"), num(db, "l_discount"))
        return {"db": db, "sql": sql, "expected": expected_revenue(db)}

    operation = PyFunction.operation

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        db = state["db"]
        db.execute(_py_net_sql(True))
        try:
            db.query("SELECT pg_temp.crossings_calls('calls')")
            rows, values = count_rows_and_values(db.rows(state["sql"]))
            calls = int(db.query("SELECT pg_temp.crossings_calls('calls')")[0][0])
        finally:
            db.execute(_py_net_sql(False))
        # as micro.pyfunction: per call one argument in and one result out (inside the server);
        # per row its values over the socket; plus the query
        return 1 + rows + calls, values + 2 * calls


def _revenue_step_sql(counting: bool) -> str:
    body = 'GD["crossings_steps"] = GD.get("crossings_steps", 0) + 1\n' if counting else ""
    return ("CREATE OR REPLACE FUNCTION pg_temp.py_revenue_step(state double precision, price double precision, "
            "discount double precision) RETURNS double precision LANGUAGE plpython3u AS $$\n"
            "%sreturn state + price * (1 - discount)\n$$" % body)


def _revenue_final_sql(counting: bool) -> str:
    body = 'GD["crossings_finals"] = GD.get("crossings_finals", 0) + 1\n' if counting else ""
    return ("CREATE OR REPLACE FUNCTION pg_temp.py_revenue_final(state double precision) RETURNS double precision "
            "LANGUAGE plpython3u AS $$\n%sreturn state\n$$" % body)


class PyAggregateServer(_TpchMicro):
    name = "micro.pyaggregate_server"
    description = ("E2: a PL/Python aggregate inside PostgreSQL (step per lineitem row, then final) "
                   "computing revenue")

    def not_applicable(self, db: Any) -> Optional[str]:
        return _server_python_reason(db)

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        _plpython(db, [_revenue_step_sql(False), _revenue_final_sql(False), _PLPY_COUNTER,
                       "CREATE AGGREGATE pg_temp.py_revenue(double precision, double precision) ("
                       "SFUNC = pg_temp.py_revenue_step, STYPE = double precision, "
                       "FINALFUNC = pg_temp.py_revenue_final, INITCOND = '0')"])
        sql = "SELECT pg_temp.py_revenue(%s, %s) FROM lineitem" % (num(db, "l_extendedprice"), num(db, "l_discount"))
        return {"db": db, "sql": sql, "expected": expected_revenue(db)}

    operation = PyAggregate.operation
    check = PyAggregate.check

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        db = state["db"]
        db.execute(_revenue_step_sql(True))
        db.execute(_revenue_final_sql(True))
        try:
            db.query("SELECT pg_temp.crossings_calls('steps'), pg_temp.crossings_calls('finals')")
            rows, values = count_rows_and_values(db.rows(state["sql"]))
            steps, finals = (int(v) for v in db.query(
                "SELECT pg_temp.crossings_calls('steps'), pg_temp.crossings_calls('finals')")[0])
        finally:
            db.execute(_revenue_step_sql(False))
            db.execute(_revenue_final_sql(False))
        # the query + each step + each final call + each row fetched; per step the state and two
        # arguments in and the new state out, per final call one value in and one out
        return 1 + steps + finals + rows, 4 * steps + 2 * finals + values


WORKLOADS = [Select(), InnerJoin(), PythonJoin(), PyFunction(), PyAggregate(), PyFunctionServer(),
             PyAggregateServer(), FillTable()]
