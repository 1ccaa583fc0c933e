"""Campaigns: a sharded run handed to a batch scheduler (Slurm) and followed there.

Why Slurm and nothing home-made: clusters already have one, with queues, exclusive nodes,
accounting and requeueing; a campaign is one Slurm job array, one exclusive task per shard, each
running `harness run --shard $SLURM_ARRAY_TASK_ID/N` into a directory every node sees. A task
that Slurm requeues finds its shard directory and resumes it. The campaign directory holds what
was submitted (`campaign.json`, the job script, Slurm's logs) and the shards:

  DIR/RUN_ID/campaign.json     run id, job id, shards, partition, the run's options, sbatch argv
  DIR/RUN_ID/job.sh            the array task's script
  DIR/RUN_ID/logs/             Slurm's output per task
  DIR/RUN_ID/shards/RUN_ID-shard-K-of-N/   each shard's run directory
"""
from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness import store
from harness.errors import UserError
from harness.fsutil import PROJECT_ROOT, write_json_atomic
from harness.record import Manifest
from harness.redaction import redact
from harness.run.shard import dir_pattern, shard_of

SCHEDULERS = ("slurm",)
#: what a Slurm state means for a campaign's task
DONE_STATES = {"COMPLETED"}
ACTIVE_STATES = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED",
                 "STAGE_OUT", "SIGNALING", "REQUEUE_HOLD", "REQUEUE_FED"}


def _exe(program: str) -> str:
    exe = shutil.which(program)
    if exe is None:
        raise UserError(f"{program} not found: campaigns need Slurm's client commands on PATH "
                        "(Debian: apt-get install slurm-client, and a cluster to talk to)")
    return exe


