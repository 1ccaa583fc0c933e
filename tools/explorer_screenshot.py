"""Screenshot of the explorer notebook's widgets as JupyterLab shows them, headless.

Steps: execute `notebooks/explorer.ipynb` with nbclient (interactive=True, so the widgets are
built) and store the widget state in the notebook; start JupyterLab headless on a free port in
a scratch directory holding that executed copy; open it in headless Chromium, which renders the
saved widget state with JupyterLab's own widget manager; save a PNG. The widgets shown are real
ipywidgets views of the executed state, not a kernel answering clicks (a headless browser has
nobody to click).
Run: python tools/explorer_screenshot.py [OUT.png] [--resamples N] [RUN_DIR ...]
"""
from __future__ import annotations

import argparse
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def execute(out: Path, resamples: int, run_dirs: list[str]) -> None:
    import nbformat
    from nbclient import NotebookClient

    from harness.notebooks import private_kernel_manager

    nb = nbformat.read(ROOT / "notebooks" / "explorer.ipynb", as_version=4)
    index = next(i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", []))
    lines = ["import sys", f"sys.path.insert(0, {str(ROOT)!r})", f"resamples = {resamples}", "interactive = True",
             f"run_dirs = {run_dirs!r}"]
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell("\n".join(lines), metadata={"tags": ["injected-parameters"]}))
    with private_kernel_manager() as km:
        NotebookClient(nb, km=km, timeout=1800, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    nbformat.write(nb, out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(ROOT / "docs" / "explorer.png"))
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("runs", nargs="*", default=[])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="crossings-shot-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        execute(tmp / "explorer.ipynb", args.resamples, args.runs)
        print(f"executed with widget state in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        port, token = free_port(), secrets.token_hex(16)
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp / "cfg"), "JUPYTER_RUNTIME_DIR": str(tmp / "rt")}
        lab = subprocess.Popen([str(Path(sys.executable).parent / "jupyter-lab"), "--no-browser", f"--port={port}",
                                f"--ServerApp.token={token}", "--ServerApp.ip=127.0.0.1", "--allow-root",
                                f"--ServerApp.root_dir={tmp}", "--LabApp.news_url=", "--ServerApp.open_browser=False"],
                               env=env, stdout=subprocess.DEVNULL, stderr=(tmp / "lab.log").open("w"))
        try:
            url = f"http://127.0.0.1:{port}/lab/tree/explorer.ipynb?token={token}&reset"
            for _ in range(180):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
                    break
                except OSError:
                    if lab.poll() is not None:
                        raise SystemExit("JupyterLab exited:\n" + (tmp / "lab.log").read_text()[-2000:]) from None
                    time.sleep(1)
            else:
                raise SystemExit("JupyterLab did not answer in 180 s:\n" + (tmp / "lab.log").read_text()[-2000:])
            shot = tmp / "shot.png"
            subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                            "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp / 'chrome'}",
                            "--window-size=1400,2200", "--hide-scrollbars", "--timeout=90000",
                            "--run-all-compositor-stages-before-draw",
                            f"--screenshot={shot}", url], check=True, timeout=600,
                           stdout=subprocess.DEVNULL, stderr=(tmp / "chromium.log").open("w"))
            if not shot.exists():
                print((tmp / "chromium.log").read_text()[-3000:], file=sys.stderr)
                raise SystemExit("chromium wrote no screenshot (its log is above)")
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, args.out)
            print(f"wrote {args.out}", file=sys.stderr)
        finally:
            lab.terminate()
            lab.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
