"""Figures and tables for the E1 bindings study, drawn from summaries (never from typed numbers).

Figures are PNGs written without timestamps or version metadata, so redrawing the same data
gives the same bytes and regenerating the paper from the same run changes nothing.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

PNG_METADATA = {"Software": None}


def save(fig, path: Path | str) -> Path:
    """Write a figure deterministically (fixed DPI, no metadata) and close it."""
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, metadata=PNG_METADATA, bbox_inches="tight")
    plt.close(fig)
    return path


def cell_label(row: pd.Series) -> str:
    rt = str(row["runtime"])
    return f"{row['engine']}\n{rt}"


def e1_rows(summary: pd.DataFrame, benchmark: str = "bindings.select_fold") -> pd.DataFrame:
    """E1 cells of one benchmark with rows/s and its CI (rows/s CI = N / mean CI, bounds swapped)."""
    df = summary[(summary["benchmark"] == benchmark) & summary["mean_s"].notna()].copy()
    if df.empty:
        return df
    n = df["rows_per_s"] * df["mean_s"]
    df["rows_per_s_low"] = n / df["ci_high_s"]
    # a time interval reaching zero (too few processes) leaves rows/s unbounded above
    df["rows_per_s_high"] = np.where(df["ci_low_s"] > 0, n / df["ci_low_s"].where(df["ci_low_s"] > 0), np.inf)
    return df.sort_values("rows_per_s", ascending=False)


def plot_rows_per_s(summary: pd.DataFrame, path: Path | str, method: str = "",
                    title: str = "E1: SELECT id FROM testdata consumed by the client") -> Path:
    """Bar chart of rows/s per engine/driver/runtime with CI error bars, one panel per variant."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    benches = [b for b in ("bindings.select_fold", "bindings.select_all") if b in set(summary["benchmark"])]
    bars = max([len(e1_rows(summary, b)) for b in benches] or [1])
    width = max(5.5, 0.8 * bars + 1.5)
    fig, axes = plt.subplots(1, max(1, len(benches)), figsize=(width * max(1, len(benches)), 4.2), squeeze=False)
    for ax, bench in zip(axes[0], benches):
        df = e1_rows(summary, bench)
        if df.empty:
            continue
        y = df["rows_per_s"].to_numpy() / 1e6
        high = df["rows_per_s_high"].to_numpy() / 1e6
        unbounded = ~np.isfinite(high)
        err = np.vstack([y - df["rows_per_s_low"].to_numpy() / 1e6, np.where(unbounded, 0.0, high - y)])
        labels = [cell_label(r) for _, r in df.iterrows()]
        ax.bar(range(len(y)), y, yerr=err, capsize=4, color="#4c72b0")
        top = 1.6 * float(np.max(y))
        for i in range(len(y)):
            if unbounded[i]:
                ax.annotate("CI unbounded above", (i, min(y[i], top)), ha="center", va="bottom", fontsize=7)
            elif high[i] > top:
                ax.annotate(f"CI to {high[i]:.3g}", (i, 0.97 * top), xytext=(4, 0), textcoords="offset points",
                            ha="left", va="top", fontsize=7, rotation=90)
        ax.set_ylim(0, top)
        ax.set_xticks(range(len(y)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("million rows/s (higher is better)")
        ax.set_title(bench.replace("bindings.", "E1 "))
        ax.grid(axis="y", alpha=0.3)
    ci = f"99% CI ({method})" if method else "99% CI"
    fig.suptitle(f"{title}; error bars {ci}", fontsize=9)
    return save(fig, path)


def e1_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The E1 table: per benchmark and engine, mean time with CI and rows/s with CI."""
    parts = [e1_rows(summary, b) for b in sorted(summary["benchmark"].unique()) if b.startswith("bindings.")]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts)
    out = pd.DataFrame({
        "benchmark": df["benchmark"], "engine": df["engine"], "runtime": df["runtime"],
        "mean (ms)": [f"{m * 1e3:.3f} [{lo * 1e3:.3f}, {hi * 1e3:.3f}]"
                      for m, lo, hi in zip(df["mean_s"], df["ci_low_s"], df["ci_high_s"])],
        "rows/s (M)": [f"{r / 1e6:.2f} [{lo / 1e6:.2f}, {hi / 1e6:.2f}]"
                       for r, lo, hi in zip(df["rows_per_s"], df["rows_per_s_low"], df["rows_per_s_high"])],
    })
    if "cycles_per_row" in df:
        out["cycles/row"] = df["cycles_per_row"].map(lambda v: "" if pd.isna(v) else f"{v:.0f}")
    return out.reset_index(drop=True)


def to_markdown(df: pd.DataFrame) -> str:
    """A plain pipe table (no extra dependency)."""
    if df.empty:
        return "_no data_"
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# E2 (micro-benchmarks): crossings table (SQPyte Figure 15) and speedup against crossings
# ---------------------------------------------------------------------------------------------

def sqpyte_figure15() -> pd.DataFrame:
    """The SQPyte paper's published counts at TPC-H SF 1 (cited reference data, seed 001)."""
    from harness.manifest import PROJECT_ROOT

    return pd.read_csv(PROJECT_ROOT / "harness" / "reference" / "sqpyte_figure15.csv")


def crossings_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Counted crossings and values converted per micro-benchmark and engine, beside the paper's."""
    df = summary[summary["benchmark"].str.startswith("micro.") & summary["crossings"].notna()]
    if df.empty:
        return pd.DataFrame()
    counts = (df.groupby(["benchmark", "params", "engine"], sort=True)[["crossings", "values_converted"]]
              .max().reset_index())
    counts["benchmark_short"] = counts["benchmark"].str.replace("micro.", "", regex=False)
    paper = sqpyte_figure15().rename(columns={"crossings": "paper_crossings_sf1",
                                              "values_converted": "paper_values_sf1"})
    out = counts.merge(paper, left_on="benchmark_short", right_on="benchmark", how="left", suffixes=("", "_p"))
    cols = ["benchmark", "params", "engine", "crossings", "values_converted", "paper_crossings_sf1", "paper_values_sf1"]
    out = out[cols].copy()
    for c in cols[3:]:
        out[c] = out[c].astype("Int64").astype(object).where(out[c].notna(), "")
    return out


def plot_ratio_vs_crossings(table: pd.DataFrame, summary: pd.DataFrame, path: Path | str, baseline: str) -> Path:
    """Ratio to the baseline (with CI) against crossings per operation, one series per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from harness.stats import is_baseline

    base = [is_baseline(e, r, baseline) for e, r in zip(table["engine"], table["runtime"])]
    t = table[(table["benchmark"] != "geomean") & ~pd.Series(base, index=table.index) & table["ratio"].notna()]
    counts = summary[["benchmark", "params", "engine", "crossings"]].dropna().drop_duplicates(
        ["benchmark", "params", "engine"])
    t = t.merge(counts, on=["benchmark", "params", "engine"], how="inner")
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for (engine, runtime), g in t.groupby(["engine", "runtime"], sort=True):
        g = g.sort_values("crossings")
        err = np.vstack([g["ratio"] - g["ratio_ci_low"], g["ratio_ci_high"] - g["ratio"]])
        ax.errorbar(g["crossings"], g["ratio"], yerr=err, fmt="o-", capsize=3, label=f"{engine} ({runtime})")
    # name each benchmark once, along the bottom, at its crossing count
    import matplotlib.transforms as mtransforms

    below = mtransforms.blended_transform_factory(ax.transData, ax.transAxes)
    # benchmarks whose counts differ by a few crossings share one label
    spot = t["crossings"].astype(float).map(lambda c: float(f"{c:.2g}"))
    names = t.groupby(spot)["benchmark"].agg(lambda b: " / ".join(sorted({x.split(".", 1)[-1] for x in b})))
    for x, label in names.items():
        ax.text(x, 0.02, label, transform=below, fontsize=7, ha="center", va="bottom", rotation=90,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.7, "pad": 1})
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("crossings per operation (counted)")
    ax.set_ylabel(f"time relative to {baseline} (log; < 1 is faster)")
    ax.set_title("E2: cost relative to the baseline against boundary crossings", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    if len(t):
        ax.legend(fontsize=7)
    return save(fig, path)


def excluded_cells(summary: pd.DataFrame, prefix: str) -> str:
    """A sentence naming the cells kept out of a table and why (invalid answers, failures)."""
    df = summary[summary["benchmark"].str.startswith(prefix) & (summary["status"] != "ok")]
    skipped = df[df["status"] == "skipped"]
    df = df[df["status"] != "skipped"]
    text = "No cell was excluded." if df.empty else "Excluded from the table: " + "; ".join(
        f"{r.benchmark} on {r.engine} ({r.status}: {str(r.reason).replace('not applicable: ', '')[:120]})"
        for r in df.itertuples()) + "."
    if len(skipped):
        reasons = sorted(set(skipped["reason"].astype(str)))
        text += f" {len(skipped)} cells were skipped ({'; '.join(reasons)[:300]})."
    return text


# ---------------------------------------------------------------------------------------------
# E1 with runtimes: seed 000's "native C vs bindings" chart, cycles per row, run sequences
# ---------------------------------------------------------------------------------------------

NATIVE = "sqlite/native-c"


def plot_native_vs_bindings(summary: pd.DataFrame, path: Path | str, method: str = "") -> Path | None:
    """Seed 000's first chart: SQLite reached natively from C and through each binding/runtime."""
    sqlite = summary[summary["engine"].str.startswith("sqlite/")]
    if sqlite.empty:
        return None
    return plot_rows_per_s(sqlite, path, method=method,
                           title="E1, native C vs bindings: SQLite from C and through each Python binding")


def cycles_gap(summary: pd.DataFrame, benchmark: str = "bindings.select_fold") -> pd.DataFrame:
    """Per cell: cycles per row, and how many more than native C (the binding's own cost per row)."""
    df = e1_rows(summary, benchmark)
    if df.empty or "cycles_per_row" not in df or NATIVE not in set(df["engine"]):
        return pd.DataFrame()
    native = df.loc[df["engine"] == NATIVE, "cycles_per_row"].iloc[0]
    native_mean = df.loc[df["engine"] == NATIVE, "mean_s"].iloc[0]
    out = df[["engine", "runtime", "rows_per_s", "cycles_per_row", "mean_s"]].copy()
    out["extra_cycles_per_row"] = out["cycles_per_row"] - native
    out["time_vs_native"] = out["mean_s"] / native_mean
    return out.drop(columns=["mean_s"]).reset_index(drop=True)


def cycles_paragraph(gap: pd.DataFrame, clock: dict) -> str:
    """Prose for the paper, every number taken from `gap` and the recorded clock."""
    if gap.empty:
        return "_No native C baseline in these runs, so no gap in cycles per row can be given._"
    hz = clock.get("hz")
    native = gap[gap["engine"] == NATIVE].iloc[0]
    parts = [f"At the recorded clock of {hz / 1e9:.2f} GHz (source: {clock.get('source')}), native C folds over "
             f"the result at {native['rows_per_s'] / 1e6:.1f} M rows/s, {native['cycles_per_row']:.0f} cycles per row:"
             " the speed of light for this query on this machine."]
    for r in gap[gap["engine"] != NATIVE].sort_values("cycles_per_row").itertuples():
        parts.append(f"{r.engine} on {r.runtime} spends {r.cycles_per_row:.0f} cycles per row, "
                     f"{r.extra_cycles_per_row:.0f} more than C ({r.time_vs_native:.1f}x its time).")
    return " ".join(parts)


def plot_run_sequences(raw: pd.DataFrame, path: Path | str, benchmark: str) -> Path | None:
    """krun-style run-sequence plots: one panel per cell of `benchmark`, one line per process."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from harness.figures_warmup import plot_run_sequence

    df = raw[(raw["benchmark"] == benchmark) & raw["check_ok"]]
    cells = df[["benchmark", "params", "engine", "runtime"]].drop_duplicates().sort_values(["engine", "runtime"])
    if cells.empty:
        return None
    n = len(cells)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.2 * rows), squeeze=False)
    for ax, key in zip(axes.flat, cells.itertuples(index=False)):
        cell = df[(df["engine"] == key.engine) & (df["runtime"] == key.runtime) & (df["params"] == key.params)]
        plot_run_sequence(cell, ax=ax)
        ax.title.set_fontsize(8)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.tight_layout()
    return save(fig, path)


def socket_paragraph(summary: pd.DataFrame, baseline: str = "sqlite/sqlite3") -> str:
    """What the socket costs per row (E1 select_all) and per query (E1 point_query), against an
    in-process baseline; every number from the summary."""
    def cell(bench: str, engine: str) -> pd.Series | None:
        df = summary[(summary["benchmark"] == bench) & (summary["engine"] == engine) & summary["mean_s"].notna()
                     & summary["runtime"].astype(str).str.startswith("cpython")]
        return df.iloc[0] if len(df) else None

    servers = sorted(e for e in summary["engine"].unique() if e.split("/")[0] in ("postgresql", "mariadb"))
    if not servers:
        return "_No client/server engine in these runs._"
    parts = []
    base_all = cell("bindings.select_all", baseline)
    base_point = cell("bindings.point_query", baseline)
    for engine in servers:
        row_all = cell("bindings.select_all", engine)
        row_point = cell("bindings.point_query", engine)
        bits = []
        if row_all is not None and base_all is not None:
            n = row_all["rows_per_s"] * row_all["mean_s"]
            per_row = row_all["mean_s"] / n * 1e9
            base_row = base_all["mean_s"] / (base_all["rows_per_s"] * base_all["mean_s"]) * 1e9
            bits.append(f"{per_row:.0f} ns per row fetched in bulk ({per_row - base_row:+.0f} ns against {baseline})")
        if row_point is not None and base_point is not None:
            k = row_point["rows_per_s"] * row_point["mean_s"]
            per_q = row_point["mean_s"] / k * 1e6
            base_q = base_point["mean_s"] / (base_point["rows_per_s"] * base_point["mean_s"]) * 1e6
            bits.append(f"{per_q:.1f} µs per point query ({per_q / base_q:.0f}x {baseline}'s {base_q:.1f} µs)")
        if bits:
            parts.append(f"{engine}: " + "; ".join(bits) + ".")
    return " ".join(parts) or "_No comparable E1 cells for the server engines in these runs._"
