"""The studies, one module each: load its runs once (a RunSet), compute once, and return the
tables, figures and paper blocks it owns (`compute(runs, figures_dir, baseline) -> StudyResult`).

STUDIES maps a study's name to its module name; each has a notebook of the same name.
ACROSS_RUNS names the studies that choose their own runs instead of every run of the main
reference: a timeline of runs (`history`: `compute(run_dirs, figures_dir, ...)`), or the runs that
hold their cells (`h2`: the E2 and E3 runs; `haskell`: the E1 run); views that pool runs (the HTML
report, the explorer) leave them out.
"""
STUDIES = {"bindings": "E1", "micro": "E2", "tpch": "E3", "inserts": "E4", "app": "E5", "ramsql": "E6",
           "history": "E7", "h2": "E2/E3 on H2", "haskell": "E1 in Haskell"}
#: studies that read runs of their own (not the main reference): the report and the explorer skip them
ACROSS_RUNS = {"history", "h2", "haskell"}


def family_studies() -> dict[str, str]:
    """The studies of one benchmark family each (a `PREFIX`, `compute(runs, figures_dir, baseline)`)."""
    return {name: label for name, label in STUDIES.items() if name not in ACROSS_RUNS}
