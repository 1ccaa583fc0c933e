"""The reference campaign: every study re-measured in one protocol, one run per study.

Why: the paper is computed from `data/reference*/`, and runs made apart (other days, other loads)
must never be pooled or set side by side. Each study here is one run in which every engine and
runtime it compares is interleaved (in rounds) with its own baseline, and the baseline is measured
twice under two names (`run --aa`), so the run can show it does not tell a cell from itself. The
adaptive protocol gives each cell its target or its budget; each study's budget is its share of a
90-minute slot on one 2-core machine.

`harness reference` runs the studies in turn (`--study E1,E3` for some), each into
`data/runs/reference-campaign/`, and installs a finished study into its folder, replacing only
the runs of that study. It is resumable: a state file records each study's run and where it
stands, so a campaign stopped anywhere goes on where it stopped (an unfinished run is resumed).
Before each study it checks the machine (the load and the worker CPU's others' share) and waits,
bounded, for quiet; a study whose processes were mostly disturbed is not installed without
`--force`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from harness.errors import UserError
from harness.run.manifest import changed_files
from harness.fsutil import PROJECT_ROOT, write_json_atomic

#: a study whose share of disturbed processes is above this is not installed without --force
MAX_DISTURBED = 0.5
#: the machine counts as quiet for a study to start when its 1-minute load is below this (the doctor's
#: own threshold, so a study never starts on a machine its manifest calls busy)
QUIET_LOAD = 0.5
#: how long to wait for a quiet machine before a study
MAX_QUIET_WAIT_S = 600.0
_ADAPTIVE = ("--target-ci", "5", "--timeout", "40")
#: the engines that speak SQL over TPC-H data (E2, E3): FerretDB speaks MongoDB's protocol (E5 only)
_SQL_ENGINES = "sqlite/*,duckdb,postgresql/*,mariadb/*,h2/jdbc"


@dataclass(frozen=True)
class Study:
    """One study's run: what it measures, where it is installed, what it may cost."""

    name: str
    title: str
    benchmarks: tuple[str, ...]   # the benchmark families the study owns (its old runs are those)
    args: tuple[str, ...]         # `harness run` arguments
    budget_s: float               # the run's --max-run-time
    folder: str = "data/reference"
    extra: tuple[str, ...] = field(default=())

    def command(self, out: Path) -> list[str]:
        """The study's `harness run`; an adaptive one is bounded by its budget (a fixed one is sized
        to fit it: its processes x iterations)."""
        bound = ["--max-run-time", f"{self.budget_s:g}"] if "--target-ci" in self.args else []
        return [sys.executable, "-m", "harness", "run", *self.args, *bound, "--out", str(out), "--no-progress",
                *self.extra]


