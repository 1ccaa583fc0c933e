"""The H2 warm-up sensitivity (Section 5.1): H2 / SQLite from PyPy from each process's last iteration,
checked against values built to be known."""
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from harness.studies import h2


def _runs(h2_last: float, pypy_last: float, first_factor: float, spread: float = 0.0, queries: int = 3):
    keys, xs = [], []
    rng = np.random.default_rng(1)
    for q in range(queries):
        for p in range(6):
            noise = 1 + spread * rng.standard_normal()
            keys.append((f"tpch.q0{q + 1}", "sf=0.01", "h2/jdbc", "jvm-17.0.15", p, "r"))
            xs.append(np.array([h2_last * first_factor, h2_last * 1.5, h2_last * noise]))
            keys.append((f"tpch.q0{q + 1}", "sf=0.01", "sqlite/sqlite3", "pypy3.9", p, "r"))
            xs.append(np.array([pypy_last, pypy_last * noise]))
            # a twin and another engine never enter
            keys.append((f"tpch.q0{q + 1}", "aa=twin,sf=0.01", "sqlite/sqlite3", "pypy3.9", p, "r"))
            xs.append(np.array([1.0, 1.0]))
            keys.append((f"tpch.q0{q + 1}", "sf=0.01", "duckdb", "cpython3.11.7", p, "r"))
            xs.append(np.array([9.0, 9.0]))
    return SimpleNamespace(exclusion=SimpleNamespace(keys=keys, xs=xs), confidence=0.99)


def test_the_last_iterations_give_the_ratio_and_the_first_over_last():
    w = h2.warmup_sensitivity(_runs(0.2, 0.1, 5.0))
    assert w["benchmarks"] == 3
    assert abs(w["ratio"] - 2.0) < 1e-9 and w["low"] <= 2.0 <= w["high"]
    assert abs(w["first_over_last"]["h2"] - 5.0) < 1e-9 and abs(w["first_over_last"]["pypy"] - 1.0) < 1e-9


def test_noisy_last_iterations_widen_the_interval_around_the_truth():
    tight = h2.warmup_sensitivity(_runs(0.3, 0.1, 2.0, spread=0.01))
    wide = h2.warmup_sensitivity(_runs(0.3, 0.1, 2.0, spread=0.2))
    assert tight["low"] < 3.0 * 1.05 and tight["high"] > 3.0 / 1.05
    assert (wide["high"] / wide["low"]) > (tight["high"] / tight["low"])
    assert wide["low"] > 0


def test_too_few_benchmarks_say_nothing():
    assert h2.warmup_sensitivity(_runs(0.2, 0.1, 5.0, queries=1)) is None
    assert h2.warmup_sentence(_runs(0.2, 0.1, 5.0, queries=1)) == ""



def _steady(h2_procs: int = 5, iterations: int = 20, no_steady: int = 1):
    """A steady-state run (study E3h) as the sentence reads it: two queries, H2 and SQLite from PyPy."""
    import pandas as pd

    rows, raw = [], []
    for q in ("tpch.q01", "tpch.q02"):
        rows.append({"benchmark": q, "params": "sf=0.01", "engine": "h2/jdbc", "runtime": "jvm-17.0.15",
                     "status": "ok", "processes": h2_procs, "no_steady": no_steady})
        rows.append({"benchmark": q, "params": "sf=0.01", "engine": "sqlite/sqlite3", "runtime": "pypy3.9.16",
                     "status": "ok", "processes": h2_procs, "no_steady": 0})
        raw += [{"run_id": "r", "benchmark": q, "params": "sf=0.01", "engine": "h2/jdbc", "runtime": "jvm-17.0.15",
                 "process": p, "iteration": i} for p in range(h2_procs) for i in range(iterations)]
    manifest = SimpleNamespace(run_id="20261127-130000-abcdef", commit="0123456789abcdef")
    return SimpleNamespace(summary=pd.DataFrame(rows), raw=pd.DataFrame(raw), manifests=lambda: [manifest],
                           confidence=0.99, method="process-bootstrap")