def _slurm(program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run a Slurm client; a missing one or a refusal is one line for the user."""
    exe = _exe(program)
    try:
        proc = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise UserError(f"{program} did not answer within 120 s (is slurmctld reachable?)") from None
    if check and proc.returncode != 0:
        said = " ".join((proc.stderr or proc.stdout).split())[:500]
        raise UserError(f"{program} {' '.join(args[:3])}... failed (exit {proc.returncode}): {said}")
    return proc


def job_script(run_id: str, shards: int, shards_dir: Path, run_args: list[str]) -> str:
    """The array task: start its shard, or resume it when Slurm ran the task before (requeue)."""
    q = shlex.quote
    py = q(sys.executable)
    mine = dir_pattern(run_id, "${K}", shards)
    return f"""#!/bin/bash
# crossings campaign {run_id}: shard $SLURM_ARRAY_TASK_ID of {shards} (written by harness campaign submit)
set -euo pipefail
K="${{SLURM_ARRAY_TASK_ID:?not a Slurm array task}}"
SHARD_DIR={q(str(shards_dir))}/"{mine}"
cd {q(str(PROJECT_ROOT))}
if [ -f "$SHARD_DIR/plan.json" ]; then
  exec {py} -m harness run --resume "$SHARD_DIR" --no-progress
fi
exec {py} -m harness run --shard "$K/{shards}" --run-id {q(run_id)} --out {q(str(shards_dir))} --no-progress \\
  {' '.join(q(a) for a in run_args)}
"""


def submit(base: Path, run_id: str, shards: int, run_args: list[str], partition: str | None = None,
           time_limit: str | None = None, scheduler: str = "slurm") -> Path:
    """Write the campaign directory and submit its job array; returns the campaign directory.
    If sbatch refuses, nothing is left behind."""
    if scheduler not in SCHEDULERS:
        raise UserError(f"--scheduler {scheduler}: schedulers: {', '.join(SCHEDULERS)}")
    cdir = Path(base).resolve() / run_id
    if cdir.exists():
        raise UserError(f"{cdir} exists: choose another --dir")
    _exe("sbatch")  # says it is missing before anything is written
    (cdir / "logs").mkdir(parents=True)
    (cdir / "shards").mkdir()
    try:
        script = cdir / "job.sh"
        script.write_text(job_script(run_id, shards, cdir / "shards", run_args))
        script.chmod(0o755)
        argv = ["--parsable", f"--array=0-{shards - 1}", "--exclusive", "--nodes=1", "--ntasks=1",
                f"--job-name=crossings-{run_id}", f"--output={cdir / 'logs'}/%A_%a.out", f"--chdir={PROJECT_ROOT}"]
        if partition:
            argv.append(f"--partition={partition}")
        if time_limit:
            argv.append(f"--time={time_limit}")
        job = _slurm("sbatch", *argv, str(script)).stdout.strip().split(";")[0]
    except BaseException:
        shutil.rmtree(cdir, ignore_errors=True)
        raise
    write_json_atomic(cdir / "campaign.json", {
        "run_id": run_id, "scheduler": scheduler, "job_id": job, "shards": shards, "partition": partition,
        "time_limit": time_limit, "submitted": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "run_args": [redact(a) for a in run_args], "sbatch": argv, "project_root": str(PROJECT_ROOT)})
    return cdir


def read_campaign(cdir: Path) -> dict[str, Any]:
    path = Path(cdir) / "campaign.json"
    if not path.is_file():
        raise UserError(f"{cdir}: not a campaign directory (no campaign.json; harness campaign submit makes one)")
    c = store.read_json(path, "campaign")
    if not isinstance(c, dict) or not {"run_id", "job_id", "shards"} <= set(c):
        raise UserError(f"{path}: not a campaign record")
    return c


def task_states(job_id: str) -> dict[int, str]:
    """Each array task's Slurm state: squeue for queued and running tasks, scontrol for those
    finished in the last MinJobAge, sacct (when accounting is on) for older ones."""
    states: dict[int, str] = {}
    acct = _slurm("sacct", "-n", "-P", "-X", "-j", job_id, "-o", "JobID,State", check=False)
    if acct.returncode == 0:
        for line in acct.stdout.splitlines():
            jid, _, state = line.partition("|")
            if "_" in jid and jid.split("_")[1].isdigit():
                states[int(jid.split("_")[1])] = state.split()[0] if state else "UNKNOWN"
    shown = _slurm("scontrol", "-o", "show", "job", job_id, check=False)
    for line in shown.stdout.splitlines() if shown.returncode == 0 else []:
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        task = fields.get("ArrayTaskId", "")
        if task.isdigit():
            states[int(task)] = fields.get("JobState", "UNKNOWN")
    queue = _slurm("squeue", "-h", "-r", "-j", job_id, "-o", "%K|%T", check=False)
    for line in queue.stdout.splitlines() if queue.returncode == 0 else []:
        task, _, state = line.partition("|")
        if task.strip().isdigit():
            states[int(task)] = state.strip()
    return states


def shard_dirs(cdir: Path) -> list[Path]:
    return sorted(p for p in (Path(cdir) / "shards").glob("*-shard-*-of-*") if (p / "plan.json").is_file())


def status(cdir: Path) -> list[dict[str, Any]]:
    """One row per shard: its Slurm state and what its directory holds (processes recorded of
    planned, the run's status, the machine)."""
    c = read_campaign(cdir)
    states = task_states(str(c["job_id"]))
    found = {}
    for d in shard_dirs(cdir):
        plan = store.plan_of(d)
        s = shard_of(plan) if plan else None
        if s is not None:
            found[s.index] = (d, plan)
    rows = []
    for k in range(int(c["shards"])):
        row: dict[str, Any] = {"shard": k, "slurm": states.get(k, "unknown"), "run": "not started", "recorded": 0,
                               "planned": None, "host": None}
        if k in found:
            d, plan = found[k]
            try:
                manifest: Manifest | None = store.manifest_of(d)
            except UserError:
                manifest = None  # not written yet: the shard is starting
            row.update(run=manifest.status if manifest and manifest.has("status") else "starting",
                       recorded=len(list((d / "processes").glob("*.json"))), planned=len(plan.order),
                       host=(manifest.machine or {}).get("hostname") if manifest else None)
        rows.append(row)
    return rows


def format_status(c: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    lines = [f"campaign {c['run_id']}: Slurm job {c['job_id']}, {c['shards']} shards"]
    lines.append(f"{'shard':>5}  {'slurm':<12} {'run':<12} {'processes':>11}  host")
    for r in rows:
        done = f"{r['recorded']}/{r['planned']}" if r["planned"] is not None else "-"
        lines.append(f"{r['shard']:>5}  {r['slurm']:<12} {r['run']:<12} {done:>11}  {r['host'] or '-'}")
    return "\n".join(lines)


def collect_campaign(cdir: Path, out: Path | None = None, allow_incomplete: bool = False) -> Path:
    """The campaign's shards merged (`run.collect`) into OUT/RUN_ID (default DIR/RUN_ID/run/);
    refused while Slurm still runs a task of it."""
    from harness.run.collect import collect

    c = read_campaign(cdir)
    active = sorted(k for k, s in task_states(str(c["job_id"])).items() if s in ACTIVE_STATES)
    if active and not allow_incomplete:
        raise UserError(f"campaign {c['run_id']}: Slurm still runs shard{'s' if len(active) > 1 else ''} "
                        f"{', '.join(map(str, active))}; wait (harness campaign status {cdir})")
    dirs = shard_dirs(cdir)
    if not dirs:
        raise UserError(f"campaign {c['run_id']}: no shard has started yet (harness campaign status {cdir})")
    return collect(dirs, Path(out) if out else Path(cdir) / "run", allow_incomplete)


def status_json(c: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    return json.dumps({"campaign": c, "shards": rows}, indent=1)
