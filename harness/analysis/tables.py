"""Tables in the SQPyte layout: per benchmark a time row `mean [low, high]` per engine,
then a `×` row of ratios against the baseline engine, and a geometric-mean row.

Functions return DataFrames or strings so notebooks and `python -m harness table` share them.
Intervals are printed with both ends, never as ± a half-width: the default intervals are
computed on the log scale and are not symmetric. A value without an interval is followed by a
mark whose footnote says why (too few processes); a value whose steady-state and all-iterations
estimates disagree gets † and a footnote with the other one.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from harness.analysis import stats, wording
from harness.analysis.methods import DEFAULT_METHOD, METHOD_NAMES, MIN_PROCESSES

CSV_COLUMNS = ["benchmark", "params", "engine", "runtime", "mean_s", "ci_low_s", "ci_high_s", "ratio", "ratio_ci_low",
               "ratio_ci_high", "baseline", "processes", "iterations", "n", "median_s", "std_s", "method",
               "confidence", "invalid", "outliers", "warmup", "no_steady", "used", "df", "note", "ratio_note",
               "alt_used", "alt_mean_s", "alt_ci_low_s", "alt_ci_high_s", "disagree", "alt_ratio",
               "alt_ratio_ci_low", "alt_ratio_ci_high", "ratio_disagree"]



def has_baseline(df: pd.DataFrame, baseline: str) -> bool:
    """Whether the raw timings hold the baseline cell(s) (`ENGINE` or `ENGINE@RUNTIME`)."""
    if df.empty:
        return False
    b_engine, b_runtime = stats.parse_baseline(baseline)
    runtimes = df.loc[df["engine"] == b_engine, "runtime"].astype(str)
    return bool(len(runtimes)) and (b_runtime is None or runtimes.str.startswith(b_runtime).any())


def build_table(df: pd.DataFrame, baseline: str, method: str = DEFAULT_METHOD, confidence: float = 0.99,
                resamples: int = 10000, seed: int = 0, steady_state: bool = True) -> pd.DataFrame:
    """The table's data: one row per cell plus `geomean` rows, columns CSV_COLUMNS.

    ratio = engine mean / baseline mean (so > 1 means slower than the baseline, as in SQPyte).
    """
    engines = set(df["engine"].unique()) if len(df) else set()
    if not has_baseline(df, baseline):
        from harness.errors import UserError, did_you_mean

        hint = did_you_mean(stats.parse_baseline(baseline)[0], sorted(engines))
        raise UserError(f"baseline engine {baseline!r} is not in the runs{hint} (engines: "
                        f"{', '.join(sorted(engines)) or 'none'})")
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


NO_CI_MARK = "*"
DISAGREE_MARK = "†"


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


def _ratio_digits(values: list[float]) -> int:
    """Decimals for a ratio row: three, more for small ratios so the bounds keep two digits."""
    vals = [abs(v) for v in values if v is not None and np.isfinite(v) and v > 0]
    if not vals:
        return 3
    return max(3, min(6, 1 - int(math.floor(math.log10(min(vals))))))


def _cell(value: float, low: float, high: float, scale: float, digits: int, disagrees: bool) -> str:
    text = wording.interval(value, low, high, num=wording.fixed(digits), scale=scale, missing="—")
    if text != "—" and not (np.isfinite(low) and np.isfinite(high)):
        text += NO_CI_MARK
    return text + (DISAGREE_MARK if disagrees else "")


#: a cell key (benchmark, params, engine, runtime) -> the timeout (s) its processes exceeded
Censored = dict[tuple[str, str, str, str], float]


def censored_text(timeout_s: float) -> str:
    """What a timed-out cell shows instead of a number: its time is only known to exceed the timeout."""
    return f">{timeout_s:g} s (timeout)" if np.isfinite(timeout_s) else ">timeout"


def table_rows(table: pd.DataFrame, baseline: str,
               censored: Censored | None = None) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of strings in the SQPyte layout; used by the Markdown and LaTeX writers. A
    cell in `censored` (it timed out) shows ">T s (timeout)" and its ratio ">timeout", never a number."""
    censored = censored or {}
    cols = _columns(table, baseline)
    header = ["Benchmark"] + [_col_label(c, cols) for c in cols]
    rows: list[list[str]] = []
    cells = table[table.benchmark != "geomean"]
    index = {(r.benchmark, r.params, r.engine, r.runtime): r for r in cells.itertuples(index=False)}
    benches = cells[["benchmark", "params"]].drop_duplicates().sort_values(["benchmark", "params"])
    for b in benches.itertuples(index=False):
        rs = [index.get((b.benchmark, b.params, e, rt)) for e, rt in cols]
        scale, unit = _unit_for([r.mean_s for r in rs if r is not None])
        cut = [censored.get((b.benchmark, b.params, e, rt)) for e, rt in cols]
        rows.append([f"{_bench_label(b.benchmark, b.params)} ({unit})"]
                    + [_cell(r.mean_s, r.ci_low_s, r.ci_high_s, scale, 3, bool(r.disagree)) if r is not None else
                       censored_text(c) if c is not None else "—" for r, c in zip(rs, cut)])
        digits = _ratio_digits([r.ratio_ci_low for r in rs if r is not None])
        ratio_cells = []
        for (e, rt), r, c in zip(cols, rs, cut):
            base = stats.is_baseline(e, rt, baseline)
            if r is None and c is not None and not base:
                ratio_cells.append(">timeout")
            elif r is None or base or not np.isfinite(r.ratio):
                ratio_cells.append("" if (r is not None and base) else "—")
            else:
                ratio_cells.append(_cell(r.ratio, r.ratio_ci_low, r.ratio_ci_high, 1.0, digits,
                                         bool(r.ratio_disagree)))
        rows.append(["×"] + ratio_cells)
    geo = table[table.benchmark == "geomean"]
    gidx = {(r.engine, r.runtime): r for r in geo.itertuples(index=False)}
    # how many benchmarks each geometric mean is over, said in its label: a mean over 2 of a table's
    # benchmarks reads differently from one over all of them (E1's, E2's), and the reader should not
    # have to find the footnote to know
    ks = {int(r.n) for r in geo.itertuples(index=False) if "n" in geo and pd.notna(r.n)
          and not stats.is_baseline(r.engine, r.runtime, baseline)}
    k = next(iter(ks)) if len(ks) == 1 else None
    grow = [f"Geometric mean × (over {k} benchmark{'' if k == 1 else 's'})" if k else "Geometric mean ×"]
    for e, rt in cols:
        r = gidx.get((e, rt))
        grow.append("" if stats.is_baseline(e, rt, baseline) else (
            _cell(r.ratio, r.ratio_ci_low, r.ratio_ci_high, 1.0, 3, bool(r.ratio_disagree)) if r is not None else "—"))
    rows.append(grow)
    return header, rows


