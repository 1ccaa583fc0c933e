"""One results store for many machines: runs pushed into PostgreSQL and read back from it.

Why files and not rows: the run directory is the unit every command understands and verifies
(plan, manifest, records, Parquet timings). The store keeps each run's files byte for byte with
their hashes (`files`), plus queryable copies of the manifest, plan and process records
(`runs`, `processes`), so many machines' runs sit in one database and a run read back
(`materialize`) is the run pushed: `summary --from DSN` gives the bytes `summary RUN_DIR` gives.
A push is idempotent: a run already there with the same content hash is left alone, one with
other content is refused (or replaced with `replace`). The schema lives in versioned SQL files
(`migrations/NNN_name.sql`), applied in order, each once, recorded in
`crossings.schema_migrations` with its hash, under an advisory lock. Reading runs in a read-only
transaction. DSNs in messages are redacted.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from harness import store
from harness.errors import DataError, UserError
from harness.record import ProcessRecord
from harness.redaction import redact

MIGRATIONS = Path(__file__).with_name("migrations")
#: pg_advisory_xact_lock key of the migrations ("crossings" in ASCII, fits a bigint)
_LOCK = 0x63726F7373696E67


def _connect(dsn: str, read_only: bool = False):
    try:
        import psycopg
    except ImportError:
        raise UserError("the results store needs psycopg (pip install 'psycopg[binary]')") from None
    if not re.match(r"^postgres(ql)?://", dsn or ""):
        raise UserError(f"--to/--from takes a postgresql://... DSN, got {redact(dsn)!r}")
    try:
        conn = psycopg.connect(dsn, connect_timeout=20)
    except psycopg.Error as exc:
        raise UserError(f"cannot connect to the results store {redact(dsn)}: {' '.join(redact(str(exc)).split())}") from None
    if read_only:
        conn.read_only = True
    return conn


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, SQL) of every migration file, in order; a gap or a duplicate is an error."""
    out = []
    for path in sorted(MIGRATIONS.glob("*.sql")):
        m = re.match(r"^(\d{3})_(\w+)\.sql$", path.name)
        if not m:
            raise DataError(f"{path}: migrations are named NNN_name.sql")
        out.append((int(m.group(1)), m.group(2), path.read_text()))
    if [v for v, _, _ in out] != list(range(1, len(out) + 1)):
        raise DataError(f"{MIGRATIONS}: migration versions must run 1, 2, 3, ... without gaps")
    return out


def migrate(conn: Any) -> list[int]:
    """Apply the migrations the database lacks (each once, in one transaction); returns them.
    A recorded migration whose file changed since is an error, never re-applied."""
    applied = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        conn.execute("CREATE SCHEMA IF NOT EXISTS crossings")
        conn.execute("CREATE TABLE IF NOT EXISTS crossings.schema_migrations (version integer PRIMARY KEY, "
                     "name text NOT NULL, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        done = dict(conn.execute("SELECT version, sha256 FROM crossings.schema_migrations").fetchall())
        for version, name, sql in migrations():
            digest = hashlib.sha256(sql.encode()).hexdigest()
            if version in done:
                if done[version] != digest:
                    raise DataError(f"results store: migration {version:03d}_{name} was applied with other "
                                    "content; a migration is never edited, add a new one")
                continue
            conn.execute(sql)
            conn.execute("INSERT INTO crossings.schema_migrations (version, name, sha256) VALUES (%s, %s, %s)",
                         (version, name, digest))
            applied.append(version)
    return applied


def run_files(run_dir: Path) -> list[tuple[str, str, int]]:
    """(path relative to the run directory, sha256, size) of every file a load of the run reads,
    each read once (one file in memory at a time)."""
    run_dir = Path(run_dir)
    out = []
    for p in store.input_files([run_dir]):
        data = p.read_bytes()
        out.append((p.relative_to(run_dir).as_posix(), hashlib.sha256(data).hexdigest(), len(data)))
    return out


def content_hash(files: list[tuple[str, bytes]] | list[tuple[str, str, int]]) -> str:
    """sha256 over each file's path and sha256, in path order: a run's identity in the store."""
    h = hashlib.sha256()
    for f in sorted(files):
        digest = f[1] if isinstance(f[1], str) else hashlib.sha256(f[1]).hexdigest()
        h.update(f"{f[0]}\0{digest}\n".encode())
    return h.hexdigest()


def push(run_dirs: list[Path], dsn: str, replace: bool = False) -> list[tuple[str, str]]:
    """Load runs into the store; returns (run id, what happened: pushed, unchanged, replaced).
    Each run is verified as every command reads it (records against plan, timings against
    records) before anything is written, and goes in whole in one transaction."""
    from psycopg.types.json import Jsonb

    checked = []
    for d in store.as_run_dirs(run_dirs):
        manifest = store.manifest_of(d)
        for _ in store.iter_timings(d):  # the whole run verified before a byte is sent
            pass
        files = run_files(d)
        checked.append((d, manifest, store.plan_of(d), store.records_of(d), files, content_hash(files)))
    out = []
    with _connect(dsn) as conn:
        migrate(conn)
        for d, manifest, plan, records, files, digest in checked:
            run_id = manifest.run_id
            with conn.transaction():
                row = conn.execute("SELECT content_hash FROM crossings.runs WHERE run_id = %s FOR UPDATE",
                                   (run_id,)).fetchone()
                if row is not None and row[0] == digest:
                    out.append((run_id, "unchanged"))
                    continue
                if row is not None and not replace:
                    raise UserError(f"run {run_id} is in the store with other content ({row[0][:12]}, here "
                                    f"{digest[:12]}: resumed or collected since?); push it with --replace to "
                                    "replace it")
                if row is not None:
                    conn.execute("DELETE FROM crossings.runs WHERE run_id = %s", (run_id,))
                conn.execute("INSERT INTO crossings.runs (run_id, content_hash, status, manifest, plan, files, bytes) "
                             "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                             (run_id, digest, manifest.status, Jsonb(manifest.to_dict()),
                              Jsonb(None if plan is None else plan.to_dict()), len(files),
                              sum(size for _, _, size in files)))
                with conn.cursor() as cur:
                    for path, sha, _ in files:
                        data = (Path(d) / path).read_bytes()
                        if hashlib.sha256(data).hexdigest() != sha:  # changed since it was verified: roll back
                            raise DataError(f"{Path(d) / path} changed while it was pushed; nothing was stored")
                        cur.execute("INSERT INTO crossings.files (run_id, path, sha256, size, data) "
                                    "VALUES (%s, %s, %s, %s, %s)", (run_id, path, sha, len(data), data))
                    insert_processes(cur, run_id, records)
                out.append((run_id, "replaced" if row is not None else "pushed"))
    return out


