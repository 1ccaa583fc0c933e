"""A throwaway MariaDB: mariadb-install-db + mariadbd in a private temp dir, stopped after the run.

Binaries: $CROSSINGS_MARIADB_BIN (a directory holding mariadbd and mariadb-install-db), else
Debian's `mariadb-server` (/usr/sbin/mariadbd, /usr/bin/mariadb-install-db), else PATH. As root
the server runs as the `mysql` system user (else `nobody`). Started with --no-defaults (the
machine's my.cnf does not leak in); Unix socket only (--skip-networking), or with
CROSSINGS_SERVER_TRANSPORT=tcp on 127.0.0.1 at a free port. An --init-file (deleted once the
server is ready) creates database `crossings` and user `crossings` with a random password, with all
privileges on `crossings` and on the TPC-H data sets' databases `tpch_*`.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

from harness.run.servers.common import (Identity, ServerError, ThrowawayServer, free_port, private_dir, run_step,
                                    service_identity, spawn, wait_until, write_private)

BIN_ENV = "CROSSINGS_MARIADB_BIN"
DSN_ENV = "CROSSINGS_MARIADB_DSN"
MISSING = "mariadb binaries not found: install Debian's mariadb-server, or give --dsn mariadb=... " \
          f"(or set {DSN_ENV})"

#: named configurations of a throwaway server (docs/servers.md); values are mariadbd options
SETTINGS: dict[str, dict[str, Any]] = {
    "throwaway-default": {"innodb-buffer-pool-size": "128M", "innodb-flush-log-at-trx-commit": "1",
                          "innodb-doublewrite": "1", "character-set-server": "utf8mb4",
                          "collation-server": "utf8mb4_general_ci", "max-connections": "20"},
    "throwaway-nodurable": {"innodb-buffer-pool-size": "128M", "innodb-flush-log-at-trx-commit": "0",
                            "innodb-doublewrite": "0", "character-set-server": "utf8mb4",
                            "collation-server": "utf8mb4_general_ci", "max-connections": "20"},
}


def find_binaries() -> tuple[Path, Path] | None:
    """(mariadbd, mariadb-install-db) or None."""
    override = os.environ.get(BIN_ENV)
    if override:
        dirs = [Path(override)]
    else:
        dirs = [Path("/usr/sbin"), Path("/usr/bin")] + [Path(p) for p in os.environ.get("PATH", "").split(":") if p]
    server = install = None
    for d in dirs:
        for name in ("mariadbd", "mysqld"):
            if server is None and os.access(d / name, os.X_OK):
                server = d / name
        for name in ("mariadb-install-db", "mysql_install_db"):
            if install is None and os.access(d / name, os.X_OK):
                install = d / name
    if override is None and install is None:
        found = shutil.which("mariadb-install-db")
        install = Path(found) if found else None
    return (server, install) if server and install else None


def unavailable_reason() -> str | None:
    return None if find_binaries() else MISSING


def binary_version(server: Path) -> str | None:
    try:
        out = subprocess.run([str(server), "--no-defaults", "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"Ver (\d+(?:\.\d+)+)-MariaDB", out.stdout)
    return f"MariaDB {m.group(1)}" if m else (out.stdout.strip() or None)


def installed_version() -> str | None:
    """The version of the MariaDB a throwaway server would run, or None."""
    found = find_binaries()
    return binary_version(found[0]) if found else None


class MariadbServer(ThrowawayServer):
    family = "mariadb"
    user_candidates = ("mysql", "nobody")
    stop_signal = signal.SIGTERM

    @staticmethod
    def settings_table() -> dict[str, dict[str, Any]]:
        return SETTINGS

    def _start(self, settings: dict[str, Any]) -> None:
        found = find_binaries()
        if found is None:
            raise ServerError(MISSING)
        mariadbd, install_db = found
        ident: Identity = service_identity(self.user_candidates)
        self.dir = private_dir("crossings-mariadb-", ident)
        self.record.update(binaries=str(mariadbd), version=binary_version(mariadbd), run_as=ident.name,
                           directory=str(self.dir))
        data = self.dir / "data"
        tmp = self.dir / "tmp"
        tmp.mkdir(mode=0o700)
        if ident.switch:
            os.chown(tmp, ident.uid, ident.gid)
        self.record["init_s"] = round(run_step(
            [str(install_db), "--no-defaults", f"--datadir={data}", "--auth-root-authentication-method=socket",
             "--skip-test-db", "--skip-name-resolve", f"--tmpdir={tmp}"],
            ident, self.dir, self.dir / "install-db.log", "mariadb-install-db"), 3)
        init = self.dir / "init.sql"
        pw = self.password  # hex: safe inside a SQL string literal
        write_private(init, "\n".join([
            "CREATE DATABASE IF NOT EXISTS crossings;",
            f"CREATE USER IF NOT EXISTS 'crossings'@'localhost' IDENTIFIED BY '{pw}';",
            f"CREATE USER IF NOT EXISTS 'crossings'@'127.0.0.1' IDENTIFIED BY '{pw}';",
            "GRANT ALL PRIVILEGES ON crossings.* TO 'crossings'@'localhost';",
            "GRANT ALL PRIVILEGES ON crossings.* TO 'crossings'@'127.0.0.1';",
            # the TPC-H data sets' databases (tpch_sf0_01, ...: harness.run.datasets.tpch)
            "GRANT ALL PRIVILEGES ON `tpch\\_%`.* TO 'crossings'@'localhost';",
            "GRANT ALL PRIVILEGES ON `tpch\\_%`.* TO 'crossings'@'127.0.0.1';",
            ""]), ident)
        self.sock = self.dir / "mariadb.sock"
        argv = [str(mariadbd), "--no-defaults", f"--datadir={data}", f"--socket={self.sock}",
                f"--pid-file={self.dir / 'mariadbd.pid'}", f"--tmpdir={tmp}", f"--init-file={init}",
                "--skip-name-resolve", "--skip-log-bin", "--log-error=" + str(self.log)]
        if self.transport == "tcp":
            self.port = free_port()
            argv += ["--bind-address=127.0.0.1", f"--port={self.port}"]
        else:
            argv += ["--skip-networking"]
        argv += [f"--{k}={v}" for k, v in settings.items()]
        self.proc = spawn(argv, ident, self.dir, self.dir / "stdout.log", signal.SIGTERM)
        self.record["pid"] = self.proc.pid

        def ready() -> bool:
            try:
                return self.sock.exists() and "ready for connections" in self.log.read_text(errors="replace")
            except OSError:
                return False

        try:
            self.record["ready_s"] = round(wait_until(ready, self.proc, self.log, "mariadbd"), 3)
        finally:
            init.unlink(missing_ok=True)
        self.record["endpoint"] = (f"tcp 127.0.0.1:{self.port}" if self.transport == "tcp"
                                   else f"unix socket {self.sock}")

    def _dsn(self) -> str:
        if self.transport == "tcp":
            return f"mariadb://{self.user}:{self.password}@127.0.0.1:{self.port}/crossings"
        return f"mariadb://{self.user}:{self.password}@localhost/crossings?unix_socket={self.sock}"
