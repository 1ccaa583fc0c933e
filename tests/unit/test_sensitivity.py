"""The verdicts' sensitivity to the reading (harness/studies/sensitivity.py): one test per alternative
reading on synthetic intervals, each decided by the claim's own code, and the block lists every decided
claim of the verdict table."""
import math
import re
from types import SimpleNamespace

import pandas as pd
import pytest

from harness.fsutil import PROJECT_ROOT
from harness.studies import app, inserts
from harness.studies import seedclaims as sc
from harness.studies import sensitivity as sens
from harness.studies import verdicts as v


def _cells(rows):
    return pd.DataFrame(rows, columns=["benchmark", "params", "engine", "runtime", "operation", "corpus", "mean_s"])


def _ratio(table):
    return lambda a, b: table.get((a, b), (math.nan, math.nan, math.nan))


ACID = _cells([
    ("app.list_users", "corpus=MD", "acidstate/acid-state", "haskell-O0", "app.list_users", "MD", 1e-5),
    ("app.list_users", "corpus=MD", "sqlite/hdbc", "haskell-O0", "app.list_users", "MD", 4e-5),
    ("app.list_users", "corpus=MD", "acidstate/acid-state", "haskell-O2", "app.list_users", "MD", 1e-5),
    ("app.list_users", "corpus=MD", "sqlite/hdbc", "haskell-O2", "app.list_users", "MD", 9e-5),
])


def test_acid_refuted_at_line_8_is_inconclusive_with_the_tolerance_of_about():
    ratio = _ratio({(1, 0): (4.32, 3.46, 5.38), (3, 2): (9.0, 8.5, 9.5)})
    assert app.claim_acid(ACID, ratio)["verdict"].word == v.REFUTED
    loose = app.claim_acid(ACID, ratio, line=8 / v.ABOUT)
    assert 8 / v.ABOUT == pytest.approx(5.33, abs=0.01)
    assert loose["verdict"].word == v.INCONCLUSIVE
    assert [x.word for *_, x in loose["cells"]] == [v.INCONCLUSIVE]
    as_claim = lambda c: sc.Claim("002", "q", "", "", c["verdict"], "claim_acid", tuple(c["cells"]))  # noqa: E731
    assert (sens.changes(as_claim(app.claim_acid(ACID, ratio)), as_claim(loose))
            == "list_users MD 4.32x [3.46, 5.38]: refuted → inconclusive; cells: 1 inconclusive")
    # a cell wholly above 5.33 would support it there while still straddling 8
    assert app.claim_acid(ACID, _ratio({(1, 0): (6.5, 5.4, 8.2)}), line=8 / v.ABOUT)["verdict"].word == v.SUPPORTED


def test_acid_on_the_optimised_build_reads_the_O2_cells_only():
    ratio = _ratio({(1, 0): (4.32, 3.46, 5.38), (3, 2): (9.0, 8.5, 9.5)})
    o2 = app.claim_acid(ACID, ratio, seed_build=False)
    assert o2["verdict"].word == v.SUPPORTED
    assert [r for _, r, _ in o2["cells"]] == [(9.0, 8.5, 9.5)]


def test_sqlite_loses_is_decided_only_when_both_gaps_are_read_away():
    cells = _cells([(f"app.{op}", f"corpus={c}", e, "haskell-O0", f"app.{op}", c, 1e-4)
                    for op in ("list_users", "query_user") for c in ("SM", "MD")
                    for e in ("sqlite/hdbc", "acidstate/acid-state")])
    # every sqlite/hdbc row (even index) over the AcidState row after it: wholly above 1
    ratio = _ratio({(i, i + 1): (3.0, 2.0, 4.5) for i in range(0, len(cells), 2)})
    assert app.claim_sqlite(cells, ratio)["verdict"].word == v.INCONCLUSIVE
    corpora = app.claim_sqlite(cells, ratio, measured_corpora=True)["verdict"]
    assert corpora.word == v.INCONCLUSIVE and "MongoDB" in corpora.why and "not measured" not in corpora.why
    contenders = app.claim_sqlite(cells, ratio, measured_contenders=True)["verdict"]
    assert contenders.word == v.INCONCLUSIVE and "LG, LG2 not measured" in contenders.why
    assert "MongoDB" not in contenders.why
    both = app.claim_sqlite(cells, ratio, measured_corpora=True, measured_contenders=True)
    assert both["verdict"].word == v.SUPPORTED
    assert len(both["cells"]) == 4
    # a cell that refutes it refutes it under every reading
    bad = {(i, i + 1): (3.0, 2.0, 4.5) for i in (2, 4, 6)}
    bad[(0, 1)] = (0.5, 0.4, 0.7)
    assert app.claim_sqlite(cells, _ratio(bad), True, True)["verdict"].word == v.REFUTED


