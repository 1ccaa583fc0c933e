"""Bad input matrix: every mistake a user can make on the command line is one `error:` line and
exit status 2, found before anything starts (no run directory, no temp file, no server, no
worker: these tests run in-process and spawn nothing)."""
from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pytest

from harness import cli, store
from harness.fsutil import try_locked
from tests.conftest import one_line_error, record_matrix

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A private TMPDIR, an --out folder and a file, all watched for leftovers."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.delenv("CROSSINGS_SERVER_TRANSPORT", raising=False)
    # `run` starts the doctor's look at other programs (0.2 s of sampling) beside planning, and a
    # rejected request still waits for it; what it finds is not checked here (test_noise.py is)
    from harness.run import doctor

    busy = doctor.busy_processes
    monkeypatch.setattr(doctor, "busy_processes", lambda window_s=0.0: busy(0.0))
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "a-file").write_text("not a directory\n")
    return tmp_path


def _snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _main(argv: list[str], capsys) -> tuple[int, str]:
    try:
        status = cli.main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    captured = capsys.readouterr()
    return int(status), captured.err


def _existing_run(sandbox: Path) -> Path:
    """A small complete run directory made with the store's own writers (no worker)."""
    from harness.run.manifest import base_manifest
    from harness.run.plan import RunRequest, build_plan

    plan = build_plan(RunRequest(profile="smoke", benchmarks=["bindings.select_fold"], engines=["sqlite/sqlite3"],
                                 processes=2, iterations=3), "run1")
    run_dir = store.create_run_dir(sandbox / "out", "run1")
    plan.write(run_dir)
    base_manifest("run1", None).write(run_dir)
    return run_dir


