"""The book as one PDF, numbered like the site, and linked from the site's first page.

A Sphinx extension. With the LaTeX builder (``attncore build --pdf``, :mod:`attncore.book.pdf`):
on the site the first page is unnumbered and the chapters are
numbered from 1; in LaTeX every section of the first page would become a numbered chapter and
push the chapters' numbers (and with them every figure's, table's and equation's) down. So the
first page goes in the front matter, under its own title, where chapters are not numbered and
its figures and tables are numbered 1, 2, ... as on the site; the chapters begin the main
matter, and the bibliography and the execution report the back matter. Every table that can
breaks across pages (the ledger's run over several), and the site's "Data (CSV)" links, which
lead nowhere on paper, are left out; an unnumbered display wider than the line is shrunk to
fit it. A boxed
note (an admonition) that a page refers to by name gets a LaTeX label, which Sphinx's LaTeX
writer does not give it, so the reference resolves.

With the HTML builder, when the build makes the PDF edition too (the environment variable
:data:`PDF_VARIABLE` names its file), the first page says so, with a link, at its top.
"""

from __future__ import annotations

import math
import os
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import texescape

from attncore.book.paths import GENERATED

__all__ = ["BACK_MATTER", "FRONT_MATTER", "MAIN_MATTER", "PDF_NAME", "PDF_VARIABLE", "setup"]

PDF_NAME = "attncore.pdf"
"""The PDF edition's file, at the top of the built site."""

PDF_VARIABLE = "ATTNCORE_PDF_EDITION"
"""The environment variable that, naming the PDF's file, makes the pages link it."""

FRONT_MATTER = (
    "\\makeatletter\\@mainmatterfalse\\makeatother"
    "\\renewcommand{\\thefigure}{\\arabic{figure}}\\renewcommand{\\thetable}{\\arabic{table}}"
)
"""What opens the first page in LaTeX: unnumbered chapters (the book class's front matter,
without its restart of the page numbers), figures and tables numbered 1, 2, ... (the site's
numbers on its first page)."""

MAIN_MATTER = "\\clearpage\\makeatletter\\@mainmattertrue\\makeatother" + (
    "\\setcounter{figure}{0}\\setcounter{table}{0}"
    "\\renewcommand{\\thefigure}{\\thechapter.\\arabic{figure}}"
    "\\renewcommand{\\thetable}{\\thechapter.\\arabic{table}}"
)
"""What opens the first chapter in LaTeX: chapters numbered from 1, figures and tables
numbered within them (the book class's main matter, without its restart of the page
numbers, which run on from the first page)."""

BACK_MATTER = "\\backmatter"
"""What opens the pages after the chapters (the bibliography, the execution report):
unnumbered, as on the site."""


def _latex(text: str) -> nodes.raw:
    return nodes.raw("", text + "\n", format="latex")