def _like(ratio: float, low: float, high: float):
    import pandas as pd

    return pd.DataFrame([{"benchmark": b, "engine": "h2/jdbc", "runtime": "jvm-17.0.15", "ratio": r,
                          "ratio_ci_low": r * 0.9, "ratio_ci_high": r * 1.1, "n": 1}
                         for b, r in (("tpch.q01", ratio), ("tpch.q02", ratio))]
                        + [{"benchmark": "geomean", "engine": "h2/jdbc", "runtime": "jvm-17.0.15", "ratio": ratio,
                            "ratio_ci_low": low, "ratio_ci_high": high, "n": 2}])


def test_the_steady_state_sentence_reads_the_run_and_sets_it_beside_e3_and_the_seed():
    from harness.studies import seed001_h2

    seed, k = seed001_h2.seed_geomean(["tpch.q01", "tpch.q02"])
    below = h2.steady_sentence(_steady(), _like(seed / 2, seed / 2.5, seed / 1.6), _like(24.0, 22.0, 26.0),
                               _like(9.0, 8.0, 10.0))
    assert "run `20261127-130000-abcdef` at commit `0123456789ab`" in below
    assert "5 processes per query of 20 iterations each" in below
    assert "8 of 10 H2 processes and 10 of 10 of SQLite's reached a steady state" in below
    assert f"over the 2 queries both ran other than q19, q20 (not run in E3h) is **{seed / 2:.2f}x**" in below and "E3's short processes gave 24.00x" in below
    assert "counting every iteration, as the seed counted its 50, 9.00x [8.00, 10.00]" in below
    assert below.endswith(f"the seed's over the same {k}, every iteration counted, is {seed:.2f}x: our "
                          "every-iteration ratio, the nearest to the seed's protocol (still another scale factor, H2 release and iteration count; at our smaller scale a query is shorter, so warm-up weighs more in each iteration), lies above it, and our steady-state ratio "
                          "below it.")
    level = h2.steady_sentence(_steady(), _like(seed, seed / 1.2, seed * 1.2))
    assert level.endswith("our steady-state ratio level with it.") and "short processes" not in level
    assert "counting every iteration" not in level
    assert "No steady-state H2 run" in h2.steady_sentence(None, None)
    # a query whose result the seed's H2 reused, left out of our table, is named
    named = h2.steady_sentence(_steady(), _like(seed / 2, seed / 2.5, seed / 1.6), reused=("tpch.q15",))
    assert "over the 2 queries both ran other than q15 (left out above) and q19, q20 (not run in E3h) is" in named
    context = seed001_h2.verdict_context({"tpch.": _like(24.0, 22.0, 26.0)}, steady=_like(6.5, 6.0, 7.0))
    assert ("6.50x [6.00, 7.00] over TPC-H at a steady state (2 benchmarks, study E3h; E3's short processes, "
            "warm-up included: 24.00x [22.00, 26.00] over 2;") in context
    apart = seed001_h2.verdict_context({"tpch.": _like(24.0, 22.0, 26.0)}, steady=_like(6.5, 6.0, 7.0), apart=True)
    assert "E3's short processes, on another VM, warm-up included: 24.00x" in apart  # review 91: two VMs, said
    # the micro-benchmarks' gap against TPC-H's from processes alike (E2's and E3's short ones: E3h's steady state
    # has no micro-benchmark counterpart, reviews 70 and 71), beside the seed's over the same benchmarks (and its
    # own claim's set, every query it timed H2 on, where that runs the other way)
    micro = _like(4.0, 3.5, 4.5).assign(benchmark=["micro.select", "micro.innerjoin", "geomean"])
    both = seed001_h2.verdict_context({"tpch.": _like(24.0, 22.0, 26.0), "micro.": micro}, steady=_like(6.5, 6.0, 7.0))
    seed_m, _ = seed001_h2.seed_geomean(["micro.innerjoin", "micro.select"])
    seed_t, _ = seed001_h2.seed_geomean(["tpch.q01", "tpch.q02"])
    assert (f"Our gap is smaller over the micro-benchmarks than over TPC-H (4.00x against 24.00x, both from the E2 "
            f"and E3 runs' short processes; TPC-H at a steady state, E3h, 6.50x, with no micro-benchmark counterpart); "
            f"the seed's SQLite columns over the same benchmarks give {seed_m:.2f}x against {seed_t:.2f}x") in both
    # without a steady-state run, nothing is said of one
    short = seed001_h2.verdict_context({"tpch.": _like(24.0, 22.0, 26.0), "micro.": micro})
    assert "short processes); the seed's SQLite columns" in short and "E3h" not in short
    # the seed's own claim is over SQPyte (review 72): over the same benchmarks, from its SQPyte column
    over_m = seed001_h2.seed_over_sqpyte(["micro.innerjoin", "micro.select"])
    over_t = seed001_h2.seed_over_sqpyte(["tpch.q01", "tpch.q02"])
    assert over_m == pytest.approx(math.sqrt(73.095 / 0.772 * 20.957 / 0.578))
    assert (f"The seed's own claim is over SQPyte, and there it {'holds' if over_m > over_t else 'fails'} over the "
            f"same benchmarks ({over_m:.2f}x against {over_t:.2f}x)") in both
    assert "direction" not in both  # facts side by side, no inference from which queries are kept
    torn = seed001_h2.verdict_context({"tpch.": _like(24.0, 22.0, 26.0),
                                       "micro.": _like(8.0, 7.5, 8.5).assign(benchmark=["micro.select",
                                                                                       "micro.innerjoin", "geomean"])},
                                      steady=_like(6.5, 6.0, 7.0))
    # larger than the steady state's, smaller than the short processes': only the like pair is compared
    assert "Our gap is smaller over the micro-benchmarks than over TPC-H (8.00x against 24.00x" in torn
    level = seed001_h2.verdict_context({"tpch.": _like(4.0, 3.5, 4.5), "micro.": micro})
    assert "Our gap is" not in level  # level: no direction said


