"""The run-to-run spread: how far each cell's mean and each within-run ratio moved between a study's run and
its replicate (the study run again in another sitting), the between-run component tau^2 that one run's intervals
leave out, and a run set whose ratios and cell means carry it (`Widened`, `with_spread`), which every study
notebook opens for the campaign's runs.

Why a module of its own: the studies read the spread for their headline sentences, while `replicate.py`, which
reports the replicates, also decides the seeds' verdicts again on them and so reads every study.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from scipy import stats as sps

from harness.analysis.runset import RunSet
from harness.fsutil import PROJECT_ROOT

#: the cell a within-run ratio is taken against, first found in the same run at the same benchmark and
#: params: the studies' baseline, then the seed's own pair where a run has no sqlite3 on CPython (E3h's
#: SQLite from PyPy, E6's pure-Go SQLite, E5's HDBC-sqlite3 built -O0 in its Haskell-only steps)
REFERENCE_CELLS = (("sqlite/sqlite3", "cpython"), ("sqlite/sqlite3", "pypy"), ("sqlite/glebarez", "go"),
                   ("sqlite/hdbc", "haskell-O0"))
#: moves columns: the study, the cell (or ratio) and what is compared, the log move, its variance from the
#: two runs' intervals, the t quantile for its Welch degrees of freedom, and whether it moved beyond
MOVE_COLUMNS = ["study", "kind", "benchmark", "params", "engine", "runtime", "first", "second", "log_move",
                "var", "t", "beyond"]


@dataclass(frozen=True)
class Pair:
    """A replicated study: its installed runs and its replicate's."""

    study: str
    runs: tuple[Path, ...]
    replicates: tuple[Path, ...]
    root: Path = PROJECT_ROOT  # the checkout whose git history tells the two commits' code apart


def pairs(root: Path = PROJECT_ROOT) -> list[Pair]:
    """The studies with a replicate installed (`data/reference*-replicate/`), in campaign order, each with
    the runs it replicates (those of the study in its own folder)."""
    from harness.analysis.campaign import replicated

    return [Pair(study, runs, reps, root) for study, runs, reps in replicated(root)]


def runs_like(run_dirs: Iterable[Path], like: RunSet) -> RunSet:
    """A RunSet of `run_dirs` with the statistical options of `like` (the paper's)."""
    return RunSet(list(run_dirs), method=like.method, confidence=like.confidence, resamples=like.resamples,
                  seed=like.seed, steady_state=like.steady_state, keep_contaminated=like.keep_contaminated,
                  aa_twins=like.aa_twins)


def ok_cells(run_dirs: Iterable[Path], like: RunSet) -> dict[tuple, tuple[object, str]]:
    """Each cell whose status is ok (a wrong answer or failure is no number), A/A twins left out, with its
    reduction (`CellBoot`) and its run's name, read run by run (a study's steps are runs of their own, and a
    within-run ratio stays inside one); cells with no valid interval left out."""
    out: dict[tuple, tuple[object, str]] = {}
    for d in run_dirs:
        runs = runs_like([d], like)
        summary = runs.summary
        ok = summary[summary["status"] == "ok"]
        keys = [k for k in ok[["benchmark", "params", "engine", "runtime"]].itertuples(index=False, name=None)
                if "aa=twin" not in str(k[1])]
        for k, b in runs.boots(keys).items():
            if b.mean > 0 and math.isfinite(b.log_var) and b.log_var > 0 and math.isfinite(b.df) and b.df > 0:
                out[k] = (b, Path(d).name)
    return out


def _reference_of(key: tuple, cells: dict[tuple, tuple[object, str]]) -> tuple | None:
    """The first of `REFERENCE_CELLS` measured in the same run at `key`'s benchmark and params (runtimes are
    named with their version, `cpython-3.11.7`: matched by family, as a baseline is), other than `key`."""
    from harness.analysis.stats import is_baseline

    bench, params = key[0], key[1]
    same = [k for k in cells if k[0] == bench and k[1] == params and k != key and cells[k][1] == cells[key][1]]
    for ref_engine, ref_runtime in REFERENCE_CELLS:
        found = sorted(k for k in same if is_baseline(k[2], k[3], f"{ref_engine}@{ref_runtime}"))
        if found:
            return found[0]
    return None


def _welch_t(parts: list, confidence: float) -> float:
    """The two-sided t quantile for a sum of independent log variances with their degrees of freedom."""
    var = sum(b.log_var for b in parts)
    df = var ** 2 / sum(b.log_var ** 2 / b.df for b in parts)
    return float(sps.t.ppf(0.5 + confidence / 2, df))


