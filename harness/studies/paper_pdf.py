"""paper.md as a PDF: pandoc renders it to one standalone HTML page (figures embedded and numbered,
the paper's title as the document's), headless Chromium prints that page to PDF.

Why these two: both are Debian packages the project already installs or can (`pandoc`, `chromium`),
and neither needs a TeX installation. The PDF is not byte-reproducible (Chromium stamps a creation
date), so `make paper` leaves it alone and `make paper-pdf` makes it on demand.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from harness.errors import UserError
from harness.fsutil import PROJECT_ROOT, replacing

#: the page style: a readable measure, numbered figures, tables that fit the page
CSS = """
body { font-family: "DejaVu Serif", Georgia, serif; font-size: 10.5pt; line-height: 1.4; max-width: 46em;
       margin: 0 auto; color: #111; }
h1 { font-size: 18pt; } h2 { font-size: 13.5pt; margin-top: 1.6em; } h3 { font-size: 11.5pt; }
body { counter-reset: figure table; }
figure { margin: 1em 0; text-align: center; page-break-inside: avoid; counter-increment: figure; }
img { max-width: 100%; max-height: 20cm; width: auto; height: auto; }  /* a tall figure fits one page with its caption */
figcaption { font-size: 9pt; text-align: left; }
figcaption::before { content: "Figure " counter(figure) ". "; font-weight: bold; }
table { border-collapse: collapse; font-size: 7pt; margin: 0.8em 0; width: 100%; table-layout: fixed;
        page-break-inside: auto; }
th, td { border-bottom: 0.5pt solid #bbb; padding: 2px 4px; vertical-align: top; overflow-wrap: anywhere; }
th { border-bottom: 1pt solid #333; text-align: left; }
caption { font-size: 9pt; text-align: left; caption-side: bottom; padding-top: 4px; counter-increment: table; }
caption::before { content: "Table " counter(table) ". "; font-weight: bold; }
td .iv { white-space: nowrap; }  /* an interval [low, high] never wraps inside (breakable_cells) */
code { font-size: 8.5pt; word-break: break-word; }
code .opt { white-space: nowrap; }  /* a command-line option (-O, --make) never breaks (unbroken_options) */
code .dd { letter-spacing: -0.25em; }  /* the first of "--": DejaVu Sans Mono's narrow hyphens read "- -" */
pre { font-size: 6pt; line-height: 1.25; white-space: pre-wrap; }
pre code { font-size: inherit; word-break: normal; }  /* 120-column benchstat tables fit the measure unwrapped */
@page { size: A4; margin: 18mm 16mm; }
"""


#: a generated block's BEGIN or END marker line (`paper.py`)
MARKER = re.compile(r"^<!-- (BEGIN|END) generated:[\w-]+ -->$")


#: a Markdown image of a PNG figure
PNG_IMAGE = re.compile(r"(!\[[^\n]*\]\()([^)\s]+)\.png\)")


def _vector(line: str, folder: Path) -> str:
    """The line with each PNG figure replaced by the SVG `figures.style.save` wrote beside it: the PDF
    gets vector figures (what a journal prints, and a third of the bytes of 200-dpi PNGs)."""
    return PNG_IMAGE.sub(lambda m: f"{m.group(1)}{m.group(2)}.svg)" if (folder / f"{m.group(2)}.svg").exists()
                         else m.group(0), line)


def _need(program: str, package: str) -> str:
    exe = shutil.which(program)
    if not exe:
        raise UserError(f"{program} not found: install Debian's {package} (apt-get install {package})")
    return exe


#: a table cell of pandoc's HTML (its tag, its content, its end)
CELL = re.compile(r"(<t[dh]\b[^>]*>)(.*?)(</t[dh]>)", re.S)
#: characters after which an identifier may break (bindings.point_query, n=10000,queries=1000, a/b);
#: never inside a number (4.224, 12,314.3: a digit on both sides)
BREAK_AFTER = re.compile(r"([._/=,@])(?=\w)(?!(?<=\d[.,])\d)")
#: an interval as the tables print it, `[low, high]` (bounds may carry thousands separators)
INTERVAL = re.compile(r"\[([^\[\]\s<>]+), ([^\[\]\s<>]+)\]")


def _breakable_text(text: str) -> str:
    """One run of a cell's text: <wbr> at the break points, each interval one unbreakable span."""
    out, at = [], 0
    for m in INTERVAL.finditer(text):
        out.append(BREAK_AFTER.sub(r"\1<wbr>", text[at:m.start()]))
        out.append(f'<span class="iv">[{m.group(1)},&#160;{m.group(2)}]</span>')
        at = m.end()
    out.append(BREAK_AFTER.sub(r"\1<wbr>", text[at:]))
    return "".join(out)


def breakable_cells(page: str) -> str:
    """The HTML with a soft break (<wbr>) after the dots, underscores, slashes, equals signs, commas and
    @ of every table cell's text: a narrow column then breaks `bindings.point_query` after its dot,
    not in the middle of a word (the CSS breaks anywhere only where no such point fits). An interval
    `[low, high]` is kept on one line (a no-break space after its comma, in a span that does not wrap):
    a reader sees both bounds together, never `[3.899,` on one line and `4.576]` on the next."""
    def text_only(cell: str) -> str:
        return "".join(part if part.startswith("<") else _breakable_text(part)
                       for part in re.split(r"(<[^>]*>)", cell))

    return CELL.sub(lambda m: m.group(1) + text_only(m.group(2)) + m.group(3), page)


#: a command-line option in inline code: `-O`, `--make`, `-count 4` (its flag only), not a hyphen inside a
#: word (`e5_app-x`, `2010-11`)
OPTION = re.compile(r"(?<![\w-])(-{1,2})([A-Za-z0-9][\w.=]*)")
#: an inline code span of pandoc's HTML (a code block, `<pre><code>`, is left as it is: its columns align)
INLINE_CODE = re.compile(r"(<pre\b[^>]*>.*?</pre>)|(<code\b[^>]*>)(.*?)(</code>)", re.S)


def unbroken_options(page: str) -> str:
    """The HTML with each command-line option of inline code (`ghc -O --make`) in a span that does not
    wrap, and the first hyphen of `--` drawn closer to the second: the PDF's monospace font sets each
    hyphen narrow in a full-width cell, so `--make` read as `- -make`, and a narrow line could break it
    between its hyphens and its name."""
    def option(m: re.Match[str]) -> str:
        dashes = '<span class="dd">-</span>-' if m.group(1) == "--" else "-"
        return f'<span class="opt">{dashes}{m.group(2)}</span>'

    def code(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(1)
        text = "".join(part if part.startswith("<") else OPTION.sub(option, part)
                       for part in re.split(r"(<[^>]*>)", m.group(3)))
        return m.group(2) + text + m.group(4)

    return INLINE_CODE.sub(code, page)


def html(paper: Path, out: Path) -> Path:
    """paper.md -> one standalone HTML file, figures embedded, sections numbered."""
    pandoc = _need("pandoc", "pandoc")
    with tempfile.TemporaryDirectory() as tmp:
        css = Path(tmp) / "paper.css"
        css.write_text(CSS)
        # the generated-block markers are HTML comments: on the line next to an image they make it share a
        # paragraph with them, and pandoc then draws no figure (no caption, no number); they go
        source = Path(tmp) / "paper.md"
        source.write_text("\n".join(_vector(line, paper.resolve().parent) for line in paper.read_text().splitlines()
                                     if not MARKER.match(line.strip())) + "\n")
        # the paper's own `# Title` becomes the document's title (its sections carry their numbers already)
        cmd = [pandoc, str(source), "--standalone", "--self-contained", "--shift-heading-level-by=-1",
               "--toc", "--toc-depth=2", "--css", str(css),
               "--resource-path", str(paper.resolve().parent), "-f", "markdown",
               "-t", "html5", "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=paper.resolve().parent)
    if proc.returncode != 0:
        raise UserError(f"pandoc could not render {paper}: {proc.stderr.strip()[-800:]}")
    out.write_text(unbroken_options(breakable_cells(out.read_text())))
    return out


def pdf(paper: Path, out: Path) -> Path:
    """paper.md -> PDF, written beside its name and renamed (never half a file)."""
    if not paper.is_file():
        raise UserError(f"{paper} does not exist")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise UserError("chromium not found: install Debian's chromium (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        page = html(paper, Path(tmp) / "paper.html")
        pdf_tmp = Path(tmp) / "paper.pdf"
        env = dict(os.environ, HOME=tmp)
        proc = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               f"--user-data-dir={tmp}/profile", "--no-pdf-header-footer",
                               f"--print-to-pdf={pdf_tmp}", page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=300, env=env)
        if not pdf_tmp.exists() or pdf_tmp.stat().st_size == 0:
            raise UserError(f"chromium printed no PDF: {proc.stderr.strip()[-800:]}")
        with replacing(out, sync=True) as tmp_out:
            shutil.copyfile(pdf_tmp, tmp_out)
    return out


def pages(pdf_file: Path) -> int:
    """How many pages a PDF has (its page objects), without a PDF library."""
    import re

    return len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf_file.read_bytes()))


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m harness.studies.paper_pdf", description="render paper.md to PDF")
    p.add_argument("paper", nargs="?", type=Path, default=PROJECT_ROOT / "paper.md")
    p.add_argument("-o", "--out", type=Path, default=None, help="the PDF (default: beside the paper)")
    args = p.parse_args(argv)
    out = args.out or args.paper.with_suffix(".pdf")
    try:
        pdf(args.paper, out)
    except UserError as exc:
        print(f"error: {exc}", file=__import__("sys").stderr)
        return 1
    print(f"{out}: {pages(out)} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
