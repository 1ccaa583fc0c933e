"""`notebooks`: execute the notebooks headless on runs; they write figures and paper.md blocks.

By default everything goes into the last run's `report/` folder (the run's own report: paper.md's
layout with only the studies these runs measured, from these runs alone (`studies/runreport.py`),
its figures, the executed notebooks), so rendering a run never changes tracked files; `make
paper` names the committed paper.md and figures/ explicitly."""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("notebooks", help="execute the notebooks on runs (writes a report: paper.md and figures)")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    p.add_argument("--only", help="comma-separated notebook names (default: all)")
    p.add_argument("--paper", type=Path, help="paper.md to update (default RUN_DIR/report/paper.md, a copy of "
                                              "the project's)")
    p.add_argument("--figures", type=Path, help="folder for the figures (default RUN_DIR/report/figures)")
    p.add_argument("--executed", type=Path, help="folder for executed copies (default RUN_DIR/report/notebooks)")
    p.add_argument("--history", type=Path, nargs="+", metavar="RUN",
                   help="runs (or folders of runs) for the history notebook's timeline (default: the committed "
                        "data/reference-history/)")
    p.add_argument("--jobs", "-j", type=int, metavar="N",
                   help="notebooks executed at once (default: one per CPU, at most 4; 1 = one after another)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.errors import UserError
    from harness.fsutil import PROJECT_ROOT
    from harness.notebooks import available, execute_all
    from harness.store import manifest_of
    from harness.studies import runreport

    for d in args.runs:
        manifest_of(d)  # a missing or unreadable run says so first
    if args.jobs is not None and args.jobs < 1:
        raise UserError(f"--jobs must be at least 1, not {args.jobs}")
    names = [n.strip() for n in args.only.split(",") if n.strip()] if args.only is not None else None
    if names is not None:
        unknown = [n for n in names if n not in available()] or ([] if names else ["''"])
        if unknown:
            raise UserError(f"unknown notebook {', '.join(unknown)}; notebooks: {', '.join(available())}")
    report = args.runs[-1] / "report"
    paper = args.paper or report / "paper.md"
    figures = args.figures or report / "figures"
    out = args.executed or report / "notebooks"
    for what, path in (("--paper", paper.parent), ("--figures", figures), ("--executed", out)):
        if path.exists() and not path.is_dir():
            raise UserError(f"{what}: {path} is a file, not a directory")
    own = args.paper is None  # the run's own report, rewritten from the project's paper each time
    if own:
        try:
            report.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(PROJECT_ROOT / "paper.md", paper)
        except OSError as exc:
            raise UserError(f"cannot write the report in {report}: {exc.strerror or exc}") from None
        runreport.blank(paper)
    elif not paper.is_file():
        raise UserError(f"--paper: {paper} does not exist (give a copy of paper.md to render into)")
    extra: dict = {}
    if args.history:
        from harness.analysis.history import expand_run_dirs

        extra["history_dirs"] = [str(d.resolve()) for d in expand_run_dirs(args.history)]
    if own:
        names, own_runs = own_notebooks(args.runs, names, bool(args.history))
        extra.update(own_runs)
    if names == []:  # --only named nothing these runs have: a report without studies, not every notebook
        print("note: no notebook to execute for these runs", file=sys.stderr)
    else:
        for path in execute_all(args.runs, paper, figures, out, names, extra or None, jobs=args.jobs):
            print(path)
    if own:
        for link in runreport.finish(paper, args.runs):
            print(f"warning: {paper}: dropped the link to {link}, which no notebook drew", file=sys.stderr)
    print(f"report: {paper}  figures: {figures}", file=sys.stderr)
    return 0


def own_notebooks(runs: list[Path], names: list[str] | None, history: bool) -> tuple[list[str], dict]:
    """The notebooks of a run's own report and the parameters they need: a study's notebook only
    when the runs have its cells; H2's and the Haskell study's on these runs (never the committed
    data/reference/) when they hold H2 or Haskell cells; the timeline only with
    --history (of the notebooks named by --only too: one that would read committed data is not run)."""
    from harness.notebooks import available
    from harness.run.runtimes import runtime_family
    from harness.analysis.runset import run_cells
    from harness.studies import STUDIES, family_studies, study

    cells = set().union(*(run_cells(Path(d)) for d in runs))
    engines = {c[2] for c in cells}
    runtimes = {runtime_family(str(c[3])) for c in cells}
    chosen = {"h2": any(e.startswith("h2/") for e in engines),
              "haskell": any(r.startswith("haskell") for r in runtimes), "history": history}
    benchmarks = {str(c[0]) for c in cells}
    for name in family_studies():
        chosen[name] = study(name).has_cells(benchmarks)
    extra = {}
    dirs = [str(Path(d).resolve()) for d in runs]
    if chosen["h2"]:
        extra["h2_dirs"] = dirs
        extra["steady_dirs"] = []  # a run's own report never reads the committed steady-state run
        extra["diagnosis_dirs"] = []  # nor the committed diagnosis of q19 and q20
    if chosen.get("micro"):
        extra["sweep_dirs"] = []  # nor the committed E2s sweep
    if chosen["haskell"]:
        extra["haskell_dirs"] = dirs
    wanted = names if names is not None else available()
    skipped = [n for n in wanted if n in STUDIES and not chosen.get(n)]
    if names is not None and skipped:
        print(f"note: not executed, these runs have no cells of their studies: {', '.join(skipped)}", file=sys.stderr)
    return [n for n in wanted if n not in skipped], extra
