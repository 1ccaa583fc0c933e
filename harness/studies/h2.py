"""H2 on the JVM (seed 001's third engine): E2 and E3 on `h2/jdbc` beside SQLite measured in the
same runs.

H2 is measured inside the E2 and E3 runs, interleaved with every other cell of those studies, so
its ratios compare it only with SQLite processes that ran beside it. The table is H2 over the
study's baseline (`sqlite/sqlite3` on CPython); the comparison with seed 001 is like for like: H2
over SQLite called from PyPy (the seed's SQLite column), beside the seed's own H2 / SQLite over the
same benchmarks (`seed001_h2`).
"""
from __future__ import annotations

from pathlib import Path
from statistics import geometric_mean as gmean
from typing import Any

from harness.analysis.runset import RunSet, run_cells, runs_under
from harness.fsutil import PROJECT_ROOT
from harness.studies import findings, runspread, seed001_h2
from harness.studies.common import (BASELINE, StudyResult, censored_cells, family_table, figure_link,
                                    iterations_per_process)

#: where `make paper` finds the runs holding H2 cells (and the notebook, when given none)
DEFAULT_DIR = PROJECT_ROOT / "data" / "reference"
#: where the reference campaign installs study E3h, H2 and SQLite from PyPy at a steady state
STEADY_DIR = PROJECT_ROOT / "data" / "reference-h2"
#: where it installs study E3d, H2's q19 and q20 once each with primary keys only and with secondary indexes
DIAGNOSIS_DIR = PROJECT_ROOT / "data" / "reference-h2-diagnosis"
#: the queries H2 timed out on in E3, which E3h leaves out and E3d diagnoses
TIMED_OUT = ("tpch.q19", "tpch.q20")


def default_runs(folder: Path = DEFAULT_DIR) -> list[Path]:
    """The committed runs that hold H2 cells (the E2 and E3 runs)."""
    return [d for d in runs_under(folder) if any(c[2] == seed001_h2.ENGINE for c in run_cells(d))]


def steady_runs(folder: Path = STEADY_DIR) -> list[Path]:
    """The committed steady-state H2 run (study E3h), or none."""
    return [d for d in runs_under(folder) if any(c[2] == seed001_h2.ENGINE for c in run_cells(d))] \
        if Path(folder).is_dir() else []


def diagnosis_runs(folder: Path = DIAGNOSIS_DIR) -> list[Path]:
    """The committed diagnosis of H2's q19 and q20 (study E3d), or none."""
    return steady_runs(folder)


def _once(cells: Any, bench: str, engine: str, indexes: str) -> float | None:
    """The one timed iteration of a diagnosis cell (seconds), or None when it has none."""
    c = cells[(cells["benchmark"] == bench) & (cells["engine"] == engine)
              & cells["params"].astype(str).str.contains(f"indexes={indexes}", regex=False)]
    return float(c["mean_s"].iloc[0]) if len(c) and c["mean_s"].iloc[0] == c["mean_s"].iloc[0] else None


def diagnosis_sentence(diag: RunSet | None) -> str:
    """Study E3d: H2's q19 and q20 (and SQLite's from PyPy) once each with the tables' primary keys only, as every
    other run has them, and with the secondary indexes of `indexes=on`; what they change says whether H2's time
    is an index it lacks (it falls) or its plan (it stays). One iteration each: a diagnosis, no interval."""
    from harness.analysis import wording

    if diag is None:
        return "_No diagnosis of H2's q19 and q20 (study E3d, `make reference STUDY=E3d`) is in these data._"
    s = diag.summary
    cells = s[s["benchmark"].isin(TIMED_OUT) & (s["status"] == "ok")]
    ids = ", ".join(f"`{m.run_id}`" for m in diag.manifests())
    commits = ", ".join(sorted({f"`{str(m.commit or 'unknown')[:12]}`" for m in diag.manifests()}))
    sqlite = seed001_h2.LIKE_FOR_LIKE.split("@")[0]

    def t(x: float) -> str:
        return wording.time_interval(x, trim=True)

    parts = []
    for bench in TIMED_OUT:
        h_off, h_on = (_once(cells, bench, seed001_h2.ENGINE, i) for i in ("off", "on"))
        l_off, l_on = (_once(cells, bench, sqlite, i) for i in ("off", "on"))
        if h_off is None or h_on is None:
            parts.append(f"{bench.split('.')[1]}: H2 did not finish both")
            continue
        text = (f"{bench.split('.')[1]}: H2 {t(h_off)} with primary keys only and {t(h_on)} with the indexes"
                + (f" (SQLite from PyPy: {t(l_off)} and {t(l_on)})" if l_off is not None and l_on is not None else ""))
        change = h_off / h_on
        if change >= 5:
            text += f", so its time is an index it lacks ({change:.0f}x faster with it)"
        elif 0.5 <= change <= 2:
            text += ", so its time is not an index's but its plan's"
        parts.append(text)
    return (f"Why H2 is slow on q19 and q20 (study E3d, run {ids} at commit {commits}): each query once, one "
            "process of one iteration per cell (a diagnosis, no interval), with the tables' primary keys only, as in "
            "every other run, and with secondary indexes on the foreign keys and filtered dates (`indexes=on`). "
            + "; ".join(parts) + ".")


