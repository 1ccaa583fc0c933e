"""SQLite through its C API from a C program: the speed-of-light baseline (seed 000).

This engine has no Python worker. Its processes are C programs (`harness/run/native/bench.c`)
built and launched by the runner through `harness.run.native.launcher`, on runtime `c` only; the
runner sends every `c` cell and every engine marked `native` there, probe included.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from harness.engines.base import Connection, Engine, NotApplicable


class NativeCEngine(Engine):
    name = "sqlite/native-c"
    driver = "libsqlite3"
    dialect = "sqlite"
    runtimes = ("c",)
    #: processes are native programs launched by harness.run.native.launcher, not harness.worker
    native = True
    storage = "file database in the process's private temp dir (made by the C program)"

    def _probe(self) -> Dict[str, Any]:
        raise RuntimeError("sqlite/native-c runs as a C program on runtime c, not in a Python worker "
                           "(the runner probes it through harness.run.native.launcher)")

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        raise NotApplicable("sqlite/native-c runs as a C program on runtime c, not in a Python worker")
