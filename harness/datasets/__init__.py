"""Runner-side data set preparers: build (and cache) what workers open, before any worker starts.

A workload names its data set (`Workload.dataset`); `prepare_for` makes it for one engine and
parameter set and returns what the worker needs (`path`) and what the manifest records
(fingerprint, scale factor, settings).
"""
from __future__ import annotations

from typing import Any


def prepare_for(dataset: str, engine: str, params: dict[str, Any], progress: bool = True) -> dict[str, Any]:
    if dataset == "tpch":
        from harness.datasets import tpch

        indexes = str(params.get("indexes", "off")).lower() in ("on", "1", "true", "yes")
        return tpch.prepare(engine, float(params["sf"]), indexes, progress=progress)
    raise ValueError(f"unknown data set {dataset!r}")