def compute(runs: RunSet, figures_dir: Path | str | None = None,
            baseline: str = BASELINE, steady: RunSet | None = None, diagnosis: RunSet | None = None) -> StudyResult:
    from harness.analysis.figures.family import plot_seed_beside_ours

    tables, text, blocks = {}, {}, {}
    engines = [seed001_h2.ENGINE]
    for prefix, name in (("micro.", "e2"), ("tpch.", "e3")):
        table, table_md = family_table(runs, prefix, baseline, engines=engines,
                                       exclusions=f"The {prefix}* cells excluded or skipped are listed once, under "
                                                  "the family's full table.")
        # the means set beside the seed's leave out the queries whose result the seed's H2 reused (REUSED) and those
        # it did not finish (UNFINISHED): both sides over the same queries
        like, _ = family_table(runs, prefix, seed001_h2.LIKE_FOR_LIKE, engines=engines, leave_out=seed001_h2.LEAVE_OUT)
        tables[name] = table
        tables[f"{name}-like-for-like"] = like
        # the H2-only table stays in the notebook: its cells are the h2/jdbc column of the family's full
        # table in the paper (Appendix B.2, B.3), so the paper does not print them twice
        text[name] = table_md
        cut = sorted({k[0] for k in censored_cells(runs.summary, prefix, engines)})
        blocks[f"{name}-h2-seed001"] = seed001_h2.comparison(like, prefix, censored=cut)
    blocks["h2-processes"] = processes_note(runs)
    blocks["h2-warmup"] = warmup_sentence(runs)
    like_steady = like_every = steady_all = None
    e3_all, _ = family_table(runs, "tpch.", seed001_h2.LIKE_FOR_LIKE, engines=engines)  # q15 too: figure, context
    if steady is not None:
        like_steady, _ = family_table(steady, "tpch.", seed001_h2.LIKE_FOR_LIKE, engines=engines,
                                      leave_out=seed001_h2.LEAVE_OUT)
        steady_all, _ = family_table(steady, "tpch.", seed001_h2.LIKE_FOR_LIKE, engines=engines)
        # the same run with every iteration counted, as the seed counted its 5 x 50
        # widened by the spread its replicate shows with every iteration counted too (its own moves, not E3h's)
        every = runspread.with_spread(RunSet(steady.run_dirs, method=steady.method, confidence=steady.confidence,
                                             resamples=steady.resamples, steady_state=False, aa_twins=False))
        like_every, _ = family_table(every, "tpch.", seed001_h2.LIKE_FOR_LIKE, engines=engines,
                                     leave_out=seed001_h2.LEAVE_OUT)
        tables["e3-steady"], tables["e3-steady-every-iteration"] = like_steady, like_every
    blocks["h2-diagnosis"] = diagnosis_sentence(diagnosis)
    host = host_note(runs, steady) if steady is not None else ""  # "" when E3h ran where E3 did
    blocks["h2-steady"] = steady_sentence(steady, like_steady, tables.get("e3-like-for-like"), like_every, host,
                                          seed001_h2.LEAVE_OUT)
    blocks["h2-directions"] = seed001_h2.directions({"tpch.": tables.get("e3-like-for-like"),
                                                      "micro.": tables.get("e2-like-for-like")}, steady=like_steady,
                                                     every=like_every)
    blocks["h2-verdict-context"] = seed001_h2.verdict_context({"tpch.": tables.get("e3-like-for-like"),
                                                               "micro.": tables.get("e2-like-for-like")},
                                                              steady=like_steady, q15=e3_all,
                                                              apart=bool(host))
    fig = None
    # the figure shows the steady-state run where there is one (every query, q15 included, beside the seed's)
    like = steady_all if seed001_h2.ours(steady_all) is not None else e3_all
    which = ("from study E3h's steady-state run" if like is steady_all else "from E3's run, warm-up included")
    seed = {b: h2 / lite for b, (lite, h2) in seed001_h2.SEED_SECONDS.items() if h2 is not None}
    if figures_dir is not None and like is not None:
        title = ("H2 / SQLite per TPC-H query: ours (SF 0.01" + (", steady state" if like is steady_all else "")
                 + ") and seed 001's (about SF 1, all iterations)")
        fig = plot_seed_beside_ours(like, seed, Path(figures_dir) / "h2_tpch.png", seed001_h2.ENGINE,
                                    seed001_h2.LIKE_FOR_LIKE, title)

    def make_blocks(paper_path: Path | str) -> dict[str, str]:
        out = dict(blocks)
        out["h2-figure"] = (figure_link(f"H2 / SQLite called from PyPy per TPC-H query, ours ({which}) with its 99% CI "
                                        + (f"({sp}) " if (sp := findings.spread_of(steady or runs)) else "")
                                        + f"beside seed 001's: {_same_side(like, seed)}", fig, paper_path)
                            if fig is not None else "_No H2 figure: no valid H2 TPC-H cells in these runs._")
        return out

    return StudyResult(tables=tables, text=text, figures={"h2_tpch": fig}, make_blocks=make_blocks)


