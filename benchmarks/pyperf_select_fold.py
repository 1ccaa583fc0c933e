"""pyperf, with its defaults, timing the harness's own E1 operation (`bindings.select_fold` on sqlite3).

Each pyperf worker process does what a crossings worker does before its timed loop (connect,
build the N-row table, untimed) and then lets pyperf time `operation(state)`. Run by
benchmarks/bench_precision.py: python benchmarks/pyperf_select_fold.py -o OUT.json [--n N]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyperf  # noqa: E402

from harness import engines, workloads  # noqa: E402


def add_cmdline_args(cmd: list[str], args) -> None:
    cmd.extend(("--n", str(args.n)))


def main() -> None:
    runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
    runner.argparser.add_argument("--n", type=int, default=10000)
    args = runner.parse_args()
    workdir = tempfile.mkdtemp(prefix="crossings-pyperf-")
    db = engines.get("sqlite/sqlite3").connect({}, workdir)
    workload = workloads.get("bindings.select_fold")
    state = workload.setup(db, {"n": args.n}, {"workdir": workdir, "data": {}, "seed": 0, "process": 0})
    runner.bench_func("bindings.select_fold", workload.operation, state)


if __name__ == "__main__":
    main()
