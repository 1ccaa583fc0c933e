"""The adaptive protocol: run each cell until its interval meets a target, or its budget is spent.

Rounds over the ordinary runner. The plan starts as a pilot (a few processes per cell, the
usual interleaved order). After each round every cell still running is assessed (its achieved
relative half-width, between- and within-process variance, cost of a process and of an
iteration); from the first assessment on, a cell's processes run the planner's iterations
(Kalibera & Jones 2013: the count that minimises machine time for a precision), re-planned
each round as the estimates sharpen. Each round
adds to every unfinished cell the processes its plan still lacks (at most as many as it has, so
estimates are refined before large commitments, and no more than its remaining budget buys),
shuffles the new processes of all cells together and appends them to the plan's order, which
`plan.json` stores, so drift of the machine still spreads over all cells and `resume` can
finish an interrupted round (it does not start new rounds: its cells then have no stop reason). A cell stops when its interval meets the target (`met`), its
budget or the run's is spent (`budget`; the run's budget bounds the pilot too: processes
not started in time are recorded as skipped), its processes show no steady state
(`no steady state`), or a process exceeded the per-process timeout (`timeout`).

A cell whose longest processes mostly end slower than they ran before, or never settle
(`unsettled`), gets processes twice as long each round while its budget and the timeout allow:
a short series cannot tell a transient from a lasting slowdown, so neither its interval nor its
missing steady state decides its stop until then. A cell and its A/A twin always run the same
iterations per process, and stop together when either stops for a reason other than its met
interval (for that reason).

Balanced rounds (the default): the cells a study compares with each other, those of one benchmark
and parameters (engines, runtimes and the A/A twin), form a group, and every running cell of a
group gets the same number of new processes in a round: the most any of them still needs, as
far as the group's budget allows (each member's `max_time_s`, shared by the group: a cheap
cell's unspent seconds pay for an expensive one's processes). A cell whose interval is met keeps running
while its group does, so the two sides of every ratio are measured in the same rounds, over the
same stretch of the run: when the host's speed drifts under a run (it does, by 5-10% over
minutes on a shared VM), a side that got its extra processes late would otherwise be measured
on a slower machine than the side it is divided by. When the run's budget cannot buy a round,
every group's share shrinks in proportion (the remainder goes to groups in a random order), so
no cell loses its processes for coming late in the cell list.

The statistics live in the analysis layer; the caller hands them in as `assess` (see
`harness.analysis.planner.assess_run`), so this module only schedules.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from harness.protocol import canonical_params
from harness.run.plan import AA_PARAM, LiveCell, LivePlan, in_rounds

#: (run_dir, target, confidence, resamples) -> {(benchmark, params, engine, runtime family): assessment};
#: resamples None = the statistics' default (for the record), a number = fewer for the rounds
Assess = Callable[[Path, float, float, "int | None"], dict]
#: bootstrap resamples while deciding whether to go on (a decision, not a reported number)
ROUND_RESAMPLES = 2000


@dataclass(frozen=True)
class Settings:
    target: float                       # relative half-width, 0.03 = +-3%
    max_time_s: float | None = 600.0    # machine seconds per cell
    max_run_time_s: float | None = None
    confidence: float = 0.99
    max_rounds: int = 30
    max_iterations: int = 100_000
    #: one number of new processes per round for all the cells of a benchmark and its parameters
    balanced: bool = True
    #: the fewest clean processes a cell runs before its (or its group's) `max_time_s` may stop it;
    #: only the run's budget stops it sooner, and a round the run's budget cannot buy goes first to
    #: the cells below it (a cell that met its target needs none)
    min_processes: int = 0


def group_of(cell: LiveCell) -> tuple:
    """The cells a study compares with each other: one benchmark and its parameters, every engine
    and runtime, the A/A twin included (its `aa` parameter left out)."""
    params = {k: v for k, v in cell.params.items() if k != AA_PARAM}
    return (cell.benchmark, canonical_params(params))


#: a cell is unsettled when at least this share of its longest processes end slower than they ran
#: before (a slowdown) or never settle: a short series cannot tell a transient (a collection, a
#: re-trace, PyPy's at its 7th-10th iteration) from a lasting slowdown (Barrett et al. 2017 saw
#: both), and its "steady state" would be the transient; it gets processes twice as long
UNSETTLED_SHARE = 0.5


def unsettled(a: dict[str, Any]) -> bool:
    """Whether the cell's longest processes mostly end in a slowdown or without a steady state."""
    return float(a.get("unsettled", 0.0)) >= UNSETTLED_SHARE


