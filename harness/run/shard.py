"""Sharding: one plan measured by N machines, each running its share of every cell's processes.

Why this cut: every machine builds the same plan from the same request and seed (cells, the
seeded interleaved order, the seeds of the workers), so no machine needs to hear from another.
Shard K of N keeps the processes whose number p has p mod N == K, in the plan's own interleaved
order: each cell's processes spread over all machines (every machine measures every cell), the
order on each machine stays interleaved, and the seq of a process is its seq in the whole plan,
so the shards' directories merge (`run/collect.py`) into the run one machine would have made.
A shard directory is itself a run directory (its plan holds its share of the order), readable
alone or beside the others.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from harness.errors import UserError

#: more shards than this is a typo, not a cluster
MAX_SHARDS = 10_000
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Shard:
    index: int
    count: int

    def owns(self, process: int) -> bool:
        """Whether this shard runs process number `process` of a cell."""
        return process % self.count == self.index


def parse_shard(text: str) -> Shard:
    """`K/N` (0 <= K < N) as a Shard; anything else is a UserError."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not m:
        raise UserError(f"--shard takes K/N (shard K of N, counted from 0), e.g. 0/3; got {text!r}")
    k, n = int(m.group(1)), int(m.group(2))
    if not 1 <= n <= MAX_SHARDS:
        raise UserError(f"--shard {text}: N must be between 1 and {MAX_SHARDS}")
    if not 0 <= k < n:
        raise UserError(f"--shard {text}: K counts from 0 and must be below N (0 to {n - 1})")
    return Shard(k, n)


def check_run_id(run_id: str) -> str:
    """A run id every shard can share and a file name can hold: letters, digits, `.`, `_`, `-`."""
    if not _RUN_ID.match(run_id or ""):
        raise UserError(f"--run-id {run_id!r}: use 1 to 64 letters, digits, '.', '_' or '-' (not first)")
    return run_id


def order_digest(order: list) -> str:
    """A hash of the whole plan's order: shards of one plan carry the same one."""
    text = json.dumps([[int(x) for x in t] for t in order], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def dir_name(run_id: str, shard: Shard) -> str:
    """The shard's run directory name, beside its siblings in a shared folder."""
    return dir_pattern(run_id, str(shard.index), shard.count)


def dir_pattern(run_id: str, index: str, count: int) -> str:
    """`dir_name` with the index as given (a shell variable in a job script, or a glob)."""
    return f"{run_id}-shard-{index}-of-{count}"


class Sharded(Protocol):
    """A plan as these functions read it: a stored `record.Plan` or the runner's `LivePlan`."""

    @property
    def shard(self) -> Mapping[str, Any] | None: ...


def shard_of(plan: Sharded) -> Shard | None:
    """The shard a plan is (a stored `record.Plan`, or the plan a run is writing), or None for a whole run."""
    s = plan.shard
    return Shard(int(s["index"]), int(s["count"])) if isinstance(s, dict) else None


def record_fields(plan: Sharded, machine: dict[str, Any]) -> dict[str, Any]:
    """What each process record says about where it ran: the machine and, in a shard, which."""
    out: dict[str, Any] = {"machine": machine}
    s = plan.shard
    if isinstance(s, dict):
        out["shard"] = {"index": int(s["index"]), "count": int(s["count"])}
    return out
