"""`data`: generate and load benchmark data sets (cached under data/cache/)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="generate and load data sets (TPC-H)")
    dsub = p.add_subparsers(dest="dataset", metavar="DATASET")
    dsub.required = True
    t = dsub.add_parser(
        "tpch",
        help="TPC-H: generate with tpchgen-cli, load into SQLite and DuckDB",
        description="Generate TPC-H data with tpchgen-cli (cached per scale factor under "
                    "data/cache/tpch/sf<SF>/) and load it into SQLite (sqlite-indexes.db, "
                    "sqlite-noindexes.db) and DuckDB (duckdb.db). Cached artefacts are reused.",
    )
    t.add_argument("--sf", required=True, help="scale factor, e.g. 0.01, 0.1, 1")
    t.add_argument("--engine", choices=["all", "sqlite", "duckdb", "none"], default="all",
                   help="which databases to load (default all; none: only generate the data)")
    t.add_argument("--indexes", choices=["on", "off", "both"], default="both",
                   help="SQLite secondary indexes + ANALYZE (default both variants)")
    t.add_argument("--force", action="store_true", help="rebuild the databases even if cached")
    t.add_argument("--regenerate", action="store_true", help="regenerate the data even if cached")
    t.add_argument("--quiet", action="store_true", help="no progress on stderr")
    t.set_defaults(func=run_tpch)
    e = dsub.add_parser(
        "explain",
        help="print an engine's plan for a TPC-H query (H2's EXPLAIN, SQLite's EXPLAIN QUERY PLAN)",
        description="Print the plan H2 or SQLite chooses for a TPC-H query on the same cached database a run "
                    "reads (loaded first if needed), e.g. why H2 takes seconds on q19: `harness data explain "
                    "--engine h2 --query 19`. The database is not changed (H2 plans on a copy).",
    )
    e.add_argument("--query", required=True, type=int, metavar="N", help="TPC-H query number, 1 to 22")
    e.add_argument("--engine", choices=["h2", "sqlite"], default="h2", help="whose plan (default h2)")
    e.add_argument("--sf", default="0.01", help="scale factor (default 0.01, the paper's)")
    e.add_argument("--indexes", choices=["on", "off"], default="off",
                   help="with the secondary indexes of indexes=on, or primary keys only (default off, as the runs)")
    e.set_defaults(func=run_explain)


def run_explain(args: argparse.Namespace) -> int:
    """The engine's plan for one TPC-H query, printed as the engine gives it."""
    import sqlite3
    import tempfile
    from pathlib import Path

    from harness.errors import UserError
    from harness.run.datasets import tpch_prepare
    from harness.workloads import tpch_queries

    if not 1 <= args.query <= 22:
        raise UserError(f"--query {args.query}: TPC-H has queries 1 to 22")
    try:
        sf = float(args.sf)
    except ValueError:
        raise UserError(f"--sf must be a number, not {args.sf!r}") from None
    engine = {"h2": "h2/jdbc", "sqlite": "sqlite/sqlite3"}[args.engine]
    info = tpch_prepare.prepare(engine, sf, args.indexes == "on", progress=False)
    q = tpch_queries.get(args.engine, args.query)
    print(f"# {engine} plan for TPC-H q{args.query} at SF {sf:g}, indexes={args.indexes}")
    if args.engine == "sqlite":
        db = sqlite3.connect(f"file:{info['path']}?mode=ro", uri=True)
        try:
            if q.setup:
                raise UserError(f"q{args.query} needs set-up statements (a view) that a read-only SQLite plan "
                                "cannot make; ask H2's plan or read the query")
            for row in db.execute("EXPLAIN QUERY PLAN " + q.sql):
                print(f"{row[0]:>4} {row[1]:>4}  {row[3]}")
        finally:
            db.close()
        return 0
    import shutil

    from harness.run.jvm import launcher

    with tempfile.TemporaryDirectory(prefix="crossings-explain-") as tmp:
        shutil.copyfile(f"{info['path']}.mv.db", Path(tmp) / "tpch.mv.db")
        plans = launcher.run_script(f"jdbc:h2:file:{Path(tmp) / 'tpch'}", [*q.setup, "EXPLAIN " + q.sql], Path(tmp))
    print(plans[-1] if plans else "(no plan)")
    return 0


def run_tpch(args: argparse.Namespace) -> int:
    import time

    from harness.run.datasets import tpch
    from harness.errors import UserError

    try:
        sf = float(args.sf)
    except ValueError:
        raise UserError(f"--sf must be a number, not {args.sf!r}") from None
    from harness.run.plan import check_param

    check_param("data tpch", "sf", sf)  # the bounds a run's sf parameter has
    tpch.format_sf(sf)
    progress = not args.quiet
    t0 = time.perf_counter()
    meta = tpch.generate(sf, progress=progress, force=args.regenerate)
    targets = []
    if args.engine in ("all", "sqlite"):
        variants = {"on": [True], "off": [False], "both": [False, True]}[args.indexes]
        targets += [("sqlite", v) for v in variants]
    if args.engine in ("all", "duckdb"):
        targets.append(("duckdb", False))
    built = [tpch.load(family, sf, idx, progress=progress, force=args.force) for family, idx in targets]
    print(f"TPC-H sf {meta['sf']}: {sum(meta['rows'].values()):,} rows, generated by {meta['generator']} "
          f"in {meta['generate_seconds']:.1f}s")
    print(f"fingerprint: {meta['fingerprint']}")
    for info in built:
        recipe = info["recipe"]
        setting = "" if "indexes" not in recipe else f" indexes={'on' if recipe['indexes'] else 'off'}"
        print(f"{recipe['engine']}{setting}: {info['path']} ({info['size_bytes'] / 1e6:.0f} MB, "
              f"loaded in {info['load_seconds']:.1f}s)")
    print(f"done in {time.perf_counter() - t0:.1f}s")
    return 0
