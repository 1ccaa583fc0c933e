"""E6's sentences on where the `go test` sessions ran are computed from the manifests: the same CPU
model, kernel and hostname as the worker's runs is "this host", anything else "another host", so the
paper stays true whichever sessions are installed (the imported ones from another, loaded guest, or
the reference campaign's, made around the worker's run on this one)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from harness.studies import ramsql
from harness.studies import seedclaims as sc

XEON = {"cpu": {"model": "Intel(R) Xeon(R) Processor", "cores": 2}, "kernel": "6.18.44-fc-v657", "hostname": "vm",
        "loadavg_before": [0.3, 0.4, 0.5]}
EPYC = {"cpu": {"model": "AMD EPYC", "cores": 2}, "kernel": "6.18.44-fc-v782", "hostname": "vm",
        "loadavg_before": [19.0, 22.9, 23.3]}
GO_TEST = "/usr/local/go/bin/go test -tags libsqlite3 -run ^$ -bench . -count 3 -benchtime 50ms -timeout 0"


def _gotest(machine, started, session=1, commit="aaaaaaa1", dirty=False):
    return SimpleNamespace(machine=machine, project={"commit": commit, "dirty": dirty}, started=started,
                           ended=started, engines=None,
                           source={"format": "gobench", "engine": f"gotest-{session}", "go_test": GO_TEST})


def _worker(machine, started, ended, commit="aaaaaaa1"):
    return SimpleNamespace(machine=machine, project={"commit": commit, "dirty": False}, started=started, ended=ended,
                           engines={"ramsql/go@go": {}, "sqlite/go@go": {}}, source=None)


class _Runs:
    def __init__(self, manifests):
        self._m = manifests

    def manifests(self):
        return self._m


WORKER = _worker(XEON, "2026-11-27T06:01:00+0000", "2026-11-27T06:02:05+0000")
HERE = _Runs([_gotest(XEON, "2026-11-27T06:00:50+0000", 1), WORKER, _gotest(XEON, "2026-11-27T06:02:40+0000", 2)])
THERE = _Runs([_gotest(EPYC, "2026-11-23T15:15:35+0000", 1, "a870eef0", True),
               _gotest(EPYC, "2026-11-23T15:15:40+0000", 2, "a870eef0", True),
               _worker(XEON, "2026-11-26T15:41:32+0000", "2026-11-26T15:42:04+0000", "f1debe90")])


def test_same_cpu_kernel_and_hostname_is_this_host():
    assert ramsql.same_host([_gotest(XEON, "x")], [WORKER]) is True
    other_kernel = dict(XEON, kernel="6.18.44-fc-v782")
    assert ramsql.same_host([_gotest(other_kernel, "x")], [WORKER]) is False
    assert ramsql.same_host([_gotest(dict(XEON, hostname="other"), "x")], [WORKER]) is False
    assert ramsql.same_host([], [WORKER]) is None
    assert ramsql.gotest_where(HERE) == "on this host"
    assert ramsql.gotest_where(THERE) == "on another, loaded host"
    assert sc.gotest_host(HERE) == "this host" and sc.gotest_host(THERE) == "another host"


def test_the_sentences_say_this_host_for_sessions_made_around_the_workers_run():
    why = ramsql.harness_difference(HERE)
    assert "Both ran on this host" in why and "one session before the worker's E6 run, one after it" in why
    assert "another" not in why and "down to the host" not in why
    env = ramsql.gotest_env(HERE)
    assert env.startswith("The two `go test` sessions of E6 were made on this machine too, one before")
    assert "on one machine" in env
    assert ramsql.figure_host_note(HERE) == " The go test sessions ran on this host; see the text below the E6 table."
    side = pd.DataFrame({"mean_s": [1.0, 2.0], "bench.txt_mean_s": [1.0, 2.0], "newbench.txt_mean_s": [1.1, np.nan]})
    intro = ramsql.gotest_intro(HERE, side)
    assert "`go test -bench . -count 3 -benchtime 50ms`" in intro
    assert "on this host, one before the worker's run and one after it at the worker's commit" in intro
    # the factor is given even when it is near 1, with its range by cell, and the sentence after it
    # names what is left (the harnesses) without a "difference" that may not be there
    assert "Its times are 1.03 times the worker's for the same operation" in intro
    assert "(geometric mean over 2 cells, two sessions; 1.00 to 1.10 by cell)" in intro
    assert "about the worker's" not in intro and "the difference" not in intro
    assert "so no gap comes from a different machine, though the sessions ran at other minutes of the sitting" in intro
    assert "another" not in intro
    # -count 3 is below what benchstat needs for an interval, and below what its test needs too
    assert "(the seed's was -count 6, at go test's default -benchtime of 1s; 3 a side, below benchstat's 6 for an " \
           "interval)" in intro


def test_the_gotest_intro_gives_the_factor_and_why_four_samples():
    """Far from 1 or near it, in either direction, the sentence gives the geometric mean as a factor
    with its range; -count 4 says why it is below benchstat's 6 (the fewest for a Mann-Whitney p <= 0.05)."""
    for means, factor, spread in (([0.5, 0.5], "0.50 times", "0.50 to 0.50 by cell"),
                                  ([1.05, 1.05], "1.05 times", "1.05 to 1.05 by cell"),
                                  ([3.0, 12.0], "6.00 times", "3.00 to 12.00 by cell")):
        side = pd.DataFrame({"mean_s": [1.0, 1.0], "bench.txt_mean_s": means})
        intro = ramsql.gotest_intro(HERE, side)
        assert f"Its times are {factor} the worker's for the same operation (geometric mean over 2 cells; {spread})" \
            in intro, intro
    assert ramsql.few_samples_clause("-count 4 -benchtime 50ms") == (
        "; 4 a side, below benchstat's 6 for an interval but the fewest with which a Mann-Whitney test can reach "
        "p <= 0.05, to fit the campaign's slot")
    assert ramsql.few_samples_clause("-count 6 -benchtime 1s") == "" and ramsql.few_samples_clause("") == ""


