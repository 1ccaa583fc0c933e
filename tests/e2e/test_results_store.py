"""One results store for many machines: `push` runs into a real (throwaway) PostgreSQL, then
`summary --from` gives the CSV `summary RUN_DIR` gives, byte for byte; a push is idempotent by
run id and content hash, the migrations run once, and DSNs never appear in what is printed."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import harness, one_line_error
from helpers_servers import require_family


@pytest.fixture(scope="module")
def pg_dsn():
    require_family("postgresql")
    from harness.run.servers import throwaway

    with throwaway("postgresql") as server:
        yield server.engine_config()["dsn"]


def test_push_then_summary_from_the_store(smoke_run: Path, pg_dsn: str, tmp_path):
    import psycopg

    from harness.redaction import dsn_password

    password = dsn_password(pg_dsn)
    first = harness("push", str(smoke_run), "--to", pg_dsn)
    assert f"{smoke_run.name}: pushed" in first.stderr
    again = harness("push", str(smoke_run), "--to", pg_dsn)
    assert f"{smoke_run.name}: unchanged" in again.stderr
    direct = harness("summary", str(smoke_run), "--format", "csv").stdout
    stored = harness("summary", "--from", pg_dsn, smoke_run.name, "--format", "csv").stdout
    assert stored == direct and direct.count("\n") > 1
    every = harness("summary", "--from", pg_dsn, "--format", "csv").stdout  # every run in the store: this one
    assert every == direct
    cmp_direct = harness("compare", str(smoke_run), str(smoke_run), "--format", "csv").stdout
    cmp_stored = harness("compare", "--from", pg_dsn, smoke_run.name, smoke_run.name, "--format", "csv").stdout
    assert cmp_stored == cmp_direct
    with psycopg.connect(pg_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM crossings.schema_migrations").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM crossings.runs").fetchone()[0] == 1
        n = conn.execute("SELECT count(*) FROM crossings.processes WHERE run_id = %s", (smoke_run.name,)).fetchone()[0]
    assert n == len(list((smoke_run / "processes").glob("*.json")))
    # a run changed since it was pushed: refused (one line, no password), then replaced on request
    changed = tmp_path / smoke_run.name
    import shutil

    shutil.copytree(smoke_run, changed)
    (changed / "manifest.json").write_text((changed / "manifest.json").read_text().replace('"status"', '"note": 1, "status"', 1))
    refused = harness("push", str(changed), "--to", pg_dsn, check=False)
    assert refused.returncode == 2 and "--replace" in one_line_error(refused.stderr)
    replaced = harness("push", str(changed), "--to", pg_dsn, "--replace")
    assert f"{smoke_run.name}: replaced" in replaced.stderr
    missing = harness("summary", "--from", pg_dsn, "no-such-run", check=False)
    line = one_line_error(missing.stderr)
    assert "not in the results store" in line
    for out in (first, again, refused, replaced, missing):
        assert password not in out.stdout + out.stderr
