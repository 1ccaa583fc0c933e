"""`run --shard K/N` and `collect` from the command line, without a scheduler: two shards of one
plan run one after the other (as two machines would), collected into the run they planned."""
from __future__ import annotations

from pathlib import Path

from conftest import harness, last_line, one_line_error

from harness import store

SMOKE = ["--profile", "smoke", "--benchmarks", "bindings.select_fold", "--engines", "sqlite/sqlite3",
         "--processes", "4", "--no-progress"]


def test_two_shards_collected_from_the_command_line(tmp_path):
    shared = tmp_path / "shared"
    shards = [Path(last_line(harness("run", *SMOKE, "--shard", f"{k}/2", "--run-id", "camp", "--out",
                                     str(shared)).stdout)) for k in range(2)]
    assert [s.name for s in shards] == ["camp-shard-0-of-2", "camp-shard-1-of-2"]
    again = harness("run", *SMOKE, "--shard", "1/2", "--run-id", "camp", "--out", str(shared), check=False)
    assert again.returncode == 2 and "--resume" in one_line_error(again.stderr)
    run = Path(last_line(harness("collect", *map(str, shards), "--out", str(tmp_path / "runs")).stdout))
    records = store.process_records(run)
    assert sorted(records) == sorted(t[0] for t in store.read_plan(run)["order"]) and len(records) == 4
    assert {(r["process"] % 2, r["shard"]["index"]) for r in records.values()} == {(0, 0), (1, 1)}
    assert harness("summary", str(run), "--format", "csv").stdout == \
        harness("summary", *map(str, shards), "--format", "csv").stdout
    resumed = harness("run", "--resume", str(shards[0]), "--no-progress")  # nothing left: a no-op that says so
    assert last_line(resumed.stdout) == str(shards[0])
