"""H2 (embedded, file mode) through JDBC from a Java program: seed 001's third engine.

This engine has no Python worker. Its processes are Java programs (`harness/run/jvm/Bench.java`)
built and launched by the runner through `harness.run.jvm.launcher`, on runtime `jvm` only; the
runner sends every `jvm` cell there, probe included.
"""
from __future__ import annotations

from harness.engines.foreign import ForeignEngine


class H2JdbcEngine(ForeignEngine):
    name = "h2/jdbc"
    driver = "jdbc"
    dialect = "h2"
    runtimes = ("jvm",)
    program = "a Java program"
    launcher = "harness.run.jvm.launcher"
    storage = "a private copy of the prepared H2 file per process (TPC-H), else a fresh file in its temp dir"
