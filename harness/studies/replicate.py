"""A study's run beside its replicate (`harness reference --replicate`): what one run's intervals leave out.

(A replicate here is a study run again, not the bootstrap's replicates of a cell, `analysis/replicates.py`.)

Why: every interval of the paper is one run's, over its processes and iterations. A replicate is the same
study run again on the same code in another sitting. Set beside the study's run it shows how far each
cell's mean and each within-run ratio moved between the two runs, how many moved further than their two
intervals allow (were those intervals complete, about 1 in 100 at 99%), and a between-run component:
the variance of a log mean or log ratio from one run to the next, estimated over the study's cells with
DerSimonian and Laird's (1986) moment estimator, the expected difference taken as zero (the two runs
measure the same thing). Adding it to a cell's variance gives the interval one run would need to cover
a second run too; the widening is reported per study. The seeds' verdicts are decided again on the
replicate runs, in place of the studies' runs, so a verdict that holds in one sitting only shows.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from scipy import stats as sps

from harness.analysis.runset import RunSet, manifest_of
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


def widening(variances: Iterable[float], tau2: float) -> np.ndarray:
    """By what factor each one-run interval (log variance v) widens with tau^2 added: sqrt(1 + tau^2 / v)."""
    v = np.asarray(list(variances), dtype=float)
    return np.sqrt(1.0 + tau2 / v)


@dataclass(frozen=True)
class Spread:
    """One study's moves of one kind (cell means or within-run ratios), summarised."""

    study: str
    kind: str
    n: int
    beyond: int
    median_move: float   # median |move| in percent
    largest_move: float  # largest |move| in percent
    tau: float           # the between-run component as a percent (exp(tau) - 1)
    widen: float         # the median factor by which a one-run interval widens with it


def spread(m: pd.DataFrame, study: str, kind: str) -> Spread | None:
    """The summary of `moves` rows of one study and kind (None: none)."""
    rows = m[(m["study"] == study) & (m["kind"] == kind)]
    if rows.empty:
        return None
    tau2 = between_run_variance(rows["log_move"], rows["var"])
    pct = 100 * (np.exp(rows["log_move"].abs()) - 1)
    half = rows["var"] / 2  # one run's share of the pair's variance, the interval to widen
    return Spread(study, kind, len(rows), int(rows["beyond"].sum()), float(pct.median()), float(pct.max()),
                  100 * (math.exp(math.sqrt(tau2)) - 1), float(np.median(widening(half, tau2))))


def _manifest(run: Path):
    try:
        return manifest_of(run)
    except Exception:  # noqa: BLE001 - a run's facts are context; the comparison stands without them
        return None


def _host(run: Path) -> str:
    from harness.studies.common import cpu_model

    return cpu_model(run)


def _full_commit(run: Path) -> str:
    m = _manifest(run)
    return str(((m.project or {}).get("commit") or "")) if m is not None else ""


def _commit(run: Path) -> str:
    return _full_commit(run)[:7]


def _started(run: Path) -> pd.Timestamp | None:
    m = _manifest(run)
    try:
        return pd.Timestamp(m.started)
    except Exception:  # noqa: BLE001 - no start time recorded
        return None


def _hours_apart(a: Path, b: Path) -> float:
    ta, tb = _started(a), _started(b)
    if ta is None or tb is None:
        return math.nan
    return abs((tb - ta).total_seconds()) / 3600


def replicate_first(pair: Pair) -> bool | None:
    """Whether the replicate was made before the study's run (a study measured again after its replicate,
    say on another machine), None when a start time is missing."""
    ta, tb = _started(pair.runs[0]), _started(pair.replicates[0])
    return None if ta is None or tb is None else bool(tb < ta)


def code_changes(pair: Pair) -> list[str] | None:
    """The files of the code a run executes that differ between the run's commit and the replicate's
    ([] the same code, None: git cannot tell)."""
    from harness.analysis.campaign import run_code_changes

    return run_code_changes(_full_commit(pair.runs[0]), _full_commit(pair.replicates[0]), pair.root)


