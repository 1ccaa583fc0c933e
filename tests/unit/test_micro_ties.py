"""E2's rank correlation: ties in crossings get their average rank, and counts a hair apart are
named and counted as tied as well (harness/studies/micro.py, harness/analysis/stats/rankcorr.py)."""
from __future__ import annotations

import pytest
import scipy.stats as sps

from harness.analysis.stats.rankcorr import spearman
from harness.studies import micro


def test_spearman_gives_tied_counts_their_average_rank_as_scipy_does():
    x, y = [1.0, 2.0, 2.0, 5.0, 7.0], [0.3, 0.1, 0.4, 0.9, 0.5]
    assert spearman(x, y) == pytest.approx(sps.spearmanr(x, y).statistic)


def test_counts_a_hair_apart_are_grouped_as_near_ties():
    counts = [200002, 8001, 60178, 120351, 24001, 60176]
    assert micro.near_ties(counts) == [[5, 2]]
    assert micro.near_ties([1, 2, 3]) == []
    assert micro.near_ties([5, 5, 9]) == [[0, 1]]


def test_the_e2_sentence_reads_rho_by_the_exact_test_and_counts_which_way_each_benchmark_goes(monkeypatch):
    """rho -0.14 over 6 benchmarks: p = 0.80 and at 1% only |rho| = 1 rejects, so no trend is claimed; no
    bootstrap interval is printed (it holds the benchmarks fixed); the per-benchmark directions are counted."""
    from types import SimpleNamespace

    from harness.studies import findings

    r = SimpleNamespace(points=6, rho=-0.14, confidence=0.99, verdict="contradicted", low=-0.43, high=-0.09)
    monkeypatch.setattr(micro, "claim_result", lambda runs, fast=None, slow=None: r)
    monkeypatch.setattr(micro, "tie_note", lambda *a, **k: "Equal crossings share their average rank.")
    monkeypatch.setattr(findings, "count_verdicts", lambda *a: {"faster": 2, "slower": 1, "same": 3, "unknown": 0})
    text = micro.claim_text(None)
    assert "is -0.14. The exact test over all 720 orders of the benchmarks gives p = 0.80" in text
    assert "rejects only for |rho| >= 1.00: these benchmarks cannot show a trend" in text
    assert "PyPy is faster on 2 of them, slower on 1 and cannot be told apart on 3" in text
    assert "[-0.43" not in text and "mostly a slowdown" not in text
