"""`list`: engines (with availability and why not), runtimes, benchmarks, profiles.

What it probes is remembered (`harness.run.probe_cache`) until an installed version may have
changed, so a second `list` answers in a fraction of a second; `--refresh` probes again.
"""
from __future__ import annotations

import argparse
import os
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list engines, runtimes, benchmarks and profiles")
    p.add_argument("--runtimes", default="cpython", help="runtimes to probe engines on (comma-separated; default cpython)")
    p.add_argument("--refresh", action="store_true",
                   help="probe again instead of using what an earlier list found (it is kept until something "
                        "installed changes)")
    p.set_defaults(func=run)


def _user_dsn(engine: str) -> bool:
    """Whether the engine's probe connects to a user's server (never remembered: it may go down)."""
    from harness.run.servers import DSN_ENV, family_of

    family = family_of(engine)
    return bool(family and os.environ.get(DSN_ENV.get(family, ""), ""))


def probes(pairs: list[tuple[str, str]], refresh: bool = False) -> tuple[dict[str, Any], dict[str, str | None]]:
    """({"engine@runtime": probe}, {runtime: unavailable reason or None}), from the cache where
    the installed versions are those it was made with, else probed (side by side) and kept."""
    from harness.run import probe_cache
    from harness.run.probe import probe
    from harness.run.runtimes import RUNTIMES

    use = probe_cache.enabled()
    fingerprint = probe_cache.installed_fingerprint() if use else ""
    cached = {} if refresh or not use else probe_cache.read(fingerprint)
    keys = [f"{e}@{r}" for e, r in pairs]
    found = probe_cache.remembered(keys, lambda k: probe(*k.split("@", 1)), cached.get("probes", {}),
                                   keep=lambda k: not _user_dsn(k.split("@", 1)[0]))
    reasons = probe_cache.remembered(list(RUNTIMES), lambda n: RUNTIMES[n].unavailable_reason(),
                                     cached.get("runtimes", {}))
    if use and (set(found) - set(cached.get("probes", {})) or set(reasons) - set(cached.get("runtimes", {}))):
        kept = {k: v for k, v in found.items() if not _user_dsn(k.split("@", 1)[0])}
        # a probe may have built a worker into the build caches, which the fingerprint watches:
        # the answers are kept under the state they leave, which is what the next list finds
        probe_cache.write(probe_cache.installed_fingerprint(), {"probes": {**cached.get("probes", {}), **kept},
                                        "runtimes": {**cached.get("runtimes", {}), **reasons}})
    return found, reasons


def _state(info: dict[str, Any]) -> tuple[str, str]:
    if info.get("available"):
        return "available", ", ".join(f"{k} {v}" for k, v in (info.get("versions") or {}).items())
    return "unavailable", str(info.get("reason"))


def run(args: argparse.Namespace) -> int:
    from harness import engines, workloads
    from harness.analysis.textout import Col, output_width, table
    from harness.run.plan import resolve_runtimes, split_globs
    from harness.run.profiles import PROFILES
    from harness.run.runtimes import RUNTIMES

    runtimes = resolve_runtimes(split_globs(args.runtimes) or ["cpython"])
    width = output_width()
    pairs = [(name, rt) for name, eng in engines.ENGINES.items() for rt in runtimes if rt in eng.runtimes]
    found, reasons = probes(pairs, args.refresh)
    rows = []
    for name, eng in engines.ENGINES.items():
        usable = [rt for rt in runtimes if rt in eng.runtimes]
        if not usable:
            rows.append((name, "-", "not probed", f"runs on {', '.join(eng.runtimes)} only: add --runtimes {eng.runtimes[0]}"))
        for rt in usable:
            rows.append((name, rt, *_state(found[f"{name}@{rt}"])))
    print("engines:")
    print(table([Col("engine"), Col("runtime"), Col("state", wrap=False), Col("versions, or why not")], rows, width))
    print("\nruntimes:")
    print(table([Col("runtime"), Col("state"), Col("what it is")],
                [(name, f"unavailable: {reasons[name]}" if reasons[name] else "available", rt.description)
                 for name, rt in RUNTIMES.items()], width))
    print("\nbenchmarks:")
    rows = []
    for name, w in workloads.all_workloads().items():
        params = ", ".join(f"{k}={'|'.join(map(str, w.sweep[k])) if k in w.sweep else v}"
                           for k, v in sorted(w.default_params.items()) if k in w.sweep or str(v) != "")
        rows.append((name, params, w.description))
    print(table([Col("benchmark"), Col("parameters (default)"), Col("what it measures")], rows, width))
    print("\nprofiles:")
    print(table([Col("profile"), Col("P x I", "right", wrap=False), Col("benchmarks"), Col("engines"), Col("what for")],
                [(name, f"{prof.processes} x {prof.iterations}", ", ".join(prof.benchmarks), ", ".join(prof.engines),
                  prof.description) for name, prof in PROFILES.items()], width))
    return 0
