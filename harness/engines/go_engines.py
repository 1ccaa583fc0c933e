"""RamSQL and SQLite through Go's database/sql (E6, seed 004): engines of the Go program.

These engines have no Python worker. Their processes are the Go program of `harness/run/go/`
(built and launched by `harness.run.go.launcher`) on runtime `go` only. SQLite is reached two
ways: `sqlite/glebarez` is the seed's driver, glebarez/go-sqlite (RamSQL's go.mod requires it), a
pure-Go translation of SQLite's C source (modernc.org/sqlite) with no cgo call; `sqlite/go` is
mattn/go-sqlite3 built with the `libsqlite3` tag: cgo against the system's libsqlite3, the same
library as the C baseline and Python's sqlite3. The two differ by how Go reaches SQLite.
"""
from __future__ import annotations

from harness.engines.foreign import ForeignEngine


class _GoEngine(ForeignEngine):
    runtimes = ("go",)
    #: the Go program implements E6's benchmarks only
    benchmarks = ("ramsql.*",)
    program = "the Go program"
    launcher = "harness.run.go.launcher"
    storage = "in memory (RamSQL's engine; SQLite's :memory:), one connection, made by the Go program"


class RamsqlGoEngine(_GoEngine):
    name = "ramsql/go"
    driver = "ramsql"
    dialect = "ramsql"


class SqliteGlebarezEngine(_GoEngine):
    name = "sqlite/glebarez"
    driver = "glebarez/go-sqlite"
    dialect = "sqlite"


class SqliteGoEngine(_GoEngine):
    name = "sqlite/go"
    driver = "mattn/go-sqlite3"
    dialect = "sqlite"
