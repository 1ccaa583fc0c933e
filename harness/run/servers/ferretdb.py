"""A throwaway MongoDB-wire server: FerretDB 1.x in front of its own throwaway PostgreSQL.

MongoDB has no Debian package. FerretDB speaks MongoDB's wire protocol and stores each
collection as a PostgreSQL table of `jsonb` documents, so what `ferretdb/pymongo` measures is
the MongoDB protocol and a MongoDB driver (pymongo), not MongoDB's storage engine. The binary
comes from `harness.run.ferretdb_build` (data/cache/ferretdb/), or $CROSSINGS_FERRETDB.

Start: a throwaway PostgreSQL (harness.run.servers.postgresql, same named settings), then
`ferretdb` on a Unix socket in a private 0700 directory (or, with CROSSINGS_SERVER_TRANSPORT=tcp,
127.0.0.1 at a free port), as the same unprivileged user as PostgreSQL, telemetry and the debug
HTTP listener off. Its PostgreSQL URL (with the password) goes in its environment, never on its
command line. Clients connect without credentials (FerretDB uses the URL's); the socket's
directory is the access control, as for the other throwaway servers.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

from harness.run.ferretdb_build import BINARY_ENV, FERRETDB_VERSION, binary_path
from harness.run.servers import postgresql
from harness.run.servers.common import (
    ServerError,
    ThrowawayServer,
    free_port,
    private_dir,
    service_identity,
    spawn,
    wait_until,
)

DSN_ENV = "CROSSINGS_FERRETDB_DSN"
DATABASE = "crossings"


def find_binary() -> Path | None:
    override = os.environ.get(BINARY_ENV)
    for c in ([override] if override else [str(binary_path()), shutil.which("ferretdb") or ""]):
        if c and os.access(c, os.X_OK):
            return Path(c)
    return None


def unavailable_reason() -> str | None:
    if find_binary() is None:
        return (f"FerretDB not built: run `python -m harness.run.ferretdb_build` (Go >= 1.24 or the Go "
                f"module proxy; about 10 minutes), set ${BINARY_ENV}, or give --dsn ferretdb=mongodb://...")
    return postgresql.unavailable_reason()


def binary_version(binary: Path) -> str | None:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"version:\s*(v\S+)", out)
    return f"FerretDB {m.group(1)}" if m else None


def installed_version() -> str | None:
    binary = find_binary()
    return binary_version(binary) if binary else None


class FerretdbServer(ThrowawayServer):
    family = "ferretdb"
    user_candidates = postgresql.PostgresqlServer.user_candidates

    def __init__(self, settings_name: str | None = None, transport: str | None = None,
                 password: str | None = None) -> None:
        super().__init__(settings_name, transport, password)
        self.backend: postgresql.PostgresqlServer | None = None
        self.socket: Path | None = None

    @staticmethod
    def settings_table() -> dict[str, dict[str, Any]]:
        return postgresql.SETTINGS

    def _start(self, settings: dict[str, Any]) -> None:
        binary = find_binary()
        if binary is None:
            raise ServerError(unavailable_reason() or "FerretDB not found")
        self.backend = postgresql.PostgresqlServer(self.settings_name, "unix", self.password)
        self.backend.start()
        ident = service_identity(self.user_candidates)
        self.dir = private_dir("crossings-ferretdb-", ident)
        if ident.switch:  # the server's user may not reach the cache: it runs its own copy
            copy = self.dir / "ferretdb"
            shutil.copy2(binary, copy)
            os.chown(copy, ident.uid, ident.gid)
            binary = copy
        self.record.update(binary=str(find_binary()), version=binary_version(binary) or f"FerretDB {FERRETDB_VERSION}",
                           run_as=ident.name, directory=str(self.dir),
                           backend={k: self.backend.record.get(k) for k in ("version", "endpoint", "start_s")})
        state = self.dir / "state"
        state.mkdir()
        if ident.switch:
            os.chown(state, ident.uid, ident.gid)
        argv = [str(binary), "--handler=postgresql", f"--state-dir={state}", "--telemetry=disable",
                "--debug-addr=-", "--log-level=warn"]
        if self.transport == "tcp":
            self.port = free_port()
            argv += [f"--listen-addr=127.0.0.1:{self.port}"]
            endpoint = ("127.0.0.1", self.port)
        else:
            self.socket = self.dir / "ferretdb.sock"
            argv += ["--listen-addr=", f"--listen-unix={self.socket}"]
            endpoint = str(self.socket)
        env = {"FERRETDB_POSTGRESQL_URL": self.backend._dsn().replace("postgresql://", "postgres://", 1)}
        self.proc = spawn(argv, ident, self.dir, self.log, signal.SIGTERM, extra_env=env)
        self.record["pid"] = self.proc.pid

        def ready() -> bool:
            family = socket.AF_INET if isinstance(endpoint, tuple) else socket.AF_UNIX
            with socket.socket(family, socket.SOCK_STREAM) as s:
                try:
                    s.connect(endpoint)
                    return True
                except OSError:
                    return False

        self.record["ready_s"] = round(wait_until(ready, self.proc, self.log, "ferretdb"), 3)
        self.record["endpoint"] = (f"tcp 127.0.0.1:{self.port}" if self.transport == "tcp"
                                   else f"unix socket {self.socket}")

    def stop(self) -> None:
        super().stop()
        if self.backend is not None:
            self.backend.stop()
            self.record["backend_stop_s"] = self.backend.record.get("stop_s")
            self.backend = None

    def _dsn(self) -> str:
        if self.transport == "tcp":
            return f"mongodb://127.0.0.1:{self.port}/{DATABASE}?directConnection=true"
        return f"mongodb://{quote(str(self.socket), safe='')}/{DATABASE}?directConnection=true"
