"""The paper as a PDF: pandoc + headless Chromium render a page with a figure and a table, whose first
page, rendered to PNG, is not blank; a missing tool is a clear error."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import require

from harness.studies import paper_pdf
from harness.errors import UserError


def _tools() -> None:
    for program, package in (("pandoc", "pandoc"), ("chromium", "chromium"), ("pdftoppm", "poppler-utils")):
        if not shutil.which(program):
            require("CROSSINGS_REQUIRE_BROWSER", f"{program} not installed (Debian: apt-get install {package})")


def test_a_paper_with_a_figure_and_a_table_renders_to_pdf_pages(tmp_path):
    _tools()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([1, 2, 3], [3, 1, 2])
    fig.savefig(tmp_path / "fig.png")
    paper = tmp_path / "paper.md"
    paper.write_text("# A title\n\n## Section\n\nSome text.\n\n![A caption that says what to see](fig.png)\n\n"
                     "| a | b |\n|---|---|\n| 1 | 2 |\n\nTable: a caption.\n")
    out = paper_pdf.pdf(paper, tmp_path / "paper.pdf")
    assert out.read_bytes().startswith(b"%PDF") and paper_pdf.pages(out) >= 1
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", str(out), str(tmp_path / "page")], check=True)
    png = next(tmp_path.glob("page*.png"))
    import numpy as np
    from PIL import Image

    grey = np.asarray(Image.open(png).convert("L"), dtype=float)
    assert (grey < 200).mean() > 0.005  # text and a figure, not a blank page


def test_a_missing_paper_is_a_clear_error(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        paper_pdf.pdf(tmp_path / "nope.md", tmp_path / "x.pdf")
    assert not (tmp_path / "x.pdf").exists()


def test_table_cells_break_identifiers_at_their_dots_not_mid_word():
    from harness.studies.paper_pdf import breakable_cells

    page = ('<p>bindings.point_query</p><table><tr><th>bench.mark</th></tr><tr><td class="x">'
            'bindings.point_query [n=10000,queries=1000] <code>a/b</code></td></tr></table>'
            '<img src="data:image/png;base64,AB.CD"/>')
    out = breakable_cells(page)
    assert "<td class=\"x\">bindings.<wbr>point_<wbr>query [n=<wbr>10000,<wbr>queries=<wbr>1000]" in out
    assert "<code>a/<wbr>b</code>" in out and "<th>bench.<wbr>mark</th>" in out
    assert out.startswith("<p>bindings.point_query</p>")  # prose is left alone
    assert 'base64,AB.CD"' in out  # attributes and figures are never touched


def test_an_interval_in_a_table_cell_never_wraps_and_numbers_never_break():
    from harness.studies.paper_pdf import breakable_cells

    page = ('<p>4.224 [3.899, 4.576]</p><table><tr><td>4.224 [3.899, 4.576] ms; '
            '12,314.3 [11,419.7, 13,279.0] rows/s at n=10000,queries=1000</td></tr></table>')
    out = breakable_cells(page)
    assert '<span class="iv">[3.899,&#160;4.576]</span>' in out
    assert '<span class="iv">[11,419.7,&#160;13,279.0]</span>' in out
    assert "4.224 " in out and "12,314.3 " in out  # no break inside a number
    assert "n=<wbr>10000,<wbr>queries=<wbr>1000" in out  # identifiers still break
    assert out.startswith("<p>4.224 [3.899, 4.576]</p>")  # prose is left alone
    assert ".iv { white-space: nowrap; }" in __import__("harness.studies.paper_pdf", fromlist=["CSS"]).CSS
