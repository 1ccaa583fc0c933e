"""Text a paper needs that comes from manifests: the protocol as run, machine and versions."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pathlib import Path

from harness.store import read_manifest

if TYPE_CHECKING:
    import pandas as pd


def protocol_text(run_dirs: list[Path | str]) -> str:
    """One paragraph per run describing how it was measured, read from its manifest."""
    out = []
    for d in run_dirs:
        m = read_manifest(Path(d))
        c = m.get("configuration", {})
        cpu = m.get("machine", {}).get("cpu", {})
        libs = ", ".join(f"{k} {v}" for k, v in sorted((m.get("libraries") or {}).items()))
        engines = []
        for key, info in sorted((m.get("engines") or {}).items()):
            if info.get("available"):
                v = ", ".join(f"{k} {val}" for k, val in (info.get("versions") or {}).items())
                engines.append(f"{key} ({v})")
        commit = (m.get("project") or {}).get("commit") or "unknown"
        out.append(
            f"Run `{m['run_id']}` (profile `{c.get('profile')}`): {c.get('processes')} fresh processes x "
            f"{c.get('iterations')} timed iterations per cell, processes of all cells interleaved in a random "
            f"order (seed {c.get('seed')}), per-process timeout {c.get('timeout_s')} s. Machine: "
            f"{cpu.get('model')}, {cpu.get('cores')} cores, governor {cpu.get('governor') or 'not readable'}, "
            f"kernel {m.get('machine', {}).get('kernel')}. Engines: {'; '.join(engines) or 'none'}. "
            f"Libraries: {libs}. Project commit {commit[:12]}."
        )
    return "\n\n".join(out)


def family_table(raw: pd.DataFrame, summary: pd.DataFrame, prefix: str, baseline: str,
                 method: str = "hierarchical", resamples: int = 10000) -> tuple[pd.DataFrame | None, str]:
    """The SQPyte-layout table of one benchmark family, from valid cells only.

    Cells whose status is not ok (a wrong answer, a failure, not applicable) are kept out of the
    table, and the Markdown says which and why, so a wrong answer can never slip into a ratio.
    Returns (table or None, Markdown with caption and the exclusion sentence).
    """
    from harness import figures, tables

    family = raw[raw["benchmark"].str.startswith(prefix)]
    ok = summary[summary["benchmark"].str.startswith(prefix) & (summary["status"] == "ok")]
    keep = family.merge(ok[["benchmark", "params", "engine", "runtime"]], how="inner")
    excluded = figures.excluded_cells(summary, prefix)
    if not tables.has_baseline(keep, baseline):
        return None, f"_no valid {prefix}* cells with the baseline {baseline} in these runs_\n\n{excluded}"
    table = tables.build_table(keep, baseline, method=method, resamples=resamples)
    return table, tables.to_markdown(table, baseline) + "\n" + excluded
