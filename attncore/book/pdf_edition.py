"""The book as one PDF, numbered like the site, and linked from the site's first page.

A Sphinx extension. With the LaTeX builder (``attncore build --pdf``, :mod:`attncore.book.pdf`):
on the site the first page is unnumbered and the chapters are
numbered from 1; in LaTeX every section of the first page would become a numbered chapter and
push the chapters' numbers (and with them every figure's, table's and equation's) down. So the
first page goes in the front matter, where chapters are not numbered and its figures and
tables are numbered 1, 2, ... as on the site, and the chapters begin the main matter. A boxed
note (an admonition) that a page refers to by name gets a LaTeX label, which Sphinx's LaTeX
writer does not give it, so the reference resolves.

With the HTML builder, when the build makes the PDF edition too (the environment variable
:data:`PDF_VARIABLE` names its file), the first page says so, with a link, at its top.
"""

from __future__ import annotations

import os
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

__all__ = ["FRONT_MATTER", "MAIN_MATTER", "PDF_NAME", "PDF_VARIABLE", "setup"]

PDF_NAME = "attncore.pdf"
"""The PDF edition's file, at the top of the built site."""

PDF_VARIABLE = "ATTNCORE_PDF_EDITION"
"""The environment variable that, naming the PDF's file, makes the pages link it."""

FRONT_MATTER = "\\frontmatter\\renewcommand{\\thefigure}{\\arabic{figure}}" + (
    "\\renewcommand{\\thetable}{\\arabic{table}}"
)
"""What opens the first page in LaTeX: unnumbered chapters, figures and tables numbered 1,
2, ... (the site's numbers on its first page)."""

MAIN_MATTER = "\\mainmatter\\setcounter{figure}{0}\\setcounter{table}{0}" + (
    "\\renewcommand{\\thefigure}{\\thechapter.\\arabic{figure}}"
    "\\renewcommand{\\thetable}{\\thechapter.\\arabic{table}}"
)
"""What opens the first chapter in LaTeX: chapters numbered from 1, figures and tables
numbered within them."""


def _latex(text: str) -> nodes.raw:
    return nodes.raw("", text + "\n", format="latex")


def _arrange(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Front matter and labels in the book LaTeX assembles (the first page's doctree with every
    chapter inlined)."""
    if app.builder.format != "latex" or docname != app.config.root_doc:
        return
    for admonition in list(doctree.findall(nodes.Admonition)):
        if admonition["ids"]:
            target = nodes.target("", "", ids=admonition["ids"])
            admonition["ids"] = []
            admonition.parent.insert(admonition.parent.index(admonition), target)
    chapters = [
        node
        for node in doctree.findall(addnodes.start_of_file)
        if node["docname"] != app.config.root_doc
    ]
    if not chapters:
        return
    first = chapters[0]
    first.parent.insert(first.parent.index(first), _latex(MAIN_MATTER))
    title = next(doctree.findall(nodes.section))
    title.insert(1, _latex(FRONT_MATTER))


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
