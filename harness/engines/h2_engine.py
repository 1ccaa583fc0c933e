"""H2 (embedded, file mode) through JDBC from a Java program: seed 001's third engine.

This engine has no Python worker. Its processes are Java programs (`harness/run/jvm/Bench.java`)
built and launched by the runner through `harness.run.jvm.launcher`, on runtime `jvm` only; the
runner sends every `jvm` cell there, probe included.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from harness.engines.base import Connection, Engine, NotApplicable


class H2JdbcEngine(Engine):
    name = "h2/jdbc"
    driver = "jdbc"
    dialect = "h2"
    runtimes = ("jvm",)
    #: processes are Java programs launched by harness.run.jvm.launcher, not harness.worker
    native = True
    storage = "a private copy of the prepared H2 file per process (TPC-H), else a fresh file in its temp dir"

    def _probe(self) -> Dict[str, Any]:
        raise RuntimeError("h2/jdbc runs as a Java program on runtime jvm, not in a Python worker "
                           "(the runner probes it through harness.run.jvm.launcher)")

    def connect(self, config: Dict[str, Any], workdir: str, database: Optional[str] = None) -> Connection:
        raise NotApplicable("h2/jdbc runs as a Java program on runtime jvm, not in a Python worker")
