"""Our compare against real benchstat on random tie-heavy benchmark pairs (issue 10).

Writes N benchmarks as two `go test -bench` files (values on a coarse grid, so ties abound,
sample sizes 3-30 per side), runs `benchstat -format csv old new` (golang.org/x/perf/cmd/benchstat,
installed with `go install golang.org/x/perf/cmd/benchstat@latest`), and compares its p-values and
`~` decisions with harness.analysis.stats.compare_runs on the same files imported by our gobench
importer. benchstat's CSV prints p to 3 decimals; for full precision, set MWU_EXE to the small Go
program in benchmarks/moremath_p (`cd benchmarks/moremath_p && go build -o /tmp/moremath_p .`),
which prints go-moremath's stats.MannWhitneyUTest p-value (benchstat's test) for pairs of
sample lines on stdin.
Usage: python benchmarks/benchstat_parity.py [N] [path/to/benchstat]
"""
from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.analysis import stats  # noqa: E402
from harness.analysis.importers import read_import  # noqa: E402


def write_files(n: int, seed: int, d: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    old, new = ["goos: linux", "goarch: amd64", "pkg: parity"], ["goos: linux", "goarch: amd64", "pkg: parity"]
    for k in range(n):
        n1, n2 = (int(v) for v in rng.integers(3, 31, 2))
        base = float(rng.choice([0.25, 3.5, 120.0, 4500.0]))
        grid = base * 0.01  # coarse grid: many ties
        shift = float(rng.choice([0.0, 0.0, 0.01, 0.02, 0.05]))
        a = np.round(base * (1 + rng.normal(0, 0.02, n1)) / grid) * grid
        b = np.round(base * (1 + shift + rng.normal(0, 0.02, n2)) / grid) * grid
        for lines, vals in ((old, a), (new, b)):
            lines += [f"BenchmarkP{k:03d}-8   1000   {v:.6g} ns/op" for v in vals]
    po, pn = d / "old.txt", d / "new.txt"
    po.write_text("\n".join(old) + "\n")
    pn.write_text("\n".join(new) + "\n")
    return po, pn


def benchstat_p(exe: str, po: Path, pn: Path) -> dict[str, tuple[float, bool]]:
    """{benchmark: (p, significant)} from benchstat's CSV (p-value column, `~` in vs base)."""
    out = subprocess.run([exe, "-format", "csv", str(po), str(pn)], check=True, capture_output=True, text=True).stdout
    res = {}
    for row in csv.reader(io.StringIO(out)):
        if len(row) >= 6 and row[0] == "geomean":
            res["geomean"] = (float(row[5].rstrip("%")), True)
        if len(row) < 7 or not row[0].startswith("P"):
            continue
        name = row[0].split("-")[0]
        delta, pcol = row[5], row[6]
        p = float(pcol.split("=")[1].split()[0]) if "p=" in pcol else float(pcol) if pcol else float("nan")
        res[name] = (p, delta != "~")
    return res


def moremath_p(exe: str, samples: list[tuple[np.ndarray, np.ndarray]]) -> list[float]:
    text = "".join(" ".join(repr(float(v)) for v in x) + "\n" + " ".join(repr(float(v)) for v in y) + "\n"
                   for x, y in samples)
    out = subprocess.run([exe], input=text, check=True, capture_output=True, text=True).stdout
    return [float(v) for v in out.split()]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    exe = sys.argv[2] if len(sys.argv) > 2 else (shutil.which("benchstat") or os.path.expanduser("~/go/bin/benchstat"))
    with tempfile.TemporaryDirectory() as tmp:
        po, pn = write_files(n, 20261123, Path(tmp))
        theirs = benchstat_p(exe, po, pn)
        base, new = read_import(po, "gobench", engine="go"), read_import(pn, "gobench", engine="go")
    cmp = stats.compare_runs(base, new)
    key = lambda name: name.split("-")[0].removeprefix("Benchmark")  # noqa: E731
    ours = {key(r.benchmark): (r.p_value, bool(r.significant)) for r in cmp.itertuples() if r.benchmark != "geomean"}
    geo = float(cmp[cmp.benchmark == "geomean"].delta_pct.iloc[0])
    print(f"geomean change: ours {geo:+.2f}%, benchstat {theirs.pop('geomean')[0]:+.2f}% "
          f"(a quarter of the benchmarks run at ~0.25 ns/op)")
    common = sorted(set(ours) & set(theirs))
    diffs = [abs(ours[k][0] - theirs[k][0]) for k in common]
    flips = [k for k in common if ours[k][1] != theirs[k][1]]
    ties = 0
    a, b = stats.compare_samples(base), stats.compare_samples(new)
    for k in a:
        xy = np.concatenate([a[k], b[k]])
        ties += len(np.unique(xy)) < len(xy)
    print(f"benchmarks compared: {len(common)} of {n} ({ties} with ties)")
    print(f"max |p ours - p benchstat CSV|: {max(diffs):.2e} (its CSV rounds p to 3 decimals: <= 5e-4 is parity)")
    print(f"decision flips (~ vs delta): {len(flips)} {flips[:5]}")
    exe2 = os.environ.get("MWU_EXE")
    if exe2:
        keys = list(a)
        theirs_full = moremath_p(exe2, [(a[k], b[k]) for k in keys])
        ours_full = [stats.mann_whitney_p(a[k], b[k]) for k in keys]
        d = np.abs(np.array(ours_full) - np.array(theirs_full))
        print(f"max |p ours - p go-moremath| (full precision, {len(keys)} pairs): {d.max():.2e}")


if __name__ == "__main__":
    main()
