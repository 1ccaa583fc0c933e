"""Execute the notebooks headless on given runs (papermill's job, done with nbclient).

Each notebook is a pair: `notebooks/<name>.py` (jupytext percent format: the text people review
and edit) and `notebooks/<name>.ipynb` (what JupyterLab opens), kept in step by jupytext
(`make notebooks-sync`; `out_of_step()` says which pairs differ, and a test fails on any).

The first cell tagged `parameters` holds defaults; we insert a cell after it that sets the
run directories, the paper and the figures folder, then execute top to bottom. Executed copies
(with outputs) go to an output folder; the committed notebooks stay free of outputs.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from harness.errors import UserError
from harness.fsutil import PROJECT_ROOT

NOTEBOOK_DIR = PROJECT_ROOT / "notebooks"


def _skip_iri_grammar() -> None:
    """Keep jsonschema from importing rfc3987_syntax (installed for jupyter-events), which builds
    a grammar for IRI formats at import: 1.2 of the 1.5 s nbformat takes to import, before the
    first notebook can start. Notebook schemas have no IRI formats, so validation is unchanged."""
    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # None in sys.modules: "not installed"


def available() -> list[str]:
    return sorted(p.stem for p in NOTEBOOK_DIR.glob("*.ipynb"))


def _cells(nb) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(c.cell_type, c.source.strip(), tuple(c.get("metadata", {}).get("tags", []))) for c in nb.cells]


def out_of_step() -> list[str]:
    """Names of notebooks whose `.py` and `.ipynb` differ in any cell (type, source or tags),
    or that lack one side of the pair."""
    _skip_iri_grammar()
    import jupytext

    bad = []
    names = sorted({p.stem for p in NOTEBOOK_DIR.glob("*.py")} | set(available()))
    for name in names:
        py, ipynb = NOTEBOOK_DIR / f"{name}.py", NOTEBOOK_DIR / f"{name}.ipynb"
        if not (py.exists() and ipynb.exists()):
            bad.append(name)
        elif _cells(jupytext.read(py)) != _cells(jupytext.read(ipynb)):
            bad.append(name)
    return bad


@contextlib.contextmanager
def private_kernel_manager() -> Iterator[Any]:
    """A kernel manager whose channels are Unix sockets in a private temp directory: TCP ports
    are picked by binding and releasing, so kernels started at once by concurrent `notebooks`
    commands could pick the same port; socket files in a directory of our own cannot collide."""
    from jupyter_client.manager import KernelManager

    with tempfile.TemporaryDirectory(prefix="crossings-kernel-") as directory:
        km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(directory, "kernel"))
        with _ACTIVE_LOCK:
            _ACTIVE.add(km)
        try:
            yield km
        finally:  # nbclient leaves a kernel it did not create running: stop it here
            with _ACTIVE_LOCK:
                _ACTIVE.discard(km)
            if km.has_kernel:
                km.shutdown_kernel(now=True)
            km.cleanup_resources()


#: the kernel managers of notebooks being executed, so that a Ctrl-C can stop their kernels
_ACTIVE: set = set()
_ACTIVE_LOCK = threading.Lock()
#: set by a Ctrl-C during `execute_all`: no notebook starts after it
_STOP = threading.Event()


def kill_kernels() -> int:
    """Kill the process of every kernel executing a notebook now; returns how many. Why: a
    Ctrl-C must stop `notebooks` within seconds, and the threads running nbclient return only
    when their kernel dies (its client then raises), not when the main thread is interrupted."""
    with _ACTIVE_LOCK:
        kms = list(_ACTIVE)
    killed = 0
    for km in kms:
        process = getattr(getattr(km, "provisioner", None), "process", None)  # a Popen once started
        if process is not None and process.poll() is None:
            try:
                process.kill()
                killed += 1
            except OSError:
                pass
    return killed


def execute(name: str, parameters: dict, out_dir: Path, timeout: int = 1800) -> Path:
    """Run notebook `name` with `parameters` injected; returns the executed copy's path."""
    _skip_iri_grammar()
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    src = NOTEBOOK_DIR / f"{name}.ipynb"
    if not src.exists():
        raise UserError(f"unknown notebook {name!r}; notebooks: {', '.join(available())}")
    nb = nbformat.read(src, as_version=4)
    index = next((i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])), -1)
    # the kernel imports this checkout's harness, whatever else is installed
    lines = ["# injected by harness.notebooks", "import sys",
             f"sys.path.insert(0, {str(PROJECT_ROOT)!r})"] + [f"{k} = {v!r}" for k, v in parameters.items()]
    injected = nbformat.v4.new_code_cell("\n".join(lines), metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(index + 1, injected)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{name}.ipynb"
    try:
        with private_kernel_manager() as km:
            NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                           resources={"metadata": {"path": str(NOTEBOOK_DIR)}}).execute()
    except CellExecutionError as exc:
        nbformat.write(nb, out)
        raise UserError(f"notebook {name} failed (executed copy with the error: {out}):\n{str(exc)[-2000:]}") from None
    nbformat.write(nb, out)
    return out


