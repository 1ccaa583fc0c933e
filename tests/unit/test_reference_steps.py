"""A study's steps (E6: a `go test -bench` session before the worker's run and one after it, A/worker/A)
run in that order on one machine and commit, each recorded in the campaign's state, not run again when
done, and installed with the study's run in place of the study's old runs, the imported go test
sessions (engines gotest-N, benchmarks in go test's words) included. Nothing is measured: the harness
commands are replaced by fakes that write run directories."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import UserError
from harness.run import reference

E6 = reference.STUDIES["E6"]
_count = iter(range(100, 1000))


def _fake_run(parent: Path, records: list[dict], name: str | None = None) -> Path:
    d = parent / (name or f"20261127-0000{next(_count)}-abcdef")
    (d / "processes").mkdir(parents=True)
    (d / "plan.json").write_text(json.dumps({"benchmarks": sorted({r["benchmark"] for r in records})}))
    (d / "manifest.json").write_text(json.dumps({"run_id": d.name, "status": "complete"}))
    for seq, r in enumerate(records):
        (d / "processes" / f"{seq:06d}.json").write_text(json.dumps({"seq": seq, "status": "ok", **r}))
    return d


def _gotest(parent: Path, session: int, name: str | None = None) -> Path:
    return _fake_run(parent, [{"benchmark": "RamSQLSelect", "engine": f"gotest-{session}"},
                              {"benchmark": "SQLiteSelect", "engine": f"gotest-{session}"}], name)


def _worker(parent: Path, name: str | None = None) -> Path:
    return _fake_run(parent, [{"benchmark": "ramsql.select", "engine": "ramsql/go"},
                              {"benchmark": "ramsql.select", "engine": "sqlite/go"}], name)


@pytest.fixture
def fakes(monkeypatch):
    """The machine quiet and the code committed; `_run` and `_run_step` write fake runs and log their
    commands (`fail` names a step or "run" to fail once, as a stopped campaign)."""
    calls: list[list[str]] = []
    fail: set[str] = set()
    monkeypatch.setattr(reference, "changed_files", lambda root=None: [])
    monkeypatch.setattr(reference, "wait_for_quiet_machine", lambda *a, **k: True)
    monkeypatch.setattr(reference, "_complete", lambda d: (Path(d) / "manifest.json").exists())

    def run(cmd):
        calls.append(cmd)
        if "run" in fail:
            fail.discard("run")
            raise UserError("stopped")
        return _worker(Path(cmd[cmd.index("--out") + 1]))

    def run_step(cmd):
        calls.append(cmd)
        session = 2 if "--after" in cmd else 1
        if f"gotest{session}" in fail:
            fail.discard(f"gotest{session}")
            raise UserError("stopped")
        return [_gotest(Path(cmd[cmd.index("--out") + 1]), session)]

    monkeypatch.setattr(reference, "_run", run)
    monkeypatch.setattr(reference, "_run_step", run_step)
    return calls, fail


def _kinds(calls):
    return [c[3] + (" --after" if "--after" in c else "") for c in calls]


def test_e6_has_a_go_test_session_before_its_run_and_one_after():
    assert [(s.name, s.when) for s in E6.steps] == [("gotest1", "before"), ("gotest2", "after")]
    assert all(s.args[0] == "gobench" and "--sessions" in s.args for s in E6.steps)
    assert E6.total_s == E6.budget_s + sum(s.budget_s for s in E6.steps) <= 200
    text = reference.plan_text([E6])
    assert "before the run: harness gobench" in text and "after the run: harness gobench" in text
    first = E6.steps[0].command(Path("/w"), {})
    assert first[3:] == ["gobench", "--sessions", "1", *reference.GOTEST_FLAGS, "--out", "/w"]
    second = E6.steps[1].command(Path("/w"), {"gotest1": ["/w/r1"]})
    assert second[second.index("--after") + 1] == "/w/r1"
    with pytest.raises(UserError, match="names a step that has not run"):
        E6.steps[1].command(Path("/w"), {})


def test_the_sequence_is_session_run_session_and_all_three_are_installed(tmp_path, fakes):
    calls, _ = fakes
    root, work = tmp_path / "root", tmp_path / "work"
    ref = root / "data" / "reference"
    old1, old2 = _gotest(ref, 1, "20261123-151536-e1533e"), _gotest(ref, 2, "20261123-151541-3d35da")
    old_worker = _worker(ref, "20261126-154132-9ac942")
    other = _fake_run(ref, [{"benchmark": "inserts.prepared", "engine": "sqlite/sqlite3"}], "20261127-042437-660a2f")
    said: list[str] = []
    state = reference.run_campaign([E6], work, say=said.append, root=root, quiet_wait_s=0)
    assert _kinds(calls) == ["gobench", "run", "gobench --after"]
    st = state["E6"]
    first = st["steps"]["gotest1"]["runs"][0]
    assert calls[2][calls[2].index("--after") + 1] == first  # session 2 continues session 1
    assert st["status"] == "installed" and all(st["steps"][n]["status"] == "done" for n in ("gotest1", "gotest2"))
    installed = sorted(d.name for d in ref.iterdir())
    news = [Path(st["run"]).name, Path(first).name, Path(st["steps"]["gotest2"]["runs"][0]).name]
    assert installed == sorted([*news, other.name])  # the old go test sessions and worker run replaced
    assert not old1.exists() and not old2.exists() and not old_worker.exists()
    assert any("replacing 3 run(s)" in line for line in said)
    assert json.loads((work / "state.json").read_text())["E6"]["steps"]["gotest2"]["status"] == "done"


def _stopped_at(tmp_path, fakes, where: str):
    """A campaign of E6 whose command `where` fails: (the calls made, the root, the work folder)."""
    calls, fail = fakes
    root, work = tmp_path / "root", tmp_path / "work"
    (root / "data" / "reference").mkdir(parents=True)
    fail.add(where)
    with pytest.raises(UserError, match="stopped"):
        reference.run_campaign([E6], work, say=lambda line: None, root=root, quiet_wait_s=0)
    return calls, root, work


def test_a_campaign_stopped_in_the_second_session_runs_only_that_session_again(tmp_path, fakes):
    calls, root, work = _stopped_at(tmp_path, fakes, "gotest2")
    st = json.loads((work / "state.json").read_text())["E6"]
    assert st["status"] == "measured" and st["steps"]["gotest1"]["status"] == "done"
    assert st["steps"]["gotest2"]["status"] == "running"
    calls.clear()
    said: list[str] = []
    state = reference.run_campaign([E6], work, say=said.append, root=root, quiet_wait_s=0)
    assert _kinds(calls) == ["gobench --after"] and state["E6"]["status"] == "installed"
    assert any("was measured already" in line for line in said)
    assert len(list((root / "data" / "reference").iterdir())) == 3


def test_a_campaign_stopped_before_the_run_keeps_the_first_session(tmp_path, fakes):
    calls, root, work = _stopped_at(tmp_path, fakes, "run")
    assert _kinds(calls) == ["gobench", "run"]
    calls.clear()
    said: list[str] = []
    reference.run_campaign([E6], work, say=said.append, root=root, quiet_wait_s=0)
    assert _kinds(calls) == ["run", "gobench --after"]
    assert any("step gotest1 done already" in line for line in said)


def test_only_runs_all_of_whose_engines_are_the_studys_own_belong_to_it(tmp_path):
    folder = tmp_path / "ref"
    gotest = _gotest(folder, 1)
    mixed = _fake_run(folder, [{"benchmark": "Foo", "engine": "gotest-1"}, {"benchmark": "Bar", "engine": "pyperf"}])
    foreign = _fake_run(folder, [{"benchmark": "Foo", "engine": "hyperfine"}])
    assert reference.engines_of(gotest) == {"gotest-1"}
    assert reference.runs_of(E6, folder) == [gotest]
    assert reference.runs_of(reference.STUDIES["E1"], folder) == []
    assert mixed.exists() and foreign.exists()


def test_gobench_after_reads_the_earlier_runs_sessions(tmp_path):
    from harness.commands import gobench

    run = tmp_path / "r1"
    (run / "gobench").mkdir(parents=True)
    (run / "gobench" / "bench.txt").write_text("BenchmarkRamSQLSelect-2 10 100 ns/op\n")
    (run / "gobench" / "gobench.json").write_text(json.dumps({"first_session": 1, "sessions": [{"file": "bench.txt"}]}))
    assert gobench.earlier_sessions(run) == [run / "gobench" / "bench.txt"]
    # so the next session is the second: newbench.txt, engine gotest-2
    assert gobench.session_name(len(gobench.earlier_sessions(run))) == "newbench.txt"
    with pytest.raises(UserError, match="not a gobench run"):
        gobench.earlier_sessions(tmp_path / "nothing")


def test_a_replicate_is_installed_beside_the_study_and_leaves_its_run_alone(tmp_path, fakes):
    """`reference --replicate`: the same study run again goes to data/reference-replicate/, the study's
    committed run in data/reference/ stays, and a second replicate replaces the first one only."""
    root, work = tmp_path / "root", tmp_path / "work"
    ref = root / "data" / "reference"
    committed = _worker(ref, "20261126-154132-9ac942")
    (rep,) = reference.replicates([E6], named=True)
    assert rep.folder == "data/reference-replicate" and rep.args == E6.args and rep.steps == E6.steps
    reference.run_campaign([rep], work, say=lambda line: None, root=root, quiet_wait_s=0)
    first = sorted(d.name for d in (root / rep.folder).iterdir())
    assert len(first) == 3 and committed.exists() and [d.name for d in ref.iterdir()] == [committed.name]
    reference.run_campaign([rep], tmp_path / "work2", say=lambda line: None, root=root, quiet_wait_s=0)
    second = sorted(d.name for d in (root / rep.folder).iterdir())
    assert len(second) == 3 and not set(first) & set(second) and committed.exists()


def test_studies_without_a_replicate_are_refused_by_name_and_left_out_otherwise():
    h2 = reference.replicates([reference.STUDIES["E3h"]], named=True)
    assert h2[0].folder == "data/reference-h2-replicate"
    with pytest.raises(UserError, match="E3d has no replicate: a diagnosis.*studies with one: E1"):
        reference.replicates(reference.pick("E3d,E5"), named=True)
    names = [s.name for s in reference.replicates(reference.pick(None), named=False)]
    assert names == ["E1", "E2", "E2s", "E3", "E3h", "E4", "E5", "E6"]
