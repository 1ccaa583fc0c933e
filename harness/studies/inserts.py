"""E4, bulk inserts and journal modes (seed 003): strategies against N, the journal_mode x
synchronous grid, two SQLite versions side by side, and the seed's headlines beside ours.

`compute(runs, figures_dir, baseline)` draws the figures and returns the tables, text and paper
blocks; the notebook `notebooks/inserts.py` shows them. Only `inserts.*` cells are read, so runs
of other families in the same run set change nothing here (and this study's runs nothing there).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis.figures.inserts import (
    JOURNALS,
    STRATEGIES,
    SYNCS,
    plot_journal_grid,
    plot_scaling,
)
from harness.analysis import wording
from harness.analysis.markdown import to_markdown
from harness.analysis.runset import RunSet
from harness.analysis.stats.intervals import combine_log_ratios
from harness.analysis.stats.resample import CELL_KEYS
from harness.studies import runspread, verdicts
from harness.studies.findings import spread_of, spread_words
from harness.studies.common import BASELINE, StudyResult, figure_link, iterations_per_process

PREFIX = "inserts."

#: Seed 003's headlines, quoted from its text (the seed's numbers, not ours). Its charts are not in
#: the text, so the gains of a transaction and of a prepared statement have no number to quote.
SEED = {
    "even_up_to_rows": 100_000,  # "Up until about 100,000 insertions all the journal modes and synchronous
                                 #  settings are about even."
    "fastest": ("memory", "off"),  # "Journal mode set to memory and synchronous off offered the best performance"
    "versions": ("3.6.23.1", "3.7.3"),  # "The specific versions compared here are 3.6.23.1 and 3.7.3."
    "version_speedup_s": 3.0,  # "There is a speedup of about 3 seconds." (prepared statements benchmark)
    "modes_compared": "default (delete), memory and wal, each with synchronous full and off",
}


def _param(params: str, key: str) -> str:
    for part in str(params).split(","):
        k, _, v = part.partition("=")
        if k == key:
            return v
    return ""


def cells(summary: pd.DataFrame) -> pd.DataFrame:
    """The inserts.* cells with their parameters as columns and inserts/s with its interval
    (N divided by the time bounds)."""
    df = summary[summary["benchmark"].str.startswith(PREFIX)].copy()
    if df.empty:
        return df
    df["strategy"] = df["benchmark"].str.slice(len(PREFIX))
    df["rows"] = [int(float(_param(p, "rows") or 0)) for p in df["params"]]
    for key in ("journal_mode", "synchronous", "datadir"):
        df[key] = [_param(p, key) for p in df["params"]]
    df["runtime_family"] = df.get("runtime_family", df["runtime"]).fillna(df["runtime"])
    ok = df["status"] == "ok"
    for col in ("mean_s", "ci_low_s", "ci_high_s"):
        df[col] = df[col].where(ok)
    df["inserts_per_s"] = df["rows"] / df["mean_s"]
    df["inserts_per_s_low"] = df["rows"] / df["ci_high_s"]
    df["inserts_per_s_high"] = df["rows"] / df["ci_low_s"]
    return df.reset_index(drop=True)


def default_settings(df: pd.DataFrame) -> pd.DataFrame:
    """Cells with SQLite's own journal_mode and synchronous (the strategies' N sweep); a cell whose
    parameters do not name them has SQLite's own too."""
    return df[df["journal_mode"].isin(("default", "")) & df["synchronous"].isin(("default", ""))]


def grid_cells(df: pd.DataFrame) -> pd.DataFrame:
    """inserts.prepared cells with both journal_mode and synchronous set (the grid)."""
    return df[(df["strategy"] == "prepared") & (df["journal_mode"] != "default") & (df["synchronous"] != "default")
              & df["mean_s"].notna()]


def ratio_text(r: tuple[float, float, float], digits: int = 3) -> str:
    m, lo, hi = r
    if not np.isfinite(m):
        return ""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{m:.{digits}g}x (no CI)"
    return f"{m:.{digits}g}x [{lo:.{digits}g}, {hi:.{digits}g}]"


def scaling_table(df: pd.DataFrame) -> pd.DataFrame:
    """Inserts/s [99% CI] per engine, runtime and strategy (rows) and N (columns), SQLite's own
    journal settings; cells not measured are empty."""
    d = default_settings(df)
    d = d[d["mean_s"].notna()]
    if d.empty:
        return pd.DataFrame()
    d = d.assign(text=[wording.interval(m, lo, hi, num=wording.si_rate, no_ci=" (no CI)") for m, lo, hi in
                       zip(d["inserts_per_s"], d["inserts_per_s_low"], d["inserts_per_s_high"])])
    d = d.assign(order=d["strategy"].map({s: i for i, s in enumerate(STRATEGIES)}))
    t = d.pivot_table(index=["engine", "runtime_family", "order", "strategy"], columns="rows", values="text",
                      aggfunc="first").fillna("")
    t = t.reset_index().drop(columns=["order"]).rename(columns={"runtime_family": "runtime"})
    t.columns = [f"N={c:,}" if isinstance(c, (int, np.integer)) else c for c in t.columns]
    return t


def _key(row: pd.Series) -> tuple:
    return tuple(row[c] for c in CELL_KEYS)


#: the pairs of the gains table: (label, slower strategy, faster strategy)
GAIN_PAIRS = (("transaction gain", "autocommit", "transaction"), ("prepared gain", "transaction", "prepared"))
PREPARED_GAIN = GAIN_PAIRS[1][0]


def commit_bound_rows(df: pd.DataFrame, d: pd.DataFrame) -> pd.Series:
    """Which rows of `d` (cells of `df`) are at an N where the engine's one synced commit (`commit_time`) is more
    than `verdicts.COMMIT_SHARE` of its transaction's time: there two ways to insert in one transaction compare
    mostly the commit they share."""
    out = pd.Series(False, index=d.index)
    for engine in d["engine"].unique():
        commit = commit_time(df, engine)
        if commit is None:
            continue
        for n in d.loc[d["engine"] == engine, "rows"].unique():
            share = commit.share(transaction_time(df, engine, int(n)))
            if math.isfinite(share) and share > verdicts.COMMIT_SHARE:
                out |= (d["engine"] == engine) & (d["rows"] == n)
    return out


