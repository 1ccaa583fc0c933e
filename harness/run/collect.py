"""Collect: the shard directories of one sharded run merged into the run directory it planned.

Why a merge and not just reading the shards side by side: a run directory is what every other
command, the cache and a resume understand, and a merged one can be checked as a whole (every
planned process exactly once). The merge copies each shard's records and timings byte for byte
(nothing is rewritten: the seqs are the whole plan's already), writes the whole plan and a
manifest naming every shard and machine, and appears in one rename, so a failed collect leaves
nothing that looks like a run. The shard directories are never changed.
"""
from __future__ import annotations

import copy
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any

from harness import store
from harness.errors import DataError, UserError
from harness.record import Manifest, Plan, ProcessRecord
from harness.run.plan import interleave
from harness.run.shard import Shard, order_digest, shard_of

#: plan keys every shard of a run must agree on (the rest: its order, probes, data sets)
SHARED_KEYS = ("run_id", "profile", "processes", "iterations", "seed", "timeout_s", "budget_s", "min_iterations",
               "benchmarks", "engines", "runtimes", "cells", "pin")


class _Shard:
    """One shard directory as read: plan, manifest and records, each checked."""

    def __init__(self, run_dir: Path) -> None:
        self.dir = Path(run_dir)
        self.manifest: Manifest = store.manifest_of(self.dir)
        plan = store.plan_of(self.dir)
        if plan is None or shard_of(plan) is None:
            raise UserError(f"{self.dir}: not a shard of a run (its plan has no shard; made by run --shard K/N)")
        self.plan: Plan = plan
        self.shard: Shard = shard_of(plan)  # type: ignore[assignment]
        self.records: dict[int, ProcessRecord] = store.records_of(self.dir)
        self.missing = store.verify_records(self.dir, self.manifest, self.plan, self.records)


def _check_same(shards: list[_Shard]) -> None:
    first = shards[0]
    for s in shards[1:]:
        for key in SHARED_KEYS:
            if s.plan.get(key) != first.plan.get(key):  # as written: a key absent from both agrees
                raise UserError(f"{s.dir} and {first.dir} are not shards of one plan: their {key} differ")
        if s.shard.count != first.shard.count or _order_digest(s) != _order_digest(first):
            raise UserError(f"{s.dir} and {first.dir} are not shards of one plan: their shard counts or orders differ")
    seen: dict[int, Path] = {}
    for s in shards:
        if s.shard.index in seen:
            raise UserError(f"shard {s.shard.index} of {s.shard.count} given twice: {seen[s.shard.index]} and {s.dir}")
        seen[s.shard.index] = s.dir


def _order_digest(s: _Shard) -> Any:
    """The digest of the whole order a shard's plan carries."""
    return (s.plan.shard or {})["order_digest"]


def whole_order(plan: Plan) -> list[list[int]]:
    """The whole plan's order, rebuilt from its cells, processes and seed, checked against the
    digest every shard carries."""
    pairs = interleave(len(plan.cells), int(plan.processes), int(plan.seed))  # type: ignore[arg-type]
    order = [[seq, c, p] for seq, (c, p) in enumerate(pairs)]
    if order_digest(order) != (plan.shard or {})["order_digest"]:
        raise DataError(f"run {plan.run_id}: the shards' order cannot be rebuilt here (another harness version "
                        "made it?)")
    return order


