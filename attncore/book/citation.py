"""How the book is cited, and what every page says about the build it came from.

A Sphinx extension. The footer of every page names the version of ``attncore``, the commit
the book was built from and that commit's date, and links the repository; the directive
``how-to-cite`` (placed on the first page) shows the same facts as a sentence and a BibTeX
entry. The title, the authors and the version come from ``CITATION.cff``; the repository's
address from the one setting ``repository.url`` of ``_config.yml`` (``CITATION.cff`` and the
README repeat it, and ``tests/test_citation.py`` checks that they agree).

>>> facts = Citation("Scaling attention logits", ["The attncore contributors"], "0.1.0",
...                  "https://github.com/x/y", Revision("0" * 40, dirty=False), "2026-11-20")
>>> print(bibtex(facts))
@misc{attncore,
  author       = {{The attncore contributors}},
  title        = {Scaling attention logits},
  year         = {2026},
  howpublished = {\\url{https://github.com/x/y}},
  note         = {Version 0.1.0, commit 000000000000 of 2026-11-20},
}
>>> sentence(facts)[:63]
'The attncore contributors (2026). Scaling attention logits, ver'
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from attncore.book.manifest import Revision, commit_date, source_revision

__all__ = ["CITATION_FILE", "Citation", "HowToCite", "bibtex", "book_citation", "sentence", "setup"]

CITATION_FILE = "CITATION.cff"
"""The citation file at the repository root (Citation File Format 1.2.0)."""


@dataclass(frozen=True)
class Citation:
    """What a citation of the book names: title, authors, version, repository, and the commit
    (with its date) the pages were built from."""

    title: str
    authors: list[str]
    version: str
    url: str
    revision: Revision
    date: str | None

    @property
    def year(self) -> str:
        """The year of the commit's date (the year of the build's source)."""
        return (self.date or "")[:4]

    @property
    def built_from(self) -> str:
        """``commit 0123456789ab of 2026-11-20``, marked when the tree had other changes.

        >>> Citation("t", ["a"], "1", "u", Revision("f" * 40, dirty=True), None).built_from
        'commit ffffffffffff with uncommitted changes'
        """
        text = f"commit {self.revision.short}" + (f" of {self.date}" if self.date else "")
        return text + (" with uncommitted changes" if self.revision.dirty else "")


def book_citation(root: Path, url: str) -> Citation:
    """The citation of the book whose sources are in ``root``, at the repository ``url``,
    for the commit of the code that builds it."""
    cff = yaml.safe_load((Path(root) / CITATION_FILE).read_text(encoding="utf-8"))
    authors = [
        author.get("name") or f"{author['given-names']} {author['family-names']}"
        for author in cff["authors"]
    ]
    revision = source_revision()
    return Citation(
        cff["title"], authors, str(cff["version"]), url, revision, commit_date(revision)
    )


def bibtex(citation: Citation) -> str:
    """A BibTeX entry for the book (``@misc``, which every BibTeX style knows)."""
    authors = " and ".join(
        f"{{{name}}}" if " " in name and "," not in name else name for name in citation.authors
    )
    fields = {
        "author": authors,
        "title": citation.title,
        "year": citation.year,
        "howpublished": f"\\url{{{citation.url}}}",
        "note": f"Version {citation.version}, {citation.built_from}",
    }
    body = "".join(f"  {key:<12} = {{{value}}},\n" for key, value in fields.items() if value)
    return f"@misc{{attncore,\n{body}}}"


def sentence(citation: Citation) -> str:
    """The citation as one line of text."""
    year = f" ({citation.year})" if citation.year else ""
    return (
        f"{', '.join(citation.authors)}{year}. {citation.title}, version {citation.version} "
        f"({citation.built_from}). {citation.url}"
    )


def _footer(citation: Citation, cite_link: str) -> str:
    """The footer's HTML: version, commit (linked to the repository's page of it when the
    tree had no other changes) and date, the repository, and a link to how to cite."""
    url = html.escape(citation.url, quote=True)
    built = html.escape(citation.built_from)
    if not citation.revision.dirty and citation.revision.commit != "unknown":
        short = citation.revision.short
        built = built.replace(
            short, f'<a href="{url}/commit/{citation.revision.commit}">{short}</a>'
        )
    return (
        f'<p class="attncore-build">Built with attncore {html.escape(citation.version)} from '
        f'{built}. Source: <a href="{url}">{url}</a>. '
        f'<a href="{html.escape(cite_link, quote=True)}">How to cite</a>.</p>'
    )


class HowToCite(SphinxDirective):
    """``how-to-cite``: a box with the citation as a sentence and as a BibTeX entry."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        citation = self.env.app.attncore_citation
        box = nodes.container(classes=["attncore-cite"])
        box += nodes.paragraph(text=f"Cite this book as: {sentence(citation)}")
        box += nodes.paragraph(
            text="In BibTeX (the repository's CITATION.cff holds the same for other tools):"
        )
        entry = nodes.literal_block(text=bibtex(citation))
        entry["language"] = "bibtex"
        box += entry
        return [box]


CITE_TARGET = "sec-how-to-cite"
"""The label on the first page right before the how-to-cite box."""


def _citation(app: Sphinx, config: Any) -> None:
    url = config.html_theme_options.get("repository_url")
    if not url:
        raise ValueError("_config.yml must name the repository: repository.url")
    app.attncore_citation = book_citation(Path(app.srcdir), url)


def _page_footer(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    page = "" if pagename == app.config.root_doc else context["pathto"](app.config.root_doc)
    link = f"{page}#{CITE_TARGET}"  # on the first page itself pathto gives "#"
    context["theme_extra_footer"] = _footer(app.attncore_citation, link)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directive, read the citation once and write every page's footer."""
    app.connect("config-inited", _citation)
    app.connect("html-page-context", _page_footer)
    app.add_directive("how-to-cite", HowToCite)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
