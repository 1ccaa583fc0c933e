"""Tables in the SQPyte layout: per benchmark a time row `mean ± half-width` per engine,
then a `×` row of ratios against the baseline engine, and a geometric-mean row.

Functions return DataFrames or strings so notebooks and `python -m harness table` share them.
The half-width shown is (high - low) / 2 of the interval (bootstrap intervals need not be
symmetric; the CSV keeps both ends).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from harness.analysis import stats
from harness.analysis.methods import METHOD_NAMES  # noqa: F401 (captions name the method)

CSV_COLUMNS = ["benchmark", "params", "engine", "runtime", "mean_s", "ci_low_s", "ci_high_s", "ratio", "ratio_ci_low",
               "ratio_ci_high", "baseline", "processes", "iterations", "n", "median_s", "std_s", "method",
               "confidence", "invalid", "outliers", "warmup", "used"]



def has_baseline(df: pd.DataFrame, baseline: str) -> bool:
    """Whether the raw timings hold the baseline cell(s) (`ENGINE` or `ENGINE@RUNTIME`)."""
    if df.empty:
        return False
    b_engine, b_runtime = stats.parse_baseline(baseline)
    runtimes = df.loc[df["engine"] == b_engine, "runtime"].astype(str)
    return bool(len(runtimes)) and (b_runtime is None or runtimes.str.startswith(b_runtime).any())


def build_table(df: pd.DataFrame, baseline: str, method: str = "hierarchical", confidence: float = 0.99,
                resamples: int = 10000, seed: int = 0, steady_state: bool = False) -> pd.DataFrame:
    """The table's data: one row per cell plus `geomean` rows, columns CSV_COLUMNS.

    ratio = engine mean / baseline mean (so > 1 means slower than the baseline, as in SQPyte).
    """
    engines = set(df["engine"].unique()) if len(df) else set()
    if not has_baseline(df, baseline):
        from harness.errors import UserError

        raise UserError(f"baseline engine {baseline!r} is not in the runs (engines: {', '.join(sorted(engines)) or 'none'})")
    out = stats.ratio_summary(df, baseline, method, confidence, resamples, seed, steady_state)
    return select_columns(out)


def select_columns(ratio_rows: pd.DataFrame) -> pd.DataFrame:
    """The table's columns (CSV_COLUMNS) of stats.ratio_summary / ratio_rows output."""
    return ratio_rows[CSV_COLUMNS]


# ------------------------------------------------------------------------------------------
# Formatting
# ------------------------------------------------------------------------------------------

_UNITS = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]


def _unit_for(values: list[float]) -> tuple[float, str]:
    """The largest unit in which the smallest positive mean of a row is at least 1."""
    vals = [v for v in values if v is not None and np.isfinite(v) and v > 0]
    if not vals:
        return 1.0, "s"
    m = min(vals)
    for scale, name in _UNITS:
        if m >= scale:
            return scale, name
    return _UNITS[-1]


def fmt_pm(value: float, low: float, high: float, scale: float = 1.0, pm: str = "±") -> str:
    """`value ± half-width` with 3 decimals and 4 for the half-width, as the SQPyte tables."""
    if value is None or not np.isfinite(value):
        return "—"
    v = value / scale
    if low is None or high is None or not (np.isfinite(low) and np.isfinite(high)):
        return f"{v:.3f}"
    hw = (high - low) / 2 / scale
    return f"{v:.3f} {pm} {hw:.4f}"


def _bench_label(bench: str, params: str) -> str:
    return f"{bench} [{params}]" if params else bench


def _columns(table: pd.DataFrame, baseline: str) -> list[tuple[str, str]]:
    cells = table[table.benchmark != "geomean"][["engine", "runtime"]].drop_duplicates()
    cols = [tuple(r) for r in cells.itertuples(index=False)]
    cols.sort(key=lambda c: (not stats.is_baseline(c[0], c[1], baseline), c[0], c[1]))
    return cols


def _col_label(col: tuple[str, str], cols: list[tuple[str, str]]) -> str:
    multi = len({c[1] for c in cols}) > 1
    return f"{col[0]} ({col[1]})" if multi else col[0]


def table_rows(table: pd.DataFrame, baseline: str, pm: str = "±") -> tuple[list[str], list[list[str]]]:
    """(header, rows) of strings in the SQPyte layout; used by the Markdown and LaTeX writers."""
    cols = _columns(table, baseline)
    header = ["Benchmark"] + [_col_label(c, cols) for c in cols]
    rows: list[list[str]] = []
    cells = table[table.benchmark != "geomean"]
    index = {(r.benchmark, r.params, r.engine, r.runtime): r for r in cells.itertuples(index=False)}
    benches = cells[["benchmark", "params"]].drop_duplicates().sort_values(["benchmark", "params"])
    for b in benches.itertuples(index=False):
        rs = [index.get((b.benchmark, b.params, e, rt)) for e, rt in cols]
        scale, unit = _unit_for([r.mean_s for r in rs if r is not None])
        rows.append([f"{_bench_label(b.benchmark, b.params)} ({unit})"]
                    + [fmt_pm(r.mean_s, r.ci_low_s, r.ci_high_s, scale, pm) if r is not None else "—" for r in rs])
        ratio_cells = []
        for (e, rt), r in zip(cols, rs):
            base = stats.is_baseline(e, rt, baseline)
            if r is None or base or not np.isfinite(r.ratio):
                ratio_cells.append("" if (r is not None and base) else "—")
            else:
                ratio_cells.append(fmt_pm(r.ratio, r.ratio_ci_low, r.ratio_ci_high, 1.0, pm))
        rows.append(["×"] + ratio_cells)
    geo = table[table.benchmark == "geomean"]
    gidx = {(r.engine, r.runtime): r for r in geo.itertuples(index=False)}
    grow = ["Geometric mean ×"]
    for e, rt in cols:
        r = gidx.get((e, rt))
        grow.append("" if stats.is_baseline(e, rt, baseline) else (fmt_pm(r.ratio, r.ratio_ci_low, r.ratio_ci_high, 1.0, pm) if r is not None else "—"))
    rows.append(grow)
    return header, rows