def _code_said(changes: list[str] | None) -> str:
    if changes is None:
        return "whether the code a run executes differs is not known here (no git history of the two commits)"
    if not changes:
        return "the code a run executes is the same at both"
    shown = ", ".join(changes[:3]) + (f" and {len(changes) - 3} more" if len(changes) > 3 else "")
    return f"the code a run executes differs in {len(changes)} file{'s' if len(changes) > 1 else ''}: {shown}"


def sitting(pair: Pair) -> str:
    """How the replicate's sitting differs from the run's: hours apart (before or after), host, commit and
    whether the code a run executes differs between the two commits."""
    first, second = pair.runs[0], pair.replicates[0]
    hours = _hours_apart(first, second)
    side = {True: "before", False: "after", None: "apart from"}[replicate_first(pair)]
    when = f"{hours:.0f} hours {side} its run" if math.isfinite(hours) and hours >= 1.5 else \
        ("in another sitting" if side == "apart from" else f"{side} its run")
    h1, h2 = _host(first), _host(second)
    host = f"on the other machine ({h2}; the run: {h1})" if h1 and h2 and h1 != h2 else \
        (f"on the same machine ({h1})" if h1 else "")
    c1, c2 = _commit(first), _commit(second)
    code = f"at commit {c2} (the run: {c1}; {_code_said(code_changes(pair))})" if c1 != c2 else f"at commit {c1}"
    return f"{pair.study}: {when}, {host}, {code}".replace(", ,", ",")


def all_moves(found: list[Pair], like: RunSet) -> pd.DataFrame:
    """`moves` of every replicated study."""
    frames = [moves(p.study, ok_cells(p.runs, like), ok_cells(p.replicates, like), like.confidence) for p in found]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=MOVE_COLUMNS)


def spreads(m: pd.DataFrame, found: list[Pair]) -> list[Spread]:
    out = []
    for p in found:
        for kind in ("ratio", "mean"):
            s = spread(m, p.study, kind)
            if s is not None:
                out.append(s)
    return out


def _pct(x: float) -> str:
    return f"{x:.0f}%" if x >= 10 else f"{x:.1f}%"


def table_markdown(rows: list[Spread], found: list[Pair], confidence: float) -> str:
    """Appendix table: per replicated study and kind, the moves between its run and its replicate."""
    from harness.analysis.markdown import pipe_table

    if not rows:
        return "_No study has a replicate (`harness reference --replicate`): no between-run spread measured._"
    what = {"ratio": "ratio to its run's reference cell", "mean": "cell mean"}
    body = [[s.study, what[s.kind], str(s.n), f"{s.beyond} ({100 * s.beyond / s.n:.0f}%)", _pct(s.median_move),
             _pct(s.largest_move), _pct(s.tau), f"{s.widen:.2f}x"] for s in rows]
    head = ["study", "compared", "cells", f"moved more than the {confidence:.0%} intervals allow", "median move",
            "largest move",
            "between-run component", "one run's interval widens"]
    sittings = "\n".join(f"- {sitting(p)}." for p in found)
    caption = ("Table: Each replicated study's run beside its replicate (when and where each was made: the list "
               "above). A move is |log(second / first)| as a percent; it is more than the intervals allow (a Welch t test) when it exceeds the t "
               f"quantile ({confidence:.0%}, Welch's degrees of freedom) times the root of the two runs' log "
               "variances summed (were one run's intervals complete, about "
               f"{100 * (1 - confidence):.0f}% of moves). The between-run component is tau, the standard deviation "
               "a run adds on the log scale (DerSimonian and Laird's moment estimator over the study's cells, the "
               "expected move zero), shown as exp(tau) - 1; an interval widens by the median of sqrt(1 + "
               "tau^2 / v) over the cells, v a cell's one-run log variance. A ratio is a cell's mean over its run's "
               "reference cell at the same benchmark and parameters (sqlite3 on CPython; where a run has none, "
               "SQLite from PyPy, pure-Go SQLite, or HDBC-sqlite3 built -O0). A/A twins and cells not valid in "
               "both runs left out.")
    lead = ("When and where each replicate was made, beside its study's run (the code a run executes: the "
            "harness but its analysis and paper side, with the pinned dependencies; compared by git between the "
            "two commits):\n\n" + sittings + "\n\n") if found else ""
    return lead + pipe_table(head, body) + "\n\n" + caption