def collect(shard_dirs: list[Path], out: Path, allow_incomplete: bool = False) -> Path:
    """Merge the shards of one run into OUT/RUN_ID; returns it. Every planned process must be
    recorded exactly once (with `allow_incomplete`, missing shards or processes make an
    incomplete run that says so); two shards recording one process is an error."""
    dirs = store.as_run_dirs(shard_dirs)
    if not dirs:
        raise UserError("no shard directory given")
    shards = sorted((_Shard(d) for d in dirs), key=lambda s: s.shard.index)
    _check_same(shards)
    plan0 = shards[0].plan
    count = shards[0].shard.count
    absent = sorted(set(range(count)) - {s.shard.index for s in shards})
    short = [(s, s.missing) for s in shards if s.missing]
    if (absent or short) and not allow_incomplete:
        said = [f"shard{'s' if len(absent) > 1 else ''} {', '.join(map(str, absent))} of {count} not given"] if absent else []
        said += [f"{s.dir} lacks {n} process record{'s' if n > 1 else ''} (resume it with run --resume {s.dir})"
                 for s, n in short]
        raise UserError("cannot collect run " + str(plan0.run_id) + ": " + "; ".join(said)
                        + " (or collect what is there with --allow-incomplete)")
    order = whole_order(plan0)
    owner: dict[int, _Shard] = {}
    for s in shards:
        for seq in s.records:
            if seq in owner:
                raise DataError(f"process seq {seq} is recorded by two shards: {owner[seq].dir} and {s.dir}")
            owner[seq] = s
        for _ in store.iter_timings(s.dir):  # every timings file checked against its record before a copy
            pass
    target = Path(out) / str(plan0.run_id)
    if target.exists():
        raise UserError(f"{target} exists: the run was collected already (remove it to collect again, or give "
                        "another --out)")
    Path(out).mkdir(parents=True, exist_ok=True)
    tmp = Path(out) / f".collecting-{plan0.run_id}-{secrets.token_hex(3)}"
    try:
        _write(tmp, shards, owner, order)
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _write(tmp: Path, shards: list[_Shard], owner: dict[int, _Shard], order: list[list[int]]) -> None:
    (tmp / "processes").mkdir(parents=True)
    (tmp / "timings").mkdir()
    for seq, s in sorted(owner.items()):
        rec = s.records[seq]
        _copy(s.dir / "processes" / f"{seq:06d}.json", tmp / "processes" / f"{seq:06d}.json")
        if rec.timings_file:
            _copy(s.dir / rec.timings_file, tmp / rec.timings_file)
    Plan.from_dict(merged_plan(shards, order), str(tmp / "plan.json")).write(tmp)
    manifest = merged_manifest(shards, len(order)).with_(process_counts=store.count_statuses(tmp))
    if sum(manifest.process_counts.values()) < len(order):
        manifest = manifest.with_(status="incomplete")
    manifest.write(tmp)


def differing_commits(run_dir: Path) -> list[str]:
    """The harness commits a collected run's shards ran, when there is more than one (their
    numbers may then differ for reasons of code, not machine)."""
    shards = store.manifest_of(run_dir).shards or []
    commits = {str((s.get("project") or {}).get("commit")) for s in shards}  # each shard's manifest, as listed
    return sorted(commits) if len(commits) > 1 else []


def warn_if_commits_differ(run_dir: Path) -> None:
    """Say on stderr when a collected run's shards ran different harness commits."""
    import sys

    commits = differing_commits(run_dir)
    if commits:
        print(f"warning: the shards ran different harness commits ({', '.join(c[:12] for c in commits)}): "
              "differences between machines may be differences of code", file=sys.stderr)


def _copy(src: Path, dst: Path) -> None:
    """Byte for byte, flushed to disk (the directory appears by rename only once all are)."""
    shutil.copyfile(src, dst)
    with open(dst, "rb") as f:
        os.fsync(f.fileno())


def merged_plan(shards: list[_Shard], order: list[list[int]]) -> dict[str, Any]:
    """The whole plan: the shards' shared keys, the whole order, what each shard's probes said."""
    first = shards[0].plan.to_dict()
    plan = {k: copy.deepcopy(first[k]) for k in first
            if k not in ("order", "shard", "run_dir", "unavailable", "datasets")}
    plan["order"] = order
    unavailable: dict[str, str] = {}
    for s in shards:  # a cell one machine could not run is skipped there (its records say so)
        unavailable.update(s.plan.unavailable or {})
        if s.plan.datasets:
            plan.setdefault("datasets", {}).update(s.plan.datasets)
    plan["unavailable"] = unavailable
    plan["shards"] = {"count": shards[0].shard.count, "order_digest": _order_digest(shards[0])}
    return plan


def merged_manifest(shards: list[_Shard], planned: int) -> Manifest:
    """The first shard's manifest as the run's, with every shard and machine listed."""
    m = copy.deepcopy(shards[0].manifest.to_dict())
    m.pop("shard", None)
    machines: dict[str, Any] = {}
    listed = []
    for s in shards:
        seen = {r.machine["id"]: r.machine for r in s.records.values() if isinstance(r.machine, dict)}
        machines.update(seen)
        sm = s.manifest
        # absent keys listed as null, as before the typed records (`get`: not the fields' defaults)
        listed.append({"index": s.shard.index, "dir": s.dir.name, "status": sm.status,
                       "machines": sorted(seen), "hostname": (sm.machine or {}).get("hostname"),
                       "started": sm.started, "ended": sm.ended,
                       "processes_planned": len(s.plan.order), "processes_recorded": len(s.records),
                       "project": sm.get("project"), "doctor": sm.doctor, "segments": sm.get("segments")})
    statuses = {s.manifest.status for s in shards}
    m["status"] = "complete" if statuses == {"complete"} and len(shards) == shards[0].shard.count else "incomplete"
    m["started"] = min(str(s.manifest.started) for s in shards)
    m["ended"] = max(str(s.manifest.ended) for s in shards)
    m["processes_planned"] = planned
    m["shards"] = listed
    m["machines"] = [machines[k] for k in sorted(machines)]
    m["collected"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    return Manifest.from_dict(m)
