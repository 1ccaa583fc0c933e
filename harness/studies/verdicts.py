"""One vocabulary for the seeds' claims, each verdict computed from an interval by one rule.

A claim is *supported* when the whole interval lies on its side of the claim's line, *refuted*
when the whole interval lies on the other side, *inconclusive* when the interval straddles the
line (then the verdict says the smallest effect this run could have told from the line: the
interval's half-width on the log scale, as a factor), and *untestable here* when what we measure
is not what the seed measured (the verdict says how the substitute differs). No other word is
used, so the table never says "not supported" where the data only failed to decide.

Every interval here is of a positive ratio, so the rules work on the log scale; a bound <= 0 or
not finite is no interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable

SUPPORTED = "supported"
REFUTED = "refuted"
INCONCLUSIVE = "inconclusive"
UNTESTABLE = "untestable here"
WORDS = (SUPPORTED, REFUTED, INCONCLUSIVE, UNTESTABLE)

#: "about X" read as within a factor of ABOUT of X either way (fixed before looking at any number)
ABOUT = 1.5


@dataclass(frozen=True)
class Verdict:
    """A word of the vocabulary and why: a power statement (inconclusive), the substitute (untestable)."""

    word: str
    why: str = ""
    #: for inconclusive: the factor from the line this interval could have detected (nan otherwise)
    detectable: float = math.nan
    #: for a claim untestable only because our setting differs from the seed's (versions, a substitute
    #: of the same kind): what the interval says of the claim on today's stack, a second tier that
    #: never replaces the verdict ("" when there is none: an absolute number, or nothing measured)
    today: str = ""
    #: the keys of the declared substitutions (`SUBSTITUTIONS`) this verdict rests on, when it is decided
    rules: tuple[str, ...] = ()
    #: the strict reading "as the seed measured it" (`like_for_like`), a secondary tier ("" when not read)
    as_seed: str = ""

    def __str__(self) -> str:
        return f"**{self.word}**" + (f": {self.why}" if self.why else "")


def valid(low: float, high: float) -> bool:
    """An interval of a positive ratio: both bounds finite and > 0, low <= high."""
    return all(isinstance(x, (int, float)) and math.isfinite(x) and x > 0 for x in (low, high)) and low <= high


def detectable_factor(low: float, high: float) -> float:
    """exp(half-width on the log scale): a true ratio nearer the line than this factor stays undecided."""
    if not valid(low, high):
        return math.nan
    return math.exp((math.log(high) - math.log(low)) / 2)


def factor_text(f: float) -> str:
    """A factor for people: three significant digits, thousands with separators (6,810x, not 6.81e+03x)."""
    return f"{f:.3g}x" if f < 1000 else f"{f:,.0f}x"


#: where a power statement's smallest detectable effect is measured from
FROM_LINE = "away from the claim's line (its threshold or band)"


def power_statement(low: float, high: float) -> str:
    """The smallest effect this interval could have detected, as a sentence."""
    f = detectable_factor(low, high)
    if not math.isfinite(f):
        return "no interval (too few processes)"
    return f"this interval could only tell ratios more than {factor_text(f)} {FROM_LINE}"


def _undecided(low: float, high: float) -> Verdict:
    return Verdict(INCONCLUSIVE, power_statement(low, high), detectable_factor(low, high))


def at_least(low: float, high: float, line: float) -> Verdict:
    """Claim "the ratio is at least `line`" (e.g. "wins by 8x or more"): low >= line supports it,
    high < line refutes it."""
    if not valid(low, high):
        return _undecided(low, high)
    if low >= line:
        return Verdict(SUPPORTED)
    if high < line:
        return Verdict(REFUTED)
    return _undecided(low, high)


def above(low: float, high: float, line: float = 1.0) -> Verdict:
    """Claim "the ratio exceeds `line`" (e.g. "A is slower than B": time A / time B > 1): low > line
    supports it, high < line refutes it (the opposite is shown); touching the line decides nothing."""
    if not valid(low, high):
        return _undecided(low, high)
    if low > line:
        return Verdict(SUPPORTED)
    if high < line:
        return Verdict(REFUTED)
    return _undecided(low, high)


def about(low: float, high: float, value: float, factor: float = ABOUT) -> Verdict:
    """Claim "the ratio is about `value`": supported when the interval lies within
    [value / factor, value * factor], refuted when it lies wholly outside that band."""
    if not valid(low, high):
        return _undecided(low, high)
    lo_band, hi_band = value / factor, value * factor
    if lo_band <= low and high <= hi_band:
        return Verdict(SUPPORTED)
    if high < lo_band or low > hi_band:
        return Verdict(REFUTED)
    return _undecided(low, high)


def narrowly(low: float, high: float, factor: float = ABOUT) -> Verdict:
    """Claim "it loses narrowly": the loser's time / the winner's (> 1) stays below `factor` (the band of
    "about", the table's one declared closeness): supported when high < factor, refuted when low > factor."""
    if not valid(low, high):
        return _undecided(low, high)
    if high < factor:
        return Verdict(SUPPORTED)
    if low > factor:
        return Verdict(REFUTED)
    return _undecided(low, high)


def a_bit_above(low: float, high: float, factor: float = ABOUT) -> Verdict:
    """Claim "it grows a bit" (a time at a larger corpus over the same time at a smaller one): above 1, and
    by less than the band of "about": supported when 1 < low and high < `factor`, refuted when the whole
    interval lies below 1 (it shrank) or above `factor` (more than a bit)."""
    if not valid(low, high):
        return _undecided(low, high)
    if low > 1 and high < factor:
        return Verdict(SUPPORTED)
    if high < 1 or low > factor:
        return Verdict(REFUTED)
    return _undecided(low, high)


#: "the same order of magnitude": the ratio within this factor of 1 either way
ORDER = 10.0
#: the most of a transaction's time its one synced commit may take for a cell to measure inserting rows
#: (`seedclaims.commit_bound`): past it, two ways to insert compare mostly the commit they share
COMMIT_SHARE = 0.5


def same_order(low: float, high: float, factor: float = ORDER) -> Verdict:
    """Claim "A and B have the same order of magnitude": time A / time B within [1 / `factor`, `factor`]:
    supported when the whole interval lies inside, refuted when it lies wholly outside."""
    return about(low, high, 1.0, factor)


def readings(named: Iterable[tuple[str, Verdict]]) -> Verdict:
    """A claim whose own sentence gives two numbers that disagree ("100x (7479µs vs 11µs)"): each reading
    is decided by its rule; the claim gets a reading's word only when every reading gives it, otherwise
    it is inconclusive, each reading's word said."""
    rs = list(named)
    if not rs:
        return untestable("no reading of the claim is measured")
    said = "; ".join(f"against {name}: {r.word}" for name, r in rs)
    words = {r.word for _, r in rs}
    if len(words) == 1:
        return Verdict(rs[0][1].word, said, rs[0][1].detectable)
    return Verdict(INCONCLUSIVE, said + "; the readings disagree, so the claim is not decided")


def apart(x: float, o_low: float, o_high: float, low: float, high: float, direct: bool = False) -> bool:
    """Whether another measurement (estimate `x`, interval [o_low, o_high], nan bounds when it has none)
    disagrees with ours, [low, high]: intervals that do not overlap, or, without an interval, an
    estimate outside ours. `direct` (a sensitivity reading): the two intervals, both on the log scale at one
    confidence, are read back as their half-widths and the difference of the two log estimates is tested
    directly, apart when it exceeds the root of the summed squared half-widths (overlap asks it to exceed
    their sum, so it fires later)."""
    if valid(o_low, o_high):
        if not direct:
            return o_high < low or o_low > high
        d = math.log(x) - 0.5 * math.log(low * high)
        return abs(d) > math.hypot(0.5 * math.log(high / low), 0.5 * math.log(o_high / o_low))
    return not low <= x <= high


def across_harnesses(verdict: Verdict, low: float, high: float, others: Iterable[tuple],
                     direct: bool = False, decide: Callable[[float, float], Verdict] | None = None) -> Verdict:
    """The harness rule: when another measurement of the same claim (another harness or host) disagrees
    with ours, the claim is inconclusive, whatever our interval alone says (the reason said); otherwise
    `verdict` stands. `others` holds (name, estimate) or (name, estimate, low, high): with an interval,
    the two disagree only when the intervals do not overlap (a point estimate outside ours is not yet a
    disagreement: the other measurement has its own spread); without one, when the estimate lies
    outside our interval. `direct`: the two told apart by a direct test of their difference (`apart`). `decide`
    (the claim's own rule, a refinement added after review): a measurement that disagrees with ours counts only
    when its own interval, so decided, gives the claim another word; two harnesses apart on the same side of the
    claim's line do not unsettle it."""
    outside = []
    for name, x, *bounds in others:
        if not (math.isfinite(x) and valid(low, high)):
            continue
        o_low, o_high = bounds[:2] if len(bounds) >= 2 else (math.nan, math.nan)
        if decide is not None and valid(o_low, o_high) and decide(o_low, o_high).word == verdict.word:
            continue
        if apart(x, o_low, o_high, low, high, direct):
            outside.append((name, x, f" [{o_low:.3g}, {o_high:.3g}]" if valid(o_low, o_high) else ""))
    if not outside or verdict.word == UNTESTABLE:
        return verdict
    who = ", ".join(f"{name} {factor_text(x)}{ci}" for name, x, ci in outside)
    why = (f"{verdict.why}; " if verdict.why else f"our interval alone: {verdict.word}; ")
    return Verdict(INCONCLUSIVE, why + f"and another measurement of it gives {who}, "
                   + ("apart from" if direct else "outside") + f" our interval [{low:.3g}, {high:.3g}]"
                   + (" by a direct test of the two" if direct else "") + ": the measurements disagree"
                   + (" too" if verdict.word == INCONCLUSIVE else ", so the claim is not decided"))


def alike_across_harnesses(verdict: Verdict, decide: Callable[[float, float], Verdict],
                           others: Iterable[tuple]) -> Verdict:
    """The stricter harness rule (a sensitivity reading): the claim keeps our verdict only when every other
    measurement's interval, decided by the same `decide`, gives the same word; otherwise it is inconclusive,
    the measurement that decides otherwise named. `others` holds (name, estimate, low, high)."""
    if verdict.word not in (SUPPORTED, REFUTED):
        return verdict
    decided = [(name, x, lo, hi, decide(lo, hi).word) for name, x, *b in others
               for lo, hi in [tuple(b[:2]) if len(b) >= 2 else (math.nan, math.nan)] if valid(lo, hi)]
    differ = [d for d in decided if d[4] != verdict.word]
    if not differ:
        return verdict
    who = "; ".join(f"{name} {factor_text(x)} [{lo:.3g}, {hi:.3g}]: {word}" for name, x, lo, hi, word in differ)
    return Verdict(INCONCLUSIVE, f"{verdict.why or verdict.word}; but {who}, so the harnesses do not decide alike")


def after_review(verdict: Verdict, what: str) -> Verdict:
    """`verdict` with its reason saying what a rule added after review did (`what`; "" when it did nothing)."""
    if not what:
        return verdict
    from dataclasses import replace

    return replace(verdict, why=f"{verdict.why}; {what} by a rule added after review (Appendix B.9)")


def family_wise_what(base: float, conf: float, k: int) -> str:
    """What the family-wise rule did to a refutation, for `after_review`."""
    return (f"at {base:.0%} per cell one cell refuted it, but not at {100 * conf:.2f}%, Bonferroni's confidence "
            f"for its {k} cells together (the cells' intervals here),")


def untestable(how: str) -> Verdict:
    """The substitute differs from what the seed measured; `how` says how."""
    return Verdict(UNTESTABLE, how)


def counts(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """How many cells got each word."""
    out = dict.fromkeys(WORDS, 0)
    for v in verdicts:
        out[v.word] += 1
    return out


def _tally(verdicts: list[Verdict]) -> str:
    c = counts(verdicts)
    parts = [f"{c[w]} {w}" for w in (SUPPORTED, REFUTED, INCONCLUSIVE) if c[w]]
    factors = sorted(v.detectable for v in verdicts if v.word == INCONCLUSIVE and math.isfinite(v.detectable))
    text = f"cells: {', '.join(parts) or 'none'}"
    if factors:
        span = factor_text(factors[0]) + ("" if factors[0] == factors[-1] else f" to {factor_text(factors[-1])}")
        text += f"; the undecided cells could only tell ratios more than {span} {FROM_LINE}"
    return text


def every_cell(verdicts: Iterable[Verdict]) -> Verdict:
    """A claim about every cell ("in every category at every size"): refuted when any cell refutes
    it, supported when every cell supports it, otherwise inconclusive; the why gives the counts."""
    vs = list(verdicts)
    if not vs:
        return untestable("no cell of these runs measures it")
    c = counts(vs)
    if c[REFUTED]:
        return Verdict(REFUTED, _tally(vs))
    if c[SUPPORTED] == len(vs):
        return Verdict(SUPPORTED, _tally(vs))
    return Verdict(INCONCLUSIVE, _tally(vs))


def most_cells(verdicts: Iterable[Verdict]) -> Verdict:
    """A claim about most cells ("halves most numbers"): supported when more than half the cells
    support it, refuted when at least half refute it (more than half can then no longer support it,
    whatever the undecided cells would show), otherwise inconclusive."""
    vs = list(verdicts)
    if not vs:
        return untestable("no cell of these runs measures it")
    c = counts(vs)
    word = SUPPORTED if 2 * c[SUPPORTED] > len(vs) else REFUTED if 2 * c[REFUTED] >= len(vs) else INCONCLUSIVE
    return Verdict(word, _tally(vs))


def rules_text() -> str:
    """The rules for claims worded loosely ("about", "most", "every"), as the paper states them: the same for
    every seed, fixed before any number was looked at; the two rules reviews proposed later are said as
    readings, not rules."""
    return ("Before any interval is read, every claim passes one rule: it is read on today's stack when every "
            "part of our setting (engine, driver, runtime, operation) that differs from the seed's is covered by a "
            "substitution the table below declares and the claim names; a difference no substitution covers makes "
            "it untestable here, with the difference said, and a claim that is an absolute number (rows/s, µs) is "
            "never decided, since it depends on the machine. "
            f"\"About X\" is read as within a factor of {ABOUT:g} of X either way: supported when the whole "
            f"interval lies in [X / {ABOUT:g}, X x {ABOUT:g}], refuted when it lies wholly outside. \"Most\" "
            "is read as more than half of the cells: supported when more than half support the claim, refuted when "
            "at least half refute it (more than half can then no longer support it). A claim about every cell "
            "(\"in every category at every corpus size\") "
            "is refuted by one cell that refutes it and supported only when every cell supports it, and a claim "
            "about every corpus is at most inconclusive when a corpus was not measured.\n\n"
            "Five rules more, for claims that are not plainly a ratio. \"The same order of magnitude\" is read as "
            f"a ratio within a factor of {ORDER:g} of 1 either way: supported when the whole interval lies in "
            f"[1 / {ORDER:g}, {ORDER:g}], refuted when it lies wholly outside. \"Loses narrowly\" is read as the loser's "
            f"time within a factor of {ABOUT:g} of the winner's, the band of \"about\": supported when the whole "
            f"interval lies below {ABOUT:g}, refuted when it lies above.\n\n\"Goes down a bit\" with a larger corpus "
            "is read as the time at the larger corpus over the time at the smaller above 1 and below the band of "
            f"\"about\", {ABOUT:g}: supported when the whole interval lies between them, refuted when it lies wholly "
            f"below 1 or wholly above {ABOUT:g}. A claim whose own sentence gives two numbers "
            "that disagree is decided against "
            "each, and is decided only when both readings agree, otherwise inconclusive. When another harness "
            "or host measuring the same claim gives an interval that does not overlap ours (or, without an interval, "
            "an estimate outside ours), the measurements disagree and the claim is inconclusive, the reason said, "
            "unless the other measurement's own interval gives the claim the same word by its line (a refinement a "
            "review proposed after the data were seen: two harnesses apart on one side of the line agree on the "
            "claim).\n\n"
            "Reviews of an earlier draft proposed two rules more after the data were seen; they are not the table's "
            "rules but readings of the sensitivity table, and Section 10 gives the tally under them. First, a claim "
            "about inserting rows read only at the N where one synced commit is at most "
            f"{COMMIT_SHARE:.0%} of a transaction's time (the commit measured from the same engine's autocommit "
            "cells), since beyond that both sides of the comparison are mostly the same commit; it came after the "
            "replicate had shown the smallest N changing the prepared-statement verdict. Second, a refutation that "
            "rests on one of a claim's k cells counted only at Bonferroni's confidence for the k together (each "
            "cell's interval at 1 - 0.01 / k): with every cell at 99%, a claim about k cells would be refuted by "
            "chance in about k% of runs (support needs no such adjustment: every cell must hold). A third review "
            "asked that an alternative reading the seed's own numbers fail (\"works well\" read more strictly than "
            "the seed's own HashMap select meets) not count: it reads another claim than the seed's, so the "
            "sensitivity table shows it, marked, and no verdict's robustness rests on it.")


def rules_summary() -> str:
    """The reading rules in two sentences, for the reader to meet before the verdict table (`rules_text` and
    the substitutions table give them in full)."""
    keys = [s.key for s in SUBSTITUTIONS]
    return (f"In short (in full in Appendix B.9): \"about X\" means within a factor of {ABOUT:g} of X, \"most\" means more "
            "than half of the cells, a claim about every cell falls to one refuting cell, our releases and drivers "
            f"stand in for the seed's only through the declared substitutions {keys[0]} to {keys[-1]}, and an "
            "absolute number never decides. A sentence that gives two disagreeing numbers is decided against each and "
            "only when both agree, and two measurements (another harness or host) that disagree beyond our interval leave a claim inconclusive.")


def rank_test_min_p(n1: int, n2: int) -> float:
    """The smallest two-sided p a Mann-Whitney test of n1 against n2 values can give (complete
    separation): 2 / C(n1 + n2, n1); 3 against 3 gives 0.1."""
    if n1 < 1 or n2 < 1:
        return 1.0
    return min(1.0, 2 / math.comb(n1 + n2, n1))


def rank_test_is_evidence(n1: int, n2: int, alpha: float = 0.05) -> bool:
    """Whether a Mann-Whitney test of these sizes could ever reject at `alpha`; if not, its p is no
    evidence either way and is never used for a verdict."""
    return rank_test_min_p(n1, n2) < alpha


# --- like with like: what a claim rests on --------------------------------------------------------

#: the parts of a setting a ratio claim rests on; a claim is decided only when every one matches
LIKE_FOR_LIKE = ("engine", "driver", "runtime", "operation")


@dataclass(frozen=True)
class Setting:
    """What a number was measured with, each part with its version as far as it is known ("unstated"
    when the seed does not say: an unstated version cannot be shown to match ours). `hardware` only
    matters for absolute numbers (rows/s, µs), which never decide a verdict."""

    engine: str
    driver: str
    runtime: str
    operation: str
    hardware: str = ""


def differences(seed: Setting, ours: Setting) -> list[str]:
    """How our setting differs from the seed's in the parts a ratio claim rests on, one phrase each."""
    return [phrase for _, phrase in differing_parts(seed, ours)]


def like_for_like(seed: Setting, ours: Setting, decide: Callable[[], Verdict], absolute: bool = False) -> Verdict:
    """The one rule every seed's claim passes through before its interval is read: *untestable here*
    (saying how the substitute differs) when what we measure is not what the seed measured (engine,
    driver family, runtime, operation, each with its version), or when the claim is an absolute
    number (it depends on the machine: ours is context, never a verdict); otherwise `decide()`."""
    diffs = differences(seed, ours)
    inner = decide()
    if inner.word == UNTESTABLE and inner.why:  # a reason of the claim's own (a substitute) is kept beside ours
        diffs.append(inner.why)
    if absolute:
        diffs.insert(0, f"an absolute number depends on the machine (the seed's {seed.hardware or 'unstated'}, "
                        f"ours {ours.hardware or 'unstated'}), so ours is context, not a test")
    if not diffs:
        return inner
    today = inner.word if not absolute and inner.word != UNTESTABLE else ""
    return Verdict(UNTESTABLE, "; ".join(diffs), today=today)


def overall(word: str, held: str | None) -> str:
    """The verdict table's first verdict: one run's word under the claim's declared reading where it holds
    (`held`, `sensitivity.holds`: "yes" when the replicate and the intervals widened by the run-to-run spread
    leave it; None when no replicate measured the study), else inconclusive, since a word that another run
    changes is not one the evidence settles. Other readings are reported beside it, not counted against it. An
    untestable claim stays untestable."""
    if word not in (SUPPORTED, REFUTED, INCONCLUSIVE) or held is None or held == "yes":
        return word
    return INCONCLUSIVE


def cell_text(verdict: Verdict) -> str:
    """A verdict as a table cell shows it: the word, the substitution rules it rests on, and its why."""
    rules = f" ({', '.join(verdict.rules)})" if verdict.rules else ""
    return f"**{verdict.word}**{rules}" + (f": {verdict.why}" if verdict.why else "")


# --- the verdict: on today's stack, through declared substitutions ---------------------------------

@dataclass(frozen=True)
class Substitution:
    """One substitution the verdict allows, declared once in code for every claim: what may differ
    from the seed's setting (`parts`, among LIKE_FOR_LIKE), and why that does not change what a claim
    is about."""

    key: str
    what: str
    parts: tuple[str, ...]
    why: str


#: every substitution a verdict may rest on; a difference no substitution of the claim covers makes the
#: claim untestable here, the difference named. Each claim lists the substitutions it uses.
SUBSTITUTIONS: tuple[Substitution, ...] = (
    Substitution("S1", "a newer release of the same engine, driver and runtime, or a release where the seed names "
                 "none (SQLite 3.40.1 for the SQLite of 2013, HDBC-sqlite3 2.3.3.1 for the seed's HDBC-sqlite3, "
                 "acid-state 0.16 for the acid-state of 2013, GHC 9.0.2 for GHC 7.4, CPython 3.11 for the Python of "
                 "2013, RamSQL v0.1.5 for the v0.1.3 of the seed's second table (not for the code before that "
                 "version's rewrite), glebarez/go-sqlite v1.21.1 for the seed's unversioned one)", ("engine", "driver", "runtime"),
                 "the claim names products, not releases: it says how two of them compare, and the same products, "
                 "later, are what a reader of the claim uses today; a release that changed the answer is a finding "
                 "about the claim, not a different question"),
    Substitution("S2", "C for C++ as the language of a program that calls SQLite's C API", ("runtime",),
                 "the calls, the library and the work are the same; only the caller's language differs, which the "
                 "claim does not mention"),
    Substitution("S3", "the seed's benchmark code with its defects fixed (seed 004: SQLite's `BIGSERIAL` ids, no "
                 "rowid alias, are NULL, so its selects read no row; point-query keys that miss; random values made "
                 "inside the timed loop; a set-up that connects to nothing), each fix shown beside the seed's code",
                 ("operation",),
                 "the claim is about the engines doing the operation it names; where one side does not do it, the "
                 "seed's number measures the defect, not the claim, and the seed's code is still run and shown"),
    Substitution("S4", "the same password hash from a named library: seed 002's scrypt hash of a user's password "
                 "computed by cryptonite, where the seed names neither its library (Haskell's `scrypt` package, "
                 "which Debian does not package, was the usual one) nor its cost parameters (ours are that "
                 "package's defaults, N = 2^14, r = 8, p = 1)", ("driver",),
                 "scrypt's parameters fix the work it does (N x r block mixes over 128 x r x N bytes); the hash runs at "
                 "the same place in every store's user insertion, and the claims compare stores, builds, or the hash "
                 "with the insertion around it, never two hash libraries"),
)
RULES = {s.key: s for s in SUBSTITUTIONS}


def differing_parts(seed: Setting, ours: Setting) -> list[tuple[str, str]]:
    """(part, phrase) for each part of the setting in which ours differs from the seed's."""
    return [(part, f"{part}: the seed's {getattr(seed, part)}, ours {getattr(ours, part)}") for part in LIKE_FOR_LIKE
            if getattr(seed, part).strip().lower() != getattr(ours, part).strip().lower()]


def on_todays_stack(seed: Setting, ours: Setting, decide: Callable[[], Verdict], uses: Iterable[str] = (),
                    absolute: bool = False) -> Verdict:
    """THE verdict: `decide()` when every part in which our setting differs from the seed's is covered by a
    substitution the claim uses (`uses`: keys of SUBSTITUTIONS; an unknown key is an error); otherwise
    *untestable here*, the uncovered differences named. An absolute number (rows/s, µs) is never decided
    (no substitution makes another machine's time comparable). The strict reading (`like_for_like`) is
    kept as `as_seed`."""
    uses = tuple(uses)
    allowed = {part for k in uses for part in RULES[k].parts}
    inner = decide()  # once: the strict reading below reads the same verdict
    strict = like_for_like(seed, ours, lambda: inner, absolute).word
    diffs = differing_parts(seed, ours)
    reasons = [phrase for part, phrase in diffs if part not in allowed]
    if absolute:
        reasons.insert(0, f"an absolute number depends on the machine (the seed's {seed.hardware or 'unstated'}, "
                          f"ours {ours.hardware or 'unstated'}), and no substitution makes another machine's time "
                          "comparable")
    if inner.word == UNTESTABLE:
        reasons.append(inner.why or "no number of ours measures it")
    if reasons:
        return Verdict(UNTESTABLE, "; ".join(reasons), as_seed=strict)
    used = tuple(k for k in uses if any(part in RULES[k].parts for part, _ in diffs))
    return Verdict(inner.word, inner.why, inner.detectable, rules=used, as_seed=strict)


def substitutions_markdown() -> str:
    """The substitution rules as the paper prints them, before the verdict table."""
    lines = ["| rule | what may differ from the seed's setting | parts | why the claim is still the same claim |",
             "|---|---|---|---|"]
    lines += [f"| {s.key} | {s.what} | {', '.join(s.parts)} | {s.why} |" for s in SUBSTITUTIONS]
    return ("\n".join(lines) + "\n\nTable: The substitutions a verdict may rest on, declared in "
            "`harness/studies/verdicts.py` (`SUBSTITUTIONS`), once for every claim (their history is the file's in git). Each claim names the "
            "rules it uses; a part of its setting (engine, driver, runtime, operation) that differs from the "
            "seed's and is covered by none of them makes the claim untestable here, the difference named. No rule "
            "covers another operation than the seed's own with its defects fixed (S3), another engine (FerretDB for MongoDB, stock SQLite for SQPyte), another "
            "storage device for a claim about syncing, or an absolute number from another machine.")
