"""The reference campaign: every study re-measured in one protocol, one run per study.

Why: the paper is computed from `data/reference*/`, and runs made apart (other days, other loads)
must never be pooled or set side by side. Each study here is one run in which every engine and
runtime it compares is interleaved (in rounds) with its own baseline, and the baseline is measured
twice under two names (`run --aa`), so the run can show it does not tell a cell from itself. The
adaptive protocol gives each cell its target or its budget; each study's budget is its share of a
100-minute slot on one 2-core machine.

`harness reference` runs the studies in turn (`--study E1,E3` for some), each into
`data/runs/reference-campaign/`, and installs a finished study into its folder, replacing only
the runs of that study. It is resumable: a state file records each study's run and where it
stands, so a campaign stopped anywhere goes on where it stopped (an unfinished run is resumed).
Before each study it checks the machine (the load and the worker CPU's others' share) and waits,
bounded, for quiet; a study whose processes were mostly disturbed is not installed without
`--force`.

A study may have steps, other harness commands run before and after its `harness run` on the same
machine and commit (E6: a `go test -bench` session before the worker's run and one after it, so a
drift of the machine over the study shows as a difference between the two sessions). The state
file records each step's runs; a finished step is not run again; the study's run and its steps'
runs are installed together.

A replicate (`--replicate`) runs a study again, the same command on the same code, in another sitting,
and installs it beside the study's folder (`data/reference-replicate/`, `data/reference-h2-replicate/`)
instead of in place of its run: the two runs' difference is the between-run spread that one run's
intervals leave out (`studies/replicate.py`). Its campaign state is its own, so a replicate never
marks the reference study done.
"""
from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
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
class Step:
    """A harness command a study runs before or after its `harness run` (same machine, same commit);
    the runs it prints are installed with the study's run. In `args`, `{NAME}` stands for the last
    run directory of the study's earlier step NAME."""

    name: str
    args: tuple[str, ...]         # `harness` arguments, the command first; `--out` is added
    budget_s: float               # what it takes, rounded up (a fixed amount of work, not a bound)
    when: str = "before"          # "before" or "after" the study's run

    def command(self, out: Path, done: dict[str, list[str]]) -> list[str]:
        args = []
        for a in self.args:
            for name, runs in done.items():
                if runs:
                    a = a.replace("{" + name + "}", runs[-1])
            if "{" in a and "}" in a:
                raise UserError(f"step {self.name}: {a} names a step that has not run")
            args.append(a)
        return [sys.executable, "-m", "harness", *args, "--out", str(out)]


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
    steps: tuple[Step, ...] = field(default=())  # run before/after the study's run, installed with it
    #: engines (patterns) whose runs the study owns too: imported runs name their benchmarks in the
    #: other tool's words (go test's `RamSQLSelect`), so their families say nothing; their engines do
    engines: tuple[str, ...] = field(default=())

    @property
    def total_s(self) -> float:
        """The study's budget, its steps included."""
        return self.budget_s + sum(st.budget_s for st in self.steps)

    def steps_when(self, when: str) -> list[Step]:
        return [st for st in self.steps if st.when == when]

    def command(self, out: Path) -> list[str]:
        """The study's `harness run`; an adaptive one is bounded by its budget (a fixed one is sized
        to fit it: its processes x iterations)."""
        bound = ["--max-run-time", f"{self.budget_s:g}"] if "--target-ci" in self.args else []
        return [sys.executable, "-m", "harness", "run", *self.args, *bound, "--out", str(out), "--no-progress",
                *self.extra]


