"""tools/slow_phases.py finds machine-wide slow phases: slow processes of every cell bunched in time."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("slow_phases", ROOT / "tools" / "slow_phases.py")
slow_phases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(slow_phases)


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "processes").mkdir(parents=True)
    (run / "timings").mkdir()
    seq = 0
    for t in range(20):                      # one process of each cell every 10 s
        for cell, base in (("a", 1_000_000), ("b", 5_000_000)):
            slow = 2 if 60 <= t * 10 < 90 else 1   # the machine runs at half speed for 30 s
            rec = {"seq": seq, "status": "ok", "benchmark": cell, "params": "", "engine": "e", "runtime": "r",
                   "started": 1000.0 + t * 10}
            (run / "processes" / f"{seq:06d}.json").write_text(json.dumps(rec))
            pq.write_table(pa.table({"wall_ns": [base * 3] + [base * slow] * 5}), run / "timings" / f"{seq:06d}.parquet")
            seq += 1
    return run


def test_slow_processes_are_found_in_their_time_bin(tmp_path, capsys):
    rel = slow_phases.relative_speeds(_run(tmp_path), min_processes=6)
    assert len(rel) == 40
    assert sorted(round(x, 2) for _, x in rel) == [1.0] * 34 + [2.0] * 6
    assert slow_phases.main([str(tmp_path / "run"), "--bin", "30"]) == 0
    out = capsys.readouterr().out
    assert "15% slower than 1.4x" in out and "from 0% to 100%" in out


def test_not_a_run_directory_is_a_clear_error(tmp_path, capsys):
    assert slow_phases.main([str(tmp_path)]) == 2
    assert "not a run directory" in capsys.readouterr().err
