"""What every study shares: the protocol paragraph, family tables with exclusions, its result."""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from harness.analysis.runset import RunSet, manifest_of, plan_of, records_of
from harness.analysis.stats.resample import CELL_KEYS
from harness.fsutil import PROJECT_ROOT

#: every study's baseline unless told otherwise: SQLite through CPython's standard sqlite3 module
BASELINE = "sqlite/sqlite3@cpython"

if TYPE_CHECKING:
    import pandas as pd


def committed_reference(runs: RunSet, root: Path = PROJECT_ROOT) -> bool:
    """Whether `runs` are the committed reference runs (every one in data/reference/): only then does a study
    read the campaign's runs that live elsewhere (E3h, E3d, the replicates); a run's own report does not."""
    folder = (root / "data" / "reference").resolve()
    return bool(runs.run_dirs) and all(Path(d).resolve().parent == folder for d in runs.run_dirs)


def cpu_model(run: Path) -> str:
    """The CPU model a run's manifest names, which machine it was measured on ("" when it names none or
    cannot be read)."""
    from harness.analysis import runset

    try:
        cpu = (runset.manifest_of(run).machine or {}).get("cpu") or {}
    except Exception:  # noqa: BLE001 - a run's machine is context; without it nothing is said of it
        return ""
    return str(cpu.get("model") or "") if isinstance(cpu, dict) else ""


def heading_of(paper_path: Path | str | None, block: str) -> str:
    """'Section 2.5' or 'Appendix B.10': the numbered heading a generated block sits under in the paper ('' when
    the paper or the block is missing, or no numbered heading comes before it)."""
    try:
        text = Path(paper_path).read_text() if paper_path else ""
    except OSError:
        return ""
    at = text.find(f"<!-- BEGIN generated:{block} -->")
    heads = re.findall(r"^#{2,6} (\d+(?:\.\d+)*|[A-Z](?:\.\d+)*)\.? ", text[:at], flags=re.M) if at >= 0 else []
    if not heads:
        return ""
    return ("Section " if heads[-1][0].isdigit() else "Appendix ") + heads[-1]


def measured_families(run_dir: Path) -> list[str]:
    """The benchmark families a run measured (its processes that ran; a plan also lists families whose
    cells were all skipped, such as an engine's own benchmarks on a runtime the run did not have)."""
    recs = records_of(run_dir)
    ran = {str(r.benchmark).split(".", 1)[0] for r in recs.values()
           if r.status not in ("skipped", "not_applicable") and r.benchmark}
    if ran or recs:
        return sorted(ran)
    plan = plan_of(run_dir)
    return sorted({str(b).split(".", 1)[0] for b in (plan.benchmarks if plan else None) or []})


def protocol_text(run_dirs: list[Path | str], shared: bool = True) -> str:
    """One line per run saying how it was measured, read from its manifest; the machine and the
    libraries once when the runs share them (the engines' versions are in the environment table), unless
    `shared` is False (a study's own list, beside Appendix A's list of every run that says them)."""
    from harness.studies import STUDIES

    out, machines, libraries = [], set(), set()
    for d in run_dirs:
        m = manifest_of(d)
        c = m.configuration
        cpu = m.machine.get("cpu", {})
        machines.add(f"{cpu.get('model')}, {cpu.get('cores')} cores, governor {cpu.get('governor') or 'not readable'}, "
                     f"kernel {m.machine.get('kernel')}")
        libraries.add(", ".join(f"{k} {v}" for k, v in sorted((m.libraries or {}).items())))
        commit = (m.commit or "unknown")[:12]
        if m.imported:
            src = m.source or {}
            out.append(f"- Run `{m.run_id}`: imported from `{src.get('file')}` (format {src.get('format')}, engine "
                       f"{src.get('engine')}; each process one sample as the tool reported it); commit {commit}.")
            continue
        families = measured_families(Path(d))
        study = ", ".join(STUDIES.get(f, f) for f in families) or "?"
        adaptive = m.adaptive
        if adaptive:
            target = (adaptive.get("settings") or {}).get("target")
            how = (f"adaptive: a pilot of {c.get('processes')} processes x {c.get('iterations')} iterations per cell, "
                   f"then rounds of processes until each cell's 99% interval is within ±{100 * float(target):g}% "
                   "or its budget is spent" if target else "adaptive")
        else:
            how = f"{c.get('processes')} fresh processes x {c.get('iterations')} timed iterations per cell"
        out.append(f"- Run `{m.run_id}` ({study}; profile `{c.get('profile')}`): {how}; cells interleaved in "
                   f"rounds (seed {c.get('seed')}); per-process timeout {c.get('timeout_s')} s; commit {commit}.")
    if not shared:
        return "\n".join(out)
    tail = []
    if len(machines) == 1:
        tail.append(f"Machine (every run above): {machines.pop()}.")
    if len(libraries) == 1:
        tail.append(f"Python libraries (every run above): {libraries.pop()}.")
    return "\n".join(out) + ("\n\n" + "\n\n".join(tail) if tail else "")