#: the campaign, in the order the paper presents the studies, except E7's two points, which bracket
#: the others: the first made before E1, the second after E6, so the pair's difference is what the
#: machine did over the whole sitting. 108 minutes of run budget (E2s's sweep, E6's two go test sessions, E5's LG2 and
#: hashed-insertion runs, E3h's steady-state H2 run and E3d's diagnosis included; a fixed run's budget is what it
#: took, rounded up: E3h 749 s; E5 218 s, its steps 121, 33 and 45 s; E3d 73 s; E6 57 s, its sessions about 56 s each; E2s 310 s).
#: E3 has 28 minutes and twins its baseline on CPython only: with 26 minutes and a PyPy twin too its
#: cells stopped at a median of 9 processes, short of the 10 a cell needs (H2's JVM processes take
#: 46% of its machine time, the PyPy twin 8%).
#: E2 likewise twins on CPython only and takes 150 s of E1's budget: with 900 s its cells stopped at
#: 8-9 processes (DuckDB's row-at-a-time pythonjoin and filltable took 25% of it), while E1's fewest
#: were 12 and its median 83; with 1050 s its filltable and pythonjoin groups still stopped at 7 and 9
#: (their pooled --max-time spent) while the others reached 19, so the paper profile's floor (10
#: processes, `--min-processes`) now comes first; with the floor first, every cell stopped at 9-10
#: processes, DuckDB's two row-at-a-time cells taking 42% of the run (26.7 s and 17.1 s a process),
#: so E2 leaves those two cells out (`--leave-out`).
#: E4 took 1011 s with a transaction at N = 10, 1,000 (and 100,000 in SQLite) and SQLite's multi-row
#: inserts up to N = 1,000,000; it now runs a transaction at N = 100 too (autocommit's largest N, where
#: its headline compares: about 25 s more) and multi-row inserts up to N = 100,000 (the four cells at
#: 1,000,000, the sqlite3 twin's included, took 131 s; no claim of seed 003 is about them): 835 s, so 840.
#: E6's `go test -bench` sessions, one before the worker's run and one after it (A, worker, A): on this
#: 2-core VM one `-count` of the 18 benchmarks takes 9.3 s at -benchtime 10ms and 14.3 s at 200ms (the
#: untimed set-up, remade on every b.N loop, dominates), so the stored sessions' `-count 6 -benchtime
#: 200ms` would take about 90 s each. 6 samples of 50 ms keep a session near 60 s: 6 a side is the seed's
#: -count and the fewest for which benchstat prints an interval (with 4, the fewest with which a Mann-Whitney
#: test can call two sessions different at p <= 0.05, it printed "± ∞"); the seed ran go test's default
#: -benchtime, 1s, which would take several minutes a session here
GOTEST_FLAGS = ("--count", "6", "--benchtime", "50ms")
#: E5's corpus LG2 (50,000 users, target #45678), run after its main run for the seed's own contenders we
#: run its way (AcidState and HDBC-sqlite3), built as the seed built them: `ghc --make` (-O0) and
#: `ghc -O --make` (-O1, runtime haskell-O1): seed 002 made its `ghc -O` comparison there only (LG2
#: against LG-O). Every engine at 50,000 users would cost FerretDB's collection scans and the
#: servers' bulk loads, and LG too would take the campaign past 90 minutes for no claim only LG decides;
#: these 160 processes took about 1 s each in a trial. Each comparison stays inside one run.
#: Then user insertion as the seed timed it, the password hashed with scrypt in the timed region (hash=on;
#: the main run and LG2 run insert with hash=off, as an operation of the stores alone): at SM and MD built
#: `ghc --make`, and at LG2 with both builds, for the seed's claims whose cells include user insertion
#: (SQLite loses everywhere, -O halves most numbers, the hash dominates user insertion). One insertion
#: takes about 40 ms (scrypt with N = 2^14, r = 8, p = 1), so a process times about 10.
_E5_LARGE_STEPS = (
    Step("large", ("run", "--profile", "quick", "--benchmarks", "app.*", "--engines", "acidstate/acid-state,sqlite/hdbc",
                   "--runtimes", "haskell-O0,haskell-O1", "--processes", "10", "--param", "corpus=LG2",
                   "--timeout", "120", "--yes", "--no-progress"), 130, "after"),
    Step("scrypt", ("run", "--profile", "quick", "--benchmarks", "app.insert_user", "--engines",
                    "acidstate/acid-state,sqlite/hdbc", "--runtimes", "haskell-O0", "--processes", "10", "--param",
                    "corpus=SM,MD", "--param", "hash=on", "--timeout", "120", "--yes", "--no-progress"), 40, "after"),
    Step("scrypt-LG2", ("run", "--profile", "quick", "--benchmarks", "app.insert_user", "--engines",
                      "acidstate/acid-state,sqlite/hdbc", "--runtimes", "haskell-O0,haskell-O1", "--processes", "10",
                      "--param", "corpus=LG2", "--param", "hash=on", "--timeout", "120", "--yes", "--no-progress"),
         50, "after"),
)
_GOTEST_STEPS = (
    Step("gotest1", ("gobench", "--sessions", "1", *GOTEST_FLAGS), 60, "before"),
    Step("gotest2", ("gobench", "--sessions", "1", *GOTEST_FLAGS, "--after", "{gotest1}"), 60, "after"),
)

