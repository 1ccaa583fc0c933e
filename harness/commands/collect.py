"""`collect`: merge the shard directories of a sharded run (`run --shard K/N`) into one run."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("collect", help="merge the shards of one run (run --shard K/N) into one run directory",
                       description="Checks that the directories are the shards of one plan and that every planned "
                                   "process is recorded exactly once, then writes OUT/RUN_ID (records and timings "
                                   "copied byte for byte, the whole plan, a manifest naming each shard and "
                                   "machine). The shard directories are left as they are.")
    p.add_argument("shards", nargs="+", type=Path, metavar="SHARD_DIR")
    p.add_argument("--out", type=Path, required=True, help="parent of the collected run directory")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="collect even if shards or processes are missing (the run then says it is incomplete)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.run.collect import collect, warn_if_commits_differ

    run = collect(args.shards, args.out, args.allow_incomplete)
    warn_if_commits_differ(run)
    print(run)
    return 0