def moves(study: str, first: dict[tuple, tuple[object, str]], second: dict[tuple, tuple[object, str]],
          confidence: float = 0.99) -> pd.DataFrame:
    """Per cell both runs measured validly (`ok_cells` of each): how far its mean moved (log second / first),
    and per cell with a reference cell in its run (`REFERENCE_CELLS`) in both, how far that within-run ratio
    moved; each with the variance its two runs' intervals give it and whether it moved beyond them at
    `confidence`."""
    rows = []
    for key in sorted(set(first) & set(second)):
        a, b = first[key][0], second[key][0]
        rows.append(_row(study, "mean", key, a.mean, b.mean, [a, b], confidence))
        ref_a, ref_b = _reference_of(key, first), _reference_of(key, second)
        if ref_a is not None and ref_a == ref_b:  # the same reference cell (engine, runtime) in both runs
            ra, rb = first[ref_a][0], second[ref_b][0]
            rows.append(_row(study, "ratio", key, a.mean / ra.mean, b.mean / rb.mean, [a, ra, b, rb], confidence))
    return pd.DataFrame(rows, columns=MOVE_COLUMNS)


def _row(study: str, kind: str, key: tuple, x: float, y: float, parts: list, confidence: float) -> dict:
    d = math.log(y / x)
    var = sum(p.log_var for p in parts)
    t = _welch_t(parts, confidence)
    return dict(zip(MOVE_COLUMNS, (study, kind, *key, x, y, d, var, t, abs(d) > t * math.sqrt(var))))


def between_run_variance(log_moves: Iterable[float], variances: Iterable[float]) -> float:
    """tau^2, the variance one run adds to a log mean (or log ratio), from K moves between two runs:
    each move d_k has variance v_k + 2 tau^2 (v_k from the two runs' intervals, tau^2 for each run), its
    expectation zero. DerSimonian and Laird's moment estimator with the mean fixed at zero:
    Q = sum w_k d_k^2 with w_k = 1/v_k has expectation K + 2 tau^2 sum w_k, so
    tau^2 = max(0, (Q - K) / (2 sum w_k)). nan with no move."""
    d = np.asarray(list(log_moves), dtype=float)
    v = np.asarray(list(variances), dtype=float)
    if d.size == 0:
        return math.nan
    w = 1.0 / v
    q = float(np.sum(w * d * d))
    return max(0.0, (q - d.size) / (2.0 * float(np.sum(w))))


def between_run_variance_interval(log_moves: Iterable[float], variances: Iterable[float],
                                  confidence: float = 0.99) -> tuple[float, float]:
    """(low, high) of tau^2 at `confidence` by the Q-profile method (Viechtbauer 2007), the mean fixed at zero as
    in `between_run_variance`: Q(t) = sum d_k^2 / (v_k + 2 t) is chi-square with K degrees of freedom at the true
    t and falls as t grows, so the interval holds every t whose Q(t) lies between the two chi-square quantiles
    (a bound is 0 where even Q(0) does not reach its quantile). One pair of runs gives one estimate of tau; this
    says how far it could be off. (nan, nan) with no move."""
    from scipy.optimize import brentq

    d = np.asarray(list(log_moves), dtype=float)
    v = np.asarray(list(variances), dtype=float)
    if d.size == 0:
        return math.nan, math.nan

    def q(t: float) -> float:
        return float(np.sum(d * d / (v + 2.0 * t)))

    def solve(target: float) -> float:
        if q(0.0) <= target:
            return 0.0
        hi = max(float(np.max(d * d)), 1e-12)
        while q(hi) > target:  # Q falls towards 0: widen the bracket until it crosses
            hi *= 4.0
        return float(brentq(lambda t: q(t) - target, 0.0, hi))

    k = d.size
    return (solve(float(sps.chi2.ppf(0.5 + confidence / 2, k))), solve(float(sps.chi2.ppf(0.5 - confidence / 2, k))))


def widening(variances: Iterable[float], tau2: float) -> np.ndarray:
    """By what factor each one-run interval (log variance v) widens with tau^2 added: sqrt(1 + tau^2 / v)."""
    v = np.asarray(list(variances), dtype=float)
    return np.sqrt(1.0 + tau2 / v)

def all_moves(found: list[Pair], like: RunSet) -> pd.DataFrame:
    """`moves` of every replicated study."""
    frames = [moves(p.study, ok_cells(p.runs, like), ok_cells(p.replicates, like), like.confidence) for p in found]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=MOVE_COLUMNS)

