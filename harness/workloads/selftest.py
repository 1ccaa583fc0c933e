"""Benchmarks that exist to test the harness itself (never part of a profile).

`selftest.sleep` sleeps, so a test can kill its worker mid-run; `selftest.wrong` returns a wrong
answer, so a test sees the cell marked invalid; `selftest.crash` raises in the timed operation; `selftest.cpus` is invalid unless the worker is pinned
to one CPU, so a test sees pinning from inside the worker; `selftest.inserts_short` inserts one row too few, so a test sees
the inserts family's checksum catch a wrong count.
"""
from __future__ import annotations

import os
import random
import time
from typing import Any, Dict, Optional

from harness.workloads.base import Workload
from harness.workloads.inserts import Prepared


class Sleep(Workload):
    name = "selftest.sleep"
    description = ("harness self-test: sleep `seconds` per iteration, times 1 + `spread` x U(-1, 1) drawn "
                   "once per process (a known between-process variance)")
    default_params = {"seconds": 0.01, "spread": 0.0}

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        factor = 1.0 + float(params["spread"]) * random.Random(ctx.get("seed", 0)).uniform(-1.0, 1.0)
        return float(params["seconds"]) * factor

    def operation(self, state: Any) -> Any:
        time.sleep(state)
        return state


class Wrong(Workload):
    name = "selftest.wrong"
    description = "harness self-test: an operation whose answer is always wrong"

    def setup(self, db: Any, params: Dict[str, Any], ctx: Dict[str, Any]) -> Any:
        return db

    def operation(self, state: Any) -> Any:
        return state.query("SELECT 41")[0][0]

    def check(self, state: Any, result: Any) -> Optional[str]:
        return None if result == 42 else "expected 42, got %r" % (result,)


class Crash(Workload):
    name = "selftest.crash"
    description = "harness self-test: an operation that raises"

    def operation(self, state: Any) -> Any:
        raise RuntimeError("selftest.crash raised on purpose")


class Cpus(Workload):
    name = "selftest.cpus"
    description = "harness self-test: the CPUs the worker may run on (valid only when pinned to one)"

    def operation(self, state: Any) -> Any:
        return sorted(os.sched_getaffinity(0))

    def check(self, state: Any, result: Any) -> Optional[str]:
        return None if len(result) == 1 else "worker may run on CPUs %s, expected one" % (result,)


class InsertsShort(Prepared):
    """inserts.prepared that inserts one row too few: the checksum after the clock must catch it."""

    name = "selftest.inserts_short"
    description = "harness self-test: inserts.prepared inserting N-1 rows where N are expected (invalid)"

    def operation(self, state: Any) -> Any:
        full = state["rows"]
        state["rows"] = full[:-1]
        try:
            return Prepared.operation(self, state)
        finally:
            state["rows"] = full


WORKLOADS = [Sleep(), Wrong(), Crash(), Cpus(), InsertsShort()]