def verdicts_again(runs: RunSet, verdicts: list, found: list[Pair]) -> tuple[list[str], list[tuple[str, str, str]], list[str]] | None:
    """The seeds' claims decided again with each replicated study of `runs` (data/reference/) read from its
    replicate instead: (the studies swapped, the decided claims whose word changed as (seed, quote, word on the
    run, word on the replicate, our number on the replicate), the replicated studies whose runs are not in
    `runs`' folder). None: nothing to swap."""
    from harness.analysis.campaign import folder_of
    from harness.studies import seedclaims

    here = [p for p in found if folder_of(p.study) == "data/reference"]
    if not here:
        return None
    out_runs = {Path(d).resolve() for p in here for d in p.runs}
    swapped = [Path(d) for d in runs.run_dirs if Path(d).resolve() not in out_runs]
    swapped += [Path(d) for p in here for d in p.replicates]
    again = seedclaims.claims(runs_like(swapped, runs))
    changed = []
    for before, after in zip(verdicts, again):
        if before.verdict.word != after.verdict.word and v_decided(before.verdict.word, after.verdict.word):
            changed.append((before.seed, before.quote, before.verdict.word, after.verdict.word, after.ours))
    others = [p.study for p in found if p not in here]
    return [p.study for p in here], changed, others


def v_decided(*words: str) -> bool:
    from harness.studies import verdicts as v

    return any(w != v.UNTESTABLE for w in words)


def _other_machine(pair: Pair) -> bool:
    h1, h2 = _host(pair.runs[0]), _host(pair.replicates[0])
    return bool(h1 and h2 and h1 != h2)


def _span(values: list[float], fmt=None) -> str:
    fmt = fmt or _pct
    values = sorted(values)
    return fmt(values[0]) if len(values) == 1 or fmt(values[0]) == fmt(values[-1]) else \
        f"{fmt(values[0])} to {fmt(values[-1])}"


def _groups(rows: list[Spread], found: list[Pair]) -> list[tuple[bool, list[Spread]]]:
    """The within-run ratios' spreads, split into (on the other machine, spreads): same machine first."""
    other = {p.study for p in found if _other_machine(p)}
    ratios = [s for s in rows if s.kind == "ratio"]
    out = [(False, [s for s in ratios if s.study not in other]), (True, [s for s in ratios if s.study in other])]
    return [(o, g) for o, g in out if g]


def _changed_text(changed: list) -> str:
    import re

    def number(ours: str) -> str:
        m = re.search(r"\d[\d.,]*x? \[[^\]]+\]", ours)
        return f" ({m.group(0)})" if m else ""

    return "; ".join(f"seed {seed}'s {_short(q, 8)}, {a} on the run and {b} on the replicate{number(ours)}"
                     for seed, q, a, b, ours in changed)