SEED003 = [(10, (1.38, 0.881, 2.17)), (1000, (4.04, 2.86, 5.69)), (100000, (6.29, 4.94, 8.00))]


@pytest.fixture
def seed003(monkeypatch):
    same = v.Setting("SQLite", "C API", "C", "inserts")
    monkeypatch.setattr(inserts, "gain_at_every_n", lambda *a, **k: list(SEED003))
    monkeypatch.setattr(inserts, "cells", lambda summary: pd.DataFrame())
    monkeypatch.setattr(sc, "seed003_setting", lambda runs, op: (same, same))
    return SimpleNamespace(summary=None)


def test_prepared_inconclusive_at_every_n_is_supported_from_n_1000(seed003):
    assert sc.seed003_prepared(seed003).verdict.word == v.INCONCLUSIVE
    big = sc.seed003_prepared(seed003, min_rows=1000)
    assert big.verdict.word == v.SUPPORTED
    assert [label for label, *_ in big.cells] == ["N = 1,000", "N = 100,000"]
    assert sc.seed003_prepared(seed003, rule=v.most_cells).verdict.word == v.SUPPORTED
    base = sc.seed003_prepared(seed003)
    assert sens.changes(base, big) == "leaves out N = 10 1.38x [0.881, 2.17] (inconclusive); cells: 2 supported"
    assert sens.inserts_ns(base) == [10, 1000, 100000]


def test_ramsql_on_the_fixed_code_by_the_same_rule():
    own = (59.2, 45.2, 77.4)  # the seed's code: straddles 100x / 1.5, refutes 677x
    assert sc.ramsql_verdict(own, 677.0, [59.0, 56.0]).word == v.INCONCLUSIVE
    assert sc.ramsql_verdict(own, math.nan, []).word == v.INCONCLUSIVE  # against 100x alone: still straddles
    fixed = (22.5, 16.7, 30.2)
    assert sc.ramsql_verdict(fixed, 677.0, []).word == v.REFUTED  # wholly below 66.7 and 451
    assert sc.ramsql_verdict(fixed, math.nan, []).word == v.REFUTED
    # a `go test` session outside the interval leaves it inconclusive (the harness rule)
    disagree = sc.ramsql_verdict(fixed, 677.0, [23.0, 31.6])
    assert disagree.word == v.INCONCLUSIVE and "31.6x" in disagree.why
    assert sc.ramsql_verdict(fixed, 677.0, [23.0, 29.0]).word == v.REFUTED


def _claim(key, word, quote="q"):
    return sc.Claim("002", quote, "", "", v.Verdict(word), key)


def test_every_decided_claim_gets_a_row_and_only_those(monkeypatch):
    stub = lambda runs, c: (sens.Reading("another line", v.Verdict(v.INCONCLUSIVE), "x"),)  # noqa: E731
    same = lambda runs, c: (sens.Reading("a wider rule", v.Verdict(c.verdict.word), "y"),)  # noqa: E731
    monkeypatch.setattr(sens, "ALTERNATIVES", {"a": ("claim A", stub), "b": ("claim B", same)})
    items = [_claim("a", v.REFUTED), _claim("b", v.INCONCLUSIVE), _claim("c", v.SUPPORTED, "claim C quoted"),
             _claim("d", v.UNTESTABLE)]
    rows = sens.rows(None, items)
    assert [r.claim.key for r in rows] == ["a", "b", "c"]
    assert [r.changed for r in rows] == [True, False, False]
    md = sens.markdown(rows)
    for name in ("claim A", "claim B", "claim C quoted"):
        assert f"| {name} |" in md
    assert "no alternative reading declared" in md
    assert "1 of the 3 changes under at least one" in md
    assert sens.sentence(rows).startswith("1 of the 3 verdicts of claims read here (claim A) changes under")