#: the campaign: 87.5 minutes of run budget (a fixed run's budget is what it took, rounded up), in the order the paper presents the studies,
#: except E7's two points, which bracket the others: the first made before E1, the second after E6, so the
#: pair's difference is what the machine did over the whole sitting;
#: E3 has 28 minutes and twins its baseline on CPython only: with 26 minutes and a PyPy twin too its
#: cells stopped at a median of 9 processes, short of the 10 a cell needs (H2's JVM processes take
#: 46% of its machine time, the PyPy twin 8%); E2 likewise twins on CPython only and takes 150 s of
#: E1's budget: with 900 s its cells stopped at 8-9 processes (DuckDB's row-at-a-time pythonjoin and
#: filltable took 25% of it), while E1's fewest were 12 and its median 83; E4 took 1011 s with a
#: transaction only at N = 10, 1,000 (and 100,000 in SQLite), and now also runs it at N = 100
#: (autocommit's largest N, where its headline compares: about 25 s more); with 1050 s its filltable
#: and pythonjoin groups still stopped at 7 and 9 (their pooled --max-time spent) while the others
#: reached 19, so the paper profile's floor (10 processes, `--min-processes`) now comes first; with
#: the floor first, every cell stopped at 9-10 processes, DuckDB's two row-at-a-time cells taking
#: 42% of the run (26.7 s and 17.1 s a process), so E2 leaves those two cells out (`--leave-out`)
STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("E7", "a new point of the history (the same commit's cells, for the timeline)",
          ("history",), ("--profile", "smoke", "--processes", "10", "--iterations", "10", "--benchmarks",
                         "bindings.select_fold,bindings.point_query", "--engines", "sqlite/sqlite3,sqlite/apsw"),
          60, folder="data/reference-history"),
    Study("E1", "bindings: every driver and runtime, Haskell and C included, against sqlite3 on CPython",
          ("bindings.*",),
          ("--profile", "paper", "--benchmarks", "bindings.*", "--engines", "*",
           "--runtimes", "cpython,pypy,c,haskell,haskell-O0", "--aa", "sqlite/sqlite3", *_ADAPTIVE,
           "--max-time", "30"), 1000),
    Study("E2", "boundary micro-benchmarks at SF 0.01", ("micro.*",),
          ("--profile", "paper", "--benchmarks", "micro.*", "--engines", _SQL_ENGINES, "--runtimes", "cpython,pypy,c,jvm",
           "--param", "sf=0.01", "--aa", "sqlite/sqlite3@cpython", *_ADAPTIVE, "--max-time", "30",
           "--leave-out", "micro.filltable@duckdb,micro.pythonjoin@duckdb"), 1050),
    Study("E3", "TPC-H at SF 0.01 on every engine, H2 on the JVM beside SQLite", ("tpch.*",),
          ("--profile", "paper", "--benchmarks", "tpch.*", "--engines", _SQL_ENGINES, "--runtimes", "cpython,pypy,jvm",
           "--param", "sf=0.01", "--aa", "sqlite/sqlite3@cpython", *_ADAPTIVE, "--max-time", "20"), 1680),
    Study("E4", "inserts: strategies against N, and the journal_mode x synchronous grid in C, in one run",
          ("inserts.*",),
          ("--profile", "inserts", "--runtimes", "cpython,c", "--processes", "10", "--aa", "sqlite/sqlite3"), 1040),
    Study("E5", "the application workload, AcidState and FerretDB included", ("app.*",),
          ("--profile", "quick", "--benchmarks", "app.*", "--engines", "*",
           "--runtimes", "cpython,haskell,haskell-O0", "--processes", "10", "--param", "corpus=SM,MD",
           "--aa", "sqlite/sqlite3", "--timeout", "120", "--yes"), 300),
    Study("E6", "point queries in Go, RamSQL against SQLite", ("ramsql.*",),
          ("--profile", "quick", "--benchmarks", "ramsql.*", "--engines", "ramsql/go,sqlite/go", "--runtimes", "go",
           "--processes", "10", "--aa", "sqlite/go"), 90),
    Study("E7b", "the same point again, made last: two runs of one commit, the campaign's sitting between them, "
                 "show what the machine alone does",
          ("history",), ("--profile", "smoke", "--processes", "10", "--iterations", "10", "--benchmarks",
                         "bindings.select_fold,bindings.point_query", "--engines", "sqlite/sqlite3,sqlite/apsw"),
          60, folder="data/reference-history"),
)}


def pick(names: str | None) -> list[Study]:
    """The studies named (comma-separated, e.g. E1,E3), in campaign order; all when None."""
    if not names:
        return list(STUDIES.values())
    by_upper = {k.upper(): k for k in STUDIES}
    asked = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in asked if n.upper() not in by_upper]
    if unknown:
        raise UserError(f"unknown study {', '.join(unknown)}; studies: {', '.join(STUDIES)}")
    wanted = {by_upper[n.upper()] for n in asked}
    return [s for s in STUDIES.values() if s.name in wanted]


def plan_text(studies: list[Study]) -> str:
    """What the campaign will cost, study by study, before anything starts."""
    lines = [f"{'study':5s}  {'budget':>8s}  what"]
    for s in studies:
        lines.append(f"{s.name:5s}  {s.budget_s / 60:6.0f} m  {s.title} -> {s.folder}/")
    total = sum(s.budget_s for s in studies)
    lines.append(f"total  {total / 60:6.0f} m of run budget (waiting for a quiet machine not counted); "
                 "nothing else may run on the machine meanwhile")
    return "\n".join(lines)


