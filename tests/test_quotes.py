"""Every catalogued quote is its source's words.

The comparison (:mod:`attncore.claims.quotes`) normalises only whitespace, Markdown emphasis
and typographic quotes; an omission must be marked with …, and a part of a quote must stand
within one paragraph of the source. The texts are read from ``../shared/papers`` beside the
repository root, or from the folder named by ``ATTNCORE_PAPERS``; where neither holds them, the
test is skipped with a reason that names the path it looked in.
"""

from __future__ import annotations

import pytest

from attncore.book.paths import PAPERS_VARIABLE, SOURCE_TEXTS, papers_folder
from attncore.claims import CLAIMS
from attncore.claims.quotes import missing_parts


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
    assert {claim.source for claim in CLAIMS.values()} <= set(SOURCE_TEXTS)


@pytest.mark.parametrize("key", list(CLAIMS))
def test_the_quote_is_the_sources_words(key: str, texts: dict[str, str]) -> None:
    claim = CLAIMS[key]
    assert claim.quote.strip(), key
    missing = missing_parts(claim.quote, texts[claim.source])
    assert not missing, f"{key}: not in {SOURCE_TEXTS[claim.source]}: {missing}"


def test_a_changed_word_or_an_unmarked_omission_is_caught(texts: dict[str, str]) -> None:
    quote = CLAIMS["vaswani-small-gradients"].quote
    source = texts["vaswani2017attention"]
    assert missing_parts(quote.replace("extremely small", "very small"), source)
    assert missing_parts(quote.replace("We suspect that ", ""), source) == []
    assert missing_parts(quote.replace("pushing the softmax function ", ""), source)