def test_the_directions_read_tpch_at_a_steady_state_when_there_is_one():
    from harness.studies import seed001_h2

    seed, _ = seed001_h2.seed_geomean(["tpch.q01", "tpch.q02"])
    short, calm = _like(seed * 3, seed * 2.5, seed * 3.5), _like(seed / 2, seed / 2.4, seed / 1.7)
    micro = _like(2.0, 1.8, 2.2).assign(benchmark=["micro.select", "micro.innerjoin", "geomean"])
    before = seed001_h2.directions({"tpch.": short, "micro.": micro})
    assert before.startswith("Beside the seed's numbers (another machine") and "lies on opposite sides" in before
    assert "Two explanations" in before
    after = seed001_h2.directions({"tpch.": short, "micro.": micro}, steady=calm)
    assert after.startswith("Beside the seed's numbers (another machine, H2 release and scale factor: context, not a "
                            "measured change): over TPC-H at a steady state (below; the seed's counts every "
                            "iteration) ours is below the seed's")
    assert f"E3's own H2 processes were short, and their {seed * 3:.2f}x is mostly the JIT's warm-up" in after
    assert "our protocols alone span" not in after  # a range that covers the seed's number is no agreement
    assert seed001_h2.directions({"tpch.": short, "micro.": micro}, steady=None) == before
    # counted every iteration, as the seed counted, the same run lies on the other side: no direction is drawn
    every = _like(seed * 1.4, seed * 1.3, seed * 1.5)
    torn = seed001_h2.directions({"tpch.": short, "micro.": micro}, steady=calm, every=every)
    assert torn.startswith("Over TPC-H, whether our gap between H2 and SQLite lies above or below the seed's depends on how")
    assert "counted every iteration, as the seed counted, above it" in torn and "we draw no direction from it" in torn
    assert "gaining on" not in torn
    same = seed001_h2.directions({"tpch.": short, "micro.": micro}, steady=calm, every=_like(seed / 2, seed / 3, seed / 1.5))
    # on the same side: the like-for-like reading (every iteration) leads, the steady state beside it
    assert "every iteration counted as the seed counted, ours is below the seed's" in same
    assert "and at a steady state below it" in same and same.endswith(after.split(". ", 1)[1].split(". ", 1)[1])


