"""`list`: a table no wider than 120 characters, and what it probes remembered until something
installed changes (a second list starts no probe)."""
from __future__ import annotations

import pytest

from harness import cli
from harness.commands import list as list_cmd
from harness.run import probe as probe_mod
from harness.run import probe_cache
from harness.run.runtimes import RUNTIMES


@pytest.fixture
def counted(tmp_path, monkeypatch):
    """Probes that answer at once and are counted; the cache in a temporary folder. The runtimes'
    own checks answer at once too, with a reason as long as a real one: the Haskell runtime's
    builds its worker with ghc when the build cache is cold (a minute), which a unit test must not."""
    calls = []

    def no_runtime(self):
        return None if self.name == "cpython" else f"{self.name} not found on PATH: install it (or set CROSSINGS_X)"

    for cls in {type(rt) for rt in RUNTIMES.values()}:
        monkeypatch.setattr(cls, "unavailable_reason", no_runtime)

    def fake_probe(engine, runtime, *args, **kwargs):
        calls.append((engine, runtime))
        return {"available": True, "versions": {"driver": f"{engine} 1.0"}}

    monkeypatch.setenv("CROSSINGS_LIST_CACHE", str(tmp_path / "list-cache"))
    monkeypatch.setattr(probe_mod, "probe", fake_probe)
    for var in ("CROSSINGS_PG_DSN", "CROSSINGS_MARIADB_DSN", "CROSSINGS_FERRETDB_DSN"):
        monkeypatch.delenv(var, raising=False)
    return calls


def test_list_fits_120_columns_and_names_everything(counted, capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 120
    for word in ("engines:", "runtimes:", "benchmarks:", "profiles:", "sqlite/sqlite3", "haskell-O0", "bindings.point_query"):
        assert word in out


def test_second_list_probes_nothing(counted, capsys):
    cli.main(["list"])
    first = len(counted)
    assert first > 0
    cli.main(["list"])
    assert len(counted) == first, "the second list probed again"
    cli.main(["list", "--refresh"])
    assert len(counted) == 2 * first


def test_a_change_of_installed_versions_probes_again(counted, capsys, monkeypatch):
    cli.main(["list"])
    first = len(counted)
    monkeypatch.setenv("CROSSINGS_PYPY", "/nonexistent/pypy3")  # another interpreter: another fingerprint
    cli.main(["list"])
    assert len(counted) == 2 * first


def test_fingerprint_follows_the_import_path(tmp_path, monkeypatch):
    import sys

    before = probe_cache.installed_fingerprint()
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    added = probe_cache.installed_fingerprint()
    (site / "newpkg-1.0.dist-info").mkdir()  # what pip install leaves: the folder's stat moves
    assert len({before, added, probe_cache.installed_fingerprint()}) == 3


def test_a_user_server_probe_is_never_remembered(counted, capsys, monkeypatch):
    from harness.run.servers import DSN_ENV

    monkeypatch.setenv(DSN_ENV["postgresql"], "postgresql://nobody@localhost/none")
    cli.main(["list"])
    cli.main(["list"])
    assert counted.count(("postgresql/psycopg", "cpython")) == 2
    assert counted.count(("sqlite/sqlite3", "cpython")) == 1