def moves_of(runs: RunSet, root: Path = PROJECT_ROOT) -> tuple[list[Pair], pd.DataFrame]:
    """The replicated studies beside `runs` and every move (`all_moves`), read once per run set: the studies
    of one paper share it (the verdicts' replicate, the ratios' run-to-run spread). Empty for any runs but the
    campaign's installed runs of a replicated study (`in_campaign`: a run's own report has no replicate). Kept on
    the run set under any `Widened` wrapper, so the wrapper and the verdicts' one-run set share one reading."""
    runs = one_run(runs)
    if not in_campaign(runs, root):
        return [], pd.DataFrame(columns=MOVE_COLUMNS)
    cache = runs.__dict__.setdefault("_replicate_moves", {})
    if root not in cache:
        found = pairs(root)
        cache[root] = (found, all_moves(found, runs))
    return cache[root]


def in_campaign(runs: RunSet, root: Path = PROJECT_ROOT) -> bool:
    """Whether every run of `runs` is installed in the folder of a study with a replicate (data/reference/ for
    the main runs, data/reference-h2/ for E3h's, ...): only their ratios have a measured run-to-run spread."""
    from harness.analysis.campaign import folder_of

    folders = {(root / folder_of(p.study)).resolve() for p in pairs(root)}
    return bool(runs.run_dirs) and all(Path(d).resolve().parent in folders for d in runs.run_dirs)


def tau2_upper_by_family(m: pd.DataFrame, confidence: float = 0.99, kind: str = "ratio") -> dict[str, float]:
    """As `tau2_by_family`, each family's between-run variance at its Q-profile upper bound
    (`between_run_variance_interval`): one pair of runs gives one estimate of tau, and a verdict that holds
    only at the estimate is read again at the bound (`sensitivity`'s reading)."""
    return _by_family(m, kind, lambda d, v: between_run_variance_interval(d, v, confidence)[1])


def tau2_by_family(m: pd.DataFrame, kind: str = "ratio") -> dict[str, float]:
    """Each benchmark family's between-run variance of a within-run log ratio (`kind` "mean": of a cell's log
    mean): the tau^2 of the replicated study whose moves hold it (the largest where several do, as E3 and E3h
    both hold TPC-H); a family no replicate measured is absent."""
    return _by_family(m, kind, between_run_variance)


def _by_family(m: pd.DataFrame, kind: str, estimate) -> dict[str, float]:
    """`estimate(log moves, variances)` per replicated study, given to each benchmark family its moves hold (the
    largest where several studies hold one)."""
    from harness.studies.runfacts import family

    out: dict[str, float] = {}
    ratios = m[m["kind"] == kind] if len(m) else m
    for _, rows in (ratios.groupby("study") if len(ratios) else []):
        t2 = estimate(rows["log_move"], rows["var"])
        if math.isfinite(t2):
            for f in {family(b) for b in rows["benchmark"]}:
                out[f] = max(out.get(f, 0.0), t2)
    return out


