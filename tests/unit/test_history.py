"""E7 history: runs on a timeline in commit order, significant changes marked, bad input in one line."""
from __future__ import annotations

import math

import pytest

from harness import store
from harness.analysis import history, simdata
from harness.cli import main
from harness.errors import UserError

BENCH = ("bench00", "bench01")


def _run(out, mean: float, commit: str | None, commit_date: str | None, started: str, seed: int, **extra):
    """A stored run of two cells: bench00 with a known true mean, bench01 the same timings every time."""
    import pandas as pd

    step = simdata.simulate_run(benchmarks=["bench00"], engines=("e",), processes=8, iterations=10, seed=seed,
                                between=0.01, within=0.01, true_means={("bench00", "e"): mean})
    # bench01: the same timings in every run (nothing changed, so nothing may be marked)
    flat = simdata.simulate_run(benchmarks=["bench01"], engines=("e",), processes=8, iterations=10, seed=0,
                                between=0.01, within=0.01, true_means={("bench01", "e"): 0.02})
    df = pd.concat([step, flat.assign(seq=flat.seq + 8)], ignore_index=True).drop(columns=["run_id"])
    project = {"commit": commit, "dirty": False}
    if commit_date:
        project["commit_date"] = commit_date
    manifest = {"project": project, "started": started, "python": {"version": "3.11.7 (main)"},
                "engines": {"e@cpython": {"available": True, "versions": {"driver": "e 1.0", "lib": "2.0"}}}, **extra}
    return store.write_imported_run(out, df, manifest)


@pytest.fixture(scope="module")
def step_runs(tmp_path_factory):
    """Five runs made in a shuffled order; by commit date bench00 is 10, 10, 20, 20, 20 ms (a step
    at the third commit) and bench01 is flat."""
    out = tmp_path_factory.mktemp("history")
    plan = [  # (mean of bench00, commit, commit date, run started)
        (0.020, "c" * 40, "2026-01-03T10:00:00+00:00", "2026-02-01T09:00:00+0000"),
        (0.010, "a" * 40, "2026-01-01T10:00:00+00:00", "2026-02-01T09:05:00+0000"),
        (0.020, "d" * 40, "2026-01-04T10:00:00+02:00", "2026-02-01T09:01:00+0000"),
        (0.010, "b" * 40, "2026-01-02T10:00:00+00:00", "2026-02-01T09:03:00+0000"),
        (0.020, "e" * 40, "2026-01-04T09:00:00+00:00", "2026-02-01T09:02:00+0000"),
    ]
    for i, (mean, commit, date, started) in enumerate(plan):
        _run(out, mean, commit, date, started, seed=10 + i)
    return out


@pytest.fixture(scope="module")
def step_timeline(step_runs):
    return history.timeline([step_runs], resamples=200)


def test_runs_are_ordered_by_commit_date_in_utc(step_timeline):
    table, tags = step_timeline
    # d's 10:00+02:00 is 08:00 UTC, before e's 09:00 UTC
    assert [t.commit[0] for t in tags] == ["a", "b", "c", "d", "e"]
    cell = table[table.benchmark == "bench00"]
    assert list(cell.position) == [1, 2, 3, 4, 5]
    assert list(cell.commit.str[0]) == ["a", "b", "c", "d", "e"]
    assert list(cell.commit_date) == sorted(cell.commit_date)


def test_the_known_step_is_the_only_significant_change(step_runs, step_timeline):
    table, _ = step_timeline
    b0 = table[table.benchmark == "bench00"].set_index("position")
    assert b0.loc[3, "significant"] and b0.loc[3, "delta_pct"] == pytest.approx(100, rel=0.15)
    assert b0.loc[3, "change"].startswith("+")
    assert not b0.loc[[2, 4, 5], "significant"].any()
    assert list(b0.loc[[2, 4, 5], "change"]) == ["~", "~", "~"]
    assert b0.loc[1, "change"] == "" and math.isnan(b0.loc[1, "p_value"])  # the first run has no previous
    assert not table[table.benchmark == "bench01"].significant.any()
    # the change is compare's: the same p-value as comparing the two runs directly
    from harness.analysis import stats

    runs = {t.commit[0]: t.run_dir for t in history.order_runs(history.run_tag(d) for d in
                                                                  history.expand_run_dirs([step_runs]))}
    cmp = stats.compare_runs(store.load_runs(runs["b"]), store.load_runs(runs["c"]))
    row = cmp[cmp.benchmark == "bench00"].iloc[0]
    assert b0.loc[3, "p_value"] == pytest.approx(row.p_value)
    assert b0.loc[3, "delta_pct"] == pytest.approx(row.delta_pct)
    # each point's interval is its own run's, and holds the mean
    assert (b0.ci_low_s < b0.mean_s).all() and (b0.mean_s < b0.ci_high_s).all()
    assert "commit bbbbbbb -> ccccccc" in b0.loc[3, "changed"]
    assert b0.loc[3, "versions"] == "e 1.0, lib 2.0"


