"""Checks over the whole committed reference (data/reference/): the studies and the fast paths on
every run of the campaign. They take minutes, so they live here rather than in tests/unit, whose
tests use small fixtures. Run ids are never named: whatever runs data/reference/ holds are read."""
from __future__ import annotations

import importlib

import pytest
from conftest import ROOT

from harness.analysis import stats
from harness.analysis.runset import RunSet
from harness.analysis.stats import warmup
from harness.studies import family_studies, ramsql

REFERENCE = sorted(p for p in (ROOT / "data" / "reference").glob("*") if (p / "manifest.json").exists())
E6_REFERENCE = [p for p in REFERENCE if (p / "plan.json").exists() and "ramsql." in (p / "plan.json").read_text()]


@pytest.mark.skipif(not REFERENCE, reason="no committed reference run")
def test_every_study_bootstraps_each_cell_once(tmp_path):
    runs = RunSet(REFERENCE, resamples=200, aa_twins=False)  # as the studies' notebooks read them
    # the studies of the main runs (history, h2 and haskell read runs of their own)
    modules = [importlib.import_module(f"harness.studies.{name}") for name in family_studies()]
    results = [m.compute(runs, tmp_path, "sqlite/sqlite3@cpython") for m in modules]
    assert runs.boot_counts, "nothing was bootstrapped"
    assert set(runs.boot_counts.values()) == {1}
    assert set(runs.boot_counts) == {k for k, s in runs.samples.items() if s.n}
    blocks = {name for r in results for name in r.blocks(tmp_path / "paper.md")}
    assert {"protocol", "e1-table", "e2-table", "e3-table"} <= blocks


@pytest.mark.skipif(not REFERENCE, reason="no committed reference run")
def test_a_cells_numbers_do_not_depend_on_which_cells_are_asked_first():
    one = RunSet(REFERENCE, resamples=200)
    two = RunSet(REFERENCE, resamples=200)
    key = sorted(one.samples)[-1]
    first = one.boots([key])[key].reps
    two.boots()
    assert (two.boots([key])[key].reps == first).all()


@pytest.mark.skipif(not E6_REFERENCE, reason="no committed E6 reference run")
def test_the_study_renders_every_block_of_its_paper_section_from_the_reference(tmp_path):
    runs = RunSet(REFERENCE, resamples=200, aa_twins=False)  # as the studies' notebooks read them
    result = ramsql.compute(runs, tmp_path)
    blocks = result.blocks(tmp_path / "paper.md")
    paper = (ROOT / "paper.md").read_text()
    for name in blocks:
        assert f"<!-- BEGIN generated:{name} -->" in paper
    assert set(runs.boot_counts.values()) == {1}
    seed = result.tables["seed"]
    assert list(seed["seed (its table)"][:2]) == ["26.7x", "676.8x"]
    assert "not measured" not in " ".join(seed["ours, seed's code"])
    assert (result.tables["per_op"]["low_s"] > 0).all()


@pytest.mark.skipif(not E6_REFERENCE, reason="no committed E6 reference run")
def test_the_100x_select_claim_is_about_ramsql_before_its_rewrite_and_untestable_here():
    """S1 covers a newer release of the same code, not RamSQL's v0.1.3 rewrite: the claim of the seed's first table
    is untestable, our fixed select's ratio kept beside it as context; the closing bullets (the second table, after
    the rewrite) are still read through S1."""
    from harness.studies import seedclaims as sc
    from harness.studies import verdicts as v

    runs = RunSet(REFERENCE, resamples=200, aa_twins=False)
    r, verdict = sc.seed004_select_verdict(runs)
    assert verdict.word == v.UNTESTABLE and "before its v0.1.3 rewrite" in verdict.why and r[1] > 0
    claim = sc.seed004_select(runs)
    assert "select_10k_fixed" in claim.ours and claim.verdict.word == v.UNTESTABLE
    assert sc.seed004_same_order(runs).verdict.word != v.UNTESTABLE


@pytest.mark.skipif(not REFERENCE, reason="no reference run in data/reference/")
def test_reference_classes_do_not_change_with_block_changepoints(monkeypatch):
    """Every reference process through the block path (blocks of 1 iteration: the optimum, then
    the refinement and pruning steps) gets the class and start the exact path gives it."""
    from harness.analysis.series import read_series

    xs = read_series(REFERENCE).xs
    monkeypatch.setattr(warmup, "EXACT_MAX", 10**9)
    exact = stats.steady_states(xs)
    monkeypatch.setattr(warmup, "EXACT_MAX", 0)
    assert stats.steady_states(xs) == exact


def test_record_every_reference_run_writes_back_byte_for_byte(tmp_path):
    """The runs the paper is made of load and write back unchanged (a sample of their records),
    and so does each plan as the runner's live plan (`LivePlan`, what a resume runs on). Here
    rather than in tests/unit: it reads every reference run."""
    from harness import store
    from harness.fsutil import PROJECT_ROOT
    from harness.run.plan import LivePlan

    runs = sorted(PROJECT_ROOT.glob("data/reference*/*/manifest.json"))
    if not runs:
        pytest.skip("no reference runs in this checkout")
    for manifest in runs:
        run = manifest.parent
        out = tmp_path / run.parent.name / run.name
        out.mkdir(parents=True)
        store.manifest_of(run).write(out)
        plan = store.plan_of(run)
        if plan is not None:
            plan.write(out)
            live = out / "live"
            live.mkdir()
            LivePlan.from_record(plan).write(live)
            assert (live / "plan.json").read_bytes() == (run / "plan.json").read_bytes(), run / "plan.json"
        for seq, rec in sorted(store.records_of(run).items())[:5]:
            rec.write(out)
            assert (out / "processes" / f"{seq:06d}.json").read_bytes() == (
                run / "processes" / f"{seq:06d}.json").read_bytes()
        for name in ("manifest.json", "plan.json"):
            if (run / name).exists():
                assert (out / name).read_bytes() == (run / name).read_bytes(), run / name


def test_each_replicate_is_set_beside_its_study_and_the_verdicts_are_decided_again():
    """The committed replicates (data/reference*-replicate/): each pairs with its study's runs, their shared
    cells' moves are summarised per study, and the seeds' claims are decided again on them (the same claims,
    in the same order, so a changed word is a change of verdict)."""
    from harness.studies import replicate, seedclaims

    found = replicate.pairs()
    if not found:
        pytest.skip("no committed replicate")
    runs = RunSet(REFERENCE, resamples=200, aa_twins=False)
    for pair in found:
        assert set(pair.runs).isdisjoint(pair.replicates) and all("replicate" in p.parent.name for p in pair.replicates)
    m = replicate.all_moves(found, runs)
    rows = replicate.spreads(m, found)
    assert {s.study for s in rows} == {p.study for p in found}
    assert all(0 <= s.beyond <= s.n and s.tau >= 0 and s.widen >= 1 for s in rows)
    verdicts = seedclaims.claims(runs)
    # every claim the reference leaves untestable has its kind declared, none filed by default
    assert all(c.key in seedclaims.UNTESTABLE_KIND for c in verdicts if c.verdict.word == "untestable here")
    swapped, changed, _ = replicate.verdicts_again(runs, verdicts, found)
    assert swapped and all(before != after for _seed, _quote, before, after, _ours in changed)
    blocks = replicate.blocks(runs, verdicts)
    assert set(blocks) == {"abstract-replicate", "replicate-glance", "replicate-summary", "replicate-table"}
    assert "within-run ratios" in blocks["replicate-summary"]
