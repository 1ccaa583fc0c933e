"""E6's diagnosis: does `go test` time a benchmark slower after the other benchmarks of its process?

Why: in the E6 run, `go test -bench .` timed RamSQL's select over 10,000 rows 2 to 3 times slower than
the worker's fresh processes, on the same host, while SQLite's select agreed. One thing the two harnesses
do differently is process history: `go test -bench .` runs every E6 benchmark one after another in one
process (RamSQL's in-memory databases and the garbage they leave stay in its heap), the worker starts each
process fresh. The diagnosis runs the same `go test` on that select alone (`-bench Select10KFixed`) and
after every other benchmark (`-bench .`), sessions alternated, and sets the two side by side: a ratio
whose interval excludes 1 says the process's history moves go test's time, by how much, and how much of
the harnesses' gap it can account for. The sessions are `harness gobench` runs in
`data/reference-e6-diagnosis/`.
"""
from __future__ import annotations

import re
from pathlib import Path

from harness.analysis.runset import RunSet, manifest_of, runs_under
from harness.analysis.stats.intervals import combine_log_ratios
from harness.fsutil import PROJECT_ROOT

DIAGNOSIS_DIR = PROJECT_ROOT / "data" / "reference-e6-diagnosis"
#: the benchmark the diagnosis times, by its go test name (RamSQL<name>, SQLite<name>)
NAME = "Select10KFixed"
ENGINES = (("RamSQL", "RamSQL"), ("SQLite", "SQLite through the seed's pure-Go driver"))


def _command(run: Path) -> str:
    """The `go test` command a `harness gobench` run's manifest records ("" when it records none)."""
    manifest = manifest_of(run)
    return str(((manifest.to_dict().get("source") or {}) if manifest else {}).get("go_test") or "")


def sessions(folder: Path = DIAGNOSIS_DIR) -> tuple[list[Path], list[Path]]:
    """The diagnosis sessions: (those that ran the benchmark alone, those that ran every benchmark, `-bench .`),
    told apart by the `go test` command each run's manifest records."""
    if not Path(folder).is_dir():
        return [], []
    alone, after = [], []
    for run in runs_under(folder):
        bench = re.search(r"-bench (\S+)", _command(run))
        if bench is None:
            continue
        (after if bench.group(1) == "." else alone).append(run)
    return alone, after


def effect(like: RunSet, folder: Path = DIAGNOSIS_DIR) -> list[tuple[str, float, float, tuple[float, float, float]]]:
    """Per engine: (its words, mean seconds per operation alone, after the others, after / alone with its
    interval: t on the log scale over the two groups' samples, one `go test` result line a sample). Empty
    without both kinds of session."""
    alone, after = sessions(folder)
    if not alone or not after:
        return []
    groups = [RunSet(runs, method=like.method, confidence=like.confidence, resamples=like.resamples,
                     seed=like.seed) for runs in (alone, after)]
    boots = [g.boots() for g in groups]
    out = []
    for prefix, words in ENGINES:
        keys = [next((k for k in b if k[0] == f"{prefix}{NAME}"), None) for b in boots]
        if None in keys:
            continue
        a, b = boots[0][keys[0]], boots[1][keys[1]]
        out.append((words, a.mean, b.mean, combine_log_ratios([(b, a)], like.confidence)))
    return out


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} µs"


def text(like: RunSet, gap: list[tuple[str, str, float, float, float]], folder: Path = DIAGNOSIS_DIR,
         e6_cpu: str = "") -> str:
    """Appendix B.7's paragraph: the diagnosis's ratios per engine, and set beside the harnesses' gap on RamSQL
    (`gap`: `ramsql.harness_ratios`' rows) how much of it the process's history accounts for; `e6_cpu`: the CPU
    model the E6 run names, to say whether the diagnosis ran on the same kind of machine. "" without the
    diagnosis."""
    from harness.studies.common import cpu_model

    found = effect(like, folder)
    if not found:
        return ""
    alone, after = sessions(folder)
    conf = f"{like.confidence:.0%}"
    parts = []
    for words, a, b, (r, lo, hi) in found:
        said = (f"{r:.2f}x [{lo:.2f}, {hi:.2f}] slower" if lo > 1 else f"{1 / r:.2f}x [{1 / hi:.2f}, {1 / lo:.2f}] "
                "faster" if hi < 1 else f"{r:.2f}x [{lo:.2f}, {hi:.2f}], not told apart")
        parts.append(f"{words} {_us(a)} alone and {_us(b)} after the others ({said})")
    ram = next((x for x in found if x[0] == ENGINES[0][1]), None)
    gaps = [(est, lo, hi) for engine, _, est, lo, hi in gap if engine.startswith("ramsql")]
    share = ""
    if ram is not None and gaps and ram[3][1] > 1:
        g = " and ".join(f"{est:.2f}x" for est, _, _ in gaps)
        below = ram[3][2] < min(est for est, _, _ in gaps)
        share = (" So the benchmarks before it slow go test's RamSQL" + (
            f", but less than go test's gap to the worker in the E6 run ({g}; the ratio's upper bound lies below "
            "both): the process's history accounts for part of that gap, and the rest is not explained here."
            if below else f", by about go test's gap to the worker in the E6 run ({g})."))
    elif ram is not None:
        share = " So the benchmarks before it do not measurably slow go test's RamSQL here."
    days = sorted({str(manifest_of(r).to_dict().get("started", ""))[:10] for r in alone + after} - {""})
    cpus = {cpu_model(r) for r in alone + after} - {""}
    where = (f"on the E6 run's kind of machine ({e6_cpu})" if e6_cpu and cpus == {e6_cpu} else
             f"on {', '.join(sorted(cpus)) or 'an unrecorded machine'}")
    command = _command(after[0]).replace("/usr/local/go/bin/", "")
    return (f"*Does go test's process history slow RamSQL?* {where[:1].upper() + where[1:]}, on "
            f"{', '.join(days) or 'an unrecorded day'}, `{command}` and the same with `-bench {NAME}` alone ran in "
            f"{len(alone) + len(after)} alternated sessions (`data/reference-e6-diagnosis/`). The select over 10,000 "
            f"rows per operation (means; after / alone with its {conf} CI, each result line a sample): "
            f"{'; '.join(parts)}.{share}")
