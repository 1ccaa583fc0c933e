"""Command-line interface: `python -m harness COMMAND ...`.

Each command lives in `harness.commands.<name>` with `register(subparsers)`, which adds its parser
and sets `func` (a callable taking the parsed args and returning an exit status). Keeping commands
in their own modules keeps start-up light: heavy imports happen inside `func`. They are imported
here by name, so a missing or broken command fails at start-up instead of vanishing from --help.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from types import ModuleType

from harness.commands import (campaign, collect, compare, data, doctor, gobench, headline, history, import_, plan, push,
                              reference, report, run, summary, table, validate)
from harness.commands import list as list_
from harness.commands import notebooks as notebooks_
from harness.errors import RunInterrupted, UserError

#: the commands in the order --help lists them
COMMANDS: list[ModuleType] = [list_, run, summary, table, compare, import_, gobench, data, validate, notebooks_, plan,
                              doctor, report, history, collect, campaign, push, headline, reference]


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
    for module in COMMANDS:
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
    except KeyboardInterrupt as exc:
        # a run or resume whose directory exists says how to finish it (RunInterrupted)
        print(str(exc) if isinstance(exc, RunInterrupted) else "interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the environment said no (permissions, disk full, ...): one line, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
