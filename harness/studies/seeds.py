"""The seeds' published numbers beside ours: the one place where numbers are typed in.

Each `SeedNumber` is a constant quoted from a seed's text, with the section it comes from, so a
reader can check it; everything in the "ours" column is computed from the runs. The tables say
"seed's number" in their header so the two are never confused. `seed_table(runs, seed)` returns
the Markdown table "quantity | seed's number | ours [low, high] | why they differ".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from harness.analysis import wording
from harness.studies.common import BASELINE
from harness.studies.findings import cells, geomean_ratio, num, pair_ratio

if TYPE_CHECKING:
    from harness.analysis.runset import RunSet


@dataclass(frozen=True)
class SeedNumber:
    """One number as a seed printed it (`shown`), its value, and where in the seed it is."""

    key: str
    quantity: str
    value: float
    shown: str
    source: str


SEED_000 = "seed 000 (J. Hellsten, \"Benchmarking sqlite-simple\", 2013)"
SEED_001 = "seed 001 (C. F. Bolz, D. Kurilova, L. Tratt, \"Making an Embedded DBMS JIT-friendly\", ECOOP 2016)"

SEEDS: dict[str, tuple[str, list[SeedNumber]]] = {
    "000": (SEED_000, [
        SeedNumber("c_rows", "native C over SQLite, rows/s (`SELECT id`, 10,000 rows)", 6891798, "6,891,798",
                   "chart data `native sqlite (C)`, section \"Comparing to other implementations and databases\""),
        SeedNumber("c_cycles", "native C, clock cycles per row", 460, "460 (at 3.2 GHz)",
                   "section \"Analysis of sqlite-simple results\""),
        SeedNumber("py_rows", "Python sqlite3, rows/s", 2500000, "2,500,000",
                   "chart data `Python`; \"a Python reimplementation ... at 2.5M rows/s\""),
        SeedNumber("c_vs_py", "native C's speedup over Python sqlite3 (x)", 6891798 / 2500000,
                   "2.76 (6,891,798 / 2,500,000)", "the two numbers above"),
        SeedNumber("mysql_rows", "MySQL client binding, rows/s", 944227, "944,227 (Haskell mysql-simple)",
                   "chart data `mysql-simple`"),
        SeedNumber("pg_rows", "PostgreSQL client binding, rows/s", 466932, "466,932 (Haskell postgresql-simple)",
                   "chart data `postgresql-simple`"),
    ]),
    "001": (SEED_001, [
        SeedNumber("tpch_geo", "TPC-H, speedup of the JIT side, geometric mean (x)", 1.022, "1.022 ± 0.0151",
                   "Figure 11 (SQLite over SQPyte), Section 5"),
        SeedNumber("micro_geo", "micro-benchmarks, speedup of the JIT side, geometric mean (x)", 3.367,
                   "3.367 ± 0.0648", "Figure 16, Section 7"),
        SeedNumber("micro.select", "micro.select speedup (x)", 4.382, "4.382 ± 0.0515", "Figure 16"),
        SeedNumber("micro.innerjoin", "micro.innerjoin speedup (x)", 1.579, "1.579 ± 0.0102", "Figure 16"),
        SeedNumber("micro.pythonjoin", "micro.pythonjoin speedup (x)", 2.385, "2.385 ± 0.0585", "Figure 16"),
        SeedNumber("micro.pyfunction", "micro.pyfunction speedup (x)", 6.661, "6.661 ± 0.1678", "Figure 16"),
        SeedNumber("micro.pyaggregate", "micro.pyaggregate speedup (x)", 4.730, "4.730 ± 0.2893", "Figure 16"),
        SeedNumber("micro.filltable", "micro.filltable speedup (x)", 2.805, "2.805 ± 0.2336", "Figure 16"),
    ]),
}

#: why our number differs from the seed's, per quantity (prose; no numbers of ours in it)
WHY = {
    "c_rows": "their 3.2 GHz Core i7 in VirtualBox with one core and SQLite of 2013; ours a shared 2-core VM "
              "and SQLite 3.40 (gcc -O2); theirs one measurement without an interval",
    "c_cycles": "cycles = clock / rows per second: their clock is the nominal 3.2 GHz, ours the clock the "
                "hypervisor reports; SQLite's own per-row work changed in ten years",
    "py_rows": "Python 2 of 2013 against CPython 3.11; their loop is not published in the seed, ours folds "
               "over the cursor (E1 `select_fold`)",
    "c_vs_py": "a ratio within one machine, so it travels better than the absolute rates; the Python "
               "interpreter and the sqlite3 module changed",
    "mysql_rows": "a Haskell binding to MySQL 5.5 against Python's mysqlclient to MariaDB 10.11 over a local "
                  "socket (E1 `select_all`)",
    "pg_rows": "a Haskell binding to PostgreSQL 9.1 against psycopg 3 to PostgreSQL 15 (E1 `select_all`)",
    "tpch_geo": "their JIT side is SQPyte (SQLite's interpreter in RPython, inlined into PyPy) on TPC-H data of "
                "1.5 GiB, 8.7 million rows (which we read as about SF 1); "
                "we have no SQPyte, so ours is stock SQLite reached from PyPy instead of CPython at our "
                "scale factor: the same boundary, without inlining across it",
    "micro_geo": "as above: PyPy calling stock SQLite through its sqlite3 module (no inlining across the "
                 "boundary) against CPython; its 1.5 GiB TPC-H data there, ours smaller",
}
for _k in ("micro.select", "micro.innerjoin", "micro.pythonjoin", "micro.pyfunction", "micro.pyaggregate",
           "micro.filltable"):
    WHY[_k] = WHY["micro_geo"]

C = "sqlite/native-c@c"
PY = BASELINE
PYPY = "sqlite/sqlite3@pypy"


def interval(est: float, low: float, high: float, digits: Callable[[float], str] = num) -> str:
    """The seed table's `est [low, high]` (wording.interval): `not measured`, `(no interval)`."""
    return wording.interval(est, low, high, num=digits, missing="not measured", no_ci=" (no interval)")


