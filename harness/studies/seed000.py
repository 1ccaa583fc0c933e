"""Seed 000 ("Benchmarking sqlite-simple", 2013) beside ours: its rows/s per binding and our cells.

The seed's numbers are constants, labelled as the seed's: they were measured on its machine (a
3.2 GHz Core i7 under VirtualBox with one core, GHC 7.4.2, SQLite of 2013) and are copied from
its chart data, never computed here. Ours come from the runs, with their intervals. Each seed row
names the cell that measures the same thing here, or says why none can.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from harness.analysis.figures.rates import e1_rows
from harness.analysis.runset import runtime_family

#: the seed's N (rows in testdata): only our cells with this N are set beside it
SEED_PARAMS = "n=10000"


@dataclass(frozen=True)
class SeedRow:
    system: str
    rows_per_s: float
    benchmark: str | None  # our benchmark that measures the same operation, None: nothing does
    engine: str | None
    runtime: str | None  # runtime family
    note: str


NOT_PACKAGED = "not measured: sqlite-simple is not packaged in Debian"

#: The seed's text does not say what its C and Python programs do; it links their sources in
#: nurpax/db-bench, which we read there: native/main.c (commit 7bd5bc1) steps through the rows and sums
#: sqlite3_column_int, python/bench.py (commit fea0e25) calls fetchall() and sums the list, and its
#: `print "..."` statement is Python 2's.
SEED_SOURCES = "the sources the seed links, nurpax/db-bench native/main.c at 7bd5bc1 and python/bench.py at fea0e25"

#: the seed's "Database/library comparison (rows/s)" chart data, N = 10,000 rows
SEED_ROWS = (
    SeedRow("native sqlite (C)", 6891798, "bindings.select_fold", "sqlite/native-c", "c",
            "same loop: sqlite3_step, then a column read summed (sqlite3_column_int in the seed's linked "
            "native/main.c at 7bd5bc1, sqlite3_column_int64 here)"),
    SeedRow("direct-sqlite", 3600395, "bindings.select_fold", "sqlite/persistent", "haskell",
            "substitute: direct-sqlite is not packaged in Debian; persistent-sqlite's Database.Sqlite "
            "(step + column, which converts through PersistValue) is the lowest-level binding Debian has"),
    SeedRow("sqlite-simple (fold_)", 2208862, None, None, None, NOT_PACKAGED),
    SeedRow("sqlite-simple (query_)", 1808292, None, None, None, NOT_PACKAGED),
    SeedRow("Python", 2500000, "bindings.select_all", "sqlite/sqlite3", "cpython",
            "same: sqlite3 fetchall then a sum (as in the seed's linked python/bench.py at fea0e25, which is "
            "Python 2 by its print statement; the seed's text says neither; ours CPython 3)"),
    SeedRow("mysql-simple", 944227, None, None, None,
            "not measured: mysql-simple is not packaged in Debian (no Haskell MariaDB/MySQL binding is)"),
    SeedRow("postgresql-simple", 466932, "bindings.select_all", "postgresql/simple", "haskell",
            "same: query_ into [Only Int], then foldl'"),
    SeedRow("HDBC-sqlite3", 105529, "bindings.select_all", "sqlite/hdbc", "haskell",
            "same: quickQuery' then foldl' over fromSql"),
)


def seed_table(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per seed system: the seed's rows/s and cycles/row, ours [low, high], ours / seed."""
    out = []
    benches = ("bindings.select_fold", "bindings.select_all")
    cells = {} if summary.empty else {b: e1_rows(summary, b) for b in benches}
    for s in SEED_ROWS:
        row = {"seed system": s.system, "seed rows/s (its machine)": f"{s.rows_per_s / 1e3:,.0f}K",
               "our cell": "", "our rows/s": "", "ours / seed": "", "what it is here": s.note}
        df = cells.get(s.benchmark) if s.benchmark else None
        if df is not None and not df.empty:
            hit = df[(df["engine"] == s.engine) & (df["runtime"].astype(str).map(runtime_family) == s.runtime)
                     & (df["params"].astype(str) == SEED_PARAMS)]
            if not hit.empty:
                r = hit.iloc[0]
                row["our cell"] = f"{s.engine} on {r['runtime']}, {s.benchmark.split('.', 1)[1]}"
                lo, hi = r["rows_per_s_low"], r["rows_per_s_high"]
                interval = "" if pd.isna(lo) else f" [{lo / 1e3:,.0f}K, {hi / 1e3:,.0f}K]"
                row["our rows/s"] = f"{r['rows_per_s'] / 1e3:,.0f}K{interval}"
                # a point ratio only: one run's interval leaves out how far a second sitting moves a cell's mean
                # (E1's moved a median 20%), and the seed's number is another machine's, so no bound is printed
                row["ours / seed"] = f"{r['rows_per_s'] / s.rows_per_s:.2f}"
                row["_noisy"] = int(r["noisy"]) if "noisy" in r and not pd.isna(r["noisy"]) else 0
                row["_processes"] = int(r["processes"]) if "processes" in r and not pd.isna(r["processes"]) else 0
            elif s.engine:
                row["our cell"] = f"{s.engine} ({s.runtime}) with N = 10,000: not in these runs"
        elif s.engine:
            row["our cell"] = f"{s.engine} ({s.runtime}) with N = 10,000: not in these runs"
        out.append(row)
    return pd.DataFrame(out)


