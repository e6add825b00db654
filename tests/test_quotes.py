"""Every catalogued quote is its source's words.

The comparison (:mod:`attncore.claims.quotes`) normalises only whitespace, Markdown emphasis
and typographic quotes; an omission must be marked with …, and a part of a quote must stand
within one paragraph of the source. The four texts are read from ``../shared/papers`` beside
the repository root, or from the folder named by ``ATTNCORE_PAPERS``; where neither holds them,
their quotes are skipped with a reason that names the path it looked in. A later paper the
book keeps no text of is quoted from its arXiv abstract, which ``tests/data`` holds (arXiv's
metadata is CC0), and its claims say so (``quote_checked``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attncore.book.paths import PAPERS_VARIABLE, SOURCE_TEXTS, papers_folder
from attncore.claims import CLAIMS
from attncore.claims.quotes import missing_parts

ABSTRACTS = {
    path.name.removesuffix("_abstract.txt"): path
    for path in sorted((Path(__file__).parent / "data").glob("*_abstract.txt"))
}
"""The arXiv abstracts the claims of later papers are quoted from, by BibTeX key: every
``tests/data/<key>_abstract.txt`` (a new paper's abstract is one file there)."""


def displayed(tex: str) -> str:
    """An abstract's TeX as its page displays it: the few macros it uses as Unicode.

    >>> displayed(r"scaling $\\beta_n \\asymp \\log n$")
    'scaling β_n ≍ log n'
    """
    macros = {r"\beta": "β", r"\asymp": "≍", r"\log": "log", r"\mu": "μ", r"\sigma": "σ"}
    for macro, shown in macros.items():
        tex = tex.replace(macro, shown)
    tex = re.sub(r"\\textit\{([^}]*)\}", r"\1", tex).replace("$", "")
    return re.sub(r"\s+", " ", tex).strip()


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    folder = papers_folder()
    files = {key: folder / name for key, name in SOURCE_TEXTS.items()}
    absent = [str(path) for path in files.values() if not path.is_file()]
    if absent:
        pytest.skip(
            f"source texts not found: {', '.join(absent)} (set {PAPERS_VARIABLE} to their folder)"
        )
    return {key: path.read_text(encoding="utf-8") for key, path in files.items()}


def test_every_source_of_the_catalogue_has_its_text():
    assert {claim.source for claim in CLAIMS.values()} <= set(SOURCE_TEXTS) | set(ABSTRACTS)


def test_a_claim_quoted_from_an_abstract_says_so():
    for key, claim in CLAIMS.items():
        from_abstract = claim.source in ABSTRACTS
        assert from_abstract == bool(claim.quote_checked), key
        if from_abstract:
            assert "abstract of arXiv" in claim.quote_checked, key


@pytest.mark.parametrize("key", [k for k, c in CLAIMS.items() if c.source in SOURCE_TEXTS])
def test_the_quote_is_the_sources_words(key: str, texts: dict[str, str]) -> None:
    claim = CLAIMS[key]
    assert claim.quote.strip(), key
    missing = missing_parts(claim.quote, texts[claim.source])
    assert not missing, f"{key}: not in {SOURCE_TEXTS[claim.source]}: {missing}"


@pytest.mark.parametrize("key", [k for k, c in CLAIMS.items() if c.source in ABSTRACTS])
def test_the_quote_is_the_abstracts_words(key: str) -> None:
    claim = CLAIMS[key]
    abstract = displayed(ABSTRACTS[claim.source].read_text(encoding="utf-8"))
    assert claim.quote.strip() and claim.reading, key
    assert not missing_parts(claim.quote, abstract), key


def test_a_changed_word_or_an_unmarked_omission_is_caught(texts: dict[str, str]) -> None:
    quote = CLAIMS["vaswani-small-gradients"].quote
    source = texts["vaswani2017attention"]
    assert missing_parts(quote.replace("extremely small", "very small"), source)
    assert missing_parts(quote.replace("We suspect that ", ""), source) == []
    assert missing_parts(quote.replace("pushing the softmax function ", ""), source)