def test_the_sentence_stays_short_with_every_claim_changed():
    rows = [sens.Row(_claim(k, v.REFUTED), k, (sens.Reading("r", v.Verdict(v.INCONCLUSIVE), ""),))
            for k in sens.ALTERNATIVES]
    assert len(sens.sentence(rows).split()) <= 40


def _block(text, name):
    return text.split(f"<!-- BEGIN generated:{name} -->", 1)[1].split(f"<!-- END generated:{name} -->", 1)[0]


def test_the_committed_block_lists_every_decided_claim_of_the_verdict_table():
    text = (PROJECT_ROOT / "paper.md").read_text()
    vocabulary = "|".join(v.WORDS)
    # one run's verdict, the table's next-to-last column, is what the readings start from
    last = [line.rstrip(" |").rsplit(" | ", 2)[-2] for line in _block(text, "seed-verdicts").splitlines()
            if line.startswith("| ") and not line.startswith("| seed |")]
    words = [m.group(1) for cell in last if (m := re.match(rf"({vocabulary})\b", cell)) and m.group(1) != v.UNTESTABLE]
    rows = [line.split("|") for line in _block(text, "verdict-sensitivity").splitlines()
            if line.startswith("| ") and not line.startswith("| claim |")]
    named = [(r[1].strip(), r[2].strip()) for r in rows if r[1].strip()]
    assert len(named) == len(words) > 0
    assert sorted(w for _, w in named) == sorted(words)  # each with the verdict table's word
    assert f"of the {len(words)} verdicts of claims read here" in _block(text, "verdict-sensitivity-summary")


class _Boots:
    """A run set of fixed cell reductions: what `sensitivity.Widened` wraps."""

    confidence = 0.99

    def __init__(self, boots):
        self._b = boots

    def boots(self, keys=None):
        return {k: b for k, b in self._b.items() if keys is None or k in set(keys)}


def test_widened_cells_give_a_ratio_the_between_run_variance_of_its_study():
    """Each cell gains tau^2 / 2 as its between-run variance, so a ratio of two cells of the study gains tau^2 and
    a verdict that rested on the narrow interval can fall to inconclusive, while the cell's own interval stays one
    run's; a family no replicate measured is left alone, and a cell asked for twice is one object (one term in a
    geometric mean)."""
    from harness.analysis.stats import CellBoot, combine_log_ratios
    from harness.analysis.stats.intervals import cell_interval

    a, b = ("app.x", "", "acidstate", "haskell-O0"), ("app.x", "", "sqlite/hdbc", "haskell-O0")
    other = ("tpch.q01", "", "duckdb", "cpython")
    runs = _Boots({a: CellBoot(1.0, 20, 2e-4, 19.0), b: CellBoot(10.0, 20, 2e-4, 19.0), other: CellBoot(1.0, 20, 2e-4, 19.0)})
    tau2 = {"app": 0.09}
    wide = sens.Widened(runs, tau2)
    got = wide.boots([a, b])
    assert got[a].between_var == pytest.approx(0.045) and got[a].log_var == pytest.approx(2e-4)
    assert wide.boots([a])[a] is got[a]
    assert wide.boots([other])[other].between_var == 0.0
    one = CellBoot(1.0, 20, 2e-4, 19.0, sample=object())  # any sample: the log-scale interval does not read it
    assert cell_interval(one, "process-bootstrap", 0.99)[1:3] == cell_interval(
        wide._wide({("app.y", "", "acidstate", "haskell-O0"): one}, False)[("app.y", "", "acidstate", "haskell-O0")],
        "process-bootstrap", 0.99)[1:3]
    assert wide.confidence == 0.99  # everything else is the run set's own
    narrow = combine_log_ratios([(runs.boots([b])[b], runs.boots([a])[a])])
    widened = combine_log_ratios([(got[b], got[a])])
    assert narrow[0] == pytest.approx(widened[0]) == pytest.approx(10.0)
    assert v.at_least(narrow[1], narrow[2], 8.0).word == v.SUPPORTED
    assert v.at_least(widened[1], widened[2], 8.0).word == v.INCONCLUSIVE