#: E3h: seed 001's H2 / SQLite from PyPy at a steady state. In E3, H2's processes stopped at a median of 2
#: iterations (its pooled --max-time), so their means are mostly the JIT's warm-up. Here every process times
#: 20 iterations (no per-process budget), so the changepoint analysis can leave the warm-up out; only the
#: seed's pair runs (no A/A twin), and q19 and q20, on which H2 timed out in E3, are left out (the seed's
#: comparison is over the other 20). It took 624 s (one process: 3-5 s on H2, 0.4 s on PyPy), then 749 s and 676 s in a
#: later sitting.
_H2_STEADY = ("--profile", "quick", "--benchmarks", "tpch.*", "--engines", "h2/jdbc,sqlite/sqlite3", "--runtimes",
              "jvm,pypy", "--param", "sf=0.01", "--processes", "5", "--iterations", "20", "--budget", "0",
              "--timeout", "120", "--leave-out", "tpch.q19@*,tpch.q20@*")

#: E2s: PyPy against CPython at a steady state, and across scale factors. In E2 a process timed 2-13 iterations
#: (its cells' pooled --max-time), too few for the changepoint analysis to leave PyPy's warm-up out, and its rank
#: test over six benchmarks cannot show a trend with crossings (|rho| = 1 is the only rejection at 1%). Here the
#: four micro-benchmarks whose crossings scale with the data run on `sqlite3` only, from CPython and PyPy, at SF
#: 0.01, 0.03 and 0.1 (the harness's smallest is 0.01), so each benchmark's crossings vary tenfold with
#: everything else fixed (a dose-response within a benchmark), every process timing 20 iterations; no A/A twin
#: (E2's twin checks the protocol). An iteration at SF 0.1 takes about 0.3 s on either runtime (E2's times, tenfold).
_E2_STEADY = ("--profile", "quick", "--benchmarks", "micro.select,micro.pyfunction,micro.pyaggregate,micro.innerjoin",
              "--engines", "sqlite/sqlite3", "--runtimes", "cpython,pypy", "--param", "sf=0.01,0.03,0.1",
              "--processes", "6", "--iterations", "20", "--budget", "0", "--timeout", "120")

