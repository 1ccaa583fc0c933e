"""Issue 23, like with like: geometric means over one common subset, censored timeouts, captions
worded from intervals."""
from types import SimpleNamespace

from harness.studies import findings, micro


def _runs(keys):
    return SimpleNamespace(samples={k: [1.0, 1.0] for k in keys}, confidence=0.99)


KEYS = [("micro.select", "sf=0.01", "sqlite/sqlite3", "cpython3.11.7"),
        ("micro.select", "sf=0.01", "sqlite/native-c", "c-gcc12.2.0"),
        ("micro.select", "sf=0.01", "duckdb", "cpython3.11.7"),
        ("micro.pythonjoin", "sf=0.01", "sqlite/sqlite3", "cpython3.11.7"),
        ("micro.pythonjoin", "sf=0.01", "duckdb", "cpython3.11.7")]


def test_common_cells_are_those_every_side_ran():
    runs = _runs(KEYS)
    both = findings.common_cells(runs, "micro.", ["sqlite/sqlite3@cpython", "duckdb@cpython"])
    assert both == {("micro.select", "sf=0.01"), ("micro.pythonjoin", "sf=0.01")}
    every = findings.common_cells(runs, "micro.", ["sqlite/sqlite3@cpython", "duckdb@cpython", "sqlite/native-c@c"])
    assert every == {("micro.select", "sf=0.01")}


def test_every_e2_geomean_is_over_the_same_subset_and_says_what_it_left_out(monkeypatch):
    seen = []

    def fake(runs, prefix, a, b, label, only=None):
        seen.append(only)
        return f"{a} vs {b} {label}"

    monkeypatch.setattr(findings, "compare_family", fake)
    text = micro.findings_text(_runs(KEYS), "sqlite/sqlite3@cpython")
    # one subset for every engine: native-c lacks pythonjoin, so no geomean includes it
    assert seen and all(s == {("micro.select", "sf=0.01")} for s in seen)
    assert "same 1 cell (select)" in text and "pythonjoin (not run on sqlite/native-c@c)" in text
