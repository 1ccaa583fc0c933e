"""The environment the runs were measured in, as two tables read from the runs' manifests only.

A reader who wants to repeat or judge a number needs the machine (CPU, cores, memory, kernel, the
frequency governor and turbo state, the clock cycles are derived from) and, per engine and runtime,
the versions and the configuration (compiler and flags, server settings). Nothing here is typed
in: each value is what `manifest.json` recorded, and a value that differs between runs is listed
with the runs that had it.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from harness.record import Manifest

#: server settings shown (the ones that decide durability and memory); the manifest has them all
SERVER_KEYS = ("fsync", "synchronous_commit", "full_page_writes", "shared_buffers", "jit",
               "innodb_flush_log_at_trx_commit", "innodb_buffer_pool_size", "innodb_doublewrite", "log_bin")


def _governor(m: Manifest) -> str:
    cpu = m.machine.get("cpu", {})
    if cpu.get("governor"):
        return str(cpu["governor"])
    advice = next((str(d.get("advice")) for d in m.doctor or [] if d.get("check") == "governor"), "")
    return f"not readable ({advice.split(';')[0]})" if advice else "not readable"


def machine_facts(m: Manifest) -> dict[str, str]:
    """One run's machine: item -> value, as recorded."""
    mach = m.machine
    cpu = mach.get("cpu", {})
    clock = m.cpu_clock or {}
    mem = mach.get("memory_bytes")
    return {
        "CPU": f"{cpu.get('model')}, {cpu.get('cores')} cores",
        "memory": f"{mem / 2**30:.1f} GiB" if isinstance(mem, (int, float)) else "not recorded",
        "kernel": str(mach.get("kernel")),
        "operating system": str(mach.get("os")),
        "frequency governor": _governor(m),
        "turbo": "not readable" if cpu.get("turbo") is None else str(cpu.get("turbo")),
        "CPU clock": (f"{clock['hz'] / 1e9:.3f} GHz as reported by {clock.get('source')}" if clock.get("hz")
                      else "unknown"),
        "cycle counter": ("yes (perf)" if clock.get("source") == "perf" else
                          "none: no cycles are reported (" + ("; ".join(clock.get("notes") or []) or "not recorded")
                          + ")"),
        "harness Python": str((m.python or {}).get("version", "")).split(" (")[0],
    }


def _transport(server: dict[str, Any]) -> str:
    """How the driver reached the server, without the run's temporary path."""
    t = str(server.get("transport") or "")
    return "a unix socket" if server.get("listen") == "unix" or ".sock" in t else (t.split(" /")[0] or "?")


def _settings(server: dict[str, Any]) -> str:
    got = server.get("settings") or {}
    shown = ", ".join(f"{k}={got[k]}" for k in SERVER_KEYS if k in got)
    return f"{server.get('settings_name', '')} ({shown})" if shown else str(server.get("settings_name", ""))


def engine_facts(m: Manifest) -> dict[tuple[str, str], tuple[str, str]]:
    """One run's available engines: (engine, runtime) -> (versions, configuration)."""
    out = {}
    for key, info in sorted((m.engines or {}).items()):
        if not info.get("available"):
            continue
        versions = "; ".join(f"{k} {v}" for k, v in (info.get("versions") or {}).items())
        build = info.get("build") or {}
        config = []
        if build.get("compiler_version"):
            config.append(f"built with {build['compiler_version']} {build.get('flags', '')}".strip())
        elif build.get("flags"):
            config.append(f"build flags {build['flags']}")
        if info.get("server"):
            config.append(f"server {_settings(info['server'])}, over {_transport(info['server'])}")
        elif info.get("storage"):
            config.append(str(info["storage"]))
        out[(key.split("@")[0], str(info.get("runtime")))] = (versions, "; ".join(config))
    return out


def _runs(ids: list[str], total: int) -> str:
    return "all" if len(ids) == total else ", ".join(f"`{i}`" for i in ids)


def _label(ids: list[str], studies: dict[str, str]) -> str:
    """A column's head: the studies its runs measured and how many runs (`studies`: run id -> label)."""
    what: list[str] = []
    for i in ids:
        for part in str(studies.get(i, "")).split(", "):
            if part and part not in what:
                what.append(part)
    what.sort(key=lambda w: (not w.startswith("E"), w))
    n = f"{len(ids)} run{'s' if len(ids) != 1 else ''}"
    return f"{', '.join(what)} ({n})" if what else n


#: what tells two machines apart; the rest of `machine_facts` is said of the machine's measured runs
MACHINE_IDENTITY = ("CPU", "memory", "kernel", "operating system")


