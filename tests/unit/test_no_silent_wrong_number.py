"""Issue 25's matrix, one parametrised test per class of input that used to give a silent wrong
number, a run nothing could read, a password on disk, a lost adaptive record or a traceback:
each case is now a number from the right data, a one-line warning, or one `error:` line (exit 2)
with nothing written. Every case adds a row to the fault matrix ($CROSSINGS_MATRIX)."""
from __future__ import annotations

import html
import json
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

from harness import cli, store
from harness.errors import UserError
from tests.conftest import one_line_error, record_matrix
from tests.unit.test_stored_faults import ITER, _edit_record, _make_run, _rewrite_timings, _set_column

LAYER = "issue 25 (unit)"


def _main(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = cli.main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    out = capsys.readouterr()
    return int(status), out.out, out.err


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _summary_csv(paths: list[Path], capsys) -> tuple[int, str, str]:
    return _main(["summary", *map(str, paths), "--resamples", "50", "--format", "csv"], capsys)


# -- 1. runs identified by run id ---------------------------------------------------------------

def _copy_beside(run: Path, tmp_path: Path) -> Path:
    """The same run under a second path, as data/reference/X beside data/runs/X."""
    copy = tmp_path / "reference" / run.name
    shutil.copytree(run, copy)
    return copy


SAME_RUN_TWICE = {
    "run, then its copy": lambda run, copy: [run, copy],
    "copy, then the run": lambda run, copy: [copy, run],
    "run, its copy, the run again": lambda run, copy: [run, copy, run],
    "run, and its copy through '..'": lambda run, copy: [run, copy.parent / ".." / "reference" / copy.name],
}


@pytest.mark.parametrize("case", list(SAME_RUN_TWICE))
def test_the_same_run_given_twice_is_used_once_and_said(case, tmp_path, capsys):
    run = _make_run(tmp_path / "runs", "runA")
    copy = _copy_beside(run, tmp_path)
    status, alone, err = _summary_csv([run], capsys)
    assert status == 0 and err == ""
    status, both, err = _summary_csv(SAME_RUN_TWICE[case](run, copy), capsys)
    assert status == 0 and "Traceback" not in err
    assert both == alone, "the copy's processes were merged into the run's"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: ") and "same run" in lines[0] and "used once" in lines[0]
    assert len(store.load_runs(SAME_RUN_TWICE[case](run, copy))) == 4 * ITER
    record_matrix(LAYER, f"same run twice: {case}", status, lines[0])


DIFFERENT_RUNS_ONE_ID = {
    "a copy missing its last record": lambda r: (r / "processes" / "000003.json").unlink(),
    "a copy with one record changed": lambda r: _edit_record(r, 1, reason="edited"),
    "a copy with another plan": lambda r: (r / "plan.json").write_text(
        json.dumps(dict(json.loads((r / "plan.json").read_text()), seed=7))),
}


@pytest.mark.parametrize("case", list(DIFFERENT_RUNS_ONE_ID))
def test_two_different_runs_with_one_id_are_an_error_naming_both(case, tmp_path, capsys):
    run = _make_run(tmp_path / "runs", "runA")
    copy = _copy_beside(run, tmp_path)
    DIFFERENT_RUNS_ONE_ID[case](copy)
    status, out, err = _summary_csv([run, copy], capsys)
    line = one_line_error(err)
    assert status == 2 and out == ""
    assert str(run) in line and str(copy) in line and "one run id 'runA'" in line, line
    record_matrix(LAYER, f"two runs with one id: {case}", status, line)


def _cell_of_seq(run: Path, seq: int) -> tuple[dict, int]:
    plan = json.loads((run / "plan.json").read_text())
    (index,) = [c for s, c, _ in plan["order"] if s == seq]
    return plan["cells"][index], index


@pytest.mark.parametrize("status", ["error", "failed", "timeout"])
def test_a_process_that_did_not_finish_never_enters_the_estimate(status, tmp_path, capsys):
    """Its timings stay on disk (made huge here: were they counted, the mean would be ~0.25 s);
    the cell's estimate comes from the others, and its status counts the process."""
    from harness.analysis.runset import RunSet

    run = _make_run(tmp_path, "runA")
    _rewrite_timings(run, 0, _set_column("wall_ns", lambda v: [1e9] * len(v)))
    _edit_record(run, 0, status=status, reason="worker returned 2 iterations, expected 4")
    cell, _ = _cell_of_seq(run, 0)
    summary = RunSet(run, resamples=50, use_cache=False).summary
    row = summary[summary["engine"] == cell["engine"]].iloc[0]
    assert row["mean_s"] < 1e-4, row["mean_s"]
    assert row["status"] == f"{status} (1/2 processes)", row["status"]
    assert (store.load_runs(run)["seq"] != 0).all()
    assert 0 in [t.column("seq")[0].as_py() for _, t in store.iter_timings(run, statuses=None)], \
        "the timings are still on disk (and still verified when asked for)"
    record_matrix(LAYER, f"a process recorded {status} with timings", 0, f"not estimated; cell status {row['status']}")


# -- 2. importers check what they write ---------------------------------------------------------

CSV = "benchmark,engine,process,iteration,seconds\n"


def _hyperfine(*results: dict) -> str:
    return json.dumps({"results": list(results)})


def _pyperf(values: list) -> str:
    return json.dumps({"metadata": {"name": "x", "unit": "second"}, "benchmarks": [{"runs": [{"values": values}]}]})


#: case -> (file name, its text, import options, words of the error)
BAD_IMPORTS = {
    "csv time of 1e10 s (used to wrap to INT64_MIN)": ("a.csv", CSV + "b,e,0,0,1e10\nb,e,0,1,0.5\n", [],
                                                       "outside 1e-12 s .. 86400 s"),
    "csv time of 1e20 s": ("a.csv", CSV + "b,e,0,0,1e20\n", [], "outside 1e-12 s .. 86400 s"),
    "csv time over a day": ("a.csv", CSV + "b,e,0,0,90000\n", [], "outside 1e-12 s .. 86400 s"),
    "csv time of 1e-16 s (used to round to 0)": ("a.csv", CSV + "b,e,0,0,1e-16\nb,e,0,1,1e-3\n", [],
                                                 "outside 1e-12 s .. 86400 s"),
    "csv time of 1e-300 s": ("a.csv", CSV + "b,e,0,0,1e-300\n", [], "outside 1e-12 s .. 86400 s"),
    "csv time of 1e300 s with --any-range": ("a.csv", CSV + "b,e,0,0,1e300\n", ["--any-range"],
                                             "outside 1e-18 s .. 1e+09 s"),
    "csv time of 1e-300 s with --any-range": ("a.csv", CSV + "b,e,0,0,1e-300\n", ["--any-range"],
                                              "outside 1e-18 s .. 1e+09 s"),
    "csv process of 10**20": ("a.csv", CSV + "b,e,100000000000000000000,0,1\n", [], "whole numbers 0.."),
    "csv negative process": ("a.csv", CSV + "b,e,-1,0,1\n", [], "whole numbers 0.."),
    "csv iteration of 2**63": ("a.csv", CSV + f"b,e,0,{2**63},1\n", [], "whole numbers 0.."),
    "pyperf value of 1e12 s": ("p.json", _pyperf([0.1, 1e12]), [], "outside 1e-12 s .. 86400 s"),
    "gobench 0.0001 ns/op": ("g.txt", "BenchmarkX-8 100 0.0001 ns/op\n", ["--engine", "g"],
                             "outside 1e-12 s .. 86400 s"),
    "hyperfine 1e-15 s": ("h.json", _hyperfine({"command": "x", "times": [1e-15]}), [], "outside 1e-12 s"),
    "hyperfine command repeated (used to become duplicate iterations)": (
        "h.json", _hyperfine({"command": "sleep 0.1", "times": [0.1, 0.1]},
                             {"command": "sleep 0.1", "times": [0.2]}), [], "repeats the command of results[0]"),
    "hyperfine command repeated with the same parameters": (
        "h.json", _hyperfine({"command": "x", "parameters": {"n": "1"}, "times": [0.1]},
                             {"command": "x", "parameters": {"n": "1"}, "times": [0.2]}), [], "repeats the command"),
}
FORMAT_OF = {".csv": "csv", ".json": "pyperf", ".txt": "gobench"}


def _format(name: str, text: str) -> str:
    return "hyperfine" if name.startswith("h.") else FORMAT_OF[Path(name).suffix]


@pytest.mark.parametrize("case", list(BAD_IMPORTS))
def test_an_import_that_could_not_be_read_back_is_refused_and_writes_nothing(case, tmp_path, capsys):
    name, text, options, words = BAD_IMPORTS[case]
    (tmp_path / name).write_text(text)
    (tmp_path / "out").mkdir()
    before = _files(tmp_path)
    status, out, err = _main(["import", str(tmp_path / name), "--format", _format(name, text), *options,
                              "--out", str(tmp_path / "out")], capsys)
    line = one_line_error(err)
    assert status == 2 and words in line, line
    assert _files(tmp_path) == before, "a refused import left files"
    record_matrix(LAYER, f"import {case}", status, line)


GOOD_IMPORTS = {
    "csv, 2 processes": ("a.csv", CSV + "b,e,0,0,0.001\nb,e,0,1,0.002\nb,e,1,0,0.0015\nb,e,1,1,0.0012\n", []),
    "csv, 5 ps and 1 day": ("a.csv", CSV + "b,e,0,0,5e-12\nb,e,0,1,86400\n", []),
    "csv, 1e-15 s with --any-range": ("a.csv", CSV + "b,e,0,0,1e-15\nb,e,0,1,2e-15\n", ["--any-range"]),
    "pyperf": ("p.json", _pyperf([0.1, 0.2, 0.15]), []),
    "gobench, sub-ns": ("g.txt", "BenchmarkX-8 100 0.5 ns/op\nBenchmarkX-8 100 0.7 ns/op\n", ["--engine", "g"]),
    "hyperfine, two commands": ("h.json", _hyperfine({"command": "a", "times": [0.1, 0.2]},
                                                     {"command": "b", "times": [0.3]}), []),
}


@pytest.mark.parametrize("case", list(GOOD_IMPORTS))
def test_every_import_reported_as_done_reads_back(case, tmp_path, capsys):
    name, text, options = GOOD_IMPORTS[case]
    (tmp_path / name).write_text(text)
    status, out, err = _main(["import", str(tmp_path / name), "--format", _format(name, text), *options,
                              "--out", str(tmp_path / "out")], capsys)
    assert status == 0 and err == "", err
    run = Path(out.strip().splitlines()[-1])
    assert store.check_run(run) == len(text.strip().splitlines()) - 1 if name.endswith(".csv") else \
        store.check_run(run) > 0
    status, out, err = _summary_csv([run], capsys)
    assert status == 0 and "Traceback" not in err and out
    record_matrix(LAYER, f"import {case} reads back", status, "summary exit 0")


def test_a_folder_level_command_skips_a_bad_run_with_one_warning(tmp_path, capsys):
    """`history FOLDER`: a run the folder holds that cannot be read is left out, one warning line,
    the others are shown; the same run named on its own is an error."""
    folder = tmp_path / "history"
    good = [_make_run(folder, f"run{i}") for i in range(2)]
    bad = _make_run(folder, "run9")
    _rewrite_timings(bad, 1, _set_column("wall_ns", lambda v: [1e299] * len(v)))
    status, out, err = _main(["history", str(folder), "--resamples", "50", "--format", "csv"], capsys)
    lines = err.strip().splitlines()
    assert status == 0, err
    assert [ln for ln in lines if ln.startswith("warning: skipping")] and \
        sum(ln.startswith("warning: skipping") for ln in lines) == 1 and str(bad) in err, err
    assert all(g.name in out for g in good) and "run9" not in out
    record_matrix(LAYER, "history FOLDER with one unreadable run", status, lines[0])
    status, out, err = _main(["history", str(good[0]), str(bad), "--resamples", "50"], capsys)
    assert status == 2 and str(bad) in one_line_error(err)


def test_a_folder_with_a_run_whose_plan_is_bad_is_skipped(tmp_path, capsys):
    folder = tmp_path / "history"
    good = [_make_run(folder, f"run{i}") for i in range(2)]
    bad = _make_run(folder, "run9")
    (bad / "plan.json").write_text(json.dumps(dict(json.loads((bad / "plan.json").read_text()), order=[["x", 0, 0]])))
    status, out, err = _main(["history", str(folder), "--resamples", "50", "--format", "csv"], capsys)
    assert status == 0 and "warning: skipping" in err and "plan.json" in err and all(g.name in out for g in good)
    record_matrix(LAYER, "history FOLDER with a run whose plan is bad", status, err.strip().splitlines()[0])


# -- 3. redaction that cannot miss ---------------------------------------------------------------

CHARS = ["@", ":", "/", "%", "#", "?", "&", ";", "=", "'", '"', "\\", " "]


def _kv_value(password: str) -> str:
    """The password as libpq's key=value form takes it: quoted (with \\ escapes) when it must be."""
    if any(c in password for c in " '\\"):
        return "'" + password.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return password


DSN_FORMS = {
    "URL, typed as is": lambda pw: f"postgresql://bob:{pw}@db.example:5432/bench",
    "URL, percent-encoded": lambda pw: f"postgresql://bob:{quote(pw, safe='')}@db.example/bench",
    "URL, in the query": lambda pw: f"postgresql://bob@db.example/bench?sslmode=disable&password={quote(pw, safe='')}",
    "mariadb URL, typed as is": lambda pw: f"mariadb://bob:{pw}@db.example/bench?unix_socket=/tmp/s",
    "key=value": lambda pw: f"host=db.example user=bob password={_kv_value(pw)} dbname=bench",
    "key=value, password first": lambda pw: f"password={_kv_value(pw)} host=db.example",
}


def _leaks(text: str) -> bool:
    return "SECRETA" in text or "SECRETB" in text


@pytest.fixture(scope="module")
def pristine_run(tmp_path_factory):
    """One run, written once for the module's 78 password cases (each edits its own copy)."""
    return _make_run(tmp_path_factory.mktemp("pristine"), "runA")


@pytest.mark.parametrize("char", CHARS, ids=lambda c: repr(c))
@pytest.mark.parametrize("form", list(DSN_FORMS))
def test_no_password_reaches_the_manifest_or_a_report(form, char, tmp_path, pristine_run, monkeypatch):
    from harness.commands.run import recorded_command
    from harness.redaction import dsn_password
    from harness.run import manifest as manifest_mod
    from harness.run.manifest import base_manifest

    # the project's commit is read by three `git` processes: a unit test starts none
    monkeypatch.setattr(manifest_mod, "git_commit", lambda: {"commit": "c0ffee", "dirty": False, "commit_date": None})
    from harness.studies.report import manifest_section
    from harness.studies.runfacts import reproduce_block

    password = f"SECRETA{char}SECRETB"
    dsn = DSN_FORMS[form](password)
    family = "mariadb" if dsn.startswith("mariadb") else "postgresql"
    argv = ["run", "--dsn", f"{family}={dsn}", "--engines", "psycopg", "--no-progress"]
    manifest = base_manifest("runA", recorded_command(argv, [f"{family}={dsn}"], {family: dsn})).to_dict()
    assert not _leaks(json.dumps(manifest)), manifest["command"]
    run = Path(shutil.copytree(pristine_run, tmp_path / "runA"))
    m = json.loads((run / "manifest.json").read_text())
    m["command"] = manifest["command"]
    (run / "manifest.json").write_text(json.dumps(m))
    page = manifest_section([run])
    block = reproduce_block([run])
    assert not _leaks(page) and not _leaks(html.unescape(page)) and not _leaks(block)
    assert "--engines psycopg" in manifest["command"], "redaction took more than the password"
    if not (form == "URL, typed as is" and char == "%"):  # a raw "%" is not a URL; it is still scrubbed
        assert dsn_password(dsn) == password, dsn
    record_matrix(LAYER, f"password with {char!r} in a {form} DSN", 0, "no secret in manifest or report")


# -- 4. a resumed adaptive run keeps its record --------------------------------------------------

def test_an_adaptive_run_cut_in_round_2_and_resumed_keeps_its_record(tmp_path):
    import math

    from harness.run.adaptive import Settings, drive, format_record, note_resume
    from harness.run.plan import LivePlan
    from tests.unit.test_adaptive import FakeRunner, scripted

    class Killed(FakeRunner):
        def execute(self):
            if len(self.rounds) == 2:
                raise KeyboardInterrupt
            super().execute()

    r = Killed(tmp_path, 2)
    behaviour = [lambda P: (0.2 / math.sqrt(P), True), lambda P: (1.0, True)]
    with pytest.raises(KeyboardInterrupt):
        drive(r, Settings(target=0.05, max_time_s=20.0), scripted(r, behaviour))
    plan = LivePlan.from_record(store.plan_of(tmp_path))
    record = plan.adaptive
    assert record["partial"] and record["settings"]["target"] == 0.05
    assert [c["stop"] for c in record["cells"]] == ["cut", "cut"] and all(c["round"] == 2 for c in record["cells"])
    assert all(c.get("achieved") is not None for c in record["cells"]), "the last assessment is kept"
    note_resume(plan)  # what resume_run does before the runner copies plan.adaptive into the manifest
    segments = plan.adaptive["segments"]
    assert len(segments) == 2 and segments[0]["target"] == 0.05 and segments[1] == {
        "target": 0.05, "rounds": 0, "stops": {"cut": 2}, "resumed": True}
    assert "cut (interrupted in round 2" in format_record(plan.adaptive)
    record_matrix(LAYER, "adaptive run killed in round 2, resumed", 0, "record kept, cells say cut")


def test_a_finished_adaptive_record_is_not_touched_by_a_resume(tmp_path):
    import math

    from harness.run.adaptive import Settings, drive, note_resume
    from harness.run.plan import LivePlan
    from tests.unit.test_adaptive import FakeRunner, scripted

    r = FakeRunner(tmp_path, 1)
    rec = drive(r, Settings(target=0.05, max_time_s=20.0), scripted(r, [lambda P: (0.2 / math.sqrt(P), True)]))
    assert "partial" not in rec and rec["segments"][0]["stops"] == {"met": 1}
    plan = LivePlan.from_record(store.plan_of(tmp_path))
    note_resume(plan)
    assert plan.adaptive == rec


# -- 5. environment variables --------------------------------------------------------------------

BAD_ENV = {
    "CROSSINGS_STATS_THREADS=abc": ("CROSSINGS_STATS_THREADS", "abc", "expected a whole number"),
    "CROSSINGS_STATS_THREADS=0": ("CROSSINGS_STATS_THREADS", "0", "expected a whole number from 1"),
    "CROSSINGS_STATS_THREADS=-4": ("CROSSINGS_STATS_THREADS", "-4", "expected a whole number from 1"),
    "CROSSINGS_STATS_THREADS=2.5": ("CROSSINGS_STATS_THREADS", "2.5", "expected a whole number"),
    "CROSSINGS_STATS_THREADS=10**9": ("CROSSINGS_STATS_THREADS", "1000000000", "to 1024"),
    "CROSSINGS_JVM_OPTS with an open quote": ("CROSSINGS_JVM_OPTS", "'-Xmx1g", "cannot split"),
    "CROSSINGS_NATIVE_CFLAGS with an open quote": ("CROSSINGS_NATIVE_CFLAGS", '-O2 "-march', "cannot split"),
}


@pytest.mark.parametrize("case", list(BAD_ENV))
def test_a_malformed_environment_variable_is_one_line_before_a_run_starts(case, tmp_path, capsys, monkeypatch):
    name, value, words = BAD_ENV[case]
    monkeypatch.setenv(name, value)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    status, out, err = _main(["run", "--no-progress", "--profile", "smoke", "--out", str(tmp_path / "out")], capsys)
    line = one_line_error(err)
    assert status == 2 and name in line and words in line, line
    assert not (tmp_path / "out").exists()
    record_matrix(LAYER, case, status, line)


def test_the_thread_count_is_checked_where_the_statistics_read_it(monkeypatch):
    from harness.analysis.stats import parallel

    monkeypatch.setenv("CROSSINGS_STATS_THREADS", "many")
    with pytest.raises(UserError, match="CROSSINGS_STATS_THREADS='many'"):
        parallel._thread_count(10)
    monkeypatch.setenv("CROSSINGS_STATS_THREADS", " 3 ")
    assert parallel._thread_count(10) == 3


# -- 6. options that used to be silent -----------------------------------------------------------

BAD_OPTIONS = {
    "--param KEY twice": (["--param", "rows=10", "--param", "rows=100"], "--param rows is given twice"),
    "--param KEY twice, one a sweep": (["--param", "rows=10,20", "--param", "rows=30"], "given twice"),
    "--param KEY twice, spaced": (["--param", "rows=10", "--param", " rows =20"], "given twice"),
    "a sweep of 1620 processes without --yes": (
        ["--benchmarks", "inserts.*", "--param", "rows=1,2,3,4,5,6,7,8,9,10,11,12", "--param",
         "synchronous=off,normal,full"], "the --param sweep plans 1620 processes"),
}


@pytest.mark.parametrize("case", list(BAD_OPTIONS))
def test_an_option_that_used_to_be_silent_is_an_error(case, tmp_path, capsys, monkeypatch):
    args, words = BAD_OPTIONS[case]
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    status, out, err = _main(["run", "--no-progress", *args, "--out", str(tmp_path / "out")], capsys)
    line = one_line_error(err)
    assert status == 2 and words in line, line
    assert not (tmp_path / "out").exists()
    record_matrix(LAYER, case, status, line)


def test_a_large_sweep_starts_with_yes_and_a_small_one_without(tmp_path, capsys, monkeypatch):
    import harness.run.runner as runner

    started = []
    monkeypatch.setattr(runner, "start_run", lambda request, drive=None: started.append(request) or tmp_path)
    monkeypatch.setattr("harness.commands.run.report", lambda run_dir: 0)
    sweep = ["--benchmarks", "inserts.*", "--param", "rows=1,2,3,4,5,6,7,8,9,10,11,12", "--param",
             "synchronous=off,normal,full"]
    status, out, err = _main(["run", "--no-progress", *sweep, "--yes"], capsys)
    assert status == 0 and len(started) == 1, err
    status, out, err = _main(["run", "--no-progress", "--benchmarks", "inserts.*", "--param", "rows=1,2"], capsys)
    assert status == 0 and len(started) == 2, err


# -- 5. SIGINT honoured by `notebooks` ------------------------------------------------------------

def test_ctrl_c_during_notebooks_kills_the_kernels_and_returns_within_2_s(tmp_path, monkeypatch):
    """The threads running notebooks return only when their kernel dies: a Ctrl-C used to wait for
    every notebook in flight. Here each stand-in notebook runs until its stand-in kernel is killed."""
    import threading
    import time

    from harness import notebooks

    class Process:
        def __init__(self):
            self.dead = threading.Event()

        def poll(self):
            return 0 if self.dead.is_set() else None

        def kill(self):
            self.dead.set()

    class Kernel:
        def __init__(self):
            self.provisioner = type("P", (), {"process": Process()})()

    kernels = []

    def execute(name, parameters, out_dir, timeout=1800):
        km = Kernel()
        kernels.append(km)
        with notebooks._ACTIVE_LOCK:
            notebooks._ACTIVE.add(km)
        try:
            if not km.provisioner.process.dead.wait(5):
                return out_dir / f"{name}.ipynb"
            raise RuntimeError("kernel died")
        finally:
            with notebooks._ACTIVE_LOCK:
                notebooks._ACTIVE.discard(km)

    monkeypatch.setattr(notebooks, "execute", execute)
    monkeypatch.setattr(notebooks, "longest_first", lambda names, out_dir: names)
    import signal

    main = threading.main_thread().ident  # a real SIGINT, as Ctrl-C sends: it wakes a blocked wait
    threading.Timer(0.3, lambda: signal.pthread_kill(main, signal.SIGINT)).start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        notebooks.execute_all([tmp_path], tmp_path / "paper.md", tmp_path, tmp_path, names=["a", "b", "c"], jobs=2)
    assert time.monotonic() - t0 < 2.0
    assert len(kernels) == 2 and all(k.provisioner.process.dead.is_set() for k in kernels), "c never started"
    record_matrix(LAYER, "Ctrl-C during notebooks (2 running, 1 waiting)", 130, "interrupted within 2 s")
