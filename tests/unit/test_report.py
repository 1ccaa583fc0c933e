"""The HTML report's pieces: intervals printed [low, high], figures embedded, bad input one line."""
from __future__ import annotations

import re
from pathlib import Path

from harness import cli, store
from harness.analysis import html, simdata, wording
from harness.analysis.runset import RunSet
from harness.studies import report


def test_interval_keeps_both_ends():
    assert wording.interval(8.49e-3, 7.61e-3, 9.55e-3, scale=1e-3, unit="ms") == "8.49 ms [7.61, 9.55]"
    assert wording.interval(2.0, 1.5, 3.5) == "2.00 [1.50, 3.50]"  # asymmetric: no ±
    assert wording.interval(float("nan"), 1, 2, missing="—") == "—"
    assert html.unit_for([8.49e-3]) == (1e-3, "ms") and html.unit_for([5e-7]) == (1e-9, "ns")
    assert html.sig(5.46e-11) == "5.46e-11"


def test_escaping_and_code_spans():
    assert html.markdown("run `a<b` _x_ <script>") == "<p>run <code>a&lt;b</code> <em>x</em> &lt;script&gt;</p>"
    assert "<table>" in html.markdown("| a | b |\n|---|---|\n| 1 | 2 |")
    t = html.table(["a"], [["<script>"]])
    assert "<script>" not in t and "&lt;script&gt;" in t


def test_report_of_a_simulated_run(tmp_path):
    df = simdata.simulate_run(benchmarks=2, engines=("e/a", "e/b"), processes=3, iterations=8, warmup=2, seed=1)
    run = store.write_imported_run(tmp_path, df, {"machine": {}})
    page = report.build(RunSet(run, resamples=200), baseline="e/a")
    assert page.startswith("<!DOCTYPE html>") and '<h2 id="every-cell">Every cell</h2>' in page
    assert '<nav class="toc"' in page and '<a href="#every-cell">' in page
    assert "bench00" in page and "data:image/svg+xml;base64," in page
    assert not re.search(r'(src|href)="(https?:|//)', page)


def test_report_bad_input_exits_2(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "missing"), "--html", str(tmp_path / "r.html")]) == 2
    assert "no such run directory" in capsys.readouterr().err
    df = simdata.simulate_run(benchmarks=1, engines=("e/a",), processes=2, iterations=3, seed=1)
    run = store.write_imported_run(tmp_path, df, {"machine": {}})
    assert cli.main(["report", str(run), "--html", str(tmp_path / "no" / "r.html")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert cli.main(["report", str(run), "--html", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_manifest_values_are_readable():
    assert html.readable([2.82177734375, 2.1, 1.953125]) == "2.82, 2.10, 1.95"
    assert html.readable(None) == "—" and html.readable(300.0) == "300"


def test_report_shows_the_noise_warning(tmp_path):
    import json

    df = simdata.simulate_run(benchmarks=1, engines=("e/a", "e/b"), processes=3, iterations=5, seed=1)
    run = store.write_imported_run(tmp_path, df, {"machine": {}})
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["doctor"] = [{"check": "load", "status": "warn", "value": "3.42 1.33 (of 2 CPUs)", "advice": ""}]
    manifest.setdefault("machine", {})["loadavg_before"] = [2.82177734375, 2.5, 2.0]
    (run / "manifest.json").write_text(json.dumps(manifest))
    page = report.build(RunSet(run, resamples=200), baseline="e/a")
    assert "2.82177734375" not in page and "2.82, 2.50, 2.00" in page
    assert '<div class="warn" id="noise">' in page and "Warning: noisy run" in page and "3.42 1.33" in page


def test_report_from_the_store_names_the_runs_and_store_not_a_temporary_folder(tmp_path, monkeypatch):
    """With --from the runs are read into a private temporary folder that is deleted afterwards:
    the page must name what the user gave (the run id, the store with its password redacted)."""
    import shutil
    import tempfile

    from harness.run import resultsdb

    df = simdata.simulate_run(benchmarks=1, engines=("e/a", "e/b"), processes=2, iterations=4, seed=1)
    stored = store.write_imported_run(tmp_path / "store", df, {"machine": {}})

    class FakeStore:
        """Materialized without PostgreSQL: the run copied into a temporary folder, as the real one does."""

        def __init__(self, dsn: str, ids: list[str] | None) -> None:
            self.ids = ids

        def __enter__(self) -> list:
            self.dir = Path(tempfile.mkdtemp(prefix="crossings-from-db-"))
            return [Path(shutil.copytree(stored, self.dir / i)) for i in self.ids]

        def __exit__(self, *exc) -> None:
            shutil.rmtree(self.dir, ignore_errors=True)

    monkeypatch.setattr(resultsdb, "Materialized", FakeStore)
    out = tmp_path / "r.html"
    assert cli.main(["report", stored.name, "--from", "postgresql://me:secret@db.example/results",
                     "--html", str(out), "--resamples", "200", "--baseline", "e/a"]) == 0
    page = out.read_text()
    assert "crossings-from-db-" not in page and "crossings-report-" not in page
    assert tempfile.gettempdir() + "/" not in page
    assert f"<code>{stored.name}</code>" in page and "db.example/results" in page and "secret" not in page


def test_report_of_run_dirs_names_them_as_given(tmp_path, monkeypatch):
    df = simdata.simulate_run(benchmarks=1, engines=("e/a", "e/b"), processes=2, iterations=4, seed=1)
    run = store.write_imported_run(tmp_path, df, {"machine": {}})
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.html"
    assert cli.main(["report", run.name, "--html", str(out), "--resamples", "200", "--baseline", "e/a"]) == 0
    assert f"run directory <code>{run.name}</code>" in out.read_text()
