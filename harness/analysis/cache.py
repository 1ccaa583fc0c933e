"""A content-addressed cache of what analysis derives from raw timings, under data/cache/.

Why: every notebook, `summary` and `report` reloads the same runs and bootstraps the same cells;
reading a thousand Parquet files and drawing 10,000 replicates per cell is most of their time.
An entry is named by a hash of everything its value depends on (the input bytes or the cell's
samples, the settings, the source of the code that computes it, numpy's version), so a stale
entry is never found: a changed input or a changed statistic is a different name. Each entry carries that hash and a digest of its payload;
one that is truncated, corrupt, from another version or for another key is ignored and
recomputed, never trusted. Writes are atomic (`fsutil.write_bytes_atomic`, without fsync: a
lost entry is only recomputed). CROSSINGS_ANALYSIS_CACHE names another directory, or `off`.
"""
from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

from harness import fsutil
from harness.fsutil import settled, stat_fingerprint, write_bytes_atomic

#: bump when what is stored, or how it is computed, changes: older entries are then never read
VERSION = 1
_MAGIC = b"crossings-cache\n"


def cache_dir(kind: str) -> Path | None:
    """data/cache/<kind> (or $CROSSINGS_ANALYSIS_CACHE/<kind>); None when caching is off."""
    env = os.environ.get("CROSSINGS_ANALYSIS_CACHE", "").strip()
    if env.lower() == "off":
        return None
    return Path(env) / kind if env else fsutil.cache_dir(kind)


#: the code an entry's value comes from: its source is part of every key, so editing the
#: statistics, the store or the reduction can never leave a stale entry in use
_SOURCES = ("protocol.py", "store.py", "analysis/cache.py", "analysis/series.py", "analysis/replicates.py",
            "analysis/methods.py", "analysis/stats/*.py")


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the source of the modules cached values are computed by."""
    h = hashlib.blake2b(digest_size=20)
    root = Path(__file__).resolve().parent.parent
    for pattern in _SOURCES:
        for path in sorted(root.glob(pattern)):
            h.update(path.name.encode() + b"\x1f" + path.read_bytes())
    return h.hexdigest()


def hasher(*parts: object) -> hashlib._Hash:
    """A blake2b hash seeded with this cache's version, the code's, numpy's and `parts`."""
    h = hashlib.blake2b(digest_size=20)
    for p in (VERSION, code_version(), np.__version__, *parts):
        h.update(repr(p).encode() + b"\x1f")
    return h


def hash_files(paths: Iterable[Path], *parts: object) -> str:
    """Hex hash of `parts` and the names and bytes of `paths` (every input of a derived value)."""
    return hasher(*parts, files_digest(paths)).hexdigest()


def files_digest(paths: Iterable[Path]) -> str:
    """Hex hash of the names and bytes of `paths`.

    Reading every byte of a dozen runs (ten thousand files) costs most of a second, and every
    notebook of `make paper` asks for the same hash. So, as git's index does, it is remembered
    under the files' stat fingerprint (`fsutil.stat_fingerprint`): a file rewritten in any way,
    even to the same size with its mtime set back, has a new ctime, so its old hash is never found."""
    paths = list(paths)
    before, newest = stat_fingerprint(paths)
    index_key = hasher("stat-index", before).hexdigest()
    index = _path("stat-index", index_key, ".txt")
    known = _read_entry(index, index_key) if index is not None else None
    if known is not None and len(known) == 40:
        return known.decode()
    h = hashlib.blake2b(digest_size=20)
    for p in paths:
        data = Path(p).read_bytes()
        h.update(f"{Path(p).parent.name}/{Path(p).name}:{len(data)}\x1f".encode())
        h.update(data)
    content = h.hexdigest()
    # remembered only if no file changed while it was read (else the hash may mix old and new
    # bytes), and none changed so recently that it could change again unseen
    if index is not None and stat_fingerprint(paths)[0] == before and settled(newest):
        _write_entry(index, index_key, content.encode())
    return content