class Widened:
    """`runs` with the between-run component added to every ratio it forms: each cell carries tau^2 / 2 of its
    benchmark family's study (`tau2_by_family`) as its `between_var`, so a ratio of two cells of one run gains the
    tau^2 its replicate measured, the interval one run would need to cover a second run too (a geometric mean
    over K benchmarks gains tau^2 / K: the replicates' geometric means moved within their one-run intervals,
    Appendix B.10). Both choices of iterations are widened alike; everything else is `runs`' own, and a cell of a
    family no replicate measured is left as it is.

    A cell's own mean, time or rate (the `summary`'s intervals) gains instead the between-run variance of a cell
    mean (`mean_tau2`, from the same replicates): a sitting moves every cell by the host's speed, which a ratio
    within the run cancels and an absolute number does not (E1's cell means moved a median 20%)."""

    #: what an interval from these cells is said to be beside its confidence ("99% CI with ...")
    spread = "with the run-to-run spread"

    def __init__(self, runs: RunSet, tau2: dict[str, float], mean_tau2: dict[str, float] | None = None) -> None:
        self._runs, self._tau2, self._mean_tau2 = runs, tau2, mean_tau2 or {}
        self._widened: dict[tuple, object] = {}  # one object per cell: a cell used twice is one term
        self._summary: pd.DataFrame | None = None

    def __getattr__(self, name: str):
        inner = getattr(self._runs, name)
        if name == "alt_boots":  # the other choice of iterations, widened alike (absent where `runs` has none)
            return lambda keys=None: self._wide(inner(keys), True)
        return inner

    def _wide(self, reduced: dict, alt: bool) -> dict:
        from dataclasses import replace as _replace

        from harness.studies.runfacts import family

        out = {}
        for k, b in reduced.items():
            if (alt, k) not in self._widened:
                extra = self._tau2.get(family(k[0]), 0.0) / 2
                self._widened[(alt, k)] = _replace(b, between_var=b.between_var + extra) if extra > 0 else b
            out[k] = self._widened[(alt, k)]
        return out

    def boots(self, keys=None) -> dict:
        return self._wide(self._runs.boots(keys), False)

    def ratio_rows(self, keys, baseline: str):
        """The ratio table from the widened cells, its cell means widened as the `summary`'s are."""
        rows = self._runs.ratio_rows(keys, baseline, self.boots, self.alt_boots)
        return widen_means(rows, self._mean_tau2, self._runs.confidence) if self.widens_means() else rows

    def widens_means(self) -> bool:
        """Whether a cell's own interval carries the spread too (a measured `mean_tau2`, log-symmetric intervals)."""
        return bool(self._mean_tau2) and self._runs.method == "process-bootstrap"

    @property
    def summary(self) -> pd.DataFrame:
        """`runs.summary` with each cell's interval (steady-state and all iterations alike) widened on the log
        scale by its family's `mean_tau2`: the t interval's log half-width t * se becomes t * sqrt(se^2 + tau^2),
        around the same mean; the † flag is decided again on the widened intervals. Only the process-bootstrap
        method's intervals are log-symmetric; the others are left as they are."""
        if self._summary is None:
            self._summary = (widen_means(self._runs.summary, self._mean_tau2, self._runs.confidence)
                             if self.widens_means() else self._runs.summary)
        return self._summary


def means_spread(runs: RunSet) -> str:
    """", with the run-to-run spread" for run sets whose cell intervals carry it (`Widened.summary`), for a caption
    of absolute numbers beside its method; "" for one run's."""
    return f", {Widened.spread}" if isinstance(runs, Widened) and runs.widens_means() else ""


