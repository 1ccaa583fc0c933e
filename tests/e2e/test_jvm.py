"""The JVM runtime: H2 embedded through JDBC from the Java worker (seed 001's third engine).

A missing JDK or H2 jar skips these tests with the reason, unless CROSSINGS_REQUIRE_RUNTIMES=1
(CI sets it): then it fails. They use the project's TPC-H cache at SF 0.01 (made on demand).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conftest import harness, last_line, require
from harness import store
from harness.fsutil import PROJECT_ROOT
from harness.run.jvm import launcher

REQUIRE = "CROSSINGS_REQUIRE_RUNTIMES"
SLOW = 1800  # a loaded 2-core machine: the first H2 load, JVM start-ups, JIT warm-up


def need_jvm() -> None:
    info = launcher.probe("h2/jdbc")
    if not info["available"]:
        require(REQUIRE, info["reason"])


def run(tmp_path: Path, *args: str, check: bool = True, env: dict | None = None):
    return harness("run", "--profile", "smoke", "--engines", "h2/jdbc", "--runtimes", "jvm", "--processes", "1",
                   "--iterations", "2", "--out", str(tmp_path), "--no-progress", *args, timeout=SLOW, check=check,
                   env=env)


def test_h2_cells_run_validate_and_count_like_python(tmp_path):
    need_jvm()
    proc = run(tmp_path, "--benchmarks", "tpch.q01,tpch.q11,tpch.q15,micro.select,micro.pythonjoin,micro.pyfunction,"
               "micro.pyaggregate,micro.filltable", "--param", "rows=500")
    run_dir = Path(last_line(proc.stdout))
    p = store.load_process_records([run_dir])
    assert set(p["status"]) == {"ok"}, p[["benchmark", "status", "reason"]]
    df = store.load_runs([run_dir])
    assert df["check_ok"].all() and (df["wall_ns"] > 0).all() and (df["cpu_ns"] >= 0).all()
    assert df["runtime"].str.startswith("jvm-").all()
    counts = df.groupby("benchmark")[["crossings", "values_converted"]].max()
    lineitem = 60175  # SF 0.01
    assert counts.loc["micro.select"].tolist() == [lineitem + 1, 3 * lineitem]
    assert counts.loc["micro.pyfunction"].tolist() == [1 + 2 * lineitem, 3 * lineitem]
    assert counts.loc["micro.pyaggregate"].tolist() == [1 + lineitem + 1 + 1, 2 * lineitem + 1]
    assert counts.loc["micro.pythonjoin", "crossings"] == 1 + 3 * 8000  # partsupp rows: outer + query + row
    assert counts.loc["micro.filltable"].tolist() == [1 + 500 + 1 + 500, 4 * 500]
    m = store.read_manifest(run_dir)
    probe = m["engines"]["h2/jdbc@jvm"]
    assert probe["versions"]["h2"].startswith("2.") and probe["versions"]["java"]
    assert probe["versions"]["h2_settings"] == "SET OPTIMIZE_REUSE_RESULTS 0"
    assert probe["build"]["javac_version"].startswith("javac")


def test_wrong_answers_are_caught(tmp_path):
    need_jvm()
    # the harness's own wrong answer
    proc = run(tmp_path, "--benchmarks", "selftest.wrong,selftest.sleep", check=False)
    assert proc.returncode == 1, proc.stderr
    p = store.load_process_records([Path(last_line(proc.stdout))]).set_index("benchmark")
    assert p.loc["selftest.wrong", "status"] == "invalid"
    assert "expected 42, got 41" in p.loc["selftest.wrong", "reason"]
    assert p.loc["selftest.sleep", "status"] == "not_applicable"
    # a TPC-H answer set with one value changed by more than the spec's tolerance ($100 on a sum)
    answers = tmp_path / "answers"
    shutil.copytree(PROJECT_ROOT / "data" / "tpch-answers", answers)
    q06 = answers / "sf0.01" / "q06.csv"
    header, value = q06.read_text().splitlines()[:2]
    q06.write_text(f"{header}\n{float(value) + 1000:.4f}\n")
    env = dict(os.environ, CROSSINGS_TPCH_ANSWERS=str(answers))
    proc = run(tmp_path, "--benchmarks", "tpch.q06", check=False, env=env)
    assert proc.returncode == 1, proc.stderr
    (rec,) = store.load_process_records([Path(last_line(proc.stdout))]).itertuples()
    assert rec.status == "invalid" and "q6 row 1 column 1 (sum)" in rec.reason, rec.reason
    df = store.load_runs([Path(last_line(proc.stdout))])
    assert not df["check_ok"].any()


def test_build_cache_is_reused_and_keyed_on_the_source(tmp_path):
    need_jvm()
    cache = tmp_path / "cache"
    first = launcher.build(cache=cache)
    assert first.info["cached"] is False and (first.classes / "Bench.class").exists()
    assert first.info["build_seconds"] > 0
    again = launcher.build(cache=cache)
    assert again.info["cached"] is True and again.classes == first.classes
    edited = tmp_path / "Bench.java"
    edited.write_text(launcher.SOURCE.read_text() + "\n// edited\n")
    other = launcher.build(source=edited, cache=cache)
    assert other.classes != first.classes
    assert len(list(cache.glob("bench-*.json"))) == 2
    # a second run reuses the project's build: the probe reports a cached build
    assert launcher.probe("h2/jdbc")["build"]["key"] == launcher.build().info["key"]
    assert launcher.build().info["cached"] is True


def test_missing_jdk_or_jar_skips_cells_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("CROSSINGS_JVM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CROSSINGS_H2_JAR", str(tmp_path / "nonexistent-h2.jar"))
    info = launcher.probe("h2/jdbc")
    assert info["available"] is False and "libh2-java" in info["reason"], info
    monkeypatch.setenv("CROSSINGS_JAVAC", "/nonexistent/javac")
    info = launcher.probe("h2/jdbc")
    assert info["available"] is False and "default-jdk-headless" in info["reason"], info
    proc = run(tmp_path, "--benchmarks", "micro.filltable", env=dict(os.environ), check=False)
    assert proc.returncode == 1 and "nothing was measured" in proc.stderr, proc.stderr  # a skip, not a crash
    p = store.load_process_records([Path(last_line(proc.stdout))])
    assert set(p["status"]) == {"skipped"} and "default-jdk-headless" in p["reason"].iloc[0]
    json.dumps(info)  # what the manifest stores is JSON


def test_validate_runs_the_queries_in_the_java_worker(tmp_path):
    need_jvm()
    proc = harness("validate", "tpch", "--engine", "h2/jdbc", "--sf", "0.01", "--indexes", "off", "--queries", "6,13",
                   timeout=SLOW)
    assert "2/2 passed" in proc.stdout, proc.stdout
    assert "engine h2/jdbc, sf 0.01, indexes=off" in proc.stdout


def test_data_explain_prints_the_plans_that_diagnose_h2s_q19_and_q20():
    """The plans Section 5.1 reads: H2 joins q19's tables ON 1=1 (its join key sits in each OR branch), SQLite
    searches part by key per branch; with the secondary indexes H2 seeks q20's lineitem rows by key."""
    need_jvm()
    h2 = harness("data", "explain", "--engine", "h2", "--query", "19", timeout=SLOW).stdout
    assert h2.startswith("# h2/jdbc plan for TPC-H q19 at SF 0.01, indexes=off") and "ON 1=1" in h2
    assert "PART.tableScan" in h2 and "LINEITEM.tableScan" in h2
    sqlite = harness("data", "explain", "--engine", "sqlite", "--query", "19", timeout=SLOW).stdout
    assert "MULTI-INDEX OR" in sqlite and "SEARCH part USING INTEGER PRIMARY KEY" in sqlite
    q20 = harness("data", "explain", "--engine", "h2", "--query", "20", "--indexes", "on", timeout=SLOW).stdout
    assert "IDX_LINEITEM_PARTKEY_SUPPKEY" in q20
    bad = harness("data", "explain", "--query", "23", check=False)
    assert bad.returncode == 2 and "TPC-H has queries 1 to 22" in bad.stderr
