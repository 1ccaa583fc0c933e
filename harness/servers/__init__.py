"""Servers for the server engines (runner side): a user's DSN, or a throwaway instance.

`run_servers(args)` is the context manager `harness run` wraps a run in. For each server
family the selected engines need (`postgresql/*` -> postgresql, `mariadb/*` -> mariadb):
- a DSN from `--dsn FAMILY=DSN` or $CROSSINGS_POSTGRESQL_DSN / $CROSSINGS_MARIADB_DSN: the
  user's server is used as it is, never started or stopped;
- else a throwaway server (harness.servers.postgresql / .mariadb) is started in a private temp
  dir, and stopped and removed when the run ends, whether it ends normally, by Ctrl-C, by
  SIGTERM or by an exception.
It yields `{engine name: engine_config}`; a family whose server cannot be had gets
`{"unavailable": reason}` so its cells are skipped with that reason and the rest of the run
goes on. Start and stop times are written into the run's manifest under "servers".
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

from harness.servers import mariadb, postgresql
from harness.servers.common import (DEFAULT_SETTINGS, SETTINGS_ENV, ServerError, ThrowawayServer,
                                    sweep_stale_dirs)

FAMILIES: dict[str, Any] = {"postgresql": postgresql, "mariadb": mariadb}
SERVER_CLASSES: dict[str, type[ThrowawayServer]] = {"postgresql": postgresql.PostgresqlServer,
                                                    "mariadb": mariadb.MariadbServer}
DSN_ENV = {"postgresql": postgresql.DSN_ENV, "mariadb": mariadb.DSN_ENV}


def family_of(engine: str) -> str | None:
    """The server family an engine needs, or None for embedded engines."""
    family = engine.split("/", 1)[0]
    return family if family in FAMILIES else None


def unavailable_reason(family: str) -> str | None:
    """Why a throwaway server of `family` cannot be started here (binaries), or None."""
    return FAMILIES[family].unavailable_reason()


def user_dsns(dsn_args: list[str] | None) -> dict[str, str]:
    """Family -> DSN from `--dsn family=DSN` (wins) and the CROSSINGS_*_DSN variables."""
    from harness.errors import UserError

    out = {f: os.environ[v] for f, v in DSN_ENV.items() if os.environ.get(v)}
    for item in dsn_args or []:
        family, sep, dsn = item.partition("=")
        family = family.strip().lower()
        if not sep or family not in FAMILIES or not dsn.strip():
            raise UserError(f"--dsn takes FAMILY=DSN with FAMILY one of {', '.join(FAMILIES)} "
                            "(e.g. postgresql=postgresql://user@host/db)")
        out[family] = dsn.strip()
    return out


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
    module = FAMILIES[family]
    if family == "postgresql":
        version = module.binary_version(module.find_bindir())
    else:
        version = module.binary_version(module.find_binaries()[0])
    return {"family": family, "source": "throwaway", "settings": os.environ.get(SETTINGS_ENV) or DEFAULT_SETTINGS,
            "note": f"a throwaway {version or family} server is started for a run (or give --dsn)"}


class EngineConfigs(dict):
    """`{engine: engine_config}` plus the record of the servers behind them."""

    def __init__(self) -> None:
        super().__init__()
        self.servers: list[dict[str, Any]] = []
        self.run_dirs: list[Path] = []

    def attach_run(self, run_dir: Path) -> None:
        """The runner names the run directory, so stop times can go into its manifest."""
        if Path(run_dir) not in self.run_dirs:
            self.run_dirs.append(Path(run_dir))

    def write_manifests(self) -> None:
        from harness import store

        for run_dir in self.run_dirs:
            path = run_dir / "manifest.json"
            if not path.exists():
                continue
            try:
                manifest = store.read_manifest(run_dir)
            except Exception:  # noqa: BLE001 - never let bookkeeping hide the run's own outcome
                continue
            manifest.setdefault("servers", []).extend(self.servers)
            store.write_json_atomic(path, manifest)


def selected_engines(args: Any) -> list[str]:
    """Engines the run will use: --engines globs, else the profile's (or the resumed plan's)."""
    from harness.errors import UserError
    from harness.profiles import PROFILES
    from harness.runner import resolve_engines, split_globs

    if getattr(args, "resume", None):
        import json

        try:
            return list(json.loads((Path(args.resume) / "plan.json").read_text())["engines"])
        except (OSError, ValueError, KeyError):
            return []
    patterns = split_globs(getattr(args, "engines", None))
    if not patterns:
        profile = PROFILES.get(getattr(args, "profile", None) or "quick")
        patterns = list(profile.engines) if profile else []
    try:
        return resolve_engines(patterns)
    except UserError:
        return []  # the runner reports the bad name itself


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
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
def run_servers(args: Any, progress: bool = True) -> Iterator[EngineConfigs]:
    """Start the servers the run's engines need (or use the user's DSNs); stop them at the end."""
    configs = EngineConfigs()
    engines = selected_engines(args)
    families = [f for f in FAMILIES if any(family_of(e) == f for e in engines)]
    dsns = user_dsns(getattr(args, "dsn", None))
    started: list[ThrowawayServer] = []
    if any(f not in dsns for f in families):
        for d in sweep_stale_dirs():
            print(f"removed a stale throwaway server directory {d} (its harness was killed)", file=sys.stderr)
    with contextlib.ExitStack() as stack:
        stack.enter_context(_terminate_as_interrupt())

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
                configs.servers = [s.public_record() for s in started] + configs.servers
                configs.write_manifests()

        stack.callback(stop_all)
        for family in families:
            if family in dsns:
                config = user_config(family, dsns[family])
                configs.servers.append(dict(config["server"]))
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
