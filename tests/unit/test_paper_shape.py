"""The committed paper reads as a paper: no paragraph over 1,200 characters, main-text tables of at
most 7 columns, a main text of about 8,000 words, every figure captioned, each study in the
abstract. Checked on paper.md as `make paper` left it (its generated blocks included)."""
from __future__ import annotations

import re

from harness.fsutil import PROJECT_ROOT

PAPER = PROJECT_ROOT / "paper.md"
MAX_PARAGRAPH = 1200
MAX_COLUMNS = 7
MAX_MAIN_WORDS = 8400


def _blocks(text: str) -> list[str]:
    text = re.sub(r"<!-- (BEGIN|END) generated:[\w-]+ -->", "", text)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]


def _is_table(block: str) -> bool:
    return block.lstrip().startswith("|")


def _is_list(block: str) -> bool:
    return bool(re.match(r"\s*([-*]|\d+\.)\s", block))


def main_text(text: str) -> str:
    """Everything before the references (the appendices and the reference list are not main text)."""
    return text.split("\n## References", 1)[0]


def test_no_paragraph_is_longer_than_1200_characters():
    long = [b[:80] for b in _blocks(PAPER.read_text()) if not _is_table(b) and not _is_list(b)
            and not b.startswith("#") and len(b) > MAX_PARAGRAPH]
    assert not long, f"{len(long)} paragraphs over {MAX_PARAGRAPH} characters: {long[:5]}"


def test_list_items_are_short_too():
    items = [line for b in _blocks(PAPER.read_text()) if _is_list(b) for line in re.split(r"\n(?=\s*(?:[-*]|\d+\.)\s)", b)]
    assert all(len(i) <= MAX_PARAGRAPH for i in items), [i[:80] for i in items if len(i) > MAX_PARAGRAPH]


def test_main_text_tables_have_at_most_seven_columns():
    wide = []
    for b in _blocks(main_text(PAPER.read_text())):
        if _is_table(b):
            header = b.splitlines()[0]
            cols = header.strip().strip("|").count("|") + 1
            if cols > MAX_COLUMNS:
                wide.append((cols, header[:100]))
    assert not wide, wide


def test_the_main_text_is_about_eight_thousand_words():
    words = sum(len(b.split()) for b in _blocks(main_text(PAPER.read_text())) if not _is_table(b))
    assert 3000 < words <= MAX_MAIN_WORDS, words


def test_every_figure_has_a_caption_and_every_study_is_in_the_abstract():
    text = PAPER.read_text()
    for alt in re.findall(r"!\[([^\]]*)\]\(", text):
        assert len(alt) > 20, alt
    abstract = text.split("## Abstract", 1)[1].split("\n## ", 1)[0]
    for study in ("E1", "E2", "E3", "E4", "E5", "E6", "E7"):
        assert study in abstract, study
    words = len(re.sub(r"<!--.*?-->", " ", abstract, flags=re.S).split())
    assert words <= 250, f"the abstract has {words} words (at most 250; the details go to Section 1.1)"


def test_no_table_row_or_paragraph_of_data_is_printed_twice():
    """The review found the appendix repeating itself (the E1 table twice in B.1, H2's columns again in
    B.4): a row of numbers or a paragraph appears once; the remedy is a pointer to where it is."""
    text = PAPER.read_text()
    rows = [line for line in text.splitlines()
            if line.startswith("|") and not set(line) <= set("|-: ") and re.search(r"\d", line)]
    twice = sorted({r[:100] for r in rows if rows.count(r) > 1 and not r.startswith("| × |")})
    assert not twice, twice
    paras = [b for b in _blocks(text) if not _is_table(b) and not b.startswith("<!--") and len(b) > 200]
    assert not sorted({p[:100] for p in paras if paras.count(p) > 1})


def test_the_between_run_caveat_is_said_once_with_at_most_one_pointer():
    """That the intervals leave out the spread between runs is said in the methods (Section 2.5) and
    recalled once (under the verdicts), not repeated under every table that sets ours beside a seed's."""
    text = PAPER.read_text()
    pointers = text.count("which its intervals leave out")
    assert pointers <= 1, f"{pointers} tables repeat the between-run caveat"
    assert "not the difference between runs" in text.split("### 2.6", 1)[0]
