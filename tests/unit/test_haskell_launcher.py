"""The Haskell launcher's pure parts: runtime families, what the build key depends on, flags and
the one-line reasons a failed build gives (the builds themselves are tested in tests/e2e)."""
from __future__ import annotations

from harness import engines
from harness.run.haskell import launcher
from harness.run.runtimes import RUNTIMES, runtime_family

SRC = [("Main.hs", b"main = return ()"), ("Protocol.hs", b"module Protocol where")]
PKGS = {"HDBC": "2.4.0.4", "acid-state": "0.16.1.1"}


def test_runtime_family_of_each_recorded_runtime():
    recorded = {"cpython3.11.7": "cpython", "pypy3.9.16": "pypy", "c-gcc12.2.0": "c",
                "haskell-O2-ghc9.0.2": "haskell", "haskell-O0-ghc9.0.2": "haskell-O0",
                    "haskell-O1-ghc9.0.2": "haskell-O1", "jvm-17.0.15": "jvm",
                "go1.26.8": "go"}
    assert {r: runtime_family(r) for r in recorded} == recorded
    assert set(recorded.values()) == set(RUNTIMES)


def test_build_key_changes_with_source_compiler_flags_and_packages():
    base = launcher.build_key(SRC, "/usr/bin/ghc", "9.0.2", ["-O2"], PKGS)
    assert base == launcher.build_key(list(SRC), "/usr/bin/ghc", "9.0.2", ["-O2"], dict(PKGS))
    edited = [("Main.hs", b"main = return () -- edited"), SRC[1]]
    others = [launcher.build_key(edited, "/usr/bin/ghc", "9.0.2", ["-O2"], PKGS),
              launcher.build_key(SRC, "/usr/bin/ghc", "9.4.7", ["-O2"], PKGS),
              launcher.build_key(SRC, "/usr/bin/ghc", "9.0.2", ["-O0"], PKGS),
              launcher.build_key(SRC, "/opt/ghc", "9.0.2", ["-O2"], PKGS),
              launcher.build_key(SRC, "/usr/bin/ghc", "9.0.2", ["-O2"], dict(PKGS, HDBC="2.4.0.5"))]
    assert len({base, *others}) == 1 + len(others)


def test_each_runtime_has_its_optimisation_flag():
    assert launcher.flags_for("haskell")[0] == "-O2" and launcher.flags_for("haskell-O0")[0] == "-O0"
    assert '-DCROSSINGS_OPT="O0"' in launcher.flags_for("haskell-O0")


def test_a_missing_library_names_the_debian_packages():
    msg = launcher._explain_failure("Main.hs:30:1: error:\n    Could not find module 'Database.HDBC.Sqlite3'\n")
    assert msg.startswith("cannot build the Haskell worker: Could not find module") and "libghc-hdbc-sqlite3-dev" in msg
    assert "\n" not in msg


def test_haskell_engines_run_only_in_the_haskell_worker():
    names = {"sqlite/hdbc", "sqlite/persistent", "postgresql/hdbc", "postgresql/simple", "acidstate/acid-state"}
    for name in names:
        e = engines.get(name)
        assert e.native and set(e.runtimes) == {"haskell", "haskell-O0", "haskell-O1"}
    assert {n for n in names if engines.get(n).server_family} == {"postgresql/hdbc", "postgresql/simple"}
    assert not names & set(engines.EMBEDDED)