def _iterations(a: dict[str, Any], settings: Settings, timeout_s: float, floor: int = 0) -> int:
    """The planner's iterations per process (twice the longest so far for an unsettled cell, and
    never fewer than `floor`, the length an unsettled cell was grown to), kept
    well inside the process timeout and short enough that the cell's remaining budget still buys
    four processes (an estimate of the between-process variance from a pilot can be near zero by
    chance, which makes n* huge)."""
    n = int(a["plan"]["iterations"]) or 1
    if unsettled(a):
        n = max(n, 2 * int(a.get("longest", 0)))
    n = max(n, floor)
    c_iter = a.get("c_iter_s") or 0.0
    if c_iter > 0:
        n = min(n, max(2, int(timeout_s / 3 / c_iter)))
        if settings.max_time_s is not None:
            left = settings.max_time_s - a["spent_s"]
            n = min(n, max(2, int((left / 4 - a["c_proc_s"]) / c_iter)))
    return max(2, min(n, settings.max_iterations))


def _pairs(cells: list[LiveCell], among: Any) -> list[list[int]]:
    """The cells of `among` that are one cell and its A/A twin (one benchmark, parameters, engine
    and runtime, `aa` left out), each pair as its list of indices; lone cells are left out."""
    pairs: dict[tuple, list[int]] = {}
    for i in sorted(among):
        c = cells[i]
        pairs.setdefault((*group_of(c), c.engine, c.runtime), []).append(i)
    return [m for m in pairs.values() if len(m) > 1]


def _twins_run_alike(cells: list[LiveCell], running: list[int]) -> None:
    """A cell and its A/A twin run the same iterations per process (the longer of their plans):
    the A/A check asks whether one protocol, run twice, gives one number; where a runtime is
    still changing speed, the mean of a process depends on how long it ran."""
    for members in _pairs(cells, running):
        n = max(cells[i].iterations or 0 for i in members)
        for i in members:
            cells[i].iterations = n


def _twins_stop_together(cells: list[LiveCell], running: list[int], stopped: dict[int, dict[str, Any]],
                         round_no: int) -> list[int]:
    """`running` without the cells whose A/A twin (or cell) has stopped for any reason but a met
    interval: they stop with it, for its reason. A twin that ran on alone would go on with its own plan (in E1 a PyPy twin kept 61
    iterations a process for 29 more processes after its cell stopped at 132 without a steady
    state, and the A/A check then compared two protocols); both halves of the check stop at once."""
    gone: set[int] = set()
    for members in _pairs(cells, [*running, *stopped]):
        # a met interval ends only its own cell's precision (balanced rounds keep a met cell running
        # with its group anyway); the other stops end the protocol for both
        first = next((i for i in members if i in stopped and stopped[i]["stop"] != "met"), None)
        if first is None:
            continue
        side = "its A/A twin" if AA_PARAM in cells[first].params else "its cell"
        for i in members:
            if i not in stopped:
                stopped[i] = {"stop": stopped[first]["stop"], "round": round_no, "note": f"stopped with {side}"}
                gone.add(i)
    return [i for i in running if i not in gone]