def family_table(runs: RunSet, prefix: str, baseline: str,
                 engines: Iterable[str] | None = None, exclusions: str | None = None,
                 leave_out: Iterable[str] = ()) -> tuple[pd.DataFrame | None, str]:
    """The SQPyte-layout table of one benchmark family, from valid cells only.

    Cells whose status is not ok (a wrong answer, a failure, not applicable) are kept out of the
    table, and the Markdown says which and why, so a wrong answer can never slip into a ratio.
    Returns (table or None, Markdown with caption and the exclusion sentence). The cells'
    bootstrap replicates are the ones the summary used (`runs` keeps them). `engines`, when given,
    keeps only those engines' cells and the baseline's. `exclusions`, when given, stands in for the
    exclusion sentence (a subset's table points to where its family's full table lists them once).
    `leave_out`: benchmarks kept out of the table and its means (a comparison that cannot be like for like on
    them, said where the table is used).
    """
    import pandas as pd

    from harness.analysis import tables

    summary = runs.summary
    ok = summary[summary["benchmark"].str.startswith(prefix) & (summary["status"] == "ok")]
    keys = {k for k in ok[CELL_KEYS].itertuples(index=False, name=None) if k[0] not in set(leave_out)}
    if engines is not None:
        from harness.analysis import stats

        wanted = set(engines)
        keys = {k for k in keys if k[2] in wanted or stats.is_baseline(k[2], k[3], baseline)}
    measured = pd.DataFrame([k for k in runs.samples if k in keys], columns=CELL_KEYS)  # cells with timings
    cut = censored_cells(summary, prefix, engines)
    excluded = (excluded_cells(summary, prefix, shown_censored=bool(cut)) if exclusions is None
                else exclusions)
    if not tables.has_baseline(measured, baseline):
        return None, f"_no valid {prefix}* cells with the baseline {baseline} in these runs_\n\n{excluded}"
    table = tables.select_columns(runs.ratio_rows(keys, baseline))
    table, common_note = geomeans_over_common(runs, keys, baseline, table)
    shown = sorted({(e, str(rt)) for e, rt in zip(table["engine"], table["runtime"])}) if len(table) else []
    # the summary names a runtime by its family (jvm), the table by its version (jvm-17.0.15)
    cut = {(b, p, e, rt): t for (b, p, e, fam), t in cut.items() for e2, rt in shown
           if e2 == e and str(rt).startswith(str(fam))}
    return table, tables.to_markdown(table, baseline, cut) + spread_note(runs) + common_note + "\n" + excluded


def spread_note(runs: RunSet) -> str:
    """The sentence under a table of one run's means and their ratios when the ratios carry the run-to-run spread
    (`runspread.Widened`); "" for one run's intervals."""
    if not getattr(type(runs), "spread", ""):
        return ""
    if getattr(runs, "widens_means", lambda: False)():  # the means widened too (`runspread.Widened`)
        return ("\nThe intervals add the run-to-run spread its replicate measured (Section 2.5): a ratio's to the × "
                "rows, a cell mean's to the means.\n")
    return ("\nThe × rows' intervals add the run-to-run spread its replicate measured (Section 2.5); the means' "
            "are one run's.\n")


def geomeans_over_common(runs: RunSet, keys: set[tuple], baseline: str, table: pd.DataFrame
                         ) -> tuple[pd.DataFrame, str]:
    """The table with every geometric-mean row taken over the (benchmark, params) that every engine
    and runtime of the table has timings for, so the means in one row can be set beside each other,
    and a sentence naming what was left out ("" when every engine ran everything)."""
    import pandas as pd

    from harness.analysis import tables

    timed = [k for k in keys if k in runs.samples]
    sides = {(k[2], k[3]) for k in timed}
    who: dict[tuple[str, str], set] = {}
    for k in timed:
        who.setdefault((k[0], k[1]), set()).add((k[2], k[3]))
    common = {bp for bp, s in who.items() if s == sides}
    if not common or len(common) == len(who):
        return table, ""
    sub = tables.select_columns(runs.ratio_rows({k for k in timed if (k[0], k[1]) in common}, baseline))
    out = pd.concat([table[table["benchmark"] != "geomean"], sub[sub["benchmark"] == "geomean"]], ignore_index=True)
    left = sorted({b.split(".", 1)[-1] for b, _ in who} - {b.split(".", 1)[-1] for b, _ in common})
    return out, (f"\nEvery geometric mean of this table is over the {len(common)} cells that every engine and runtime "
                 f"in it has timings for" + (f" (left out: {', '.join(left)})" if left else "") + ".\n")


#: a raw row's process: its run, its cell and its process number
PROCESS_KEYS = ["run_id", "benchmark", "params", "engine", "runtime", "process"]


