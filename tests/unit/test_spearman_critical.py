"""The exact critical values behind E2's rank correlation sentence (Section 4)."""


def test_spearman_critical_values_match_the_published_tables():
    """Exact two-sided critical values of Spearman's rho (Zar's table): n = 6 at 5%: 0.886; n = 5 at 5%: 1.0;
    n = 6 at 1%: only a perfect ranking; n = 4 at 1%: none."""
    from harness.studies.micro import spearman_critical

    assert abs(spearman_critical(6, 0.05) - 0.886) < 1e-3
    assert spearman_critical(5, 0.05) == 1.0
    assert spearman_critical(6, 0.01) == 1.0
    assert spearman_critical(4, 0.01) > 1
