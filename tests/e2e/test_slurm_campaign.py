"""A sharded campaign through a real one-node Slurm cluster (slurmctld + slurmd + munge, started
here and stopped after): submitted as a 3-task job array, followed, collected, and checked:
every planned process present exactly once, each record naming its shard and machine, and the
collected run's summary equal to the summary of the shard directories read directly."""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import harness, last_line, one_line_error, require
from helpers_slurm import missing, one_node_cluster

from harness import store


@pytest.fixture(scope="module")
def slurm_env():
    lacking = missing()
    if lacking:
        require("CROSSINGS_REQUIRE_RUNTIMES", f"no Slurm here ({', '.join(lacking)} missing; Debian: slurm-wlm, munge)")
    if os.geteuid() != 0:
        require("CROSSINGS_REQUIRE_RUNTIMES", "the test Slurm cluster runs its daemons as root")
    with one_node_cluster() as cluster:
        yield {**os.environ, "SLURM_CONF": cluster["SLURM_CONF"]}


def _status(cdir: Path, env: dict) -> list[dict]:
    return json.loads(harness("campaign", "status", str(cdir), "--format", "json", env=env).stdout)["shards"]


def test_three_shard_campaign_collected(tmp_path, slurm_env):
    started = time.monotonic()
    sub = harness("campaign", "submit", "--scheduler", "slurm", "--nodes", "3", "--dir", str(tmp_path / "shared"),
                  "--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines", "sqlite/sqlite3",
                  "--processes", "6", env=slurm_env)
    cdir = Path(last_line(sub.stdout))
    campaign = json.loads((cdir / "campaign.json").read_text())
    assert "--array=0-2" in campaign["sbatch"] and "--exclusive" in campaign["sbatch"]
    # tasks held in the queue: collect refuses while Slurm still has them (3 exclusive tasks in a row
    # take several seconds, so they cannot all be done by now)
    subprocess.run(["scontrol", "hold", campaign["job_id"]], env=slurm_env, capture_output=True)
    early = harness("campaign", "collect", str(cdir), env=slurm_env, check=False)
    assert early.returncode == 2 and "still runs shard" in one_line_error(early.stderr)
    subprocess.run(["scontrol", "release", campaign["job_id"]], env=slurm_env, capture_output=True, check=True)
    while True:
        rows = _status(cdir, slurm_env)
        if all(r["slurm"] not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "unknown") for r in rows):
            break
        assert time.monotonic() - started < 300, rows
        time.sleep(1)
    assert [r["slurm"] for r in rows] == ["COMPLETED"] * 3, (rows, [p.read_text() for p in (cdir / "logs").iterdir()])
    assert [r["run"] for r in rows] == ["complete"] * 3 and all(r["recorded"] == r["planned"] == 2 for r in rows)
    text = harness("campaign", "status", str(cdir), env=slurm_env).stdout
    assert "COMPLETED" in text and f"Slurm job {campaign['job_id']}" in text

    run = Path(last_line(harness("campaign", "collect", str(cdir), env=slurm_env).stdout))
    plan, records = store.read_plan(run), store.process_records(run)
    planned = sorted(t[0] for t in plan["order"])
    assert sorted(records) == planned and len(planned) == 6  # every planned process, exactly once
    shards = sorted((cdir / "shards").iterdir())
    assert len(shards) == 3
    per_shard = [sorted(int(p.stem) for p in (d / "processes").glob("*.json")) for d in shards]
    assert sorted(s for seqs in per_shard for s in seqs) == planned
    for seq, rec in records.items():
        assert rec["shard"]["count"] == 3 and rec["process"] % 3 == rec["shard"]["index"]
        assert rec["machine"]["id"] and rec["machine"]["cpu_model"] is not None and rec["machine"]["cores"] >= 1
        assert seq in per_shard[rec["shard"]["index"]]
    manifest = store.read_manifest(run)
    assert manifest["status"] == "complete" and [s["index"] for s in manifest["shards"]] == [0, 1, 2]
    collected = harness("summary", str(run), "--format", "csv").stdout
    direct = harness("summary", *map(str, shards), "--format", "csv").stdout
    assert collected == direct and "bindings.select_fold" in collected
    again = harness("campaign", "collect", str(cdir), env=slurm_env, check=False)
    assert again.returncode == 2 and "collected already" in one_line_error(again.stderr)
    print(f"3-shard Slurm campaign: {time.monotonic() - started:.1f} s")
