"""Seed 001's H2 numbers beside ours: the geometric-mean ratio of H2 to the baseline, per family.

Seed 001 (the SQPyte paper) ran H2 1.4.191 embedded on HotSpot beside SQLite and SQPyte (PyPy 5.0)
on an otherwise idle i7-4790 (Debian 8.1, turbo and hyper-threading off, databases on a RAM disk),
5 fresh processes x 50 iterations, every iteration counted, 99% intervals written `x ± h`. Its
ratios are H2's time over SQPyte's, which the paper also calls SQLite's (SQPyte is within 2.2% of
SQLite on TPC-H). The constants below are quoted from the seed's tables, not measured here:

- Figure 11 (TPC-H, the "1.5 GiB" data set, 8.7 million rows; Q19 exceeded the one-hour timeout and
  is not in the mean): geometric mean 6.172 ± 0.1484.
- Figure 16 (the six micro-benchmarks with Java equivalents, Java callbacks registered in H2):
  geometric mean 30.283 ± 0.3563.

`comparison(table, prefix, baseline)` turns a family table (`studies.common.family_table`) into the
paper's one-line comparison: the seed's constant, ours with its interval, and over what.
"""
from __future__ import annotations

from typing import Any

ENGINE = "h2/jdbc"

#: (geometric mean, the seed's ± half-width, what it covers), per benchmark family prefix
SEED_GEOMEANS: dict[str, tuple[float, float, str]] = {
    "tpch.": (6.172, 0.1484, "Figure 11: 21 TPC-H queries at the 1.5 GiB scale (Q19 timed out), vs SQPyte"),
    "micro.": (30.283, 0.3563, "Figure 16: the six micro-benchmarks, vs SQPyte"),
}
SEED_SETUP = ("H2 1.4.191 on HotSpot (version not stated), i7-4790 with turbo and hyper-threading off, idle, "
              "5 processes x 50 iterations, all iterations counted")


def ours(table: Any, engine: str = ENGINE) -> dict[str, Any] | None:
    """The geomean row of `engine` in a family table (ratio, interval, number of benchmarks), or None."""
    if table is None or table.empty:
        return None
    rows = table[(table["benchmark"] == "geomean") & (table["engine"] == engine)]
    if rows.empty:
        return None
    r = rows.iloc[0]
    return {"ratio": float(r["ratio"]), "low": float(r["ratio_ci_low"]), "high": float(r["ratio_ci_high"]),
            "k": int(r["n"]), "runtime": str(r["runtime"]), "note": str(r.get("ratio_note") or "")}


def comparison(table: Any, prefix: str, baseline: str, engine: str = ENGINE) -> str:
    """One Markdown paragraph: seed 001's H2 geomean beside ours (computed from `table`)."""
    seed, half, what = SEED_GEOMEANS[prefix]
    line = f"Seed 001 ({what}; {SEED_SETUP}): **{seed:.3f}x ± {half:.4f}**. "
    mine = ours(table, engine)
    if mine is None:
        return line + f"Ours: no valid {prefix}* cells of {engine} with the baseline {baseline} in these runs."
    if mine["low"] == mine["low"] and mine["high"] == mine["high"]:  # not NaN
        interval = f"[{mine['low']:.3f}, {mine['high']:.3f}]"
    else:
        interval = f"(no interval: {mine['note'] or 'too few processes'})"
    return (line + f"Ours ({engine} on {mine['runtime']} against {baseline}, geometric mean over the "
            f"{mine['k']} {prefix}* benchmarks both measured validly): **{mine['ratio']:.3f}x** {interval} "
            f"({mine['ratio'] / seed:.2f} times the seed's).")