def markdown_table(table: pd.DataFrame) -> pd.DataFrame:
    """The table as shown (without the verdict column the paragraph reads)."""
    return table.drop(columns=[c for c in table.columns if c.startswith("_")])


CAPTION = ("Table: Seed 000 beside ours, `SELECT id FROM testdata` with N = 10,000. Seed columns: the seed's "
           "published rows/s on its machine (3.2 GHz Core i7 in VirtualBox, GHC 7.4.2, 2013), a constant labelled as "
           "the seed's (its cycles per row are these rates at its nominal clock, so they add nothing, and this machine "
           "has no cycle counter to set beside them). Ours: mean rows/s with the 99% interval of the E1 table (rows/s "
           "bounds are N divided by the time bounds), all from the one E1 run; "
           "ours / seed divides our mean rows/s by the seed's single number, with no interval: the seed gives none, "
           "its machine is another, and one run's interval leaves out how far another sitting moves a mean. "
           "Haskell cells are the `-O2` build.")


def seed_paragraph(table: pd.DataFrame) -> str:
    """What the comparison shows, in sentences built from the table only."""
    measured = table[table["ours / seed"] != ""]
    if measured.empty:
        return "_None of seed 000's systems was measured in these runs._"
    parts = []
    for _, r in measured.iterrows():
        parts.append(f"- {r['seed system']} ({r['our cell']}): ours / seed = {r['ours / seed']}.")
    missing = table[table["ours / seed"] == ""]["seed system"].tolist()
    # context only: two machines, and the seed's number has no interval (the paper's rule: absolute numbers
    # across machines decide nothing), so no line says "distinguishable" or "the same"
    text = ("Against the seed's own numbers, rows/s ours over the seed's (context only: another machine, and the "
            "seed's number has no interval):\n\n" + "\n".join(parts) + "\n\n")
    if missing:
        text += "Not measured here: " + ", ".join(missing) + " (see the last column)."
    return text


#: why the two columns differ, whatever the numbers: facts about the two set-ups
WHY = ("Why the columns differ: the seed measured in 2013 on a 3.2 GHz Core i7 under VirtualBox with one core, "
       "with GHC 7.4.2, direct-sqlite 2.3.3, sqlite-simple 0.3.0.0, postgresql-simple 0.2.4.1 and PostgreSQL 9.1.7, "
       "each binding timed by criterion (its notes say so; criterion times in one long-lived process); ours runs on "
       "the machine, compiler and library "
       "versions the protocol paragraph and the manifest record (Debian's GHC and `libghc-*-dev` packages), in "
       "fresh processes with warm-up left out. direct-sqlite and sqlite-simple are not packaged in Debian, so the "
       "seed's fastest Haskell rows have no cell here; persistent-sqlite's `Database.Sqlite` stands in for "
       "direct-sqlite, and its `column` asks SQLite for the column's type and builds a `PersistValue` for every "
       "value where direct-sqlite's `columnInt64` returns the integer. mysql-simple is not packaged either.")