def insert_processes(cur: Any, run_id: str, records: dict[int, ProcessRecord]) -> None:
    """A run's process records into `crossings.processes`, each with its machine and shard."""
    from psycopg.types.json import Jsonb

    cur.executemany(
        "INSERT INTO crossings.processes (run_id, seq, benchmark, params, engine, runtime, process, "
        "status, machine_id, shard, record) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [(run_id, seq, r.benchmark, r.params, r.engine, r.runtime, r.get("process"), r.status, r.machine_id,
          (r.shard or {}).get("index"), Jsonb(r.to_dict())) for seq, r in sorted(records.items())])


def run_ids(dsn: str) -> list[str]:
    """Every run in the store, in run id order."""
    with _connect(dsn, read_only=True) as conn:
        if not _has_schema(conn):
            return []
        return [r[0] for r in conn.execute("SELECT run_id FROM crossings.runs ORDER BY run_id").fetchall()]


def _has_schema(conn: Any) -> bool:
    return conn.execute("SELECT to_regclass('crossings.runs') IS NOT NULL").fetchone()[0]


def materialize(dsn: str, ids: list[str] | None, into: Path) -> list[Path]:
    """Write runs from the store as run directories under `into` (each file checked against its
    hash and the run against its content hash); returns them in the order asked (default: all,
    in run id order)."""
    out = []
    with _connect(dsn, read_only=True) as conn:
        if not _has_schema(conn):
            raise UserError(f"{redact(dsn)}: no crossings results store there (harness push makes one)")
        known = {r[0]: r[1] for r in conn.execute("SELECT run_id, content_hash FROM crossings.runs").fetchall()}
        wanted = list(ids) if ids else sorted(known)
        unknown = [r for r in wanted if r not in known]
        if unknown:
            raise UserError(f"not in the results store: {', '.join(unknown)} (it holds {len(known)} runs)")
        if not wanted:
            raise UserError(f"{redact(dsn)}: the results store holds no run")
        for run_id in dict.fromkeys(wanted):
            run_dir = Path(into) / run_id
            files = []
            with conn.cursor() as cur:
                cur.execute("SELECT path, sha256, data FROM crossings.files WHERE run_id = %s ORDER BY path",
                            (run_id,))
                for path, sha, data in cur:
                    data = bytes(data)
                    if hashlib.sha256(data).hexdigest() != sha or ".." in Path(path).parts or path.startswith("/"):
                        raise DataError(f"results store: run {run_id} file {path} does not match its hash")
                    target = run_dir / path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
                    files.append((path, data))
            if content_hash(files) != known[run_id]:
                raise DataError(f"results store: run {run_id} does not match its content hash")
            for sub in ("processes", "timings"):
                (run_dir / sub).mkdir(exist_ok=True)
            out.append(run_dir)
    return out


class Materialized:
    """Runs from the store in a private temporary directory, removed afterwards."""

    def __init__(self, dsn: str, ids: list[str] | None) -> None:
        self.dsn, self.ids = dsn, ids
        self.dir: Path | None = None

    def __enter__(self) -> list[Path]:
        self.dir = Path(tempfile.mkdtemp(prefix="crossings-from-db-"))
        try:
            return materialize(self.dsn, self.ids, self.dir)
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: Any) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