def rate(x: float) -> str:
    return f"{x:,.0f}"


def _rows(runs: RunSet, benchmark: str, spec: str) -> tuple[float, float, float]:
    """rows/s of one cell with the interval N / (time interval)."""
    s = runs.summary
    found = cells(runs, benchmark, spec)
    if not found:
        return math.nan, math.nan, math.nan
    key = found[sorted(found)[0]]
    r = s[(s["benchmark"] == key[0]) & (s["params"] == key[1]) & (s["engine"] == key[2]) & (s["runtime"] == key[3])]
    if r.empty or not r["rows_per_s"].notna().iloc[0]:
        return math.nan, math.nan, math.nan
    r = r.iloc[0]
    n = r["rows_per_s"] * r["mean_s"]
    return float(r["rows_per_s"]), float(n / r["ci_high_s"]), float(n / r["ci_low_s"])


def _cycles(runs: RunSet, benchmark: str, spec: str) -> tuple[float, float, float]:
    s = runs.summary
    found = cells(runs, benchmark, spec)
    if not found or "cycles_per_row" not in s:
        return math.nan, math.nan, math.nan
    key = found[sorted(found)[0]]
    r = s[(s["benchmark"] == key[0]) & (s["params"] == key[1]) & (s["engine"] == key[2]) & (s["runtime"] == key[3])]
    if r.empty or not r["cycles_per_row"].notna().iloc[0]:
        return math.nan, math.nan, math.nan
    r = r.iloc[0]
    per_s = r["cycles_per_row"] / r["mean_s"]
    return float(r["cycles_per_row"]), float(per_s * r["ci_low_s"]), float(per_s * r["ci_high_s"])


def _speedup(runs: RunSet, benchmark: str, slow: str, fast: str) -> tuple[float, float, float]:
    """time(slow) / time(fast) with its interval (the seeds' speedups are this way round)."""
    r = pair_ratio(runs, benchmark, slow, fast)
    return r if r else (math.nan, math.nan, math.nan)


#: seed 001's contrast as ours is given: the seed's direction (the slower side's time over the JIT side's,
#: a speedup: above 1, the JIT side is faster), so a row's two columns read the same way round; Section 5
#: gives the inverse (time over the baseline's, sqlite3 on CPython), and the TPC-H row says so
JIT_RATIO = "CPython time / PyPy time"


