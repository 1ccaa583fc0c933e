"""The one cached build of the foreign workers (`run/build.py`): made once, then found; a failed
or killed build leaves nothing that is found; the keys of every runtime stay what they were."""
from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from harness import fsutil
from harness.run import build as builds
from harness.run.go import launcher as go_launcher
from harness.run.haskell import launcher as haskell_launcher
from harness.run.jvm import launcher as jvm_launcher
from harness.run.native import launcher as native_launcher
from harness.run.runtimes import RUNTIMES


def _maker(calls: list[int], payload: bytes = b"binary"):
    def make(scratch: Path):
        calls.append(1)
        out = scratch / "product"
        out.write_bytes(payload)
        return out, {"key": "k1", "what": "a test product"}
    return make


def test_a_cached_build_is_made_once_then_found_with_its_record(tmp_path):
    calls: list[int] = []
    first = builds.cached(tmp_path, "bench", "k1", _maker(calls))
    again = builds.cached(tmp_path, "bench", "k1", _maker(calls, b"other"))
    assert calls == [1]
    assert first.path == again.path == tmp_path / "bench-k1" and first.binary == first.classes == first.path
    assert first.path.read_bytes() == b"binary"
    assert first.info["cached"] is False and again.info["cached"] is True
    assert again.info["what"] == "a test product"
    assert (tmp_path / "bench-k1.json").exists() and (tmp_path / ".gitignore").read_text() == "*\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".bench")] == []  # no scratch left


def test_a_failed_build_leaves_no_product_record_or_scratch(tmp_path):
    def make(scratch: Path):
        (scratch / "half").write_bytes(b"half a binary")
        raise builds.BuildError("the compiler said no")

    with pytest.raises(builds.BuildError, match="said no"):
        builds.cached(tmp_path, "bench", "k1", make)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".gitignore", ".lock"]


def test_a_build_killed_mid_way_is_swept_and_a_product_without_record_is_rebuilt(tmp_path):
    (tmp_path / ".bench-k0.abc").mkdir()
    (tmp_path / ".bench-k0.abc" / "o").write_text("scratch of a killed build")
    (tmp_path / ".bench-k1.tmp").write_text("a killed compile's output")
    (tmp_path / ".e6-k1.keep").write_text("another family's: not ours to sweep")
    (tmp_path / "bench-k1").write_bytes(b"renamed, but no record")
    calls: list[int] = []
    b = builds.cached(tmp_path, "bench", "k1", _maker(calls))
    assert calls == [1] and b.info["cached"] is False and b.path.read_bytes() == b"binary"
    assert not (tmp_path / ".bench-k0.abc").exists() and not (tmp_path / ".bench-k1.tmp").exists()
    assert (tmp_path / ".e6-k1.keep").exists()


def test_a_directory_product_is_renamed_into_place(tmp_path):
    def make(scratch: Path):
        classes = scratch / "classes"
        classes.mkdir()
        (classes / "Bench.class").write_bytes(b"\xca\xfe")
        return classes, {"key": "k2"}

    b = builds.cached(tmp_path, "bench", "k2", make)
    assert (b.classes / "Bench.class").read_bytes() == b"\xca\xfe"


def test_the_memo_hands_one_build_per_key_to_a_process():
    made: list[str] = []

    def make(name: str):
        return lambda: made.append(name) or builds.Build(Path(name), {"key": name})

    key = ("test_build", object())
    a = builds.once(key, make("a"))
    b = builds.once(key, make("b"))
    c = builds.once(("test_build", object()), make("c"))
    assert a is b and a.path == Path("a") and c.path == Path("c") and made == ["a", "c"]


def test_build_keys_are_length_prefixed_and_unchanged_by_the_move():
    assert builds.build_key([b"ab", b"c"]) != builds.build_key([b"a", b"bc"])
    # values computed with the launchers before they shared run/build.py: cached builds stay valid
    assert native_launcher.build_key(b"src", "/usr/bin/cc", "gcc 12", ["-O2"], ["-lsqlite3", "-lm"]) \
        == "d41a4d1f98277c58"
    assert jvm_launcher.build_key(b"src", "/usr/bin/javac", "javac 17", b"jar", ["-Werror"]) == "110b91f6cb7828a8"
    assert haskell_launcher.build_key([("Main.hs", b"main")], "/usr/bin/ghc", "9.0.2", ["-O2"],
                                      {"base": "4.14"}) == "c9a71bba07988991"


def test_cache_dirs_are_data_cache_kind_unless_a_variable_moves_them(monkeypatch, tmp_path):
    monkeypatch.delenv("CROSSINGS_GO_CACHE", raising=False)
    assert go_launcher.cache_dir() == fsutil.PROJECT_ROOT / "data" / "cache" / "go"
    assert fsutil.cache_dir("tpch") == fsutil.PROJECT_ROOT / "data" / "cache" / "tpch"
    monkeypatch.setenv("CROSSINGS_NATIVE_CACHE", str(tmp_path))
    assert native_launcher.cache_dir() == tmp_path


def test_a_probe_that_fails_says_why_instead_of_raising():
    def broken():
        raise builds.BuildError("no compiler")

    assert builds.probed("c", broken) == {"available": False, "reason": "not available on c: no compiler"}
    bad_json = builds.probed("go", lambda: __import__("json").loads("{"))
    assert bad_json["available"] is False and "probe failed: JSONDecodeError" in bad_json["reason"]


def test_each_foreign_runtime_is_defined_beside_its_launcher():
    where = {name: type(rt).__module__ for name, rt in RUNTIMES.items()}
    assert where["c"] == native_launcher.__name__ and where["jvm"] == jvm_launcher.__name__
    assert where["go"] == go_launcher.__name__
    assert where["haskell"] == where["haskell-O0"] == haskell_launcher.__name__
    assert native_launcher.BuildError is jvm_launcher.BuildError is builds.BuildError


def test_the_package_ships_every_foreign_workers_source():
    pyproject = tomllib.loads((fsutil.PROJECT_ROOT / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["harness"]
    harness = fsutil.PROJECT_ROOT / "harness"
    for folder in ("native", "jvm", "go", "haskell"):
        assert (harness / "run" / folder / "__init__.py").exists(), folder
        for f in (harness / "run" / folder).iterdir():
            if f.is_file() and f.suffix != ".py" and not f.name.startswith("."):
                rel = f.relative_to(harness).as_posix()
                assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} is not package data"


def test_a_foreign_engine_says_where_it_runs_instead_of_probing_in_python():
    from harness.engines import ENGINES
    from harness.engines.base import NotApplicable
    from harness.engines.foreign import ForeignEngine

    foreign = {name: e for name, e in ENGINES.items() if isinstance(e, ForeignEngine)}
    assert {"sqlite/native-c", "h2/jdbc", "ramsql/go", "sqlite/go", "sqlite/hdbc"} <= set(foreign)
    assert all(e.native for e in foreign.values())
    assert not any(isinstance(e, ForeignEngine) for e in ENGINES.values() if not e.native)
    probe = foreign["h2/jdbc"].probe()
    assert probe["available"] is False and "runtime jvm, not in a Python worker" in probe["reason"]
    assert "harness.run.jvm.launcher" in probe["reason"]
    with pytest.raises(NotApplicable, match="sqlite/hdbc runs as the Haskell worker on runtimes haskell, haskell-O0"):
        foreign["sqlite/hdbc"].connect({}, "/nonexistent")