def _read_entry(path: Path, key: str) -> bytes | None:
    """The payload of an entry written by `_write_entry` for `key`, or None (absent, truncated,
    corrupt, or another key's)."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    n = len(_MAGIC)
    head, digest, name, payload = blob[:n], blob[n:n + 40], blob[n + 40:n + 80], blob[n + 80:]
    if head != _MAGIC or name != key.encode() or digest != hashlib.blake2b(payload, digest_size=20).hexdigest().encode():
        return None
    return payload


def _write_entry(path: Path, key: str, payload: bytes) -> None:
    """Write magic, payload digest, key and payload atomically; a cache that cannot be written is skipped."""
    digest = hashlib.blake2b(payload, digest_size=20).hexdigest().encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, _MAGIC + digest + key.encode() + payload, sync=False)
    except OSError:
        pass


def _path(kind: str, key: str, suffix: str = ".npz") -> Path | None:
    d = cache_dir(kind)
    return None if d is None else d / key[:2] / f"{key}{suffix}"


def load(kind: str, key: str) -> dict[str, np.ndarray] | None:
    """The arrays stored under `key`, or None (absent, or not a valid entry for this key).
    The entry is checked and read in chunks: memory is the arrays, not twice the file."""
    import zipfile

    path = _path(kind, key)
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            head, digest = fh.read(len(_MAGIC)), fh.read(40)
            if head != _MAGIC or digest.decode() != _digest_of_rest(fh):
                return None
            fh.seek(len(_MAGIC) + 40)
            with zipfile.ZipFile(fh) as z:  # the archive after the header (zipfile allows a prefix)
                arrays = {}
                for name in z.namelist():
                    with z.open(name) as member:
                        arrays[name.removesuffix(".npy")] = np.lib.format.read_array(member, allow_pickle=False)
        if str(arrays.pop("__key__", "")) != key:
            return None
        return arrays
    except (OSError, ValueError, KeyError, UnicodeDecodeError, EOFError, zipfile.BadZipFile):
        return None


def _digest_of_rest(fh, chunk: int = 1 << 22) -> str:
    """Hex blake2b of a file from its current position to its end, read a chunk at a time."""
    h = hashlib.blake2b(digest_size=20)
    while True:
        block = fh.read(chunk)
        if not block:
            return h.hexdigest()
        h.update(block)


def load_array(kind: str, key: str) -> np.ndarray | None:
    """A float64 array stored under `key` with `store_array` (no zip: a fraction of np.load's cost
    per entry, which matters at one entry per cell), or None."""
    path = _path(kind, key, ".f8")
    payload = _read_entry(path, key) if path is not None else None
    if payload is None or len(payload) % 8:
        return None
    return np.frombuffer(payload, dtype="<f8")


def store_array(kind: str, key: str, array: np.ndarray) -> None:
    """Write one float64 array under `key` (atomically; skipped if the cache cannot be written)."""
    path = _path(kind, key, ".f8")
    if path is not None:
        _write_entry(path, key, np.ascontiguousarray(array, dtype="<f8").tobytes())


def store(kind: str, key: str, arrays: dict[str, np.ndarray | list[np.ndarray]]) -> None:
    """Write an entry (atomically); a cache that cannot be written is silently skipped. A value
    given as a list of 1-D float64 arrays is stored as their concatenation, without ever making
    it: the entry is streamed to its file (memory: one array's chunk, not the payload twice)."""
    import zipfile

    from harness.fsutil import replacing

    path = _path(kind, key)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path, sync=False) as tmp, open(tmp, "w+b") as fh:
            fh.write(_MAGIC + b"0" * 40)
            with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
                for name, value in {"__key__": np.array(key), **arrays}.items():
                    with z.open(name + ".npy", "w", force_zip64=True) as out:
                        _write_npy(out, value)
            fh.seek(len(_MAGIC) + 40)
            digest = _digest_of_rest(fh).encode()
            fh.seek(len(_MAGIC))
            fh.write(digest)
    except OSError:
        pass


def _write_npy(out, value: np.ndarray | list[np.ndarray]) -> None:
    """One .npy member: an array, or a list of 1-D float64 arrays as their concatenation."""
    fmt = np.lib.format
    if not isinstance(value, list):
        fmt.write_array(out, np.asanyarray(value), allow_pickle=False)
        return
    header = {"descr": fmt.dtype_to_descr(np.dtype("<f8")), "fortran_order": False,
              "shape": (sum(len(x) for x in value),)}
    fmt.write_array_header_2_0(out, header)
    for x in value:
        out.write(np.ascontiguousarray(x, dtype="<f8").tobytes())


@lru_cache(maxsize=1)
def package_version() -> str:
    """A hash of every module of the harness: for values (a whole summary) that depend on more
    code than `code_version` follows, so that no edit anywhere can leave a stale one in use."""
    h = hashlib.blake2b(digest_size=20)
    root = Path(__file__).resolve().parent.parent
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode() + b"\x1f" + path.read_bytes())
    return h.hexdigest()


def _frame_from(payload: bytes):
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = pq.read_table(pa.BufferReader(payload)).to_pandas()
    for c in df.columns:  # Parquet has one null: an object column's NaN comes back as None
        if df[c].dtype == object:
            df[c] = df[c].where(df[c].notna(), np.nan)
    return df


def load_frame(kind: str, key: str):
    """A DataFrame stored under `key` with `store_frame`, or None."""
    path = _path(kind, key, ".parquet")
    payload = _read_entry(path, key) if path is not None else None
    if payload is None:
        return None
    try:
        return _frame_from(payload)
    except Exception:  # noqa: BLE001  (an unreadable entry is recomputed, never trusted)
        return None


def store_frame(kind: str, key: str, df) -> None:
    """Write `df` under `key` as Parquet, only if it reads back equal (dtypes included): a
    frame Parquet cannot carry exactly is recomputed each time rather than changed by the cache."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = _path(kind, key, ".parquet")
    if path is None:
        return
    try:
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), sink)
        payload = sink.getvalue().to_pybytes()
        pd.testing.assert_frame_equal(_frame_from(payload), df.reset_index(drop=True), check_exact=True)
    except Exception:  # noqa: BLE001  (not representable, or not equal after the round trip)
        return
    _write_entry(path, key, payload)
