"""The opening every study notebook shares: which runs, named, the noise warning, and the run-to-run spread."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from harness.analysis.runset import RunSet, default_runs
from harness.studies import runfacts, runspread


def open_runs(run_dirs: Iterable[Path | str], default: Callable[[], list[Path]] | None = None, *,
              method: str, resamples: int, label: str = "runs") -> RunSet | None:
    """The opening every study notebook shares: the runs given, or `default()` (the reference runs
    or the newest run), named, with the noise warning shown when a run was noisy; A/A twins left out.
    None when there are no runs (a study across runs may have none). For the committed reference runs,
    every ratio and geometric mean carries the run-to-run spread their replicates measured
    (`runspread.with_spread`); `runspread.one_run` gives one run's intervals back."""
    dirs = [Path(d) for d in run_dirs] or (default or default_runs)()
    print(f"{label}:", ", ".join(str(d) for d in dirs) or "none")
    if not dirs:
        return None
    runs = RunSet(dirs, method=method, resamples=resamples, aa_twins=False)
    warning = runfacts.noise_block(runs)
    try:
        from IPython.display import Markdown, display

        display(Markdown(warning))
    except ImportError:  # outside Jupyter: the same words as text
        print(warning)
    return runspread.with_spread(runs)
