"""Command-line interface: `python -m harness COMMAND ...`.

Each command lives in `harness.commands.<name>` with `register(subparsers)`, which adds its parser
and sets `func` (a callable taking the parsed args and returning an exit status). Keeping commands
in their own modules keeps start-up light: heavy imports happen inside `func`.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from harness.errors import UserError

COMMANDS = ["list", "run", "summary", "table", "compare", "import_", "gobench", "data", "validate", "notebooks", "plan",
            "doctor", "report", "history", "collect", "campaign", "push", "headline", "reference"]


class OneLineParser(argparse.ArgumentParser):
    """A mistake on the command line is one line (`error: ...`), not a usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
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


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """The harness's own warnings (e.g. an incomplete run) as one `warning: ...` line."""
    if category.__module__.startswith("harness"):
        print(f"warning: {message}", file=sys.stderr)
    else:
        _default_showwarning(message, category, filename, lineno, file, line)


_default_showwarning = warnings.showwarning


def main(argv: list[str] | None = None) -> int:
    warnings.showwarning = _show_warning
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
    except OSError as exc:  # the environment said no (permissions, disk full, ...): one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
