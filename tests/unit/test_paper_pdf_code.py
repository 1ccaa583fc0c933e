"""The PDF's inline code keeps command-line options whole: `ghc -O --make` never breaks between an
option's hyphens and its name, and `--` is drawn as one option, not `- -` (paper_pdf.unbroken_options)."""
from __future__ import annotations

from harness.studies.paper_pdf import unbroken_options


def test_options_in_inline_code_do_not_break_and_double_hyphens_close_up():
    page = unbroken_options("<figcaption>seed 002's <code>ghc -O --make</code> build</figcaption>")
    assert '<span class="opt">-O</span>' in page
    assert '<span class="opt"><span class="dd">-</span>-make</span>' in page
    # the text a reader copies is unchanged: only spans are added
    import re

    assert re.sub(r"<[^>]*>", "", page) == "seed 002's ghc -O --make build"


def test_hyphens_inside_words_and_code_blocks_are_left_alone():
    assert unbroken_options("<code>e5_app_haskell-o0 2010-11</code>") == "<code>e5_app_haskell-o0 2010-11</code>"
    block = "<pre><code>go test -bench . --x</code></pre>"
    assert unbroken_options(block) == block
