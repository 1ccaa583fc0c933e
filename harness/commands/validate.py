"""`validate`: check that queries give the right answers (untimed, straight through the driver)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check query answers (TPC-H) against the answer sets")
    vsub = p.add_subparsers(dest="suite", metavar="SUITE")
    vsub.required = True
    t = vsub.add_parser(
        "tpch",
        help="run the 22 TPC-H queries and compare their answers",
        description="Run the 22 TPC-H queries on ENGINE at scale factor SF (preparing the data if "
                    "needed) and compare each answer with data/tpch-answers/ (or "
                    "$CROSSINGS_TPCH_ANSWERS) under the TPC-H precision rules, and with other "
                    "engines' stored answers at the same scale factor. Exit 0 if all pass, 1 if any "
                    "fails, 2 for a usage error.",
    )
    t.add_argument("--engine", required=True, help="an engine with a Python driver (see `harness list`; a server "
                   "engine validates on --dsn's server, else on a throwaway one started and stopped for the validation)")
    t.add_argument("--dsn", action="append", default=[], metavar="ENGINE_FAMILY=DSN",
                   help="the server to validate a server engine on, e.g. postgresql=postgresql://u:pw@host/db "
                        "(or $CROSSINGS_POSTGRESQL_DSN / $CROSSINGS_MARIADB_DSN); the data goes into schema "
                        "(PostgreSQL) or database (MariaDB) tpch_sf<SF>[_idx]")
    t.add_argument("--sf", required=True, help="scale factor with an answer set: 0.01, 0.1 or 1")
    t.add_argument("--indexes", choices=["on", "off"], default="on",
                   help="secondary indexes + ANALYZE on SQLite, H2, PostgreSQL and MariaDB (default on; ignored by "
                        "DuckDB)")
    t.add_argument("--queries", default=None, help="comma-separated query numbers (default all 22)")
    t.add_argument("--timeout", type=float, default=None,
                   help="interrupt a query after this many seconds (counts as a failure)")
    t.add_argument("--answers", default=None, help="answer-set directory (default data/tpch-answers)")
    t.add_argument("--no-cross", action="store_true", help="do not compare with other engines' answers")
    t.add_argument("--quiet", action="store_true", help="no progress on stderr")
    t.set_defaults(func=run_tpch)


def run_tpch(args: argparse.Namespace) -> int:
    from harness.errors import UserError
    from harness.run.servers import user_dsns
    from harness.run.datasets.tpch_validate import (format_table, unknown_engine_message, validatable_engines,
                                                    validate)

    if args.engine not in validatable_engines():
        raise UserError(unknown_engine_message(args.engine))
    try:
        sf = float(args.sf)
    except ValueError:
        raise UserError(f"--sf must be a number, not {args.sf!r}") from None
    queries = None
    if args.queries:
        try:
            queries = [int(q.strip().lstrip("qQ")) for q in args.queries.split(",") if q.strip()]
        except ValueError:
            raise UserError(f"--queries must be comma-separated numbers 1..22, not {args.queries!r}") from None
    results, info = validate(args.engine, sf, indexes=args.indexes == "on", queries=queries,
                             answers_dir=args.answers, timeout=args.timeout, progress=not args.quiet,
                             cross=not args.no_cross, dsns=user_dsns(args.dsn))
    print(format_table(results, info))
    return 0 if all(r.ok for r in results) else 1
