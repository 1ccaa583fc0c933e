"""Runner side of the Haskell worker (runtimes `haskell`, `haskell-O0`, `haskell-O1`): build on demand, probe, launch.

The worker is one Haskell program (`Main.hs` and the modules beside it) that speaks the worker
protocol itself: it reads the runner's spec JSON and writes the result JSON (Protocol.hs). It is
compiled with Debian's `ghc` against Debian's `libghc-*-dev` packages into
`data/cache/haskell/bench-<opt>-<key>`, where <key> hashes the sources, the compiler (path and
`ghc --numeric-version`), the flags and the installed versions of the packages it links
(`ghc-pkg list`). Changing any of them builds a new binary; otherwise the cached one is reused.
Each build writes `bench-<opt>-<key>.json` beside it (command, ghc and package versions, source
hash, build seconds), which the probe reports and the manifest records.

Runtime `haskell` is `ghc -O2`; `haskell-O0` is `ghc -O0`, the seed 002 comparison of an
unoptimised build ("ghc --make" without -O); `haskell-O1` is `ghc -O1`, what the seed's `ghc -O --make`
means (its LG-O corpus). Environment: `CROSSINGS_GHC` (else `ghc`) chooses
the compiler; `CROSSINGS_HASKELL_CACHE` moves the cache directory.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.run import build as builds
from harness.run.build import Build, BuildError
from harness.run.runtime_base import Runtime

HASKELL_DIR = Path(__file__).resolve().parent
MAIN = HASKELL_DIR / "Main.hs"
#: optimisation flag per runtime family
OPT_FLAGS = {"haskell": "-O2", "haskell-O0": "-O0", "haskell-O1": "-O1"}
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


__all__ = ["Build", "BuildError", "HaskellRuntime", "build", "build_for", "worker_argv"]


def cache_dir() -> Path:
    return builds.cache_dir("haskell", "CROSSINGS_HASKELL_CACHE")


def compiler() -> str:
    return os.environ.get("CROSSINGS_GHC") or "ghc"


def sources(directory: Path = HASKELL_DIR) -> list[Path]:
    return sorted(directory.glob("*.hs"))


def _run(argv: list[str], timeout: float = 60) -> str:
    out = builds.tool_output(argv, timeout)
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
    parts = [p for name, data in srcs for p in (name.encode(), data)]
    return builds.build_key(parts + [ghc_path.encode(), ghc_version.encode(), json.dumps(flags).encode(),
                                     json.dumps(packages, sort_keys=True).encode()])


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
    family = f"bench-{OPT_FLAGS[runtime].lstrip('-')}"

    def make(work: Path) -> tuple[Path, dict[str, Any]]:
        # the sources are copied first, so an edit during the build cannot mix two versions
        for name, data in srcs:
            (work / name).write_bytes(data)
        out = work / "bench"
        cmd = [ghc_path, *flags, f"-i{work}", "-outputdir", str(work / "o"), "-o", str(out), str(work / "Main.hs")]
        for p in PACKAGES:
            if p != "base":
                cmd += ["-package", p]
        started = time.monotonic()
        proc = builds.tool_output(cmd, BUILD_TIMEOUT_S)
        seconds = time.monotonic() - started
        if proc.returncode != 0:
            raise BuildError(_explain_failure(proc.stderr or proc.stdout))
        os.chmod(out, 0o755)
        info = {"source_dir": builds.shown_path(source_dir),
                "sources_sha256": {name: hashlib.sha256(data).hexdigest() for name, data in srcs},
                "compiler_path": ghc_path, "ghc_version": ghc_version, "flags": " ".join(flags[:1]),
                "packages": packages, "key": key, "build_seconds": round(seconds, 3),
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "command": " ".join(shlex.quote(c) for c in cmd).replace(str(work), "<build-dir>")}
        return out, info

    return builds.cached(cache, family, key, make)


def _explain_failure(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    for ln in lines:
        if "Could not find module" in ln or "cannot satisfy -package" in ln or "unknown package" in ln:
            return (f"cannot build the Haskell worker: {ln.strip()} (install Debian's "
                    f"{' '.join(DEBIAN_PACKAGES)})")
    tail = " | ".join(ln.strip() for ln in lines[-4:]) or "no output"
    return f"cannot build the Haskell worker: {tail}"


def build_for(runtime: str) -> Build:
    """The build this runner process uses for `runtime` (built or found in the cache once)."""
    return builds.once(("haskell", runtime, compiler(), str(cache_dir())), lambda: build(runtime))


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
        return builds.failing_argv(f"Haskell worker unavailable: {exc}")
    return [str(b.binary), spec_path, result_path]


@dataclass(frozen=True)
class HaskellRuntime(Runtime):
    """The Haskell worker compiled by Debian's ghc (`-O2`, or `-O0` for seed 002's comparison),
    built on demand; a missing ghc or library makes the runtime unavailable with the reason."""

    def unavailable_reason(self) -> str | None:
        return unavailable_reason(self.name)

    def worker_argv(self, engine: str, spec_path: str, result_path: str) -> list[str]:
        return worker_argv(self.name, engine, spec_path, result_path)

    def probe_argv(self, engine: str, config_path: str | None) -> list[str]:
        return probe_argv(self.name, engine, config_path)

    def annotate_probe(self, engine: str, info: dict[str, Any]) -> dict[str, Any]:
        return annotate(self.name, info)