def drive(runner: Any, settings: Settings, assess: Assess, progress: Callable[[str], None] | None = None) -> dict:
    """Run `runner`'s pilot, then rounds until every cell has stopped; return the per-cell record
    (also stored as the plan's `adaptive`, which the runner copies into the manifest)."""
    plan: LivePlan = runner.plan
    t0 = time.monotonic()
    cells = plan.cells
    stopped: dict[int, dict[str, Any]] = {}
    planned: set[int] = set()  # cells that have run processes of the planned length
    last: dict[int, dict[str, Any]] = {}
    rng = random.Random(plan.seed)
    if settings.max_run_time_s is not None:  # the run's budget bounds the pilot too
        runner.deadline = t0 + settings.max_run_time_s
    _keep_partial(runner, settings, stopped, last, 0)
    runner.execute()
    plan.budget_s = None  # after the pilot, processes run the planned iterations, no per-process cut
    for round_no in range(1, settings.max_rounds + 1):
        found = assess(runner.run_dir, settings.target, settings.confidence, ROUND_RESAMPLES)
        run_spent = time.monotonic() - t0 - getattr(runner, "waited_total", 0.0)  # waiting for a quiet CPU is not measuring
        run_left = math.inf if settings.max_run_time_s is None else settings.max_run_time_s - run_spent
        wants: dict[int, tuple[int, int, float]] = {}  # cell -> (processes it needs, it can afford, s each)
        met: set[int] = set()
        spent: dict[int, float] = {}  # machine seconds each running cell has spent
        short: dict[int, int] = {}  # processes each running cell lacks to the floor (min_processes)
        running: list[int] = []
        for i, cell in enumerate(cells):
            if i in stopped:
                continue
            a = found.get(cell.key)
            if a is not None:
                last[i] = a
            # re-planned every round: the variance components sharpen as processes accumulate
            iterations = (_iterations(a, settings, plan.timeout_s, cell.grown_to or 0)
                          if a is not None else None)
            grows = a is not None and unsettled(a) and iterations > int(a.get("longest", 0))
            if grows:
                cell.grown_to = iterations  # it settled (if it does) at this length: never plan it shorter
            # a short pilot is no proof of a missing steady state, nor is a series that can still grow
            reason = _stop_reason(i, a, plan, runner, settings, run_spent, planned=i in planned and not grows)
            if reason == "met" and grows:
                reason = None  # an interval around a transient is not met: the cell runs longer processes
            if reason == "met" and settings.balanced:
                met.add(i)  # it runs on while its group does; its stop is decided with the group's
            elif reason:
                stopped[i] = {"stop": reason, "round": round_no}
                continue
            cell.iterations = iterations
            planned.add(i)
            running.append(i)
        running = _twins_stop_together(cells, running, stopped, round_no)
        _twins_run_alike(cells, running)
        for i in running:
            a, cell = last[i], cells[i]
            per_process = a["c_proc_s"] + (cell.iterations or 0) * a["c_iter_s"]
            need = 0 if i in met else max(1, min(_processes_needed(a, settings.target) - a["processes"], a["processes"]))
            afford = math.inf
            if settings.max_time_s is not None and per_process > 0:
                afford = (settings.max_time_s - a["spent_s"]) // per_process
            wants[i] = (need, afford, per_process)
            spent[i] = a["spent_s"]
            short[i] = max(0, settings.min_processes - int(a["processes"]))
        adds = _balance(wants, cells, settings, spent, short)
        adds = _share_run_budget(adds, wants, cells, run_left, rng, settings.balanced, short)
        new: list[int] = []
        for i in sorted(wants):
            if adds.get(i, 0) >= 1:
                new += [i] * adds[i]
            else:
                stopped[i] = {"stop": "met" if i in met else "budget", "round": round_no}
        if not new:
            break
        counts: dict[int, int] = {}
        for _, c, p in plan.order:
            counts[c] = max(counts.get(c, 0), p + 1)
        seq = max((t[0] for t in plan.order), default=-1) + 1
        wanted: dict[int, int] = {}
        for c in new:
            wanted[c] = wanted.get(c, 0) + 1
        # in rounds (every unfinished cell once per round, shuffled), as the pilot's order
        for c, p in in_rounds(wanted, rng, first=counts):
            plan.order.append((seq, c, p))
            seq += 1
        _keep_partial(runner, settings, stopped, last, round_no)  # writes the plan with its new order
        if progress:
            progress(f"adaptive round {round_no}: {len(new)} processes for {len(set(new))} cells")
        runner.execute()
    else:
        for i in range(len(cells)):
            stopped.setdefault(i, {"stop": "rounds", "round": settings.max_rounds})
    final = assess(runner.run_dir, settings.target, settings.confidence, None)  # the numbers summary shows
    for i, cell in enumerate(cells):
        if cell.key in final:
            last[i] = final[cell.key]
    record = {"settings": asdict(settings), "run_time_s": round(time.monotonic() - t0, 3),
              "waited_s": round(getattr(runner, "waited_total", 0.0), 3),
              "cells": [_cell_record(cells[i], stopped.get(i, {"stop": "rounds"}), last.get(i), settings)
                        for i in range(len(cells))]}
    record["segments"] = [_segment(settings, record["cells"])]
    plan.adaptive = record
    plan.write(runner.run_dir)
    return record


