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
