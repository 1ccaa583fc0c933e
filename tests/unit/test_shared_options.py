"""Options and checks shared by several commands (harness/commands/options.py) say the same thing
from every command that uses them, before any run is read."""
from __future__ import annotations

import pytest

from harness import cli
from harness.commands import options
from harness.errors import UserError
from tests.conftest import one_line_error

#: every command taking --confidence, with what else it requires
CONFIDENCE_COMMANDS = {
    "summary": [], "table": ["--baseline", "x"], "report": ["--html", "RUN/out.html"], "history": [],
    "headline": [], "plan": ["--target-ci", "3"], "compare": ["RUN"],
}


@pytest.mark.parametrize("command", sorted(CONFIDENCE_COMMANDS))
@pytest.mark.parametrize("value", ["0", "1", "1.5", "-0.2"])
def test_each_command_refuses_a_confidence_outside_0_1(command, value, tmp_path, capsys):
    extra = [a.replace("RUN", str(tmp_path)) for a in CONFIDENCE_COMMANDS[command]]
    status = cli.main([command, str(tmp_path), *extra, "--confidence", value])
    line = one_line_error(capsys.readouterr().err)
    assert status == 2 and "--confidence must be between 0 and 1, e.g. 0." in line, line


@pytest.mark.parametrize("command,minimum", [("summary", 1), ("history", 1), ("headline", 1), ("table", 100),
                                             ("report", 100)])
def test_each_command_refuses_too_few_resamples(command, minimum, tmp_path, capsys):
    extra = [a.replace("RUN", str(tmp_path)) for a in CONFIDENCE_COMMANDS[command]]
    status = cli.main([command, str(tmp_path), *extra, "--resamples", str(minimum - 1)])
    line = one_line_error(capsys.readouterr().err)
    assert status == 2 and f"--resamples must be between {minimum} and 10000000" in line, line


def test_the_checks_pass_good_values_and_name_the_option():
    options.check_confidence(0.99)
    options.check_fraction("--alpha", 0.05, 0.05)
    options.check_resamples(100, minimum=100)
    options.check_target_ci(3)
    with pytest.raises(UserError, match=r"^--alpha must be between 0 and 1, e\.g\. 0\.05$"):
        options.check_fraction("--alpha", 1.0, 0.05)
    with pytest.raises(UserError, match="--target-ci is a percentage"):
        options.check_target_ci(100)


def test_stats_options_live_in_one_module():
    """add_stats_options is defined once, in options, not in a command other commands import from."""
    from harness.commands import headline, history, report, summary, table

    assert not hasattr(summary, "add_stats_options") or summary.add_stats_options is options.add_stats_options
    assert all(m.add_stats_options is options.add_stats_options for m in (headline, history, report, table))
