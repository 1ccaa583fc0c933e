"""Print a Markdown reference of every `python -m harness` command and option, from the parser
itself (the help strings in `harness/commands/`): the start of docs/reference/commands.md.

    .venv/bin/python tools/cli_reference.py > /tmp/commands.md

tests/e2e/test_docs.py checks the page against the parser both ways (every command and option
documented exists; every one that exists is documented), so the page cannot drift from the code.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.analysis.markdown import pipe_table  # noqa: E402
from harness.cli import build_parser  # noqa: E402


#: what a positional argument is, where its help says nothing
POSITIONALS = {"RUN_DIR": "a run directory (several: their runs are read together, and cells they share pool)",
               "BASE_RUN": "the run to compare against", "NEW_RUN": "the run compared with it",
               "FILE": "the file to import", "RUN": "a run directory, or a folder of runs"}


def subcommands(parser: argparse.ArgumentParser) -> dict[str, tuple[argparse.ArgumentParser, str]]:
    """The parser's sub-commands by name, each with its one-line help ({} when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return {name: (p, helps.get(name, "")) for name, p in action.choices.items()}
    return {}


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def describe(action: argparse.Action) -> str:
    text = (action.help or "").replace("%%", "%")
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        text += f" (one of: {', '.join(map(str, action.choices))})"
    return " ".join(text.split()) % {"default": action.default} if "%(default)" in text else " ".join(text.split())


def section(name: str, parser: argparse.ArgumentParser, summary: str, level: int = 2) -> list[str]:
    text = " ".join(part.strip() for part in (summary[:1].upper() + summary[1:] + "." if summary else "",
                                              parser.description or "") if part.strip())
    usage = parser.format_usage().strip().removeprefix("usage: ")
    out = [f"{'#' * level} {name}", "", "```text", usage, "```", ""]
    out += [text, ""] if text else []
    rows = []
    for a in options(parser):
        metavar = a.metavar or (a.dest.upper() if a.option_strings else a.dest)
        label = ", ".join(f"`{o}`" for o in a.option_strings) if a.option_strings else f"`{metavar}`"
        if a.option_strings and a.nargs != 0:
            label = label[:-1] + f" {metavar}`"
        rows.append((label, describe(a) or POSITIONALS.get(str(metavar), "")))
    if rows:
        out += [pipe_table(["argument", "meaning"], rows), ""]
    for sub, (p, help_) in subcommands(parser).items():
        out += section(f"{name} {sub}", p, help_, level + 1)
    return out


def main() -> None:
    lines = []
    for name, (parser, help_) in subcommands(build_parser()).items():
        lines += section(name, parser, help_)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
