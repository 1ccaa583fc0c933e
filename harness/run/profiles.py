"""Named protocols: how many processes and iterations, which benchmarks and engines by default.

`smoke` takes seconds and exists for tests; `quick` takes minutes and is what `make run` does on
the embedded engines; `paper` runs the adaptive protocol: a pilot of 3 processes per cell, then
processes and iterations chosen by the planner until each cell's 99% interval is within +-2% of
its mean or the cell has spent its machine time. `params` override workloads' default
parameters, per benchmark glob.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


PROFILES: dict[str, Profile] = {
    "smoke": Profile("smoke", 2, 3, 120.0, ("bindings.*",), ("sqlite/*", "duckdb"),
                     {"bindings.*": {"n": 1000}, "tpch.*": {"sf": 0.01}, "micro.*": {"sf": 0.01},
                      "micro.filltable": {"rows": 1000}},
                     "seconds: for tests and a first look"),
    "quick": Profile("quick", 5, 10, 300.0, ("bindings.*", "micro.*", "tpch.*"), ("sqlite/*", "duckdb"),
                     {"tpch.*": {"sf": 0.01}, "micro.*": {"sf": 0.01}, "micro.filltable": {"rows": 10000}},
                     "minutes: the README's `make run` on the embedded engines", budget_s=2.0),
    "paper": Profile("paper", 3, 10, 1800.0, ("bindings.*", "micro.*", "tpch.*"), ("*",),
                     {"tpch.*": {"sf": 0.1}, "micro.*": {"sf": 0.1}},
                     "adaptive: until each cell's 99% interval is within +-2%, at most 300 s per cell",
                     budget_s=2.0, target_ci_pct=2.0, max_time_s=300.0),
    "sqpyte": Profile("sqpyte", 5, 50, 1800.0, ("bindings.*", "micro.*", "tpch.*"), ("*",),
                      {"tpch.*": {"sf": 1}, "micro.*": {"sf": 1}},
                      "the SQPyte paper's fixed protocol: 5 fresh processes x 50 iterations, SF 1"),
}


def params_for(profile: Profile, benchmark: str, defaults: dict[str, Any]) -> dict[str, Any]:
    from fnmatch import fnmatchcase

    params = dict(defaults)
    for pattern, override in profile.params.items():
        if fnmatchcase(benchmark, pattern):
            params.update({k: v for k, v in override.items() if k in defaults})
    return params