def _arrange(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """The book LaTeX assembles (the first page's doctree with every chapter inlined), made
    for paper: labels on named boxes; tables that break across pages; wide displays fitted;
    no links to the site's downloads, which a PDF cannot follow; front, main and back
    matter."""
    if app.builder.format != "latex" or docname != app.config.root_doc:
        return
    for admonition in list(doctree.findall(nodes.Admonition)):
        if admonition["ids"]:
            target = nodes.target("", "", ids=admonition["ids"])
            admonition["ids"] = []
            admonition.parent.insert(admonition.parent.index(admonition), target)
    for table in list(doctree.findall(nodes.table)):
        if not any(isinstance(a, _BOXES) for a in _ancestors(table)):
            _breaking(table)
    for block in list(doctree.findall(nodes.math_block)):
        if not block.get("label") and not block.get("number"):
            block.replace_self(_latex(_FITTED.format(block.astext())))
    for download in list(doctree.findall(addnodes.download_reference)):
        parent = download.parent
        parent.remove(download)
        if isinstance(parent, nodes.paragraph) and not parent.astext().strip():
            parent.parent.remove(parent)
    _matters(doctree, app.config.root_doc)


def _breaking(table: nodes.table) -> None:
    """``table`` as a longtable, its columns as wide as :func:`_widths` says, at the size
    where they fit the line; an untitled one left unnumbered (LaTeX counts every longtable)."""
    table["classes"].append("longtable")
    size = _size(_widths(table))
    before = f"\\begingroup{size}" if size else ""
    after = ("" if isinstance(table.children[0], nodes.title) else _UNCOUNTED) + (
        "\\endgroup" if size else ""
    )
    if before:
        table.parent.insert(table.parent.index(table), _latex(before))
    if after:
        table.parent.insert(table.parent.index(table) + 1, _latex(after))


def _matters(doctree: nodes.document, root_doc: str) -> None:
    """The first page as front matter under its own title, the chapters as main matter, the
    pages after them as back matter."""
    files = list(doctree.findall(addnodes.start_of_file))
    chapters = [n for n in files if n["docname"].startswith(f"{GENERATED.as_posix()}/")]
    if not chapters:
        return
    chapters[0].parent.insert(chapters[0].parent.index(chapters[0]), _latex(MAIN_MATTER))
    back = [n for n in files if n not in chapters and n["docname"] != root_doc]
    if back:
        back[0].parent.insert(back[0].parent.index(back[0]), _latex(BACK_MATTER))
    title = next(doctree.findall(nodes.section))
    heading = texescape.escape(title[0].astext())
    title.insert(1, _latex(f"{FRONT_MATTER}\\chapter{{{heading}}}"))


_FITTED = (
    "\\begin{{center}}\\begin{{adjustbox}}{{max width=\\linewidth}}"
    "$\\displaystyle\\begin{{aligned}}{}\\end{{aligned}}$\\end{{adjustbox}}\\end{{center}}"
)
"""An unnumbered display (the derivations' long chains): shrunk to the line where it is wider
(adjustbox), as the site lets it scroll."""

_UNCOUNTED = "\\addtocounter{table}{-1}"
"""After an untitled table set as a longtable: the site does not number it."""

_BOXES = (nodes.Admonition, nodes.figure, nodes.sidebar, nodes.topic, nodes.table)
"""Where a table cannot become a table that breaks across pages (LaTeX's longtable)."""


def _size(needed: int) -> str:
    """The font size at which columns of ``needed`` characters in all fit the line (none for
    the text's own size)."""
    return next(size for limit, size in _SIZES if needed <= limit)


_SIZES = ((94, ""), (117, "\\footnotesize"), (math.inf, "\\scriptsize"))
"""Characters of a line of the PDF's text block at the text's size, at ``\\footnotesize``
and beyond (the smallest size then)."""


def _widths(table: nodes.table) -> int:
    """Widths for the columns of ``table`` that has none (a table broken across pages keeps
    columns only as wide as a width given): each column's share grows with its longest text,
    up to part of a line, and covers its longest word, so a long cell wraps instead of running
    off the page. Returns the characters its longest words need side by side."""
    group = next(table.findall(nodes.tgroup))
    specs = [child for child in group.children if isinstance(child, nodes.colspec)]
    lengths, words = [1] * len(specs), [0] * len(specs)
    for row in group.findall(nodes.row):
        column = 0
        for entry in row.children:
            if column < len(lengths):
                text = entry.astext()
                longest = max((len(word) for word in text.split()), default=0)
                wanted = max(min(len(text), _LINE), longest) + _PADDING
                lengths[column] = max(lengths[column], wanted)
                words[column] = max(words[column], longest + _PADDING)
            column += 1 + entry.get("morecols", 0)
    if "colwidths-given" not in table["classes"]:
        for spec, length in zip(specs, lengths, strict=True):
            spec["colwidth"] = max(length, _NARROWEST)
        table["classes"].append("colwidths-given")
    return sum(words)


_LINE, _NARROWEST, _PADDING = 40, 6, 2
"""Characters beyond which a column's text only wraps, the share of the narrowest column, and
what the space between columns takes (all in characters): a column is at least as wide as
its longest word, so no word is cut."""


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    found = []
    while node.parent is not None:
        node = node.parent
        found.append(node)
    return found


def _link_pdf(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """On the first page of a site built with its PDF edition, a line under the title that
    links the PDF."""
    pdf = os.environ.get(PDF_VARIABLE)
    if app.builder.format != "html" or docname != app.config.root_doc or not pdf:
        return
    target = "../" * docname.count("/") + pdf
    link = nodes.reference("", "one PDF", refuri=target)
    line = nodes.paragraph("", "", nodes.Text("Also as "), link, nodes.Text("."))
    line["classes"].append("attncore-pdf-edition")
    title = next(doctree.findall(nodes.section))
    title.insert(1, line)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the rearrangement of the assembled LaTeX book and the first page's link."""
    app.connect("doctree-resolved", _arrange)
    app.connect("doctree-resolved", _link_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