def machine_table(manifests: list[Manifest], studies: dict[str, str] | None = None) -> str:
    """item | value (one column per distinct machine, headed by the studies and runs that ran on it):
    a value is never said of every run when another run recorded another. With one machine, one
    value column (`all N runs`)."""
    studies = studies or {}
    groups: dict[tuple, list[str]] = defaultdict(list)
    facts: dict[tuple, dict[str, str]] = {}
    imported: dict[tuple, int] = defaultdict(int)
    # an imported run (another tool's output) records less than a measured one: it is set beside the measured
    # runs of the machine it names (CPU, memory, kernel, system), not given a column of its own for what it lacks
    ordered = sorted(manifests, key=lambda m: bool(m.imported))
    for m in ordered:
        f = machine_facts(m)
        key = tuple(f[k] for k in MACHINE_IDENTITY)
        if m.imported:
            imported[key] += 1
            if key in facts:
                groups[key].append(str(m.run_id))
                continue
            f["harness Python"] = "not used (imported: the tool's own output)"
        facts.setdefault(key, f)
        groups[key].append(str(m.run_id))
    for key, n in imported.items():
        if n < len(groups[key]) and key in facts:
            facts[key] = {**facts[key], "harness Python": f"{facts[key]['harness Python']} ({n} imported "
                                                          f"run{'' if n == 1 else 's'}: not used)"}
    keys = list(groups)
    heads = ([f"all {len(manifests)} runs"] if len(keys) == 1 else [_label(groups[k], studies) for k in keys])
    lines = ["| item | " + " | ".join(h.replace("|", "/") for h in heads) + " |",
             "|---|" + "---|" * len(keys)]
    for item in facts[keys[0]]:
        lines.append(f"| {item} | " + " | ".join(facts[k][item].replace("|", "/") for k in keys) + " |")
    if len(keys) > 1:
        lines.append("| runs | " + " | ".join(", ".join(f"`{i}`" for i in groups[k]) for k in keys) + " |")
    return "\n".join(lines)


def engine_table(manifests: list[Manifest]) -> str:
    """engine | runtime | versions | configuration | runs: every distinct record."""
    seen: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for m in manifests:
        for (engine, runtime), (versions, config) in engine_facts(m).items():
            seen[(engine, runtime, versions, config)].append(str(m.run_id))
    lines = ["| engine | runtime | versions | configuration | runs |", "|---|---|---|---|---|"]
    for (engine, runtime, versions, config), ids in sorted(seen.items()):
        cells = [c.replace("|", "/") for c in (engine, runtime, versions, config)]
        lines.append(f"| {' | '.join(cells)} | {len(ids)} of {len(manifests)} |")
    return "\n".join(lines)


def run_studies(runs: Any) -> dict[str, str]:
    """run id -> the studies it measured (`E1, E4`), or `E6's go test sessions` for an imported run."""
    from pathlib import Path

    from harness.studies import STUDIES
    from harness.studies.common import measured_families

    out = {}
    for d, m in zip(runs.run_dirs, runs.manifests()):
        if m.imported:
            out[str(m.run_id)] = "E6's go test sessions"
        else:
            fams = measured_families(Path(d))
            out[str(m.run_id)] = ", ".join(STUDIES.get(f, f) for f in fams)
    return out


def markdown(manifests: Iterable[Manifest], studies: dict[str, str] | None = None, with_history: bool = False) -> str:
    """Both tables with their captions, from the runs' manifests (`RunSet.manifests()`): the machine of
    every run, imported ones too (they may have run on another machine), per run when they differ;
    the engines of the measured runs (an imported run records none). `studies`: run id -> label."""
    manifests = list(manifests)
    if not manifests:
        return "_no runs_"
    measured = [m for m in manifests if not m.imported] or manifests
    imported = len(manifests) - len(measured) if len(measured) < len(manifests) else 0
    which = (f"{len(manifests)} runs ({len(measured)} measured by the harness, {imported} imported)" if imported
             else f"{len(manifests)} measured runs")
    return (machine_table(manifests, studies) + f"\n\nTable: The machine, as the manifests of the {which} recorded "
            "it, one column per machine when they differ (headed by the studies that ran on it)"
            + ("; E7's history runs, some made on other machines, are listed in Appendix B.8 and counted in Section "
               "2.6" if with_history else "") + ".\n\n"
            + engine_table(measured)
            + f"\n\nTable: Engines and runtimes of the {len(measured)} measured runs (imported `go test` runs "
            "record no engine): versions as each engine's probe reported them, configuration as built or "
            "started by the harness (server settings read back from the server; the manifest has all of "
            "them).")


