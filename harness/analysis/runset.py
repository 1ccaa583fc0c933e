"""One or more runs loaded once, each cell split and bootstrapped once, for every view of them.

The summary, the per-family ratio tables and the figures of a study all read the same raw
timings and need the same bootstrap replicates of each cell's mean. A `RunSet` loads the runs
once and keeps each cell's replicates (drawn with the cell's own seed, so a cell's numbers do
not depend on which other cells are asked for, or in which order), so a study that shows a
summary, a ratio table and a geometric mean bootstraps every cell exactly once.
"""
from __future__ import annotations

from collections import Counter
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from harness import store
from harness.analysis.methods import DEFAULT_METHOD
from harness.run.runtimes import runtime_family  # studies read a runtime's family here

if TYPE_CHECKING:
    import pandas as pd

    from harness.analysis.series import RunSeries
    from harness.record import Manifest, Plan, ProcessRecord
    from harness.analysis.stats import CellBoot, CellSample


as_run_dirs = store.as_run_dirs  # one path, one string or a list of either
runs_under = store.runs_under  # the run directories in a folder
default_runs = store.default_runs  # the committed reference runs, or the newest run


# What a study reads of a run besides its timings, typed (`harness.record`): a study asks the
# RunSet (or these, for runs it has no RunSet of) and never reads the store or the run layer.
def manifest_of(run_dir: Path | str) -> Manifest:
    """A run's manifest, checked."""
    return store.manifest_of(Path(run_dir))


def plan_of(run_dir: Path | str) -> Plan | None:
    """A run's plan, checked; None for a run without one (an imported run)."""
    return store.plan_of(Path(run_dir))


def records_of(run_dir: Path | str) -> dict[int, ProcessRecord]:
    """A run's process records by seq, checked."""
    return store.records_of(Path(run_dir))


def process_frame(run_dirs: Path | str | Iterable[Path | str]) -> pd.DataFrame:
    """One row per process of the runs (any status; a planned process without a record:
    `incomplete`), checked against each run's plan (`store.load_process_records`)."""
    return store.load_process_records(run_dirs)


def load_raw(run_dirs: Path | str | Iterable[Path | str], benchmark: Callable[[str], bool] | None = None
             ) -> pd.DataFrame:
    """The raw rows of runs, without a RunSet's options (`store.load_runs`)."""
    return store.load_runs(run_dirs, benchmark=benchmark)


def run_cells(run_dir: Path | str) -> set[tuple]:
    """The cell keys (benchmark, params, engine, runtime family) a run planned, from its plan;
    an imported run has no planned cells: its process records name them."""
    from harness.protocol import canonical_params

    plan = plan_of(run_dir)
    cells = plan.cell_keys() if plan is not None else set()
    if cells:
        return cells
    recs = process_frame([Path(run_dir)])
    if recs.empty:
        return set()
    fams = recs["runtime_family"] if "runtime_family" in recs else recs["runtime"].astype(str).map(runtime_family)
    return set(zip(recs["benchmark"], recs["params"].map(canonical_params), recs["engine"], fams))


def is_twin(params: str) -> bool:
    """Whether a cell's canonical params (`k=v,k=v`) name an A/A twin (`run --aa`)."""
    return "aa=twin" in params.split(",")