def host_note(runs: Any, steady: Any) -> str:
    """Whether the steady-state run was measured on another machine than the E2/E3 runs (CPU model and kernel
    from the manifests): '' when on the same one."""
    from harness.studies.envtable import machine_facts

    def hosts(rs: Any) -> set[tuple[str, str]]:
        return {(f["CPU"], f["kernel"]) for f in (machine_facts(m) for m in rs.manifests() if not m.imported)}

    theirs, mine = hosts(runs), hosts(steady)
    if not mine or mine == theirs:
        return ""

    # two virtual machines of one CPU model are told apart by their kernels (review 89 read "AMD EPYC, 2 cores,
    # where E3h ran on AMD EPYC, 2 cores")
    same_cpu = {c for c, _ in theirs} == {c for c, _ in mine}

    def named(hs: set[tuple[str, str]]) -> str:
        return "; ".join(f"{c} (kernel {k})" if same_cpu else c for c, k in sorted(hs))

    return f"on another machine: {named(theirs)}, where E3h ran on {named(mine)}"


def steady_sentence(steady: RunSet | None, like: Any, all_iterations: Any = None, every: Any = None,
                    host: str = "", reused: tuple[str, ...] = ()) -> str:
    """Study E3h: H2 / SQLite from PyPy over TPC-H from processes long enough for the changepoint analysis to
    leave the JIT's warm-up out, with how many processes reached a steady state, beside the same run with
    every iteration counted (`every`, the seed's way), E3's number (`all_iterations`: short processes,
    warm-up included) and the seed's over the same queries."""
    mine = seed001_h2.ours(like)
    if steady is None or mine is None:
        return ("_No steady-state H2 run (study E3h, `make reference STUDY=E3h`, installed in data/reference-h2) "
                "is in these data._")
    s = steady.summary
    cells = s[s["benchmark"].astype(str).str.startswith("tpch.") & (s["status"] == "ok")
              & ~s["params"].astype(str).str.contains("aa=twin")]
    per = iterations_per_process(steady.raw[steady.raw["engine"] == seed001_h2.ENGINE])

    def reached(side) -> str:
        c = cells[side]
        if c.empty or "no_steady" not in c or c["no_steady"].isna().all():
            return "an unknown number"
        n = int(c["processes"].sum())
        return f"{n - int(c['no_steady'].sum())} of {n}"

    h2 = cells["engine"] == seed001_h2.ENGINE
    pypy = (cells["engine"] + "@" + cells["runtime"].astype(str)).str.startswith(seed001_h2.LIKE_FOR_LIKE)
    benches = seed001_h2.valid_benchmarks(like)
    seed, k = seed001_h2.seed_geomean(benches)
    ids = ", ".join(f"`{m.run_id}`" for m in steady.manifests())
    commits = ", ".join(sorted({f"`{str(m.commit or 'unknown')[:12]}`" for m in steady.manifests()}))
    interval = (f"**{mine['ratio']:.2f}x** [{mine['low']:.2f}, {mine['high']:.2f}]"
                if mine["low"] == mine["low"] else f"**{mine['ratio']:.2f}x** (no interval)")
    procs = int(cells[h2]["processes"].median()) if h2.any() else 0
    text = (f"At a steady state (study E3h, run {ids} at commit {commits}): H2 and SQLite from PyPy alone, "
            f"{procs} process{'' if procs == 1 else 'es'} per query of {int(per.median()) if len(per) else 0} "
            f"iterations each; {reached(h2)} H2 processes and "
            f"{reached(pypy)} of SQLite's reached a steady state, whose iterations alone count (the others count "
            f"all). There H2 / SQLite over the {mine['k']} queries both ran{_but_reused(like, reused)} is {interval} "
            f"(geometric mean, {steady.confidence:.0%} CI{findings.spread_words(steady)}, "
            f"{steady.method})")
    whole = seed001_h2.ours(every)
    if whole is not None and whole["low"] == whole["low"]:
        text += (f"; counting every iteration, as the seed counted its 50, {whole['ratio']:.2f}x "
                 f"[{whole['low']:.2f}, {whole['high']:.2f}]")
    e3 = seed001_h2.ours(all_iterations)
    if e3 is not None:
        text += f"; E3's short processes gave {e3['ratio']:.2f}x" + (f" ({host})" if host else "")
    if k:
        def side(r: dict) -> str:
            return "above" if r["low"] > seed else "below" if r["high"] < seed else "level with"

        text += f"; the seed's over the same {k}, every iteration counted, is {seed:.2f}x: "
        if whole is not None and whole["low"] == whole["low"]:
            text += (f"our every-iteration ratio, the nearest to the seed's protocol (still another scale factor, "
                     f"H2 release and iteration count; at our smaller scale a query is shorter, so warm-up weighs more "
                     f"in each iteration), lies {side(whole)} it, and ")
        text += f"our steady-state ratio {side(mine)} it"
    return text + "."


