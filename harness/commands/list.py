"""`list`: engines (with availability and why not), runtimes, benchmarks, profiles."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list engines, runtimes, benchmarks and profiles")
    p.add_argument("--runtimes", default="cpython", help="runtimes to probe engines on (comma-separated; default cpython)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness import engines, workloads
    from harness.run.profiles import PROFILES
    from harness.run.plan import resolve_runtimes, split_globs
    from harness.run.probe import probe
    from harness.run.runtimes import RUNTIMES

    runtimes = resolve_runtimes(split_globs(args.runtimes) or ["cpython"])
    print("engines:")
    for name, eng in engines.ENGINES.items():
        usable = [rt for rt in runtimes if rt in eng.runtimes]
        if not usable:
            print(f"  {name:22s} {'-':8s} runs on {', '.join(eng.runtimes)} only: add --runtimes {eng.runtimes[0]}")
        for rt in usable:
            info = probe(name, rt)
            if info.get("available"):
                v = info.get("versions", {})
                state = "available   " + ", ".join(f"{k} {val}" for k, val in v.items())
            else:
                state = "unavailable " + str(info.get("reason"))
            print(f"  {name:22s} {rt:8s} {state}")
    print("runtimes:")
    for name, rt in RUNTIMES.items():
        reason = rt.unavailable_reason()
        print(f"  {name:10s} {'unavailable: ' + reason if reason else 'available'}  ({rt.description})")
    print("benchmarks:")
    for name, w in workloads.all_workloads().items():
        params = ",".join(f"{k}={'|'.join(map(str, w.sweep[k])) if k in w.sweep else v}"
                          for k, v in sorted(w.default_params.items()))
        print(f"  {name:26s} {params:22s} {w.description}")
    print("profiles:")
    for name, prof in PROFILES.items():
        print(f"  {name:8s} {prof.processes} processes x {prof.iterations} iterations, "
              f"benchmarks {','.join(prof.benchmarks)}, engines {','.join(prof.engines)}: {prof.description}")
    return 0