def test_the_sentences_say_another_host_for_the_imported_sessions():
    why = ramsql.harness_difference(THERE)
    assert "What differs is the host: the go test sessions ran on AMD EPYC" in why and "oversubscribed" in why
    assert ramsql.gotest_env(THERE).startswith("The two `go test` sessions of E6 were made 3 days earlier on "
                                               "another, loaded 2-core guest")
    note = ramsql.figure_host_note(THERE)
    assert note == " The go test sessions ran on another CPU, at another commit, on a loaded VM; see the text below the E6 table."
    side = pd.DataFrame({"mean_s": [1.0], "bench.txt_mean_s": [9.0], "newbench.txt_mean_s": [9.0]})
    intro = ramsql.gotest_intro(THERE, side)
    assert "3 days earlier, on another, loaded host at another commit" in intro and "9.00 times the worker's" in intro
    assert "no cause but the host" in intro


def test_the_verdict_and_readings_name_the_host_they_are_given():
    v = sc.ramsql_verdict((20.0, 15.0, 25.0), 7479 / 11.05, [30.0, 22.0], "this host")
    assert "`go test` session 1 (this host) 30x" in v.why
    text = sc.ramsql_readings((16.3, 10.5, 25.3), (20.0, 15.0, 25.0), {}, [30.0, 22.0], "this host")
    assert "(two sessions, on this host, Section 8): 30x and 22x; 1 of 2 lie apart from our interval" in text
    inside = sc.ramsql_readings((16.3, 10.5, 25.3), (20.0, 15.0, 25.0), {}, [18.0, 22.0], "this host")
    assert inside.endswith("18x and 22x; within our interval")


def test_another_studys_run_that_probed_e6_engines_is_not_a_worker_run():
    """E5's run lists every engine it probed, E6's among them as unavailable, and began a day earlier:
    counted as a worker run, it made the sessions '1 day later than the worker's E6 run' and hid the
    bracket (the sessions one before and one after the worker's run)."""
    e5 = SimpleNamespace(machine=XEON, project={"commit": "bbbbbbb2", "dirty": False},
                         started="2026-11-26T15:37:00+0000", ended="2026-11-26T15:41:00+0000",
                         configuration={"benchmarks": ["app.insert_user"]},
                         engines={"ramsql/go@cpython": {"available": False}, "sqlite/sqlite3@cpython": {}}, source=None)
    runs = _Runs([*HERE.manifests(), e5])
    gotest, worker = ramsql._hosts(runs)
    assert worker == [WORKER] and len(gotest) == 2
    assert "one before the worker's E6 run and one after it" in ramsql.gotest_env(runs)
