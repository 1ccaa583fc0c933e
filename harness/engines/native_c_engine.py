"""SQLite through its C API from a C program: the speed-of-light baseline (seed 000).

This engine has no Python worker. Its processes are C programs (`harness/run/native/bench.c`)
built and launched by the runner through `harness.run.native.launcher`, on runtime `c` only; the
runner sends every `c` cell and every engine marked `native` there, probe included.
"""
from __future__ import annotations

from harness.engines.foreign import ForeignEngine


class NativeCEngine(ForeignEngine):
    name = "sqlite/native-c"
    driver = "libsqlite3"
    dialect = "sqlite"
    runtimes = ("c",)
    program = "a C program"
    launcher = "harness.run.native.launcher"
    storage = "file database in the process's private temp dir (made by the C program)"