def test_the_widened_reading_is_a_row_of_every_decided_claim_and_counts_in_robust(monkeypatch):
    """Each decided claim is decided again on the widened run set by the same code (here a stand-in for
    `seedclaims.claims` that reads the run set it gets); a claim that keeps its word widened and
    on the replicate is robust, one a replicate changed is not."""
    seen = []

    def claims(runs):
        seen.append(type(runs).__name__)
        wide = isinstance(runs, sens.Widened)
        return [_claim("a", v.INCONCLUSIVE if wide else v.SUPPORTED, "claim A"), _claim("b", v.REFUTED, "claim B"),
                _claim("c", v.SUPPORTED, "claim C"), _claim("d", v.UNTESTABLE)]

    monkeypatch.setattr(sens, "ALTERNATIVES", {})
    monkeypatch.setattr(sc, "claims", claims)
    items = claims(_Boots({}))
    rows = sens.rows(_Boots({}), items, {"app": 0.01})
    assert seen == ["_Boots", "Widened"]
    assert [r.claim.key for r in rows] == ["a", "b", "c"]
    assert [r.readings[0].reading for r in rows] == [sens.WIDENED] * 3
    assert [r.changed for r in rows] == [True, False, False]
    assert "between-run component" in sens.markdown(rows) and "widened intervals" in sens.sentence(rows)
    kept = sens.robust(rows, {("002", "claim C")})
    assert [r.claim.key for r in kept] == ["b"]
    text = sc.abstract_sentence(items, kept)
    # what holds on the replicate and widened leads, the rest inconclusive, then one run's tally by the fixed rules
    assert ("Where the replicate and the run-to-run spread agree (Section 10), 1 is refuted and 2 are "
            "inconclusive;") in text
    assert text.endswith("one run alone gives 2 supported, 1 refuted.")
    assert "(Section 10), 3 are inconclusive;" in sc.abstract_sentence(items, [])
    # every word of one run kept: the abstract says so rather than repeat the tally
    same = sc.abstract_sentence(items[1:], [r for r in rows if r.claim.key in "bc"])
    assert same.endswith("1 is supported and 1 is refuted; one run alone gives the same.")
    assert "1 is refuted (claim B's name) and 2 are inconclusive" in sc.abstract_sentence(items, kept, ["claim B's name"])
    a_row = next(r for r in rows if r.claim.key == "a")
    both = sc.abstract_sentence(items, [a_row, *kept], ["A", "B"])
    assert "1 is supported (A), 1 is refuted (B) and 1 is inconclusive;" in both
    # a reading that gives another word on the replicate's runs is reported beside the verdict, not a veto on it
    there = [sens.Row(_claim("b", v.REFUTED, "claim B"), "claim B",
                      (sens.Reading("another line", v.Verdict(v.INCONCLUSIVE), "x"),))]
    assert [r.claim.key for r in sens.robust(rows, {("002", "claim C")}, there)] == ["b"]
    assert sens.other_readings(rows, there)["b"] == "on the replicate, also another line"
    # an inconclusive verdict that stays so is never counted as robust
    stuck = [sens.Row(_claim("e", v.INCONCLUSIVE, "claim E"), "claim E", ())]
    assert sens.robust(stuck, set()) == []
    assert "on a replicate" not in sc.abstract_sentence(items)  # no replicate: not said
    # no between-run component measured: no widened reading
    assert all(not r.readings for r in sens.rows(_Boots({}), items, {"app": 0.0}))


def test_the_widened_reading_shows_each_cells_widened_interval_and_marks_a_word_that_moved():
    cells = (("N = 1,000", (3.0, 2.2, 4.0), v.Verdict(v.SUPPORTED)),
             ("N = 100,000", (5.9, 4.7, 7.4), v.Verdict(v.SUPPORTED)))
    wide = (("N = 1,000", (3.0, 0.9, 9.0), v.Verdict(v.INCONCLUSIVE)),
            ("N = 100,000", (5.9, 4.1, 8.4), v.Verdict(v.SUPPORTED)))
    base = sc.Claim("003", "q", "", "", v.Verdict(v.SUPPORTED), "k", cells)
    alt = sc.Claim("003", "q", "", "", v.Verdict(v.INCONCLUSIVE), "k", wide)
    assert sens.widened_changes(base, alt) == ("N = 1,000 3.00x [0.900, 9.00] supported → inconclusive; "
                                               "N = 100,000 5.90x [4.10, 8.40] supported; "
                                               "cells: 1 supported, 1 inconclusive")
    plain = sc.Claim("004", "q", "", "RamSQL / SQLite: 21.5x [14.9, 31.0]", v.Verdict(v.SUPPORTED), "k")
    assert sens.widened_changes(plain, plain) == "RamSQL / SQLite: 21.5x [14.9, 31.0]"


