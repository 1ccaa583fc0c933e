"""A run's own report (`harness notebooks RUN` -> `RUN/report/paper.md`): the paper's layout,
with only what this run measured.

The project's paper.md is the template: its prose and its generated blocks. Every block is
emptied before the notebooks run (`blank`), so a block nobody wrote for this run stays empty
and can never show the committed data; after them `finish` drops the empty and placeholder
blocks, every section left without a block (a study the run did not measure, and the prose that
discusses the reference runs' results), writes a header and an abstract that say what the run
measured, and drops any image link whose file does not exist.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness import paper
from harness.fsutil import write_bytes_atomic

BLOCK = re.compile(r"<!-- BEGIN generated:([\w.-]+) -->\n(.*?)<!-- END generated:\1 -->\n?", re.S)
HEADING = re.compile(r"^(#{1,6}) (.*)$")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
#: top-level sections without blocks that still describe a run's report: how it was measured
PROSE_KEPT = ("Method",)


def blank(path: Path) -> None:
    """Empty every generated block of the paper at `path` (markers kept)."""
    def empty(m: re.Match[str]) -> str:
        name = m.group(1)
        newline = "\n" if m.group(0).endswith("\n") else ""
        return f"<!-- BEGIN generated:{name} -->\n<!-- END generated:{name} -->{newline}"

    write_bytes_atomic(path, BLOCK.sub(empty, path.read_text()).encode())


def placeholder(body: str) -> bool:
    """True for a block that says it has nothing: empty, or opening with an italic `_No ..._` line."""
    first = body.strip().split("\n\n", 1)[0].strip()
    return not first or bool(re.fullmatch(r"_(no|No) [^\n]*_", first))


@dataclass
class Section:
    level: int
    lines: list[str]
    blocks: int = 0  # generated blocks it had
    kept: int = 0  # of them, those with content
    children: list["Section"] = field(default_factory=list)

    @property
    def title(self) -> str:
        m = HEADING.match(self.lines[0]) if self.lines else None
        return m.group(2) if m else ""

    def any_kept(self) -> bool:
        return self.kept > 0 or any(c.any_kept() for c in self.children)


def _mark_blocks(text: str) -> str:
    """The text with each empty or placeholder block replaced by a line saying it was dropped, and
    each other block prefixed by one saying it was kept (`_parse` counts them per section)."""
    return BLOCK.sub(lambda m: "\x00dropped\n" if placeholder(m.group(2)) else "\x00kept\n" + m.group(0), text)


def _parse(text: str) -> Section:
    root = Section(0, [])
    stack = [root]
    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else HEADING.match(line)
        if m:
            level = len(m.group(1))
            while stack[-1].level >= level:
                stack.pop()
            section = Section(level, [line])
            stack[-1].children.append(section)
            stack.append(section)
            continue
        if line == "\x00dropped":
            stack[-1].blocks += 1
            _drop_lead_in(stack[-1].lines)
            continue
        if line == "\x00kept":
            stack[-1].blocks += 1
            stack[-1].kept += 1
            continue
        stack[-1].lines.append(line)
    return root


def _has_blocks(section: Section) -> bool:
    return section.blocks > 0 or any(_has_blocks(c) for c in section.children)


def _drop_lead_in(lines: list[str]) -> None:
    """Remove the paragraph that introduces a dropped block (the paper's prose ends such a
    paragraph with a colon), so no sentence is left announcing a table that is not there."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    if not end or not lines[end - 1].rstrip().endswith(":"):
        return
    start = end
    while start and lines[start - 1].strip() and not HEADING.match(lines[start - 1]):
        start -= 1
    del lines[start:]


def _keep(section: Section, parent_kept: bool) -> bool:
    """A section with blocks is kept when one of them (or of its subsections') has content; a
    top-level section of prose only when it says how runs are measured; deeper prose with its parent."""
    if _has_blocks(section):
        return section.any_kept()
    if section.level <= 2:
        return any(p in section.title for p in PROSE_KEPT)
    return parent_kept


def _render(section: Section, out: list[str], parent_kept: bool = True) -> None:
    keep = section.level == 0 or _keep(section, parent_kept)
    if not keep:
        return
    out.extend(section.lines)
    for child in section.children:
        _render(child, out, keep)


def measured(run_dirs: list[Path]) -> dict[str, dict[str, set]]:
    """Per study label: the cells the runs planned (an imported run: those of its processes), those
    of them with a process that measured (status ok), and their benchmarks, engines and runtimes."""
    from harness.analysis.runset import process_frame, run_cells, runtime_family
    from harness.protocol import canonical_params
    from harness.studies import family_studies, study

    cells = set().union(*(run_cells(Path(d)) for d in run_dirs)) if run_dirs else set()
    recs = process_frame([Path(d) for d in run_dirs]) if run_dirs else None
    ok = set()
    if recs is not None and not recs.empty:
        recs = recs[recs["status"] == "ok"]
        params = recs["params"].map(lambda p: canonical_params(p) if isinstance(p, dict) else str(p))
        fams = recs["runtime_family"] if "runtime_family" in recs else recs["runtime"].astype(str).map(runtime_family)
        ok = set(zip(recs["benchmark"], params, recs["engine"], fams))
    out: dict[str, dict[str, set]] = {}
    for name, label in family_studies().items():
        prefix = study(name).prefix
        mine = {c for c in cells if str(c[0]).startswith(prefix)}
        if mine:
            out[f"{label} ({name})"] = {"cells": mine, "measured": mine & ok, "benchmarks": {c[0] for c in mine},
                                        "engines": {c[2] for c in mine}, "runtimes": {str(c[3]) for c in mine}}
    return out


