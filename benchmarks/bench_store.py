"""Two layouts of raw timings in the PostgreSQL results store, measured on one synthetic run.

Issue 27 item 4 asks for raw timings "in a table partitioned by run, or as Parquet beside it with
a catalogue in the database, whichever measures better". This measures both on one run written
with the store's own writer (`bench_scale.write_run`: 440 processes x 2,273 iterations = 1,000,120
raw rows by default), each in its own database of one throwaway PostgreSQL (or --dsn):

- parquet: what `harness push` does (`harness.run.resultsdb`): every file of the run byte for
  byte in `crossings.files` (the Parquet timings among them), its hash in the catalogue;
- rows: the same catalogue for the JSON files, and the timings as rows of
  `crossings.timings`, partitioned by LIST of an integer run key (one partition per run), primary
  key (run, seq, iteration), per-process columns once in `crossings.timing_processes`; loaded by
  COPY (CSV written by pyarrow), read back by COPY and written again as the store's Parquet.

For each: push seconds (verify + load, in-process), materialize seconds (the run directory back
from the database), `summary` of that directory in a subprocess (analysis cache off), bytes of
the relations that hold the timings and of the whole schema (pg_total_relation_size: heap,
TOAST, indexes), and a check that `summary --format csv` of the run read back is the CSV of the
original run, byte for byte. The parquet layout is also timed end to end as the real command,
`harness summary --from DSN RUN`.

  python benchmarks/bench_store.py                   # make bench-store
  python benchmarks/bench_store.py --iterations 227  # 100k rows, a quick look
"""
from __future__ import annotations

import argparse
import hashlib
import io
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import write_run  # noqa: E402

from harness import store  # noqa: E402
from harness.run import resultsdb  # noqa: E402

ROWS_SCHEMA = """
CREATE TABLE crossings.timing_runs (run_id text PRIMARY KEY REFERENCES crossings.runs ON DELETE CASCADE,
                                    run_key serial UNIQUE);
CREATE TABLE crossings.timing_processes (run_key integer NOT NULL, seq integer NOT NULL, benchmark text,
    params text, engine text, driver text, runtime text, process bigint, pid bigint, PRIMARY KEY (run_key, seq));
CREATE TABLE crossings.timings (run_key integer NOT NULL, seq integer NOT NULL, iteration bigint NOT NULL,
    wall_ns double precision NOT NULL, cpu_ns bigint, check_ok boolean, crossings bigint,
    values_converted bigint, PRIMARY KEY (run_key, seq, iteration)) PARTITION BY LIST (run_key);
"""
PER_PROCESS = ("benchmark", "params", "engine", "driver", "runtime", "process", "pid")
PER_ROW = ("seq", "iteration", "wall_ns", "cpu_ns", "check_ok", "crossings", "values_converted")


def database(dsn: str, name: str) -> str:
    """A new empty database on the server of `dsn`; its DSN."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return urlsplit(dsn)._replace(path=f"/{name}").geturl()


def push_rows(run_dir: Path, dsn: str) -> None:
    """The rows layout's push: verified as `push` verifies, catalogue as `push` writes it without
    the timings files, the timings COPYed into the run's own partition, in one transaction."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    from psycopg.types.json import Jsonb

    manifest, plan, records = store.manifest_of(run_dir), store.plan_of(run_dir), store.records_of(run_dir)
    tables = [store.plain_strings(t) for _, t in store.iter_timings(run_dir, statuses=None)]
    files = resultsdb.run_files(run_dir)
    run_id = manifest.run_id
    with resultsdb._connect(dsn) as conn:
        resultsdb.migrate(conn)
        with conn.transaction():
            if conn.execute("SELECT to_regclass('crossings.timings') IS NULL").fetchone()[0]:
                conn.execute(ROWS_SCHEMA)
            conn.execute("INSERT INTO crossings.runs (run_id, content_hash, status, manifest, plan, files, bytes) "
                         "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (run_id, resultsdb.content_hash(files), manifest.status, Jsonb(manifest.to_dict()),
                          Jsonb(None if plan is None else plan.to_dict()), len(files),
                          sum(size for _, _, size in files)))
            with conn.cursor() as cur:
                for path, sha, _ in files:
                    if not path.startswith("timings/"):
                        data = (run_dir / path).read_bytes()
                        cur.execute("INSERT INTO crossings.files (run_id, path, sha256, size, data) "
                                    "VALUES (%s, %s, %s, %s, %s)", (run_id, path, sha, len(data), data))
                resultsdb.insert_processes(cur, run_id, records)
            key = conn.execute("INSERT INTO crossings.timing_runs (run_id) VALUES (%s) RETURNING run_key",
                               (run_id,)).fetchone()[0]
            conn.execute(f"CREATE TABLE crossings.timings_{key} PARTITION OF crossings.timings FOR VALUES IN ({key})")
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO crossings.timing_processes VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                                [(key, t["seq"][0].as_py(), *(t[c][0].as_py() for c in PER_PROCESS))
                                 for t in tables if t.num_rows])
                with cur.copy(f"COPY crossings.timings_{key} (run_key, {', '.join(PER_ROW)}) "
                              "FROM STDIN (FORMAT csv)") as copy:
                    for t in tables:
                        buf = io.BytesIO()
                        part = pa.table([pa.array([key] * t.num_rows, pa.int32())] + [t[c] for c in PER_ROW],
                                        names=["run_key", *PER_ROW])
                        pcsv.write_csv(part, buf, pcsv.WriteOptions(include_header=False))
                        copy.write(buf.getvalue())