def widen_means(summary: pd.DataFrame, mean_tau2: dict[str, float], confidence: float) -> pd.DataFrame:
    """A summary whose cell intervals add each family's between-run variance of a cell mean (`Widened.summary`)."""
    from harness.analysis.stats.cells import disagree
    from harness.studies.runfacts import family

    out = summary.copy()
    tau2 = out["benchmark"].astype(str).map(lambda b: mean_tau2.get(family(b), 0.0)).to_numpy(dtype=float)
    df = pd.to_numeric(out["df"], errors="coerce").to_numpy(dtype=float) if "df" in out else np.full(len(out), np.nan)
    t = sps.t.ppf(0.5 + confidence / 2, np.where(np.isfinite(df) & (df > 0), df, np.inf))
    for mean, low, high in (("mean_s", "ci_low_s", "ci_high_s"), ("alt_mean_s", "alt_ci_low_s", "alt_ci_high_s")):
        if not {mean, low, high} <= set(out.columns):
            continue
        m, lo, hi = (pd.to_numeric(out[c], errors="coerce").to_numpy(dtype=float) for c in (mean, low, high))
        ok = (tau2 > 0) & np.isfinite(lo) & np.isfinite(hi) & (lo > 0) & (m > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            se = np.log(hi / lo) / (2 * t)
            half = t * np.sqrt(se * se + tau2)
        out[low] = np.where(ok, m * np.exp(-half), lo)
        out[high] = np.where(ok, m * np.exp(half), hi)
    if {"disagree", "alt_mean_s"} <= set(out.columns):
        cols = [pd.to_numeric(out[c], errors="coerce").to_numpy(dtype=float)
                for c in ("mean_s", "ci_low_s", "ci_high_s", "alt_mean_s", "alt_ci_low_s", "alt_ci_high_s")]
        out["disagree"] = [disagree(*row) for row in zip(*cols)]
    return out


def with_spread(runs: RunSet, root: Path = PROJECT_ROOT) -> RunSet:
    """`runs` widened by the run-to-run spread its replicates measured (`Widened`), for every ratio and geometric
    mean the paper shows; `runs` itself where no replicate measured one, or where it is widened already."""
    if isinstance(runs, Widened):
        return runs
    found, m = moves_of(runs, root)
    here = {Path(d).resolve() for d in runs.run_dirs}
    mine = {p.study for p in found if here & {Path(d).resolve() for d in p.runs}}
    if mine and len(m):  # the spread of these runs' own studies (E3h's steady state is not E3's)
        m = m[m["study"].isin(mine)]
    return _widened_by(runs, m)


def _widened_by(runs: RunSet, m: pd.DataFrame) -> RunSet:
    """`runs` widened by the ratio and cell-mean components of the moves `m`; `runs` where they measure none."""
    tau2 = tau2_by_family(m) if len(m) else {}
    mean_tau2 = tau2_by_family(m, "mean") if len(m) else {}
    return Widened(runs, tau2, mean_tau2) if any(t > 0 for t in (*tau2.values(), *mean_tau2.values())) else runs


def borrowed_spread(runs: RunSet, campaign: RunSet, study: str, root: Path = PROJECT_ROOT) -> RunSet:
    """`runs`, a run with no replicate of its own (study E2s), widened by the run-to-run spread that `study`'s
    replicate measured on the same benchmark family (E2's), read from the campaign's runs (`campaign`); `runs`
    with one run's intervals where that study has no replicate."""
    _, m = moves_of(campaign, root)
    return _widened_by(one_run(runs), m[m["study"] == study] if len(m) else m)


def one_run(runs: RunSet) -> RunSet:
    """`runs` with one run's intervals only (`Widened` taken off): what the verdicts' rules, the A/A check, the
    precision each study achieved and the replicates' comparison are defined on."""
    while isinstance(runs, Widened):
        runs = runs._runs
    return runs


def means_note(runs: RunSet, study: str, root: Path = PROJECT_ROOT) -> str:
    """For a table of one study's absolute numbers (cell means, rates): that its intervals are one run's, and
    how far a second run of the study moved its cell means (how many beyond both intervals, the median move);
    "" where no replicate of the study was measured."""
    _, m = moves_of(runs, root)
    if not len(m):
        return ""
    rows = m[(m["kind"] == "mean") & (m["study"] == study)]
    if rows.empty:
        return ""
    moved = 100 * (np.exp(np.abs(rows["log_move"].astype(float))) - 1)
    said = (f"a second run of {study} moved {int(rows['beyond'].sum())} of {len(rows)} of its cell means more than "
            f"one run's intervals allow (median move {float(np.median(moved)):.0f}%; Appendix B.10)")
    if isinstance(runs, Widened) and runs.widens_means():
        tau = 100 * (math.exp(math.sqrt(between_run_variance(rows["log_move"], rows["var"]))) - 1)
        return (f"These intervals add the run-to-run spread of a cell mean ({tau:.0f}%), since {said}: an absolute "
                "number here is this machine's, in any sitting.")
    return f"These intervals are one run's: {said}, so an absolute number here is this sitting's."


def claim_cell_moves(before: list, after: list, confidence: float = 0.99,
                     decided: Iterable[str] = ("supported", "refuted", "inconclusive")) -> dict[str, list[tuple]]:
    """The moves of the cells the seeds' verdicts rest on, from the run (`before`, the verdict table's claims)
    to the replicate (`after`, the same claims decided on it, in the same order), by seed: (log move, its
    variance from the two intervals, read back as normal on the log scale at `confidence`). Only claims read
    on today's stack (`decided`) and cells with an interval on both sides count."""
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    out: dict[str, list[tuple]] = {}
    for c, r in zip(before, after):
        if c.verdict.word not in decided or not c.cells:
            continue
        there = {label: x for label, x, _ in r.cells}
        for label, x, _ in c.cells:
            y = there.get(label)
            if y is None or not all(math.isfinite(v) and v > 0 for v in (*x, *y)):
                continue
            var = sum((math.log(hi / lo) / (2 * z)) ** 2 for _, lo, hi in (x, y))
            if var > 0:
                out.setdefault(c.seed, []).append((math.log(y[0] / x[0]), var))
    return out


def claims_tau2(before: list, after: list, confidence: float = 0.99) -> dict[str, tuple[float, int]]:
    """Per seed, the between-run component of the cells its verdicts rest on (`claim_cell_moves`, DerSimonian
    and Laird's estimator as for the studies' ratios) and how many cells it is over."""
    return {seed: (between_run_variance([d for d, _ in m], [v for _, v in m]), len(m))
            for seed, m in claim_cell_moves(before, after, confidence).items()}


class AtConfidence:
    """`runs` with every interval at another confidence (`confidence`); everything else is `runs`' own."""

    def __init__(self, runs: RunSet, confidence: float) -> None:
        self._runs, self.confidence = runs, confidence

    def __getattr__(self, name: str):
        return getattr(self._runs, name)