class Campaign:
    """The state of a campaign on disk: per study its run directory and where it stands."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.path = work / "state.json"
        self.state: dict[str, dict] = json.loads(self.path.read_text()) if self.path.exists() else {}

    def save(self) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.path, self.state)

    def get(self, study: str) -> dict:
        return self.state.setdefault(study, {"status": "todo"})


def wait_for_quiet_machine(say: Callable[[str], None], max_wait_s: float = MAX_QUIET_WAIT_S,
                           sleep: Callable[[float], None] = time.sleep) -> bool:
    """Wait (bounded, said) until the 1-minute load is below QUIET_LOAD; whether it got there."""
    t0 = time.monotonic()
    said = False
    while os.getloadavg()[0] >= QUIET_LOAD:
        if time.monotonic() - t0 >= max_wait_s:
            say(f"the machine is still busy after {max_wait_s:.0f} s (load {os.getloadavg()[0]:.2f})")
            return False
        if not said:
            say(f"load {os.getloadavg()[0]:.2f}: waiting up to {max_wait_s:.0f} s for a quiet machine")
            said = True
        sleep(5)
    return True


def disturbed_share(run_dir: Path) -> tuple[int, int]:
    """(disturbed, measured) processes of a run, from its records."""
    from harness.store import records_of

    flagged = measured = 0
    for rec in records_of(run_dir).values():
        m = rec.interference
        if isinstance(m, dict):
            measured += 1
            flagged += bool(m.get("contaminated"))
    return flagged, measured


def benchmarks_of(run_dir: Path) -> set[str]:
    """The benchmarks a run measured: those of its processes that ran (a plan also lists benchmarks
    whose cells were skipped, such as an engine's own benchmarks on a runtime the run did not
    have; a run that only skipped a family does not hold it). A run without records yet: its plan."""
    from harness.store import records_of

    skipped = {"skipped", "not_applicable"}
    try:
        recs = records_of(run_dir)
    except (OSError, ValueError, UserError):  # an unreadable run: judged by its plan below
        recs = {}
    ran = {str(r.benchmark) for r in recs.values() if r.status not in skipped and r.benchmark}
    if ran or recs:
        return ran
    try:  # read leniently, not as `record.Plan` (which wants its cells and order): only its benchmarks count
        plan = run_dir / "plan.json"
        return set(json.loads(plan.read_text()).get("benchmarks") or []) if plan.exists() else set()
    except (OSError, ValueError):
        return set()


def runs_of(study: Study, folder: Path) -> list[Path]:
    """The runs in `folder` that belong to `study`: they hold one of its families. (An imported run
    of another tool, its benchmarks named in its own words, belongs to no study and stays.)"""
    return [d for d, _ in overlapping(study, folder)]


def overlapping(study: Study, folder: Path) -> list[tuple[Path, set[str]]]:
    """The runs in `folder` holding any of the study's families, each with the other families it
    holds too (an older run may hold two studies: installing either replaces it, and the other
    study must be remade, which a whole campaign does)."""
    out = []
    for d in sorted(folder.glob("*/")):
        if not (d / "manifest.json").exists():
            continue
        families = {b.split(".", 1)[0] + ".*" for b in benchmarks_of(d)}
        if families & set(study.benchmarks):
            out.append((d, families - set(study.benchmarks)))
    return out


def install(study: Study, run_dir: Path, root: Path = PROJECT_ROOT) -> list[Path]:
    """Copy the study's run into its folder and remove the study's older runs there (only those:
    the committed runs of the other studies stay). E7 adds a point to the history instead."""
    folder = root / study.folder
    folder.mkdir(parents=True, exist_ok=True)
    history = study.name.startswith("E7")
    removed = [] if history else runs_of(study, folder)
    for d, others in ([] if history else overlapping(study, folder)):
        if others:
            print(f"note: {d.name} held {', '.join(sorted(others))} too; remake those studies as well", file=sys.stderr)
    tmp = folder / f".installing-{run_dir.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(run_dir, tmp, ignore=shutil.ignore_patterns("notebooks", "report", "*.lock"))
    for d in removed:
        shutil.rmtree(d)
    tmp.rename(folder / run_dir.name)
    return removed


def _run(cmd: list[str]) -> Path:
    p = subprocess.run(cmd, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True)
    lines = p.stdout.strip().splitlines()
    if not lines or not (Path(lines[-1]) / "plan.json").exists():
        raise UserError(f"the run did not start ({' '.join(cmd[3:])}); exit status {p.returncode}")
    return Path(lines[-1])


def _started_before(work: Path, st: dict) -> Path | None:
    """The run a study started before the campaign was stopped (status running): the one run
    directory that appeared in `work` after the study began."""
    if st.get("status") != "running":
        return None
    new = [d for d in work.glob("*/") if (d / "plan.json").exists() and d.name not in set(st.get("before", []))]
    return new[0] if len(new) == 1 else None


def _complete(run_dir: Path) -> bool:
    from harness.store import manifest_of

    try:
        return manifest_of(run_dir).status == "complete"
    except (OSError, ValueError, UserError):
        return False


def committed_or_stop(study: Study, force: bool, root: Path | None = None) -> None:
    """A reference run is made from a commit: with uncommitted changes to the code its manifest says
    "dirty", and the history cannot call two runs the same code. Refused without --force, naming the files."""
    changed = changed_files(root)
    if changed and not force:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise UserError(f"{study.name}: the code has uncommitted changes ({shown}); a reference run is made from a "
                        "commit: commit them (or stash them) and run again, or give --force")


def _quiet_or_stop(study: Study, say: Callable[[str], None], quiet_wait_s: float, force: bool) -> None:
    committed_or_stop(study, force)
    if not wait_for_quiet_machine(say, quiet_wait_s) and not force:
        raise UserError(f"{study.name}: the machine is busy; the campaign stops here (every finished study is "
                        "kept; run it again on a quiet machine, or give --force)")


def run_campaign(studies: list[Study], work: Path, force: bool = False, say: Callable[[str], None] = print,
                 root: Path = PROJECT_ROOT, quiet_wait_s: float = MAX_QUIET_WAIT_S) -> dict[str, dict]:
    """Measure and install each study not installed yet; resumable through `work/state.json`."""
    camp = Campaign(work)
    for s in studies:
        st = camp.get(s.name)
        if st["status"] == "installed":
            say(f"{s.name}: installed already ({st['run']}); skipped (remove {camp.path} to measure again)")
            continue
        if st["status"] == "refused" and not force:
            say(f"{s.name}: refused before ({st.get('disturbed')} of {st.get('measured')} processes disturbed); "
                "skipped (give --force to install it, or remove its entry from the state to measure it again)")
            continue
        t0 = time.monotonic()
        run_dir = Path(st["run"]) if st.get("run") else _started_before(work, st)
        if run_dir is not None and run_dir.exists() and _complete(run_dir):
            say(f"{s.name}: {run_dir.name} was measured already")
        elif run_dir is not None and run_dir.exists():
            _quiet_or_stop(s, say, quiet_wait_s, force)
            t0 = time.monotonic()  # the slot counts measuring, not waiting for a quiet machine
            say(f"{s.name}: resuming {run_dir}")
            _run([sys.executable, "-m", "harness", "run", "--resume", str(run_dir), "--no-progress"])
        else:
            _quiet_or_stop(s, say, quiet_wait_s, force)
            t0 = time.monotonic()
            say(f"{s.name}: {s.title} (budget {s.budget_s / 60:.0f} min)")
            # the run directories there before it: a campaign stopped mid-run finds its run as the new one
            st.update(status="running", before=sorted(d.name for d in work.glob("*/")))
            camp.save()
            run_dir = _run(s.command(work))
        st.update(run=str(run_dir), status="measured", wall_s=st.get("wall_s") or round(time.monotonic() - t0, 1))
        camp.save()
        flagged, measured = disturbed_share(run_dir)
        st.update(disturbed=flagged, measured=measured)
        if measured and flagged / measured > MAX_DISTURBED and not force:
            st["status"] = "refused"
            camp.save()
            say(f"{s.name}: {flagged} of {measured} processes were disturbed: not installed (--force installs it)")
            continue
        removed = install(s, run_dir, root)
        st["status"] = "installed"
        camp.save()
        say(f"{s.name}: installed {run_dir.name} into {s.folder}/ in {st['wall_s']:.0f} s"
            + (f", replacing {len(removed)} run(s)" if removed else "") + f"; {flagged} of {measured} disturbed")
    return camp.state
