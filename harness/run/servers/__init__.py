"""Servers for the server engines (runner side): a user's DSN, or a throwaway instance.

`run_servers(engines, dsns)` is the context manager the runner wraps a run in, handed the
plan's engines. For each server family they need (the engine registry's `server_family`):
- a DSN from `--dsn FAMILY=DSN` or $CROSSINGS_POSTGRESQL_DSN / $CROSSINGS_MARIADB_DSN: the
  user's server is used as it is, never started or stopped;
- else a throwaway server (harness.run.servers.postgresql / .mariadb) is started in a private temp
  dir, and stopped and removed when the run ends, whether it ends normally, by Ctrl-C, by
  SIGTERM or by an exception.
It yields `{engine name: engine_config}`; a family whose server cannot be had gets
`{"unavailable": reason}` so its cells are skipped with that reason and the rest of the run
goes on. Its `records` (start and stop times, versions; no secrets) are complete once the block
has exited, and the runner writes them into the manifest.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any, Iterator

from harness import engines as engine_registry
from harness.errors import UserError
from harness.redaction import normalize_dsn
from harness.run.servers import ferretdb, mariadb, postgresql
from harness.run.servers.common import (DEFAULT_SETTINGS, SETTINGS_ENV, ServerError, ThrowawayServer,
                                    sweep_stale_dirs)

#: server family -> its module: `unavailable_reason()`, `installed_version()`, `DSN_ENV` and a
#: ThrowawayServer subclass named in SERVER_CLASSES. The engine registry names each engine's family.
FAMILIES: dict[str, Any] = {"postgresql": postgresql, "mariadb": mariadb, "ferretdb": ferretdb}
SERVER_CLASSES: dict[str, type[ThrowawayServer]] = {"postgresql": postgresql.PostgresqlServer,
                                                    "mariadb": mariadb.MariadbServer,
                                                    "ferretdb": ferretdb.FerretdbServer}
DSN_ENV = {family: module.DSN_ENV for family, module in FAMILIES.items()}


def family_of(engine: str) -> str | None:
    """The server family an engine needs, or None for embedded engines."""
    return engine_registry.get(engine).server_family


def unavailable_reason(family: str) -> str | None:
    """Why a throwaway server of `family` cannot be started here (binaries), or None."""
    return FAMILIES[family].unavailable_reason()


def user_dsns(dsn_args: list[str] | None) -> dict[str, str]:
    """Family -> DSN from `--dsn family=DSN` (wins) and the CROSSINGS_*_DSN variables."""
    out = {f: os.environ[v] for f, v in DSN_ENV.items() if os.environ.get(v)}
    for item in dsn_args or []:
        family, sep, dsn = item.partition("=")
        family = family.strip().lower()
        if not sep or family not in FAMILIES or not dsn.strip():
            raise UserError(f"--dsn takes FAMILY=DSN with FAMILY one of {', '.join(FAMILIES)} "
                            "(e.g. postgresql=postgresql://user@host/db)")
        out[family] = dsn.strip()
    return {f: normalize_dsn(d) for f, d in out.items()}


def user_config(family: str, dsn: str) -> dict[str, Any]:
    env = DSN_ENV[family]
    return {"family": family, "source": "user", "dsn": dsn, "settings": "user server (as configured)",
            "server": {"family": family, "source": "user", "note": f"given by --dsn or ${env}; not started or "
                                                                    "stopped by the harness"}}


def listing_config(engine: str) -> dict[str, Any] | None:
    """What `list` (and a probe outside a run) knows about an engine's server, without starting one:
    the user's DSN from the environment (the probe connects), or whether a throwaway server
    could be started."""
    family = family_of(engine)
    if family is None:
        return None
    dsn = os.environ.get(DSN_ENV[family])
    if dsn:
        return user_config(family, dsn)
    reason = unavailable_reason(family)
    if reason:
        return {"family": family, "unavailable": reason}
    version = FAMILIES[family].installed_version()
    return {"family": family, "source": "throwaway", "settings": os.environ.get(SETTINGS_ENV) or DEFAULT_SETTINGS,
            "note": f"a throwaway {version or family} server is started for a run (or give --dsn)"}


class EngineConfigs(dict):
    """`{engine: engine_config}` plus the record of the servers behind them (no secrets)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict[str, Any]] = []


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While servers run, SIGTERM unwinds like Ctrl-C, so the servers are stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _uninterruptible() -> Iterator[None]:
    """A second Ctrl-C must not cut a shutdown short (it would leave a server behind)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextlib.contextmanager
def throwaway(family: str, settings_name: str | None = None, transport: str | None = None,
              password: str | None = None) -> Iterator[ThrowawayServer]:
    """One throwaway server for the duration of the block (tests use this directly)."""
    server = SERVER_CLASSES[family](settings_name, transport, password)
    try:
        server.start()
        yield server
    finally:
        with _uninterruptible():
            server.stop()


@contextlib.contextmanager
def run_servers(engines: list[str], dsns: dict[str, str] | None = None, progress: bool = True
                ) -> Iterator[EngineConfigs]:
    """Start the servers `engines` need (or use the user's `dsns`, family -> DSN); stop them at the end."""
    configs = EngineConfigs()
    families = [f for f in FAMILIES if any(family_of(e) == f for e in engines)]
    dsns = user_dsns(None) if dsns is None else dict(dsns)
    started: list[ThrowawayServer] = []
    if any(f not in dsns for f in families):
        for d in sweep_stale_dirs():
            print(f"removed a stale throwaway server directory {d} (its harness was killed)", file=sys.stderr)
    with contextlib.ExitStack() as stack:
        stack.enter_context(terminate_as_interrupt())

        def stop_all() -> None:
            with _uninterruptible():
                for server in reversed(started):
                    try:
                        server.stop()
                    except Exception as exc:  # noqa: BLE001 - try to stop every server
                        print(f"error stopping the {server.family} server: {exc}", file=sys.stderr)
                    if progress:
                        print(f"stopped throwaway {server.family} server in {server.record.get('stop_s')} s",
                              file=sys.stderr)
                configs.records[:0] = [s.public_record() for s in started]

        stack.callback(stop_all)
        for family in families:
            if family in dsns:
                config = user_config(family, dsns[family])
                configs.records.append(dict(config["server"]))
            else:
                server = SERVER_CLASSES[family]()
                started.append(server)
                try:
                    server.start()
                    config = server.engine_config()
                    if progress:
                        print(f"started throwaway {server.record.get('version') or family} server "
                              f"({server.settings_name}, {server.record.get('endpoint')}) in "
                              f"{server.record.get('start_s')} s", file=sys.stderr)
                except ServerError as exc:
                    config = {"family": family, "unavailable": f"throwaway {family} server: {exc}"}
                    server.record["error"] = str(exc)
            for e in engines:
                if family_of(e) == family:
                    configs[e] = dict(config)
        yield configs
