"""Sharding (`run --shard K/N`) and collect: one plan, every process in exactly one shard."""
from __future__ import annotations

import json
import shutil

import pytest
from helpers_shards import write_shard

from harness import store
from harness.errors import DataError, UserError
from harness.run.collect import collect
from harness.run.plan import RunRequest, build_plan
from harness.run.shard import Shard, parse_shard


def _plan(shard=None, processes=6):
    req = RunRequest(profile="smoke", benchmarks=["bindings.*"], engines=["sqlite/*"], processes=processes,
                     shard=shard, run_id="c1")
    return build_plan(req, "c1")


def test_parse_shard():
    assert parse_shard("2/3") == Shard(2, 3)
    assert parse_shard(" 0 / 1 ") == Shard(0, 1)
    for bad in ("3/3", "-1/3", "1", "a/b", "0/0", "1/2/3"):
        with pytest.raises(UserError):
            parse_shard(bad)


def test_shards_partition_the_plan_and_every_shard_measures_every_cell():
    whole = _plan()
    parts = [_plan(Shard(k, 4)) for k in range(4)]
    seqs = [t[0] for p in parts for t in p.order]
    assert sorted(seqs) == [t[0] for t in whole.order]  # each planned process in exactly one shard
    by_seq = {t[0]: tuple(t) for t in whole.order}
    for k, p in enumerate(parts):
        assert [c.to_dict() for c in p.cells] == [c.to_dict() for c in whole.cells] and p.seed == whole.seed
        assert {t[1] for t in p.order} == set(range(len(whole.cells)))  # every cell on every machine
        assert all(tuple(t) == by_seq[t[0]] and t[2] % 4 == k for t in p.order)
        assert [t[0] for t in p.order] == sorted(t[0] for t in p.order)  # the plan's interleaved order
        assert p.shard["planned"] == len(whole.order) and p.run_dir == f"c1-shard-{k}-of-4"
    assert len({p.shard["order_digest"] for p in parts}) == 1


def test_too_few_processes_for_the_shards():
    with pytest.raises(UserError, match="at least 3"):
        _plan(Shard(0, 3), processes=2)


def test_collect_merges_every_process_once_and_reads_like_the_shards(tmp_path):
    from harness.analysis.runset import RunSet

    shards = [write_shard(tmp_path / "shared", "c1", k, 3) for k in range(3)]
    run = collect(shards, tmp_path / "out")
    assert run.name == "c1"
    plan, manifest = store.read_plan(run), store.read_manifest(run)
    records = store.process_records(run)
    assert sorted(records) == [t[0] for t in plan["order"]] and "shard" not in plan
    assert {r["shard"]["index"] for r in records.values()} == {0, 1, 2}
    assert manifest["status"] == "complete" and len(manifest["machines"]) == 3
    assert [s["index"] for s in manifest["shards"]] == [0, 1, 2]
    for seq, rec in records.items():  # byte for byte
        src = next(s for s in shards if (s / "processes" / f"{seq:06d}.json").exists())
        assert (run / rec["timings_file"]).read_bytes() == (src / rec["timings_file"]).read_bytes()
    a = RunSet([run], resamples=200, use_cache=False).summary
    b = RunSet(shards, resamples=200, use_cache=False).summary
    assert a.to_csv(index=False) == b.to_csv(index=False)


@pytest.mark.filterwarnings("ignore::harness.store.IncompleteRunWarning")
def test_collect_refuses_missing_incomplete_and_colliding_shards(tmp_path):
    shared = tmp_path / "shared"
    shards = [write_shard(shared, "c1", k, 3) for k in range(3)]
    with pytest.raises(UserError, match="shard 2 of 3 not given"):
        collect(shards[:2], tmp_path / "out")
    twin = shared / "copy-of-shard-1"
    shutil.copytree(shards[1], twin)
    # a copy of a shard given beside it is the same run: used once (the store says so), not an error
    run = collect([*shards, twin], tmp_path / "out-twin")
    assert len(store.process_records(run)) == sum(len(store.process_records(s)) for s in shards)
    # a shard 2 that also records one of shard 0's processes: a collision
    seq0 = store.read_plan(shards[0])["order"][0][0]
    odd = write_shard(tmp_path / "other", "c1", 2, 3)
    plan = json.loads((odd / "plan.json").read_text())
    plan["order"].append(store.read_plan(shards[0])["order"][0])
    (odd / "plan.json").write_text(json.dumps(plan))
    for name in ("processes", "timings"):
        ext = "json" if name == "processes" else "parquet"
        shutil.copy(shards[0] / name / f"{seq0:06d}.{ext}", odd / name / f"{seq0:06d}.{ext}")
    with pytest.raises(DataError, match="recorded by two shards"):
        collect([shards[0], shards[1], odd], tmp_path / "out")
    short = write_shard(tmp_path / "short", "c1", 2, 3, skip_seqs=(store.read_plan(shards[2])["order"][0][0],))
    with pytest.raises(UserError, match="lacks 1 process record"):
        collect([shards[0], shards[1], short], tmp_path / "out")
    run = collect([shards[0], shards[1], short], tmp_path / "out", allow_incomplete=True)
    assert store.read_manifest(run)["status"] == "incomplete"
    assert not list((tmp_path / "out").glob(".collecting-*"))
    with pytest.raises(UserError, match="collected already"):
        collect(shards, tmp_path / "out")