def common_n(d: pd.DataFrame, pair: tuple[str, str]) -> int | None:
    """The largest N at which every engine and runtime of `d` that has either strategy of `pair`
    measured both, so that every row of one gains column compares at one N; None if none."""
    d = d[d["strategy"].isin(pair)]
    common: set[int] | None = None
    for _, g in d.groupby(["engine", "runtime_family"], sort=True):
        ns = set.intersection(*(set(g[g["strategy"] == s]["rows"]) for s in pair))
        common = ns if common is None else common & ns
    return max(common) if common else None


def gains(runs: RunSet, df: pd.DataFrame) -> pd.DataFrame:
    """Per engine and runtime: the gain of a transaction (inserts/s of `transaction` over
    `autocommit`) and of a prepared statement (`prepared` over `transaction`), like for like: every
    column at one N, the largest at which every row measured both of its strategies (`common_n`;
    the profile caps the slow ones lower, each pair where its own strategies stop). Without such an N each pair is compared at
    the largest N both were measured at, and a column `... at N` says which. Ratios of inserts/s with 99% intervals (t on
    the log scale, each cell's variance from its bootstrap); a pair with no N in common gets none."""
    d = default_settings(df)
    d = d[d["mean_s"].notna()]
    # two ways to insert inside one transaction share its commit: where the commit is most of the time, the
    # prepared gain measures the commit, not the inserting, so such N are not compared (`commit_bound_rows`)
    kept = {label: d[~commit_bound_rows(df, d)] if label == PREPARED_GAIN else d for label, _, _ in GAIN_PAIRS}
    one = {label: common_n(kept[label], (slow, fast)) for label, slow, fast in GAIN_PAIRS}
    rows = []
    for (engine, family), _ in d.groupby(["engine", "runtime_family"], sort=True):
        out = {"engine": engine, "runtime": family}
        for label, slow, fast in GAIN_PAIRS:
            g = kept[label][(kept[label]["engine"] == engine) & (kept[label]["runtime_family"] == family)]
            a, b = g[g["strategy"] == slow], g[g["strategy"] == fast]
            common = ([one[label]] if one[label] is not None and not (a.empty or b.empty)
                      else sorted(set(a["rows"]) & set(b["rows"])))
            if not common:
                out[label] = ""
                out[label + " at N"] = "" if a.empty or b.empty else "no N in common"
                continue
            n = common[-1]
            r = pair_ratio(runs, a[a["rows"] == n].iloc[0], b[b["rows"] == n].iloc[0])
            out[label] = ratio_text(r)
            out[label + " at N"] = f"{int(n):,}"
            out["_" + label] = r
        rows.append(out)
    t = pd.DataFrame(rows)
    if len(t):  # a column at one N: the caption names it, no column repeats it
        t = t.rename(columns={label + " at N": "_" + label + " at N" for label in one if one[label] is not None})
    return t


def pair_ratio(runs: RunSet, slow: pd.Series, fast: pd.Series) -> tuple[float, float, float]:
    """Two cells at one N: time of `slow` / time of `fast` (= inserts/s of fast over slow), with its
    interval (t on the log scale from each cell's bootstrap); NaNs when either has none."""
    ka, kb = _key(slow), _key(fast)
    boots = runs.boots([ka, kb])
    if ka not in boots or kb not in boots:
        return (math.nan, math.nan, math.nan)
    return combine_log_ratios([(boots[ka], boots[kb])], runs.confidence)


def gain_at_every_n(runs: RunSet, df: pd.DataFrame, engine: str, slow: str, fast: str) -> list[tuple[int, tuple]]:
    """(N, time of `slow` / time of `fast`) at every N at which `engine` ran both strategies with
    SQLite's own journal settings, N ascending; pairs without an interval's estimate left out (none
    when the runs hold no inserts.* cell: `cells` is then empty, without its parameter columns)."""
    if df.empty:
        return []
    d = default_settings(df)
    d = d[d["mean_s"].notna() & (d["engine"] == engine)]
    a, b = d[d["strategy"] == slow], d[d["strategy"] == fast]
    out = []
    for n in sorted(set(a["rows"]) & set(b["rows"])):
        r = pair_ratio(runs, a[a["rows"] == n].iloc[0], b[b["rows"] == n].iloc[0])
        if math.isfinite(r[0]):
            out.append((int(n), r))
    return out


@dataclass(frozen=True)
class Commit:
    """One synced commit's time, from an engine's autocommit and transaction cells at one N: autocommit
    times N inserts each with its commit, a transaction the same N inserts and one commit, so the commit is
    (autocommit - transaction) / (N - 1)."""

    seconds: float
    at_rows: int  # the N it was measured at (the largest N where both strategies ran)

    def share(self, transaction_s: float) -> float:
        """The commit's part of a transaction that took `transaction_s` seconds."""
        return self.seconds / transaction_s if transaction_s > 0 else math.nan


def commit_time(df: pd.DataFrame, engine: str) -> Commit | None:
    """`engine`'s synced commit (`Commit`) with SQLite's own journal settings, from the largest N at which it
    ran both autocommit and transaction (A/A twins left out); None where it ran no such pair or the
    difference is not positive."""
    d = _measured(df, engine)
    if d.empty:
        return None
    auto, txn = d[d["strategy"] == "autocommit"], d[d["strategy"] == "transaction"]
    both = sorted(n for n in set(auto["rows"]) & set(txn["rows"]) if n > 1)
    if not both:
        return None
    n = int(both[-1])
    c = (float(auto[auto["rows"] == n]["mean_s"].iloc[0]) - float(txn[txn["rows"] == n]["mean_s"].iloc[0])) / (n - 1)
    return Commit(c, n) if c > 0 else None


def transaction_time(df: pd.DataFrame, engine: str, rows: int) -> float:
    """The mean seconds of `engine`'s transaction strategy at N = `rows` (SQLite's own settings), or nan."""
    d = _measured(df, engine)
    if d.empty:
        return math.nan
    d = d[(d["strategy"] == "transaction") & (d["rows"] == rows)]
    return float(d["mean_s"].iloc[0]) if len(d) else math.nan


def _measured(df: pd.DataFrame, engine: str) -> pd.DataFrame:
    """`engine`'s cells with SQLite's own settings and a mean, A/A twins left out (empty for no cells)."""
    if df.empty:
        return df
    d = default_settings(df)
    return d[d["mean_s"].notna() & (d["engine"] == engine) & ~d["params"].astype(str).str.contains("aa=twin")]


