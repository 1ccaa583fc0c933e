"""Named protocols: how many processes and iterations, which benchmarks and engines by default.

`smoke` takes seconds: a first look, with an interval for every cell (5 processes of 3
iterations); `quick` takes minutes and is what `make run` does on the embedded engines (3
processes: the fewest that give an interval, since a run's time is mostly its processes'
start-up and set-up); both wait at most 2 s for a quiet CPU before a process; `paper` runs the adaptive protocol: a pilot of 3
processes per cell, then processes and iterations chosen by the planner until each cell's 99%
interval is within +-2% of its mean or the cell has spent its machine time. `params` override
workloads' default parameters, per benchmark glob.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from harness.run.interference import MAX_WAIT_S


@dataclass(frozen=True)
class Profile:
    name: str
    processes: int
    iterations: int
    timeout_s: float
    benchmarks: tuple[str, ...]
    engines: tuple[str, ...]
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    description: str = ""
    #: per-process budget of timed seconds: a process stops iterating once it has spent it
    #: (after at least 2 iterations), so one slow cell cannot hold a quick run for an hour.
    #: None: every process runs all its iterations (the paper protocol).
    budget_s: float | None = None
    #: the adaptive protocol's target relative half-width in percent (None: a fixed protocol of
    #: `processes` x `iterations`); with a target, `processes` x `iterations` is the pilot
    target_ci_pct: float | None = None
    #: machine seconds one cell may take under the adaptive protocol
    max_time_s: float | None = None
    #: under the adaptive protocol, the fewest clean processes a cell runs before `max_time_s` may
    #: stop it (a cell that met its target needs none; only the run's budget stops it sooner)
    min_processes: int = 0
    #: before a process, the longest wait for a quiet worker CPU (a run waits at most 10x this in all)
    max_wait_s: float = MAX_WAIT_S
    #: more cells beside the sweep of `params`, per `BENCHMARK_GLOB[@ENGINE_GLOB]`: each entry a
    #: sweep of its own (sweeps multiply within an entry, entries add cells), such as E4's
    #: journal_mode x synchronous grid at a few N beside its N sweep at SQLite's own settings
    grids: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)


#: E4's N sweep (seed 003's log x axis: every other decade, 10 .. 1,000,000), capped where one
#: iteration takes seconds on a busy 2-core machine: every autocommit row syncs the disk (tens of
#: ms), DuckDB spends milliseconds per single-row statement, a server a round trip per statement.
#: `run --param rows=10,100,...` gives any other sweep.
_N = [10, 1000, 100_000, 1_000_000]
INSERTS_PARAMS: dict[str, dict[str, Any]] = {
    "inserts.*": {"rows": _N[:2]},
    "inserts.autocommit": {"rows": [10, 100]},
    # a transaction at autocommit's largest N too, so the headline gain compares at N = 100, not 10
    "inserts.transaction": {"rows": [10, 100, 1000]},
    "inserts.transaction@sqlite/*": {"rows": [10, 100, 1000, 100_000]},
    "inserts.prepared@sqlite/*": {"rows": _N},
    # to 100,000 only: its four cells at 1,000,000 took 131 s of E4's slot, and no seed claim is about them
    "inserts.multirow@sqlite/*": {"rows": _N[:3]},
    "inserts.bulk@duckdb": {"rows": _N[:3]},
    "inserts.bulk@postgresql/*": {"rows": _N[:3]},
    "inserts.prepared@duckdb": {"rows": [10, 100]},
}
#: seed 003's journal_mode x synchronous grid, on the C runtime's SQLite (no binding in the way),
#: at N below, at and above the seed's "up to about 100,000 insertions all settings are even"
INSERTS_GRIDS: dict[str, tuple[dict[str, Any], ...]] = {
    "inserts.prepared@sqlite/native*": ({"rows": [1000, 100_000, 300_000],
                                         "journal_mode": ["delete", "truncate", "persist", "memory", "wal", "off"],
                                         "synchronous": ["off", "normal", "full"]},),
}

PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", 5, 3, 120.0, ("bindings.*",), ("sqlite/*", "duckdb"),
                     {"bindings.*": {"n": 1000}, "tpch.*": {"sf": 0.01}, "micro.*": {"sf": 0.01},
                      "micro.filltable": {"rows": 1000}},
                     "seconds: a first look with an interval for every cell (5 processes: t = 4.6 at 99%)",
                     max_wait_s=2.0),
    "quick": Profile("quick", 3, 10, 300.0, ("bindings.*", "micro.*", "tpch.*"), ("sqlite/*", "duckdb"),
                     {"tpch.*": {"sf": 0.01}, "micro.*": {"sf": 0.01}, "micro.filltable": {"rows": 10000}},
                     "minutes: the README's `make run` on the embedded engines", budget_s=2.0, max_wait_s=2.0),
    "paper": Profile("paper", 3, 10, 1800.0, ("bindings.*", "micro.*", "tpch.*"), ("*",),
                     {"tpch.*": {"sf": 0.1}, "micro.*": {"sf": 0.1}},
                     "adaptive: until each cell's 99% interval is within +-2%, at most 300 s per cell once it has 10 processes",
                     budget_s=2.0, target_ci_pct=2.0, max_time_s=300.0, min_processes=10),
    "sqpyte": Profile("sqpyte", 5, 50, 1800.0, ("bindings.*", "micro.*", "tpch.*"), ("*",),
                      {"tpch.*": {"sf": 1}, "micro.*": {"sf": 1}},
                      "the SQPyte paper's fixed protocol: 5 fresh processes x 50 iterations, SF 1"),
    "inserts": Profile("inserts", 3, 3, 300.0, ("inserts.*",),
                       ("sqlite/*", "duckdb*", "postgresql/*", "mariadb/*"), INSERTS_PARAMS,
                       "E4 at quick size: N = 10 .. 1,000,000 for SQLite's prepared inserts (multi-row ones to 100,000) and the bulk paths, "
                       "capped where one iteration takes seconds (autocommit at 100; see INSERTS_PARAMS), and "
                       "the journal_mode x synchronous grid in C at N = 1,000 .. 300,000 (INSERTS_GRIDS)",
                       budget_s=0.3, grids=INSERTS_GRIDS),
}


def names_cell(pattern: str, benchmark: str, engine: str) -> bool:
    """Whether `BENCHMARK_GLOB[@ENGINE_GLOB]` names this benchmark on this engine (no engine: any)."""
    bench_glob, _, engine_glob = pattern.partition("@")
    return fnmatchcase(benchmark, bench_glob) and (not engine_glob or fnmatchcase(engine, engine_glob))


def params_for(profile: Profile, benchmark: str, defaults: dict[str, Any], engine: str = "") -> dict[str, Any]:
    """Defaults overridden by every profile entry whose pattern matches, in order. A pattern is a
    benchmark glob, or `BENCHMARK_GLOB@ENGINE_GLOB` for one engine's values (e.g. a smaller N where
    an engine is slow). A value may be a list: a sweep (one cell per value, see plan.cell_params)."""
    params = dict(defaults)
    for pattern, override in profile.params.items():
        if names_cell(pattern, benchmark, engine):
            params.update({k: v for k, v in override.items() if k in defaults})
    return params
