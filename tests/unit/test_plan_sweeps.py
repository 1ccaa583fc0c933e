"""`--param KEY=V1,V2` and list values in profiles make one cell per value; single values keep
the cells (and their keys) exactly as before; `BENCH@ENGINE` profile patterns apply per engine."""
from __future__ import annotations

import pytest

from harness.commands.run import _params
from harness.errors import UserError
from harness.protocol import canonical_params
from harness.run.plan import RunRequest, build_plan
from harness.run.profiles import PROFILES, Profile, params_for


def _cells(**kw):
    return build_plan(RunRequest(**kw), "test").to_dict()["cells"]


def test_a_comma_list_is_a_sweep_and_one_value_is_not():
    assert _params(["rows=10,100,1000", "journal_mode=wal"]) == {"rows": ["10", "100", "1000"], "journal_mode": "wal"}


def test_one_cell_per_value_and_grids_multiply():
    cells = _cells(profile="smoke", benchmarks=["inserts.prepared"], engines=["sqlite/sqlite3"],
                   params={"rows": ["10", "100"], "journal_mode": ["delete", "wal", "off"],
                           "synchronous": ["off", "full"]})
    assert len(cells) == 2 * 3 * 2
    assert {(c["params"]["rows"], c["params"]["journal_mode"], c["params"]["synchronous"]) for c in cells} == {
        (n, j, s) for n in (10, 100) for j in ("delete", "wal", "off") for s in ("off", "full")}
    assert all(isinstance(c["params"]["rows"], int) for c in cells)


def test_duplicate_values_make_one_cell():
    cells = _cells(profile="smoke", benchmarks=["inserts.prepared"], engines=["sqlite/sqlite3"],
                   params={"rows": ["10", "10"]})
    assert len(cells) == 1


def test_single_values_keep_every_existing_cell_key():
    # the reference run's plan was made before sweeps existed: the same request makes the same cells
    import json

    from conftest import ROOT

    for plan_path in sorted((ROOT / "data" / "reference").glob("*/plan.json")):
        stored = json.loads(plan_path.read_text())
        manifest = json.loads((plan_path.parent / "manifest.json").read_text())
        if stored["profile"] != "quick" or "--param" in manifest.get("command", ""):
            continue
        command = manifest["command"] if isinstance(manifest["command"], list) else manifest["command"].split()
        engines = command[command.index("--engines") + 1].split(",") if "--engines" in command else None
        again = build_plan(RunRequest(profile=stored["profile"], benchmarks=stored["benchmarks"],
                                      engines=engines, runtimes=stored["runtimes"]), "again").to_dict()
        key = lambda c: (c["benchmark"], canonical_params(c["params"]), c["engine"], c["runtime"])
        # engines registered since then (a glob matches them now) make cells of their own
        known = set(stored["engines"])
        # an A/A twin (`--aa`, params aa=twin) is not part of the request rebuilt here
        assert [key(c) for c in again["cells"] if c["engine"] in known] == [
            key(c) for c in stored["cells"] if "aa=twin" not in key(c)[1].split(",")]
    one = _cells(profile="smoke", benchmarks=["bindings.select_fold"], engines=["sqlite/sqlite3"],
                 params={"n": "500"})
    assert [canonical_params(c["params"]) for c in one] == ["n=500"]


def test_engine_patterns_in_a_profile_apply_to_that_engine_only():
    profile = Profile("t", 1, 1, 10.0, ("inserts.*",), ("*",),
                      {"inserts.*": {"rows": [10, 100]}, "inserts.prepared@duckdb": {"rows": [10]}})
    defaults = {"rows": 1000, "journal_mode": "default"}
    assert params_for(profile, "inserts.prepared", defaults, "sqlite/sqlite3")["rows"] == [10, 100]
    assert params_for(profile, "inserts.prepared", defaults, "duckdb")["rows"] == [10]
    assert params_for(profile, "inserts.multirow", defaults, "duckdb")["rows"] == [10, 100]


def test_the_inserts_profile_caps_the_slow_strategies():
    cells = build_plan(RunRequest(profile="inserts", runtimes=["cpython", "c"]), "t").to_dict()["cells"]
    biggest = {}
    for c in cells:
        k = (c["benchmark"], c["engine"])
        biggest[k] = max(biggest.get(k, 0), c["params"]["rows"])
    assert biggest[("inserts.prepared", "sqlite/native-c")] == 1_000_000
    assert biggest[("inserts.autocommit", "sqlite/sqlite3")] == 100
    assert biggest[("inserts.prepared", "duckdb")] == 100
    assert "inserts" in PROFILES


def test_a_bad_value_inside_a_sweep_is_named():
    with pytest.raises(UserError, match="journal_mode='sometimes'"):
        _cells(profile="smoke", benchmarks=["inserts.prepared"], engines=["sqlite/sqlite3"],
               params={"journal_mode": ["wal", "sometimes"]})


def test_the_inserts_profile_holds_the_journal_grid_beside_its_n_sweep():
    """E4 measures seed 003's journal_mode x synchronous grid in the same run as its strategies:
    the grid's cells are added on the C runtime's SQLite; the N sweep at SQLite's own settings stays."""
    cells = build_plan(RunRequest(profile="inserts", runtimes=["cpython", "c"]), "t").to_dict()["cells"]
    native = [c["params"] for c in cells if c["benchmark"] == "inserts.prepared" and c["engine"] == "sqlite/native-c"]
    grid = [p for p in native if p["journal_mode"] != "default"]
    assert len(grid) == 3 * 6 * 3 and all(p["synchronous"] != "default" for p in grid)
    assert sorted({p["rows"] for p in grid}) == [1000, 100_000, 300_000]
    own = sorted(p["rows"] for p in native if p["journal_mode"] == "default")
    assert own == [10, 1000, 100_000, 1_000_000]
    python_side = [c for c in cells if c["engine"] == "sqlite/sqlite3" and c["params"]["journal_mode"] != "default"]
    assert python_side == []
    # a request that sets a grid parameter gets what it asked for, not the grid
    asked = build_plan(RunRequest(profile="inserts", runtimes=["c"], benchmarks=["inserts.prepared"],
                                  params={"journal_mode": "wal"}), "t").to_dict()["cells"]
    assert {c["params"]["journal_mode"] for c in asked} == {"wal"}
    assert len({c["params"]["rows"] for c in asked if c["engine"] == "sqlite/native-c"}) == 4
