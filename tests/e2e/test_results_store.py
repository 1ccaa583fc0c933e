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


def _database(dsn: str, name: str) -> str:
    """A new empty database on the same server, so a test's runs are the only ones in its store."""
    from urllib.parse import urlsplit

    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return urlsplit(dsn)._replace(path=f"/{name}").geturl()


def test_history_and_report_from_the_store_match_the_run_directories(pg_dsn: str, tmp_path):
    import json
    import re

    from conftest import ROOT

    runs = sorted(p for p in (ROOT / "data" / "reference-history").iterdir() if (p / "manifest.json").is_file())[:2]
    assert len(runs) == 2, "data/reference-history holds the history runs this test reads"
    dsn = _database(pg_dsn, "history_store")
    harness("push", *map(str, runs), "--to", dsn)
    ids = [r.name for r in runs]
    fast = ("--resamples", "200")
    for fmt in ("text", "csv"):
        direct = harness("history", *map(str, runs), *fast, "--format", fmt).stdout
        assert harness("history", "--from", dsn, *ids, *fast, "--format", fmt).stdout == direct
        assert "\n" in direct.strip()
    direct = json.loads(harness("history", *map(str, runs), *fast, "--format", "json").stdout)
    stored = json.loads(harness("history", "--from", dsn, *ids, *fast, "--format", "json").stdout)
    assert stored["runs"] == [f.rsplit("/", 1)[-1] for f in direct["runs"]]  # run ids, not a removed temp dir
    assert stored["rows"] == direct["rows"] and len(direct["rows"]) > 1
    pages = []
    for name, args in (("direct", [*map(str, runs)]), ("stored", ["--from", dsn, *ids])):
        out = tmp_path / f"{name}.html"
        harness("report", *args, *fast, "--html", str(out))
        page = out.read_text()
        assert "crossings-from-db-" not in page  # never a removed temporary folder
        # the page names where the runs were read (the directories, or the ids and the store with its
        # password hidden); everything else must be the same bytes
        source = re.search(r"stored in (.*?) by <code>python -m harness report</code>", page).group(1)
        assert ids[0] in source and (("***@" in source) if name == "stored" else str(runs[0]) in source)
        pages.append(page.replace(source, "SOURCE"))
    assert pages[0] == pages[1]


def test_a_wrong_password_is_one_line_without_the_password(pg_dsn: str, smoke_run: Path):
    from harness.redaction import dsn_password

    password = dsn_password(pg_dsn)
    wrong = pg_dsn.replace(password, "not-" + password[::-1])
    for args in (("push", str(smoke_run), "--to", wrong), ("history", "--from", wrong, smoke_run.name),
                 ("report", "--from", wrong, smoke_run.name, "--html", "unused.html")):
        proc = harness(*args, check=False)
        line = one_line_error(proc.stderr)
        assert proc.returncode == 2 and "cannot connect to the results store" in line and "password" in line
        assert password[::-1] not in proc.stdout + proc.stderr and password not in proc.stdout + proc.stderr