RUN = ["run", "--no-progress"]
BAD_RUN = [
    ("processes 0", ["--processes", "0"], "--processes must be between 1 and"),
    ("processes negative", ["--processes", "-3"], "--processes must be between 1 and"),
    ("processes 50000000", ["--processes", "50000000"], "--processes must be between 1 and"),
    ("processes not a number", ["--processes", "abc"], "invalid int value"),
    ("processes float", ["--processes", "2.5"], "invalid int value"),
    ("iterations 0", ["--iterations", "0"], "--iterations must be between 1 and"),
    ("iterations 2000000", ["--iterations", "2000000"], "--iterations must be between 1 and"),
    ("timeout 0", ["--timeout", "0"], "--timeout must be"),
    ("timeout -5", ["--timeout", "-5"], "--timeout must be"),
    ("timeout nan", ["--timeout", "nan"], "--timeout must be"),
    ("timeout inf", ["--timeout", "inf"], "--timeout must be"),
    ("timeout a year", ["--timeout", "31536000"], "--timeout must be"),
    ("budget -1", ["--budget", "-1"], "--budget must be"),
    ("budget nan", ["--budget", "nan"], "--budget must be"),
    ("benchmarks empty", ["--benchmarks", ""], "--benchmarks is empty"),
    ("benchmarks only commas", ["--benchmarks", ",,"], "--benchmarks is empty"),
    ("engines empty", ["--engines", ""], "--engines is empty"),
    ("runtimes empty", ["--runtimes", ""], "--runtimes is empty"),
    ("unknown benchmark", ["--benchmarks", "bindings.nosuch"], "unknown benchmark bindings.nosuch"),
    ("unknown engine", ["--engines", "oracle"], "unknown engine oracle; engines:"),
    ("unknown runtime", ["--runtimes", "jython"], "unknown runtime jython"),
    ("unknown profile", ["--profile", "bogus"], "unknown profile 'bogus'; profiles: smoke, quick"),
    ("profile typo", ["--profile", "smok"], "unknown profile 'smok' (did you mean smoke?)"),
    ("engine typo", ["--engines", "sqlite3"], "unknown engine sqlite3 (did you mean sqlite/sqlite3?); engines:"),
    ("engine family", ["--engines", "sqlite"], "(did you mean sqlite/* or sqlite/"),
    ("benchmark without family", ["--benchmarks", "select_fold"], "(did you mean bindings.select_fold?)"),
    ("benchmark typo", ["--benchmarks", "bindings.selct_fold"], "did you mean bindings.select_fold"),
    ("runtime typo", ["--runtimes", "python"], "unknown runtime python (did you mean cpython?); runtimes:"),
    ("unknown option", ["--bogus-flag"], "unrecognized arguments: --bogus-flag"),
    ("indexes=maybe", ["--benchmarks", "tpch.q01", "--param", "indexes=maybe"], "indexes='maybe'"),
    ("n=-5", ["--param", "n=-5"], "parameter n=-5"),
    ("n=0", ["--param", "n=0"], "parameter n=0"),
    ("n not a number", ["--param", "n=many"], "parameter n='many'"),
    ("n a float", ["--param", "n=1.5"], "parameter n='1.5'"),
    ("sf=0.0001", ["--benchmarks", "tpch.q01", "--param", "sf=0.0001"], "parameter sf=0.0001"),
    ("sf=nan", ["--benchmarks", "tpch.q01", "--param", "sf=nan"], "parameter sf=nan"),
    ("sf=-1", ["--benchmarks", "micro.select", "--param", "sf=-1"], "parameter sf=-1"),
    ("sf=100000", ["--benchmarks", "tpch.q01", "--param", "sf=100000"], "parameter sf=100000"),
    ("seconds=0", ["--benchmarks", "selftest.sleep", "--param", "seconds=0"], "parameter seconds=0"),
    ("rows=-1", ["--benchmarks", "micro.filltable", "--param", "rows=-1"], "parameter rows=-1"),
    ("queries=0", ["--benchmarks", "bindings.point_query", "--param", "queries=0"], "parameter queries=0"),
    ("journal_mode=bogus", ["--benchmarks", "inserts.prepared", "--param", "journal_mode=bogus"],
     "parameter journal_mode='bogus': inserts.prepared takes default, delete"),
    ("synchronous in a sweep", ["--benchmarks", "inserts.prepared", "--param", "synchronous=off,sometimes"],
     "parameter synchronous='sometimes'"),
    ("datadir missing", ["--benchmarks", "inserts.prepared", "--param", "datadir=/nonexistent/dir"],
     "parameter datadir='/nonexistent/dir': not a writable directory"),
    ("rows sweep with a hole", ["--benchmarks", "inserts.prepared", "--param", "rows=10,,100"], "an empty value"),
    ("rows sweep with a word", ["--benchmarks", "inserts.prepared", "--param", "rows=10,many"], "parameter rows='many'"),
    ("param without =", ["--param", "n"], "--param takes KEY=VALUE"),
    ("param without key", ["--param", "=5"], "--param takes KEY=VALUE"),
    ("param unknown", ["--param", "colour=red"], "unknown parameter colour"),
    ("seed beyond 64 bits", ["--seed", str(2**70)], "--seed must fit in 64 bits"),
    ("seed not a number", ["--seed", "x"], "invalid int value"),
    ("dsn unknown family", ["--dsn", "oracle=oracle://x"], "--dsn takes FAMILY=DSN"),
    ("dsn without =", ["--dsn", "postgresql"], "--dsn takes FAMILY=DSN"),
    ("dsn empty", ["--dsn", "postgresql="], "--dsn takes FAMILY=DSN"),
    ("benchmark glob matches nothing", ["--benchmarks", "zzz*"], "unknown benchmark zzz*"),
    ("engine glob matches nothing", ["--engines", "zzz/*"], "unknown engine zzz/*"),
]


@pytest.mark.parametrize("case,args,message", BAD_RUN, ids=[c[0] for c in BAD_RUN])
def test_bad_run_option(case, args, message, sandbox, capsys):
    before = _snapshot(sandbox)
    status, err = _main(RUN + ["--out", str(sandbox / "out"), *args], capsys)
    line = one_line_error(err)
    assert status == 2 and message in line, line
    assert _snapshot(sandbox) == before, "a rejected command left files behind"
    record_matrix("bad input (unit)", f"run {case}", status, line, 0, len(_snapshot(sandbox) - before))


def _out_cases(sandbox: Path) -> dict[str, tuple[list[str], str]]:
    return {
        "out is a file": (["--out", str(sandbox / "a-file")], "is a file, not a directory"),
        "out under a file": (["--out", str(sandbox / "a-file" / "runs")], "is a file, not a directory"),
        "out not writable": (["--out", "/proc/crossings-runs"], "is not writable"),
    }