def at_n(row: pd.Series, label: str) -> str:
    """The N a row's gain was compared at (a column, or the table's one N kept out of view)."""
    for key in (label + " at N", "_" + label + " at N"):
        if isinstance(row.get(key), str) and row.get(key):
            return row[key]
    return ""


def one_n(gain: pd.DataFrame, label: str) -> str:
    """The one N of a gains column when every row compares at it (see `gains`), else ""."""
    col = "_" + label + " at N"
    return str(gain[col].iloc[0]) if col in gain and len(gain) else ""


def gains_at_text(gain: pd.DataFrame) -> str:
    """Where the gains table's columns compare, for its caption."""
    fixed = [(label, n) for label, _, _ in GAIN_PAIRS if (n := one_n(gain, label))]
    ns = {n for _, n in fixed}
    if len(ns) == 1 and len(fixed) > 1:
        text = f"both gains at N = {ns.pop()}"
    else:
        text = " and ".join(f"the {label} at N = {n}" for label, n in fixed)
    if fixed:
        text += (" (the largest N at which every engine here ran both strategies of a gain; Appendix B.5 has "
                 "each strategy at every N it ran)")
    loose = [label for label, _, _ in GAIN_PAIRS if not one_n(gain, label)]
    if loose:
        text += ("; " if fixed else "") + " and ".join(
            f"the {label} at each engine's largest N where its commit is at most {verdicts.COMMIT_SHARE:.0%} of a "
            "transaction's time (column `at N`)" if label == PREPARED_GAIN else
            f"the {label} at the largest N both were measured at (column `at N`)" for label in loose)
    return text


def iterations_note(runs: RunSet) -> str:
    """How many iterations an E4 process timed and what that means for its mean (the profile keeps
    them few so that slow strategies fit the slot)."""
    from harness.analysis.stats.warmup import MIN_SERIES

    raw = runs.raw
    if raw.empty or "iteration" not in raw:
        return ""
    per = iterations_per_process(raw[raw["benchmark"].astype(str).str.startswith(PREFIX)])
    if per.empty:
        return ""
    typical, processes = int(per.median()), per.groupby(level=[0, 1, 2, 3, 4]).size()
    text = f" Each E4 process timed {typical} iterations (median over the {len(per):,} processes with timings)"
    if typical < MIN_SERIES:
        text += (f"; a series under {MIN_SERIES} iterations is taken whole, with no warm-up analysis, so the first "
                 "iteration of every process is in its mean")
    return text + (f", and a cell's interval rests on the spread of its {int(processes.median())} process means "
                   "(the median cell's).")


def headline_gain(gain: pd.DataFrame) -> pd.Series | None:
    """The gains row the E4 headline speaks of: sqlite3's (else the first engine's) with a finite
    transaction gain; None when there is none."""
    if gain.empty or "_transaction gain" not in gain:
        return None
    rows = gain[gain["_transaction gain"].map(lambda r: isinstance(r, tuple) and np.isfinite(r[0]))]
    if rows.empty:
        return None
    pick = rows[rows["engine"] == "sqlite/sqlite3"]
    return (pick if len(pick) else rows).iloc[0]


def headline_basis(gain: pd.DataFrame, df: pd.DataFrame, slow: str = "autocommit", fast: str = "transaction",
                   rule: bool = True) -> str:
    """What the headline gain rests on, for a sentence: the rule that chose its N (the largest N at
    which every engine ran both strategies, `common_n`), every N at which its engine ran both, and
    the processes and iterations of its two cells there (a few iterations each: no warm-up analysis,
    the first iteration in the mean). "" without a headline or cells."""
    from harness.analysis.stats.warmup import MIN_SERIES

    r = headline_gain(gain)
    if r is None or df.empty:
        return ""
    d = default_settings(df)
    d = d[d["mean_s"].notna() & (d["engine"] == r["engine"]) & (d["runtime_family"] == r["runtime"])]
    n_text = at_n(r, "transaction gain")
    n = int(n_text.replace(",", "")) if n_text else None
    both = sorted(set(d[d["strategy"] == slow]["rows"]) & set(d[d["strategy"] == fast]["rows"]))
    cells = [d[(d["strategy"] == s) & (d["rows"] == n)] for s in (slow, fast)]
    if n is None or any(c.empty for c in cells):
        return ""
    each = [(int(c.iloc[0]["processes"]), int(c.iloc[0]["iterations"])) for c in cells]
    text = ((f"N = {n:,}: the largest N every engine ran both strategies at; it ran both " if rule
             else f"The headline's engine, {r['engine']}, ran both ")
            + ("at that N only" if both == [n] else "at N = " + ", ".join(f"{x:,}" for x in both))
            + "; its two cells there: "
            + (f"{each[0][0]} processes of {each[0][1]} iterations each" if each[0] == each[1]
               else " and ".join(f"{p} processes of {i} iterations" for p, i in each)))
    if max(i for _, i in each) < MIN_SERIES:
        text += ", first iteration (warm-up) included"
    return text + "."


def gain_takeaway(gain: pd.DataFrame) -> str:
    """The scaling figures' point, from the gains: what one transaction buys sqlite3 (or the first engine)."""
    r = headline_gain(gain)
    if r is None:
        return ""
    from harness.studies.findings import plain_name

    who = plain_name(f"{r['engine']}@{r['runtime']}")
    return (f": at N = {at_n(r, 'transaction gain')}, one transaction makes {who} insert "
            f"{ratio_text(r['_transaction gain'])} as many rows per second as autocommit")


def abstract(gain: pd.DataFrame, substitute: str = "", basis: str = "", spread: str = "") -> str:
    """The abstract's E4 sentence: what one transaction buys sqlite3 (as `gain_takeaway`), in words;
    with `substitute` (`sync_substitute`: the files lived on a virtual disk or in memory), what the gain
    is made of and why it is the host's as much as SQLite's; `spread`: what its interval holds beyond one
    run (`spread_of`)."""
    from harness.studies.findings import plain_name

    r = headline_gain(gain)
    if r is None:
        return "_No E4 transaction gain in these runs._"
    who = plain_name(f"{r['engine']}@{r['runtime']}")
    text = (f"Inserting {at_n(r, 'transaction gain')} rows in one transaction, {who} inserts "
            f"{ratio_text(r['_transaction gain'])} as many rows per second as in autocommit (99% CI"
            + (f" {spread}" if spread else "")
            + (f"; {basis[:-1]}" if basis else "") + ").")
    if substitute:
        text += (" It is this machine's price of a commit per row, whose sync went to a virtual disk, perhaps "
                 "not to a device (Section 6), not SQLite's alone, so it decides none of seed 003's claims about "
                 "syncing.")
    return text


