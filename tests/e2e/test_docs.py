"""The documentation site builds with `mkdocs build --strict`, and says only what the code does:
every command and option it names exists, every command and option that exists is in the
reference, and the profiles table matches the profiles."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    found = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
    for sub in _subcommands(parser).values():
        found |= _options(sub)
    return found


@pytest.fixture(scope="module")
def commands() -> dict[str, argparse.ArgumentParser]:
    from harness.cli import build_parser

    return _subcommands(build_parser())


def test_site_builds_strict(tmp_path):
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.skip("mkdocs not installed (make setup installs it from requirements.lock)")
    proc = subprocess.run([str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "reference" / "commands" / "index.html").exists()


def test_every_command_line_in_the_docs_exists(commands):
    """`harness CMD [SUB] --opt ...` anywhere in the docs or the README: CMD exists and takes --opt."""
    bad = []
    for path in DOCS:
        for line in path.read_text().splitlines():
            for m in re.finditer(r"-m harness ([a-z_]+)((?: [^`|#]*)?)", line):
                name, rest = m.group(1), m.group(2)
                if name not in commands:
                    bad.append(f"{path.name}: unknown command {name!r}: {line.strip()}")
                    continue
                known = _options(commands[name]) | {"--help"}
                bad += [f"{path.name}: {name} has no {opt}: {line.strip()}"
                        for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]*", rest) if opt not in known]
    assert not bad, "\n".join(bad)


def test_the_reference_lists_every_command_and_option(commands):
    text = (ROOT / "docs" / "reference" / "commands.md").read_text()
    sections = dict(re.findall(r"^## ([a-z_]+)\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    missing = []
    for name, parser in commands.items():
        if name not in sections:
            missing.append(f"command {name}")
            continue
        missing += [f"{name} {opt}" for opt in sorted(_options(parser) - {"--help"}) if f"`{opt}" not in sections[name]]
        documented = set(re.findall(r"`(--[a-z][a-z-]*)", sections[name]))
        missing += [f"{name}: documents {opt}, which does not exist" for opt in documented - _options(parser)]
    assert not missing, "docs/reference/commands.md is out of step with the CLI (tools/cli_reference.py " \
                        "prints it afresh): " + "; ".join(missing)


def test_profiles_table_matches_the_profiles():
    from harness.run.profiles import PROFILES

    text = (ROOT / "docs" / "reference" / "studies.md").read_text()
    for name, profile in PROFILES.items():
        row = re.search(rf"^\| `{name}` \| ([^|]*)\|", text, re.M)
        assert row, f"profile {name} not in docs/reference/studies.md"
        assert f"{profile.processes} x {profile.iterations}" in row.group(1), (name, row.group(1))


def test_readme_is_short_and_links_resolve():
    text = (ROOT / "README.md").read_text()
    assert len(text) < 6000
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not re.match(r"^[a-z]+:", link):
            assert (ROOT / link).exists(), link
