"""E5's figures (harness/analysis/figures/app.py): no panel holds more than MAX_SERIES series, only the
measured corpora get a tick, and no line joins the points."""
import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from harness.analysis.figures import app as fig  # noqa: E402


def _cells(n_series: int) -> pd.DataFrame:
    rows = []
    for k in range(n_series):
        for op in fig.OPERATIONS:
            for corpus in ("SM", "MD"):
                rows.append({"operation": op, "corpus": corpus, "series": f"e{k}/d", "mean_s": 1e-3 * (k + 1),
                             "ci_low_s": 0.9e-3 * (k + 1), "ci_high_s": 1.1e-3 * (k + 1)})
    return pd.DataFrame(rows)


def test_groups_hold_at_most_six_series():
    groups = fig.series_files([f"e{k}/d" for k in range(8)] + ["a/b@haskell-O2-ghc9", "a/b@haskell-O0-ghc9"])
    assert all(len(members) <= fig.MAX_SERIES for _, _, members in groups)
    assert sum(len(m) for _, _, m in groups) == 10 and len({stem for _, stem, _ in groups}) == len(groups)


def test_only_measured_corpora_are_drawn_without_lines(tmp_path, monkeypatch):
    seen = []
    real = fig.save

    def spy(f, path):
        seen.append(f)
        return real(f, path)

    monkeypatch.setattr(fig, "save", spy)
    out = fig.plot_app(_cells(8), tmp_path / "e5_app.png", ("SM", "MD", "LG", "LG2"))
    assert len(out) == 2 and all(p.exists() for _, _, p in out)
    for f in seen:
        for ax in f.axes:
            assert [t.get_text() for t in ax.get_xticklabels()] == ["SM", "MD"]  # no LG, LG2
            assert len(ax.get_legend_handles_labels()[1]) <= fig.MAX_SERIES
            assert all(line.get_linestyle() in ("None", "none", "") for c in ax.containers
                       for line in [c.lines[0]] if line is not None)