def time_takeaway(df: pd.DataFrame) -> str:
    """The time figure's point, unlike the rate figure's (`gain_takeaway`): at the largest N of
    sqlite/sqlite3 (or the first engine), which strategies got there and how long each took."""
    d = default_settings(df)
    d = d[d["mean_s"].notna()]
    if d.empty:
        return ""
    pick = d[d["engine"] == "sqlite/sqlite3"]
    d = pick if len(pick) else d[d["engine"] == sorted(d["engine"])[0]]
    d = d[d["runtime_family"] == sorted(d["runtime_family"])[0]]
    n = int(d["rows"].max())
    at = d[d["rows"] == n].sort_values("mean_s")
    times = ", ".join(f"{r.strategy} {wording.time_interval(r.mean_s, r.ci_low_s, r.ci_high_s)}"
                      for r in at.itertuples())
    k = d["strategy"].nunique()
    from harness.studies.findings import plain_name

    who = plain_name(f"{at.iloc[0]['engine']}@{at.iloc[0]['runtime_family']}")
    reach = (f"all {k} strategies of {who} reach" if len(at) == k else
             f"only {len(at)} of the {k} strategies of {who} {'reaches' if len(at) == 1 else 'reach'}")
    return f": {reach} its largest N, {n:,}, where {times}"


def grid_takeaway(df: pd.DataFrame) -> str:
    """The heat maps' point: the fastest setting at the largest N of each engine, and how sure that is."""
    g = grid_cells(df)
    if g.empty:
        return ""
    parts = []
    for engine, sub in g.groupby("engine", sort=True):
        at = sub[(sub["rows"] == sub["rows"].max()) & sub["inserts_per_s"].notna()]
        if at.empty:
            continue
        from harness.studies.findings import extreme_phrase

        items = [(f"{r['journal_mode']}+{r['synchronous']}", float(r["inserts_per_s"]), float(r["inserts_per_s_low"]),
                  float(r["inserts_per_s_high"])) for _, r in at.iterrows()]
        parts.append(f"{engine} at N = {int(at['rows'].iloc[0]):,}: {extreme_phrase(items, 'fastest', higher_wins=True)}")
    if not parts:
        return ""
    return "; " + "; ".join(parts)


def grid_table(df: pd.DataFrame) -> pd.DataFrame:
    """The journal_mode x synchronous grid: inserts/s [99% CI] per engine, N and journal mode (rows)
    and synchronous (columns)."""
    g = grid_cells(df)
    if g.empty:
        return pd.DataFrame()
    g = g.assign(text=[wording.interval(m, lo, hi, num=wording.si_rate, no_ci=" (no CI)") for m, lo, hi in
                       zip(g["inserts_per_s"], g["inserts_per_s_low"], g["inserts_per_s_high"])],
                 jorder=g["journal_mode"].map({j: i for i, j in enumerate(JOURNALS)}))
    t = g.pivot_table(index=["engine", "rows", "jorder", "journal_mode"], columns="synchronous", values="text",
                      aggfunc="first").fillna("")
    t = t[[s for s in SYNCS if s in t.columns]].reset_index().drop(columns=["jorder"])
    t["rows"] = t["rows"].map(lambda n: f"{int(n):,}")
    return t.rename(columns={"rows": "N", **{s: f"synchronous={s}" for s in SYNCS}})


def grid_findings(runs: RunSet, df: pd.DataFrame) -> pd.DataFrame:
    """Per engine and N of the grid: the fastest setting, memory+off beside it (ratio of times with
    its interval), the spread of the grid (slowest / fastest mean) and the cost of syncing
    (synchronous=full / off under journal_mode=delete)."""
    g = grid_cells(df)
    rows = []
    for (engine, n), s in g.groupby(["engine", "rows"], sort=True):
        s = s.sort_values("mean_s")
        best = s.iloc[0]
        mo = s[(s["journal_mode"] == SEED["fastest"][0]) & (s["synchronous"] == SEED["fastest"][1])]
        row = {"engine": engine, "rows": int(n), "fastest": f"{best['journal_mode']}+{best['synchronous']}",
               "fastest_rate": best["inserts_per_s"], "settings": len(s),
               "spread": float(s["mean_s"].max() / s["mean_s"].min())}
        if len(mo) and mo.index[0] == best.name and len(s) > 1:
            second = s.iloc[1]
            kb, k2 = _key(best), _key(second)
            boots = runs.boots([kb, k2])
            row["runner_up"] = f"{second['journal_mode']}+{second['synchronous']}"
            row["runner_up_vs_fastest"] = combine_log_ratios([(boots[k2], boots[kb])], runs.confidence) \
                if kb in boots and k2 in boots else (math.nan, math.nan, math.nan)
            row["memory_off_rate"] = best["inserts_per_s"]
        elif len(mo):
            kb, km = _key(best), _key(mo.iloc[0])
            boots = runs.boots([kb, km])
            row["memory_off_vs_fastest"] = combine_log_ratios([(boots[km], boots[kb])], runs.confidence) \
                if kb in boots and km in boots else (math.nan, math.nan, math.nan)
            row["memory_off_rate"] = mo.iloc[0]["inserts_per_s"]
        full = s[(s["journal_mode"] == "delete") & (s["synchronous"] == "full")]
        off = s[(s["journal_mode"] == "delete") & (s["synchronous"] == "off")]
        if len(full) and len(off):
            kf, ko = _key(full.iloc[0]), _key(off.iloc[0])
            boots = runs.boots([kf, ko])
            row["sync_cost"] = combine_log_ratios([(boots[kf], boots[ko])], runs.confidence) \
                if kf in boots and ko in boots else (math.nan, math.nan, math.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def driver_versions(runs: RunSet) -> dict[str, dict[str, list[str]]]:
    """engine -> SQLite version -> the runs in which that engine reported it (from the manifests)."""
    out: dict[str, dict[str, list[str]]] = {}
    for m in runs.manifests():
        for name, info in (m.engines or {}).items():
            engine = name.split("@")[0]
            ver = (info.get("versions") or {}).get("sqlite")
            if engine.startswith("sqlite/") and ver and info.get("available", True):
                out.setdefault(engine, {}).setdefault(str(ver), []).append(str(m.run_id))
    return out


def _version_key(ver: str) -> tuple:
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r"[.-]", ver))