def test_collect_refuses_shards_of_other_plans_and_whole_runs(tmp_path):
    a = write_shard(tmp_path / "a", "c1", 0, 2)
    b = write_shard(tmp_path / "b", "c1", 1, 2, iterations=7)
    with pytest.raises(UserError, match="iterations differ"):
        collect([a, b], tmp_path / "out")
    whole = tmp_path / "whole"
    shutil.copytree(a, whole)
    plan = json.loads((whole / "plan.json").read_text())
    del plan["shard"]
    (whole / "plan.json").write_text(json.dumps(plan))
    with pytest.raises(UserError, match="not a shard"):
        collect([whole], tmp_path / "out")


def test_job_script_starts_or_resumes_its_shard(tmp_path):
    from harness.run.campaign import job_script

    text = job_script("c1", 3, tmp_path / "shards", ["--profile", "smoke", "--param", "n=1 000"])
    assert '"c1-shard-${K}-of-3"' in text and "run --resume" in text
    assert "--shard \"$K/3\" --run-id c1" in text and "'n=1 000'" in text


def test_campaign_without_slurm_is_one_line(tmp_path, monkeypatch):
    from harness.run.campaign import collect_campaign, submit

    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UserError, match="sbatch not found"):
        submit(tmp_path, "c1", 3, [])
    assert not (tmp_path / "c1").exists()
    with pytest.raises(UserError, match="not a campaign directory"):
        collect_campaign(tmp_path)


BAD = [
    (["run", "--shard", "3/3", "--run-id", "x", "--processes", "3"], "must be below N"),
    (["run", "--shard", "0/3", "--processes", "3"], "--shard K/N needs --run-id"),
    (["run", "--run-id", "x"], "give --shard K/N with it"),
    (["run", "--shard", "0/3", "--run-id", "no good!", "--processes", "3"], "--run-id 'no good!'"),
    (["run", "--shard", "0/3", "--run-id", "x", "--profile", "smoke", "--processes", "2"], "--processes of at least 3"),
    (["run", "--shard", "0/3", "--run-id", "x", "--processes", "3", "--profile", "paper"], "fixed protocol"),
    (["run", "--shard", "0/3", "--run-id", "x", "--resume", "somewhere"], "leave --shard and --run-id out"),
    (["collect", "nope", "--out", "o"], "no such run directory"),
    (["campaign", "submit", "--scheduler", "slurm", "--nodes", "0", "--dir", "d"], "--nodes must be between"),
    (["campaign", "submit", "--scheduler", "slurm", "--nodes", "6", "--dir", "d", "--profile", "smoke"],
     "--processes of at least 6"),
    (["campaign", "status", "nope"], "not a campaign directory"),
    (["push", "nope", "--to", "mysql://u:pw@h/db"], "no such run directory"),
    (["summary", "--from", "mysql://u:pw@h/db"], "takes a postgresql://"),
    (["plan", "nope", "--target-ci", "3", "--machines", "0"], "--machines must be between"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a[:2]) + f" {i}" for i, (a, _) in enumerate(BAD)])
def test_bad_shard_and_campaign_options_are_one_line(args, message, tmp_path, monkeypatch, capsys):
    from conftest import one_line_error

    from harness import cli

    monkeypatch.chdir(tmp_path)
    argv = [*args, "--out", str(tmp_path / "runs")] if args[0] == "run" else args
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code
    line = one_line_error(capsys.readouterr().err)
    assert status == 2 and message in line and "pw" not in line, line
    assert not (tmp_path / "runs").exists() and not (tmp_path / "d").exists()


def test_shards_of_different_commits_are_named(tmp_path):
    from harness.run.collect import differing_commits

    shards = [write_shard(tmp_path / "shared", "c1", k, 2) for k in range(2)]
    m = json.loads((shards[1] / "manifest.json").read_text())
    m["project"] = {**(m.get("project") or {}), "commit": "0" * 40}
    (shards[1] / "manifest.json").write_text(json.dumps(m))
    run = collect(shards, tmp_path / "out")
    assert "0" * 40 in differing_commits(run) and len(differing_commits(run)) == 2