class RunSet:
    """Runs and the statistical options every number drawn from them shares."""

    def __init__(self, run_dirs: Path | str | Iterable[Path | str], method: str = DEFAULT_METHOD,
                 confidence: float = 0.99, resamples: int = 10000, seed: int = 0, steady_state: bool = True,
                 use_cache: bool = True, keep_contaminated: bool = False, aa_twins: bool = True) -> None:
        from harness.analysis import stats
        from harness.errors import UserError

        if method not in stats.METHODS:
            raise UserError(f"unknown method {method!r}; methods: {', '.join(stats.METHODS)}")
        self.run_dirs = as_run_dirs(run_dirs)
        if not self.run_dirs:
            raise UserError("no run directory given")
        self.method = method
        self.confidence = confidence
        self.resamples = resamples
        self.seed = seed
        self.steady_state = steady_state
        #: estimate from every process, the disturbed ones too (`analysis.interference`)
        self.keep_contaminated = keep_contaminated
        #: keep the A/A twins (`run --aa`: cells whose params hold aa=twin); a study's tables leave
        #: them out (they measure the protocol, not the code) and report them in an A/A table
        self.aa_twins = aa_twins
        #: read the runs' reduced series and cells' replicates from data/cache/ (`analysis.cache`)
        self.use_cache = use_cache
        self._boots: dict[tuple, CellBoot] = {}
        self._alt_boots: dict[tuple, CellBoot] = {}
        self._raw_of: dict[tuple, pd.DataFrame] = {}
        self._manifests: dict[Path, Manifest] = {}
        #: how many times each cell was bootstrapped (once, if everything shares the cache)
        self.boot_counts: Counter = Counter()

    # -- the runs' records, read once each --
    def manifest(self, run_dir: Path | str) -> Manifest:
        """The manifest of one run (of these or any other), read once."""
        key = Path(run_dir)
        if key not in self._manifests:
            self._manifests[key] = manifest_of(key)
        return self._manifests[key]

    def manifests(self) -> list[Manifest]:
        """The runs' manifests, in the runs' order."""
        return [self.manifest(d) for d in self.run_dirs]

    def plan(self, run_dir: Path | str) -> Plan | None:
        """A run's plan (None: an imported run has none)."""
        return plan_of(run_dir)

    def records(self, run_dir: Path | str) -> dict[int, ProcessRecord]:
        """A run's process records by seq (the store reads them again only when they change)."""
        return records_of(run_dir)

    def run_cells(self, run_dir: Path | str) -> set[tuple]:
        """The cells (benchmark, params, engine, runtime family) one run planned (`run_cells`)."""
        return run_cells(run_dir)

    # -- loaded once --
    @cached_property
    def raw(self) -> pd.DataFrame:
        """Every raw row (for run-sequence plots); the statistics read `series` instead."""
        return self._no_twins(store.load_runs(self.run_dirs))

    def _no_twins(self, df: pd.DataFrame) -> pd.DataFrame:
        """`df` without the A/A twins' rows, unless they are kept."""
        if self.aa_twins or not len(df) or "params" not in df:
            return df
        return df[~df["params"].astype(str).map(is_twin)]

    def raw_of(self, *patterns: str) -> pd.DataFrame:
        """The raw rows of the benchmarks matching any of `patterns` (names or globs, e.g.
        "inserts.*"), reading only their timings files (a study that draws one family's
        run-sequence plots need not read every run's every file); from `raw` once it is loaded."""
        from fnmatch import fnmatchcase

        def wanted(b: str) -> bool:
            return any(fnmatchcase(b, p) for p in patterns)

        if "raw" in self.__dict__:
            raw = self.raw
            return raw[raw["benchmark"].map(wanted)] if len(raw) else raw
        if patterns not in self._raw_of:
            self._raw_of[patterns] = self._no_twins(store.load_runs(self.run_dirs, benchmark=wanted))
        return self._raw_of[patterns]

    @cached_property
    def series(self) -> RunSeries:
        """Per process its valid times, per cell its counts: all the statistics read (cached)."""
        from harness.analysis.series import load_series

        return load_series(self.run_dirs, use_cache=self.use_cache)

    @cached_property
    def processes(self) -> pd.DataFrame:
        return store.load_process_records(self.run_dirs)

    @cached_property
    def exclusion(self):
        """The series without the processes the runner flagged disturbed (unless kept)."""
        from harness.analysis import interference

        s = self.series
        ex = interference.exclude(s.keys, s.xs, s.steady_states(), interference.flagged(self.processes),
                                  keep=self.keep_contaminated)
        if not self.aa_twins:
            kept = [i for i, k in enumerate(ex.keys) if not is_twin(str(k[1]))]
            ex.keys, ex.xs, ex.steady = [ex.keys[i] for i in kept], [ex.xs[i] for i in kept], [ex.steady[i] for i in kept]
        return ex

    @cached_property
    def _split(self) -> tuple[dict[tuple, CellSample], dict[tuple, CellSample], pd.DataFrame]:
        from harness.analysis import stats

        s, ex = self.series, self.exclusion
        steady, every, info = stats.split_series(ex.keys, ex.xs, s.cells, s.invalid, s.outliers, ex.steady)
        if not self.aa_twins:  # the cells' bookkeeping lists the twins too
            steady = {k: v for k, v in steady.items() if not is_twin(str(k[1]))}
            every = {k: v for k, v in every.items() if not is_twin(str(k[1]))}
            if "params" in info:
                info = info[~info["params"].astype(str).map(is_twin)]
        return (steady, every, info) if self.steady_state else (every, steady, info)

    @property
    def samples(self) -> dict[tuple, CellSample]:
        """Each cell's iterations as the estimates use them (steady state unless told otherwise)."""
        return self._split[0]

    @property
    def alt_samples(self) -> dict[tuple, CellSample]:
        """The other choice of iterations (all of them, by default), shown where it disagrees."""
        return self._split[1]

    @property
    def info(self) -> pd.DataFrame:
        return self._split[2]

    @cached_property
    def machines(self) -> dict[tuple, list[str]]:
        """Per cell whose processes ran on two or more machines (each process record names its
        machine), each process's machine id: those cells get the three-level interval
        (`analysis.machines`) with the default method."""
        from harness.analysis.machines import process_machines

        if self.method != DEFAULT_METHOD:
            return {}
        machine_of: dict[tuple, str | None] = {}
        for d in self.run_dirs:
            run_id = self.manifest(d).run_id
            for rec in self.records(d).values():
                machine_of[(run_id, rec.benchmark, rec.params, rec.engine, rec.runtime, rec.process)] = rec.machine_id
        return process_machines(self.series.keys, self.series.xs, machine_of)

    # -- reduced once --
    def _reduce(self, cache: dict, samples: dict, keys: Iterable[tuple] | None, count: bool) -> dict[tuple, CellBoot]:
        from harness.analysis import stats
        from harness.analysis.machines import machine_boots

        wanted = list(samples) if keys is None else list(keys)
        missing = {k: samples[k] for k in wanted if k not in cache and k in samples}
        if missing:
            multi = {k: s for k, s in missing.items() if k in self.machines}
            plain = {k: s for k, s in missing.items() if k not in multi}
            fresh = stats.boot_cells(plain, self.method, self.resamples, self.seed, *self._replicate_cache())
            fresh.update(machine_boots(multi, self.machines, self.resamples, self.seed))
            if count:
                self.boot_counts.update(fresh.keys())
            cache.update(fresh)
        return {k: cache[k] for k in wanted if k in cache}

    def _replicate_cache(self) -> tuple:
        """(lookup, keep) of data/cache/replicates/ for boot_cells, or (None, None)."""
        from harness.analysis import replicates

        if not self.use_cache or replicates.cache_dir() is None:
            return None, None
        return (lambda k, s: replicates.lookup(k, s, self.method, self.resamples, self.seed),
                lambda k, s, reps: replicates.keep(k, s, self.method, self.resamples, self.seed, reps))

    def boots(self, keys: Iterable[tuple] | None = None) -> dict[tuple, CellBoot]:
        """Each requested cell reduced (bootstrapped) the first time it is asked for."""
        return self._reduce(self._boots, self.samples, keys, True)

    def alt_boots(self, keys: Iterable[tuple] | None = None) -> dict[tuple, CellBoot]:
        """The same for the other choice of iterations."""
        return self._reduce(self._alt_boots, self.alt_samples, keys, False)

    # -- views --
    @cached_property
    def cell_stats(self) -> pd.DataFrame:
        """Per-cell statistics (stats.SUMMARY_COLUMNS), before the run's bookkeeping is attached."""
        from harness.analysis import stats

        return stats.summary_rows(self.samples, self.info, self.method, self.confidence, self.boots(),
                                  self.resamples, self.seed, self.steady_state, self.alt_boots())

    @cached_property
    def summary(self) -> pd.DataFrame:
        """Every cell, including those that produced no timings, with status and derived rates.

        Each notebook of a paper asks for the same summary of the same runs: it is kept in
        data/cache/summary/ under a hash of the runs' bytes, the statistical options and the
        whole harness's source, for runs that are complete (an incomplete one warns as it loads)."""
        from harness.analysis import cache
        from harness.analysis.summary import attach_run_facts

        key = self._summary_key()
        if key is not None:
            hit = cache.load_frame("summary", key)
            if hit is not None:
                return hit
        df = attach_run_facts(self.cell_stats, self.series.counts_frame(), self.processes, self.run_dirs)
        df = self._no_twins(self._attach_interference(df)).reset_index(drop=True)
        if key is not None:
            cache.store_frame("summary", key, df)
        return df

    def _attach_interference(self, df: pd.DataFrame) -> pd.DataFrame:
        """Per cell: disturbed, excluded and rerun processes, and the canary-adjusted mean."""
        import math

        from harness.analysis import interference
        from harness.analysis.summary import ADAPTIVE_COLUMNS, adaptive_facts

        keys = ["benchmark", "params", "engine", "runtime"]
        ex = self.exclusion
        facts = interference.cell_facts(ex, self.processes)
        adj = interference.adjusted_rows(ex.keys, ex.xs, ex.steady, interference.canaries(self.processes),
                                         self.confidence)
        for extra in (facts, adj):
            df = df.merge(extra, on=keys, how="left")
        for c in interference.FACT_COLUMNS:
            df[c] = df[c].fillna(0).astype(int)
        adaptive = adaptive_facts(self.manifests())
        if len(adaptive) and "runtime_family" in df:
            df = df.merge(adaptive, on=["benchmark", "params", "engine", "runtime_family"], how="left")
        else:
            df = df.assign(**{c: math.nan for c in ADAPTIVE_COLUMNS[:2]}, stop="")
        df["stop"] = df["stop"].fillna("")
        return df

    def _summary_key(self) -> str | None:
        import numpy as np
        import pandas as pd

        from harness.analysis import cache

        if not self.use_cache or cache.cache_dir("summary") is None:
            return None
        if any(m.status != "complete" for m in self.manifests()):
            return None
        return cache.hash_files(store.input_files(self.run_dirs), "summary", cache.package_version(), pd.__version__,
                                np.__version__, self.method, self.confidence, self.resamples, self.seed,
                                self.steady_state, self.keep_contaminated, self.aa_twins)

    def ratio_rows(self, keys: Iterable[tuple], baseline: str, boots: Callable | None = None,
                   alt_boots: Callable | None = None) -> pd.DataFrame:
        """stats.ratio_summary of the cells `keys` (and their baselines among them). `boots`, `alt_boots`: where
        the cells' reductions come from instead of this run set's own (a wrapper that widens them)."""
        from harness.analysis import stats

        keys = [k for k in self.samples if k in set(keys)]  # the order cell_samples gives
        samples = {k: self.samples[k] for k in keys}
        return stats.ratio_rows(samples, self.info, (boots or self.boots)(keys), baseline, self.method,
                                self.confidence, self.resamples, self.seed, self.steady_state,
                                (alt_boots or self.alt_boots)(keys))


def summarize_runs(run_dirs: Path | str | Iterable[Path | str], method: str = DEFAULT_METHOD,
                   confidence: float = 0.99, resamples: int = 10000, seed: int = 0,
                   steady_state: bool = True) -> pd.DataFrame:
    """Load runs and summarise every cell, including cells that produced no timings."""
    return RunSet(run_dirs, method=method, confidence=confidence, resamples=resamples, seed=seed,
                  steady_state=steady_state).summary
