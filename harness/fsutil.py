"""Where the project lives, how files are written (atomically, and under a lock when shared), and
how a set of files is known unchanged without reading it (its stat fingerprint).

Standard library only (the worker writes its result with `write_json_atomic` too).
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

#: the checkout: `harness/`'s parent. Workers run with it as cwd and on PYTHONPATH.
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def cache_dir(kind: str, env: str | None = None) -> Path:
    """`data/cache/<kind>` under the project root, or the directory the variable `env` names: the one
    place the cache's location is spelled, so a build, a data set and the analysis never disagree."""
    chosen = os.environ.get(env) if env else None
    return Path(chosen) if chosen else PROJECT_ROOT / "data" / "cache" / kind


#: a file changed less than this long ago may change again within its file system's timestamp
#: granularity with nothing in its stat to show it (git's "racy" case): what was read of it is
#: not remembered by its stat
RACY_NS = 2_000_000_000


def stat_fingerprint(paths: Iterable[Path]) -> tuple[str, int]:
    """A hash of what `os.stat` says of each file that changes whenever its bytes do (path, inode,
    size, mtime and ctime in ns: any rewrite moves the ctime, which no program can set back), and
    the newest ctime among them: a few milliseconds for files whose bytes take a second to read."""
    h = hashlib.blake2b(digest_size=20)
    newest = 0
    for p in paths:
        st = os.stat(p)
        newest = max(newest, st.st_ctime_ns)
        h.update(f"{os.path.abspath(p)}\x1f{st.st_ino}\x1f{st.st_size}\x1f{st.st_mtime_ns}\x1f{st.st_ctime_ns}\x1e"
                 .encode())
    return h.hexdigest(), newest


def settled(newest_ctime_ns: int) -> bool:
    """Whether files whose newest change is at `newest_ctime_ns` may be known by their stat."""
    return time.time_ns() - newest_ctime_ns > RACY_NS


@contextlib.contextmanager
def replacing(path: Path, sync: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside `path`; once the block has written it, fsync it and rename it
    over `path`, so a reader sees the old file or the whole new one, never a part. If the block
    fails (a crash, a full disk), the temporary file is removed and `path` is untouched.
    sync=False skips the fsync: for caches, whose readers check every entry and recompute a bad
    one, so a power cut may lose an entry but never make a wrong one trusted."""
    path = Path(path)
    tmp = path.with_name(".%s.tmp.%d" % (path.name, os.getpid()))
    try:
        yield tmp
        if sync:
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_bytes_atomic(path: Path, data: bytes, sync: bool = True) -> None:
    """Write `path` atomically (see `replacing`)."""
    with replacing(Path(path), sync) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)


def write_json_atomic(path: Path, obj: Any, pretty: bool = True) -> None:
    """JSON written atomically; `pretty` (indent, sorted keys) for files people read."""
    if pretty:
        text = json.dumps(obj, indent=1, sort_keys=True, default=str) + "\n"
    else:
        text = json.dumps(obj)
    write_bytes_atomic(Path(path), text.encode())


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """An exclusive lock on a directory (its `.lock` file), so two processes never build the
    same cache entry at once."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class Busy(Exception):
    """Another process holds the lock `try_locked` asked for."""


@contextlib.contextmanager
def try_locked(directory: Path, wait: bool = False) -> Iterator[None]:
    """An exclusive lock on the directory itself (flock on its descriptor: no lock file is left
    behind), or `Busy` at once if another process holds it (with `wait`, block until it is
    free). Released when the holder exits, however it exits, so a killed holder never leaves a
    stale lock."""
    fd = os.open(str(directory), os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(str(directory)) from None
        yield
    finally:
        os.close(fd)