def _but_reused(like: Any, reused: tuple[str, ...]) -> str:
    """` other than q15 and q19 (left out above)` for the queries of `reused` the table left out: the paragraph
    before it (`seed001_h2.comparison`) says why each is out of both means."""
    have = seed001_h2.valid_benchmarks(like)
    # the queries E3h never ran (H2 timed out on them in E3) are named as such, so no count drops one unsaid
    unrun = [b.split(".")[1] for b in TIMED_OUT if b not in have]
    out = [b.split(".")[1] for b in reused if b not in have and b in (*seed001_h2.REUSED, *seed001_h2.UNFINISHED)
           and b.split(".")[1] not in unrun]
    said = f" other than {' and '.join(out)} (left out above)" if out else ""
    return said + (f"{' and' if said else ' other than'} {', '.join(unrun)} (not run in E3h)" if unrun else "")


def _same_side(like, seed: dict[str, float], reused: tuple[str, ...] = seed001_h2.REUSED) -> str:
    """On how many queries our interval puts H2 on the seed's side of SQLite, on the other side, or straddles
    1 (the caption's point, worded by the intervals, not the point estimates); a query whose result the seed's
    H2 reused (`reused`) is drawn but not counted, since the seed's time there is not a query's."""
    rows = like[(like["engine"] == seed001_h2.ENGINE) & (like["benchmark"] != "geomean") & like["ratio"].notna()]
    same = other = straddle = 0
    apart: list[float] = []  # ours / the seed's, per query: the sides agree far more than the sizes (review 87)
    for b, est, lo, hi in zip(rows["benchmark"], rows["ratio"], rows["ratio_ci_low"], rows["ratio_ci_high"]):
        if b not in seed or b in reused or not (lo == lo and hi == hi):
            continue
        if seed[b] > 0 and est > 0:
            apart.append(float(est) / seed[b])
        if lo > 1 or hi < 1:
            if (lo > 1) == (seed[b] > 1):
                same += 1
            else:
                other += 1
        else:
            straddle += 1
    n = same + other + straddle
    if not n:
        return "no query measured by both"
    left = [x.split(".")[-1] for x in reused if x in set(rows["benchmark"]) and x in seed]
    return (f"of the {n} queries both measured" + (f" ({', '.join(left)} drawn, not counted: the seed's H2 reused its "
                                                    "result)" if left else "")
            + f", our interval puts H2 on the seed's side of SQLite on {same}, on the other side on {other}, and "
            f"includes 1 on {straddle}" + (f"; the sizes differ more: ours / the seed's per query runs from "
                                          f"{min(apart):.3g}x to {max(apart):.3g}x (geometric mean {gmean(apart):.2f}x)"
                                          if len(apart) > 1 else ""))