def test_a_refutation_by_one_of_k_cells_at_bonferronis_confidence_is_a_reading(monkeypatch):
    """The rule reviews proposed after the data were seen (`seedclaims.family_wise_claims`), a reading, not the
    table's: only a refuted claim over several cells is decided again, its claim functions seeing the run set
    at 1 - 0.01 / k (3 cells: 99.67%); a refuting cell whose wider interval reaches the line leaves it
    inconclusive, its reason said; supported and one-cell claims stand."""
    seen = []
    one = ("c1", (5.0, 3.3, 7.8), v.Verdict(v.REFUTED))
    cells3 = (one, ("c2", (8.0, 5.4, 11.0), v.Verdict(v.INCONCLUSIVE)),
              ("c3", (13.0, 8.7, 20.0), v.Verdict(v.SUPPORTED)))

    def raw(runs):
        seen.append(round(runs.confidence, 5))
        word = v.INCONCLUSIVE if runs.confidence > 0.99 else v.REFUTED
        return [sc.Claim("002", "q", "", "", v.Verdict(word, "cells: ..."), "acid", cells3),
                sc.Claim("003", "q", "", "", v.Verdict(v.SUPPORTED), "prep", cells3),
                sc.Claim("004", "q", "", "", v.Verdict(v.REFUTED), "single", (one,))]

    runs = SimpleNamespace(confidence=0.99)
    monkeypatch.setattr(sc, "claims", lambda r, family_wise=False: (sc.family_wise_claims(r, raw(r)) if family_wise
                                                                    else raw(r)))
    table = sc.claims(runs)
    assert [c.verdict.word for c in table] == [v.REFUTED, v.SUPPORTED, v.REFUTED]  # the table's rules
    adjusted = sc.family_wise_claims(runs, table)
    assert 0.99667 in seen
    assert [c.verdict.word for c in adjusted] == [v.INCONCLUSIVE, v.SUPPORTED, v.REFUTED]
    assert "not at 99.67%, Bonferroni's confidence for its 3 cells together" in adjusted[0].verdict.why
    got = sens.family_wise(runs, table)
    assert list(got) == ["acid"] and got["acid"].verdict.word == v.INCONCLUSIVE
    assert "counted at 99.67%, Bonferroni's confidence for them together (a rule added after review)" in \
        got["acid"].reading


def test_the_verdicts_own_cells_give_their_seeds_families_a_between_run_component():
    """A verdict's cells that moved between run and replicate more than their intervals allow give its seed's
    families a tau^2; the widened reading takes the larger of that and the study's, and the sentence says it."""
    from harness.studies import runspread

    def claim(cells):
        return sc.Claim("002", "q", "", "", v.Verdict(v.REFUTED), "k", cells)

    run = [claim(tuple((f"c{i}", (5.0, 4.0, 6.25), v.Verdict(v.REFUTED)) for i in range(4)))]
    moved = [claim(tuple((f"c{i}", (5.0 * f, 4.0 * f, 6.25 * f), v.Verdict(v.REFUTED))
                         for i, f in enumerate((1.5, 0.67, 1.4, 0.7))))]
    found = runspread.claims_tau2(run, moved)
    t2, n = found["002"]
    assert n == 4 and t2 > 0.01
    assert runspread.claims_tau2(run, run)["002"][0] == 0.0  # no move, no component
    merged = sens.with_claims({"app": 0.0, "tpch": 0.02}, found)
    assert merged["app"] == pytest.approx(t2) and merged["tpch"] == 0.02
    text = sens.claims_sentence(found)
    assert text.startswith("The cells the verdicts rest on moved between the run and its replicate with a "
                           "between-run component of ") and "(seed 002, 4 cells)" in text


