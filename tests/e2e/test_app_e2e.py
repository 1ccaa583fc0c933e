"""E5 end to end: app.* cells run on sqlite3 and on a throwaway FerretDB (MongoDB wire protocol)
through the CLI, every answer checked; `list` shows the family and the engine."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import harness, last_line
from helpers_servers import require_or_skip

from harness import store


def _run(tmp_path: Path, engine: str) -> Path:
    proc = harness("run", "--profile", "smoke", "--benchmarks", "app.*", "--engines", engine, "--processes", "1",
                   "--iterations", "2", "--param", "corpus=SM,MD", "--out", str(tmp_path), "--no-progress",
                   timeout=900)
    return Path(last_line(proc.stdout))


def _all_ok(run_dir: Path) -> None:
    recs = store.load_process_records([run_dir])
    assert len(recs) == 8 and set(recs["status"]) == {"ok"}, recs[["benchmark", "params", "status", "reason"]]
    raw = store.load_runs([run_dir])
    assert raw["check_ok"].all() and len(raw) == 16


def test_app_cells_on_sqlite3(tmp_path):
    _all_ok(_run(tmp_path, "sqlite/sqlite3"))


def test_app_cells_on_ferretdb(tmp_path):
    from harness.run.servers import unavailable_reason

    reason = unavailable_reason("ferretdb")
    if reason:
        require_or_skip(reason)
    if importlib.util.find_spec("pymongo") is None:
        require_or_skip("pymongo not installed (pip install pymongo)")
    run_dir = _run(tmp_path, "ferretdb/pymongo")
    _all_ok(run_dir)
    manifest = store.read_manifest(run_dir)
    assert "FerretDB" in str(manifest), "the manifest records the FerretDB server"


def test_sql_benchmarks_are_not_applicable_on_ferretdb(tmp_path):
    from harness.run.servers import unavailable_reason

    reason = unavailable_reason("ferretdb")
    if reason:
        require_or_skip(reason)
    proc = harness("run", "--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines",
                   "ferretdb/pymongo", "--processes", "1", "--iterations", "2", "--out", str(tmp_path),
                   "--no-progress", check=False, timeout=300)
    recs = store.load_process_records([Path(last_line(proc.stdout))])
    assert set(recs["status"]) == {"not_applicable"} and "not SQL" in recs["reason"].iloc[0]


def test_list_shows_the_app_family_and_the_mongo_engine():
    out = harness("list").stdout
    for name in ("app.insert_user", "app.list_users", "app.insert_item", "app.query_user", "ferretdb/pymongo"):
        assert name in out