def protocol_text(table: pd.DataFrame) -> str:
    """'5 processes × 50 iterations' (ranges when cells differ)."""
    cells = table[table.benchmark != "geomean"]
    if cells.empty:
        return "no data"

    def rng(col: str) -> str:
        v = cells[col].dropna().astype(float)
        lo, hi = int(v.min()), int(v.max())
        return str(lo) if lo == hi else f"{lo}–{hi}"

    return f"{rng('processes')} processes × {rng('iterations')} iterations"


def caption(table: pd.DataFrame, baseline: str) -> str:
    cells = table[table.benchmark != "geomean"]
    method = cells["method"].iloc[0] if len(cells) else "hierarchical"
    conf = float(cells["confidence"].iloc[0]) if len(cells) else 0.99
    used = cells["used"].iloc[0] if len(cells) else "all"
    return (f"Mean time per iteration ± half-width of the {conf:.0%} confidence interval "
            f"({protocol_text(table)}; {METHOD_NAMES.get(method, method)}; "
            f"{'steady-state iterations only' if used == 'steady-state' else 'all iterations'}). "
            f"× rows: time relative to {baseline} (higher is slower); geometric mean over benchmarks.")


def to_markdown(table: pd.DataFrame, baseline: str) -> str:
    header, rows = table_rows(table, baseline)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n\n" + caption(table, baseline) + "\n"


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(s: str) -> str:
    s = "".join(_LATEX_ESCAPES.get(ch, ch) for ch in s)
    return s.replace("×", r"$\times$").replace("±", r"$\pm$").replace("µ", r"$\mu$").replace("—", "---")


def to_latex(table: pd.DataFrame, baseline: str, label: str = "tab:results") -> str:
    """A booktabs table; the caption names the protocol and the CI method."""
    header, rows = table_rows(table, baseline)
    out = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
           " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]
    for i, r in enumerate(rows):
        if i == len(rows) - 1:
            out.append(r"\midrule")
        out.append(" & ".join(latex_escape(c) for c in r) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}", r"\caption{" + latex_escape(caption(table, baseline)) + "}",
            r"\label{" + label + "}", r"\end{table}"]
    return "\n".join(out) + "\n"


def to_csv(table: pd.DataFrame) -> str:
    return table.to_csv(index=False, float_format="%.9g")


# ------------------------------------------------------------------------------------------
# benchstat-style comparison text
# ------------------------------------------------------------------------------------------

_SI = [(1e-9, "n"), (1e-6, "µ"), (1e-3, "m"), (1.0, "")]


def fmt_si(seconds: float) -> str:
    """benchstat's number style: 4 significant digits with an SI prefix (286.6µ, 7.479m, 820.0n)."""
    if seconds is None or not np.isfinite(seconds):
        return "?"
    a = abs(seconds)
    scale, prefix = 1.0, ""
    for s, p in _SI:
        if a >= s:
            scale, prefix = s, p
    if a < 1e-9:
        scale, prefix = 1e-9, "n"
    v = seconds / scale
    digits = 3 - (int(math.floor(math.log10(abs(v)))) if v else 0)
    return f"{v:.{max(digits, 0)}f}{prefix}"


def fmt_pct(p: float) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "?"
    if math.isinf(p):
        return "∞"
    return f"{p:.0f}%"


def compare_text(cmp: pd.DataFrame, base_name: str = "base", new_name: str = "new", alpha: float = 0.05) -> str:
    """benchstat-like text: name, base median ± ci, new median ± ci, delta or ~, (p=… n=…)."""
    def name(r) -> str:
        if r.benchmark == "geomean":
            return "geomean"
        extra = [x for x in (r.params, r.engine, r.runtime) if x]
        return r.benchmark + (f" [{' '.join(extra)}]" if extra else "")

    rows = []
    for r in cmp.itertuples(index=False):
        geo = r.benchmark == "geomean"
        b = fmt_si(r.base_median_s) + ("" if geo else " ± " + fmt_pct(r.base_ci_pct))
        n = fmt_si(r.new_median_s) + ("" if geo else " ± " + fmt_pct(r.new_ci_pct))
        delta = f"{r.delta_pct:+.2f}%" if (geo or r.significant) else "~"
        if geo:
            note = ""
        else:
            nn = f"n={int(r.base_n)}" if r.base_n == r.new_n else f"n={int(r.base_n)}+{int(r.new_n)}"
            note = f"(p={r.p_value:.3f} {nn})" if np.isfinite(r.p_value) else f"({nn})"
        rows.append((name(r), b, n, delta, note))
    head = ("", base_name, new_name, "vs base", "")
    sub = ("", "sec/op", "sec/op", "", "")
    allrows = [head, sub] + rows
    w = [max(len(x[i]) for x in allrows) for i in range(5)]
    lines = []
    for i, r in enumerate(allrows):
        lines.append(f"{r[0]:<{w[0]}}  {r[1]:>{w[1]}}  {r[2]:>{w[2]}}  {r[3]:>{w[3]}} {r[4]}".rstrip())
    lines.append(f"(medians ± {''}distribution-free 95% CI; delta shown where Mann-Whitney p < {alpha})")
    return "\n".join(lines) + "\n"
