"""E3, the 22 TPC-H queries (seed 001, SQPyte Figure 11) as benchmarks `tpch.q01` .. `tpch.q22`.

The timed operation executes one query and fetches every row (the client must consume the
answer, or a lazy engine would do no work). Q15's view is created in set-up and dropped in
tear-down, outside the timed region. Each iteration's answer is checked against the TPC-H answer
set for the scale factor (`harness.workloads.tpch_check`); a wrong answer marks the cell invalid,
which keeps it out of tables. A scale factor without an answer set cannot be checked: the cell
is then not applicable rather than silently unchecked.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from harness.engines.base import NotApplicable
from harness.workloads import tpch_check, tpch_queries
from harness.workloads.base import Workload


class TpchQuery(Workload):
    dataset = "tpch"
    default_params = {"sf": 0.01, "indexes": "off"}

    def __init__(self, number: int) -> None:
        self.number = number
        self.name = "tpch.q%02d" % number
        self.description = "E3: TPC-H query %d, all rows fetched, answer checked" % number

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        try:
            query = tpch_queries.get(db.dialect, self.number)
        except KeyError as exc:
            raise NotApplicable(str(exc.args[0]))
        try:
            expected = tpch_check.load_expected(self.number, params["sf"])
        except LookupError as exc:
            raise NotApplicable("answers cannot be checked: %s" % exc)
        tpch_queries.run_setup(db.raw, query)
        return {"db": db, "query": query, "expected": expected}

    def operation(self, state: Any) -> Any:
        return state["db"].query(state["query"].sql)

    def check(self, state: Any, result: Any) -> Optional[str]:
        return tpch_check.compare(state["expected"], [tuple(r) for r in result])

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        return 1 + len(result), sum(len(r) for r in result)

    def teardown(self, state: Any) -> None:
        tpch_queries.run_teardown(state["db"].raw, state["query"])


WORKLOADS = [TpchQuery(n) for n in tpch_queries.NUMBERS]