def _balance(wants: dict[int, tuple[int, int, float]], cells: list[LiveCell], settings: Settings,
             spent: dict[int, float], short: dict[int, int] | None = None) -> dict[int, int]:
    """New processes per cell this round. Unbalanced: each cell what it needs, within its own budget.
    Balanced: every running cell of a group gets the most any of them still needs, within the
    group's budget: `max_time_s` per member, shared (a cheap cell's unspent seconds pay for an
    expensive one's processes, so the group does not stop when its dearest member's own 30 s are
    gone: the ratios need both sides, and a cell alone gains nothing from running on); a group
    whose cells all met their target gets none. Below the floor (`short`: processes a cell lacks to
    `min_processes`) the budget does not stop a cell or group: it gets what it needs up to the floor.
    (The run's budget stops every cell at once, in `_stop_reason`, so no group is left half-stopped
    by it.)"""
    short = short or {}
    if not settings.balanced:
        return {i: int(max(min(need, afford), min(need, short.get(i, 0)))) for i, (need, afford, _) in wants.items()}
    adds: dict[int, int] = {}
    for members in _groups(wants, cells).values():
        need = max(wants[i][0] for i in members)
        n = need
        per_round = sum(wants[i][2] for i in members)
        if settings.max_time_s is not None and per_round > 0:
            left = settings.max_time_s * len(members) - sum(spent[i] for i in members)
            n = min(n, int(left // per_round))
        n = max(n, min(need, max(short.get(i, 0) for i in members)))
        adds.update({i: max(n, 0) for i in members})
    return adds


def _groups(cells_at: Any, cells: list[LiveCell], balanced: bool = True) -> dict[Any, list[int]]:
    """The running cells (the keys of `cells_at`) by group, or each alone when not balanced."""
    out: dict[Any, list[int]] = {}
    for i in sorted(cells_at):
        out.setdefault(group_of(cells[i]) if balanced else i, []).append(i)
    return out


def _share_run_budget(adds: dict[int, int], wants: dict[int, tuple[int, int, float]], cells: list[LiveCell],
                      run_left: float, rng: random.Random, balanced: bool,
                      short: dict[int, int] | None = None) -> dict[int, int]:
    """Shrink a round the run's budget cannot buy. First the processes that bring cells up to the
    floor (`short`), then the rest; each part shrunk as `_shrink` does."""
    cost = sum(adds[i] * wants[i][2] for i in adds)
    if not math.isfinite(run_left) or cost <= run_left:
        return adds
    if run_left <= 0:
        return {i: 0 for i in adds}
    floor = {i: min(adds[i], _group_short(i, short or {}, cells, balanced, adds)) for i in adds}
    floor_cost = sum(floor[i] * wants[i][2] for i in floor)
    if floor_cost >= run_left:
        return _shrink(floor, wants, cells, run_left, rng, balanced)
    rest = _shrink({i: adds[i] - floor[i] for i in adds}, wants, cells, run_left - floor_cost, rng, balanced)
    return {i: floor[i] + rest[i] for i in adds}


def _group_short(i: int, short: dict[int, int], cells: list[LiveCell], balanced: bool, running: Any) -> int:
    """What cell i's round owes the floor: the most any member of its group lacks (balanced), or its own."""
    if not balanced:
        return short.get(i, 0)
    key = group_of(cells[i])
    return max((short.get(j, 0) for j in running if group_of(cells[j]) == key), default=0)


def _shrink(adds: dict[int, int], wants: dict[int, tuple[int, int, float]], cells: list[LiveCell],
            budget: float, rng: random.Random, balanced: bool) -> dict[int, int]:
    """`adds` cut to what `budget` buys: each group's (or cell's) processes in proportion to what it
    asked, then what is left one process per cell of a group, groups in a random order."""
    cost = sum(adds[i] * wants[i][2] for i in adds)
    if cost <= budget:
        return dict(adds)
    groups = _groups([i for i in adds if adds[i] > 0], cells, balanced)
    scale = max(budget, 0.0) / cost
    out = {i: 0 for i in adds}
    left = max(budget, 0.0)
    for members in groups.values():
        n = int(adds[members[0]] * scale)
        for i in members:
            out[i] = min(n, adds[i])
        left -= sum(out[i] * wants[i][2] for i in members)
    order = list(groups.values())
    rng.shuffle(order)
    for members in order:
        extra = sum(wants[i][2] for i in members)
        if all(out[i] < adds[i] for i in members) and extra <= left:
            for i in members:
                out[i] += 1
            left -= extra
    return out


#: the stop of a cell still running when its run was interrupted: a resume finishes the
#: recorded order but starts no round, so its last assessment is where it was cut
CUT = "cut"


def _segment(settings: Settings, cells: list[dict[str, Any]], resumed: bool = False) -> dict[str, Any]:
    """One segment of an adaptive run: its target, its rounds and its cells' stops."""
    stops: dict[str, int] = {}
    for c in cells:
        stops[c["stop"]] = stops.get(c["stop"], 0) + 1
    rounds = max((int(c.get("round") or 0) for c in cells), default=0)
    return {"target": settings.target, "rounds": 0 if resumed else rounds, "stops": dict(sorted(stops.items())),
            **({"resumed": True} if resumed else {})}


def _keep_partial(runner: Any, settings: Settings, stopped: dict[int, dict[str, Any]],
                  last: dict[int, dict[str, Any]], round_no: int) -> None:
    """Store the record as it stands before round `round_no` runs (0: the pilot) in plan.json, so
    a run killed mid-round keeps it through a resume: every cell still running says `cut`."""
    plan: LivePlan = runner.plan
    cut = {"stop": CUT, "round": round_no,
           "note": f"interrupted in round {round_no}; a resume finishes its processes without assessing again"}
    cells = [_cell_record(c, stopped.get(i, cut), last.get(i), settings) for i, c in enumerate(plan.cells)]
    plan.adaptive = {"settings": asdict(settings), "partial": True, "cells": cells,
                     "segments": [_segment(settings, cells)]}
    plan.write(runner.run_dir)


def note_resume(plan: LivePlan) -> None:
    """A resume of an adaptive run that was cut: its record (kept in the plan) gains a segment
    saying the resume ran no rounds; its cut cells keep saying so. A finished record is left alone."""
    record = plan.adaptive
    if not isinstance(record, dict) or not record.get("partial"):
        return
    settings = Settings(**{k: v for k, v in (record.get("settings") or {}).items()
                           if k in Settings.__dataclass_fields__})
    record.setdefault("segments", []).append(_segment(settings, record.get("cells") or [], resumed=True))


def _processes_needed(a: dict[str, Any], target: float) -> int:
    """The planner's count, or more where the interval actually achieved says so: a half-width
    shrinks as 1/sqrt(P), and the bootstrap interval may be wider than the planner's t interval."""
    p = int(a["plan"]["processes"])
    h = a["half_width"]
    if math.isfinite(h) and h > 0:
        p = max(p, math.ceil(a["processes"] * (h / target) ** 2))
    return p


def _stop_reason(i: int, a: dict[str, Any] | None, plan: LivePlan, runner: Any, settings: Settings,
                 run_spent: float, planned: bool) -> str | None:
    if i in runner.dead_cells and runner.dead_cells[i][0] == "timeout":
        return "timeout"  # a process exceeded the per-process timeout: the cell is too slow for it
    if str(i) in plan.unavailable or i in runner.dead_cells:
        return "not run"
    if a is None:
        if settings.max_run_time_s is not None and run_spent >= settings.max_run_time_s:
            return "budget"  # the run's budget ran out before the cell's pilot
        return "no timings"
    if math.isfinite(a["half_width"]) and a["half_width"] <= settings.target:
        return "met"
    if not a["steady"] and planned:  # a short pilot is no proof: judge after processes of the planned length
        return "no steady state"
    if (settings.max_time_s is not None and a["spent_s"] >= settings.max_time_s and not settings.balanced
            and a["processes"] >= settings.min_processes):
        return "budget"  # balanced: the group's shared budget decides (_balance); below the floor it runs on
    if settings.max_run_time_s is not None and run_spent >= settings.max_run_time_s:
        return "budget"
    return None


def _cell_record(cell: LiveCell, stop: dict[str, Any], a: dict[str, Any] | None,
                 settings: Settings) -> dict[str, Any]:
    out = {"benchmark": cell.benchmark, "params": canonical_params(cell.params), "engine": cell.engine,
           "runtime": cell.runtime, "target": settings.target, **stop}
    if a is not None:
        out.update({"achieved": a["half_width"], "processes": a["processes"], "iterations": cell.iterations,
                    "mean_s": a["mean_s"], "s2_between": a["s2_between"], "s2_within": a["s2_within"],
                    "c_proc_s": a["c_proc_s"], "c_iter_s": a["c_iter_s"], "warmup": a["warmup"],
                    "unsettled": a.get("unsettled", 0.0),
                    "spent_s": a["spent_s"]})
    return out


def format_record(record: dict[str, Any]) -> str:
    """One line per cell: what it reached and why it stopped."""
    lines = []
    for c in record["cells"]:
        got = c.get("achieved")
        got_s = f"+-{100 * got:.3g}%" if got is not None and math.isfinite(got) else "n/a"
        stop = c["stop"] + (f" ({c['note']})" if c.get("note") else "")
        lines.append(f"{c['benchmark']}[{c['params']}] {c['engine']} {c['runtime']}: {stop} "
                     f"(target +-{100 * c['target']:g}%, achieved {got_s}, {c.get('processes', 0)} processes, "
                     f"{c.get('spent_s', 0):.1f} s)")
    return "\n".join(lines)
