"""`run --help` reads as text (no `%%`) and names every runtime; an engine's own benchmarks are
chosen when a request names none."""
from __future__ import annotations

import pytest

from harness import cli
from tests.conftest import ROOT
from harness.run.plan import RunRequest, build_plan
from harness.run.runtimes import RUNTIMES


@pytest.mark.parametrize("command", ["run", "plan"])
def test_help_has_no_doubled_percent(command, capsys):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out and "99%" in out


def test_run_help_names_every_runtime(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert all(name in out for name in RUNTIMES), out


def test_engine_own_benchmarks_without_benchmarks_option():
    plan = build_plan(RunRequest(profile="quick", engines=["ramsql/go"], runtimes=["go"]), "r")
    assert plan.cells and {c.benchmark.split(".")[0] for c in plan.cells} == {"ramsql"}


def test_own_benchmarks_do_not_spread_to_other_engines():
    plan = build_plan(RunRequest(profile="quick", engines=["ramsql/go", "sqlite/sqlite3"], runtimes=["go", "cpython"]),
                      "r")
    families = {(c.engine, c.benchmark.split(".")[0]) for c in plan.cells}
    assert ("sqlite/sqlite3", "ramsql") not in families and ("ramsql/go", "bindings") not in families
    assert ("sqlite/sqlite3", "bindings") in families and ("ramsql/go", "ramsql") in families


def test_named_benchmarks_are_kept_for_every_engine():
    plan = build_plan(RunRequest(profile="quick", engines=["ramsql/go"], runtimes=["go"],
                                 benchmarks=["bindings.select_fold"]), "r")
    assert {c.benchmark for c in plan.cells} == {"bindings.select_fold"}


#: the commands `python -m harness --help` lists, in its order
HELP_COMMANDS = ["list", "run", "summary", "table", "compare", "import", "gobench", "data", "validate", "notebooks",
                 "plan", "doctor", "report", "history", "collect", "campaign", "push", "headline", "reference"]


def test_help_lists_every_command_in_order():
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == HELP_COMMANDS


def test_every_command_module_is_wired_into_the_cli():
    """A module under harness/commands with `register` and no entry in cli.COMMANDS is a command
    nobody can call; cli imports them by name, so one that is missing stops the start-up."""
    with_register = {f"harness.commands.{p.stem}" for p in (ROOT / "harness" / "commands").glob("*.py")
                     if "\ndef register(" in p.read_text()}
    assert {m.__name__ for m in cli.COMMANDS} == with_register