def versions_dropped(versions: dict[str, str]) -> str:
    """Why these runs make no claim about SQLite versions: no driver ran two of them, and two drivers
    with one version each would confound the driver with the version."""
    have = ", ".join(f"{e} links SQLite {ver}" for e, ver in sorted(versions.items())) or "no SQLite version recorded"
    return ("_No claim about SQLite versions: in these runs no driver ran two SQLite versions (" + have + "), and "
            "setting one driver's version beside another driver's would confound the driver with the version; "
            "the seed changed only the library under one C program. A like-for-like comparison needs one driver "
            "built against two SQLite versions._")


def version_comparison(runs: RunSet, versions: dict[str, str]) -> tuple[pd.DataFrame, str]:
    """Two SQLite versions under one driver (like with like: the same engine, in runs that recorded
    different SQLite versions for it) on every inserts cell both have, in benchstat's terms (`compare`:
    medians of process means, Mann-Whitney U) at the paper's confidence, alpha = 1 - confidence. With
    no driver that ran two versions, no comparison and the reason (`versions_dropped`): two drivers
    with one version each are never compared, since that mixes driver and version."""
    from harness.analysis.stats.compare import compare_runs
    from harness.analysis.tables import compare_text

    per = driver_versions(runs)
    pair = next(((e, sorted(vs, key=_version_key)) for e, vs in sorted(per.items()) if len(vs) >= 2), None)
    if pair is None:
        return pd.DataFrame(), versions_dropped(versions)
    engine, (old, new) = pair[0], (pair[1][0], pair[1][-1])
    raw = runs.raw_of(PREFIX + "*")
    raw = raw[raw["engine"] == engine]
    a = raw[raw["run_id"].astype(str).isin(per[engine][old])].assign(engine="", runtime="")
    b = raw[raw["run_id"].astype(str).isin(per[engine][new])].assign(engine="", runtime="")
    conf = runs.confidence
    a, b = a.assign(params=a["params"].map(short_params)), b.assign(params=b["params"].map(short_params))
    cmp = compare_runs(a, b, alpha=1 - conf, confidence=conf) if len(a) and len(b) else pd.DataFrame()
    if cmp.empty:
        return cmp, f"_{engine} ran SQLite {old} and {new}, but on no common inserts cell._"
    cmp.attrs.update(engine=engine, old=old, new=new, confidence=conf)
    text = compare_text(cmp, f"{engine} (SQLite {old})", f"{engine} (SQLite {new})", alpha=1 - conf,
                        confidence=conf)
    lines = text.rstrip().splitlines()
    warnings = [ln for ln in lines if ln.startswith("warning:")]
    kept = [ln for ln in lines if not ln.startswith("warning:")]
    if warnings:
        lo, hi = int(cmp["base_n"].min()), int(cmp["base_n"].max())
        n = f"{lo}" if lo == hi else f"{lo} to {hi}"
        kept.append(f"({len(warnings)} benchstat warnings, one per cell and kind: with {n} processes per side a "
                    f"difference cannot reach alpha {1 - conf:.2g} and the medians get no bounded {conf:.0%} CI; "
                    "more processes would)")
    return cmp, "\n".join(kept) + "\n"


def short_params(params: str) -> str:
    """`N=1000` (plus `wal+off` when journal_mode/synchronous are set, `datadir` when given) for labels."""
    label = f"N={int(float(_param(params, 'rows') or 0))}"
    j, y, d = _param(params, "journal_mode"), _param(params, "synchronous"), _param(params, "datadir")
    if j != "default" or y != "default":
        label += f" {j}+{y}"
    return label + (f" in {d}" if d else "")


def sqlite_versions(runs: RunSet) -> dict[str, str]:
    """The SQLite library version each SQLite engine reported in the runs' manifests."""
    out: dict[str, str] = {}
    for m in runs.manifests():
        for name, info in (m.engines or {}).items():
            engine = name.split("@")[0]
            v = (info.get("versions") or {}).get("sqlite")
            if engine.startswith("sqlite/") and v:
                out.setdefault(engine, v)
    return out


#: the kernel's names of virtual block devices: virtio-blk (vda, vdb, ...) and Xen (xvda, ...)
VIRTUAL_DEVICE = re.compile(r"^/dev/x?vd[a-z]+\d*$")


def grid_storage(runs: RunSet) -> list[dict]:
    """The distinct storage records (`storage`: device, fstype, kind, mount) of the grid's processes
    (inserts.prepared with journal_mode and synchronous set), where the syncs the grid times went."""
    p = runs.processes
    if "storage" not in p or p.empty:
        return []
    sets = p["params"].astype(str).map(lambda s: _param(s, "synchronous") not in ("", "default"))
    p = p[(p["benchmark"].astype(str) == PREFIX + "prepared") & sets & p["storage"].map(lambda v: isinstance(v, dict))]
    seen = {tuple(sorted((k, str(v)) for k, v in s.items() if k != "path")) for s in p["storage"]}
    return [dict(t) for t in sorted(seen)]


def sync_substitute(storage: list[dict]) -> str:
    """Why the cost of syncing measured here is not the seed's, or "" when it may be: the database
    files lived in memory (an fsync there writes nothing) or on a virtual disk (an fsync there costs
    whatever the host does with it, not the flush of the seed's 2010 disk, which the seed does not describe).
    With no storage record nothing is known, and "" lets the interval decide."""
    memory = sorted({s.get("mount", "?") for s in storage if s.get("kind") == "memory"})
    virtual = sorted({s.get("device", "?") for s in storage if VIRTUAL_DEVICE.match(str(s.get("device", "")))})
    if memory:
        return (f"the database files lived in memory ({', '.join(memory)}), where an fsync writes nothing; the seed "
                "synced to its machine's disk")
    if virtual:
        return (f"the database files lived on {', '.join(virtual)}, a virtual disk of this virtual machine: an fsync "
                "there costs whatever the host does with it (its cache, its own disk), not the flush of the "
                "seed's 2010 machine's disk, which the seed does not describe, so the measured ratio is shown but "
                "decides nothing")
    return ""


