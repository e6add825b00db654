"""The catalogue: every claim names a source of the bibliography and a chapter of the book."""

import re
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


def _displayed(tex: str) -> str:
    """The abstract's TeX as its page displays it: the few macros it uses as Unicode."""
    for macro, shown in {r"\beta": "β", r"\asymp": "≍", r"\log": "log"}.items():
        tex = tex.replace(macro, shown)
    tex = re.sub(r"\\textit\{([^}]*)\}", r"\1", tex).replace("$", "")
    return re.sub(r"\s+", " ", tex).strip()


def test_quotes_checked_against_an_abstract_are_its_words():
    """Claims of a paper the book keeps no text of are quoted from its arXiv abstract
    (tests/data holds it, CC0 as arXiv's metadata); each quote is verbatim there and says so."""
    abstract = _displayed((REPO / "tests" / "data" / "chen2025critical_abstract.txt").read_text())
    quoted = {key: c for key, c in CLAIMS.items() if c.source == "chen2025critical"}
    assert len(quoted) >= 3
    for key, claim in quoted.items():
        assert "abstract of arXiv:2510.05554" in claim.quote_checked, key
        assert " ".join(claim.text.split()) in abstract, key
        assert claim.reading, key
    assert "rank-collapse" in abstract and "β_n ≍ log n" in abstract