def test_the_figure_caption_counts_sides_by_the_intervals():
    import pandas as pd

    like = pd.DataFrame([{"benchmark": b, "engine": "h2/jdbc", "ratio": r, "ratio_ci_low": lo, "ratio_ci_high": hi}
                         for b, r, lo, hi in (("tpch.q01", 2.0, 1.5, 2.5), ("tpch.q02", 0.5, 0.4, 0.6),
                                              ("tpch.q03", 1.1, 0.8, 1.4), ("tpch.q04", 3.0, 2.0, 4.0))])
    seed = {"tpch.q01": 1.5, "tpch.q02": 40.0, "tpch.q03": 3.0}  # q04: not in the seed
    text = h2._same_side(like, seed)
    # ours / the seed's: 2.0 / 1.5, 0.5 / 40, 1.1 / 3.0 (review 87: the sides agree far more than the sizes)
    assert text == ("of the 3 queries both measured, our interval puts H2 on the seed's side of SQLite on 1, on the "
                    "other side on 1, and includes 1 on 1; the sizes differ more: ours / the seed's per query runs "
                    "from 0.0125x to 1.33x (geometric mean 0.18x)")
    # a query whose result the seed's H2 reused is drawn, not counted (review 81)
    reused = h2._same_side(like, seed, reused=("tpch.q02",))
    assert reused.startswith("of the 2 queries both measured (q02 drawn, not counted: the seed's H2 reused its result)")


def _diagnosis(times: dict):
    rows = [{"benchmark": b, "params": f"indexes={i}, sf=0.01", "engine": e, "runtime": r, "status": "ok",
             "mean_s": t} for (b, e, r, i), t in times.items()]
    manifest = SimpleNamespace(run_id="20990101-000000-abcdef", commit="0123456789abcdef")
    return SimpleNamespace(summary=pd.DataFrame(rows), manifests=lambda: [manifest])


def test_the_diagnosis_says_whether_h2s_time_is_an_index_or_its_plan():
    h2e, lite = ("h2/jdbc", "jvm-17"), ("sqlite/sqlite3", "pypy3.9")
    d = _diagnosis({("tpch.q19", *h2e, "off"): 20.1, ("tpch.q19", *h2e, "on"): 21.6,
                    ("tpch.q20", *h2e, "off"): 32.2, ("tpch.q20", *h2e, "on"): 1.06,
                    ("tpch.q19", *lite, "off"): 0.00134, ("tpch.q19", *lite, "on"): 0.0013})
    text = h2.diagnosis_sentence(d)
    assert "run `20990101-000000-abcdef` at commit `0123456789ab`" in text and "no interval" in text
    assert "q19: H2 20.1 s with primary keys only and 21.6 s with the indexes (SQLite from PyPy: 1.34 ms and " \
           "1.3 ms), so its time is not an index's but its plan's" in text
    assert "q20: H2 32.2 s with primary keys only and 1.06 s with the indexes, so its time is an index it lacks " \
           "(30x faster with it)" in text
    # a change between 2x and 5x is said as numbers only, with no reading
    mid = h2.diagnosis_sentence(_diagnosis({("tpch.q19", *h2e, "off"): 3.0, ("tpch.q19", *h2e, "on"): 1.0}))
    assert "3 s with primary keys only and 1 s with the indexes;" in mid and "plan" not in mid.split("q19:")[1]
    assert "q20: H2 did not finish both" in mid
    assert h2.diagnosis_sentence(None).startswith("_No diagnosis")


def test_the_comparison_names_the_query_whose_result_the_seeds_h2_reused():
    from harness.studies import seed001_h2

    text = seed001_h2.comparison(_like(5.0, 4.5, 5.5), "tpch.")  # q01 and q02 only: q15 is not in the means
    assert ("Left out of both means: tpch.q19, which the seed's H2 did not finish. So is tpch.q15 (H2 0.009 s "
            "against SQLite's 20.9 s), whose result the seed's H2 reused") in text
    assert text.count("Left out of both means") == 1  # said once for both (review 72)
    assert "Left out of both means" not in seed001_h2.comparison(_like(5.0, 4.5, 5.5).assign(
        benchmark=["micro.select", "micro.innerjoin", "geomean"]), "micro.")
