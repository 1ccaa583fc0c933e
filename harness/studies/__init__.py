"""The studies, one module each: load its runs once (a RunSet), compute once, and return the
tables, figures and paper blocks it owns (`compute(runs, figures_dir, baseline) -> StudyResult`).

STUDIES maps a study's name to its module name; each has a notebook of the same name.
ACROSS_RUNS names the studies that read runs of their own instead of the main reference: a
timeline of runs (`history`: `compute(run_dirs, figures_dir, ...)`), or runs whose baseline cells
must not pool with the main runs' (`h2` and `haskell`, from data/reference-h2/ and
data/reference-haskell/); views that pool runs (the HTML
report, the explorer) leave them out.
"""
STUDIES = {"bindings": "E1", "micro": "E2", "tpch": "E3", "inserts": "E4", "app": "E5", "ramsql": "E6",
           "history": "E7", "h2": "E2/E3 on H2", "haskell": "E1 in Haskell"}
#: studies that read runs of their own (not the main reference): the report and the explorer skip them
ACROSS_RUNS = {"history", "h2", "haskell"}


def family_studies() -> dict[str, str]:
    """The studies of one benchmark family each (a `PREFIX`, `compute(runs, figures_dir, baseline)`)."""
    return {name: label for name, label in STUDIES.items() if name not in ACROSS_RUNS}
