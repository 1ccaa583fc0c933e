"""One test per verdict rule (harness/studies/verdicts.py): each fails if the rule's line moves."""
import math

import pytest

from harness.studies import verdicts as v


def test_at_least_supported_refuted_inconclusive():
    assert v.at_least(8.0, 20.0, 8).word == v.SUPPORTED
    assert v.at_least(2.0, 7.9, 8).word == v.REFUTED
    straddle = v.at_least(4.0, 16.0, 8)
    assert straddle.word == v.INCONCLUSIVE
    assert straddle.detectable == pytest.approx(2.0)
    assert "2x" in straddle.why


def test_above_needs_the_whole_interval_past_the_line():
    assert v.above(1.01, 2.0).word == v.SUPPORTED
    assert v.above(0.5, 0.99).word == v.REFUTED
    assert v.above(1.0, 2.0).word == v.INCONCLUSIVE  # touching the line decides nothing
    assert v.above(0.277, 4.28).word == v.INCONCLUSIVE


def test_about_is_a_band_of_factor_about():
    assert v.about(2.5, 3.5, 3.0).word == v.SUPPORTED
    assert v.about(1.0, 1.9, 3.0).word == v.REFUTED
    assert v.about(4.6, 9.0, 3.0).word == v.REFUTED
    assert v.about(17.0, 152.0, 100.0).word == v.INCONCLUSIVE
    assert v.about(2.5, 3.5, 3.0, factor=1.1).word == v.INCONCLUSIVE


@pytest.mark.parametrize("low,high", [(0.0, 2.0), (-1.0, 2.0), (math.nan, 2.0), (1.0, math.inf), (3.0, 2.0)])
def test_no_interval_is_never_a_decision(low, high):
    for rule in (lambda: v.at_least(low, high, 1), lambda: v.above(low, high), lambda: v.about(low, high, 1)):
        out = rule()
        assert out.word == v.INCONCLUSIVE
        assert "no interval" in out.why


def test_untestable_says_how():
    out = v.untestable("FerretDB's auto-increment scans the collection")
    assert out.word == v.UNTESTABLE and "FerretDB" in str(out)


def test_every_cell_one_refutation_refutes_and_straddles_stay_inconclusive():
    s, r, i = v.Verdict(v.SUPPORTED), v.Verdict(v.REFUTED), v.at_least(4.0, 16.0, 8)
    out = v.every_cell([r] * 5 + [s] + [i] * 10)
    assert out.word == v.REFUTED
    assert "1 supported, 5 refuted, 10 inconclusive" in out.why
    assert v.every_cell([s, s]).word == v.SUPPORTED
    assert v.every_cell([s, i]).word == v.INCONCLUSIVE
    assert v.every_cell([]).word == v.UNTESTABLE


def test_most_cells_needs_a_strict_majority():
    s, r, i = v.Verdict(v.SUPPORTED), v.Verdict(v.REFUTED), v.Verdict(v.INCONCLUSIVE)
    assert v.most_cells([s, s, i]).word == v.SUPPORTED
    assert v.most_cells([r, r, s]).word == v.REFUTED
    assert v.most_cells([s, r]).word == v.REFUTED  # half refute: more than half can no longer support it
    assert v.most_cells([s, r, i]).word == v.INCONCLUSIVE and v.most_cells([r, i]).word == v.REFUTED
    assert v.most_cells([r, r, s, s, i]).word == v.INCONCLUSIVE
    assert v.most_cells([r] * 17 + [i] * 31).word == v.INCONCLUSIVE


def test_rank_test_with_three_a_side_is_never_evidence():
    assert v.rank_test_min_p(3, 3) == pytest.approx(0.1)
    assert not v.rank_test_is_evidence(3, 3)
    assert v.rank_test_is_evidence(5, 5)  # 2/252
    assert not v.rank_test_is_evidence(0, 5)


def test_detectable_factor_is_the_log_half_width():
    assert v.detectable_factor(1.0, 4.0) == pytest.approx(2.0)
    assert math.isnan(v.detectable_factor(0.0, 4.0))


def test_large_factors_are_written_for_people():
    assert v.factor_text(2.5) == "2.5x" and v.factor_text(6810.4) == "6,810x"
    out = v.every_cell([v.at_least(1.0, 4.0, 3), v.at_least(0.001, 46.0, 3)])
    assert "2x to 214x" in out.why


# --- the like-for-like rule (issue 23) ---------------------------------------------------------

def _setting(**kw):
    base = dict(engine="SQLite 3.40.1", driver="C API", runtime="C (gcc 12)", operation="fold", hardware="here")
    return v.Setting(**{**base, **kw})


