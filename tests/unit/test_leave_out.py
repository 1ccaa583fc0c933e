"""`run --leave-out`: a study's cut to fit its budget is recorded, with its reason, not silently dropped."""
from __future__ import annotations

import pandas as pd
import pytest

from harness.errors import UserError
from harness.protocol import LEFT_OUT
from harness.run.plan import RunRequest, build_plan


def _plan(leave_out):
    return build_plan(RunRequest(profile="smoke", benchmarks=["bindings.select_fold", "bindings.point_query"],
                                 engines=["sqlite/sqlite3", "sqlite/apsw"], aa=["sqlite/apsw"],
                                 leave_out=leave_out), "t")


def test_left_out_cells_and_their_twins_are_planned_as_skipped_with_the_reason():
    plan = _plan(["bindings.point_query@sqlite/apsw"])
    hit = {(c.benchmark, c.engine, c.params.get("aa")) for i, c in enumerate(plan.cells) if str(i) in plan.unavailable}
    assert hit == {("bindings.point_query", "sqlite/apsw", None), ("bindings.point_query", "sqlite/apsw", "twin")}
    assert all(r.startswith(LEFT_OUT) and "bindings.point_query@sqlite/apsw" in r for r in plan.unavailable.values())
    assert not _plan(None).unavailable


@pytest.mark.parametrize("pattern, says", [("bindings.point_query", "BENCHMARK@ENGINE"),
                                           ("bindings.nothing@sqlite/apsw", "names no cell")])
def test_a_pattern_without_an_engine_or_naming_no_cell_is_a_clear_error(pattern, says):
    with pytest.raises(UserError, match=says):
        _plan([pattern])


def test_the_paper_names_the_left_out_cells_once_without_their_twins():
    from harness.studies.common import left_out_sentence

    reason = f"{LEFT_OUT} micro.filltable@duckdb)"
    summary = pd.DataFrame({
        "benchmark": ["micro.filltable", "micro.filltable", "micro.select", "micro.filltable"],
        "engine": ["duckdb", "duckdb", "duckdb", "sqlite/sqlite3"],
        "params": ["sf=0.01", "aa=twin,sf=0.01", "sf=0.01", "sf=0.01"],
        "status": ["skipped", "skipped", "ok", "skipped"],
        "reason": [reason, reason, "", "not available on pypy"]})
    text = left_out_sentence(summary, "micro.")
    assert "micro.filltable on DuckDB" in text and "(1 cells)" in text and "select" not in text
    assert left_out_sentence(summary[summary["status"] == "ok"], "micro.") == ""