def storage_text(runs: RunSet) -> str:
    """Where the database files were (the file system each process record names)."""
    p = runs.processes
    if "storage" not in p:
        return "_The process records name no storage._"
    p = p[p["benchmark"].astype(str).str.startswith(PREFIX) & p["storage"].map(lambda v: isinstance(v, dict))]
    if p.empty:
        return "_The process records name no storage._"
    seen = sorted({(s.get("fstype"), s.get("kind"), s.get("device"), s.get("mount")) for s in p["storage"]})
    parts = [f"{fstype} on {device} mounted at {mount} ({kind})" for fstype, kind, device, mount in seen]
    return (f"The embedded engines' database files lived on {'; '.join(parts)}, as each process record says "
            "(`storage`, read from /proc/mounts; `--param datadir=DIR` puts them elsewhere).")


def records_text(runs: RunSet) -> str:
    """What E4's process records count (`records_breakdown`), as a sentence for the appendix's table; "" when
    the runs hold no E4 process record."""
    p = runs.processes
    if p.empty or "benchmark" not in p or "storage" not in p:
        return ""
    # the records that name their storage: those of the processes the run started (as Section 2.3 counts them)
    p = p[p["benchmark"].astype(str).str.startswith(PREFIX) & p["storage"].map(lambda v: isinstance(v, dict))]
    if p.empty:
        return ""
    raw = runs.raw_of(PREFIX + "*")
    timed = set(iterations_per_process(raw).index) if len(raw) and "iteration" in raw else set()
    text = records_breakdown(p, timed)
    return text[:1].upper() + text[1:] + "."


def records_breakdown(p: pd.DataFrame, timed: set[tuple]) -> str:
    """What E4's process records count, so that the count of records (every process the run started,
    as Section 2.3's disturbed share counts them) and the count of processes with timings (the median
    iterations above) do not read as a contradiction: `p`, the records; `timed`, the PROCESS_KEYS of
    the processes whose timings the estimates read."""
    from harness.analysis.runset import is_twin
    from harness.studies.common import PROCESS_KEYS

    keys = p.reindex(columns=PROCESS_KEYS).astype(str).apply(tuple, axis=1) if len(p) else pd.Series(dtype=object)
    timed_s = {tuple(str(x) for x in k) for k in timed}
    has = keys.isin(timed_s)
    twin = p["params"].astype(str).map(is_twin) if "params" in p else pd.Series(False, index=p.index)
    other_twin = int((twin & ~has).sum())
    nothing = int((~twin & ~has).sum())
    hit = p.get("interference", pd.Series(None, index=p.index)).map(
        lambda d: isinstance(d, dict) and bool(d.get("contaminated")))
    disturbed = int((has & hit).sum())
    twin_disturbed = int((twin & ~has & hit).sum())
    rerun = int((has & p.get("rerun_of", pd.Series(None, index=p.index)).map(
        lambda r: r is not None and r == r and str(r) not in ("", "None"))).sum())  # r == r: not NaN
    inside = [f"{disturbed:,} of them disturbed, left out of every estimate" if disturbed else "",
              f"{rerun:,} rerun{'' if rerun == 1 else 's'} in their place" if rerun else ""]
    inside = [x for x in inside if x]
    text = (f"{len(p):,} process records, every E4 process the run started: {int(has.sum()):,} with timings, over "
            "which the gains table's iteration count is a median" + (f" ({', and '.join(inside)})" if inside else ""))
    twins = (f"{other_twin:,} A/A twin{'' if other_twin == 1 else 's'} (timed, read by the A/A check only"
             + (f"; {twin_disturbed:,} of them disturbed" if twin_disturbed else "") + ")")
    rest = [twins if other_twin else "", f"{nothing:,} not applicable, with nothing timed" if nothing else ""]
    rest = [x for x in rest if x]
    return text + ("; besides, " + " and ".join(rest) if rest else "")


def coverage_text(df: pd.DataFrame) -> str:
    """Which N each strategy was measured at, per engine, from the cells themselves (caps said)."""
    d = default_settings(df)
    d = d[d["mean_s"].notna()]
    if d.empty:
        return "_No inserts cell measured._"
    parts = []
    for strategy in STRATEGIES:
        s = d[d["strategy"] == strategy]
        if s.empty:
            continue
        by = s.groupby("engine")["rows"].max()
        caps = ", ".join(f"{e} {int(n):,}" for e, n in by.items())
        parts.append(f"- `{strategy}` up to N = {caps}")
    return "Largest N measured per strategy and engine:\n\n" + "\n".join(parts)


def excluded_text(df: pd.DataFrame) -> str:
    """The cells kept out of the tables and why, one entry per benchmark, engine and reason (the
    parameter sets of a sweep share them)."""
    bad = df[(df["status"] != "ok") & (df["status"] != "skipped")]
    skipped = df[df["status"] == "skipped"]
    parts = []
    for (bench, engine, status, reason), g in bad.groupby(["benchmark", "engine", "status", "reason"], sort=True):
        reason = str(reason).replace("not applicable: ", "")[:160]
        parts.append(f"- {bench} on {engine} ({status}, {len(g)} cells: {reason})")
    text = "No cell was excluded." if not parts else "Excluded from the tables:\n\n" + "\n".join(parts) + "\n\n"
    if len(skipped):
        text += f" {len(skipped)} cells were skipped ({'; '.join(sorted(set(skipped['reason'].astype(str))))[:300]})."
    return text