@pytest.mark.parametrize("case", ["out is a file", "out under a file", "out not writable"])
def test_bad_out(case, sandbox, capsys):
    args, message = _out_cases(sandbox)[case]
    before = _snapshot(sandbox)
    status, err = _main(RUN + ["--benchmarks", "bindings.select_fold", *args], capsys)
    line = one_line_error(err)
    assert status == 2 and message in line, line
    assert _snapshot(sandbox) == before
    record_matrix("bad input (unit)", f"run {case}", status, line)


@pytest.mark.parametrize("value", ["udp", "", "TCPX"])
def test_bad_transport(value, sandbox, capsys, monkeypatch):
    if value == "":
        monkeypatch.setenv("CROSSINGS_SERVER_TRANSPORT", " ")
        expect = 0
    else:
        monkeypatch.setenv("CROSSINGS_SERVER_TRANSPORT", value)
        expect = 2
    before = _snapshot(sandbox)
    status, err = _main(RUN + ["--out", str(sandbox / "out"), "--processes", "0"], capsys)
    line = one_line_error(err)
    if expect:
        assert status == 2 and "CROSSINGS_SERVER_TRANSPORT must be unix or tcp" in line, line
        record_matrix("bad input (unit)", f"CROSSINGS_SERVER_TRANSPORT={value}", status, line)
    else:  # blank means the default (unix): the next mistake is the one reported
        assert "--processes" in line
    assert _snapshot(sandbox) == before


def _resume_cases(run_dir: Path, sandbox: Path) -> dict[str, tuple[list[str], str]]:
    return {
        "resume missing dir": (["--resume", str(sandbox / "nope")], "not a run directory"),
        "resume a file": (["--resume", str(sandbox / "a-file")], "not a run directory"),
        "resume with other processes": (["--resume", str(run_dir), "--processes", "3"],
                                        "--processes contradicts it"),
        "resume with other engines": (["--resume", str(run_dir), "--engines", "duckdb"], "--engines contradicts it"),
        "resume with other params": (["--resume", str(run_dir), "--param", "n=5"], "--param contradicts it"),
        "resume with other profile": (["--resume", str(run_dir), "--profile", "paper"], "--profile contradicts it"),
        "resume with other out": (["--resume", str(run_dir), "--out", str(sandbox)], "--out contradicts it"),
        "resume with other seed": (["--resume", str(run_dir), "--seed", "7"], "--seed contradicts it"),
    }


RESUME_CASES = ["resume missing dir", "resume a file", "resume with other processes", "resume with other engines",
                "resume with other params", "resume with other profile", "resume with other out",
                "resume with other seed"]


@pytest.mark.parametrize("case", RESUME_CASES)
def test_resume_refuses(case, sandbox, capsys):
    run_dir = _existing_run(sandbox)
    args, message = _resume_cases(run_dir, sandbox)[case]
    before = _snapshot(sandbox)
    status, err = _main(RUN + args, capsys)
    line = one_line_error(err)
    assert status == 2 and message in line, line
    assert _snapshot(sandbox) == before
    record_matrix("bad input (unit)", f"run --{case}", status, line)


def test_resume_with_the_stored_options_is_not_refused(sandbox):
    """Options equal to the stored plan are accepted (the check compares, it does not forbid)."""
    import argparse

    from harness.commands.run import _check_resume

    run_dir = _existing_run(sandbox)
    args = argparse.Namespace(resume=run_dir, profile="smoke", benchmarks="bindings.select_fold",
                              engines="sqlite/sqlite3", runtimes=None, processes=2, iterations=3, seed=None,
                              timeout=None, budget=None, param=["n=1000"], out=None)
    _check_resume(args)


def test_resume_of_a_locked_run_is_refused(sandbox, capsys):
    run_dir = _existing_run(sandbox)
    with try_locked(run_dir):
        status, err = _main(RUN + ["--resume", str(run_dir)], capsys)
    line = one_line_error(err)
    assert status == 2 and "in use by another harness run" in line, line
    assert store.read_manifest(run_dir)["status"] == "running"  # untouched
    record_matrix("fault (unit)", "resume while another run holds the run directory", status, line)


