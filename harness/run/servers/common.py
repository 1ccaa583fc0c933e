"""What the throwaway PostgreSQL and MariaDB servers share (runner side).

A throwaway server lives in a private temporary directory (mode 0700) holding its data
directory, its Unix socket and its log; it runs as an unprivileged user when the harness runs
as root (PostgreSQL refuses root; MariaDB would need --user), in its own session so a Ctrl-C at
the terminal does not reach it, with PR_SET_PDEATHSIG so it gets a shutdown signal even if the
harness itself is SIGKILLed. `stop()` shuts it down, kills what is left of its process group,
and removes the directory.
"""
from __future__ import annotations

import ctypes
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: environment variables choosing the throwaway servers' named configuration and transport
SETTINGS_ENV = "CROSSINGS_SERVER_SETTINGS"
TRANSPORT_ENV = "CROSSINGS_SERVER_TRANSPORT"
DEFAULT_SETTINGS = "throwaway-default"
#: for tests only: a known throwaway password, so a test can search a run's files for it
PASSWORD_ENV = "CROSSINGS_THROWAWAY_PASSWORD"
READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0
LOG_TAIL_LINES = 3

_PR_SET_PDEATHSIG = 1
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _prctl = None


class ServerError(Exception):
    """A throwaway server could not be started; the message says why (never a password)."""


@dataclass(frozen=True)
class Identity:
    """Who the server runs as: None fields mean "as the harness's own user"."""

    name: str
    uid: int | None = None
    gid: int | None = None

    @property
    def switch(self) -> bool:
        return self.uid is not None


def service_identity(candidates: tuple[str, ...]) -> Identity:
    """As root: the first existing unprivileged system user among `candidates`; else ourselves."""
    if os.geteuid() != 0:
        return Identity(pwd.getpwuid(os.geteuid()).pw_name)
    for name in candidates:
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        if pw.pw_uid != 0:
            return Identity(name, pw.pw_uid, pw.pw_gid)
    raise ServerError(f"running as root and none of the users {', '.join(candidates)} exists to run the server "
                      "unprivileged: create one (e.g. install the Debian package, which adds it) or run as a "
                      "normal user")


def _searchable_by(path: Path, ident: Identity) -> bool:
    """Can `ident` reach `path` (x permission on every ancestor)? Checked by mode bits."""
    if not ident.switch:
        return True
    for p in [path, *path.parents]:
        st = p.stat()
        if st.st_uid == ident.uid:
            ok = st.st_mode & 0o100
        elif st.st_gid == ident.gid:
            ok = st.st_mode & 0o010
        else:
            ok = st.st_mode & 0o001
        if not ok:
            return False
    return True


def private_dir(prefix: str, ident: Identity) -> Path:
    """A new 0700 temp dir owned by the server's user, under $TMPDIR (or /tmp if the server
    user cannot reach $TMPDIR, e.g. a root-only pytest temp dir)."""
    base = Path(tempfile.gettempdir())
    if not _searchable_by(base, ident):
        if _searchable_by(Path("/tmp"), ident):
            base = Path("/tmp")
        else:
            raise ServerError(f"the server user {ident.name} cannot reach {base}: set TMPDIR to a directory it can "
                              "traverse")
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    os.chmod(path, 0o700)
    (path / OWNER_FILE).write_text(f"{os.getpid()}\n")  # lets a later run sweep it if we are SIGKILLed
    if ident.switch:
        os.chown(path, ident.uid, ident.gid)
    return path


OWNER_FILE = "harness.pid"
DIR_PREFIXES = ("crossings-postgresql-", "crossings-mariadb-", "crossings-ferretdb-")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _mentioned_by_a_process(text: str) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


def sweep_stale_dirs() -> list[str]:
    """Remove throwaway server directories whose harness died without cleaning up (SIGKILL:
    PR_SET_PDEATHSIG already stopped the server, only its directory is left). A directory is
    stale when the harness pid in its owner file is gone and no process mentions the directory."""
    removed = []
    bases = {Path(tempfile.gettempdir()), Path("/tmp")}
    for base in bases:
        try:
            entries = [p for p in base.iterdir() if p.name.startswith(DIR_PREFIXES) and p.is_dir()]
        except OSError:
            continue
        for d in entries:
            try:
                st = d.stat()
                pid = int((d / OWNER_FILE).read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            if os.geteuid() not in (0, st.st_uid) or _pid_alive(pid) or _mentioned_by_a_process(str(d)):
                continue
            shutil.rmtree(d, ignore_errors=True)
            removed.append(str(d))
    return removed


def write_private(path: Path, text: str, ident: Identity) -> None:
    """A 0600 file readable by the server's user only (holds a password briefly)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    if ident.switch:
        os.chown(path, ident.uid, ident.gid)


def new_password() -> str:
    """Random throwaway password: hex, so it needs no quoting in a URL, a conninfo or SQL."""
    return secrets.token_hex(16)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(home: Path) -> dict[str, str]:
    """A small, clean environment: the harness's (which may hold DSNs) is not passed on."""
    return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "LANG": "C",
            "HOME": str(home), "TZ": os.environ.get("TZ", "UTC")}