def _commits_said(group: list[Pair]) -> str:
    """", E1 and E2 at another commit with the same benchmark code, E5 at one whose benchmark code differs" for
    a group of replicates some of which were made at another commit than their run (git compares the code a
    run executes at the two commits); the studies are named unless one clause covers the whole group; ""
    when all share a commit."""
    other = [p for p in group if _commit(p.runs[0]) != _commit(p.replicates[0])]
    if not other:
        return ""
    changes = {p.study: code_changes(p) for p in other}
    kinds = (([p for p in other if changes[p.study] == []], "at another commit with the same benchmark code"),
             ([p for p in other if changes[p.study]], "at another commit whose benchmark code differs"),
             ([p for p in other if changes[p.study] is None],
              "at another commit (whether its benchmark code differs is not known)"))
    kinds = [(ps, said) for ps, said in kinds if ps]
    if len(kinds) == 1 and len(kinds[0][0]) == len(group):
        return f", {kinds[0][1]}"
    return "".join(f", {_names([p.study for p in ps])} {said}" for ps, said in kinds)


def summary_sentence(rows: list[Spread], found: list[Pair], again, confidence: float = 0.99,
                     where: str = "the appendix") -> str:
    """Section 2.5's paragraphs: per group of replicates (same machine, other machine) how many within-run
    ratios moved beyond both runs' intervals and the between-run component, then the verdicts decided again
    (`verdicts_again`'s result, or None). The per-study numbers are the appendix table's."""
    groups = _groups(rows, found)
    if not groups:
        return ("_No study has a replicate yet (`harness reference --replicate`), so the between-run spread is "
                "measured only by the history's same-commit pairs._")
    text = []
    for other, studies in groups:
        n, k = sum(s.n for s in studies), sum(s.beyond for s in studies)
        names = _names([s.study for s in studies])
        code = _commits_said([p for p in found if p.study in {s.study for s in studies}])
        taus = ", ".join(f"{s.study} {_pct(s.tau)}" for s in studies)
        widen = _span([s.widen for s in studies], lambda x: f"{x:.2f}x")
        if not other:
            text.append(f"In a replicate of {names} (each study run again in another sitting on the same machine"
                        + code + f"; {where}), "
                        f"{k} of {n} within-run ratios ({100 * k / n:.0f}%) moved more than their two runs' "
                        f"{confidence:.0%} intervals allow (a Welch t test), where {100 * (1 - confidence):.0f}% would "
                        "by chance; a run adds to a ratio a "
                        f"between-run component of {taus}, which would widen an interval by {widen}.")
        else:
            text.append(f"With {names} run again on the other machine" + code
                        + f", {k} of {n} ({100 * k / n:.0f}%) moved more than that, a component of {taus} (intervals "
                        f"{widen} as wide): these hold the two machines' difference as well as the runs'.")
    if again is not None:
        swapped, changed, _ = again
        if not changed:
            text.append(f"Decided again on the replicates of {_names(swapped)}, every verdict keeps its word.")
        else:
            text.append(f"Decided again on the replicates of {_names(swapped)}, {len(changed)} "
                        f"verdict{'s' if len(changed) > 1 else ''} change{'' if len(changed) > 1 else 's'}: "
                        f"{_changed_text(changed)}.")
    return "\n\n".join(text)


def glance_sentence(rows: list[Spread], found: list[Pair], again, where: str = "Section 2.5") -> str:
    """Section 1.1's short line: per group of replicates (same machine, other machine) how many within-run
    ratios moved beyond both runs' intervals, and how many decided verdicts changed."""
    groups = _groups(rows, found)
    if not groups:
        return "_No study was run twice in the campaign's protocol (no replicate), so that spread is not measured._"
    parts = []
    for other, group in groups:
        n, k = sum(s.n for s in group), sum(s.beyond for s in group)
        on = "on the other machine" if other else "on the same machine"
        parts.append(f"{on}, {k} of {n} within-run ratios ({100 * k / n:.0f}%) of {_names([s.study for s in group])} "
                     "moved more than their two runs' intervals allow")
    held = ""
    if again is not None:
        changed = again[1]
        held = ("; every decided verdict kept its word" if not changed else
                f"; {len(changed)} decided verdict{'s' if len(changed) > 1 else ''} changed")
    return f"Run a second time {'; '.join(parts)}{held} ({where})."