def hosts_sentence(manifests: Iterable[Manifest], studies: dict[str, str] | None = None) -> str:
    """Section 2.6's first sentence, from the manifests: how many machines (CPU model and kernel) the runs
    were measured on, which studies ran on each, and what none of them offered (a readable frequency
    governor, a cycle counter)."""
    manifests = list(manifests)
    if not manifests:
        return "_No runs, so no machine._"
    studies = studies or {}
    facts = [machine_facts(m) for m in manifests]
    hosts: dict[tuple[str, str], list[str]] = {}
    for m, f in zip(manifests, facts):
        names = hosts.setdefault((f["CPU"], f["kernel"]), [])
        for part in studies.get(str(m.run_id), str(m.run_id)).split(", "):
            if part not in names:
                names.append(part)
    no_governor = all(f["frequency governor"].startswith("not readable") for f in facts)
    no_cycles = all(f["cycle counter"].startswith("none") for f in facts)
    lacks = [w for w, missing in (("no readable frequency governor", no_governor), ("no cycle counter", no_cycles))
             if missing]
    each = (f", each with {' and '.join(lacks)}" + (" (so no result is given in cycles)" if no_cycles else "")
            if lacks else "")
    if len(hosts) == 1:
        (cpu, kernel), _ = next(iter(hosts.items()))
        return f"Every run was measured on one virtual machine, {cpu} (kernel {kernel}){each}."

    def order(name: str) -> tuple:
        m = re.match(r"E(\d+)(.*)", name)
        return (int(m.group(1)), m.group(2)) if m else (99, name)

    def named(names: list[str]) -> str:
        # a host that ran every listed study's replicate says so once instead of naming each replicate
        reps = [n for n in names if n.endswith(" replicate")]
        if len(reps) > 1 and all(n[: -len(" replicate")] in names for n in reps):
            rest = sorted((n for n in names if n not in reps), key=order)
            return f"{', '.join(rest)}, and the replicates of {len(reps)} of them (Appendix B.10)"
        return ", ".join(sorted(names, key=order))

    listed = "; ".join(f"{cpu} (kernel {kernel}): {named(names)}" for (cpu, kernel), names in hosts.items())
    return (f"The runs were measured on {len(hosts)} virtual machines{each}: {listed}. A ratio is always taken "
            "on one machine, and within one run except in two of seed 002's claims, which set a step's run over the "
            "same sitting's main runs: the scrypt claim's hashed insertions over the unhashed ones, and the corpus "
            "claim's LG2 cells over SM's; a comparison of two runs on different machines is said to be one.")


# --- versions for the like-for-like rule of the seeds' verdicts (verdicts.like_for_like) ---

def engine_versions(runs: Any) -> dict[tuple[str, str], str]:
    """(engine, runtime) -> the versions its probe reported, from the runs' manifests ({} without runs)."""
    out: dict[tuple[str, str], str] = {}
    for m in (runs.manifests() if runs is not None else []):
        for key, (versions, _) in engine_facts(m).items():
            out.setdefault(key, versions)
    return out


def version_of(versions: dict[tuple[str, str], str], engine: str, name: str, runtime: str = "") -> str:
    """The version `name` (e.g. "sqlite", "github.com/proullon/ramsql") of `engine` (on a runtime
    starting with `runtime`) as recorded, or "unrecorded". The name's case is not the probe's business (PostgreSQL's
    server reports "PostgreSQL 15.20"; review 87 found it "unrecorded" beside Appendix E's 15.20)."""
    for (e, rt), text in versions.items():
        if e == engine and rt.startswith(runtime):
            m = re.search(rf"(?<![\w./-]){re.escape(name)} (v?[0-9][\w.]*)", text, flags=re.IGNORECASE)
            if m:
                return m.group(1)
    return "unrecorded"


def sqlite_build(runs: Any, spec: str) -> str:
    """The SQLite version `spec` (`ENGINE@RUNTIME`) linked in these runs, as its manifest recorded it."""
    engine, _, runtime = spec.partition("@")
    return version_of(engine_versions(runs), engine, "sqlite", runtime)


def runtime_of(versions: dict[tuple[str, str], str], engine: str, runtime: str) -> str:
    """The full runtime label (e.g. cpython3.11.7) of `engine` on a runtime starting with `runtime`."""
    return next((rt for e, rt in versions if e == engine and rt.startswith(runtime)), f"{runtime} (unrecorded)")


def our_machine(runs: Any) -> str:
    """The CPU these runs' own measurements were made on, as the manifests recorded it (runs imported
    from another tool's output, made elsewhere, count only when nothing else is there)."""
    every = runs.manifests() if runs is not None else []
    measured = [m for m in every if not m.imported] or every
    cpus = sorted({machine_facts(m)["CPU"] for m in measured})
    return "; ".join(cpus) or "unrecorded"
