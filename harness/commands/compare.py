"""`compare`: benchstat-style comparison of two runs, with a regression gate for CI."""
from __future__ import annotations

import argparse
from pathlib import Path


from harness.commands.fromstore import add_from_option, reading_store, run_name
from harness.commands.options import check_confidence, check_fraction


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="compare two runs (medians, Mann-Whitney U, geomean), benchstat style",
                       description="Per cell present in both runs: median [distribution-free CI] per side, "
                                   "change in percent, two-sided Mann-Whitney U p-value, exact as benchstat's "
                                   "(`~` where p > alpha), then a geomean row; beneath each median, the mean [99% CI] that `summary` "
                                   "gives. Times read as in `summary` (8.79 ms [8.61, 9.02]). Samples are per-process means by "
                                   "default. Warns, as benchstat, when a cell has too few samples for alpha.")
    p.add_argument("base", type=Path, metavar="BASE_RUN")
    p.add_argument("new", type=Path, metavar="NEW_RUN", nargs="?",
                   help="the run to compare with BASE_RUN (default: BASE_RUN itself, with --base-params and "
                        "--new-params naming two cells of one interleaved run)")
    p.add_argument("--base-params", metavar="KEY=VALUE",
                   help="the base side is the cells with this parameter value (e.g. n=10000; KEY= alone: the cells "
                        "without KEY, e.g. aa= for the cells whose A/A twins --new-params aa=twin names)")
    p.add_argument("--new-params", metavar="KEY=VALUE",
                   help="the new side is the cells with this parameter value (e.g. n=10300); compared with the base "
                        "cells that match in everything else")
    p.add_argument("--adjust", choices=["none", "canary"], default="none",
                   help="canary: each process mean adjusted to one common machine speed by its canary (regression "
                        "adjustment, CUPED), for comparisons across speed phases of the host (default none)")
    p.add_argument("--pair-rounds", action="store_true",
                   help="also give each cell's ratio new/base of the means [99%% CI], paired by the round its "
                        "processes ran in (one interleaved run, --base-params/--new-params): per round the log "
                        "ratio of the two cells' process means, t over the rounds both ran in; beside the "
                        "unpaired interval, which is used (with a note) where pairing is not valid (no rounds "
                        "in common, fewer than 3)")
    add_from_option(p)
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--confidence", type=float, default=0.95, help="median CI level (default 0.95, as benchstat)")
    p.add_argument("--no-means", dest="means", action="store_false",
                   help="leave out each side's mean [99%% CI] as `summary` gives it (default: shown beneath the "
                        "median, and in csv/json as base_mean_s, base_mean_ci_low_s, ...)")
    p.add_argument("--samples", choices=["process", "iteration"], default="process",
                   help="what one sample is: a process's mean (default; iterations of a process are not "
                        "independent) or each iteration")
    p.add_argument("--fail-on-regression", type=float, default=None, metavar="PCT",
                   help="exit with status 1 when a significant slowdown exceeds PCT percent; exit 2 when a "
                        "cell has too few samples for any slowdown to reach --alpha (the gate could not fire)")
    p.set_defaults(func=run)


def _side(df, selector: str | None, option: str):
    """The rows of the cells with parameter `selector` (KEY=VALUE), that parameter removed from
    their names so they match the other side's cells; all rows when no selector is given."""
    from harness.errors import UserError

    if not selector:
        return df
    if "=" not in selector:
        raise UserError(f"{option} takes KEY=VALUE, e.g. n=10000; got {selector!r}")
    if df.empty:
        return df
    parts = df["params"].astype(str).str.split(",")
    key, _, value = selector.partition("=")
    # KEY= (no value): the cells without that parameter (e.g. --base-params aa= for an A/A twin's cell)
    mask = parts.map(lambda ps: selector in ps) if value else parts.map(lambda ps: not any(
        p.startswith(key + "=") for p in ps))
    if option and not mask.any():
        shown = ", ".join(sorted(set(df["params"].astype(str)))[:6])
        raise UserError(f"{option} {selector}: no cell has that parameter value; parameters: {shown}")
    out = df[mask].copy()
    out["params"] = parts[mask].map(lambda ps: ",".join(p for p in ps if p != selector))
    return out


def _originals(keys, selector: str | None) -> dict[tuple, tuple]:
    """{cell key as the comparison names it: the cell's own key} for one side's cell keys."""
    import pandas as pd

    df = pd.DataFrame([(*k, k) for k in keys], columns=["benchmark", "params", "engine", "runtime", "orig"])
    named = _side(df, selector, "")
    return {tuple(r[:4]): r[4] for r in named.itertuples(index=False, name=None)}


def _matched(cmp, base_rs, new_rs, base_params: str | None, new_params: str | None) -> list[tuple]:
    """(shown key, base cell key, new cell key) of every compared cell (not the geomean row)."""
    b, n = _originals(base_rs.samples, base_params), _originals(new_rs.samples, new_params)
    shown = [tuple(r) for r in cmp[cmp.benchmark != "geomean"][["benchmark", "params", "engine", "runtime"]]
             .itertuples(index=False, name=None)]
    return [(k, b[k], n[k]) for k in shown if k in b and k in n]


