"""The studies, one module each: load its runs once (a RunSet), compute once, and return the
tables, figures and paper blocks it owns (`compute(runs, figures_dir, baseline) -> StudyResult`).

STUDIES maps a study's name to its module name; each has a notebook of the same name.
ACROSS_RUNS names the studies that read each run apart (a timeline of runs, `compute(run_dirs,
figures_dir, ...)`) instead of one RunSet's cells of a benchmark family; views that pool runs (the
HTML report, the explorer) leave them out.
"""
STUDIES = {"bindings": "E1", "micro": "E2", "tpch": "E3", "history": "E7"}
ACROSS_RUNS = {"history"}


def family_studies() -> dict[str, str]:
    """The studies of one benchmark family each (a `PREFIX`, `compute(runs, figures_dir, baseline)`)."""
    return {name: label for name, label in STUDIES.items() if name not in ACROSS_RUNS}