#: E3d: why H2 timed out on q19 and q20 (E3, E3h leaves them out): each query once on H2 (JVM) and on SQLite
#: from PyPy, with the tables' primary keys only (indexes=off, as everywhere else) and with an index on every
#: foreign key and filtered date (indexes=on). One process of one iteration per cell: a diagnosis, not a
#: comparison (no interval); H2 took 20 s (q19) and 32 s (q20) in a trial, 1 s on q20 with the indexes.
_H2_DIAGNOSIS = ("--profile", "quick", "--benchmarks", "tpch.q19,tpch.q20", "--engines", "h2/jdbc,sqlite/sqlite3",
                 "--runtimes", "jvm,pypy", "--param", "sf=0.01", "--param", "indexes=off,on", "--processes", "1",
                 "--iterations", "1", "--budget", "0", "--timeout", "120")

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
    Study("E2s", "PyPy against CPython at a steady state across scale factors: four micro-benchmarks on sqlite3 at "
                 "SF 0.01, 0.03 and 0.1, a fixed 6 processes of 20 iterations per cell", ("micro.*",), _E2_STEADY, 320,
          folder="data/reference-e2s"),
    Study("E3", "TPC-H at SF 0.01 on every engine, H2 on the JVM beside SQLite", ("tpch.*",),
          ("--profile", "paper", "--benchmarks", "tpch.*", "--engines", _SQL_ENGINES, "--runtimes", "cpython,pypy,jvm",
           "--param", "sf=0.01", "--aa", "sqlite/sqlite3@cpython", *_ADAPTIVE, "--max-time", "20"), 1680),
    Study("E3h", "H2 at a steady state: TPC-H on H2 (JVM) and on SQLite from PyPy only, a fixed 5 processes "
                 "of 20 iterations per query", ("tpch.*",), _H2_STEADY, 750, folder="data/reference-h2"),
    Study("E3d", "H2's q19 and q20 diagnosed: each once on H2 and on SQLite from PyPy, with primary keys only and "
                 "with secondary indexes", ("tpch.*",), _H2_DIAGNOSIS, 80, folder="data/reference-h2-diagnosis"),
    Study("E4", "inserts: strategies against N, and the journal_mode x synchronous grid in C, in one run",
          ("inserts.*",),
          ("--profile", "inserts", "--runtimes", "cpython,c", "--processes", "10", "--aa", "sqlite/sqlite3"), 840),
    Study("E5", "the application workload, AcidState and FerretDB included", ("app.*",),
          ("--profile", "quick", "--benchmarks", "app.*", "--engines", "*",
           "--runtimes", "cpython,haskell,haskell-O0", "--processes", "10", "--param", "corpus=SM,MD",
           "--aa", "sqlite/sqlite3", "--timeout", "120", "--yes"), 220, steps=_E5_LARGE_STEPS),
    Study("E6", "point queries in Go, RamSQL against SQLite", ("ramsql.*",),
          ("--profile", "quick", "--benchmarks", "ramsql.*", "--engines", "ramsql/go,sqlite/glebarez,sqlite/go",
           "--runtimes", "go", "--processes", "10", "--aa", "sqlite/glebarez"), 60, steps=_GOTEST_STEPS,
          engines=("gotest-*",)),
    Study("E7b", "the same point again, made last: two runs of one commit, the campaign's sitting between them, "
                 "show what the machine alone does",
          ("history",), ("--profile", "smoke", "--processes", "10", "--iterations", "10", "--benchmarks",
                         "bindings.select_fold,bindings.point_query", "--engines", "sqlite/sqlite3,sqlite/apsw"),
          60, folder="data/reference-history"),
)}


#: studies a replicate cannot repeat: E7's points are pairs of runs already (the history's same-commit pairs),
#: and E3d is a diagnosis of one process per cell, with no interval to compare
NOT_REPLICATED = {"E7": "a history point: E7 and E7b are themselves two runs of one commit",
                  "E7b": "a history point: E7 and E7b are themselves two runs of one commit",
                  "E3d": "a diagnosis of one process per cell, with no interval to set a second run against"}
REPLICATE_SUFFIX = "-replicate"


def replicate_folder(folder: str) -> str:
    """Where a study's replicate is installed: beside its folder (data/reference -> data/reference-replicate)."""
    return folder.rstrip("/") + REPLICATE_SUFFIX


def replicates(studies: list[Study], named: bool) -> list[Study]:
    """The studies' replicates (installed in `replicate_folder`). Named studies that cannot be repeated are
    refused, saying why; with none named, those are left out."""
    refused = [s for s in studies if s.name in NOT_REPLICATED]
    if refused and named:
        raise UserError("; ".join(f"{s.name} has no replicate: {NOT_REPLICATED[s.name]}" for s in refused)
                        + f"; studies with one: {', '.join(n for n in STUDIES if n not in NOT_REPLICATED)}")
    return [replace(s, folder=replicate_folder(s.folder)) for s in studies if s.name not in NOT_REPLICATED]


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
        lines.append(f"{s.name:5s}  {s.total_s / 60:6.0f} m  {s.title} -> {s.folder}/")
        for st in s.steps:
            lines.append(f"{'':5s}  {st.budget_s:6.0f} s    {st.when} the run: harness {' '.join(st.args)}")
    total = sum(s.total_s for s in studies)
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


