"""Databases reached from Haskell (seed 000's bindings, seed 002's stores): runtimes `haskell`, `haskell-O0`.

These engines have no Python worker. Their processes are one Haskell program
(`harness/run/haskell/Main.hs`), built and launched by the runner through
`harness.run.haskell.launcher`, which also probes them; the adapters here only name them and say
where they run, so plans, the manifest and `list` treat them like every other engine.

- `sqlite/hdbc`: HDBC with HDBC-sqlite3 (the seed's HDBC-sqlite3 row).
- `sqlite/persistent`: persistent-sqlite's `Database.Sqlite` (prepare/step/column over the C API),
  the lowest-level SQLite binding Debian packages for Haskell; the seed's direct-sqlite and
  sqlite-simple are not packaged.
- `postgresql/hdbc`: HDBC with HDBC-postgresql (libpq).
- `postgresql/simple`: postgresql-simple (libpq; the seed's postgresql-simple row).
- `acidstate/acid-state`: seed 002's AcidState back-end (E5 only): an IxSet of accounts in memory, each
  update written to acid-state's on-disk event log (fsynced) before it returns. `sqlite/hdbc`
  and `postgresql/hdbc` run E5 too, as the seed's HDBC back-ends.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from harness.engines.foreign import ForeignEngine

HASKELL_RUNTIMES = ("haskell", "haskell-O0", "haskell-O1")


class HaskellEngine(ForeignEngine):
    runtimes = HASKELL_RUNTIMES
    program = "the Haskell worker"
    launcher = "harness.run.haskell.launcher"

    def probe(self, config: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:  # type: ignore[override]
        return super().probe()


class HdbcSqliteEngine(HaskellEngine):
    name = "sqlite/hdbc"
    driver = "HDBC-sqlite3"
    dialect = "sqlite"
    storage = "file database in the process's private temp dir (made by the Haskell worker)"


class PersistentSqliteEngine(HaskellEngine):
    name = "sqlite/persistent"
    driver = "persistent-sqlite"
    dialect = "sqlite"
    storage = "file database in the process's private temp dir (made by the Haskell worker)"


class HdbcPostgresqlEngine(HaskellEngine):
    name = "postgresql/hdbc"
    driver = "HDBC-postgresql"
    dialect = "postgresql"
    server_family = "postgresql"
    storage = "server database (throwaway instance started by the harness, or the user's DSN)"


class PostgresqlSimpleEngine(HaskellEngine):
    name = "postgresql/simple"
    driver = "postgresql-simple"
    dialect = "postgresql"
    server_family = "postgresql"
    storage = "server database (throwaway instance started by the harness, or the user's DSN)"


class AcidStateEngine(HaskellEngine):
    name = "acidstate/acid-state"
    driver = "acid-state"
    dialect = "acid-state"
    storage = "in-memory state with its event log and checkpoints in the process's private temp dir"


HASKELL_ENGINES = (HdbcSqliteEngine(), PersistentSqliteEngine(), HdbcPostgresqlEngine(), PostgresqlSimpleEngine(),
                   AcidStateEngine())