def _pyperf(values: list) -> dict:
    return {"version": "1.0", "metadata": {"name": "x", "unit": "second"},
            "benchmarks": [{"runs": [{"values": values}]}]}


def _import_files(sandbox: Path) -> dict[str, tuple[list[str], str]]:
    d = sandbox / "inputs"
    d.mkdir(exist_ok=True)
    (d / "binary.json").write_bytes(bytes(range(256)) * 4)
    (d / "latin1.csv").write_bytes("benchmark,engine,process,iteration,seconds\ncaf\xe9,e,0,0,1\n".encode("latin-1"))
    (d / "neg.csv").write_text("benchmark,engine,process,iteration,seconds\nb,e,0,0,-1\n")
    (d / "zero.csv").write_text("benchmark,engine,process,iteration,seconds\nb,e,0,0,0\n")
    (d / "nan.csv").write_text("benchmark,engine,process,iteration,seconds\nb,e,0,0,nan\n")
    (d / "cols.csv").write_text("benchmark,seconds\nb,1\n")
    (d / "ragged.csv").write_text("benchmark,engine,process,iteration,seconds\nb,e,0\n")
    (d / "dup.csv").write_text("benchmark,engine,process,iteration,seconds\nb,e,0,0,1\nb,e,0,0,2\n")
    (d / "trunc.json.gz").write_bytes(gzip.compress(json.dumps(_pyperf([1.0])).encode())[:20])
    (d / "bad.json").write_text("{not json")
    (d / "wrong.json").write_text(json.dumps({"benchmarks": "no"}))
    (d / "neg.json").write_text(json.dumps(_pyperf([0.1, -0.2])))
    (d / "hyper.json").write_text(json.dumps({"results": [{"command": "x", "times": ["fast"]}]}))
    (d / "go.txt").write_text("BenchmarkX-8 100 12.5 ns/op\n")
    (d / "nogo.txt").write_text("hello\n")
    return {
        "missing file": (["import", str(d / "nope.json"), "--format", "pyperf"], "no such file"),
        "a directory": (["import", str(d), "--format", "csv"], "is a directory"),
        "binary file as pyperf": (["import", str(d / "binary.json"), "--format", "pyperf"], "a binary file"),
        "binary file as csv": (["import", str(d / "binary.json"), "--format", "csv"], "a binary file"),
        "latin-1 csv": (["import", str(d / "latin1.csv"), "--format", "csv"], "not UTF-8 text"),
        "negative seconds": (["import", str(d / "neg.csv"), "--format", "csv"], "finite positive"),
        "zero seconds": (["import", str(d / "zero.csv"), "--format", "csv"], "finite positive"),
        "nan seconds": (["import", str(d / "nan.csv"), "--format", "csv"], "finite positive"),
        "missing columns": (["import", str(d / "cols.csv"), "--format", "csv"], "missing column"),
        "ragged csv": (["import", str(d / "ragged.csv"), "--format", "csv"], "wrong number of fields"),
        "duplicate rows": (["import", str(d / "dup.csv"), "--format", "csv"], "duplicate row"),
        "truncated json.gz": (["import", str(d / "trunc.json.gz"), "--format", "pyperf"], "gzip"),
        "invalid json": (["import", str(d / "bad.json"), "--format", "pyperf"], "invalid JSON"),
        "not pyperf": (["import", str(d / "wrong.json"), "--format", "pyperf"], "not a pyperf JSON file"),
        "negative pyperf value": (["import", str(d / "neg.json"), "--format", "pyperf"], "finite positive"),
        "hyperfine non-number": (["import", str(d / "hyper.json"), "--format", "hyperfine"], "not a number"),
        "gobench without engine": (["import", str(d / "go.txt"), "--format", "gobench"], "pass --engine"),
        "gobench without results": (["import", str(d / "nogo.txt"), "--format", "gobench", "--engine", "g"],
                                    "no `Benchmark"),
        "unknown format": (["import", str(d / "go.txt"), "--format", "xml"], "invalid choice: 'xml'"),
        "out is a file": (["import", str(d / "go.txt"), "--format", "gobench", "--engine", "g", "--out",
                           str(sandbox / "a-file")], "is a file, not a directory"),
    }