#: bootstrap replicates of the last-iteration geometric mean (a sensitivity, not a headline)
LAST_REPLICATES = 2000


def _side(key: tuple) -> str:
    """"h2", "pypy" (the seed's SQLite from PyPy) or "" for a process key (bench, params, engine, runtime, ...)."""
    if key[2] == seed001_h2.ENGINE:
        return "h2"
    return "pypy" if f"{key[2]}@{key[3]}".startswith(seed001_h2.LIKE_FOR_LIKE) else ""


def process_series(runs: RunSet, prefix: str) -> dict[tuple[str, str], list]:
    """(benchmark, side) -> the iteration series of each clean process of at least two iterations, for H2 and
    the seed's SQLite from PyPy (A/A twins left out)."""
    ex = runs.exclusion
    out: dict[tuple[str, str], list] = {}
    for key, xs in zip(ex.keys, ex.xs):
        if str(key[0]).startswith(prefix) and "aa=twin" not in str(key[1]) and len(xs) >= 2 and _side(key):
            out.setdefault((str(key[0]), _side(key)), []).append(xs)
    return out


def last_iterations(runs: RunSet, prefix: str) -> dict[tuple[str, str], list[float]]:
    """(benchmark, side) -> each clean process's last timed iteration: the least warm-up-biased number a
    short process holds."""
    return {k: [float(xs[-1]) for xs in series] for k, series in process_series(runs, prefix).items()}


def warmup_sensitivity(runs: RunSet, prefix: str = "tpch.", confidence: float = 0.99, seed: int = 0) -> dict | None:
    """H2 / SQLite from PyPy as a geometric mean over the benchmarks both ran, from each process's last
    iteration only (warm-up mostly spent), with a percentile interval over processes resampled within each
    cell; and the median of first / last iteration per side."""
    import numpy as np

    series = process_series(runs, prefix)
    last = {k: [float(xs[-1]) for xs in v] for k, v in series.items()}
    benches = sorted({b for b, side in last if side == "h2"} & {b for b, side in last if side == "pypy"})
    benches = [b for b in benches if len(last[(b, "h2")]) >= 2 and len(last[(b, "pypy")]) >= 2]
    if len(benches) < 2:
        return None
    rng = np.random.default_rng(seed)
    logs = np.zeros(LAST_REPLICATES)
    for b in benches:
        h, q = np.array(last[(b, "h2")]), np.array(last[(b, "pypy")])
        hm = rng.choice(h, (LAST_REPLICATES, len(h))).mean(axis=1)
        qm = rng.choice(q, (LAST_REPLICATES, len(q))).mean(axis=1)
        logs += np.log(hm / qm)
    logs /= len(benches)
    est = float(np.exp(np.mean([np.log(np.mean(last[(b, "h2")]) / np.mean(last[(b, "pypy")])) for b in benches])))
    a = (1 - confidence) / 2
    low, high = (float(np.exp(x)) for x in np.quantile(logs, [a, 1 - a]))
    firsts: dict[str, list[float]] = {}
    for (_, side), v in series.items():
        firsts.setdefault(side, []).extend(float(xs[0] / xs[-1]) for xs in v if xs[-1] > 0)
    return {"ratio": est, "low": low, "high": high, "benchmarks": len(benches),
            "first_over_last": {k: float(np.median(v)) for k, v in firsts.items() if v}}


