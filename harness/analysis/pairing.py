"""`compare --pair-rounds`: each compared cell's ratio new / base, paired by round where valid.

Beside benchstat's medians, `compare` can give the ratio of the two sides' means with its
interval two ways: unpaired (each cell reduced alone, `stats.combine_log_ratios`, as `table`
does) and paired by the round the processes ran in (`stats.paired`, rounds from
`analysis.rounds`), which is narrower when the machine's speed drifts between rounds. The paired
interval is used wherever it is valid (both cells in at least MIN_PAIRS common rounds), not
only where it came out narrower (that choice would cost coverage: `stats.paired`); otherwise the
row keeps the unpaired one and says why.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from harness.analysis.stats.paired import MIN_PAIRS, Paired, paired_geomean

if TYPE_CHECKING:
    import pandas as pd

    from harness.analysis.runset import RunSet

PAIRED = "paired"
UNPAIRED = "unpaired"
PAIR_COLUMNS = ["benchmark", "params", "engine", "runtime", "ratio", "ratio_ci_low", "ratio_ci_high", "ratio_method",
                "unpaired_ratio", "unpaired_ci_low", "unpaired_ci_high", "paired_ratio", "paired_ci_low",
                "paired_ci_high", "rounds", "rounds_dropped", "pair_note"]


def pair_rows(cells: Sequence[tuple[tuple, tuple, tuple]], base: RunSet, new: RunSet,
              confidence: float = 0.99) -> pd.DataFrame:
    """One row per (shown key, base cell key, new cell key), then a geomean row over them all:
    the unpaired and the paired ratio new / base and the one used (`ratio*`, `ratio_method`)."""
    import pandas as pd

    from harness.analysis import rounds, stats

    base_rounds = rounds.cell_rounds(base)
    new_rounds = base_rounds if new is base else rounds.cell_rounds(new)
    base_boots = base.boots([b for _, b, _ in cells if b in base.samples])
    new_boots = new.boots([n for _, _, n in cells if n in new.samples])
    rows, boots, rounded = [], [], []
    for shown, b, n in cells:
        pair = (new_boots.get(n), base_boots.get(b))
        one = [pair] if None not in pair else []
        part = (new_rounds.get(n, {}), base_rounds.get(b, {}))
        rows.append(_row(shown, stats.combine_log_ratios(one, confidence) if one else (math.nan,) * 3,
                         paired_geomean([part], confidence)))
        boots += one
        rounded.append(part)
    if len(cells) > 1:
        rows.append(_row(("geomean", "", "", ""), stats.combine_log_ratios(boots, confidence)
                         if len(boots) == len(cells) else (math.nan,) * 3, paired_geomean(rounded, confidence)))
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def _row(key: tuple, unpaired: tuple[float, float, float], paired: Paired) -> tuple:
    use = paired if paired.valid else None
    ratio = (use.estimate, use.low, use.high) if use else unpaired
    return (*key, *ratio, PAIRED if use else UNPAIRED, *unpaired, paired.estimate, paired.low, paired.high,
            paired.rounds, paired.dropped, paired.note)


def pair_text(rows: pd.DataFrame, confidence: float = 0.99, width: int | None = None) -> str:
    """The ratios for people: per cell unpaired and paired [CI], rounds used (dropped), the method used."""
    from harness.analysis import textout
    from harness.analysis.summary import bench_label

    def ratio(m: float, lo: float, hi: float) -> str:
        if not textout.finite(m):
            return ""
        return textout.digits3(m) + (f" [{textout.digits3(lo)}, {textout.digits3(hi)}]"
                                     if textout.finite(lo) and textout.finite(hi) else "")

    table_rows, notes = [], {}
    for r in rows.itertuples(index=False):
        label = "geomean" if r.benchmark == "geomean" else bench_label(r.benchmark, r.params)
        used = f"{int(r.rounds)} of {int(r.rounds + r.rounds_dropped)}"
        if r.pair_note:
            notes.setdefault(r.pair_note, []).append(label)
        table_rows.append([label, r.engine, r.runtime, ratio(r.unpaired_ratio, r.unpaired_ci_low, r.unpaired_ci_high),
                           ratio(r.paired_ratio, r.paired_ci_low, r.paired_ci_high), used, r.ratio_method])
    width = width or textout.output_width()
    pct = f"{confidence * 100:g}%"
    cols = [textout.Col("benchmark [params]"), textout.Col("engine"), textout.Col("runtime"),
            textout.Col(f"unpaired [{pct} CI]", "right", wrap=False), textout.Col(f"paired [{pct} CI]", "right", wrap=False),
            textout.Col("rounds", "right", wrap=False), textout.Col("used", wrap=False)]
    lines = [textout.table(cols, table_rows, width),
             textout.wrap(f"ratio new / base of the means: unpaired = each cell alone (process-bootstrap, Welch); "
                          f"paired = per round the log of the ratio of the two cells' process means, t over the "
                          f"rounds both cells ran in (the geomean: those logs averaged over the cells per round; "
                          f"rounds: those where every cell ran, of those where any did); 'used': paired where "
                          f"valid (at least {MIN_PAIRS} rounds in common), whether or not it is narrower, else "
                          f"unpaired", width)]
    for note, labels in notes.items():
        which = labels[0] if len(labels) == 1 else f"{len(labels)} rows, e.g. {labels[0]}"
        lines.append(textout.wrap(f"note: {note} ({which}); the unpaired interval is used", width))
    return "\n".join(lines) + "\n"
