"""Which committed runs belong to which study of the reference campaign, and each study's replicate.

Why: the studies (`harness.studies`) read runs through the analysis layer only, while what a study is
(its benchmark families, its folder, whether it can be repeated) is the run layer's (`run/reference.py`).
A replicate is a study run again in another sitting (`harness reference --replicate`), installed beside
its folder: not the bootstrap's replicates of a cell (`analysis/replicates.py`).
"""
from __future__ import annotations

from pathlib import Path

from harness.fsutil import PROJECT_ROOT
from harness.run import manifest, reference


def replicated(root: Path = PROJECT_ROOT) -> list[tuple[str, tuple[Path, ...], tuple[Path, ...]]]:
    """(study, its runs, its replicate's runs) of every study with a replicate installed
    (`data/reference*-replicate/`), in campaign order; the runs are those of the study in its own folder."""
    out = []
    for study in reference.STUDIES.values():
        if study.name in reference.NOT_REPLICATED:
            continue
        rep_folder = root / reference.replicate_folder(study.folder)
        reps = reference.runs_of(study, rep_folder) if rep_folder.is_dir() else []
        runs = reference.runs_of(study, root / study.folder) if reps else []
        if reps and runs:
            out.append((study.name, tuple(runs), tuple(reps)))
    return out


def study_runs(study: str, root: Path = PROJECT_ROOT) -> list[Path]:
    """A study's installed runs, its replicate's too (`data/reference*-replicate/`): the runs its cells come from."""
    s = reference.STUDIES[study]
    found: list[Path] = []
    for folder in (root / s.folder, root / reference.replicate_folder(s.folder)):
        if folder.is_dir():
            found += reference.runs_of(s, folder)
    return found


def folder_of(study: str) -> str:
    """The folder a study's runs are installed in (data/reference, data/reference-h2, ...)."""
    return reference.STUDIES[study].folder


def run_code_changes(first: str, second: str, root: Path = PROJECT_ROOT) -> list[str] | None:
    """The files of the code a run executes that differ between two runs' commits ([] none; None: git
    cannot tell), so a replicate made at another commit can say whether it measured the same code."""
    return manifest.run_code_changes(first, second, root)


def run_code_lines(first: str, second: str, root: Path = PROJECT_ROOT) -> int | None:
    """How many lines of the code a run executes (`manifest.RUN_CODE`) differ between two runs' commits, added
    plus removed (`git diff --numstat`), so a reader sees how small a difference `run_code_changes` names is;
    None when git cannot tell."""
    if not first or not second:
        return None
    if first == second:
        return 0
    out = manifest._git("diff", "--numstat", first, second, "--", *manifest.RUN_CODE,
                        *(f":(exclude){p}" for p in manifest.NOT_RUN_CODE), root=root)
    if out is None:
        return None
    # a binary file's counts are "-": it counts as no line
    return sum(int(x) for line in out.splitlines() for x in line.split("\t")[:2] if x.isdigit())


def commits_touching(paths: list[str], since: str, until: str, root: Path = PROJECT_ROOT) -> list[str] | None:
    """The commits (short hashes) that changed any of `paths` with a committer date between `since` and `until`
    (ISO 8601), so the paper can date its verdicts' rules against its runs; None when git cannot tell (no
    checkout, a shallow clone)."""
    if not _full_history(root):
        return None
    out = manifest._git("log", "--format=%h", f"--since={since}", f"--until={until}", "--", *paths, root=root)
    return None if out is None else [line for line in out.splitlines() if line.strip()]


def _full_history(root: Path) -> bool:
    """Whether `root` is a git checkout with its whole history (not shallow), so a commit count means something."""
    shallow = manifest._git("rev-parse", "--is-shallow-repository", root=root)
    return shallow is not None and shallow.strip() != "true"


def last_commit_touching(paths: list[str], until: str, root: Path = PROJECT_ROOT) -> tuple[str, str] | None:
    """The last commit (short hash, committer date ISO 8601) that changed any of `paths` at or before `until`, so a
    reader can check out the rules a set of runs was decided by; None when git cannot tell or none did."""
    if not _full_history(root):
        return None
    out = manifest._git("log", "-1", "--format=%h %cI", f"--until={until}", "--", *paths, root=root)
    if not out or " " not in out:
        return None
    commit, date = out.split(" ", 1)
    return commit, date
