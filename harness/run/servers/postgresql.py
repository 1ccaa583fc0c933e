"""A throwaway PostgreSQL: initdb + postgres in a private temp dir, stopped after the run.

Binaries: $CROSSINGS_POSTGRESQL_BIN, else the newest /usr/lib/postgresql/*/bin (Debian's
`postgresql` package), else `initdb`/`postgres` on PATH. As root the server runs as the
`postgres` system user (else `nobody`). It listens on a Unix socket in its private directory
only (`listen_addresses=''`), or with CROSSINGS_SERVER_TRANSPORT=tcp on 127.0.0.1 at a free
port; the superuser `crossings` has a random password (scram-sha-256), database `postgres`.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

from harness.run.servers.common import (Identity, ServerError, ThrowawayServer, free_port, private_dir, run_step,
                                    service_identity, spawn, wait_until, write_private)

BIN_ENV = "CROSSINGS_POSTGRESQL_BIN"
DSN_ENV = "CROSSINGS_POSTGRESQL_DSN"
MISSING = "postgresql binaries not found: install Debian's postgresql, or give --dsn postgresql=... " \
          f"(or set {DSN_ENV})"

#: named configurations of a throwaway server (docs/servers.md); values are postgres -c settings
SETTINGS: dict[str, dict[str, Any]] = {
    "throwaway-default": {"shared_buffers": "128MB", "fsync": "on", "synchronous_commit": "on",
                          "full_page_writes": "on", "max_connections": "20"},
    "throwaway-nodurable": {"shared_buffers": "128MB", "fsync": "off", "synchronous_commit": "off",
                            "full_page_writes": "off", "max_connections": "20"},
}


def _version_key(path: str) -> tuple[int, ...]:
    m = re.search(r"/postgresql/(\d+)(?:\.(\d+))?/bin", path)
    return tuple(int(g) for g in m.groups() if g) if m else (0,)


def find_bindir() -> Path | None:
    override = os.environ.get(BIN_ENV)
    candidates = [override] if override else sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key,
                                                    reverse=True)
    if not override:
        initdb = shutil.which("initdb")
        if initdb:
            candidates.append(str(Path(initdb).parent))
    for c in candidates:
        if c and all(os.access(Path(c) / b, os.X_OK) for b in ("initdb", "postgres", "pg_isready")):
            return Path(c)
    return None


def unavailable_reason() -> str | None:
    return None if find_bindir() else MISSING


def binary_version(bindir: Path) -> str | None:
    try:
        out = subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+(?:\.\d+)+)", out.stdout)
    return f"PostgreSQL {m.group(1)}" if m else None


def installed_version() -> str | None:
    """The version of the PostgreSQL a throwaway server would run, or None."""
    bindir = find_bindir()
    return binary_version(bindir) if bindir else None


class PostgresqlServer(ThrowawayServer):
    family = "postgresql"
    user_candidates = ("postgres", "nobody")
    #: SIGINT is PostgreSQL's "fast shutdown": roll back open transactions, disconnect, exit
    stop_signal = signal.SIGINT

    @staticmethod
    def settings_table() -> dict[str, dict[str, Any]]:
        return SETTINGS

    def _start(self, settings: dict[str, Any]) -> None:
        bindir = find_bindir()
        if bindir is None:
            raise ServerError(MISSING)
        ident: Identity = service_identity(self.user_candidates)
        self.dir = private_dir("crossings-postgresql-", ident)
        self.record.update(binaries=str(bindir), version=binary_version(bindir), run_as=ident.name,
                           directory=str(self.dir))
        data = self.dir / "data"
        pwfile = self.dir / "pwfile"
        write_private(pwfile, self.password + "\n", ident)
        try:
            self.record["init_s"] = round(run_step(
                [str(bindir / "initdb"), "-D", str(data), "-U", self.user, f"--pwfile={pwfile}",
                 "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"],
                ident, self.dir, self.dir / "initdb.log", "initdb"), 3)
        finally:
            pwfile.unlink(missing_ok=True)
        if self.transport == "tcp":
            self.port = free_port()
            listen = "127.0.0.1"
        else:
            self.port = 5432  # the socket file is .s.PGSQL.5432 inside our private directory
            listen = ""
        argv = [str(bindir / "postgres"), "-D", str(data), "-c", f"listen_addresses={listen}",
                "-c", f"port={self.port}", "-c", f"unix_socket_directories={self.dir}",
                "-c", "unix_socket_permissions=0700", "-c", "logging_collector=off", "-c", "ssl=off"]
        for k, v in settings.items():
            argv += ["-c", f"{k}={v}"]
        self.proc = spawn(argv, ident, self.dir, self.log, signal.SIGINT)
        self.record["pid"] = self.proc.pid
        host = "127.0.0.1" if self.transport == "tcp" else str(self.dir)
        isready = [str(bindir / "pg_isready"), "-q", "-h", host, "-p", str(self.port), "-d", "postgres",
                   "-t", "2"]

        def ready() -> bool:
            return subprocess.run(isready, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0

        self.record["ready_s"] = round(wait_until(ready, self.proc, self.log, "postgres"), 3)
        self.record["endpoint"] = (f"tcp 127.0.0.1:{self.port}" if self.transport == "tcp"
                                   else f"unix socket {self.dir}/.s.PGSQL.{self.port}")

    def _dsn(self) -> str:
        if self.transport == "tcp":
            return f"postgresql://{self.user}:{self.password}@127.0.0.1:{self.port}/postgres"
        return f"postgresql://{self.user}:{self.password}@/postgres?host={self.dir}&port={self.port}"
