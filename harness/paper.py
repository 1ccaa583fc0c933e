"""`paper.md` is written by code: notebooks replace the text between marker comments.

A generated block looks like
    <!-- BEGIN generated:e1-table -->
    ...
    <!-- END generated:e1-table -->
Everything outside the markers is prose people write; everything inside is computed from raw
timings. Replacing a block with the same content leaves the file byte-for-byte unchanged.
"""
from __future__ import annotations

import re
from pathlib import Path

from harness.errors import UserError
from harness.fsutil import try_locked, write_bytes_atomic


def _pattern(name: str) -> re.Pattern[str]:
    n = re.escape(name)
    return re.compile(rf"(<!-- BEGIN generated:{n} -->\n)(.*?)(<!-- END generated:{n} -->)", re.S)


def sections(path: Path | str) -> list[str]:
    """Names of the generated blocks in a paper."""
    return re.findall(r"<!-- BEGIN generated:([\w.-]+) -->", Path(path).read_text())


def update_section(path: Path | str, name: str, content: str) -> bool:
    """Replace block `name` in the paper with `content`; returns whether the file changed.

    Notebooks run at once (`notebooks --jobs`) update the same paper: the read-modify-write
    holds a lock on the paper's folder, so no notebook's block is lost to another's write."""
    path = Path(path)
    pattern = _pattern(name)
    body = content.rstrip("\n") + "\n"
    with try_locked(path.parent.resolve(), wait=True):
        text = path.read_text()
        if not pattern.search(text):
            raise UserError(f"{path}: no generated block named {name!r} (have: {', '.join(sections(path))})")
        new = pattern.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)
        if new == text:
            return False
        write_bytes_atomic(path, new.encode())
    return True
