"""The runner's entry to TPC-H data: make sure an engine's database exists, say what it holds.

Embedded engines get a cached database file (`harness.run.datasets.tpch`; H2's is made by the Java
program, `harness.run.datasets.tpch_h2`), server engines the data loaded into their server
(`harness.run.datasets.tpch_servers`).
"""
from __future__ import annotations

from harness import engines as engine_registry
from harness.errors import UserError
from harness.run.datasets.tpch import BUILD_VERSION, ENGINE_FAMILIES, SERVER_FAMILIES, load
from harness.run.datasets.tpch_servers import load_server

#: engine families whose file the Java program loads (runtime jvm)
JVM_FAMILIES = ("h2",)


def engine_family(engine_name: str) -> str:
    """The engine's family (the registry's), if TPC-H data can be loaded for it."""
    try:
        family = engine_registry.get(engine_name).family
    except KeyError as exc:
        raise UserError(str(exc.args[0])) from None
    if family not in ENGINE_FAMILIES + SERVER_FAMILIES + JVM_FAMILIES:
        raise UserError(
            f"TPC-H data cannot be prepared for engine {engine_name!r} yet "
            f"(supported: sqlite/..., duckdb, h2/..., postgresql/..., mariadb/...)"
        )
    return family


def prepare(engine_name: str, sf: float, indexes: bool, progress: bool = True,
            engine_config: dict | None = None) -> dict:
    """Make sure the TPC-H database for this engine exists; return what the worker and the manifest
    need: {"path", "fingerprint", "sf", "indexes", ...}. `indexes` is None for DuckDB (the setting
    does not apply: DuckDB gets no indexes at all).

    Server engines (postgresql/..., mariadb/...) load into the server their `engine_config` names;
    "path" is then the PostgreSQL schema / MariaDB database name (`tpch_sf0_01`, ...), which the
    server engines' `connect(config, workdir, database)` selects."""
    family = engine_family(engine_name)
    if family in SERVER_FAMILIES:
        info = load_server(family, sf, indexes, engine_config, progress=progress)
        return {
            "dataset": "tpch",
            "path": info["database"],
            "database": info["database"],
            "fingerprint": info["data_fingerprint"],
            "sf": float(info["sf"]),
            "indexes": bool(indexes),
            "build_version": BUILD_VERSION,
            "load_seconds": info.get("load_seconds"),
            "reused": info.get("reused"),
            "bulk_path": info.get("bulk_path"),
            "server_source": (engine_config or {}).get("source"),
        }
    if family in JVM_FAMILIES:
        from harness.run.datasets.tpch_h2 import load_h2

        info = load_h2(sf, indexes, progress=progress)
        return {"dataset": "tpch", "path": info["path"], "fingerprint": info["data_fingerprint"],
                "sf": float(info["sf"]), "indexes": bool(indexes), "build_version": BUILD_VERSION,
                "load_seconds": info.get("load_seconds")}
    info = load(family, sf, indexes, progress=progress)
    return {
        "dataset": "tpch",
        "path": info["path"],
        "fingerprint": info["data_fingerprint"],
        "sf": float(info["sf"]),
        "indexes": bool(indexes) if family == "sqlite" else None,
        "build_version": BUILD_VERSION,
        "load_seconds": info.get("load_seconds"),
    }
