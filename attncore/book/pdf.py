"""The PDF edition: the chapters a build executed, typeset with Jupyter Book's LaTeX builder
and XeLaTeX, offline, and checked against the site built from the same chapters.

``attncore build --pdf`` (``make pdf``) calls :func:`typeset` before it builds the pages, with
:mod:`attncore.book.pdf_edition`, which numbers the chapters, figures, tables and equations as
the site does and links the PDF from the first page; then :func:`pdf_problems` reads the PDF's
text and fonts (poppler's ``pdftotext`` and ``pdffonts``) and LaTeX's numbers for its labels
against the built pages and lists what is wrong: a chapter of the site missing, a figure, table
or equation numbered otherwise than on the site (or missing), what LaTeX's log reports
(:func:`log_problems`), a font not embedded. The PDF is published with the
pages, as ``_build/html/attncore.pdf``, only when nothing is wrong.

>>> chapter_titles('<li class="toctree-l1"><a href="a.html">1. Softmax saturation</a></li>')
[('1', 'Softmax saturation')]
>>> numbered_items('<figure id="fig-a"><span class="caption-number">Fig. 2.1 </span>', "x")
{'x:fig-a': 'Fig. 2.1'}
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

from attncore.book.paths import GENERATED
from attncore.book.pdf_edition import PDF_NAME, PDF_VARIABLE
from attncore.checks import ParameterError

__all__ = [
    "FONT",
    "TOOLS",
    "PdfFailed",
    "chapter_titles",
    "check_tools",
    "latex_numbers",
    "log_problems",
    "missing_tools",
    "numbered_items",
    "pdf_problems",
    "typeset",
    "with_pdf_link",
]

TOOLS = ("xelatex", "latexmk", "make", "pdftotext", "pdffonts", "fc-list")
"""The programs the PDF edition needs (``make pdf`` installs Debian's packages of them)."""

FONT = "FreeSerif"
"""The font family Sphinx's XeLaTeX setup typesets with (Debian's fonts-freefont-otf)."""


class PdfFailed(RuntimeError):
    """LaTeX failed, or the PDF it made does not match the site."""


def missing_tools() -> list[str]:
    """The programs of :data:`TOOLS`, and the font :data:`FONT`, that this machine lacks.

    >>> isinstance(missing_tools(), list)
    True
    """
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if "fc-list" not in missing:
        fonts = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True)
        if FONT not in fonts.stdout:
            missing.append(f"the {FONT} font")
    return missing


def check_tools() -> None:
    """Raise ParameterError, naming them, when :func:`missing_tools` finds any."""
    if missing := missing_tools():
        raise ParameterError(
            f"the PDF edition needs {', '.join(missing)} (make pdf installs them: TeX Live's "
            "XeTeX, latexmk, fontconfig, FreeFont and poppler-utils from Debian)"
        )


