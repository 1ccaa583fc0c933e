"""What a finished (or stopped) run measured, recounted from its process records: the exit status
of `harness run` and the one-screen status summary it prints.

Counted from the records on disk, never from a counter carried across segments, so a resume,
a SIGKILL or a crash cannot make the numbers drift from what is stored.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness import store
from harness.errors import DataError
from harness.protocol import canonical_params
from harness.record import PlanCell

#: statuses that make a run exit 1
BAD = ("failed", "timeout", "error", "invalid")
#: at most this many problem cells are listed (the summary command shows them all)
MAX_LISTED = 12


@dataclass
class Outcome:
    exit_status: int
    counts: dict[str, int]
    lines: list[str] = field(default_factory=list)


def _cell_label(cell: PlanCell) -> str:
    return f"{cell.benchmark}[{canonical_params(dict(cell.params))}] {cell.engine} {cell.runtime}"


def outcome(run_dir: Path) -> Outcome:
    """Exit status 0 when every planned process was recorded, none failed, timed out, errored or
    was invalid, and at least one measured; else 1, with the reasons in `lines`."""
    run_dir = Path(run_dir)
    manifest = store.manifest_of(run_dir)
    plan = store.plan_of(run_dir)
    if plan is None:
        raise DataError(f"{run_dir / 'plan.json'}: missing plan")
    records = store.records_of(run_dir)
    counts = Counter(r.status for r in records.values())
    per_cell: dict[int, Counter] = {}
    first_reason: dict[int, str] = {}
    for seq, index, _process in plan.order:
        rec = records.get(seq)
        status = rec.status if rec else "missing"
        per_cell.setdefault(index, Counter())[status] += 1
        if rec and status != "ok" and index not in first_reason:
            first_reason[index] = str(rec.reason or "")
    planned = len(plan.order)
    missing = planned - len(records)
    cells = plan.cells
    kinds = Counter()
    problems = []
    for index, c in sorted(per_cell.items()):
        bad = sum(c[s] for s in BAD)
        if bad:
            worst = max(BAD, key=lambda s: c[s])
            kinds[worst] += 1
            problems.append(f"  {worst:<9} {_cell_label(cells[index])}: {bad}/{sum(c.values())} processes "
                            f"{first_reason.get(index, '')[:110]}")
        elif c["ok"]:
            kinds["measured"] += 1
        elif c["missing"]:
            kinds["not run"] += 1
        elif c["not_applicable"]:
            kinds["not applicable"] += 1
        else:
            kinds["skipped"] += 1
            problems.append(f"  skipped   {_cell_label(cells[index])}: {first_reason.get(index, '')[:110]}")
    procs = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    lines = [f"run {manifest.run_id} {manifest.status}: {len(records)} of {planned} processes "
             f"recorded ({procs or 'none'})",
             "cells: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))]
    lines += problems[:MAX_LISTED]
    if len(problems) > MAX_LISTED:
        lines.append(f"  ... and {len(problems) - MAX_LISTED} more (python -m harness summary {run_dir})")
    why = []
    if any(counts[s] for s in BAD):
        why.append(", ".join(f"{counts[s]} {s}" for s in BAD if counts[s]))
    if missing:
        why.append(f"{missing} planned processes not run (finish with: python -m harness run --resume {run_dir})")
    if not counts["ok"]:
        why.append("nothing was measured")
    if why:
        lines.append("exit status 1: " + "; ".join(why))
    return Outcome(1 if why else 0, dict(counts), lines)