def seed_table(gain: pd.DataFrame, findings: pd.DataFrame, cmp: pd.DataFrame, versions: dict[str, str],
               substitute: str = "") -> pd.DataFrame:
    """Seed 003's headlines (quoted constants) beside ours ([low, high]) and why they differ
    (`substitute`: why our syncs are not the seed's, from `sync_substitute`)."""
    rows = []
    # 1. memory + off fastest above ~100,000 rows
    big = findings[findings["rows"] > SEED["even_up_to_rows"]] if len(findings) else findings
    if len(big) == 0 and len(findings):
        big = findings[findings["rows"] == findings["rows"].max()]
    for r in big.itertuples() if len(big) else []:
        mo = getattr(r, "memory_off_vs_fastest", (math.nan,) * 3)
        if not isinstance(mo, tuple):
            mo = (math.nan,) * 3
        within = np.isfinite(mo[1]) and mo[1] <= 1.0
        sync = getattr(r, "sync_cost", (math.nan,) * 3)
        if not isinstance(sync, tuple):
            sync = (math.nan,) * 3
        runner = getattr(r, "runner_up_vs_fastest", None)
        if isinstance(runner, tuple):
            ours = (f"N = {r.rows:,}: memory+off has the fastest mean ({wording.si_rate(r.fastest_rate)}/s); the runner-up "
                    f"{r.runner_up} takes {ratio_text(runner)} its time")
            within = bool(np.isfinite(runner[1]) and runner[1] <= 1.0)
        else:
            ours = (f"N = {r.rows:,}: fastest {r.fastest} ({wording.si_rate(r.fastest_rate)}/s); memory+off takes "
                    f"{ratio_text(mo)} its time")
        if np.isfinite(sync[1]) and sync[1] <= 1.0 <= sync[2]:
            sync_text = (f"the cost of syncing is inconclusive here (delete+full / delete+off time = "
                         f"{ratio_text(sync)}: {verdicts.power_statement(sync[1], sync[2])})")
        else:
            sync_text = f"syncing costs {ratio_text(sync)} here (delete+full / delete+off time)"
        if substitute:  # the measured ratio is shown, and no verdict drawn from it
            sync_text = (f"syncing measured {ratio_text(sync)} here (delete+full / delete+off time), untestable here "
                         f"against the seed's: {substitute}")
        if isinstance(runner, tuple) and not within:
            why = "agrees: memory+off is fastest and the runner-up's interval lies above it"
        elif within:
            why = (f"not significant here: the intervals overlap (the {r.settings} settings' means lie within "
                   f"{r.spread:.2g}x of each other); {sync_text}")
        else:
            why = (f"disagrees: {sync_text}; the seed ran SQLite {SEED['versions'][1]} on its 2010 machine, we run "
                   f"{versions.get(r.engine, '?')} on the file system the storage paragraph names")
        if substitute and substitute not in why:
            why += f"; untestable here against the seed's: {substitute}"
        # the seed's "best performance for this benchmark" names no size: read at our largest N, past the ~100,000
        # rows up to which it saw every setting about even
        rows.append({"headline": f"memory+off best for the benchmark, read at N = {r.rows:,} ({r.engine})",
                     "seed 003 (its numbers)": (f"memory+off best; settings about even up to ~"
                                                f"{SEED['even_up_to_rows']:,} rows (SQLite {SEED['versions'][1]}, "
                                                f"{SEED['modes_compared']})"),
                     "ours [99% CI]": ours, "why they differ": why})
    # 2, 3. the gains of a transaction and of a prepared statement (their reasons as notes)
    notes: dict[str, int] = {}
    for label, what in (("transaction gain", "inserts/s of transaction / autocommit"),
                        ("prepared gain", "inserts/s of prepared / transaction")):
        for _, r in gain.iterrows():
            text = r.get(label) or ""
            if not isinstance(text, str) or not text:
                continue
            why = ("the seed gives no number in its text (its charts only); ours compares every engine at N = "
                   f"{at_n(r, label)}, the largest N at which every engine ran both strategies (slow strategies "
                   "are capped lower)" if one_n(gain, label) else "the seed gives no number in its text (its charts only); "
                   "ours compares each strategy at the largest N both strategies were run at (slow strategies are "
                   "capped lower)" + (f" where one synced commit is at most {verdicts.COMMIT_SHARE:.0%} of a "
                                      "transaction's time" if label == PREPARED_GAIN else ""))
            if label == "transaction gain":
                why += "; each autocommit row is its own transaction, committed (and synced) on its own"
            else:
                why += ("; the prepared statement saves a parse per row in SQLite (Python also the string "
                        "formatting); on the servers `executemany` is each driver's own batching (the MySQL drivers "
                        "rewrite it into multi-row INSERTs, which is why their prepared and multi-row rates are "
                        "alike; psycopg pipelines it), so there the gain includes fewer round trips")
            note = notes.setdefault(why, len(notes) + 1)  # each reason once, under the table
            rows.append({"headline": f"{label} ({r['engine']}, {r['runtime']})",
                         "seed 003 (its numbers)": "faster; no number in its text (its charts are not in the text)",
                         "ours [99% CI]": f"{what} = {text} at N = {at_n(r, label)}",
                         "why they differ": f"note {note} under the table"})
    # 4. the newer SQLite is faster on prepared statements: only under one driver (like with like)
    if not len(cmp):
        rows.append({"headline": "a newer SQLite inserts faster (prepared statements)",
                     "seed 003 (its numbers)": (f"{SEED['versions'][1]} about {SEED['version_speedup_s']:g} s "
                                                f"faster than {SEED['versions'][0]}"),
                     "ours [99% CI]": "no claim",
                     "why they differ": versions_dropped(versions).strip("_")})
    if len(cmp):
        prep = cmp[(cmp["benchmark"] == "inserts.prepared") & ~cmp["params"].str.contains(r"\+", regex=True)]
        if len(prep):
            prep = prep.assign(n=[int(p.split()[0][2:]) for p in prep["params"]]).sort_values("n")
            r = prep.iloc[-1]
            def side(m: float, lo: float, hi: float) -> str:
                ci = f" [{lo:.4g}, {hi:.4g}]" if np.isfinite(lo) and np.isfinite(hi) else " (too few processes for a CI)"
                return f"{m:.4g} s{ci}"

            eng, o, nw = cmp.attrs.get("engine", "?"), cmp.attrs.get("old", "?"), cmp.attrs.get("new", "?")
            conf = cmp.attrs.get("confidence", 0.99)
            ours = (f"N = {r.n:,}: {eng} with SQLite {o} {side(r.base_median_s, r.base_ci_low_s, r.base_ci_high_s)}, "
                    f"with {nw} {side(r.new_median_s, r.new_ci_low_s, r.new_ci_high_s)} (medians of process means, "
                    f"{conf:.0%} distribution-free CI); {nw} {r.base_median_s - r.new_median_s:+.3g} s faster, "
                    f"{r.delta} (Mann-Whitney p = {r.p_value:.3f}, n = {int(r.base_n)}+{int(r.new_n)}"
                    + ("" if verdicts.rank_test_is_evidence(int(r.base_n), int(r.new_n), 1 - conf) else
                       f"; with these n its smallest possible p is "
                       f"{verdicts.rank_test_min_p(int(r.base_n), int(r.new_n)):.2g}, so it is no evidence") + ")")
            rows.append({"headline": "a newer SQLite inserts faster (prepared statements)",
                         "seed 003 (its numbers)": (f"{SEED['versions'][1]} about {SEED['version_speedup_s']:g} s "
                                                    f"faster than {SEED['versions'][0]}"),
                         "ours [99% CI]": ours,
                         "why they differ": (f"one driver ({eng}) with two SQLite versions, {o} and {nw}, on this "
                                             f"machine; the seed's were {SEED['versions'][0]} and "
                                             f"{SEED['versions'][1]} under its own C program")})
    out = pd.DataFrame(rows)
    out.attrs["notes"] = [f"Note {k}: {why}." for why, k in notes.items()]
    return out