IMPORT_CASES = ["missing file", "a directory", "binary file as pyperf", "binary file as csv", "latin-1 csv",
                "negative seconds", "zero seconds", "nan seconds", "missing columns", "ragged csv", "duplicate rows",
                "truncated json.gz", "invalid json", "not pyperf", "negative pyperf value", "hyperfine non-number",
                "gobench without engine", "gobench without results", "unknown format", "out is a file"]


@pytest.mark.parametrize("case", IMPORT_CASES)
def test_bad_import(case, sandbox, capsys):
    args, message = _import_files(sandbox)[case]
    before = _snapshot(sandbox)
    status, err = _main(args + (["--out", str(sandbox / "out")] if "--out" not in args else []), capsys)
    line = one_line_error(err)
    assert status == 2 and message in line, line
    assert _snapshot(sandbox) == before
    record_matrix("bad input (unit)", f"import {case}", status, line)


def test_pyperf_json_gz_is_read(sandbox, capsys):
    path = sandbox / "bench.json.gz"
    path.write_bytes(gzip.compress(json.dumps(_pyperf([0.001, 0.002])).encode()))
    status, _ = _main(["import", str(path), "--format", "pyperf", "--out", str(sandbox / "out")], capsys)
    assert status == 0
    (run_dir,) = (sandbox / "out").iterdir()
    assert store.load_runs([run_dir])["wall_ns"].tolist() == [1_000_000, 2_000_000]


def _other_cases(sandbox: Path) -> dict[str, tuple[list[str], str]]:
    return {
        "unknown command": (["frobnicate"], "invalid choice: 'frobnicate'"),
        "summary of a missing dir": (["summary", str(sandbox / "nope")], "no such run directory"),
        "summary of a file": (["summary", str(sandbox / "a-file")], "no such run directory"),
        "summary confidence 2": (["summary", str(sandbox / "nope"), "--confidence", "2"], "--confidence must be"),
        "summary resamples 0": (["summary", str(sandbox / "nope"), "--resamples", "0"], "--resamples must be"),
        "summary unknown format": (["summary", str(sandbox / "nope"), "--format", "xls"], "invalid choice"),
        "notebooks of a missing run": (["notebooks", str(sandbox / "nope")], "no such run directory"),
        "list unknown runtime": (["list", "--runtimes", "jython"], "unknown runtime jython"),
        "data sf=0.0001": (["data", "tpch", "--sf", "0.0001", "--quiet"], "sf=0.0001"),
        "data sf not a number": (["data", "tpch", "--sf", "big", "--quiet"], "--sf must be a number"),
    }


OTHER_CASES = ["unknown command", "summary of a missing dir", "summary of a file", "summary confidence 2",
               "summary resamples 0", "summary unknown format", "notebooks of a missing run", "list unknown runtime",
               "data sf=0.0001", "data sf not a number"]


@pytest.mark.parametrize("case", OTHER_CASES)
def test_bad_other_command(case, sandbox, capsys):
    args, message = _other_cases(sandbox)[case]
    before = _snapshot(sandbox)
    status, err = _main(args, capsys)
    line = one_line_error(err)
    assert status == 2 and message in line, line
    assert _snapshot(sandbox) == before
    record_matrix("bad input (unit)", case, status, line)


@pytest.mark.parametrize("case", ["unknown notebook", "empty --only", "paper is missing", "figures is a file"])
def test_bad_notebooks_option(case, sandbox, capsys):
    run_dir = _existing_run(sandbox)
    args = {"unknown notebook": ["--only", "nosuch"], "empty --only": ["--only", ""],
            "paper is missing": ["--paper", str(sandbox / "missing.md")],
            "figures is a file": ["--figures", str(sandbox / "a-file")]}[case]
    message = {"unknown notebook": "unknown notebook nosuch", "empty --only": "unknown notebook",
               "paper is missing": "does not exist", "figures is a file": "is a file"}[case]
    before = _snapshot(sandbox)
    status, err = _main(["notebooks", str(run_dir), *args], capsys)
    line = one_line_error(err)
    assert status == 2 and message in line, line
    assert _snapshot(sandbox) == before
    record_matrix("bad input (unit)", f"notebooks {case}", status, line)