def engines_of(run_dir: Path) -> set[str]:
    """The engines of a run's processes that ran (records), as benchmarks_of."""
    from harness.store import records_of

    try:
        recs = records_of(run_dir)
    except (OSError, ValueError, UserError):
        return set()
    return {str(r.engine) for r in recs.values() if r.status not in {"skipped", "not_applicable"} and r.engine}


def _owns_engines(study: Study, run_dir: Path) -> bool:
    """A run all of whose engines are the study's own engines (`Study.engines`, e.g. E6's gotest-*)."""
    if not study.engines:
        return False
    engines = engines_of(run_dir)
    return bool(engines) and all(any(fnmatch.fnmatchcase(e, p) for p in study.engines) for e in engines)


def runs_of(study: Study, folder: Path) -> list[Path]:
    """The runs in `folder` that belong to `study`: they hold one of its families, or only its own
    engines (`Study.engines`: E6's imported go test sessions, engines gotest-N). (Another imported
    run, its benchmarks named in its tool's words, belongs to no study and stays.)"""
    return [d for d, _ in overlapping(study, folder)]


def overlapping(study: Study, folder: Path) -> list[tuple[Path, set[str]]]:
    """The runs in `folder` holding any of the study's families (or only its engines), each with the
    other families it holds too (an older run may hold two studies: installing either replaces it,
    and the other study must be remade, which a whole campaign does)."""
    out = []
    for d in sorted(folder.glob("*/")):
        if not (d / "manifest.json").exists() or d.name.startswith("."):
            continue
        if _owns_engines(study, d):
            out.append((d, set()))
            continue
        families = {b.split(".", 1)[0] + ".*" for b in benchmarks_of(d)}
        if families & set(study.benchmarks):
            out.append((d, families - set(study.benchmarks)))
    return out


def install(study: Study, run_dir: Path, root: Path = PROJECT_ROOT, extra: tuple[Path, ...] | list[Path] = ()
            ) -> list[Path]:
    """Copy the study's run (and its steps' runs, `extra`) into its folder and remove the study's
    older runs there (only those: the committed runs of the other studies stay). E7 adds a point to
    the history instead."""
    folder = root / study.folder
    folder.mkdir(parents=True, exist_ok=True)
    history = study.name.startswith("E7")
    found = [] if history else overlapping(study, folder)
    removed = [d for d, _ in found]
    for d, others in found:
        if others:
            print(f"note: {d.name} held {', '.join(sorted(others))} too; remake those studies as well", file=sys.stderr)
    news = [Path(run_dir), *[Path(e) for e in extra]]
    tmps = []
    for new in news:  # copied first (hidden names), the old runs removed, then the new ones named
        tmp = folder / f".installing-{new.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(new, tmp, ignore=shutil.ignore_patterns("notebooks", "report", "*.lock"))
        tmps.append((tmp, folder / new.name))
    for d in removed:
        shutil.rmtree(d)
    for tmp, dest in tmps:
        if dest.exists():  # the same run installed again (a resumed install)
            shutil.rmtree(dest)
        tmp.rename(dest)
    return removed


def _run(cmd: list[str]) -> Path:
    p = subprocess.run(cmd, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True)
    lines = p.stdout.strip().splitlines()
    if not lines or not (Path(lines[-1]) / "plan.json").exists():
        raise UserError(f"the run did not start ({' '.join(cmd[3:])}); exit status {p.returncode}")
    return Path(lines[-1])


def _run_step(cmd: list[str]) -> list[Path]:
    """Run a study's step (a harness command); the run directories it printed."""
    p = subprocess.run(cmd, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True)
    runs = [Path(line) for line in p.stdout.strip().splitlines() if line.strip() and (Path(line) / "manifest.json").exists()]
    if p.returncode != 0 or not runs:
        raise UserError(f"the step did not make its runs ({' '.join(cmd[3:])}); exit status {p.returncode}")
    return runs


