"""The studies, one module each: load its runs once (a RunSet), compute once, and return the
tables, figures and paper blocks it owns (`compute(runs, figures_dir, baseline) -> StudyResult`).

STUDIES maps a study's name to its label; each has a notebook of the same name. `study(name)`
gives its `Study`: the one way the report, the explorer and the tests reach a study's module, its
benchmark family (`prefix`) and its `compute`. ACROSS_RUNS names the studies that choose their
own runs instead of every run of the main reference: a timeline of runs (`history`:
`compute(run_dirs, figures_dir, ...)`), or the runs that hold their cells (`h2`: the E2 and E3
runs; `haskell`: the E1 run); views that pool runs (the HTML report, the explorer) leave them out.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

# RunSet and StudyResult are not imported here (common imports this package): annotated as Any
RunSet = StudyResult = Any

STUDIES = {"bindings": "E1", "micro": "E2", "tpch": "E3", "inserts": "E4", "app": "E5", "ramsql": "E6",
           "history": "E7", "h2": "E2/E3 on H2", "haskell": "E1 in Haskell"}
#: studies that read runs of their own (not the main reference): the report and the explorer skip them
ACROSS_RUNS = {"history", "h2", "haskell"}


class FamilyModule(Protocol):
    """What a study module of one benchmark family offers (checked by tests/unit/test_studies_interface.py)."""

    PREFIX: str

    def compute(self, runs: RunSet, figures_dir: Path | str, baseline: str = ...) -> StudyResult: ...


@dataclass(frozen=True)
class Study:
    """One study: its module's name, its label in the paper, and whether it reads runs of its own."""

    name: str
    label: str

    @property
    def across_runs(self) -> bool:
        return self.name in ACROSS_RUNS

    @property
    def module(self) -> ModuleType:
        """The study's module, imported on first use (the registry itself imports no study)."""
        return importlib.import_module(f"harness.studies.{self.name}")

    @property
    def prefix(self) -> str:
        """The benchmark family the study owns (`bindings.`); a study across runs has none."""
        if self.across_runs:
            raise TypeError(f"study {self.name} reads runs of its own and owns no single family")
        return self.module.PREFIX

    def has_cells(self, benchmarks: set[str]) -> bool:
        return any(b.startswith(self.prefix) for b in benchmarks)

    def compute(self, runs: RunSet, figures_dir: Path | str, baseline: str) -> StudyResult:
        """The study over `runs` against `baseline` (a family study only)."""
        if self.across_runs:
            raise TypeError(f"study {self.name} reads runs of its own: call its module's compute")
        return self.module.compute(runs, figures_dir, baseline)


def study(name: str) -> Study:
    """The study called `name`; a KeyError names the studies there are."""
    if name not in STUDIES:
        raise KeyError(f"no study {name!r}; studies: {', '.join(STUDIES)}")
    return Study(name, STUDIES[name])


def family_studies() -> dict[str, str]:
    """The studies of one benchmark family each (a `PREFIX`, `compute(runs, figures_dir, baseline)`)."""
    return {name: label for name, label in STUDIES.items() if name not in ACROSS_RUNS}
