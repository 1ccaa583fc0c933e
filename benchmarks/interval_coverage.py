"""Print the coverage / half-width table of every scenario (issue 10): python benchmarks/coverage.py [N]."""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.analysis import coverage  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(coverage.TABLE_HEADER)
    for name, draw in coverage.scenarios().items():
        t0 = time.perf_counter()
        c = coverage.measure(name, draw, n)
        print(c.row(), f"<!-- {time.perf_counter() - t0:.1f} s -->", flush=True)


if __name__ == "__main__":
    main()