def footnotes(table: pd.DataFrame) -> list[str]:
    """What the marks in the table mean: cells without an interval and why; where the
    steady-state and all-iterations estimates disagree, the other estimate."""
    notes = []
    cells = table[table.benchmark != "geomean"]
    short = cells[cells["ci_low_s"].isna() & cells["mean_s"].notna()]
    if len(short):
        reasons = sorted(set(short["note"].astype(str)) - {""})
        notes.append(f"{NO_CI_MARK} no interval ({len(short)} cells): " + "; ".join(reasons)
                     + (f". Run at least {MIN_PROCESSES} processes per cell." if reasons else "."))
    if "used" not in table or not len(cells):
        return notes
    if "no_steady" in cells and cells["used"].iloc[0] == "steady-state":
        drifting = cells[cells["no_steady"].fillna(0) > 0]
        if len(drifting):
            notes.append("Processes with no steady state (a trend, an oscillation or a late change; all their "
                         "iterations are kept):\n\n" + "\n".join(
                             f"- {r.benchmark} on {r.engine} ({r.runtime}): {int(r.no_steady)} of {int(r.processes)}"
                             for r in drifting.itertuples(index=False)))
    other = "all iterations" if cells["used"].iloc[0] == "steady-state" else "steady state only"
    bits = []
    for r in table.itertuples(index=False):
        name = f"{'geomean' if r.benchmark == 'geomean' else r.benchmark} on {r.engine} ({r.runtime})"
        if r.benchmark != "geomean" and bool(r.disagree):
            scale, unit = _unit_for([r.mean_s])
            alt = wording.interval(r.alt_mean_s, r.alt_ci_low_s, r.alt_ci_high_s, num=wording.fixed(3), scale=scale,
                                   missing="—")
            bits.append(f"{name} time {alt} {unit}")
        if bool(r.ratio_disagree) and np.isfinite(r.alt_ratio):
            digits = _ratio_digits([r.alt_ratio_ci_low])
            alt = wording.interval(r.alt_ratio, r.alt_ratio_ci_low, r.alt_ratio_ci_high, num=wording.fixed(digits),
                                   missing="—")
            bits.append(f"{name} × {alt}")
    if bits:
        notes.append(f"{DISAGREE_MARK} warm-up changes the answer: the estimate with {other} lies outside this "
                     f"interval or this one outside its interval. With {other}:\n\n" + "\n".join(f"- {b}" for b in bits))
    return notes


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
    method = cells["method"].iloc[0] if len(cells) else DEFAULT_METHOD
    conf = float(cells["confidence"].iloc[0]) if len(cells) else 0.99
    used = cells["used"].iloc[0] if len(cells) else "steady-state"
    no_steady = int(cells["no_steady"].fillna(0).sum()) if "no_steady" in cells else 0
    procs = int(cells["processes"].fillna(0).sum()) if len(cells) else 0
    steady = (f"each process from its detected steady state ({no_steady} of the table's {procs:,} processes with "
              "timings, A/A twins and disturbed processes left out, have none and keep all their iterations)"
              if used == "steady-state" else "all iterations, warm-up included")
    return (f"Mean time per iteration [{_pct(conf)} confidence interval] "
            f"({protocol_text(table)}; {METHOD_NAMES.get(method, method)}; {steady}). "
            f"× rows: time relative to {baseline} (higher is slower); geometric mean over benchmarks.")


