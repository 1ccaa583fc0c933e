"""Workloads, worker side: what one benchmark sets up, times, checks and counts.

Python 3.9 compatible, standard library only. The worker times `operation(state)` and nothing
else; `setup`, `reset`, `check`, `counts` and `teardown` run outside the timed region.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple


class Workload:
    name = ""
    #: one-line description shown by `list`
    description = ""
    default_params: Dict[str, Any] = {}
    #: name of a runner-side data set preparer in `harness.run.datasets` (None: set-up makes its own data)
    dataset: Optional[str] = None
    #: parameter -> the values a run sweeps over (one cell each) when neither the command nor the
    #: profile fixes it; `--param KEY=V1,V2` picks some of them
    sweep: Dict[str, List[Any]] = {}
    #: string parameter -> the values it may take (the plan rejects others, listing these)
    param_choices: Dict[str, Tuple[Any, ...]] = {}
    #: benchmarks whose names start with "selftest." exist to test the harness and are never in a profile
    def not_applicable(self, db: Any) -> Optional[str]:
        """A reason this engine cannot run the benchmark, or None."""
        return None

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        """Untimed: create data, prepare statements; returns the state `operation` uses."""
        return None

    def reset(self, state: Any) -> None:
        """Untimed, before every iteration (only when a workload overrides it): e.g. an empty table
        for a benchmark whose operation fills one."""

    def operation(self, state: Any) -> Any:
        """Timed: the operation under test, nothing else. Returns a result for `check`."""
        raise NotImplementedError

    def check(self, state: Any, result: Any) -> Optional[str]:
        """Untimed: None when `result` is right, else the reason it is wrong."""
        return None

    def counts(self, state: Any, result: Any) -> Tuple[Optional[int], Optional[int]]:
        """Untimed: (crossings, values converted) of one operation, counted, not typed in."""
        return None, None

    def teardown(self, state: Any) -> None:
        pass


def count_rows_and_values(rows: Iterable[Tuple[Any, ...]]) -> Tuple[int, int]:
    """An instrumented replay: every fetched row is a crossing, every value in it a conversion."""
    n_rows = 0
    n_values = 0
    for row in rows:
        n_rows += 1
        n_values += len(row)
    return n_rows, n_values