def default_jobs() -> int:
    """Notebooks executed at once: one per CPU (each is its own kernel process), at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


def previous_seconds(executed: Path) -> float | None:
    """How long an executed copy's cells took (nbclient records each cell's start and end), or
    None when there is no readable copy: what the scheduler expects the notebook to take again."""
    import json
    from datetime import datetime

    try:
        cells = json.loads(Path(executed).read_text())["cells"]
        total = 0.0
        for cell in cells:
            timing = cell.get("metadata", {}).get("execution", {})
            start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
            if start and end:
                total += (datetime.fromisoformat(end.replace("Z", "+00:00"))
                          - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()
        return total
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def longest_first(names: list[str], out_dir: Path) -> list[str]:
    """`names` with the slowest last time (per its executed copy in `out_dir`) first, and those
    never executed before all: with a few notebooks at a time, starting the long ones early keeps
    one long notebook from running alone at the end."""
    seconds = {name: previous_seconds(out_dir / f"{name}.ipynb") for name in names}
    return sorted(names, key=lambda n: -(seconds[n] if seconds[n] is not None else float("inf")))


def stop_all(futures: list, within_s: float = 10.0) -> None:
    """After a Ctrl-C: start no more notebooks and kill the kernels of those running, until every
    thread has returned (or `within_s` has passed: a kernel still starting is killed as soon as
    it has a process), so the interrupt is honoured within about a second."""
    _STOP.set()
    for f in futures:
        f.cancel()
    deadline = time.monotonic() + within_s
    while any(not f.done() for f in futures) and time.monotonic() < deadline:
        kill_kernels()
        time.sleep(0.05)


def execute_all(run_dirs: list[Path], paper: Path, figures: Path, out_dir: Path, names: list[str] | None = None,
                extra: dict | None = None, jobs: int | None = None) -> list[Path]:
    """Execute the notebooks, `jobs` at a time (default `default_jobs()`); returns the executed
    copies in the order of `names`. Each notebook writes only its own figures and paper blocks
    (paper.update_section serialises the writes), so the result does not depend on the order.
    A failing notebook lets the ones already started finish, starts no more, and is raised."""
    from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

    # interactive=False: nobody is there to click, so notebooks with widgets show static views
    params = {"run_dirs": [str(Path(d).resolve()) for d in run_dirs], "paper_path": str(Path(paper).resolve()),
              "figures_dir": str(Path(figures).resolve()), "interactive": False, **(extra or {})}
    names = list(names or available())
    jobs = max(1, jobs or default_jobs())

    def one(name: str) -> Path:
        if _STOP.is_set():
            raise KeyboardInterrupt
        t0 = time.perf_counter()
        print(f"executing notebooks/{name}.ipynb ...", file=sys.stderr, flush=True)
        path = execute(name, params, out_dir)
        print(f"  {name} done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        return path

    _STOP.clear()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        started = {name: pool.submit(one, name) for name in longest_first(names, out_dir)}
        futures = [started[name] for name in names]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        except KeyboardInterrupt:
            stop_all(futures)
            raise
        failed = next((f for f in futures if f in done and f.exception() is not None), None)
        if failed is not None:
            for f in futures:
                f.cancel()
            failed.result()
        return [f.result() for f in futures]
