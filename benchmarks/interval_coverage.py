"""Print the coverage / half-width table of every scenario: python benchmarks/interval_coverage.py [N] [--only SET].

SET: `method` (the default method's scenarios), `interference` (this machine's look: disturbed
processes rerun and left out; the canary-adjusted mean under host speed phases), `machines`
(the three-level model), `pairing` (ratios paired by round beside the unpaired interval).
Default: all four, one table each."""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.analysis import coverage  # noqa: E402


SETS = {"method": coverage.scenarios, "interference": coverage.interference_scenarios,
        "machines": coverage.machine_scenarios, "pairing": coverage.pairing_scenarios}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--only")]
    only = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")]
    n = int(args[0]) if args else 1000
    for name in only or list(SETS):
        pairing = name == "pairing"
        print(f"\n{name}:\n\n{coverage.PAIRING_HEADER if pairing else coverage.TABLE_HEADER}")
        for scenario, draw in SETS[name]().items():
            t0 = time.perf_counter()
            c = (coverage.measure_pairing if pairing else coverage.measure)(scenario, draw, n)
            print(c.row(), f"<!-- {time.perf_counter() - t0:.1f} s -->", flush=True)


if __name__ == "__main__":
    main()
