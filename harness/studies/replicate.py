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

import numpy as np
import pandas as pd

from harness.analysis.runset import RunSet, manifest_of
from harness.fsutil import PROJECT_ROOT
from harness.studies.runspread import (  # noqa: F401 - the moves and the spread, read by this module's users too
    MOVE_COLUMNS, REFERENCE_CELLS, Pair, Widened, all_moves, between_run_variance, between_run_variance_interval,
    moves, moves_of, ok_cells, pairs, runs_like, tau2_by_family, widening, with_spread)

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
    tau_high: float = math.nan  # tau's upper bound at the table's confidence (Q-profile), as a percent


def spread(m: pd.DataFrame, study: str, kind: str, confidence: float = 0.99) -> Spread | None:
    """The summary of `moves` rows of one study and kind (None: none), tau with its upper bound at `confidence`."""
    rows = m[(m["study"] == study) & (m["kind"] == kind)]
    if rows.empty:
        return None
    tau2 = between_run_variance(rows["log_move"], rows["var"])
    _, high = between_run_variance_interval(rows["log_move"], rows["var"], confidence)
    pct = 100 * (np.exp(rows["log_move"].abs()) - 1)
    half = rows["var"] / 2  # one run's share of the pair's variance, the interval to widen
    return Spread(study, kind, len(rows), int(rows["beyond"].sum()), float(pct.median()), float(pct.max()),
                  100 * (math.exp(math.sqrt(tau2)) - 1), float(np.median(widening(half, tau2))),
                  100 * (math.exp(math.sqrt(high)) - 1))


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


def code_lines(pair: Pair) -> int | None:
    """How many lines of the code a run executes differ between the run's commit and the replicate's."""
    from harness.analysis.campaign import run_code_lines

    return run_code_lines(_full_commit(pair.runs[0]), _full_commit(pair.replicates[0]), pair.root)


def _code_said(changes: list[str] | None, lines: int | None = None) -> str:
    if changes is None:
        return "whether the code a run executes differs is not known here (no git history of the two commits)"
    if not changes:
        return "the code a run executes is the same at both"
    shown = ", ".join(changes[:3]) + (f" and {len(changes) - 3} more" if len(changes) > 3 else "")
    size = f", {lines} line{'s' if lines != 1 else ''} in all" if lines else ""
    return f"the code a run executes differs in {len(changes)} file{'s' if len(changes) > 1 else ''}{size}: {shown}"


def sitting(pair: Pair) -> str:
    """How the replicate's sitting differs from the run's: hours apart (before or after), host, commit and
    whether the code a run executes differs between the two commits."""
    first, second = pair.runs[0], pair.replicates[0]
    hours = _hours_apart(first, second)
    side = {True: "before", False: "after", None: "apart from"}[replicate_first(pair)]
    # start to start (a missing start time leaves both unknown); within the hour, in minutes: a short gap leaves
    # out a day's drift
    when = ("in another sitting" if not math.isfinite(hours) else f"{hours:.0f} hours {side} its run"
            if hours >= 1.5 else f"{hours * 60:.0f} minutes {side} its run")
    h1, h2 = _host(first), _host(second)
    host = f"on the other machine ({h2}; the run: {h1})" if h1 and h2 and h1 != h2 else \
        (f"on the same machine ({h1})" if h1 else "")
    c1, c2 = _commit(first), _commit(second)
    code = (f"at commit {c2} (the run: {c1}; {_code_said(code_changes(pair), code_lines(pair))})" if c1 != c2
            else f"at commit {c1}")
    return f"{pair.study}: {when}, {host}, {code}".replace(", ,", ",")


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
             _pct(s.largest_move), f"{_pct(s.tau)} (≤ {_pct(s.tau_high)})", f"{s.widen:.2f}x"] for s in rows]
    head = ["study", "compared", "cells", f"moved more than the {confidence:.0%} intervals allow", "median move",
            "largest move",
            f"between-run component ({confidence:.0%} upper bound)", "one run's interval widens"]
    sittings = "\n".join(f"- {sitting(p)}." for p in found)
    caption = ("Table: Each replicated study's run beside its replicate (when and where each was made: the list "
               "above). A move is |log(second / first)| as a percent; it is more than the intervals allow (a Welch t test) when it exceeds the t "
               f"quantile ({confidence:.0%}, Welch's degrees of freedom) times the root of the two runs' log "
               "variances summed (were one run's intervals complete, about "
               f"{100 * (1 - confidence):.0f}% of moves). The between-run component is tau, the standard deviation "
               "a run adds on the log scale (DerSimonian and Laird's moment estimator over the study's cells, the "
               "expected move zero), shown as exp(tau) - 1, with its upper bound by the Q-profile method (one pair of "
               "runs gives one estimate of it); an interval widens by the median of sqrt(1 + "
               "tau^2 / v) over the cells, v a cell's one-run log variance. A ratio is a cell's mean over its run's "
               "reference cell at the same benchmark and parameters (sqlite3 on CPython; where a run has none, "
               "SQLite from PyPy, pure-Go SQLite, or HDBC-sqlite3 built -O0). A/A twins and cells not valid in "
               "both runs left out.")
    lead = ("When and where each replicate was made, beside its study's run (the code a run executes: the "
            "harness but its analysis and paper side, with the pinned dependencies; compared by git between the "
            "two commits):\n\n" + sittings + "\n\n") if found else ""
    return lead + pipe_table(head, body) + "\n\n" + caption