def test_a_claim_is_decided_only_when_every_part_of_its_setting_matches():
    decided = v.Verdict(v.REFUTED)
    same = _setting()
    assert v.like_for_like(same, _setting(hardware="another machine"), lambda: decided) is decided
    for part, other in (("engine", "SQLite 3.54.1"), ("driver", "apsw"), ("runtime", "C (gcc 4)"),
                        ("operation", "select")):
        out = v.like_for_like(same, _setting(**{part: other}), lambda: decided)
        assert out.word == v.UNTESTABLE, part
        assert f"{part}: the seed's" in out.why and other in out.why


def test_an_absolute_number_never_decides_a_verdict_even_on_a_matching_setting():
    out = v.like_for_like(_setting(hardware="a Core i3"), _setting(hardware="a Xeon"), lambda: v.Verdict(v.SUPPORTED),
                          absolute=True)
    assert out.word == v.UNTESTABLE and "absolute" in out.why and "a Core i3" in out.why and "a Xeon" in out.why


def test_an_unstated_seed_version_cannot_match_ours():
    out = v.like_for_like(_setting(engine="SQLite of 2013 (version unstated)"), _setting(), lambda: v.Verdict(v.REFUTED))
    assert out.word == v.UNTESTABLE and "unstated" in out.why


def test_a_claims_own_substitute_reason_is_kept_beside_the_setting_differences():
    out = v.like_for_like(_setting(), _setting(runtime="GHC 9"), lambda: v.untestable("FerretDB stands in"))
    assert out.word == v.UNTESTABLE and "runtime" in out.why and "FerretDB stands in" in out.why
    assert v.like_for_like(_setting(), _setting(), lambda: v.untestable("FerretDB")).why == "FerretDB"


def test_an_untestable_claim_keeps_what_its_interval_says_on_todays_stack():
    """A second tier: a claim untestable only because our versions differ from the seed's still
    gets the word its interval gives against the claim's line (never replacing the verdict); an
    absolute number gets none."""
    from harness.studies import verdicts as v

    seed = v.Setting("SQLite 3.6", "C API", "C", "insert")
    ours = v.Setting("SQLite 3.40.1", "C API", "C", "insert")
    refuted = lambda: v.Verdict(v.REFUTED, "the interval lies below the line")  # noqa: E731
    got = v.like_for_like(seed, ours, refuted)
    assert got.word == v.UNTESTABLE and got.today == v.REFUTED and "3.6" in got.why
    assert v.like_for_like(seed, ours, refuted, absolute=True).today == ""
    assert v.like_for_like(seed, seed, refuted) == v.Verdict(v.REFUTED, "the interval lies below the line")
    assert v.like_for_like(seed, ours, lambda: v.untestable("FerretDB is not MongoDB")).today == ""


# --- the verdict on today's stack: declared substitutions ("every verdict earned") ------------------

def test_every_declared_substitution_says_what_may_differ_and_why():
    keys = [s.key for s in v.SUBSTITUTIONS]
    assert len(keys) == len(set(keys)) and set(v.RULES) == set(keys)
    for s in v.SUBSTITUTIONS:
        assert s.what and s.why and s.parts and set(s.parts) <= set(v.LIKE_FOR_LIKE), s.key
        # no rule lets a claim be tested on another operation, except the seed's own benchmark with its
        # defects fixed (S3), which names them
        assert "operation" not in s.parts or (s.key == "S3" and "defects fixed" in s.what), s.key
    md = v.substitutions_markdown()
    assert all(f"| {k} |" in md for k in keys) and "declared" in md


def _covered_and_not(key):
    """A claim differing from the seed only in the parts rule `key` allows is decided through it; the same
    difference without the rule, or one more part the rule does not allow, is untestable, the part named."""
    refuted = lambda: v.Verdict(v.REFUTED)  # noqa: E731
    rule = v.RULES[key]
    seed = _setting()
    ours = _setting(**{p: getattr(seed, p) + " (another)" for p in rule.parts})
    got = v.on_todays_stack(seed, ours, refuted, uses=(key,))
    assert got.word == v.REFUTED and got.rules == (key,) and got.as_seed == v.UNTESTABLE
    without = v.on_todays_stack(seed, ours, refuted)
    assert without.word == v.UNTESTABLE and all(f"{p}: the seed's" in without.why for p in rule.parts)
    extra = next(p for p in v.LIKE_FOR_LIKE if p not in rule.parts)
    beyond = v.on_todays_stack(seed, _setting(**{p: getattr(ours, p) for p in rule.parts}, **{extra: "other"}),
                               refuted, uses=(key,))
    assert beyond.word == v.UNTESTABLE and f"{extra}: the seed's" in beyond.why
    assert not any(f"{p}: the seed's" in beyond.why for p in rule.parts)


