"""The catalogue: every claim names a source of the bibliography and a chapter of the book."""

from pathlib import Path

from attncore.book.build import toc_chapters
from attncore.claims import CLAIMS

REPO = Path(__file__).resolve().parent.parent


def test_every_claim_names_a_source_of_the_bibliography():
    bib = (REPO / "book" / "references.bib").read_text()
    for claim in CLAIMS.values():
        assert f"{{{claim.source}," in bib, claim.source


def test_every_claim_names_a_chapter_of_the_book():
    chapters = set(toc_chapters())
    for key, claim in CLAIMS.items():
        assert claim.chapter in chapters or (claim.untestable and not claim.chapter), key
