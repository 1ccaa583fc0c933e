"""Command-line interface: `python -m harness COMMAND ...`.

Each command lives in `harness.commands.<name>` with `register(subparsers)`, which adds its parser
and sets `func` (a callable taking the parsed args and returning an exit status). Keeping commands
in their own modules keeps start-up light: heavy imports happen inside `func`.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from harness.errors import UserError

COMMANDS = ["list", "run", "summary", "table", "compare", "import_", "data", "validate", "notebooks", "report"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m harness",
        description="crossings: benchmark what it costs a program to talk to a database.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"harness.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"harness.commands.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
