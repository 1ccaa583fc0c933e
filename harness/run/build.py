"""A foreign worker (C, Java, Go, Haskell) built on demand into the cache, once per key.

Each launcher says what its product depends on (sources, the tool's path and version, flags,
libraries) and how to make it; this module owns the rest, so every runtime builds the same way:
the key (a hash of those parts), the cache directory (`data/cache/<kind>`, or the directory a
variable names), the directory's lock (two runners never build the same entry at once), the
build record `<stem>.json` beside the product (which the probe reports and the manifest keeps),
the cache's `.gitignore`, the sweep of a build killed mid-way, and the in-process memo (one run
uses one build even if a source is edited while it runs). A product is made in a scratch
directory and renamed into place, so a half-built one is never found.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable

from harness import fsutil


class BuildError(Exception):
    """A foreign worker cannot be built or run here; the message says why and what to install."""


@dataclass(frozen=True)
class Build:
    """A built product (a binary, or a directory of classes) and its build record."""

    path: Path
    info: dict[str, Any]

    @property
    def binary(self) -> Path:
        return self.path

    @property
    def classes(self) -> Path:
        return self.path


def build_key(parts: Iterable[bytes]) -> str:
    """16 hex digits of a hash of `parts`, each length-prefixed so no two lists collide."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:16]


def cache_dir(kind: str, env: str) -> Path:
    """Where builds of `kind` live: `data/cache/<kind>`, or the directory `env` names."""
    return fsutil.cache_dir(kind, env)


def ignore_in_git(cache: Path) -> None:
    """The cache holds build products only: keep it out of git even without a top-level rule."""
    cache.mkdir(parents=True, exist_ok=True)
    gi = cache / ".gitignore"
    if not gi.exists():
        gi.write_text("*\n")


def shown_path(path: Path) -> str:
    """`path` relative to the project when it is inside it (build records say where sources are)."""
    return str(path.relative_to(fsutil.PROJECT_ROOT) if path.is_relative_to(fsutil.PROJECT_ROOT) else path)


def tool_output(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    """A toolchain's answer to `argv` (its version, say); BuildError when it does not run."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BuildError(f"{argv[0]} does not run: {exc}") from None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def cached(cache: Path, family: str, key: str, make: Callable[[Path], tuple[Path, dict[str, Any]]]) -> Build:
    """The product `<family>-<key>` in `cache`: found there with its record, or made now.

    `make(scratch)` builds in a fresh scratch directory inside the cache and returns the product's
    path (inside scratch) and the build record; it raises BuildError when the build fails. The
    product is renamed into place and then its record written, all under the cache's lock."""
    stem = f"{family}-{key}"
    product = cache / stem
    record = cache / f"{stem}.json"
    with fsutil.locked(cache):
        ignore_in_git(cache)
        for stale in cache.glob(f".{family}-*"):  # a build killed mid-way (we hold the lock)
            _remove(stale)
        if product.exists() and record.exists():
            info = json.loads(record.read_text())
            info["cached"] = True
            return Build(product, info)
        scratch = Path(tempfile.mkdtemp(prefix=f".{stem}.", dir=cache))
        try:
            made, info = make(scratch)
            if product.exists():  # renamed into place by a build killed before its record
                _remove(product)
            os.replace(made, product)
            fsutil.write_json_atomic(record, info)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return Build(product, dict(info, cached=False))


#: builds used by this runner process, by what chooses them: one run uses one build
_MEMO: dict[Hashable, Build] = {}


def once(key: Hashable, make: Callable[[], Build]) -> Build:
    """The build this process already used under `key`, or `make()`'s (remembered)."""
    if key not in _MEMO:
        _MEMO[key] = make()
    return _MEMO[key]


def probe_json(argv: list[str], timeout: float, name: str, check: bool = True) -> dict[str, Any]:
    """The last line of a worker's `--probe` output, parsed; with `check`, a failing exit is a
    BuildError naming `name`."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise BuildError(f"{name} --probe exited with status {proc.returncode}: {(proc.stderr or '').strip()[-300:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def probed(runtime: str, answer: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`answer()`, or an unavailable probe saying why (a failed build, a probe that failed)."""
    try:
        return answer()
    except BuildError as exc:
        return {"available": False, "reason": f"not available on {runtime}: {exc}"}
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError, IndexError) as exc:
        return {"available": False, "reason": f"not available on {runtime}: probe failed: {type(exc).__name__}: {exc}"}


def failing_argv(message: str) -> list[str]:
    """A process that fails at once with `message`: a build that vanished after the probe fails
    that process with the reason, not the run."""
    return [sys.executable, "-c", "import sys; sys.exit(sys.argv[1])", message]
