"""Runner side of the Haskell worker (runtimes `haskell` and `haskell-O0`): build on demand, probe, launch.

The worker is one Haskell program (`Main.hs` and the modules beside it) that speaks the worker
protocol itself: it reads the runner's spec JSON and writes the result JSON (Protocol.hs). It is
compiled with Debian's `ghc` against Debian's `libghc-*-dev` packages into
`data/cache/haskell/bench-<opt>-<key>`, where <key> hashes the sources, the compiler (path and
`ghc --numeric-version`), the flags and the installed versions of the packages it links
(`ghc-pkg list`). Changing any of them builds a new binary; otherwise the cached one is reused.
Each build writes `bench-<opt>-<key>.json` beside it (command, ghc and package versions, source
hash, build seconds), which the probe reports and the manifest records.

Runtime `haskell` is `ghc -O2`; `haskell-O0` is `ghc -O0`, the seed 002 comparison of an
unoptimised build ("ghc --make" without -O). Environment: `CROSSINGS_GHC` (else `ghc`) chooses
the compiler; `CROSSINGS_HASKELL_CACHE` moves the cache directory.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.fsutil import PROJECT_ROOT, locked, write_json_atomic

HASKELL_DIR = Path(__file__).resolve().parent
MAIN = HASKELL_DIR / "Main.hs"
#: optimisation flag per runtime family
OPT_FLAGS = {"haskell": "-O2", "haskell-O0": "-O0"}
#: the GHC packages the program links, and the Debian package that ships each
PACKAGES = {
    "base": "ghc", "bytestring": "ghc", "containers": "ghc", "deepseq": "ghc", "directory": "ghc",
    "filepath": "ghc", "mtl": "ghc", "text": "ghc", "unix": "ghc",
    "aeson": "libghc-aeson-dev", "scientific": "libghc-scientific-dev",
    "HDBC": "libghc-hdbc-dev", "HDBC-sqlite3": "libghc-hdbc-sqlite3-dev",
    "HDBC-postgresql": "libghc-hdbc-postgresql-dev", "postgresql-simple": "libghc-postgresql-simple-dev",
    "postgresql-libpq": "libghc-postgresql-libpq-dev", "persistent": "libghc-persistent-dev",
    "persistent-sqlite": "libghc-persistent-sqlite-dev", "acid-state": "libghc-acid-state-dev",
    "safecopy": "libghc-safecopy-dev", "ixset": "libghc-ixset-dev", "cryptonite": "libghc-cryptonite-dev",
    "memory": "libghc-memory-dev",
}
#: what `.ci/run` installs (and an error message suggests)
DEBIAN_PACKAGES = ("ghc", "libghc-hdbc-sqlite3-dev", "libghc-hdbc-postgresql-dev", "libghc-postgresql-simple-dev",
                   "libghc-persistent-sqlite-dev", "libghc-acid-state-dev", "libghc-aeson-dev", "libghc-ixset-dev",
                   "libghc-cryptonite-dev")
BUILD_TIMEOUT_S = 900


class BuildError(Exception):
    """The Haskell worker cannot be built here; the message says why and what to install."""


@dataclass(frozen=True)
class Build:
    binary: Path
    info: dict[str, Any]


def cache_dir() -> Path:
    return Path(os.environ.get("CROSSINGS_HASKELL_CACHE") or PROJECT_ROOT / "data" / "cache" / "haskell")


def compiler() -> str:
    return os.environ.get("CROSSINGS_GHC") or "ghc"


def sources(directory: Path = HASKELL_DIR) -> list[Path]:
    return sorted(directory.glob("*.hs"))


def _run(argv: list[str], timeout: float = 60) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BuildError(f"{argv[0]} does not run: {exc}") from None
    if out.returncode != 0:
        raise BuildError(f"{' '.join(argv)} failed: {(out.stderr or out.stdout).strip()[-300:]}")
    return out.stdout.strip()


def package_versions(ghc_path: str) -> dict[str, str | None]:
    """Installed version of each package the program links (`ghc-pkg list`), None when missing."""
    ghc_pkg = Path(ghc_path).with_name(Path(ghc_path).name.replace("ghc", "ghc-pkg", 1))
    tool = str(ghc_pkg) if ghc_pkg.exists() else (shutil.which("ghc-pkg") or "ghc-pkg")
    listed = _run([tool, "list", "--simple-output"]).split()
    found: dict[str, str] = {}
    for ident in listed:
        name, _, version = ident.rpartition("-")
        if name in PACKAGES:
            found[name] = version
    return {name: found.get(name) for name in PACKAGES}


def build_key(srcs: list[tuple[str, bytes]], ghc_path: str, ghc_version: str, flags: list[str],
              packages: dict[str, str | None]) -> str:
    h = hashlib.sha256()
    parts = [p for name, data in srcs for p in (name.encode(), data)]
    parts += [ghc_path.encode(), ghc_version.encode(), json.dumps(flags).encode(),
              json.dumps(packages, sort_keys=True).encode()]
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:16]


def flags_for(runtime: str) -> list[str]:
    opt = OPT_FLAGS[runtime]
    return [opt, "-XCPP", f"-DCROSSINGS_OPT=\"{opt.lstrip('-')}\""]


def build(runtime: str = "haskell", source_dir: Path = HASKELL_DIR, cache: Path | None = None,
          ghc: str | None = None) -> Build:
    """The binary for `runtime`: from the cache, or compiled now. Raises BuildError."""
    ghc_name = ghc or compiler()
    ghc_path = shutil.which(ghc_name)
    if ghc_path is None:
        raise BuildError(f"no Haskell compiler: {ghc_name!r} not found on PATH (install Debian's "
                         f"{' '.join(DEBIAN_PACKAGES)}; or set CROSSINGS_GHC)")
    ghc_version = _run([ghc_path, "--numeric-version"])
    packages = package_versions(ghc_path)
    missing = [p for p, v in packages.items() if v is None]
    if missing:
        debs = sorted({PACKAGES[p] for p in missing})
        raise BuildError(f"GHC packages missing: {', '.join(missing)} (install Debian's {' '.join(debs)})")
    flags = flags_for(runtime)
    cache = Path(cache or cache_dir())
    srcs = [(p.name, p.read_bytes()) for p in sources(source_dir)]
    if not any(name == "Main.hs" for name, _ in srcs):
        raise BuildError(f"no Main.hs in {source_dir}")
    key = build_key(srcs, ghc_path, ghc_version, flags, packages)
    stem = f"bench-{OPT_FLAGS[runtime].lstrip('-')}-{key}"
    binary = cache / stem
    meta_path = cache / f"{stem}.json"
    cache.mkdir(parents=True, exist_ok=True)
    with locked(cache):
        _ignore_in_git(cache)
        for stale in cache.glob(".bench-*"):  # a build killed mid-way (we hold the lock)
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)
        if binary.exists() and meta_path.exists():
            info = json.loads(meta_path.read_text())
            info["cached"] = True
            return Build(binary, info)
        work = Path(tempfile.mkdtemp(prefix=f".{stem}.", dir=cache))
        try:
            # the sources are copied first, so an edit during the build cannot mix two versions
            for name, data in srcs:
                (work / name).write_bytes(data)
            out = work / "bench"
            cmd = [ghc_path, *flags, f"-i{work}", "-outputdir", str(work / "o"), "-o", str(out), str(work / "Main.hs")]
            for p in PACKAGES:
                if p != "base":
                    cmd += ["-package", p]
            started = time.monotonic()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
            except (OSError, subprocess.SubprocessError) as exc:
                raise BuildError(f"ghc failed to run: {exc}") from None
            seconds = time.monotonic() - started
            if proc.returncode != 0:
                raise BuildError(_explain_failure(proc.stderr or proc.stdout))
            os.chmod(out, 0o755)
            info = {"source_dir": str(source_dir.relative_to(PROJECT_ROOT) if source_dir.is_relative_to(PROJECT_ROOT)
                                      else source_dir),
                    "sources_sha256": {name: hashlib.sha256(data).hexdigest() for name, data in srcs},
                    "compiler_path": ghc_path, "ghc_version": ghc_version, "flags": " ".join(flags[:1]),
                    "packages": packages, "key": key, "build_seconds": round(seconds, 3),
                    "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "command": " ".join(shlex.quote(c) for c in cmd).replace(str(work), "<build-dir>")}
            os.replace(out, binary)
            write_json_atomic(meta_path, info)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return Build(binary, dict(info, cached=False))


def _ignore_in_git(cache: Path) -> None:
    """The cache holds build products only: keep it out of git even without a top-level rule."""
    gi = cache / ".gitignore"
    if not gi.exists():
        gi.write_text("*\n")


def _explain_failure(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    for ln in lines:
        if "Could not find module" in ln or "cannot satisfy -package" in ln or "unknown package" in ln:
            return (f"cannot build the Haskell worker: {ln.strip()} (install Debian's "
                    f"{' '.join(DEBIAN_PACKAGES)})")
    tail = " | ".join(ln.strip() for ln in lines[-4:]) or "no output"
    return f"cannot build the Haskell worker: {tail}"


#: builds used by this runner process: one run uses one binary even if a source is edited meanwhile
_BUILDS: dict[tuple[str, str, str], Build] = {}


def build_for(runtime: str) -> Build:
    """The build this runner process uses for `runtime` (built or found in the cache once)."""
    key = (runtime, compiler(), str(cache_dir()))
    if key not in _BUILDS:
        _BUILDS[key] = build(runtime)
    return _BUILDS[key]


def unavailable_reason(runtime: str) -> str | None:
    """Why `runtime` cannot run here (no ghc, a missing package, a failed build), or None."""
    try:
        build_for(runtime)
    except BuildError as exc:
        return str(exc)
    return None


def probe_argv(runtime: str, engine: str, config_path: str | None) -> list[str]:
    return [str(build_for(runtime).binary), "--probe", engine, *([config_path] if config_path else [])]


def annotate(runtime: str, info: dict[str, Any]) -> dict[str, Any]:
    """The probe's answer plus the build record (ghc and package versions) for the manifest."""
    try:
        b = build_for(runtime)
    except BuildError:
        return info
    info["executable"] = str(b.binary)
    info["build"] = b.info
    versions = info.setdefault("versions", {})
    if isinstance(versions, dict):
        versions.setdefault("ghc", b.info.get("ghc_version"))
        versions["flags"] = b.info.get("flags")
    return info


def worker_argv(runtime: str, engine: str, spec_path: str, result_path: str) -> list[str]:
    """argv of one Haskell process; it reads the spec itself."""
    try:
        b = build_for(runtime)
    except BuildError as exc:
        # the probe succeeded earlier, so this is rare: fail this process with the reason, not the run
        return [sys.executable, "-c", "import sys; sys.exit(sys.argv[1])", f"Haskell worker unavailable: {exc}"]
    return [str(b.binary), spec_path, result_path]
