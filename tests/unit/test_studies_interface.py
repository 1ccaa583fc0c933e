"""The study interface: every study of one benchmark family offers PREFIX and
compute(runs, figures_dir, baseline) -> StudyResult, and the registry is the one way in."""
import inspect

import pytest

from harness.studies import ACROSS_RUNS, STUDIES, family_studies, study


def test_every_family_study_has_the_interface_the_report_and_explorer_use():
    assert set(family_studies()) == set(STUDIES) - ACROSS_RUNS and len(family_studies()) == 6
    prefixes = set()
    for name in family_studies():
        s = study(name)
        assert s.prefix.endswith(".") and s.prefix == f"{s.module.PREFIX}"
        params = list(inspect.signature(s.module.compute).parameters)
        assert params[:3] == ["runs", "figures_dir", "baseline"], (name, params)
        assert s.has_cells({f"{s.prefix}x"}) and not s.has_cells({"nothing.x"})
        prefixes.add(s.prefix)
    assert len(prefixes) == 6  # one family each


def test_studies_across_runs_own_no_family_and_unknown_names_list_the_studies():
    for name in ACROSS_RUNS:
        with pytest.raises(TypeError):
            study(name).prefix
    with pytest.raises(KeyError, match="studies: bindings"):
        study("nope")


def test_open_runs_names_the_runs_and_says_when_there_are_none(capsys):
    from harness.studies.opening import open_runs

    assert open_runs([], lambda: [], method="process-bootstrap", resamples=100, label="H2 runs") is None
    assert capsys.readouterr().out.strip() == "H2 runs: none"


def test_the_manifest_records_every_engines_driver_from_the_registry():
    """No second hand-kept list of drivers: a driver of the engines registry (pymongo included) is
    among the libraries a manifest records."""
    from harness import engines
    from harness.run.manifest import library_names

    names = library_names()
    assert {"pymongo", "psycopg", "pymysql", "mysqlclient", "apsw", "duckdb"} <= set(names)
    assert {e.driver for e in engines.ENGINES.values()} <= set(names)
    assert len(names) == len(set(names))