def run_steps(study: Study, when: str, st: dict, camp: "Campaign", work: Path, say: Callable[[str], None]) -> None:
    """Run the study's steps `when` ("before"/"after") its run that are not done yet; each one's runs
    and wall time go into the state (`st["steps"][name]`), saved after each, so a stopped campaign
    runs only the steps still to do."""
    steps = st.setdefault("steps", {})
    for step in study.steps_when(when):
        rec = steps.get(step.name) or {}
        if rec.get("status") == "done" and all(Path(r).exists() for r in rec.get("runs", [])):
            say(f"{study.name}: step {step.name} done already ({', '.join(Path(r).name for r in rec['runs'])})")
            continue
        done = {name: r.get("runs", []) for name, r in steps.items() if r.get("status") == "done"}
        cmd = step.command(work, done)
        say(f"{study.name}: step {step.name}, {when} the run: harness {' '.join(cmd[3:])}")
        steps[step.name] = {"status": "running"}
        camp.save()
        t0 = time.monotonic()
        runs = _run_step(cmd)
        steps[step.name] = {"status": "done", "runs": [str(r) for r in runs], "wall_s": round(time.monotonic() - t0, 1)}
        camp.save()


def _pending(study: Study, when: str, st: dict) -> bool:
    steps = st.get("steps") or {}
    return any((steps.get(step.name) or {}).get("status") != "done" for step in study.steps_when(when))


def _step_runs(study: Study, st: dict) -> list[Path]:
    """The runs the study's steps made, in step order (installed with the study's run)."""
    steps = st.get("steps") or {}
    return [Path(r) for step in study.steps for r in (steps.get(step.name) or {}).get("runs", [])]


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
        checked = False  # whether this call checked the machine (quiet, committed) for the study
        run_dir = Path(st["run"]) if st.get("run") else _started_before(work, st)
        if run_dir is not None and run_dir.exists() and _complete(run_dir):
            say(f"{s.name}: {run_dir.name} was measured already")
        elif run_dir is not None and run_dir.exists():
            _quiet_or_stop(s, say, quiet_wait_s, force)
            checked = True
            t0 = time.monotonic()  # the slot counts measuring, not waiting for a quiet machine
            say(f"{s.name}: resuming {run_dir}")
            _run([sys.executable, "-m", "harness", "run", "--resume", str(run_dir), "--no-progress"])
        else:
            _quiet_or_stop(s, say, quiet_wait_s, force)
            checked = True
            run_steps(s, "before", st, camp, work, say)
            t0 = time.monotonic()  # the run's own wall (each step's is in its entry)
            say(f"{s.name}: {s.title} (budget {s.budget_s / 60:.0f} min)")
            # the run directories there before it: a campaign stopped mid-run finds its run as the new one
            st.update(status="running", before=sorted(d.name for d in work.glob("*/")))
            camp.save()
            run_dir = _run(s.command(work))
        st.update(run=str(run_dir), status="measured", wall_s=st.get("wall_s") or round(time.monotonic() - t0, 1))
        camp.save()
        if _pending(s, "after", st):
            if not checked:  # the run was measured in an earlier call: the machine is checked again first
                _quiet_or_stop(s, say, quiet_wait_s, force)
            run_steps(s, "after", st, camp, work, say)
        flagged, measured = disturbed_share(run_dir)
        st.update(disturbed=flagged, measured=measured)
        if measured and flagged / measured > MAX_DISTURBED and not force:
            st["status"] = "refused"
            camp.save()
            say(f"{s.name}: {flagged} of {measured} processes were disturbed: not installed (--force installs it)")
            continue
        extra = _step_runs(s, st)
        removed = install(s, run_dir, root, extra)
        st["status"] = "installed"
        camp.save()
        steps_s = sum((r or {}).get("wall_s") or 0 for r in (st.get("steps") or {}).values())
        say(f"{s.name}: installed {run_dir.name}" + (f" and its steps' {len(extra)} run(s)" if extra else "")
            + f" into {s.folder}/ in {st['wall_s'] + steps_s:.0f} s"
            + (f", replacing {len(removed)} run(s)" if removed else "") + f"; {flagged} of {measured} disturbed")
    return camp.state