def test_a_run_without_a_commit_date_is_placed_by_lookup_or_its_start(tmp_path):
    _run(tmp_path, 0.01, "f" * 40, None, "2026-03-01T00:00:00+0000", seed=1)
    _run(tmp_path, 0.01, "1" * 40, "2026-02-01T00:00:00+00:00", "2026-03-02T00:00:00+0000", seed=2)
    _run(tmp_path, 0.01, None, None, "2026-01-15T00:00:00+0000", seed=3)
    _, tags = history.timeline([tmp_path], resamples=100, lookup=lambda c: "2026-01-01T00:00:00+00:00")
    assert [t.commit[:1] if t.commit else None for t in tags] == ["f", None, "1"]
    _, tags = history.timeline([tmp_path], resamples=100, lookup=lambda c: None)
    assert [t.commit[:1] if t.commit else None for t in tags] == [None, "1", "f"]


def test_same_commit_twice_says_so(tmp_path):
    _run(tmp_path, 0.01, "a" * 40, "2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+0000", seed=1)
    _run(tmp_path, 0.01, "a" * 40, "2026-01-01T00:00:00+00:00", "2026-02-02T00:00:00+0000", seed=2)
    table, tags = history.timeline([tmp_path], resamples=100)
    assert (table[table.position == 2].changed == "same commit").all()
    from harness.studies import history as study

    text = study.findings(table, tags)
    assert "2 points (runs) of the same 2 cells at 1 commit," in text and "Between the two runs of commit aaaaaaa" in text


def test_globs_select_cells_and_unknown_globs_fail(step_runs):
    table, _ = history.timeline([step_runs], benchmarks="bench01", resamples=100)
    assert set(table.benchmark) == {"bench01"}
    with pytest.raises(UserError, match=r"--benchmarks 'nope\*' matches nothing.*bench00, bench01"):
        history.timeline([step_runs], benchmarks="nope*", resamples=100)
    with pytest.raises(UserError, match=r"--engines 'x' matches nothing.*engines: e"):
        history.timeline([step_runs], engines="x", resamples=100)