def warmup_sentence(runs: RunSet) -> str:
    """How much of H2's gap to SQLite is the JIT's warm-up: the last-iteration ratio beside the
    all-iteration one of Section 5.1 (a sensitivity, its method said)."""
    w = warmup_sensitivity(runs, "tpch.", runs.confidence)
    if w is None:
        return ""
    m = warmup_sensitivity(runs, "micro.", runs.confidence)
    fl = w["first_over_last"]
    micro = (f", and over the {m['benchmarks']} micro-benchmarks {m['ratio']:.3g}x [{m['low']:.3g}, {m['high']:.3g}]"
             if m else "")
    return (f"How much of H2's gap is the JIT's warm-up: in a TPC-H process that timed at least two iterations, the "
            f"first took a median {fl.get('h2', float('nan')):.3g}x the time of the last on H2 and "
            f"{fl.get('pypy', float('nan')):.3g}x on SQLite from PyPy. From each process's last iteration only, H2 / "
            f"SQLite over the {w['benchmarks']} TPC-H queries both ran is {w['ratio']:.3g}x [{w['low']:.3g}, "
            f"{w['high']:.3g}]{micro} (geometric means; {runs.confidence:.0%} percentile intervals, processes "
            f"resampled within each cell, {LAST_REPLICATES} replicates): nearer a steady state, not at it, since a "
            "last iteration is still early in a JVM's life.")


def processes_note(runs: RunSet) -> str:
    """What an H2 process held: how many iterations it timed (the JVM's warm-up is in the first ones,
    which the changepoint analysis can only leave out of a long enough series), and, for the queries
    that timed out, how long its processes of the other queries took from start to end, set-up
    included: the share of the timeout the set-up could have used."""
    from harness.analysis.stats.warmup import MIN_SERIES

    raw, procs = runs.raw, runs.processes
    if raw.empty or procs.empty:
        return "_No H2 processes in these runs._"
    per = iterations_per_process(raw[raw["engine"] == seed001_h2.ENGINE])
    if per.empty:
        return "_No H2 processes with timings in these runs._"
    text = (f"H2's {len(per)} processes with timings in the E2 and E3 runs (micro-benchmarks and TPC-H) timed a median "
            f"of {int(per.median())} iterations each "
            f"(fewest {int(per.min())}); {int((per < MIN_SERIES).sum())} had fewer than {MIN_SERIES}, too few for "
            "the warm-up analysis, so their JVM warm-up stays in their means.")
    if (per < MIN_SERIES).mean() >= 0.5:
        text += (" H2's times here therefore include the JIT's warm-up: an upper bound on its steady-state time, "
                 "as are its ratios over SQLite.")
    h2 = procs[procs["engine"] == seed001_h2.ENGINE]
    if not {"status", "started", "ended"} <= set(h2.columns):  # imported runs keep no process records
        return text
    killed = h2[(h2["status"] == "timeout") & (h2["ended"] - h2["started"] > 0)]
    ok = h2[h2["status"] == "ok"]
    if len(killed) and len(ok):
        lives = (ok["ended"] - ok["started"]).astype(float)
        names = ", ".join(sorted({str(b).split(".", 1)[-1] for b in killed["benchmark"]}))
        text += (f" The processes of {names} were killed at the timeout; H2's processes of the other queries took a "
                 f"median of {lives.median():.1f} s (at most {lives.max():.1f} s) from start to end, set-up and "
                 "every iteration included, so the timeout went to the query itself, not to loading the data.")
    return text