def abstract_sentence(rows: list[Spread], found: list[Pair], where: str = "Section 2.5") -> str:
    """The abstract's line: one run's intervals, and how many within-run ratios a second run moved beyond them
    on the same machine and on the other."""
    groups = _groups(rows, found)
    if not groups:
        return "The intervals cover one run each (Section 1.1 says what they leave out)."

    def means(g: list[Spread]) -> str:
        studies = {s.study for s in g}
        m = [s for s in rows if s.kind == "mean" and s.study in studies]
        return f" and {sum(s.beyond for s in m)} of {sum(s.n for s in m)} cell means" if m else ""

    parts = [f"{sum(s.beyond for s in g)} of {sum(s.n for s in g)}" + (" within-run ratios" if i == 0 else "")
             + means(g) + (" more than they allow" if i == 0 else "")
             + (" on the same machine" if not other else " on the other" + (" machine" if i == 0 else ""))
             for i, (other, g) in enumerate(groups)]
    return f"The intervals cover one run; a second moved {', '.join(parts)} ({where})."


def _names(items: list[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _short(quote: str, words: int = 10) -> str:
    """The first `words` words of a claim, "..." where cut, and a quotation mark cut open closed again."""
    w = quote.split()
    if len(w) <= words:
        return quote
    head = " ".join(w[:words]).rstrip(",;:") + " ..."
    return head + ('"' if head.count('"') % 2 else "")


@dataclass(frozen=True)
class Between:
    """What the replicates give the rest of the paper, computed once: the pairs, every move, and the seeds'
    verdicts decided again on the replicates (`verdicts_again`, None: nothing to swap)."""

    found: list[Pair]
    moves: pd.DataFrame
    again: tuple | None

    def changed_quotes(self) -> set[tuple[str, str]]:
        """(seed, quote) of each decided verdict whose word a replicate changed."""
        return {(seed, quote) for seed, quote, *_ in (self.again[1] if self.again else [])}


def between(runs: RunSet, verdicts: list, root: Path = PROJECT_ROOT) -> Between | None:
    """The replicates beside `runs`, when these are the committed reference runs (data/reference/); None for
    any other runs (a run's own report has no replicate)."""
    from harness.studies.common import committed_reference

    if not committed_reference(runs, root):
        return None
    found = pairs(root)
    return Between(found, all_moves(found, runs), verdicts_again(runs, verdicts, found) if found else None)


def tau2_by_family(m: pd.DataFrame) -> dict[str, float]:
    """Each benchmark family's between-run variance of a within-run log ratio: the tau^2 of the replicated
    study whose ratios hold it (the largest where several do, as E3 and E3h both hold TPC-H); a family no
    replicate measured is absent."""
    from harness.studies.runfacts import family

    out: dict[str, float] = {}
    ratios = m[m["kind"] == "ratio"] if len(m) else m
    for _, rows in (ratios.groupby("study") if len(ratios) else []):
        t2 = between_run_variance(rows["log_move"], rows["var"])
        if math.isfinite(t2):
            for f in {family(b) for b in rows["benchmark"]}:
                out[f] = max(out.get(f, 0.0), t2)
    return out


def blocks(runs: RunSet, verdicts: list, root: Path = PROJECT_ROOT, where: str = "",
           found_between: Between | None = None) -> dict[str, str]:
    """The paper's replicate blocks, when `runs` are the committed reference runs (data/reference/): the
    main text's paragraph and the appendix table. Other runs (a run's own report) have none.
    `found_between`: `between`'s result when the caller has it already."""
    b = found_between or between(runs, verdicts, root)
    if b is None:
        return {}
    found, m, again = b.found, b.moves, b.again
    rows = spreads(m, found)
    return {"replicate-glance": glance_sentence(rows, found, again),
            "abstract-replicate": abstract_sentence(rows, found),
            "replicate-summary": summary_sentence(rows, found, again, runs.confidence, where or "the appendix"),
            "replicate-table": table_markdown(rows, found, runs.confidence)}
