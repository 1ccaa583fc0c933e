"""Runner-side data set preparers: build (and cache) what workers open, before any worker starts.

A workload names its data set (`Workload.dataset`); `prepare_for` makes it for one engine and
parameter set and returns what the worker needs (`path`: a database file, or for a server engine
the schema/database name in the server its engine_config names) and what the manifest records
(fingerprint, scale factor, settings).
"""
from __future__ import annotations

from typing import Any


def prepare_for(dataset: str, engine: str, params: dict[str, Any], progress: bool = True,
                engine_config: dict[str, Any] | None = None) -> dict[str, Any]:
    """`engine_config` is the run's config for a server engine (its DSN): the data is loaded there."""
    if dataset == "tpch":
        from harness.run.datasets import tpch_prepare

        indexes = str(params.get("indexes", "off")).lower() in ("on", "1", "true", "yes")
        return tpch_prepare.prepare(engine, float(params["sf"]), indexes, progress=progress, engine_config=engine_config)
    raise ValueError(f"unknown data set {dataset!r}")