def _child_setup(sig: int) -> Any:
    def setup() -> None:  # runs in the child after fork and after the uid/gid switch
        if _prctl is not None:
            _prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
    return setup


def spawn(argv: list[str], ident: Identity, cwd: Path, log: Path, death_signal: int,
          extra_env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start a process as `ident`, in its own session, output to `log`, killed if we die;
    `extra_env` passes settings (a secret, say) that must not show on a command line."""
    kw: dict[str, Any] = {}
    if ident.switch:
        kw.update(user=ident.uid, group=ident.gid, extra_groups=[])
    with open(log, "ab") as out:
        if ident.switch:
            os.chown(log, ident.uid, ident.gid)
        return subprocess.Popen(argv, cwd=cwd, env=dict(server_env(cwd), **(extra_env or {})), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_child_setup(death_signal), **kw)


def run_step(argv: list[str], ident: Identity, cwd: Path, log: Path, what: str, timeout: float = 120.0) -> float:
    """Run a set-up command (initdb, mariadb-install-db) to completion; its duration in s."""
    t0 = time.monotonic()
    proc = spawn(argv, ident, cwd, log, signal.SIGKILL)
    try:
        rc = proc.wait(timeout=timeout)
    except BaseException:
        kill_group(proc)
        raise
    if rc != 0:
        raise ServerError(f"{what} failed (exit status {rc}): {log_tail(log)}")
    return time.monotonic() - t0


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def stop_process(proc: subprocess.Popen, sig: int, timeout: float = STOP_TIMEOUT_S) -> None:
    """Ask the server to shut down with `sig`; SIGKILL its whole process group if it lingers."""
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
    # the server's children (PostgreSQL backends) share its process group: none may outlive it
    deadline = time.monotonic() + 5
    while group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    kill_group(proc)


def log_tail(log: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "no log"
    tail = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(tail) or "empty log"


def wait_until(ready: Any, proc: subprocess.Popen, log: Path, what: str, timeout: float = READY_TIMEOUT_S) -> float:
    """Poll `ready()` until true; fail early if the server exits. Returns seconds waited."""
    t0 = time.monotonic()
    while True:
        if proc.poll() is not None:
            raise ServerError(f"{what} exited with status {proc.returncode} while starting: {log_tail(log)}")
        if ready():
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise ServerError(f"{what} not ready after {timeout:.0f} s: {log_tail(log)}")
        time.sleep(0.05)


def remove_dir(path: Path | None) -> None:
    if path is not None and path.exists():
        shutil.rmtree(path, ignore_errors=True)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def transport_choice() -> str:
    value = (os.environ.get(TRANSPORT_ENV) or "").strip().lower() or "unix"
    if value not in ("unix", "tcp"):
        raise ServerError(f"{TRANSPORT_ENV} must be unix or tcp, got {value!r}")
    return value


class ThrowawayServer:
    """Base of the throwaway servers: subclasses implement `_start()` and `_dsn()`."""

    family = ""
    user_candidates: tuple[str, ...] = ("nobody",)
    stop_signal = signal.SIGTERM

    def __init__(self, settings_name: str | None = None, transport: str | None = None,
                 password: str | None = None) -> None:
        self.settings_name = settings_name or os.environ.get(SETTINGS_ENV) or DEFAULT_SETTINGS
        self.transport = transport or transport_choice()
        self.user = "crossings"
        self.password = password or os.environ.get(PASSWORD_ENV) or new_password()
        self.dir: Path | None = None
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self.record: dict[str, Any] = {"family": self.family, "source": "throwaway",
                                       "settings_name": self.settings_name, "listen": self.transport}

    @property
    def log(self) -> Path:
        assert self.dir is not None
        return self.dir / "server.log"

    def start(self) -> None:
        settings = self.settings_table().get(self.settings_name)
        if settings is None:
            raise ServerError(f"unknown server settings {self.settings_name!r}: "
                              f"choose one of {', '.join(self.settings_table())}")
        self.record["requested_settings"] = dict(settings)
        self.record["start_requested"] = now_iso()
        t0 = time.monotonic()
        try:
            self._start(settings)
        except BaseException:
            self.stop()
            raise
        self.record["started"] = now_iso()
        self.record["start_s"] = round(time.monotonic() - t0, 3)

    def stop(self) -> None:
        t0 = time.monotonic()
        if self.proc is not None:
            stop_process(self.proc, self.stop_signal)
            self.record["exit_status"] = self.proc.returncode
            self.proc = None
            self.record["stopped"] = now_iso()
            self.record["stop_s"] = round(time.monotonic() - t0, 3)
        remove_dir(self.dir)
        self.dir = None

    def engine_config(self) -> dict[str, Any]:
        return {"family": self.family, "source": "throwaway", "dsn": self._dsn(), "settings": self.settings_name,
                "server": self.public_record()}

    def public_record(self) -> dict[str, Any]:
        return dict(self.record)

    # -- subclass hooks --
    @staticmethod
    def settings_table() -> dict[str, dict[str, Any]]:
        raise NotImplementedError

    def _start(self, settings: dict[str, Any]) -> None:
        raise NotImplementedError

    def _dsn(self) -> str:
        raise NotImplementedError