def test_rule_s1_newer_releases_of_the_same_products():
    assert set(v.RULES["S1"].parts) == {"engine", "driver", "runtime"}
    _covered_and_not("S1")
    got = v.on_todays_stack(_setting(engine="SQLite of 2013 (version unstated)"), _setting(),
                            lambda: v.Verdict(v.REFUTED), uses=("S1",))
    assert got.word == v.REFUTED and got.rules == ("S1",)


def test_rule_s2_c_for_cpp_calling_the_same_c_api():
    assert v.RULES["S2"].parts == ("runtime",) and "C++" in v.RULES["S2"].what
    _covered_and_not("S2")


def test_rule_s3_the_seeds_benchmark_with_its_defects_fixed():
    assert v.RULES["S3"].parts == ("operation",) and "BIGSERIAL" in v.RULES["S3"].what
    _covered_and_not("S3")


def test_no_substitution_decides_an_absolute_number_a_claims_own_reason_or_an_unknown_rule():
    import pytest

    ok = lambda: v.Verdict(v.SUPPORTED)  # noqa: E731
    out = v.on_todays_stack(_setting(hardware="a Core i3"), _setting(hardware="a Xeon"), ok, uses=("S1",),
                            absolute=True)
    assert out.word == v.UNTESTABLE and "a Core i3" in out.why
    out = v.on_todays_stack(_setting(), _setting(), lambda: v.untestable("FerretDB stands in"), uses=("S1",))
    assert out.word == v.UNTESTABLE and out.why == "FerretDB stands in"
    with pytest.raises(KeyError):
        v.on_todays_stack(_setting(), _setting(engine="x"), ok, uses=("S9",))


def test_a_matching_setting_is_decided_with_no_rule_and_the_power_statement_kept():
    got = v.on_todays_stack(_setting(), _setting(), lambda: v.about(50.0, 120.0, 100.0), uses=("S1",))
    assert got.word == v.INCONCLUSIVE and got.rules == () and got.as_seed == v.INCONCLUSIVE
    assert "away from the claim's line" in got.why and got.detectable > 1


def test_a_loss_is_narrow_only_when_its_whole_interval_lies_below_the_band_of_about():
    assert v.narrowly(1.1, 1.4).word == v.SUPPORTED
    assert v.narrowly(1.6, 4.0).word == v.REFUTED
    assert v.narrowly(1.2, 2.0).word == v.INCONCLUSIVE
    assert v.narrowly(1.2, 1.9, factor=2.0).word == v.SUPPORTED
    assert v.narrowly(0.0, 1.2).word == v.INCONCLUSIVE  # no interval


def test_readings_decide_only_when_every_reading_agrees():
    both = v.readings([("100x", v.Verdict(v.REFUTED)), ("677x", v.Verdict(v.REFUTED))])
    assert both.word == v.REFUTED and "against 100x: refuted" in both.why and "against 677x: refuted" in both.why
    split = v.readings([("100x", v.about(44.3, 96.5, 100.0)), ("677x", v.about(44.3, 96.5, 677.0))])
    assert split.word == v.INCONCLUSIVE
    assert "against 100x: inconclusive" in split.why and "against 677x: refuted" in split.why
    assert "readings disagree" in split.why
    assert v.readings([]).word == v.UNTESTABLE


def test_harnesses_that_disagree_beyond_our_interval_make_the_claim_inconclusive():
    refuted = v.Verdict(v.REFUTED)
    out = v.across_harnesses(refuted, 44.3, 96.5, [("go test 1", 494.0), ("go test 2", 1167.0)])
    assert out.word == v.INCONCLUSIVE and "494x" in out.why and "1,167x" in out.why and "disagree" in out.why
    assert "our interval alone: refuted" in out.why
    assert v.across_harnesses(refuted, 44.3, 96.5, [("go test", 60.0)]) is refuted  # inside: the verdict stands
    assert v.across_harnesses(refuted, 44.3, 96.5, []) is refuted
    untestable = v.untestable("engine differs")
    assert v.across_harnesses(untestable, 44.3, 96.5, [("go test", 494.0)]) is untestable


def test_the_rules_text_states_the_narrowly_readings_and_harness_rules_before_the_table():
    text = v.rules_text()
    assert "\"Loses narrowly\"" in text and f"factor of {v.ABOUT:g} of the winner's" in text
    assert "same benchmark on one machine" not in text  # no paired-rates rule: nothing uses it
    assert "two numbers that disagree" in text and "another harness" in text
    assert all(len(p) <= 1200 for p in text.split("\n\n"))