def _pct(conf: float) -> str:
    """0.99 -> '99%', 0.995 -> '99.5%'."""
    return f"{conf * 100:.10g}%"


def censored_note(censored: Censored) -> str:
    """The footnote for censored cells: which timed out, and that the geometric means leave them out."""
    if not censored:
        return ""
    by_engine: dict[tuple[str, str], list[str]] = {}
    for (bench, _params, engine, runtime), _t in sorted(censored.items()):
        by_engine.setdefault((engine, runtime), []).append(bench)
    limits = sorted({t for t in censored.values() if np.isfinite(t)})
    limit = " or ".join(f"{t:g} s" for t in limits) or "its timeout"
    parts = "; ".join(f"{', '.join(b)} on {e} ({rt})" for (e, rt), b in by_engine.items())
    return (f"Censored (shown as \">timeout\"): {parts} timed out (a process exceeded {limit} and was killed), so "
            "their time is only known to be longer; they are left out of the geometric mean of their column, which "
            "is therefore over the other benchmarks and favours that engine.")


def to_markdown(table: pd.DataFrame, baseline: str, censored: Censored | None = None) -> str:
    from harness.analysis.markdown import split_table

    header, rows = table_rows(table, baseline, censored)
    # wide families are cut into parts that each repeat the benchmark and the baseline's column
    lines = [split_table(header, rows, [":---"] + ["---:"] * (len(header) - 1), keep=2)]
    notes = "".join("\n\n" + n for n in footnotes(table) + ([censored_note(censored)] if censored else []))
    return "\n".join(lines) + "\n\n" + caption(table, baseline) + notes + "\n"


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(s: str) -> str:
    s = "".join(_LATEX_ESCAPES.get(ch, ch) for ch in s)
    return (s.replace("×", r"$\times$").replace("µ", r"$\mu$").replace("—", "---")
            .replace("†", r"$^\dagger$").replace("*", r"$^*$"))


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
            r"\label{" + label + "}"]
    out += [latex_escape(n) + r"\par" for n in footnotes(table)] + [r"\end{table}"]
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


#: compare's extra columns: each side's mean and its interval as `summary` computes them
MEAN_COLUMNS = ["base_mean_s", "base_mean_ci_low_s", "base_mean_ci_high_s", "new_mean_s", "new_mean_ci_low_s",
                "new_mean_ci_high_s"]


def attach_means(cmp: pd.DataFrame, base_summary: pd.DataFrame, new_summary: pd.DataFrame) -> pd.DataFrame:
    """`cmp` with each side's mean [CI] (MEAN_COLUMNS) from that side's summary, cell by cell,
    so `compare` prints the numbers `summary` prints beside benchstat's medians."""
    keys = ["benchmark", "params", "engine", "runtime"]
    out = cmp
    for side, summ in (("base", base_summary), ("new", new_summary)):
        part = summ[keys + ["mean_s", "ci_low_s", "ci_high_s"]].drop_duplicates(keys).rename(columns={
            "mean_s": f"{side}_mean_s", "ci_low_s": f"{side}_mean_ci_low_s", "ci_high_s": f"{side}_mean_ci_high_s"})
        out = out.merge(part, on=keys, how="left")
    return out


