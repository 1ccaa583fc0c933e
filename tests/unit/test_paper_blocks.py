"""paper.md's generated blocks: replaced in place, and never lost when notebooks write at once."""
from __future__ import annotations

import multiprocessing

import pytest

from harness import paper
from harness.errors import UserError

BLOCKS = [f"b{i}" for i in range(4)]


def _paper(tmp_path):
    text = "# A paper\n\n" + "".join(f"prose {n}\n<!-- BEGIN generated:{n} -->\nold\n<!-- END generated:{n} -->\n\n"
                                     for n in BLOCKS)
    path = tmp_path / "paper.md"
    path.write_text(text)
    return path


def test_a_block_is_replaced_and_the_same_content_changes_nothing(tmp_path):
    path = _paper(tmp_path)
    assert paper.update_section(path, "b1", "new\n")
    text = path.read_text()
    assert "<!-- BEGIN generated:b1 -->\nnew\n<!-- END generated:b1 -->" in text
    assert text.count("\nold\n") == 3
    assert not paper.update_section(path, "b1", "new")
    with pytest.raises(UserError, match="no generated block named 'nope'"):
        paper.update_section(path, "nope", "x")


def _hammer(path: str, name: str, rounds: int) -> None:
    for i in range(rounds):
        paper.update_section(path, name, f"{name} round {i}")


def test_concurrent_writers_lose_no_block(tmp_path):
    # four processes rewrite their own block 40 times each, as notebooks run with --jobs do;
    # without the lock a read-modify-write overwrites another's block with its old text
    path = _paper(tmp_path)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_hammer, args=(str(path), n, 40)) for n in BLOCKS]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    text = path.read_text()
    for n in BLOCKS:
        assert f"<!-- BEGIN generated:{n} -->\n{n} round 39\n<!-- END generated:{n} -->" in text