def header(run_dirs: list[Path]) -> str:
    """The title and the sentence saying where every number comes from."""
    from harness.analysis.runset import manifest_of

    ids = [str(manifest_of(d).run_id or Path(d).name) for d in run_dirs]
    where = ", ".join(f"`{d}`" for d in run_dirs)
    return (f"# crossings report: run{'s' if len(ids) > 1 else ''} {', '.join(ids)}\n\n"
            f"*Every number, table and figure between `generated` markers is computed by the study code in "
            f"`harness/studies/` from the raw timings of {where} (`python -m harness notebooks`). Only what "
            f"{'these runs' if len(ids) > 1 else 'this run'} measured is shown: the studies it did not measure "
            "are left out (the project's `paper.md` has them all, from `data/reference/`).*\n")


def abstract(run_dirs: list[Path]) -> str:
    """What the runs measured, study by study."""
    studies = measured(run_dirs)
    if not studies:
        return "These runs hold no cell of a study (see the protocol below).\n"
    lines = ["These runs measured:", ""]
    for label, what in studies.items():
        done, planned = len(what["measured"]), len(what["cells"])
        counted = f"{done} cells" + ("" if done == planned else f" measured ({planned - done} more planned: skipped, "
                                                                "not applicable or failed)")
        lines.append(f"- **{label}**: {counted}; benchmarks {', '.join(sorted(what['benchmarks']))}; "
                     f"engines {', '.join(sorted(what['engines']))}; runtimes {', '.join(sorted(what['runtimes']))}.")
    lines += ["", "Each estimate below comes with its interval; a comparison is worded \"faster\" or \"slower\" "
              "only when its interval excludes 1."]
    return "\n".join(lines) + "\n"


def write_shared(path: Path, run_dirs: list[Path]) -> None:
    """The blocks about the runs themselves (protocol, noise, reproduce; precision when no notebook
    wrote it), from their manifests and records: the E1 notebook writes them for the project's
    paper, and not every run has E1 cells. Precision needs a RunSet with the default settings, whose
    bootstrap replicates the notebooks left in the cache."""
    from harness.analysis.runset import RunSet
    from harness.studies import runfacts
    from harness.studies.common import protocol_text

    blocks = {"protocol": protocol_text(run_dirs), "noise": runfacts.noise_block_of(run_dirs),
              "reproduce": runfacts.reproduce_block(run_dirs, reference=False)}
    have = paper.sections(path)
    text = path.read_text()
    if "precision" in have and placeholder(next((m.group(2) for m in BLOCK.finditer(text)
                                                if m.group(1) == "precision"), "")):
        blocks["precision"] = runfacts.precision_block(RunSet(run_dirs))
    for name, body in blocks.items():
        if name in have:
            paper.update_section(path, name, body)


def missing_images(text: str, folder: Path) -> list[str]:
    """Image links of `text` whose file does not exist relative to `folder`."""
    return [link for link in IMAGE.findall(text)
            if not re.match(r"^[a-z]+:", link) and not (folder / link).exists()]


def finish(path: Path, run_dirs: list[Path]) -> list[str]:
    """Turn the executed copy at `path` into the run's report; returns the image links dropped
    because their file does not exist (there should be none)."""
    run_dirs = [Path(d) for d in run_dirs]
    write_shared(path, run_dirs)
    root = _parse(_mark_blocks(path.read_text()))
    out: list[str] = []
    for section in root.children:
        if section.level == 1:  # the title and the note under it: this run's
            out.append(header(run_dirs))
            for child in section.children:
                if child.title.strip().lower() == "abstract":
                    child.lines = [child.lines[0], "", abstract(run_dirs)] + [
                        line for line in _block_lines(child.lines)]
                    child.kept = max(child.kept, 1)
                _render(child, out)
        else:
            _render(section, out)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"
    dropped = missing_images(text, path.parent)
    for link in dropped:
        text = re.sub(rf"^.*!\[[^\]]*\]\({re.escape(link)}\).*\n\n?", "", text, flags=re.M)
    write_bytes_atomic(path, text.encode())
    return dropped


def _block_lines(lines: list[str]) -> list[str]:
    """The generated blocks among a section's own lines (its prose left out)."""
    out, inside = [], False
    for line in lines:
        if line.startswith("<!-- BEGIN generated:"):
            inside = True
        if inside:
            out.append(line)
        if line.startswith("<!-- END generated:"):
            inside = False
            out.append("")
    return out