def test_the_tally_under_the_rules_added_after_review_is_said_when_it_differs(monkeypatch):
    table = [_claim("acid", v.REFUTED), _claim("seed003_prepared", v.INCONCLUSIVE), _claim("x", v.UNTESTABLE)]
    later = [_claim("acid", v.INCONCLUSIVE), _claim("seed003_prepared", v.SUPPORTED), _claim("x", v.UNTESTABLE)]
    monkeypatch.setattr(sc, "claims", lambda runs, family_wise=False: later if family_wise else table)
    monkeypatch.setattr(sc, "seed003_prepared", lambda runs, commit_rule=False: later[1])
    assert sens.later_rules(None, table) == ("With the two rules reviews proposed after the data were seen, one run would "
                                             "read 1 supported, 1 inconclusive.")
    monkeypatch.setattr(sc, "claims", lambda runs, family_wise=False: table)
    monkeypatch.setattr(sc, "seed003_prepared", lambda runs, commit_rule=False: table[1])
    assert sens.later_rules(None, table) == ""  # the same tally: nothing to say


def test_the_verdict_is_the_declared_reading_on_both_runs_and_other_readings_sit_beside_it():
    """Per decided claim: "yes" when the replicate and the widened intervals keep its word; else which of the two
    changes it. The alternative readings a reader might hold are named in a column of their own (on the run,
    then those only the replicate's runs add), never a veto on the verdict."""
    w = v.Verdict
    a = sens.Row(_claim("a", v.SUPPORTED, "claim A"), "claim A",
                 (sens.Reading(sens.WIDENED, w(v.SUPPORTED), "x"), sens.Reading("r1", w(v.SUPPORTED), "x")))
    b = sens.Row(_claim("b", v.REFUTED, "claim B"), "claim B",
                 (sens.Reading(sens.WIDENED, w(v.INCONCLUSIVE), "x"), sens.Reading("r1", w(v.INCONCLUSIVE), "x"),
                  sens.Reading("r2", w(v.SUPPORTED), "x")))
    c = sens.Row(_claim("c", v.INCONCLUSIVE, "claim C"), "claim C", (sens.Reading("r1", w(v.INCONCLUSIVE), "x"),))
    d = sens.Row(_claim("d", v.REFUTED, "claim D"), "claim D",
                 (sens.Reading(sens.WIDENED, w(v.REFUTED), "x"), sens.Reading("r1", w(v.INCONCLUSIVE), "x")))
    there = [sens.Row(_claim("c", v.INCONCLUSIVE, "claim C"), "claim C", (sens.Reading("r1", w(v.REFUTED), "x"),)),
             sens.Row(_claim("d", v.REFUTED, "claim D"), "claim D",
                      (sens.Reading("r1", w(v.INCONCLUSIVE), "x"), sens.Reading("r3", w(v.SUPPORTED), "x")))]
    got = sens.holds([a, b, c, d], {("002", "claim B")}, there)
    # only the replicate and the run-to-run spread decide; d keeps its word though a reading would change it
    assert got == {"a": "yes", "b": "no: the replicate, widened", "c": "yes", "d": "yes"}
    only_wide = sens.Row(b.claim, "claim B", (sens.Reading(sens.WIDENED, w(v.INCONCLUSIVE), "x", "widened"),))
    assert sens.holds([only_wide], set()) == {"b": "no: widened"}
    others = sens.other_readings([a, b, c, d], there)
    # each reading that changes one run's word is named (its short name, else its text); the widened one never
    assert others == {"a": "none", "b": "r1, r2", "c": "on the replicate, also r1", "d": "r1; on the replicate, also r3"}
    labelled = sens.Row(b.claim, "claim B", (sens.Reading("the long text of r1", w(v.INCONCLUSIVE), "x", "r1 short"),))
    assert sens.other_readings([labelled]) == {"b": "r1 short"}
    # the first verdict is one run's word where it holds; otherwise inconclusive, what changes it said
    assert [sens.overall(r.claim.verdict.word, got[r.claim.key]) for r in (a, b, c, d)] == [
        v.SUPPORTED, v.INCONCLUSIVE, v.INCONCLUSIVE, v.REFUTED]
    assert [r.claim.key for r in sens.robust([a, b, c, d], {("002", "claim B")}, there)] == ["a", "d"]
    assert sens.overall(v.REFUTED, None) == v.REFUTED  # no replicate: one run's word
    assert sens.overall(v.UNTESTABLE, "no: the replicate") == v.UNTESTABLE
    table = sc.markdown([a.claim, b.claim, c.claim, d.claim], holds=got, others=others)
    assert "| verdict | one run's verdict (rules) | other readings that change it |" in table
    assert "| **inconclusive** (changed by: the replicate, widened) | refuted | r1, r2 |" in table
    assert "| **supported** | supported | none |" in table
    assert "| **refuted** | refuted | r1; on the replicate, also r3 |" in table
    assert "give the same word, else inconclusive (what changes it named): 1 supported, 1 refuted, 2 inconclusive." in table
    assert "One run's verdict, on its own intervals: 1 supported, 2 refuted, 1 inconclusive." in table
    assert "(3 of 4 claims)" in table and "not counted against it" in table
    kept = sc.markdown([a.claim, d.claim], holds=got, others=others)
    assert "One run's verdict, on its own intervals: the same." in kept
    assert "one run's verdict" not in sc.markdown([a.claim])