def test_command_outputs_and_figure(step_runs, tmp_path, capsys):
    assert main(["history", str(step_runs), "--resamples", "100", "--benchmarks", "bench00"]) == 0
    out = capsys.readouterr().out
    assert "bench00" in out and "+" in out and "~ (p=" in out and "Mann-Whitney" in out
    assert max(len(line) for line in out.splitlines()) <= 120 and " ms [" in out and "Runtime cpython3.11" in out
    assert main(["history", str(step_runs), "--resamples", "100", "--format", "csv"]) == 0
    csv = capsys.readouterr().out
    assert csv.splitlines()[0].split(",") == history.HISTORY_COLUMNS and len(csv.splitlines()) == 11
    assert main(["history", str(step_runs), "--resamples", "100", "--format", "json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["command"] == "history" and len(doc["rows"]) == 10 and sum(r["significant"] for r in doc["rows"]) == 1
    fig = tmp_path / "figs" / "timeline.svg"
    assert main(["history", str(step_runs), "--resamples", "100", "--figure", str(fig)]) == 0
    assert fig.read_text().lstrip().startswith("<?xml") and fig.with_suffix(".png").stat().st_size > 10_000


@pytest.mark.parametrize("case", ["empty folder", "not a run", "missing", "unknown glob", "figure suffix"])
def test_bad_input_is_one_line(step_runs, tmp_path, capsys, case):
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "stray").mkdir()
    (tmp_path / "stray" / "notes.txt").write_text("x")
    args = {"empty folder": [str(empty)], "not a run": [str(tmp_path / "stray" / "notes.txt")],
            "missing": [str(tmp_path / "nope")], "unknown glob": [str(step_runs), "--benchmarks", "tpch.*"],
            "figure suffix": [str(step_runs), "--figure", str(tmp_path / "x.pdf")]}[case]
    assert main(["history", *args, "--resamples", "50"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and len(err.splitlines()) == 1
    want = {"empty folder": "holds no runs", "not a run": "no such run directory", "missing": "no such run directory",
            "unknown glob": "benchmarks: bench00, bench01", "figure suffix": ".svg or .png"}[case]
    assert want in err


def test_no_run_at_all_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["history"])
    assert exc.value.code == 2 and capsys.readouterr().err.startswith("error: ")


def test_study_blocks_and_figure(step_runs, tmp_path):
    from harness.studies import history as study

    result = study.compute([step_runs], tmp_path / "figures", resamples=100)
    blocks = result.blocks(tmp_path / "paper.md")
    assert set(blocks) == {"e7-history-text", "e7-history-runs", "e7-history-table", "e7-history-figure",
                           "abstract-e7", "campaign-history-runs", "between-run-method", "e7-pair-timing",
                           *study.CROSS_RUN_TABLES}
    import re

    found = re.search(r"Between consecutive runs of different commits, 1 of 8 comparisons is significant at "
                      r"alpha = 0\.05 \(a two-sided Mann-Whitney U test on the processes' means; largest: bench00 on e \+(\d+)% at ccccccc\)", blocks["e7-history-text"])
    assert found and 85 <= int(found.group(1)) <= 115  # the true step is +100%
    assert "(figures/e7_history.png)" in blocks["e7-history-figure"]
    assert (tmp_path / "figures" / "e7_history.svg").exists() and (tmp_path / "figures" / "e7_history.png").exists()


def test_compare_gate_fails_on_the_known_step_only(step_runs, capsys):
    runs = {t.commit[0]: str(t.run_dir) for t in history.order_runs(
        history.run_tag(d) for d in history.expand_run_dirs([step_runs]))}
    assert main(["compare", runs["a"], runs["b"], "--fail-on-regression", "10"]) == 0
    assert main(["compare", runs["b"], runs["c"], "--fail-on-regression", "10"]) == 1
    assert "regression over 10.0%: bench00 e +" in capsys.readouterr().err
    assert main(["compare", runs["b"], runs["c"], "--fail-on-regression", "150"]) == 0  # +100% is under 150%
    assert main(["compare", runs["c"], runs["b"], "--fail-on-regression", "10"]) == 0  # a speed-up never fails


def test_compare_warns_about_cells_only_one_run_has(tmp_path, capsys):
    a = _run(tmp_path, 0.01, "a" * 40, None, "2026-01-01T00:00:00+0000", seed=1)
    df = simdata.simulate_run(benchmarks=["bench00"], engines=("e",), processes=8, iterations=10, seed=2,
                              between=0.01, within=0.01, true_means={("bench00", "e"): 0.01}).drop(columns=["run_id"])
    b = store.write_imported_run(tmp_path, df, {"project": {"commit": "b" * 40}})
    assert main(["compare", str(a), str(b), "--fail-on-regression", "10"]) == 0
    err = capsys.readouterr().err
    assert f"warning: 1 cell(s) of {a.name} are not in the other run, so not compared: bench01 e" in err


def test_between_run_sentence_gives_the_latest_same_commit_pair_as_what_intervals_leave_out():
    import pandas as pd

    from harness.studies import history as study

    def row(run_id, commit, changed, delta, sig):
        return {"run_id": run_id, "commit": commit, "changed": changed, "delta_pct": delta, "significant": sig,
                "p_value": 0.01 if sig else 0.5, "previous_run_id": "20260103-c" if run_id == "20260104-d" else "",
                "started": {"20260103-c": "2026-01-04T10:00:00+0000"}.get(run_id, "2026-01-04T10:41:10+0000")}

    table = pd.DataFrame([row("20260101-a", "aaaaaaa1", "", math.nan, False) | {"p_value": math.nan},
                          row("20260102-b", "aaaaaaa1", "same commit", 150.0, True),  # an older, noisier pair
                          row("20260103-c", "bbbbbbb2", "commit", 20.0, True),
                          row("20260104-d", "bbbbbbb2", "same commit", -7.4, True),
                          row("20260104-d", "bbbbbbb2", "same commit", 2.0, False)])
    pair = study.same_commit_pair(table)
    assert math.isnan(pair.pop("ratio_pct"))  # no benchmark on two engines in this table
    assert math.isnan(pair.pop("mean_pct"))  # and no means
    assert pair == {"commit": "bbbbbbb", "cells": 2, "significant": 1, "largest_pct": 7.4,
                    "runs": ("20260103-c", "20260104-d"), "apart": "41 minutes apart"}
    assert "`20260103-c` and `20260104-d`, were made 41 minutes apart" in study.campaign_runs_sentence(pair)
    assert "made 41 minutes apart" in study.between_run_sentence(pair, "T")
    text = study.between_run_sentence(pair, "This table sets ours beside the seed's")
    assert "within a run (processes and iterations) only" in text and "up to 7%" in text and "bbbbbbb" in text
    assert "not measured" in study.between_run_sentence(study.same_commit_pair(table.iloc[[0, 2]]), "T")
    assert "1 of 1 moves between commits are significant" in study.figure_takeaway(table)
    # one pointer, under the verdicts; the seeds' tables no longer repeat it (the methods say it once)
    assert set(study.CROSS_RUN_TABLES) == {"between-run-seeds"}
    short = study.between_run_pointer(pair, "Seed 000's table sets ours beside the seed's")
    # the numbers are said once (the methods' sentence); under a table, only a pointer to them
    assert short == ("Seed 000's table sets ours beside the seed's (between-run spread, which its intervals leave "
                     "out: Section 2.5).")
    assert not any(ch.isdigit() for ch in short.replace("2.5", "").replace("000", ""))
    assert "not measured (Section 9)" in study.between_run_pointer(None, "T", "Section 9")


def test_the_abstract_reports_every_same_commit_pair_not_only_the_latest():
    """The latest pair of one commit may be the calm one; the abstract also gives the largest move
    over every same-commit comparison in the history."""
    import pandas as pd

    from harness.studies.history import abstract, same_commit_all, same_commit_pair

    table = pd.DataFrame({"run_id": ["r2", "r2", "r9", "r9"], "commit": ["a", "a", "b", "b"],
                          "changed": ["same commit"] * 4, "p_value": [0.01, 0.2, 0.3, 0.4],
                          "significant": [True, False, False, False], "delta_pct": [192.0, -5.0, 7.0, 3.0]})
    pair, every = same_commit_pair(table), same_commit_all(table)
    assert pair["largest_pct"] == 7.0 and every["largest_pct"] == 192.0 and every["significant"] == 1
    text = abstract(pair, every)
    assert "up to 7%" in text and "192%" in text and "1 of 4" in text
    assert "192%" not in abstract(pair)
    # a change of medians, and said so: Section 2.5's range of means must not read as contradicting it
    assert "the largest move of a median was 192%" in text


def test_the_range_over_pairs_names_each_quantity_the_abstract_quotes():
    """Section 2.5 gives the ranges of the largest moves of means and ratios of means; the abstract's
    largest move is of a median, so the range of medians is given too, named as such."""
    from harness.studies.history import pairs_range_text

    nan = math.nan
    pairs = [{"commit": "a", "cells": 4, "significant": 4, "ratio_pct": 54.0, "mean_pct": 181.0, "largest_pct": 192.0,
              "load": 18.2, "cpus": 2},
             {"commit": "b", "cells": 4, "significant": 0, "ratio_pct": 4.0, "mean_pct": 11.0, "largest_pct": 6.0,
              "load": nan, "cpus": 2}]
    text = pairs_range_text(pairs)
    assert "a ratio of means by 4% to 54%, a mean by 11% to 181% and a median by 6% to 192%" in text
    assert "most in a's pair" in text


def test_a_ratio_within_a_run_moves_less_than_the_times_when_the_host_slows_both_engines():
    import pandas as pd

    from harness.studies import history as study

    rows = []
    for run, speed in (("r1", 1.0), ("r2", 1.5)):  # the host 50% slower for the second run
        rows += [{"run_id": run, "benchmark": "b", "engine": "apsw", "mean_s": 1.0 * speed},
                 {"run_id": run, "benchmark": "b", "engine": "sqlite3", "mean_s": 2.0 * speed * (1.1 if run == "r2" else 1)}]
    table = pd.DataFrame(rows)
    # apsw / sqlite3 fell by 9.1% and sqlite3 / apsw rose by 10%: the move is the larger, whichever is on top
    assert study.ratio_move(table, "r1", "r2") == pytest.approx(10.0, rel=1e-6)
    assert math.isnan(study.ratio_move(table, "r1", "r3"))
    pair = {"ratio_pct": 9.09, "mean_pct": math.nan, "largest_pct": 3.0, "cells": 2, "significant": 0}
    assert "by up to 9%" in study.moves_text(pair)


def test_the_same_commit_pair_reports_the_moves_of_means_and_ratios_not_only_medians():
    """The studies report ratios of means: the between-run lines carry how far the pair moved a mean
    and a within-run ratio of means, which can exceed the medians' move."""
    import pandas as pd

    from harness.studies import history as study

    rows = []
    for run, prev, means, medians in (("r1", "", (1.0, 2.0), (1.0, 2.0)), ("r2", "r1", (1.13, 2.0), (1.02, 2.0))):
        for engine, m, med in zip(("x", "y"), means, medians):
            rows.append({"run_id": run, "commit": "c" * 40, "dirty": False, "benchmark": "b", "engine": engine,
                         "mean_s": m, "changed": "same commit" if prev else "", "previous_run_id": prev,
                         "p_value": 0.5 if prev else math.nan, "significant": False,
                         "delta_pct": (med / {"x": 1.0, "y": 2.0}[engine] - 1) * 100 if prev else math.nan})
    table = pd.DataFrame(rows)
    pair = study.same_commit_pair(table)
    assert round(pair["mean_pct"]) == 13 and round(pair["ratio_pct"]) == 13 and round(pair["largest_pct"]) == 2
    assert "by up to 13%" in study.between_run_sentence(pair, "T") and "by up to 2%" in study.abstract(pair)
    assert "by up to 13%" in study.figure_takeaway(table)


def test_every_count_of_points_commits_and_pairs_comes_from_one_function():
    """The dirty points count among the points and commits; a pair of one commit with uncommitted
    changes counts neither as a change of commit nor as a same-commit (machine alone) pair."""
    import pandas as pd

    from harness.studies import history as study

    spec = [("r1", "a", False, ""), ("r2", "b", True, "commit a -> b"), ("r3", "b", True, "uncommitted changes"),
            ("r4", "c", False, "commit b -> c"), ("r5", "c", False, "same commit")]
    table = pd.DataFrame([{"run_id": r, "commit": c, "dirty": d, "changed": ch, "significant": False,
                           "p_value": 0.5 if ch else math.nan, "delta_pct": 1.0, "previous_run_id": ""}
                          for r, c, d, ch in spec])
    c = study.timeline_counts(table)
    assert (c["points"], c["commits"], c["dirty_points"], c["dirty_commits"]) == (5, 3, 2, 1)
    assert (c["pairs"], c["commits_pairs"], c["same_pairs"], c["uncommitted_pairs"]) == (4, 2, 1, 1)
    assert "counted as neither" in study.pairs_sentence(c) and "counted among" in study.dirty_clause(c)
    takeaway = study.figure_takeaway(table)
    assert "0 of 2 moves between commits" in takeaway
    assert "0 of 1 between two runs of one commit, where the code did not change" in takeaway  # the control
    assert "the code's or the machine's" in takeaway  # a significant move is not read as the code's alone
    assert study.same_commit_all(table)["cells"] == 1


def test_between_run_footers_give_every_clean_same_commit_pair_and_its_load():
    import pandas as pd
    from types import SimpleNamespace as NS

    from harness.studies import history as study
    rows = []
    # two same-commit pairs: a calm one (small moves) and a loaded one (large moves)
    for run, prev, commit, load, scale in (("r2", "r1", "aaaaaaa", 0.5, 1.1), ("r4", "r3", "bbbbbbb", 18.0, 2.5)):
        for eng, base in (("x", 1.0), ("y", 2.0)):
            rows.append({"run_id": prev, "previous_run_id": None, "commit": commit, "changed": "commits",
                         "p_value": math.nan, "significant": False, "delta_pct": math.nan, "benchmark": "b",
                         "engine": eng, "mean_s": base, "loadavg": load, "started": None})
            rows.append({"run_id": run, "previous_run_id": prev, "commit": commit, "changed": "same commit",
                         "p_value": 0.01, "significant": True, "delta_pct": (scale - 1) * 100, "benchmark": "b",
                         "engine": eng, "mean_s": base * (scale if eng == "x" else 1.0), "loadavg": load,
                         "started": None})
    table = pd.DataFrame(rows)
    tags = [NS(run_id=r, cpus=2) for r in ("r1", "r2", "r3", "r4")]
    pairs = study.same_commit_pairs(table, tags)
    assert [p["commit"] for p in pairs] == ["aaaaaaa", "bbbbbbb"]
    assert pairs[1]["busy"] and not pairs[0]["busy"]
    pair = study.same_commit_pair(table)
    text = study.between_run_sentence(pair, "S", pairs)
    assert "over all 2 clean same-commit pairs" in text and "aaaaaaa 2 of 2, bbbbbbb 2 of 2" in text


def test_the_between_run_pointer_names_the_section_that_holds_the_full_sentence(tmp_path):
    from harness.studies import history as study

    paper = tmp_path / "paper.md"
    paper.write_text("## 2. Method\n\n### 2.5 The reference campaign\n\n<!-- BEGIN generated:between-run-method -->\n"
                     "x\n<!-- END generated:between-run-method -->\n\n## 3. E1\n")
    assert study.section_of(paper, "between-run-method") == "Section 2.5"
    assert study.section_of(paper, "no-such-block") == ""
    assert study.section_of(tmp_path / "missing.md", "between-run-method") == ""


def test_the_pair_timing_sentence_says_the_runs_of_a_pair_were_made_minutes_apart_from_their_times():
    """The reader is told a same-commit pair ran one soon after the other (from the runs' recorded start
    and end times), so its difference is the host's short-term drift only."""
    from types import SimpleNamespace as NS

    from harness.studies import history as study

    tags = [NS(run_id="a1", started="2026-01-01T10:00:00+0000", ended="2026-01-01T10:00:06+0000"),
            NS(run_id="a2", started="2026-01-01T10:00:27+0000", ended="2026-01-01T10:00:33+0000"),
            NS(run_id="b1", started="2026-01-01T11:00:00+0000", ended="2026-01-01T11:00:50+0000"),
            NS(run_id="x", started="2026-01-01T11:02:00+0000", ended="2026-01-01T11:02:10+0000"),
            NS(run_id="b2", started="2026-01-01T11:05:50+0000", ended="2026-01-01T11:06:00+0000"),
            NS(run_id="c1", started=None, ended=None), NS(run_id="c2", started=None, ended=None)]
    pairs = [{"commit": "bbbbbbb", "runs": ("b1", "b2")}, {"commit": "aaaaaaa", "runs": ("a1", "a2")},
             {"commit": "ccccccc", "runs": ("c1", "c2")}]
    timing = study.pair_timing(pairs, tags)
    assert [(t["commit"], t["gap_s"], t["between"], t["longest_s"]) for t in timing] == [
        ("bbbbbbb", 300.0, 1, 50.0), ("aaaaaaa", 21.0, 0, 6.0)]  # the pair without times is left out
    text = study.pair_timing_sentence(timing)
    assert "aaaaaaa's second run started 21 s after its first ended" in text
    assert "bbbbbbb's 5 minutes after (1 other run between them)" in text
    assert "no run took over 50 s" in text and "short-term drift only, over 5 minutes at most" in text
    assert study.pair_timing_sentence([]) == ""