def regressions(cmp, pct: float):
    """Rows (not geomean) that are significantly slower by more than pct percent."""
    rows = cmp[cmp.benchmark != "geomean"]
    return rows[rows.significant & (rows.delta_pct > pct)]


@reading_store("base", "new")
def run(args: argparse.Namespace) -> int:
    import sys

    from harness.analysis import stats, tables
    from harness.analysis.summary import bench_label
    from harness.analysis.textout import wrap
    from harness.errors import UserError
    from harness.store import load_runs

    check_fraction("--alpha", args.alpha, 0.05)
    check_confidence(args.confidence, 0.95)
    new_dir = args.new or args.base
    if args.new is None and not (args.base_params and args.new_params):
        raise UserError("compare needs two runs, or one run with --base-params and --new-params naming its two cells")
    from harness.analysis.interference import adjusted_compare_samples, drop_flagged_rows
    from harness.store import load_process_records

    base = _side(load_runs([args.base]), args.base_params, "--base-params")
    new = _side(load_runs([new_dir]), args.new_params, "--new-params")
    # process records, renamed like the rows, so disturbed processes are found (and left out)
    procs = [_side(load_process_records([args.base]), args.base_params, ""),
             _side(load_process_records([new_dir]), args.new_params, "")]
    if args.adjust == "canary":
        if args.samples != "process":
            raise UserError("--adjust canary adjusts per-process means: use it with --samples process")
        a, b = adjusted_compare_samples([base, new], procs)
    else:
        a, b = (stats.compare_samples(drop_flagged_rows(side, p), args.samples) for side, p in zip((base, new), procs))
    cmp = stats.compare_cells(a, b, alpha=args.alpha, confidence=args.confidence)
    if cmp.empty:
        raise UserError("the two runs have no cell (benchmark, params, engine, runtime) in common")
    for name, side, other in ((args.base.name, a, b), (new_dir.name, b, a)):
        lost = sorted(set(side) - set(other))
        if lost:  # a gate must not pass quietly because a cell stopped measuring
            shown = ", ".join(f"{bench_label(k[0], k[1])} {k[2]}" for k in lost[:3])
            print(wrap(f"warning: {len(lost)} cell(s) of {name} are not in the other run, so not compared: {shown}"
                       + (" ..." if len(lost) > 3 else ""), indent="  "), file=sys.stderr)
    pairs = None
    if args.means or args.pair_rounds:
        from harness.analysis.runset import RunSet

        base_rs = RunSet([args.base])
        new_rs = base_rs if new_dir.resolve() == args.base.resolve() else RunSet([new_dir])
        if args.means:
            # each side's summary, its cells named as the comparison names them
            cmp = tables.attach_means(cmp, _side(base_rs.summary, args.base_params, ""),
                                      _side(new_rs.summary, args.new_params, ""))
        if args.pair_rounds:
            from harness.analysis.pairing import pair_rows

            pairs = pair_rows(_matched(cmp, base_rs, new_rs, args.base_params, args.new_params), base_rs, new_rs)
            cmp = cmp.merge(pairs, on=["benchmark", "params", "engine", "runtime"], how="left")
    if args.format == "json":
        from harness.analysis.jsonout import to_json

        print(to_json(cmp, command="compare", base=run_name(args, args.base), new=run_name(args, new_dir),
                      alpha=args.alpha, confidence=args.confidence, samples=args.samples))
    elif args.format == "csv":
        print(cmp.to_csv(index=False, float_format="%.9g"), end="")
    else:
        names = ((args.base.name, new_dir.name) if args.new is not None and args.new != args.base
                 else (args.base_params or args.base.name, args.new_params or new_dir.name))
        print(tables.compare_text(cmp, *names, args.alpha, args.confidence), end="")
        if pairs is not None:
            from harness.analysis.pairing import pair_text

            print("\n" + pair_text(pairs), end="")
    if args.fail_on_regression is not None:
        blind = cmp[(cmp.benchmark != "geomean") & (cmp.warning != "")]
        if len(blind):
            r = blind.iloc[0]
            raise UserError(f"--fail-on-regression cannot decide: {bench_label(r.benchmark, r.params)} {r.engine} "
                            f"has n={int(r.base_n)}+"
                            f"{int(r.new_n)}, {r.warning} ({len(blind)} of {len(cmp) - 1} cells too small)")
        bad = regressions(cmp, args.fail_on_regression)
        if len(bad):
            names = ", ".join(f"{bench_label(r.benchmark, r.params)} {r.engine} {r.delta_pct:+.1f}%"
                              for r in bad.itertuples())
            print(f"regression over {args.fail_on_regression}%: {names}", file=sys.stderr)
            return 1
    return 0
