"""`--from DSN` for the commands that read runs: the runs named are read from a PostgreSQL
results store (`harness push`) into a private temporary directory, the command runs on those
run directories as it would on any, and the directory is removed afterwards."""
from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import Callable


def add_from_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="from_dsn", metavar="DSN",
                   help="read the runs from a PostgreSQL results store (harness push): the run arguments are "
                        "run ids there")


def run_name(args: argparse.Namespace, run_dir: Path) -> str:
    """How a run is named in output: its run id when it came from the store (its temporary
    directory is gone when the command ends), else its path as given."""
    return Path(run_dir).name if getattr(args, "from_dsn", None) else str(run_dir)


def reading_store(*attrs: str) -> Callable:
    """Wrap a command's `run(args)`: with --from, each of `attrs` (a path or a list of paths) is
    taken as run ids in the store and replaced by the run directories read from it."""
    def wrap(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        @functools.wraps(run)
        def inner(args: argparse.Namespace) -> int:
            if not getattr(args, "from_dsn", None):
                return run(args)
            from harness.run.resultsdb import Materialized

            ids: list[str] = []
            for a in attrs:
                v = getattr(args, a)
                ids += [str(x) for x in v] if isinstance(v, list) else [str(v)]
            with Materialized(args.from_dsn, ids) as dirs:
                by_id = {d.name: d for d in dirs}
                for a in attrs:
                    v = getattr(args, a)
                    setattr(args, a, [by_id[str(x)] for x in v] if isinstance(v, list) else by_id[str(v)])
                return run(args)
        return inner
    return wrap