def test_the_scrypt_claims_short_name_says_down_to_which_cost_it_holds(monkeypatch):
    """Review 79: the one verdict that holds everywhere rests on a scrypt cost the seed never named, so the
    abstract's name for it says the costs at which it holds (from the claim's own code), not "at our cost"."""
    rows = [sens.Row(_claim("seed002_scrypt", v.SUPPORTED), "x", ()), sens.Row(_claim("claim_acid", v.REFUTED), "y", ())]
    monkeypatch.setattr(sc, "scrypt_holds_down_to", lambda runs: 11)
    assert sens.short_names(None, rows) == ["seed 002's scrypt share, at scrypt costs N ≥ 2^11", "AcidState's 8x"]
    monkeypatch.setattr(sc, "scrypt_holds_down_to", lambda runs: None)
    assert sens.short_names(None, rows)[0] == sens.SHORT["seed002_scrypt"]


def test_a_reading_the_seeds_own_numbers_fail_is_shown_but_not_counted():
    """Review 80: "works well" read as within 1.5x, when the seed's own SelectHashMap10K is 3.55x, is not a reading
    of the seed's claim; it stays in the sensitivity table, marked, and changes no verdict's robustness."""
    w = v.Verdict
    failed = sens.Reading("within 1.5x of SQLite", w(v.REFUTED), "x", "within 1.5x", seed_fails="the seed's own is 3.55x")
    kept = sens.Reading("a direct test", w(v.SUPPORTED), "x", "direct test")
    row = sens.Row(_claim("h", v.SUPPORTED, "claim H"), "claim H", (failed, kept))
    assert not row.changed and row.counted == (kept,)
    assert sens.holds([row], set()) == {"h": "yes"}
    md = sens.markdown([row])
    assert "refuted (not counted: the seed's own is 3.55x)" in md and "shown, not counted" in md
    # the seed's own RamSQL ratios come from its second table: the HashMap select and the 100-row B-tree select
    assert sens.seed_ratio("ramsql.select_key") == pytest.approx(30.73 / 8.651)
    assert sens.seed_ratio("ramsql.select") == pytest.approx(54.52 / 11.43)


def test_the_btree_claim_is_read_at_half_an_order_over_every_size_too(monkeypatch):
    """Review 87: "clearly" as half an order of magnitude (3.16x), which the seed's own 100-row B-tree select (4.77x)
    meets, over every table size we ran: a reading of the seed's claim, so it counts (the order-of-magnitude reading
    over every size, which the seed's own 4.77x fails, is shown but not counted)."""
    calls = []

    def fake(runs, **kw):
        calls.append(kw)
        return _claim("seed004_btree", v.SUPPORTED)

    monkeypatch.setattr(sc, "seed004_btree", fake)
    readings = {r.name: r for r in sens.ramsql_btree(None, _claim("seed004_btree", v.SUPPORTED))}
    both = readings["half an order, every table size"]
    assert not both.seed_fails
    assert {"factor": sens.HALF_ORDER, "also": ("ramsql.select_fixed",)} in calls
    assert readings["every table size"].seed_fails