def typeset(root: Path, scratch: Path) -> tuple[Path, dict[str, str], str]:
    """Typeset the executed chapters of ``root`` (``book/generated``) as one PDF in the folder
    ``scratch``; return its path, the numbers LaTeX gave its labels (:func:`latex_numbers`)
    and LaTeX's log. Raises PdfFailed with LaTeX's first errors."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book), "build", str(root), "--builder", "pdflatex"]
    print("[latex] jupyter-book build --builder pdflatex", flush=True)
    done = subprocess.run(
        [*command, "--path-output", str(scratch)], capture_output=True, text=True, check=False
    )
    built = scratch / "_build" / "latex" / "book.pdf"
    if done.returncode != 0 or not built.is_file():
        errors = [line for line in done.stdout.splitlines() if line.startswith("!")]
        tail = errors[:5] or (done.stdout + done.stderr).splitlines()[-15:]
        raise PdfFailed("LaTeX failed:\n" + "\n".join(tail))
    aux = built.with_suffix(".aux").read_text(encoding="utf-8", errors="replace")
    log = built.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    return built, latex_numbers(aux), log


def with_pdf_link(environment: dict[str, str]) -> dict[str, str]:
    """``environment`` with the setting that makes the page build link the PDF edition."""
    return {**environment, PDF_VARIABLE: PDF_NAME}


def chapter_titles(page: str) -> list[tuple[str, str]]:
    """The numbered chapters of the site's table of contents on ``page`` (HTML), as
    ``(number, title)``."""
    found = re.findall(r'class="toctree-l1[^"]*"><a [^>]*>(\d+)\. ([^<]+)</a>', page)
    return [(number, html.unescape(title).strip()) for number, title in found]


def numbered_items(page: str, document: str = "") -> dict[str, str]:
    """The numbered figures, tables and equations of ``page`` (HTML), by LaTeX's label for
    them (``document:id``, the page's document name first): ``Fig. 2.1``, ``Table 3``,
    ``(4.2)``."""
    opened = [
        (m.start(), m.group(1))
        for m in re.finditer(r'<(?:figure|table)\b[^>]*\bid="([^"]+)"', page)
    ]
    items = {}
    for caption in re.finditer(r'class="caption-number">\s*((?:Fig\.|Table) [\d.]+?)\.?\s*<', page):
        before = [name for start, name in opened if start < caption.start()]
        if before:
            items[f"{document}:{before[-1]}"] = caption.group(1)
    for equation in re.finditer(
        r'id="equation-([^"]+)">\s*<span class="eqno">\((\d+(?:\.\d+)*)\)', page
    ):
        items[f"{document}:equation-{equation.group(1)}"] = f"({equation.group(2)})"
    return items


def latex_numbers(aux: str) -> dict[str, str]:
    """The numbers LaTeX gave each label, from its ``.aux`` file's text, by the labels of
    :func:`numbered_items` (an equation's ``equation:document:id`` as ``document:equation-id``).

    >>> latex_numbers(r"\\newlabel{a/b:fig-x}{{4.4}{44}{cap}{figure.4.4}{}}")
    {'a/b:fig-x': '4.4'}
    """
    numbers = {}
    for label, number in re.findall(r"\\newlabel\{([^{}]+)\}\{\{([^{}]*)\}", aux):
        if label.startswith("equation:"):
            document, _, name = label.removeprefix("equation:").rpartition(":")
            label = f"{document}:equation-{name}"
        numbers[label] = number
    return numbers


def log_problems(log: str) -> list[str]:
    """What LaTeX's ``log`` says went wrong on paper: a reference or citation left unresolved,
    a character the fonts lack, text past the bottom of a page, or past the page's side
    margin (:data:`OFF_THE_PAGE`).

    >>> log_problems("Overfull \\\\hbox (80.1pt too wide) in paragraph at lines 3--4")
    ['a line runs 80 pt past the text, off the paper (lines 3--4 of the LaTeX)']
    """
    problems = []
    for kind, name in re.findall(r"LaTeX Warning: (Reference|Citation) `([^']*)' on page", log):
        problems.append(f"{kind.lower()} {name} is unresolved")
    for character in sorted(set(re.findall(r"Missing character: There is no (\S+)", log))):
        problems.append(f"the fonts have no {character}")
    if "Overfull \\vbox" in log or "Float too large for page" in log:
        problems.append("text runs past the bottom of a page")
    for width, rest in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)([^\n]*)", log):
        if float(width) > OFF_THE_PAGE:
            lines = re.search(r"lines (\d+--\d+)", rest)
            where = f" (lines {lines.group(1)} of the LaTeX)" if lines else ""
            problems.append(
                f"a line runs {float(width):.0f} pt past the text, off the paper{where}"
            )
    return problems


OFF_THE_PAGE = 50.0
"""Points by which a line may run past the text block before it leaves the paper (the page's
side margin is 0.7 in, 50 pt, wide); less only narrows the margin."""


def pdf_problems(pdf: Path, site: Path, numbers: dict[str, str], log: str = "") -> list[str]:
    """What the PDF ``pdf``, whose LaTeX numbered its labels as ``numbers``
    (:func:`latex_numbers`) and wrote ``log``, lacks against the built site ``site``, one line
    each (none: it matches)."""
    text = _run("pdftotext", str(pdf), "-")
    flat = _letters(text)
    problems = log_problems(log)
    index = (site / "index.html").read_text(encoding="utf-8", errors="replace")
    root_page = re.search(r'url=([^"]+\.html)', index)
    first = site / (root_page.group(1) if root_page else "index.html")
    chapters = chapter_titles(first.read_text(encoding="utf-8", errors="replace"))
    if not chapters:
        problems.append("the site's first page lists no numbered chapter")
    for number, title in chapters:
        if _letters(f"{number} {title}") not in flat:
            problems.append(f"chapter {number} ({title}) is not in the PDF")
    for page in sorted((site / GENERATED).glob("*.html")):
        document = f"{GENERATED.as_posix()}/{page.stem}"
        content = page.read_text(encoding="utf-8", errors="replace")
        items = numbered_items(content, document)
        if not items and 'class="caption-number"' in content:
            problems.append(f"{page.name}: its numbered items could not be read")
        for label, item in items.items():
            number = item.split()[-1].strip("()")
            if numbers.get(label) != number:
                found = numbers.get(label)
                where = f"numbered {found}" if found else "absent"
                problems.append(f"{item} of the site ({label}) is {where} in the PDF")
    fonts = _run("pdffonts", str(pdf)).splitlines()[2:]
    not_embedded = [line.split()[0] for line in fonts if _embedded(line) is False]
    if not_embedded:
        problems.append(f"fonts not embedded: {', '.join(not_embedded)}")
    return problems


def _embedded(line: str) -> bool | None:
    """Whether the font of a line of ``pdffonts`` is embedded (its ``emb`` column)."""
    fields = line.split()
    if len(fields) < 5:
        return None
    return fields[-5] == "yes"


def _letters(text: str) -> str:
    """``text`` with only its letters and digits, lower case (for matching titles across
    typesetting)."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _run(*command: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PdfFailed(f"{command[0]} failed: {done.stderr.strip()[:200]}")
    return done.stdout