def tpch_subset_clause(runs: RunSet, n: int) -> str:
    """Section 5's TPC-H ratio beside this table's: the inverse direction (PyPy / CPython), and over the
    queries every engine ran (the others named, and why) where this table has every query both runtimes ran."""
    from harness.studies import tpch

    common, clause = tpch.left_out(runs)
    if not common or len(common) == n:
        return ""
    r, lo, hi, m = geomean_ratio(runs, "tpch.", PYPY, PY, common)
    if not m:
        return ""
    return (f", all both runtimes ran; Section 5 gives the inverse, PyPy / CPython, {interval(r, lo, hi)}, over "
            f"the {m} every engine ran" + (f", {clause}" if clause else ""))


def ours(runs: RunSet, key: str) -> str:
    """Our number for the seed quantity `key`, with its interval and the cells it comes from."""
    if key == "c_rows":
        return interval(*_rows(runs, "bindings.select_fold", C), digits=rate) + " (native-c, select_fold)"
    if key == "c_cycles":
        return interval(*_cycles(runs, "bindings.select_fold", C), digits=lambda x: f"{x:.0f}") + \
            " (native-c, select_fold, at the recorded clock)"
    if key == "py_rows":
        return interval(*_rows(runs, "bindings.select_fold", PY), digits=rate) + " (sqlite3@cpython, select_fold)"
    if key == "c_vs_py":
        return interval(*_speedup(runs, "bindings.select_fold", PY, C)) + " (select_fold)"
    if key == "mysql_rows":
        return interval(*_rows(runs, "bindings.select_all", "mariadb/mysqlclient@cpython"), digits=rate) + \
            " (mariadb/mysqlclient, select_all)"
    if key == "pg_rows":
        return interval(*_rows(runs, "bindings.select_all", "postgresql/psycopg@cpython"), digits=rate) + \
            " (postgresql/psycopg, select_all)"
    if key in ("tpch_geo", "micro_geo"):
        prefix = "tpch." if key == "tpch_geo" else "micro."
        r, lo, hi, n = geomean_ratio(runs, prefix, PY, PYPY)
        if not n:
            return "not measured"
        text = interval(r, lo, hi) + f" (sqlite3, {JIT_RATIO}, {n} benchmarks"
        return text + (tpch_subset_clause(runs, n) if key == "tpch_geo" else "") + ")"
    if key.startswith("micro."):
        return interval(*_speedup(runs, key, PY, PYPY)) + f" (sqlite3, {JIT_RATIO})"
    raise KeyError(key)


#: seeds whose numbers we can only set beside a different quantity: the column says so
NOT_LIKE_FOR_LIKE = {"001": "nearest contrast here, a different quantity [{conf} CI]"}


def seed_table(runs: RunSet, seed: str) -> str:
    """Markdown: each of the seed's numbers, ours with its interval, and why they differ."""
    title, numbers = SEEDS[seed]
    conf = f"{runs.confidence:.0%}"
    ours_header = NOT_LIKE_FOR_LIKE.get(seed, f"ours [{conf} CI]").format(conf=conf)
    lines = [f"| quantity | seed's number (where in the seed) | {ours_header} | why they differ |",
             "|---|---|---|---|"]
    previous = None
    for s in numbers:
        mine = ours(runs, s.key)
        mine = "not measured in these runs" if mine.startswith("not measured") else mine
        why = "as above" if WHY[s.key] == previous else WHY[s.key]  # a reason is written once
        previous = WHY[s.key]
        lines.append(f"| {s.quantity} | {s.shown} ({s.source}) | {mine} | {why} |")
    caption = (f"Table: {title}'s published numbers (quoted from its text, `harness/studies/seeds.py`) beside ours "
               f"from the runs: mean with its {conf} confidence interval, {runs.method} method; rates are N "
               "divided by the time interval's bounds; ratios by combining the two cells' log variances (t on "
               "the log scale)" + (" and the run-to-run spread (Section 2.5)" if getattr(type(runs), "spread", "") else "")
               + ". The seed's ± are its own half-widths, as printed."
               + (f" Ours are {JIT_RATIO}, the seed's direction: a speedup of the JIT side, above 1 when PyPy "
                  "is faster; Section 5's ratios are the inverse, time over the baseline's (sqlite3 on CPython)."
                  if seed == "001" else ""))
    return "\n".join(lines) + "\n\n" + caption