def iterations_per_process(raw: pd.DataFrame) -> pd.Series:
    """How many iterations each process of `raw` (a RunSet's raw rows, as the caller chose them) timed,
    indexed by PROCESS_KEYS: short series keep their warm-up (`warmup.MIN_SERIES`)."""
    return raw.groupby(PROCESS_KEYS).size()


TIMEOUT_S = re.compile(r"(\d+(?:\.\d+)?) s timeout")


def censored_cells(summary: pd.DataFrame, prefix: str, engines: Iterable[str] | None = None) -> dict:
    """The family's timed-out cells (status timeout) -> the timeout in seconds their reason names (nan
    when it names none): censored observations, shown as ">timeout" and never as a number."""
    df = summary[summary["benchmark"].str.startswith(prefix) & (summary["status"] == "timeout")]
    if engines is not None:
        df = df[df["engine"].isin(set(engines))]
    out = {}
    for r in df.itertuples(index=False):
        m = TIMEOUT_S.search(str(getattr(r, "reason", "")))
        out[(r.benchmark, r.params, r.engine, r.runtime)] = float(m.group(1)) if m else math.nan
    return out


def figure_link(alt: str, figure: Path, paper_path: Path | str) -> str:
    """A Markdown image whose path is relative to the paper's folder."""
    rel = os.path.relpath(figure, Path(paper_path).resolve().parent)
    return f"![{alt}]({rel})"


@dataclass
class StudyResult:
    """What a study computed from its runs: tables to show, figures it drew, and the paper blocks
    it owns (`blocks(paper_path)`: block name -> Markdown; figure links relative to the paper)."""

    tables: dict[str, Any] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)
    figures: dict[str, Path | None] = field(default_factory=dict)
    make_blocks: Callable[[Path], dict[str, str]] | None = None

    def blocks(self, paper_path: Path | str) -> dict[str, str]:
        return self.make_blocks(Path(paper_path)) if self.make_blocks else {}

    def write_paper(self, paper_path: Path | str | None) -> list[str]:
        """Replace this study's blocks in the paper; returns the names of blocks that changed."""
        from harness import paper

        if not paper_path:
            return []
        return [name for name, body in self.blocks(paper_path).items()
                if paper.update_section(paper_path, name, body)]


def excluded_cells(summary: pd.DataFrame, prefix: str, shown_censored: bool = False) -> str:
    """A sentence naming the cells kept out of a table and why (invalid answers, failures); with
    `shown_censored`, timed-out cells are not listed (the table shows them as censored)."""
    df = summary[summary["benchmark"].str.startswith(prefix) & (summary["status"] != "ok")]
    if shown_censored:
        df = df[df["status"] != "timeout"]
    skipped = df[df["status"] == "skipped"]
    df = df[df["status"] != "skipped"]
    # one line per (benchmark, engine, status, reason): the same exclusion on several runtimes or
    # parameter settings is said once, with how many cells it covers and on which runtimes
    lines = []
    if not df.empty:
        reasons = df["reason"].astype(str).map(lambda x: shorten(x.replace("not applicable: ", ""), 160))
        for (bench, engine, status, reason), g in df.assign(_r=reasons).groupby(
                ["benchmark", "engine", "status", "_r"], sort=False):
            rts = sorted({str(x) for x in g["runtime"]}) if "runtime" in g else []
            many = f"; {len(g)} cells" + (f", on {', '.join(rts)}" if len(rts) > 1 else "") if len(g) > 1 else ""
            lines.append(f"- {bench} on {engine} ({status}: {reason}{many})")
    text = "No cell was excluded." if df.empty else "Excluded from the table:\n\n" + "\n".join(lines)
    if len(skipped):
        reasons = sorted(set(skipped["reason"].astype(str)))
        text += ("\n\n" if len(df) else " ") + f"{len(skipped)} cells were skipped ({shorten('; '.join(reasons), 400)})."
    return text


def left_out_sentence(summary: pd.DataFrame, prefix: str) -> str:
    """The cells a run left out to fit its budget (`run --leave-out`), named, or "" when none was."""
    from harness.protocol import LEFT_OUT

    df = summary[summary["benchmark"].str.startswith(prefix) & (summary["status"] == "skipped")]
    df = df[df["reason"].astype(str).str.startswith(LEFT_OUT)]
    if "params" in df:
        df = df[~df["params"].astype(str).str.contains("aa=twin")]
    if df.empty:
        return ""
    from harness.studies import findings

    pairs = sorted({(str(b), str(e)) for b, e in zip(df["benchmark"], df["engine"])})
    names = "; ".join(f"{b} on {findings.plain_name(e)}" for b, e in pairs)
    return (f"Left out of this run to fit its time budget, by the campaign's `--leave-out`, and so not in its "
            f"tables: {names} ({len(df)} cells).")


def shorten(text: str, limit: int) -> str:
    """`text` cut at a word boundary before `limit` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:(")
    return cut + " …"

