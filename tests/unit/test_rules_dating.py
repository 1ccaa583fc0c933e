"""The verdicts' rules dated against the runs from git: whether they were fixed before the data is said, not
claimed (review 78)."""
from __future__ import annotations

from types import SimpleNamespace

from harness.analysis import campaign
from harness.studies import runfacts


def _manifests(monkeypatch, starts):
    fake = {f"r{i}": SimpleNamespace(imported=False, started=t) for i, t in enumerate(starts)}
    fake["gotest"] = SimpleNamespace(imported=True, started="2020-01-01T00:00:00+00:00")  # an import dates nothing
    monkeypatch.setattr(runfacts, "manifest_of", lambda d: fake[str(d)])
    return list(fake)


def test_the_rules_are_dated_against_the_first_run(monkeypatch):
    dirs = _manifests(monkeypatch, ["2026-11-27T12:53:00+00:00", "2026-11-28T09:46:00+00:00"])
    monkeypatch.setattr(campaign, "study_runs", lambda study, root: [])  # no deciding study's runs installed
    seen = []
    monkeypatch.setattr(campaign, "commits_touching", lambda paths, since, until, root: seen.append(since) or ["a", "b"])
    text = runfacts.rules_dating(dirs)
    assert seen == ["2026-11-27T12:53:00+00:00"]  # the earliest measured run, not the import
    assert "were changed at 2 commits after the campaign's first run (2026-11-27 12:53 UTC)" in text
    assert "no verdict here is a test fixed in advance" in text
    monkeypatch.setattr(campaign, "commits_touching", lambda *a: [])
    assert "every verdict's rule was fixed before the data" in runfacts.rules_dating(dirs)
    monkeypatch.setattr(campaign, "commits_touching", lambda *a: None)
    assert "is not known here" in runfacts.rules_dating(dirs)


def test_the_runs_that_decide_the_verdicts_are_dated_too(monkeypatch):
    """Rules changed after the campaign's first run but not after the first run of the studies that decide the
    verdicts: said with the commit they were frozen at; one change after those runs, and it is said instead."""
    dirs = _manifests(monkeypatch, ["2026-11-27T12:53:00+00:00", "2026-11-28T12:55:00+00:00",
                                    "2026-11-28T13:40:00+00:00"])
    monkeypatch.setattr(campaign, "study_runs", lambda study, root: {"E4": ["r1"], "E5": ["r2"]}.get(study, []))
    monkeypatch.setattr(campaign, "last_commit_touching", lambda paths, until, root: ("00ed2cb", "2026-11-28T12:42:00"))
    after = {"2026-11-27T12:53:00+00:00": ["a", "b", "c"], "2026-11-28T12:55:00+00:00": []}
    monkeypatch.setattr(campaign, "commits_touching", lambda paths, since, until, root: after[since])
    text = runfacts.rules_dating(dirs, deciding=("E4", "E5", "E6"))
    assert "they changed at 3 commits after the campaign's first run" in text
    assert "last changed at commit 00ed2cb (2026-11-28 12:42), before the runs" in text
    assert "E4, E5 and E6 and their replicates, the first started 2026-11-28 12:55 UTC), and not since" in text
    after["2026-11-28T12:55:00+00:00"] = ["d"]
    text = runfacts.rules_dating(dirs, deciding=("E4", "E5", "E6"))
    assert "1 of those commits came after the first run of the studies" in text and "not since" not in text


def test_git_dates_commits_touching_a_file_and_refuses_without_history(tmp_path):
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                              capture_output=True, text=True).stdout.strip()

    (tmp_path / "rules.py").write_text("one\n")
    (tmp_path / "other.py").write_text("one\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "first")
    (tmp_path / "other.py").write_text("two\n")
    git("commit", "-qam", "other only")
    (tmp_path / "rules.py").write_text("two\n")
    git("commit", "-qam", "rules")
    found = campaign.commits_touching(["rules.py"], "2000-01-01T00:00:00+00:00", "now", tmp_path)
    assert found is not None and len(found) == 2  # the first commit and "rules", not "other only"
    assert campaign.commits_touching(["rules.py"], "2030-01-01T00:00:00+00:00", "now", tmp_path) == []
    assert campaign.commits_touching(["rules.py"], "2000-01-01", "now", tmp_path / "nowhere") is None
    last = campaign.last_commit_touching(["other.py"], "now", tmp_path)
    assert last is not None and last[0] == git("log", "-1", "--format=%h", "--", "other.py")
    assert campaign.last_commit_touching(["rules.py"], "2000-01-01T00:00:00+00:00", tmp_path) is None
