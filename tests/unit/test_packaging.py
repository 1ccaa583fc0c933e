"""environment.yml (conda users) lists the same dependencies as pyproject.toml; the lock pins them."""
from __future__ import annotations

import re
import tomllib

import yaml

from conftest import ROOT


def _norm(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*)$", req)
    assert m, req
    return m.group(1).lower().replace("_", "-"), m.group(3).replace(" ", "")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = dict(_norm(r) for r in project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted.update(_norm(r) for r in extra)
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    have = dict(_norm(r) for r in pip if not r.startswith("-e"))
    assert have == wanted


def test_lock_pins_every_direct_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lock = (ROOT / "requirements.lock").read_text() + (ROOT / "requirements-mysqlclient.lock").read_text()
    pins = {m.group(1).lower().replace("_", "-") for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==", lock, re.M)}
    extras = project["optional-dependencies"]
    direct = {_norm(r)[0] for r in project["dependencies"] + extras["mysql-c"] + extras["dev"]}
    assert direct <= pins, direct - pins
