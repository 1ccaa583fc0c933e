"""Build FerretDB 1.x (the MongoDB wire protocol over PostgreSQL) from the Go module proxy.

MongoDB has no Debian package; FerretDB is a Go program. `go install ...@v1.24.x` does not
work for it: the proxy refuses the module's version list (which `go install` reads for
deprecations), and a FerretDB built as the main module panics at start unless
`build/version/version.txt` holds its version (its own build tool writes that file). So this
downloads the exact module version (`go mod download`), copies its source, writes
`version.txt`, and runs `go build ./cmd/ferretdb` into `data/cache/ferretdb/ferretdb-<version>`, under
the cache's lock and with a build record beside it (`run/build.py`, as the foreign workers are).
Its modules go to the same GOPATH as E6's Go program (`data/cache/go/gopath`, as `.ci/run` sets).

FerretDB 1.24 needs Go >= 1.24. A `go` on PATH that is older (Debian 12's `golang-go` is 1.19)
is replaced by the official toolchain, itself a module on the Go module proxy
(`golang.org/toolchain`), unpacked into `data/cache/go/`. Run it as
`python -m harness.run.ferretdb_build` (`.ci/run` does); it prints the binary's path.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

from harness import fsutil
from harness.run import build as builds
from harness.run.build import BuildError

FERRETDB_MODULE = "github.com/FerretDB/FerretDB"
FERRETDB_VERSION = "v1.24.2"
GO_MIN = (1, 24)
GO_TOOLCHAIN = "go1.24.3"
PROXY = "https://proxy.golang.org"
CACHE = fsutil.cache_dir("ferretdb")
GO_CACHE = fsutil.cache_dir("go")
BINARY_ENV = "CROSSINGS_FERRETDB"


def binary_path() -> Path:
    return CACHE / f"ferretdb-{FERRETDB_VERSION}"


def go_version(go: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([go, "version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"go(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def find_go() -> str | None:
    """A `go` of at least GO_MIN: on PATH, /usr/local/go, or the toolchain unpacked before."""
    for go in (shutil.which("go"), "/usr/local/go/bin/go", str(toolchain_dir() / "bin" / "go")):
        if go and os.access(go, os.X_OK) and (go_version(go) or (0,)) >= GO_MIN:
            return go
    return None


def toolchain_dir() -> Path:
    return GO_CACHE / GO_TOOLCHAIN


def fetch_toolchain(log=sys.stderr) -> str:
    """The official Go toolchain from the module proxy (golang.org/toolchain), unpacked once."""
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)
    version = f"v0.0.1-{GO_TOOLCHAIN}.linux-{arch}"
    url = f"{PROXY}/golang.org/toolchain/@v/{version}.zip"
    print(f"downloading the Go toolchain {GO_TOOLCHAIN} from {url}", file=log)
    dest = toolchain_dir()
    GO_CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=GO_CACHE) as tmp:
        z = Path(tmp) / "go.zip"
        with urllib.request.urlopen(url, timeout=600) as r, open(z, "wb") as f:
            shutil.copyfileobj(r, f)
        with zipfile.ZipFile(z) as zf:
            zf.extractall(tmp)
            for info in zf.infolist():  # zipfile drops the mode bits: restore executables
                mode = info.external_attr >> 16
                if mode:
                    os.chmod(Path(tmp) / info.filename, mode & 0o777)
        src = Path(tmp) / f"golang.org/toolchain@{version}"
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(src), str(dest))
    return str(dest / "bin" / "go")


def build(log=sys.stderr) -> Path:
    """Build FerretDB into the cache (nothing to do when it is there); its path."""
    done = binary_path()
    if done.exists() and done.with_name(done.name + ".json").exists():
        return done
    go = find_go() or fetch_toolchain(log)
    env = dict(os.environ, GOPATH=str(GO_CACHE / "gopath"), GOMODCACHE=str(GO_CACHE / "gopath" / "pkg" / "mod"),
               GOFLAGS="-modcacherw", GOTOOLCHAIN="local", GOPROXY=os.environ.get("GOPROXY", PROXY), CGO_ENABLED="0")

    def make(scratch: Path) -> tuple[Path, dict]:
        t0 = time.monotonic()
        # `go mod download` needs a module to run in; an empty one will do
        subprocess.run([go, "mod", "init", "crossings.build"], cwd=scratch, env=env, check=True, capture_output=True)
        res = subprocess.run([go, "mod", "download", "-json", f"{FERRETDB_MODULE}@{FERRETDB_VERSION}"], cwd=scratch,
                             env=env, capture_output=True, text=True)
        if res.returncode != 0:
            raise BuildError(f"go mod download failed: {res.stdout.strip()} {res.stderr.strip()}")
        src = Path(json.loads(res.stdout)["Dir"])
        work = scratch / "ferretdb"
        shutil.copytree(src, work)
        for p in work.rglob("*"):
            p.chmod(p.stat().st_mode | 0o200)
        (work / "build" / "version" / "version.txt").write_text(FERRETDB_VERSION + "\n")
        version = go_version(go)
        print(f"building FerretDB {FERRETDB_VERSION} with {go} ({'.'.join(map(str, version or ()))})", file=log)
        out = scratch / "ferretdb.bin"
        cmd = [go, "build", "-trimpath", "-o", str(out), "./cmd/ferretdb"]
        subprocess.run(cmd, cwd=work, env=env, check=True)
        seconds = time.monotonic() - t0
        return out, {"module": f"{FERRETDB_MODULE}@{FERRETDB_VERSION}", "go_path": go,
                     "go_version": ".".join(map(str, version or ())), "key": FERRETDB_VERSION,
                     "build_seconds": round(seconds, 1),
                     "command": " ".join([go, "build", "-trimpath", "-o", str(binary_path()), "./cmd/ferretdb"])}

    made = builds.cached(CACHE, "ferretdb", FERRETDB_VERSION, make)
    if not made.info.get("cached"):
        print(f"built {made.path} in {made.info['build_seconds']:.0f} s", file=log)
    return made.path


def main() -> int:
    try:
        print(build())
    except (OSError, BuildError, subprocess.CalledProcessError) as exc:
        print(f"error: cannot build FerretDB: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
