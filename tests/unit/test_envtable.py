"""The environment tables (harness/studies/envtable.py) read the manifests only: a value that
differs between runs is listed per run, server temp paths never show, a missing governor says so."""
import json

from harness.analysis.runset import manifest_of
from harness.studies import envtable


def _md(*run_dirs):
    return envtable.markdown(manifest_of(d) for d in run_dirs)


def _run(tmp_path, run_id, kernel="6.1", governor=None, socket="/tmp/crossings-pg-abc/.s.PGSQL.5432",
         cpu="AMD EPYC", imported=False):
    d = tmp_path / run_id
    d.mkdir()
    m = {"schema_version": 2, "run_id": run_id,
         "imported": imported,
         "machine": {"cpu": {"model": cpu, "cores": 2, "governor": governor, "turbo": None},
                     "kernel": kernel, "os": "Linux", "memory_bytes": 2**31},
         "cpu_clock": {"hz": 2.4e9, "source": "proc-cpuinfo", "notes": ["perf stat -e cycles:u: <not supported>"]},
         "doctor": [{"check": "governor", "advice": "no cpufreq interface (a VM?): the host sets the frequency; "
                                                   "say so"}],
         "python": {"version": "3.11.7 (main)"},
         "engines": {"postgresql/psycopg@cpython": {
             "available": True, "runtime": "cpython3.11.7", "versions": {"driver": "psycopg 3.3.9"},
             "server": {"settings_name": "throwaway-default", "settings": {"fsync": "on", "port": 5432},
                        "listen": "unix", "transport": f"unix socket {socket}"}},
             "duckdb@c": {"available": False}}}
    (d / "manifest.json").write_text(json.dumps(m))
    return d


def test_differing_values_name_their_runs_and_equal_ones_say_all(tmp_path):
    a, b = _run(tmp_path, "r1", kernel="6.1"), _run(tmp_path, "r2", kernel="6.2", socket="/tmp/other/.s.PGSQL")
    md = _md(a, b)
    assert "| kernel | 6.1 | 6.2 |" in md and "| runs | `r1` | `r2` |" in md  # one column per machine
    assert "| CPU | AMD EPYC, 2 cores | AMD EPYC, 2 cores |" in md
    assert "not readable (no cpufreq interface (a VM?): the host sets the frequency)" in md
    assert "2.400 GHz" in md and "<not supported>" in md


def test_engine_rows_merge_across_runs_without_temp_paths(tmp_path):
    md = _md(_run(tmp_path, "r1"), _run(tmp_path, "r2", socket="/tmp/other/.s.PGSQL"))
    rows = [line for line in md.splitlines() if line.startswith("| postgresql/psycopg")]
    assert len(rows) == 1 and "2 of 2" in rows[0]
    assert "fsync=on" in rows[0] and "port" not in rows[0] and "/tmp" not in rows[0]
    assert "duckdb" not in md  # unavailable engines are not part of the environment


def test_an_imported_run_on_another_cpu_is_never_all_runs(tmp_path):
    a = _run(tmp_path, "r1", cpu="Intel Xeon")
    b = _run(tmp_path, "r2", cpu="AMD EPYC", imported=True)
    md = envtable.markdown([manifest_of(a), manifest_of(b)], {"r1": "E1", "r2": "E6, imported go test"})
    assert "| item | E1 (1 run) | E6, imported go test (1 run) |" in md
    assert "| CPU | Intel Xeon, 2 cores | AMD EPYC, 2 cores |" in md
    assert "all 2 runs" not in md and "1 measured by the harness, 1 imported" in md


def test_one_machine_is_one_column(tmp_path):
    md = _md(_run(tmp_path, "r1"), _run(tmp_path, "r2"))
    assert "| item | all 2 runs |" in md and "| CPU | AMD EPYC, 2 cores |" in md


def test_the_hosts_sentence_counts_machines_and_names_their_studies(tmp_path):
    runs = [_run(tmp_path, "r1", cpu="Intel Xeon"), _run(tmp_path, "r2", cpu="Intel Xeon"),
            _run(tmp_path, "r3", cpu="AMD EPYC", kernel="6.9")]
    studies = {"r1": "E3", "r2": "E1, E2", "r3": "E3h"}
    text = envtable.hosts_sentence([manifest_of(d) for d in runs], studies)
    assert text.startswith("The runs were measured on 2 virtual machines, each with no readable frequency governor "
                           "and no cycle counter (so no result is given in cycles)")
    assert "Intel Xeon, 2 cores (kernel 6.1): E1, E2, E3; AMD EPYC, 2 cores (kernel 6.9): E3h." in text
    one = envtable.hosts_sentence([manifest_of(runs[0])], studies)
    assert one.startswith("Every run was measured on one virtual machine, Intel Xeon, 2 cores (kernel 6.1)")
    assert "_No runs" in envtable.hosts_sentence([])


def test_an_imported_run_on_the_same_machine_joins_its_column(tmp_path):
    """An imported run records less (no governor advice, no harness Python): on the machine of the measured
    runs it is one of them, the harness Python row saying it was not used there, not a column of its own."""
    a = _run(tmp_path, "r1")
    b = _run(tmp_path, "r2", imported=True)
    m = json.loads((b / "manifest.json").read_text())
    m["doctor"], m["python"] = [], {}
    (b / "manifest.json").write_text(json.dumps(m))
    md = envtable.markdown([manifest_of(b), manifest_of(a)], {"r1": "E6", "r2": "E6's go test sessions"})
    assert "| item | all 2 runs |" in md
    assert "| harness Python | 3.11.7 (1 imported run: not used) |" in md


def test_a_host_that_ran_every_replicate_counts_them_instead_of_naming_each():
    from types import SimpleNamespace

    from harness.studies import envtable

    facts = {"CPU": "AMD EPYC, 2 cores", "kernel": "6.1", "frequency governor": "not readable",
             "cycle counter": "none"}
    other = dict(facts, kernel="6.9")
    ms = [SimpleNamespace(run_id=r) for r in ("a", "b", "c", "d", "e")]
    table = {"a": facts, "b": facts, "c": facts, "d": facts, "e": other}
    studies = {"a": "E1", "b": "E2", "c": "E1 replicate", "d": "E2 replicate", "e": "E7"}
    import pytest

    mp = pytest.MonkeyPatch()
    mp.setattr(envtable, "machine_facts", lambda m: table[m.run_id])
    try:
        text = envtable.hosts_sentence(ms, studies)
    finally:
        mp.undo()
    assert "AMD EPYC, 2 cores (kernel 6.1): E1, E2, and the replicates of 2 of them (Appendix B.10);" in text
    assert "(kernel 6.9): E7." in text


def test_a_version_is_found_whatever_the_case_the_probe_wrote_it_in():
    """PostgreSQL's server says "PostgreSQL 15.20": asked for "postgresql", the version is found, not "unrecorded"
    (review 87 saw "unrecorded" in the verdict table beside Appendix E's 15.20)."""
    vs = {("postgresql/psycopg", "cpython3.11.2"): "PostgreSQL 15.20 (Debian 15.20-0+deb12u1); psycopg 3.2.3"}
    assert envtable.version_of(vs, "postgresql/psycopg", "postgresql") == "15.20"
    assert envtable.version_of(vs, "postgresql/psycopg", "psycopg") == "3.2.3"
    assert envtable.version_of(vs, "postgresql/psycopg", "mariadb") == "unrecorded"