def materialize_rows(dsn: str, run_id: str, into: Path) -> tuple[Path, bool]:
    """The rows layout read back: the catalogue's files, and each process's rows written as the
    store's Parquet; (run directory, whether the run's content hash still matches)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    run_dir = into / run_id
    files: list[tuple[str, bytes]] = []
    with resultsdb._connect(dsn, read_only=True) as conn:
        key, digest = conn.execute("SELECT t.run_key, r.content_hash FROM crossings.timing_runs t "
                                   "JOIN crossings.runs r USING (run_id) WHERE run_id = %s", (run_id,)).fetchone()
        for path, data in conn.execute("SELECT path, data FROM crossings.files WHERE run_id = %s", (run_id,)):
            target = run_dir / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(bytes(data))
            files.append((path, bytes(data)))
        consts = {r[0]: r[1:] for r in conn.execute(
            f"SELECT seq, {', '.join(PER_PROCESS)} FROM crossings.timing_processes WHERE run_key = %s", (key,))}
        buf = bytearray()
        with conn.cursor().copy(f"COPY (SELECT {', '.join(PER_ROW)} FROM crossings.timings WHERE run_key = {key} "
                                "ORDER BY seq, iteration) TO STDOUT (FORMAT csv)") as copy:
            for block in copy:
                buf += block
    schema = store._arrow_schema()
    types = {c: schema.field(c).type for c in PER_ROW}
    rows = pcsv.read_csv(pa.py_buffer(bytes(buf)), read_options=pcsv.ReadOptions(column_names=list(PER_ROW)),
                         convert_options=pcsv.ConvertOptions(column_types=types, true_values=["t"], false_values=["f"]))
    seqs = rows["seq"].to_numpy()
    starts = np.flatnonzero(np.r_[True, seqs[1:] != seqs[:-1]]) if len(seqs) else np.array([], dtype=int)
    (run_dir / "timings").mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(seqs)
        part, seq = rows.slice(start, stop - start), int(seqs[start])
        n = part.num_rows
        cols = {"run_id": pa.array([run_id] * n, pa.string())}
        cols.update({c: pa.array([v] * n, schema.field(c).type) for c, v in zip(PER_PROCESS, consts[seq])})
        cols.update({c: part[c] for c in PER_ROW})
        table = pa.table([cols[f.name] for f in schema], schema=schema)
        path = run_dir / "timings" / f"{seq:06d}.parquet"
        pq.write_table(table, path, compression="zstd")  # a private temporary copy, as materialize writes
        files.append((path.relative_to(run_dir).as_posix(), path.read_bytes()))
    (run_dir / "processes").mkdir(exist_ok=True)
    return run_dir, resultsdb.content_hash(files) == digest


def summary_csv(*args: str) -> tuple[str, float]:
    """`harness summary ARGS --format csv` in a fresh process, analysis cache off: (CSV, seconds)."""
    env = dict(os.environ, CROSSINGS_ANALYSIS_CACHE="off")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "harness", "summary", *args, "--format", "csv"], cwd=ROOT, env=env,
                         check=True, capture_output=True, text=True).stdout
    return out, time.perf_counter() - t


def sizes(dsn: str, like: str) -> tuple[int, int, int]:
    """(bytes of the relations named `like` with their TOAST and indexes, of which indexes; bytes
    of the whole crossings schema)."""
    import psycopg

    q = ("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0), coalesce(sum(pg_indexes_size(c.oid)), 0) "
         "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
         "WHERE n.nspname = 'crossings' AND c.relkind = 'r' AND c.relname LIKE %s")
    with psycopg.connect(dsn) as conn:
        part, idx = conn.execute(q, (like,)).fetchone()
        total = conn.execute(q, ("%",)).fetchone()[0]
    return int(part), int(idx), int(total)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--processes", type=int, default=440)
    ap.add_argument("--iterations", type=int, default=2273)
    ap.add_argument("--dsn", help="a PostgreSQL server to use (two databases are created there and dropped); "
                                  "default: a throwaway server of its own")
    args = ap.parse_args(argv)
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="crossings-bench-store-")))
        dsn = args.dsn
        if dsn is None:
            from harness.run.servers import throwaway

            dsn = stack.enter_context(throwaway("postgresql")).engine_config()["dsn"]
        run_dir = write_run(tmp / "runs", args.processes, args.iterations)
        rows = sum(int(r.rows or 0) for r in store.records_of(run_dir).values())
        parquet_bytes = sum(p.stat().st_size for p in (run_dir / "timings").glob("*.parquet"))
        direct, direct_s = summary_csv(str(run_dir))
        print(f"run: {rows} raw rows in {len(store.records_of(run_dir))} processes, "
              f"{parquet_bytes / 2**20:.1f} MiB of Parquet; summary of the directory {direct_s:.2f} s")
        results = []
        for layout in ("parquet", "rows"):
            db = database(dsn, f"bench_store_{layout}")
            t = time.perf_counter()
            if layout == "parquet":
                resultsdb.push([run_dir], db)
            else:
                push_rows(run_dir, db)
            push_s = time.perf_counter() - t
            out = tmp / f"back-{layout}"
            t = time.perf_counter()
            if layout == "parquet":
                back, same_bytes = resultsdb.materialize(db, [run_dir.name], out)[0], True
            else:
                back, same_bytes = materialize_rows(db, run_dir.name, out)
            mat_s = time.perf_counter() - t
            csv, sum_s = summary_csv(str(back))
            held, idx, total = sizes(db, "files" if layout == "parquet" else "timings%")
            results.append((layout, push_s, mat_s, sum_s, held, idx, total, csv == direct, same_bytes))
            if layout == "parquet":
                csv_from, from_s = summary_csv("--from", db, run_dir.name)
                print(f"parquet: harness summary --from DSN RUN (the command, end to end) {from_s:.2f} s, "
                      f"same CSV as the directory: {csv_from == direct}")
        print(f"{'layout':8} {'push s':>7} {'read back s':>11} {'summary s':>9} {'timings MiB':>11} "
              f"{'of which index':>14} {'schema MiB':>10}  same summary  byte-identical run")
        for layout, push_s, mat_s, sum_s, held, idx, total, same, ident in results:
            print(f"{layout:8} {push_s:7.2f} {mat_s:11.2f} {sum_s:9.2f} {held / 2**20:11.1f} {idx / 2**20:14.1f} "
                  f"{total / 2**20:10.1f}  {str(same):12}  {ident}")
        print("(sizes in bytes: " + ", ".join(f"{r[0]} timings {r[4]} schema {r[6]}" for r in results)
              + f"; load average {os.getloadavg()[0]:.2f}, {hashlib.sha256(direct.encode()).hexdigest()[:12]} "
              "is the summary's hash)")
        if args.dsn:
            import psycopg

            with psycopg.connect(dsn, autocommit=True) as conn:
                for layout in ("parquet", "rows"):
                    conn.execute(f"DROP DATABASE IF EXISTS bench_store_{layout}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