def swapped_claims(runs: RunSet, found: list[Pair]) -> tuple[list[str], RunSet, list, list[str]] | None:
    """`runs` (data/reference/) with each replicated study read from its replicate instead: (the studies
    swapped, that run set, the seeds' claims decided on it, the replicated studies whose runs are not in
    `runs`' folder). None: nothing to swap."""
    from harness.analysis.campaign import folder_of
    from harness.studies import seedclaims

    here = [p for p in found if folder_of(p.study) == "data/reference"]
    if not here:
        return None
    out_runs = {Path(d).resolve() for p in here for d in p.runs}
    swapped = [Path(d) for d in runs.run_dirs if Path(d).resolve() not in out_runs]
    swapped += [Path(d) for p in here for d in p.replicates]
    there = runs_like(swapped, runs)
    return [p.study for p in here], there, seedclaims.claims(there), [p.study for p in found if p not in here]


def verdicts_again(runs: RunSet, verdicts: list, found: list[Pair], swapped: tuple | None = None
                   ) -> tuple[list[str], list[tuple[str, str, str]], list[str]] | None:
    """The seeds' claims decided again with each replicated study of `runs` (data/reference/) read from its
    replicate instead (`swapped_claims`, or `swapped` when the caller has it): (the studies swapped, the
    decided claims whose word changed as (seed, quote, word on the run, word on the replicate, our number on
    the replicate), the replicated studies whose runs are not in `runs`' folder). None: nothing to swap."""
    s = swapped or swapped_claims(runs, found)
    if s is None:
        return None
    studies, _, again, others = s
    changed = []
    for before, after in zip(verdicts, again):
        if before.verdict.word != after.verdict.word and v_decided(before.verdict.word, after.verdict.word):
            changed.append((before.seed, before.quote, before.verdict.word, after.verdict.word, after.ours))
    return studies, changed, others


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
        if not m:
            return ""
        # the cell the number is of, where the evidence names one just before it ("N = 10: 1.16x [...]"): a
        # claim over several cells shows its first here, and review 88 could not tell which
        label = re.search(r"([^,;:()]{1,40}): $", ours[:m.start()])
        cell = f"{label.group(1).strip()}: " if label else ""
        return f" ({cell}{m.group(0)})"

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
                        f"between-run component of {taus} ({confidence:.0%} upper bounds: Appendix B.10), which would "
                        f"widen an interval by {widen}."
                        + (f" {_names(zero)}'s estimate{'s are' if len(zero) > 1 else ' is'} 0, so "
                           f"{'their' if len(zero) > 1 else 'its'} intervals stay one run's (Appendix B.9 also reads "
                           "each verdict at the upper bounds)."
                           if (zero := [s.study for s in studies if _pct(s.tau) == _pct(0.0)]) else ""))
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
        studies = {s.study for s in group}
        means = [s for s in rows if s.kind == "mean" and s.study in studies]
        nm, km = sum(s.n for s in means), sum(s.beyond for s in means)
        also = f" and {km} of {nm} cell means ({100 * km / nm:.0f}%)" if nm else ""
        parts.append(f"{on}, {k} of {n} within-run ratios ({100 * k / n:.0f}%){also} of "
                     f"{_names([s.study for s in group])} moved more than their two runs' intervals allow")
    held = ""
    if again is not None:
        changed = again[1]
        held = ("; every verdict of a claim read here kept its word" if not changed else
                f"; {len(changed)} verdict{'s' if len(changed) > 1 else ''} of claims read here changed")
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
        if not m:
            return ""
        # the pooled count hides a study that moved far more than the rest (review 87: E1's 39 of 40)
        top = max(m, key=lambda s: s.beyond / s.n if s.n else 0.0)
        worst = f" ({top.study}: {top.beyond} of {top.n})" if len(m) > 1 and top.beyond else ""
        return f" and {sum(s.beyond for s in m)} of {sum(s.n for s in m)} cell means{worst}"

    parts = [f"{sum(s.beyond for s in g)} of {sum(s.n for s in g)}" + (" within-run ratios" if i == 0 else "")
             + means(g) + (" more than one run's intervals allow" if i == 0 else "")
             + (" on the same machine" if not other else " on the other" + (" machine" if i == 0 else ""))
             for i, (other, g) in enumerate(groups)]
    added = any(s.kind == "ratio" and s.tau > 0 for s in rows)  # `with_spread` widened the headline's interval
    return (f"A second run moved {', '.join(parts)}"
            + ("; every ratio's interval here adds that run-to-run spread" if added else "") + f" ({where}).")


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
    swapped: tuple | None = None  # `swapped_claims`: the run set with the replicates in, and its claims

    def changed_quotes(self) -> set[tuple[str, str]]:
        """(seed, quote) of each decided verdict whose word a replicate changed."""
        return {(seed, quote) for seed, quote, *_ in (self.again[1] if self.again else [])}


def between(runs: RunSet, verdicts: list, root: Path = PROJECT_ROOT) -> Between | None:
    """The replicates beside `runs`, when these are the committed reference runs (data/reference/); None for
    any other runs (a run's own report has no replicate)."""
    from harness.studies.common import committed_reference

    if not committed_reference(runs, root):
        return None
    found, m = moves_of(runs, root)
    swapped = swapped_claims(runs, found) if found else None
    return Between(found, m, verdicts_again(runs, verdicts, found, swapped) if swapped else None, swapped)


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
