"""A study's run beside its replicate: the between-run component is estimated right (known values, and
coverage of the widened intervals on simulated runs in the scenarios a user meets), within-run ratios stay
inside one run, and a run set that is not the committed reference has no replicate blocks."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.analysis.stats import CellBoot
from harness.studies import replicate as rp


def _simulate(rng, k: int, tau: float, heavy: bool = False, spread: tuple[float, float] = (0.01, 0.08)):
    """K cells measured in two runs: each cell's true log value, a run effect per run and cell (normal, or
    Student t with 3 df scaled to sd tau: heavy tails), and the within-run error with sd drawn per cell."""
    sd = rng.uniform(*spread, size=k)
    if heavy:
        effects = rng.standard_t(3, size=(2, k)) * tau / math.sqrt(3.0)
    else:
        effects = rng.normal(0, tau, size=(2, k))
    x = effects + rng.normal(0, 1, size=(2, k)) * sd
    return x, sd ** 2


@pytest.mark.parametrize("tau", [0.0, 0.03, 0.1])
def test_the_between_run_variance_is_recovered_from_many_cells(tau):
    rng = np.random.default_rng(1)
    est = []
    for _ in range(200):
        x, v = _simulate(rng, 300, tau)
        est.append(rp.between_run_variance(x[1] - x[0], 2 * v))
    assert abs(np.mean(est) - tau ** 2) < 0.1 * tau ** 2 + 5e-5  # unbiased up to the truncation at 0
    assert all(e >= 0 for e in est)


def test_no_moves_is_no_estimate_and_identical_runs_are_zero():
    assert math.isnan(rp.between_run_variance([], []))
    assert rp.between_run_variance([0.0, 0.0, 0.0], [0.01, 0.02, 0.03]) == 0.0
    assert rp.widening([0.01, 0.04], 0.0).tolist() == [1.0, 1.0]
    assert rp.widening([0.01], 0.03)[0] == pytest.approx(2.0)


def _coverage(rng, k: int, tau: float, heavy: bool, trials: int = 400, z: float = 2.5758) -> tuple[float, float]:
    """(one-run intervals' coverage of the cell's true value, the same widened by the estimated tau^2) over
    every cell of `trials` simulated pairs of runs."""
    plain = widened = total = 0
    for _ in range(trials):
        x, v = _simulate(rng, k, tau, heavy)
        tau2 = rp.between_run_variance(x[1] - x[0], 2 * v)
        plain += int(np.sum(np.abs(x[0]) <= z * np.sqrt(v)))
        widened += int(np.sum(np.abs(x[0]) <= z * np.sqrt(v + tau2)))
        total += k
    return plain / total, widened / total


@pytest.mark.parametrize("k,heavy", [(40, False), (12, False), (40, True), (200, True)])
def test_widened_intervals_cover_what_one_runs_intervals_miss(k, heavy):
    """With a run effect of the size of the within-run error, one run's 99% intervals cover the true value far
    less than 99%; widened by the estimated component they come back near 99%: with many cells, with few
    (12, as a small study), and with heavy-tailed run effects (t, 3 df)."""
    rng = np.random.default_rng(7)
    plain, widened = _coverage(rng, k, 0.05, heavy)
    assert plain < 0.93
    assert widened >= (0.97 if k >= 40 else 0.95)
    assert widened <= 0.999


def test_without_a_run_effect_about_one_in_a_hundred_moves_beyond_both_intervals():
    rng = np.random.default_rng(3)
    cells_a, cells_b = {}, {}
    for i in range(3000):
        sd = rng.uniform(0.01, 0.08)
        for cells in (cells_a, cells_b):  # each run's log variance estimated from 10 processes (9 df)
            var = sd ** 2 * rng.chisquare(9) / 9
            cells[("b", f"i={i}", "e/x", "cpython")] = (CellBoot(math.exp(rng.normal(0, sd)), 10, var, 9.0), "r")
    m = rp.moves("E9", cells_a, cells_b)
    share = m["beyond"].mean()
    assert 0.004 <= share <= 0.02
    assert set(m["kind"]) == {"mean"}  # no reference cell: no ratio


def _boot(mean: float, var: float = 1e-4) -> CellBoot:
    return CellBoot(mean, 10, var, 9.0)


def test_a_ratio_is_taken_against_the_reference_cell_of_the_same_run_only():
    """Runtimes carry their version (pypy-7.3.11): the reference cell is matched by family."""
    first = {("q", "sf=1", "h2/jdbc", "jvm-17"): (_boot(4.0), "run1"),
             ("q", "sf=1", "sqlite/sqlite3", "pypy-7.3.11"): (_boot(2.0), "run1"),
             ("q", "sf=2", "h2/jdbc", "jvm-17"): (_boot(4.0), "run2"),  # its reference is in another run
             ("q", "sf=2", "sqlite/sqlite3", "pypy-7.3.11"): (_boot(2.0), "run1")}
    second = {k: (_boot(b.mean * 1.02), r) for k, (b, r) in first.items()}
    second[("q", "sf=1", "h2/jdbc", "jvm-17")] = (_boot(6.0), "run1")
    m = rp.moves("E3h", first, second)
    ratios = m[m["kind"] == "ratio"]
    assert list(ratios["params"]) == ["sf=1"] and list(ratios["engine"]) == ["h2/jdbc"]
    row = ratios.iloc[0]
    assert row["first"] == pytest.approx(2.0) and row["second"] == pytest.approx(6.0 / 2.04)
    assert bool(row["beyond"])  # 47% with intervals of about +-6%
    means = m[m["kind"] == "mean"]
    assert len(means) == 4 and not means[means["params"] == "sf=2"]["beyond"].any()


def test_spread_summarises_one_study_and_kind():
    first = {("b", f"i={i}", "e/x", "go"): (_boot(1.0), "r") for i in range(20)}
    second = {k: (_boot(1.0 + 0.2 * (i % 2)), "r") for i, k in enumerate(first)}
    m = rp.moves("E6", first, second)
    s = rp.spread(m, "E6", "mean")
    assert s.n == 20 and s.beyond == 10 and s.largest_move == pytest.approx(20.0)
    assert s.tau > 5 and s.widen > 2
    assert rp.spread(m, "E6", "ratio") is None and rp.spread(m, "E5", "mean") is None
    table = rp.table_markdown([s], [], 0.99)
    assert "| E6 | cell mean | 20 | 10 (50%) |" in table and "more than the 99% intervals allow" in table and "DerSimonian and Laird" in table


def test_no_replicate_is_said_and_a_runs_own_report_has_no_replicate_blocks(tmp_path):
    assert "No study has a replicate" in rp.summary_sentence([], [], None)
    assert "No study has a replicate" in rp.table_markdown([], [], 0.99)

    class Runs:
        run_dirs = [tmp_path / "some-run"]

    assert rp.blocks(Runs(), [], root=tmp_path) == {}


def test_the_summary_names_the_verdicts_that_change_on_the_replicate():
    s = rp.Spread("E5", "ratio", 100, 5, 2.0, 30.0, 4.0, 1.3)
    text = rp.summary_sentence([s], [], (["E5"], [("002", "\"AcidState wins by 8x or more\"", "refuted", "inconclusive",
                                                    "5.1x [3.2, 8.4]")], []))
    assert "5 of 100 within-run ratios (5%)" in text
    assert "component of E5 4.0% (99% upper bounds: Appendix B.10), which would widen an interval by 1.30x" in text
    assert ("1 verdict changes: seed 002's \"AcidState wins by 8x or more\", refuted on the run "
            "and inconclusive on the replicate (5.1x [3.2, 8.4])") in text
    same = rp.summary_sentence([s], [], (["E5"], [], []))
    assert "every verdict keeps its word" in same
    assert "estimate" not in same  # a component told from none is not qualified
    # a component estimated at 0 leaves its study's intervals one run's, and the text says so
    zero = rp.summary_sentence([s, rp.Spread("E6", "ratio", 40, 0, 2.0, 30.0, 0.0, 1.0)], [], None)
    assert ("E6's estimate is 0, so its intervals stay one run's (Appendix B.9 also reads each verdict at the upper "
            "bounds).") in zero
    two = rp.summary_sentence([rp.Spread(x, "ratio", 40, 0, 2.0, 30.0, 0.0, 1.0) for x in ("E4", "E6")], [], None)
    assert "E4 and E6's estimates are 0, so their intervals stay one run's" in two


def test_the_abstract_says_how_many_ratios_a_second_run_moved_and_where(monkeypatch):
    same = rp.Spread("E5", "ratio", 100, 0, 2.0, 30.0, 0.0, 1.0)
    assert rp.abstract_sentence([same], []) == ("A second run moved 0 of 100 within-run ratios more than one run's "
                                                "intervals allow on the same machine (Section 2.5).")
    assert "Section 1.1 says what they leave out" in rp.abstract_sentence([], [])
    other = rp.Spread("E1", "ratio", 40, 30, 30.0, 115.0, 28.0, 5.8)
    monkeypatch.setattr(rp, "_other_machine", lambda pair: pair.study == "E1")  # the hosts of these fake runs
    assert rp.abstract_sentence([same, other], [rp.Pair("E1", (), ())]).endswith(
        "0 of 100 within-run ratios more than one run's intervals allow on the same machine, 30 of 40 on the other; "
        "every ratio's interval here adds that run-to-run spread (Section 2.5).")
    # the cell means, which a sitting's common shift moves too, beside the ratios of the same studies
    means = rp.Spread("E5", "mean", 120, 40, 9.0, 50.0, 12.0, 3.0)
    assert rp.abstract_sentence([same, means], []) == (
        "A second run moved 0 of 100 within-run ratios and 40 of 120 cell means more than one run's intervals allow "
        "on the same machine (Section 2.5).")  # no ratio moved between runs: the headline adds nothing, says nothing
    # a study whose means moved far more than the rest is named beside the pooled count (review 87)
    e1 = rp.Spread("E1", "mean", 40, 39, 20.0, 36.0, 13.0, 4.9)
    e1_ratios = rp.Spread("E1", "ratio", 40, 0, 2.0, 10.0, 0.0, 1.0)
    assert "0 of 140 within-run ratios and 79 of 160 cell means (E1: 39 of 40) more than" in rp.abstract_sentence(
        [same, e1_ratios, means, e1], [])


class _Cells:
    """A run set of fixed cell reductions, both choices of iterations (what `with_spread` widens)."""

    confidence = 0.99
    run_dirs = ()

    def __init__(self, boots, alt):
        self._b, self._a = boots, alt

    def boots(self, keys=None):
        return {k: b for k, b in self._b.items() if keys is None or k in set(keys)}

    def alt_boots(self, keys=None):
        return {k: b for k, b in self._a.items() if keys is None or k in set(keys)}


def test_with_spread_widens_both_choices_of_iterations_and_the_findings_say_so(monkeypatch):
    """The headline findings' run set: every cell of a replicated family gains tau^2 / 2 in either choice of
    iterations, a ratio's sentence says its interval holds the run-to-run spread, and where no replicate
    measured a spread the run set is returned as it is (its sentences unchanged)."""
    from harness.analysis.stats import CellBoot
    from harness.studies import findings, runspread

    a, b = ("bindings.x", "", "sqlite/native-c", "c"), ("bindings.x", "", "sqlite/sqlite3", "cpython-3.11")
    runs = _Cells({a: CellBoot(1.0, 20, 1e-3, 19.0), b: CellBoot(4.0, 20, 1e-3, 19.0)},
                  {a: CellBoot(1.2, 20, 2e-3, 19.0), b: CellBoot(4.0, 20, 2e-3, 19.0)})
    moves = pd.DataFrame({"study": ["E1"] * 4, "kind": ["ratio"] * 4, "benchmark": ["bindings.x"] * 4,
                          "log_move": [0.2, -0.2, 0.25, -0.25], "var": [1e-3] * 4})
    tau2 = rp.tau2_by_family(moves)
    assert tau2["bindings"] > 0
    monkeypatch.setattr(runspread, "moves_of", lambda r, root=None: ([], moves))
    wide = runspread.with_spread(runs)
    assert isinstance(wide, rp.Widened)
    assert wide.boots([a])[a].between_var == pytest.approx(tau2["bindings"] / 2)
    assert wide.alt_boots([a])[a].between_var == pytest.approx(tau2["bindings"] / 2)
    assert wide.boots([a])[a].log_var == 1e-3  # the cell's own interval stays one run's
    assert runspread.with_spread(wide) is wide and runspread.one_run(wide) is runs  # widened once; taken off
    assert findings.spread_of(wide) == "with the run-to-run spread" and findings.spread_of(runs) == ""
    narrow = findings.ratio_sentence("A", "B", 0.25, 0.2, 0.3)
    said = findings.ratio_sentence("A", "B", 0.25, 0.15, 0.4, spread=findings.spread_of(wide))
    assert narrow.endswith("(99% CI).") and said.endswith("(99% CI with the run-to-run spread).")
    monkeypatch.setattr(runspread, "moves_of", lambda r, root=None: ([], moves.assign(log_move=0.0)))
    assert runspread.with_spread(runs) is runs  # no spread measured: one run's intervals, said as such


def _git(repo, *args):
    import subprocess

    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_the_code_a_run_executes_is_told_apart_by_git_between_two_commits(tmp_path):
    from harness.analysis.campaign import run_code_changes

    for f in ("harness/worker.py", "harness/analysis/tables.py", "requirements.lock", "README.md"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("one\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "first")
    first = _git(tmp_path, "rev-parse", "HEAD")

    def commit(*files):
        for f in files:
            (tmp_path / f).write_text((tmp_path / f).read_text() + "more\n")
        _git(tmp_path, "commit", "-q", "-am", "next")
        return _git(tmp_path, "rev-parse", "HEAD")

    analysis_only = commit("harness/analysis/tables.py", "README.md")
    assert run_code_changes(first, analysis_only, tmp_path) == []  # the paper's side and docs: the same code
    worker_too = commit("harness/worker.py", "requirements.lock")
    assert run_code_changes(first, worker_too, tmp_path) == ["harness/worker.py", "requirements.lock"]
    from harness.analysis.campaign import run_code_lines

    assert run_code_lines(first, worker_too, tmp_path) == 2  # one line added to each, none counted from the docs
    assert run_code_lines(first, analysis_only, tmp_path) == 0 and run_code_lines(first, "0" * 40, tmp_path) is None
    assert run_code_changes(first, first, tmp_path) == []
    assert run_code_changes(first, "0" * 40, tmp_path) is None  # a commit this checkout does not have
    assert run_code_changes("", worker_too, tmp_path) is None


def test_a_replicate_made_before_its_run_and_at_another_commit_says_so(monkeypatch, tmp_path):
    import pandas as pd

    run, rep = tmp_path / "run", tmp_path / "rep"
    facts = {run: ("2026-11-27T21:00:00+0000", "b" * 40), rep: ("2026-11-27T18:00:00+0000", "a" * 40)}
    monkeypatch.setattr(rp, "_started", lambda d: pd.Timestamp(facts[d][0]))
    monkeypatch.setattr(rp, "_full_commit", lambda d: facts[d][1])
    monkeypatch.setattr(rp, "_host", lambda d: "AMD EPYC")
    pair = rp.Pair("E1", (run,), (rep,), tmp_path)
    assert rp.replicate_first(pair) is True
    monkeypatch.setattr(rp, "code_changes", lambda p: [])
    assert rp.sitting(pair) == ("E1: 3 hours before its run, on the same machine (AMD EPYC), at commit aaaaaaa "
                                "(the run: bbbbbbb; the code a run executes is the same at both)")
    s = rp.Spread("E1", "ratio", 40, 1, 2.0, 9.0, 1.0, 1.1)
    assert "on the same machine, at another commit with the same benchmark code;" in rp.summary_sentence([s], [pair], None)
    monkeypatch.setattr(rp, "code_changes", lambda p: ["harness/worker.py"])
    monkeypatch.setattr(rp, "code_lines", lambda p: 3)
    assert "the code a run executes differs in 1 file, 3 lines in all: harness/worker.py" in rp.sitting(pair)
    assert "on the same machine, at another commit whose benchmark code differs;" in rp.summary_sentence([s], [pair], None)
    monkeypatch.setattr(rp, "code_changes", lambda p: None)
    assert "is not known" in rp.sitting(pair) and "is not known" in rp.summary_sentence([s], [pair], None)
    facts[rep] = ("2026-11-27T21:43:00+0000", "b" * 40)  # within the hour: its minutes, start to start
    assert rp.sitting(pair) == "E1: 43 minutes after its run, on the same machine (AMD EPYC), at commit bbbbbbb"


def test_a_group_with_only_some_replicates_at_another_commit_names_them(monkeypatch, tmp_path):
    commits = {"E1": ("a" * 40, "b" * 40), "E3": ("c" * 40, "c" * 40)}
    pairs = [rp.Pair(s, (tmp_path / f"{s}-run",), (tmp_path / f"{s}-rep",), tmp_path) for s in commits]
    monkeypatch.setattr(rp, "_full_commit", lambda d: commits[d.name[:2]][0 if d.name.endswith("run") else 1])
    monkeypatch.setattr(rp, "code_changes", lambda p: [])
    assert rp._commits_said(pairs) == ", E1 at another commit with the same benchmark code"
    assert rp._commits_said(pairs[1:]) == ""
    monkeypatch.setattr(rp, "code_changes", lambda p: ["harness/run/runner.py"] if p.study == "E3" else [])
    commits["E3"] = ("c" * 40, "d" * 40)
    assert rp._commits_said(pairs) == (", E1 at another commit with the same benchmark code, E3 at another commit "
                                       "whose benchmark code differs")


def test_each_family_gets_the_between_run_variance_of_the_study_that_measured_it():
    """tau^2 by benchmark family, from the within-run ratios only; a family two studies hold gets the larger
    (E3 and E3h both hold TPC-H), one no replicate measured none."""
    def ratios(study, bench, moves, var=1e-4):
        return [dict(zip(rp.MOVE_COLUMNS, (study, "ratio", bench, f"i={i}", "e", "r", 1.0, 1.0, d, var, 2.6, False)))
                for i, d in enumerate(moves)]
    import pandas as pd

    m = pd.DataFrame(ratios("E3", "tpch.q01", [0.1, -0.1] * 10) + ratios("E3h", "tpch.q02", [0.03, -0.03] * 10)
                     + ratios("E5", "app.list_users", [0.0] * 20)
                     + [dict(zip(rp.MOVE_COLUMNS, ("E6", "mean", "ramsql.insert", "", "e", "r", 1, 2, 0.7, 1e-4, 2.6, True)))],
                     columns=rp.MOVE_COLUMNS)
    t2 = rp.tau2_by_family(m)
    assert set(t2) == {"tpch", "app"}  # E6 had cell means only
    assert t2["tpch"] == pytest.approx(rp.between_run_variance([0.1, -0.1] * 10, [1e-4] * 20))
    assert t2["tpch"] > rp.between_run_variance([0.03, -0.03] * 10, [1e-4] * 20) > 0
    assert t2["app"] == 0.0
    assert rp.tau2_by_family(pd.DataFrame(columns=rp.MOVE_COLUMNS)) == {}


def test_a_claim_cut_short_keeps_its_quotation_marks_balanced():
    assert rp._short('AcidState: "the benchmarks it wins, it wins by an 8x margin"', 8) == \
        'AcidState: "the benchmarks it wins, it wins by ..."'
    assert rp._short('"short claim"', 8) == '"short claim"'


def test_section_1_1_counts_the_cell_means_beside_the_ratios():
    ratio = rp.Spread("E1", "ratio", 40, 0, 1.0, 3.0, 3.3, 1.3)
    means = rp.Spread("E1", "mean", 40, 39, 20.0, 30.0, 13.0, 5.0)
    text = rp.glance_sentence([ratio, means], [], (["E1"], [], []))
    assert text == ("Run a second time on the same machine, 0 of 40 within-run ratios (0%) and 39 of 40 cell means "
                    "(98%) of E1 moved more than their two runs' intervals allow; every verdict of a claim read here "
                    "kept its word (Section 2.5).")


def test_a_table_of_absolute_numbers_says_how_far_a_second_run_moved_its_cell_means(monkeypatch):
    from harness.studies import runspread

    moves = pd.DataFrame({"study": ["E1"] * 4 + ["E2"], "kind": ["mean"] * 3 + ["ratio", "mean"],
                          "log_move": [math.log(1.2), -math.log(1.1), math.log(1.3), 0.5, 0.9],
                          "beyond": [True, False, True, True, True]})
    monkeypatch.setattr(runspread, "moves_of", lambda runs, root=None: ([], moves))
    assert runspread.means_note(None, "E1") == (
        "These intervals are one run's: a second run of E1 moved 2 of 3 of its cell means more than one run's "
        "intervals allow (median move 20%; Appendix B.10), so an absolute number here is this sitting's.")
    assert runspread.means_note(None, "E6") == ""


def test_a_cell_means_interval_widens_by_the_between_run_spread_of_a_mean_and_the_dagger_is_decided_again():
    """Known values: a cell 1 [e^-0.2, e^0.2] (df large: t = 2.576) with tau^2 = 0.01 for its family becomes
    1 [e^-h, e^h], h = 2.576 * sqrt((0.2 / 2.576)^2 + 0.01) = 0.326; a family without a spread is left alone;
    the steady-state and all-iteration estimates that disagreed on the narrow intervals agree on the wide ones."""
    from harness.studies.runspread import widen_means

    e = math.exp
    s = pd.DataFrame({"benchmark": ["bindings.x", "tpch.q01"], "mean_s": [1.0, 1.0], "ci_low_s": [e(-0.2)] * 2,
                      "ci_high_s": [e(0.2)] * 2, "df": [1e9, 1e9], "alt_mean_s": [e(0.25)] * 2,
                      "alt_ci_low_s": [e(0.05)] * 2, "alt_ci_high_s": [e(0.45)] * 2, "disagree": [True, True]})
    out = widen_means(s, {"bindings": 0.01}, 0.99)
    h = 2.5758293 * math.sqrt((0.2 / 2.5758293) ** 2 + 0.01)
    assert out.loc[0, "ci_low_s"] == pytest.approx(e(-h)) and out.loc[0, "ci_high_s"] == pytest.approx(e(h))
    assert out.loc[0, "alt_ci_low_s"] == pytest.approx(e(0.25 - h), rel=1e-6)
    assert out.loc[1, "ci_low_s"] == pytest.approx(e(-0.2)) and bool(out.loc[1, "disagree"])
    assert not bool(out.loc[0, "disagree"])
    assert s.loc[0, "ci_low_s"] == pytest.approx(e(-0.2))  # the run set's own summary is not touched


def test_widened_tables_take_their_ratios_from_the_widened_cells_and_say_so():
    """A study's table of ratios (`ratio_rows`) is built from the widened reductions, both choices of iterations,
    and its Markdown says the × rows carry the run-to-run spread while the means are one run's; one run's table
    says nothing of the kind."""
    from harness.analysis.stats import CellBoot
    from harness.studies.common import spread_note

    a = ("bindings.x", "", "sqlite/native-c", "c")

    class Inner(_Cells):
        def ratio_rows(self, keys, baseline, boots=None, alt_boots=None):
            return (boots or self.boots)(keys), (alt_boots or self.alt_boots)(keys)

    runs = Inner({a: CellBoot(1.0, 20, 1e-3, 19.0)}, {a: CellBoot(1.0, 20, 2e-3, 19.0)})
    wide = rp.Widened(runs, {"bindings": 0.01})
    got, alt = wide.ratio_rows([a], "sqlite/sqlite3")
    assert got[a].between_var == alt[a].between_var == pytest.approx(0.005)
    assert runs.ratio_rows([a], "sqlite/sqlite3")[0][a].between_var == 0.0
    assert "run-to-run spread" in spread_note(wide) and "means' are one run's" in spread_note(wide)
    assert spread_note(runs) == ""


def test_only_the_campaigns_installed_runs_of_a_replicated_study_carry_a_spread(tmp_path):
    """The spread a replicate measured belongs to the campaign's runs (data/reference/, data/reference-h2/ for
    E3h): a run of one's own, elsewhere, keeps one run's intervals."""
    from harness.analysis.campaign import folder_of
    from harness.fsutil import PROJECT_ROOT
    from harness.studies import runspread

    found = runspread.pairs()
    if not found:
        pytest.skip("no replicate installed in this checkout")

    class Dirs:
        def __init__(self, dirs):
            self.run_dirs = dirs

    for p in found:
        assert runspread.in_campaign(Dirs(list(p.runs)))
        assert (PROJECT_ROOT / folder_of(p.study)).resolve() == Path(p.runs[0]).resolve().parent
    assert not runspread.in_campaign(Dirs([tmp_path / "20260101-000000-abcdef"]))
    assert not runspread.in_campaign(Dirs([]))


@pytest.mark.parametrize("k, tau2", [(40, 0.002), (6, 0.01), (40, 0.0), (4, 0.005)])
def test_the_between_run_components_q_profile_interval_covers_a_known_tau(k, tau2):
    """One pair of runs gives one estimate of tau (reviews 71-73 asked how far off it could be): the Q-profile
    interval holds the true tau^2 about as often as its confidence says, with many cells or few, and with no
    between-run component at all (a lower bound of 0 then)."""
    from harness.studies.runspread import between_run_variance_interval

    rng = np.random.default_rng(7)
    sims, covered = 400, 0
    for _ in range(sims):
        v = rng.uniform(5e-4, 4e-3, k)
        d = rng.normal(0.0, np.sqrt(v + 2 * tau2))
        lo, hi = between_run_variance_interval(d, v, 0.99)
        assert 0.0 <= lo <= hi
        covered += lo <= tau2 <= hi
    assert covered / sims >= 0.97


def test_the_between_run_components_bounds_follow_the_moves():
    """Known values: moves no larger than their own intervals allow give an upper bound near 0 and a lower bound of
    0; moves far beyond them give a positive lower bound; no move, no interval."""
    from harness.studies.runspread import between_run_variance, between_run_variance_interval

    v = np.full(10, 1e-3)
    lo, hi = between_run_variance_interval(np.full(10, 0.01), v)
    assert lo == 0.0 and hi < 1e-3
    d = np.full(10, 0.3)
    lo, hi = between_run_variance_interval(d, v)
    assert 0 < lo < between_run_variance(d, v) < hi
    assert all(math.isnan(x) for x in between_run_variance_interval([], []))


def test_the_upper_bound_of_a_familys_between_run_variance_lies_above_its_estimate():
    """One pair of runs gives one estimate of tau; the sensitivity reading widens by its Q-profile upper bound,
    which lies above the estimate (and above 0 even where the estimate is 0)."""
    import numpy as np
    import pandas as pd

    from harness.studies import runspread

    rng = np.random.default_rng(7)
    moves = rng.normal(0.0, np.sqrt(0.002 + 2 * 0.004), size=30)  # v_k = 0.002, tau^2 = 0.004 per run
    m = pd.DataFrame({"study": "E1", "kind": "ratio", "benchmark": [f"bindings.b{i}" for i in range(30)],
                      "log_move": moves, "var": 0.002})
    est = runspread.tau2_by_family(m)["bindings"]
    up = runspread.tau2_upper_by_family(m)["bindings"]
    assert up > est >= 0
    # moves far smaller than one run's intervals allow: the estimate is 0 and so is every t the data admit
    flat = m.assign(log_move=moves * 0.05)
    assert runspread.tau2_by_family(flat)["bindings"] == 0.0 == runspread.tau2_upper_by_family(flat)["bindings"]


def test_a_changed_verdicts_number_names_its_cell():
    """A claim over several cells shows one number where its verdict changed: the cell it is of is named (review 88
    could not tell which of the prepared-statement claim's cells "1.16x" was)."""
    text = rp._changed_text([("003", "q", "inconclusive", "supported",
                              "at every N both ran: N = 10: 1.16x [1.05, 1.28], N = 1,000: 3.70x [2.69, 5.08]"),
                             ("002", "r", "inconclusive", "refuted", "refuted (the whole interval): query_user MD: "
                                                                     "6.46x [5.33, 7.82]"),
                             ("002", "s", "refuted", "inconclusive", "geometric mean 1.25x [1.06, 1.48]")])
    assert "supported on the replicate (N = 10: 1.16x [1.05, 1.28])" in text
    assert "refuted on the replicate (query_user MD: 6.46x [5.33, 7.82])" in text
    assert "inconclusive on the replicate (1.25x [1.06, 1.48])" in text
