"""Registry of workloads (worker side: standard library only).

Families are modules listed in FAMILIES; each exports WORKLOADS. A family whose module is not
there yet is skipped, so the registry never breaks on a partial checkout.
"""
from __future__ import annotations

import fnmatch
import importlib
from typing import Dict, List

from harness.workloads.base import Workload

FAMILIES = ["bindings", "micro", "tpch", "inserts", "app", "ramsql", "selftest"]

_REGISTRY: Dict[str, Workload] = {}


def all_workloads() -> Dict[str, Workload]:
    if not _REGISTRY:
        for family in FAMILIES:
            try:
                module = importlib.import_module("harness.workloads." + family)
            except ModuleNotFoundError as exc:
                if exc.name == "harness.workloads." + family:
                    continue
                raise
            for w in module.WORKLOADS:
                _REGISTRY[w.name] = w
    return _REGISTRY


def get(name: str) -> Workload:
    reg = all_workloads()
    try:
        return reg[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; benchmarks: {', '.join(sorted(reg))}") from None


def match(patterns: List[str], include_selftest: bool = False) -> List[str]:
    """Benchmark names matching any glob; selftest.* only when a pattern names it explicitly."""
    out = []
    for name in all_workloads():
        for p in patterns:
            if fnmatch.fnmatchcase(name, p):
                if name.startswith("selftest.") and not (include_selftest or p.startswith("selftest")):
                    continue
                out.append(name)
                break
    return out