def seed_notes(seed: pd.DataFrame) -> str:
    """The E4 seed table's notes (the reasons shared by many rows), each once, for under the table."""
    notes = seed.attrs.get("notes") or []
    return ("\n\n" + "\n\n".join(notes)) if notes else ""


def compute(runs: RunSet, figures_dir: Path | str, baseline: str = BASELINE) -> StudyResult:
    figures_dir = Path(figures_dir)
    method = runs.method
    df = cells(runs.summary)
    if df.empty:
        empty = "_No inserts.* cells in these runs._"
        return StudyResult(text={"empty": empty}, make_blocks=lambda p: {
            k: empty for k in ("e4-scaling", "e4-figures", "e4-gains", "e4-grid", "e4-versions", "e4-seed",
                               "e4-storage", "abstract-e4")})
    sweep = default_settings(df)
    drawn = method + runspread.means_spread(runs)  # what the figures' error bars are, in their titles
    time_fig = plot_scaling(sweep, figures_dir / "e4_time_vs_n.png", "time", drawn)
    rate_fig = plot_scaling(sweep, figures_dir / "e4_inserts_per_s.png", "rate", drawn)
    grid = grid_cells(df)
    grid_fig = plot_journal_grid(grid, figures_dir / "e4_journal_grid.png", drawn)
    scaling = scaling_table(df)
    gain = gains(runs, df)
    gtable = grid_table(df)
    findings = grid_findings(runs, df)
    versions = sqlite_versions(runs)
    cmp, cmp_text = version_comparison(runs, versions)
    substitute = sync_substitute(grid_storage(runs))
    seed = seed_table(gain, findings, cmp, versions, substitute)
    storage = storage_text(runs) + (f" For the seed's claims about syncing this matters: {substitute} (Appendix B.9 "
                                    "lists them as untestable here)." if substitute else "")
    coverage = coverage_text(df)
    records = records_text(runs)  # what the process records count, under the appendix's table
    coverage += f"\n\n{records}" if records else ""
    excluded = excluded_text(df)
    gain_view = gain[[c for c in gain.columns if not c.startswith("_")]] if len(gain) else gain

    spread_runs = runspread.with_spread(runs)  # the abstract's gain carries the run-to-run spread

    def blocks(paper_path: Path) -> dict[str, str]:
        figs = [figure_link(f"E4 {w} against N per strategy (both axes log scale), 99% CI ({drawn}){says}", f,
                            paper_path)
                for w, f, says in (("time", time_fig, time_takeaway(df)), ("inserts/s", rate_fig, gain_takeaway(gain)))
                if f is not None]
        return {
            "abstract-e4": abstract(gains(spread_runs, df), substitute, headline_basis(gain, df),
                                    spread_of(spread_runs)),
            "e4-scaling": (to_markdown(scaling) if len(scaling) else "_No cell with SQLite's own journal settings._")
            + f"\n\nTable: E4, inserts/s per strategy and N, mean [99% CI] ({drawn}; "
              "bounds are N divided by the "
              "time bounds), SQLite's own journal_mode and synchronous.\n\n" + coverage + "\n\n" + excluded,
            "e4-figures": "\n\n".join(figs) or "_No figure: nothing measured._",
            "e4-gains": (to_markdown(gain_view) if len(gain_view) else "_No pair of strategies to compare._")
            + "\n\nTable: E4, the gain of a transaction (inserts/s of `transaction` over `autocommit`) and of a "
              "prepared statement (`prepared` over `transaction`; on a server, `executemany` batched by its driver: "
              "fewer round trips, not SQLite's parse per row), "
            + gains_at_text(gain)
            + f", ratio [99% CI{spread_words(runs)}] (t on the log scale, each cell's variance "
              "from its process bootstrap)."
            + iterations_note(runs) + (" " + basis if (basis := headline_basis(gain, df, rule=False)) else ""),
            "e4-grid": ((to_markdown(gtable) + "\n\nTable: E4, inserts.prepared under each journal_mode x "
                         f"synchronous, inserts/s mean [99% CI] ({drawn}).")
                        if len(gtable) else "_No journal_mode x synchronous grid in these runs._")
            + ("\n\n" + figure_link("E4 journal_mode x synchronous heat maps, each square's mean inserts/s with the "
                                     "half-width of its 99% CI" + grid_takeaway(df), grid_fig, paper_path)
               if grid_fig is not None else ""),
            "e4-versions": "```\n" + cmp_text.rstrip() + "\n```\n\nTwo SQLite versions under one driver side by side "
            f"in benchstat's terms (`harness compare`: medians of process means with distribution-free "
            f"{runs.confidence:.0%} CIs, Mann-Whitney U, `~` when p > {1 - runs.confidence:.2g})."
            if len(cmp) else cmp_text,
            "e4-seed": (to_markdown(seed) if len(seed) else "_Nothing in these runs to set beside the seed._")
            + "\n\nTable: seed 003's headlines, its numbers quoted from its text, beside ours from these runs."
            + (seed_notes(seed) if len(seed) else ""),
            "e4-storage": storage,
        }

    return StudyResult(
        tables={"cells": df, "scaling": scaling, "gains": gain_view, "grid": gtable, "grid_findings": findings,
                "versions": cmp, "seed": seed},
        text={"versions": cmp_text, "storage": storage, "coverage": coverage, "excluded": excluded},
        figures={"time_vs_n": time_fig, "inserts_per_s": rate_fig, "journal_grid": grid_fig},
        make_blocks=blocks)