def test_the_rules_summary_gives_the_about_band_and_substitutions_from_code_in_two_sentences(monkeypatch):
    text = v.rules_summary()
    keys = [s.key for s in v.SUBSTITUTIONS]
    assert "within a factor of 1.5 of X" in text and f"{keys[0]} to {keys[-1]}" in text and len(keys) > 1
    assert "ours, not the seed's" not in text
    assert text.count(". ") + 1 == 2 and len(text) <= 1200
    monkeypatch.setattr(v, "ABOUT", 2.0)
    assert "within a factor of 2 of X" in v.rules_summary()


def test_a_harness_disagreement_on_an_inconclusive_claim_says_too_not_a_second_conclusion():
    out = v.across_harnesses(v.Verdict(v.INCONCLUSIVE, "readings disagree"), 44.3, 96.5, [("go test", 494.0)])
    assert out.word == v.INCONCLUSIVE and out.why.endswith("the measurements disagree too")


def test_the_harness_rule_compares_intervals_when_the_other_measurement_has_one():
    """A second review: the rule set go test's point estimate (31.6x) against our interval [16.7, 30.2]
    although go test's own interval [17.1, 58.6] overlaps it; with intervals, only intervals that do
    not overlap disagree."""
    refuted = v.Verdict(v.REFUTED)
    assert v.across_harnesses(refuted, 16.7, 30.2, [("go test 2", 31.6, 17.1, 58.6)]) is refuted
    apart = v.across_harnesses(refuted, 16.7, 30.2, [("go test 2", 60.0, 40.0, 90.0)])
    assert apart.word == v.INCONCLUSIVE and "60x [40, 90]" in apart.why
    # without an interval the estimate is still judged against ours
    assert v.across_harnesses(refuted, 16.7, 30.2, [("go test", 31.6)]).word == v.INCONCLUSIVE


def test_the_harness_rule_by_a_direct_test_tells_apart_what_overlap_cannot():
    """A reading reviews asked for: two intervals may overlap while the difference of their log estimates lies
    beyond its own bound (the root of the summed squared half-widths, below their sum). Ours 1 [e^-0.3, e^0.3],
    the other's e^0.55 [e^0.15, e^0.95]: they overlap, yet 0.55 > hypot(0.3, 0.4) = 0.5; at e^0.45 neither fires."""
    e = math.exp
    assert not v.apart(e(0.55), e(0.15), e(0.95), e(-0.3), e(0.3))
    assert v.apart(e(0.55), e(0.15), e(0.95), e(-0.3), e(0.3), direct=True)
    assert not v.apart(e(0.45), e(0.05), e(0.85), e(-0.3), e(0.3), direct=True)
    supported = v.Verdict(v.SUPPORTED)
    assert v.across_harnesses(supported, e(-0.3), e(0.3), [("go test", e(0.55), e(0.15), e(0.95))]) is supported
    said = v.across_harnesses(supported, e(-0.3), e(0.3), [("go test", e(0.55), e(0.15), e(0.95))], direct=True)
    assert said.word == v.INCONCLUSIVE and "by a direct test" in said.why


def test_the_stricter_harness_rule_wants_every_interval_to_decide_alike():
    def rule(lo, hi):
        return v.about(lo, hi, 100.0)

    ours = rule(15.3, 30.4)
    assert ours.word == v.REFUTED
    wide = v.alike_across_harnesses(ours, rule, [("go test 1", 34.8, 18.3, 66.1), ("go test 2", 57.3, 24.0, 136.9)])
    assert wide.word == v.INCONCLUSIVE and "go test 2 57.3x [24, 137]: inconclusive" in wide.why
    assert "go test 1" not in wide.why  # its interval refutes too
    assert v.alike_across_harnesses(ours, rule, [("go test 1", 34.8, 18.3, 66.1)]) == ours
    assert v.alike_across_harnesses(v.Verdict(v.INCONCLUSIVE), rule, [("x", 100.0, 90.0, 110.0)]).word == v.INCONCLUSIVE
    assert v.alike_across_harnesses(ours, rule, [("no interval", 57.0)]) == ours


def test_a_bit_more_is_above_one_and_inside_the_band_of_about():
    assert v.a_bit_above(1.05, 1.3).word == v.SUPPORTED
    assert v.a_bit_above(0.7, 0.95).word == v.REFUTED  # it shrank
    assert v.a_bit_above(1.6, 3.0).word == v.REFUTED  # more than a bit
    assert v.a_bit_above(0.9, 1.2).word == v.INCONCLUSIVE  # touches 1
    assert v.a_bit_above(1.2, 1.8).word == v.INCONCLUSIVE  # straddles the band's edge
    assert v.a_bit_above(1.2, 1.8, factor=2.0).word == v.SUPPORTED
    assert v.a_bit_above(0.0, 1.2).word == v.INCONCLUSIVE  # no interval
    assert "\"Goes down a bit\"" in v.rules_text()
