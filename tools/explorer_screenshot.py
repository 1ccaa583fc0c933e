"""Screenshot of the explorer notebook live in JupyterLab: widgets built by a running kernel.

Steps: copy `notebooks/explorer.ipynb` into a scratch directory with a cell that sets the
parameters (this checkout's harness on the path, fewer resamples so it loads quickly); start
JupyterLab headless there on a free port with a random token (`--LabApp.expose_app_in_browser`
so the page exposes its command registry); open the notebook in headless Chromium driven over
the DevTools protocol (`--remote-debugging-port`, a small websocket client); run
`notebook:run-all-cells` in the page, wait until the widgets and their plots are drawn, and
save a PNG of the page.
Run: python tools/explorer_screenshot.py [OUT.png] [--resamples N] [--wait SEC] [RUN_DIR ...]
"""
from __future__ import annotations

import argparse
import base64
import json
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
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: the page is ready when the widgets' plots are shown (inline SVG; the run sequences come last)
READY_JS = ("document.querySelectorAll('.widget-output svg text').length >= 2 && "
            "document.querySelectorAll('.widget-select-multiple').length >= 1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def notebook_copy(out: Path, resamples: int, run_dirs: list[str]) -> None:
    import nbformat

    nb = nbformat.read(ROOT / "notebooks" / "explorer.ipynb", as_version=4)
    index = next(i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", []))
    lines = ["import sys", f"sys.path.insert(0, {str(ROOT)!r})", f"resamples = {resamples}", "interactive = True",
             f"run_dirs = {run_dirs!r}"]
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell("\n".join(lines), metadata={"tags": ["injected-parameters"]}))
    nbformat.write(nb, out)


def wait_http(url: str, proc: subprocess.Popen, log: Path, seconds: int) -> None:
    for _ in range(seconds):
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"{proc.args[0]} exited:\n" + log.read_text()[-2000:]) from None
            time.sleep(1)
    raise SystemExit(f"no answer from {url} in {seconds} s:\n" + log.read_text()[-2000:])


class DevTools:
    """The few DevTools protocol calls we need, over one websocket."""

    def __init__(self, ws_url: str) -> None:
        import websocket  # websocket-client

        self.ws = websocket.create_connection(ws_url, timeout=120, suppress_origin=True)
        self.next_id = 0

    def call(self, method: str, **params: object) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, js: str) -> object:
        r = self.call("Runtime.evaluate", expression=js, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(ROOT / "docs" / "explorer.png"))
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--wait", type=int, default=900, help="seconds to wait for the widgets (default 900)")
    ap.add_argument("runs", nargs="*", default=[])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="crossings-shot-") as tmp:
        tmp = Path(tmp)
        (tmp / "lab").mkdir()
        notebook_copy(tmp / "lab" / "explorer.ipynb", args.resamples, args.runs)
        port, token, dport = free_port(), secrets.token_hex(16), free_port()
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp / "cfg"), "JUPYTER_RUNTIME_DIR": str(tmp / "rt")}
        lab_log, chrome_log = tmp / "lab.log", tmp / "chromium.log"
        lab = subprocess.Popen([str(Path(sys.executable).parent / "jupyter-lab"), "--no-browser", f"--port={port}",
                                f"--ServerApp.token={token}", "--ServerApp.ip=127.0.0.1", "--allow-root",
                                f"--ServerApp.root_dir={tmp / 'lab'}", "--LabApp.expose_app_in_browser=True",
                                "--LabApp.news_url="], env=env, stdout=subprocess.DEVNULL, stderr=lab_log.open("w"))
        chrome = None
        try:
            wait_http(f"http://127.0.0.1:{port}/api/status?token={token}", lab, lab_log, 180)
            chrome = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                                       "--disable-background-networking", "--disable-component-update",
                                       "--no-first-run", f"--user-data-dir={tmp / 'chrome'}",
                                       f"--remote-debugging-port={dport}", "--window-size=1400,3400",
                                       "--hide-scrollbars", "about:blank"],
                                      stdout=subprocess.DEVNULL, stderr=chrome_log.open("w"))
            wait_http(f"http://127.0.0.1:{dport}/json/version", chrome, chrome_log, 60)
            pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{dport}/json/list", timeout=10))
            page = next(p for p in pages if p.get("type") == "page")
            dt = DevTools(page["webSocketDebuggerUrl"])
            dt.call("Page.enable")
            dt.call("Emulation.setDeviceMetricsOverride", width=1400, height=3400, deviceScaleFactor=1, mobile=False)
            dt.call("Page.navigate", url=f"http://127.0.0.1:{port}/lab/tree/explorer.ipynb?token={token}&reset")
            t0 = time.monotonic()
            while not dt.eval("!!(window.jupyterapp && document.querySelector('.jp-Notebook .jp-Cell'))"):
                if time.monotonic() - t0 > 180:
                    raise SystemExit("JupyterLab did not show the notebook in 180 s")
                time.sleep(2)
            kernel_js = ("(async () => { const a = window.jupyterapp; let w = null;"
                         " for (const x of a.shell.widgets('main')) { if (x.sessionContext) w = x; }"
                         " const ok = document.querySelector('.jp-Dialog .jp-mod-accept'); if (ok) ok.click();"
                         " if (!w) return 'no notebook panel';"
                         " a.shell.activateById(w.id); await w.sessionContext.ready;"
                         " const k = w.sessionContext.session && w.sessionContext.session.kernel;"
                         " if (!k) { await w.sessionContext.changeKernel({name: 'python3'}); return 'starting'; }"
                         " return k.status === 'idle' ? 'ready' : k.status; })()")
            state = None
            while state != "ready":
                state = dt.eval(kernel_js)
                if time.monotonic() - t0 > 300:
                    raise SystemExit(f"the kernel did not start in 300 s (last state: {state}; lab log:\n"
                                     + lab_log.read_text()[-1500:])
                time.sleep(2)
            dt.eval("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            print("running all cells ...", file=sys.stderr, flush=True)
            t1 = time.monotonic()
            while not dt.eval(READY_JS):
                if time.monotonic() - t1 > args.wait:
                    print("the widgets did not finish drawing in time; screenshot as it is", file=sys.stderr)
                    break
                time.sleep(5)
            time.sleep(3)
            print(f"widgets drawn {time.monotonic() - t1:.0f} s after run-all", file=sys.stderr)
            # show what a reader sees: outputs and text, code cells collapsed, no pop-up notices
            dt.eval("(async () => { const a = window.jupyterapp;"
                    " await a.commands.execute('notebook:hide-all-cell-code');"
                    " for (const b of document.querySelectorAll('.jp-toast-container button, .Toastify button'))"
                    "   { if (b.textContent.trim() === 'No') b.click(); } return true; })()")
            time.sleep(3)
            shot = dt.call("Page.captureScreenshot", format="png")
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_bytes(base64.b64decode(shot["data"]))
            print(f"wrote {args.out}", file=sys.stderr)
        finally:
            for p in (chrome, lab):
                if p is not None:
                    p.terminate()
                    try:
                        p.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        p.kill()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
