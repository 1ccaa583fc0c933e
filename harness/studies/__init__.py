"""The studies, one module each: load its runs once (a RunSet), compute once, and return the
tables, figures and paper blocks it owns (`compute(runs, figures_dir, baseline) -> StudyResult`).

STUDIES maps a study's name to its module name; each has a notebook of the same name.
"""
STUDIES = {"bindings": "E1", "micro": "E2", "tpch": "E3", "inserts": "E4"}