def compare_text(cmp: pd.DataFrame, base_name: str = "base", new_name: str = "new", alpha: float = 0.05,
                 confidence: float = 0.95, mean_confidence: float | None = None, width: int | None = None) -> str:
    """The comparison for people, in summary's vocabulary (analysis.textout: `8.79 ms [8.61, 9.02]`,
    one unit per row): per cell the median [distribution-free CI] of each side and, when `cmp`
    has them (attach_means), the mean [CI] beneath; the change or `~` (benchstat's rule), the
    Mann-Whitney p and n; benchstat's warnings under the table."""
    from harness.analysis import textout
    from harness.analysis.summary import bench_label

    has_means = "base_mean_s" in cmp
    cells = cmp[cmp.benchmark != "geomean"]
    one_runtime = cells["runtime"].nunique() == 1
    rows: list[list[str]] = []
    warnings: dict[str, list[str]] = {}  # benchstat's warning -> the cells it concerns
    sections: list[int] | None = [] if has_means else None  # a rule between benchmarks when cells take two lines
    last = None
    for r in cmp.itertuples(index=False):
        geo = r.benchmark == "geomean"
        unit_of = r.base_median_s
        if geo:
            stat = "median"
            b, n = textout.time_text(r.base_median_s, unit_of=unit_of), textout.time_text(r.new_median_s, unit_of=unit_of)
            if sections is not None and rows:
                sections.append(len(rows))
            rows.append(["geomean", ""] + ([] if one_runtime else [""]) + [stat, b, n, f"{r.delta_pct:+.2f}%", ""])
            continue
        name = f"{bench_label(r.benchmark, r.params)} {r.engine} {r.runtime}"
        b = textout.time_text(r.base_median_s, r.base_ci_low_s, r.base_ci_high_s, unit_of)
        n = textout.time_text(r.new_median_s, r.new_ci_low_s, r.new_ci_high_s, unit_of)
        stat = "median"
        if has_means:
            stat += "\nmean"
            b += "\n" + textout.time_text(r.base_mean_s, r.base_mean_ci_low_s, r.base_mean_ci_high_s, unit_of)
            n += "\n" + textout.time_text(r.new_mean_s, r.new_mean_ci_low_s, r.new_mean_ci_high_s, unit_of)
        nn = f"n={int(r.base_n)}" if r.base_n == r.new_n else f"n={int(r.base_n)}+{int(r.new_n)}"
        test = f"p={r.p_value:.3f} {nn}" if np.isfinite(r.p_value) and r.p_value != 0 else nn
        if getattr(r, "warning", ""):
            warnings.setdefault(r.warning, []).append(name)
        if math.isinf(r.base_ci_pct) or math.isinf(r.new_ci_pct):
            op, need = ci_samples_needed(confidence)
            warnings.setdefault(f"need {op} {need} samples for confidence interval at level {confidence:g}",
                                []).append(name)
        if sections is not None and rows and r.benchmark != last:
            sections.append(len(rows))
        last = r.benchmark
        label = [bench_label(r.benchmark, r.params), r.engine] + ([] if one_runtime else [r.runtime])
        rows.append(label + [stat, b, n, r.delta, test])
    columns = [textout.Col("benchmark [params]"), textout.Col("engine")]
    columns += [] if one_runtime else [textout.Col("runtime")]
    columns += [textout.Col(""), textout.Col(base_name, "right", wrap=False), textout.Col(new_name, "right", wrap=False),
                textout.Col("vs base", "right", wrap=False), textout.Col("test")]
    width = width or textout.output_width()
    means = (f"; means [{_pct(mean_confidence or 0.99)} CI] as `summary` gives them (steady-state iterations)"
             if has_means else "")
    lines = [textout.table(columns, rows, width, sections or ()),
             textout.wrap(f"medians of per-process means [distribution-free {_pct(confidence)} CI]{means}; "
                          f"vs base: change of the medians, `~` where Mann-Whitney p > {alpha:g}"
                          + (f"; runtime {cells['runtime'].iloc[0]}" if one_runtime and len(cells) else ""), width)]
    for message, names in warnings.items():  # one line per warning, not one per cell
        which = names[0] if len(names) == 1 else (f"{len(names)} of {len(cells)} cells, e.g. {names[0]}"
                                                  if len(names) < len(cells) else f"all {len(names)} cells")
        lines.append(textout.wrap(f"warning: {which}: {message}", width, indent="  "))
    return "\n".join(lines) + "\n"


def ci_samples_needed(confidence: float) -> tuple[str, int]:
    """benchstat's medianSamples: the fewest values whose median CI is bounded at `confidence`."""
    for n in range(1, 31):
        lo, hi, _ = stats.quantile_ci_orders(n, 0.5, confidence)
        if lo >= 1 and hi <= n:
            return ">=", n
    return ">", 30
