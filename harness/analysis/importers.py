"""Turn other tools' results into raw timings (DataFrames in the raw-column layout).

Formats:
  csv        columns benchmark,engine,process,iteration,seconds (optional runtime, params)
  gobench    `go test -bench` output: each result line is one sample (one process, one
             iteration) in ns/op; the name loses its `Benchmark` prefix and `-N` GOMAXPROCS suffix
  pyperf     pyperf JSON: each run with values is a process, its values are iterations
             (warm-up values are not imported: pyperf already separated them)
  hyperfine  `hyperfine --export-json`: each time is one run of the command, i.e. one process
             with one iteration; a non-zero exit code marks that sample invalid

Malformed input raises harness.errors.DataError naming the file and line.
wall_ns is int64 nanoseconds when every value is a whole number of ns that int64 holds exactly,
float64 otherwise (go's ns/op has decimals: 811.3 ns/op must not become 811 ns).
A time per iteration outside 1 ps .. 1 day is refused unless the caller says any range
(`any_range`); a key (cell, process, iteration) given twice is refused.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING

from harness.errors import DataError
from harness.store import MAX_INDEX

if TYPE_CHECKING:
    import pandas as pd


#: the time of one iteration an import accepts by default, in ns: 1 ps .. 1 day. Why: a value
#: outside it is almost always a unit mistake (ms read as s, a count read as a time)
IMPORT_RANGE_NS = (1e-3, 86400e9)


def check_range(ns, path: Path, any_range: bool) -> None:
    """The imported times (ns) within IMPORT_RANGE_NS, or with `any_range` within what the
    store keeps (store.STORED_WALL_NS); else a DataError saying which bound and how to widen it."""
    import numpy as np

    from harness.store import STORED_WALL_NS

    lo, hi = STORED_WALL_NS if any_range else IMPORT_RANGE_NS
    low, high = float(np.min(ns)), float(np.max(ns))
    if low >= lo and high <= hi:
        return
    hint = "" if any_range else " (--any-range accepts any time the statistics can hold)"
    raise DataError(f"{path}: times per iteration from {low / 1e9:g} s to {high / 1e9:g} s, outside "
                    f"{lo / 1e9:g} s .. {hi / 1e9:g} s{hint}")


def _frame(rows: list[dict[str, Any]], path: Path, any_range: bool = False) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    if not rows:
        raise DataError(f"{path}: no results found")
    df = pd.DataFrame(rows)
    for col, default in (("params", ""), ("runtime", "unknown"), ("check_ok", True)):
        if col not in df:
            df[col] = default
    df["driver"] = df["engine"].map(lambda e: e.split("/", 1)[1] if "/" in e else e)
    if "ns" in df:  # already in ns (go): keep the parsed value, no seconds round trip
        ns = df.pop("ns").to_numpy(dtype=float)
    else:
        with np.errstate(over="ignore"):  # 1e300 s is inf ns: check_range refuses it
            ns = df.pop("seconds").to_numpy(dtype=float) * 1e9
    check_range(ns, path, any_range)
    r = np.round(ns)
    whole = bool((r >= 1).all() and (r < 2**53).all()) and np.allclose(ns, r, rtol=0, atol=1e-6)
    df["wall_ns"] = r.astype(np.int64) if whole else ns
    df["cpu_ns"] = pd.array([None] * len(df), dtype="Int64")
    df["crossings"] = pd.array([None] * len(df), dtype="Int64")
    df["values_converted"] = pd.array([None] * len(df), dtype="Int64")
    df["pid"] = 0
    df["run_id"] = ""
    keys = ["benchmark", "params", "engine", "runtime", "process"]
    dup = df.duplicated(keys + ["iteration"])
    if dup.any():
        r = df[dup].iloc[0]
        raise DataError(f"{path}: duplicate row for benchmark {r.benchmark}, engine {r.engine}, process {r.process}, "
                        f"iteration {r.iteration}")
    df["seq"] = df.groupby(keys, sort=True).ngroup()
    order = ["run_id", "seq", "benchmark", "params", "engine", "driver", "runtime", "process", "iteration", "pid",
             "wall_ns", "cpu_ns", "check_ok", "crossings", "values_converted"]
    return df[order].sort_values(keys + ["iteration"], kind="stable").reset_index(drop=True)


def _positive_seconds(value: str, where: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise DataError(f"{where}: not a number: {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise DataError(f"{where}: time must be a finite positive number, got {value!r}")
    return v


def read_text(path: Path, what: str) -> str:
    """The file's text: gzip-compressed files (pyperf writes `.json.gz`) are decompressed; a
    directory, a binary file or undecodable text is a DataError saying what was expected."""
    import gzip

    if path.is_dir():
        raise DataError(f"{path}: is a directory, not a {what} file")
    try:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except OSError as exc:  # gzip.BadGzipFile and EOFError for a truncated archive
        raise DataError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    except EOFError:
        raise DataError(f"{path}: truncated gzip file") from None
    if b"\x00" in data[:65536]:
        raise DataError(f"{path}: a binary file, not a {what} file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start}); expected a {what} file") from None


def read_csv(path: Path, engine: str | None = None, any_range: bool = False) -> pd.DataFrame:
    """CSV with header benchmark,engine,process,iteration,seconds[,runtime,params]."""
    text = read_text(path, "CSV")
    reader = csv.DictReader(io.StringIO(text))
    try:
        return _csv_rows(path, reader, engine, any_range)
    except csv.Error as exc:
        raise DataError(f"{path}:{reader.line_num}: not CSV ({exc})") from None


def _csv_rows(path: Path, reader: csv.DictReader, engine: str | None, any_range: bool) -> pd.DataFrame:
    need = {"benchmark", "process", "iteration", "seconds"} | (set() if engine else {"engine"})
    have = set(reader.fieldnames or [])
    missing = sorted(need - have)
    if missing:
        raise DataError(f"{path}:1: missing column(s) {', '.join(missing)} (need benchmark,engine,process,iteration,seconds)")
    rows = []
    for row in reader:
        where = f"{path}:{reader.line_num}"
        if None in row or any(v is None for v in row.values()):
            raise DataError(f"{where}: wrong number of fields")
        try:
            proc, it = int(row["process"]), int(row["iteration"])
        except ValueError:
            raise DataError(f"{where}: process and iteration must be integers") from None
        if not (0 <= proc < MAX_INDEX and 0 <= it < MAX_INDEX):
            raise DataError(f"{where}: process and iteration must be whole numbers 0..{MAX_INDEX - 1}")
        bench = row["benchmark"].strip()
        eng = (row.get("engine") or "").strip() or engine
        if not bench or not eng:
            raise DataError(f"{where}: empty benchmark or engine")
        # the file's own engine column wins; --engine fills it where absent or empty
        rec = {"benchmark": bench, "engine": eng, "process": proc, "iteration": it,
               "seconds": _positive_seconds(row["seconds"], where)}
        if "runtime" in row and row["runtime"]:
            rec["runtime"] = row["runtime"].strip()
        if "params" in row:
            rec["params"] = (row["params"] or "").strip()
        rows.append(rec)
    return _frame(rows, path, any_range)


_GO_LINE = re.compile(r"^Benchmark(?P<name>\S+?)(?:-(?P<procs>\d+))?\s+(?P<n>\d+)\s+(?P<value>\S+)\s+ns/op(?:\s.*)?$")
_GO_IGNORED = re.compile(r"^(goos|goarch|pkg|cpu|PASS|FAIL|ok|\?|---|===|exit status|testing:)\b")


def read_gobench(path: Path, engine: str | None = None, any_range: bool = False) -> pd.DataFrame:
    """`go test -bench` output; every result line becomes one process with one iteration."""
    if not engine:
        raise DataError(f"{path}: gobench results do not name an engine; pass --engine")
    lines = read_text(path, "go test -bench output").splitlines()
    rows = []
    counts: dict[str, int] = {}
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if not s.startswith("Benchmark"):
            continue
        m = _GO_LINE.match(s)
        if not m:
            if re.match(r"^Benchmark\S+\s*$", s):
                continue  # a name printed before its result (verbose output)
            raise DataError(f"{path}:{i}: cannot parse benchmark result line: {s!r}")
        name = m.group("name")
        ns = _positive_seconds(m.group("value"), f"{path}:{i}")
        k = counts.get(name, 0)
        counts[name] = k + 1
        rows.append({"benchmark": name, "engine": engine, "runtime": "go", "process": k, "iteration": 0,
                     "ns": ns})
    if not rows:
        raise DataError(f"{path}: no `Benchmark... N ns/op` lines found")
    return _frame(rows, path, any_range)


def _load_json(path: Path) -> Any:
    text = read_text(path, "JSON")
    try:
        return json.loads(text)
    except RecursionError:
        raise DataError(f"{path}: JSON nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg}, column {exc.colno})") from None


def read_pyperf(path: Path, engine: str | None = None, any_range: bool = False) -> pd.DataFrame:
    """pyperf JSON (a suite or a single benchmark): runs with values are processes."""
    data = _load_json(path)
    if not isinstance(data, dict) or "benchmarks" not in data or not isinstance(data["benchmarks"], list):
        raise DataError(f"{path}:1: not a pyperf JSON file (no 'benchmarks' list)")
    common = data.get("metadata") or {}
    rows = []
    for bi, bench in enumerate(data["benchmarks"]):
        if not isinstance(bench, dict) or not isinstance(bench.get("runs"), list):
            raise DataError(f"{path}: benchmarks[{bi}] has no 'runs' list")
        meta = {**common, **(bench.get("metadata") or {})}
        name = meta.get("name")
        if not name:
            raise DataError(f"{path}: benchmarks[{bi}] has no name in its metadata")
        unit = meta.get("unit", "second")
        if unit != "second":
            raise DataError(f"{path}: benchmark {name!r} measures {unit!r}, not time in seconds")
        impl = str(meta.get("python_implementation", "")).lower()
        ver = str(meta.get("python_version", ""))
        runtime = f"{impl}{'.'.join(ver.split('.')[:2])}" if impl and ver else "unknown"
        proc = 0
        for ri, run in enumerate(bench["runs"]):
            values = run.get("values") if isinstance(run, dict) else None
            if not values:
                continue  # calibration run or warm-ups only
            if not isinstance(values, list):
                raise DataError(f"{path}: benchmark {name!r} run {ri}: 'values' is not a list")
            for it, v in enumerate(values):
                rows.append({"benchmark": name, "engine": engine or "pyperf", "runtime": runtime, "process": proc,
                             "iteration": it,
                             "seconds": _positive_seconds(v, f"{path}: benchmark {name!r} run {ri} value {it}")})
            proc += 1
    return _frame(rows, path, any_range)


def read_hyperfine(path: Path, engine: str | None = None, any_range: bool = False) -> pd.DataFrame:
    """hyperfine --export-json: each command is a benchmark, each time one fresh process."""
    data = _load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise DataError(f"{path}:1: not a hyperfine JSON export (no 'results' list)")
    rows = []
    seen: dict[tuple[str, str], int] = {}
    for ci, res in enumerate(data["results"]):
        if not isinstance(res, dict) or not isinstance(res.get("times"), list) or "command" not in res:
            raise DataError(f"{path}: results[{ci}] lacks 'command' or 'times'")
        codes = res.get("exit_codes") or [0] * len(res["times"])
        params = res.get("parameters") or {}
        pstr = ",".join(f"{k}={params[k]}" for k in sorted(params)) if isinstance(params, dict) else ""
        first = seen.setdefault((str(res["command"]), pstr), ci)
        if first != ci:  # its times would become a second process 0, 1, ... of the same cell
            raise DataError(f"{path}: results[{ci}] repeats the command of results[{first}] "
                            f"({str(res['command'])!r}); give each command once")
        for i, t in enumerate(res["times"]):
            rows.append({"benchmark": str(res["command"]), "params": pstr, "engine": engine or "hyperfine",
                         "runtime": "process", "process": i, "iteration": 0,
                         "seconds": _positive_seconds(t, f"{path}: results[{ci}] times[{i}]"),
                         "check_ok": (codes[i] == 0) if i < len(codes) else True})
    return _frame(rows, path, any_range)


_READERS = {"csv": read_csv, "pyperf": read_pyperf, "gobench": read_gobench, "hyperfine": read_hyperfine}
#: the formats `import` reads (the CLI's choices)
FORMATS = tuple(_READERS)


def read_import(path: str | Path, fmt: str, engine: str | None = None, any_range: bool = False) -> pd.DataFrame:
    """Read another tool's results as raw timings (DataFrame with all raw columns); times per
    iteration outside 1 ps .. 1 day are refused unless `any_range`."""
    if fmt not in _READERS:
        raise DataError(f"unknown import format {fmt!r}; choose one of {', '.join(FORMATS)}")
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: no such file")
    return _READERS[fmt](path, engine, any_range)
