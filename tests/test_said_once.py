"""Each thing said once on the built pages: no sentence of ten or more words twice on a page,
and no measured text of a verdict in more than one place besides the claims ledger."""

from __future__ import annotations

import json

import pytest

from attncore.book.build import RUNS, toc_chapters
from attncore.book.said_once import MIN_WORDS, page_text, places, repeated_sentences

pytestmark = pytest.mark.notebooks

LEDGER = "claims_ledger"
"""The one page that repeats each measured text on purpose: it gathers them."""

REPEATING_SENTENCES: dict[str, str] = {}
"""Pages that still repeat sentences, and why: each is expected to fail, strictly, so a page
that stops repeating must leave this list (issue 24 removes them one by one)."""

REPEATING_MEASURED: dict[str, str] = {}
"""Pages that still show a measured text in a second place, and why (strict, as above)."""


def _pages_with(known: dict[str, str]) -> list:
    return [
        pytest.param(
            page,
            marks=pytest.mark.xfail(page in known, reason=known.get(page, ""), strict=True),
        )
        for page in toc_chapters()
    ]


def _pages(root) -> dict[str, str]:
    html = root / "_build" / "html" / "book"
    return {path.stem: page_text(path.read_text()) for path in html.glob("generated/*.html")}


@pytest.mark.parametrize("page", _pages_with(REPEATING_SENTENCES))
def test_no_page_says_a_long_sentence_twice(built_book, page) -> None:
    repeated = repeated_sentences(_pages(built_book)[page])
    assert not repeated, f"{page} repeats sentences of {MIN_WORDS}+ words: {repeated}"


@pytest.mark.parametrize("page", _pages_with(REPEATING_MEASURED))
def test_a_measured_text_appears_once_outside_the_ledger(built_book, page) -> None:
    pages = {name: text for name, text in _pages(built_book).items() if name != LEDGER}
    twice = []
    for manifest in (built_book / RUNS).glob("*/manifest.json"):
        for verdict in json.loads(manifest.read_text())["verdicts"]:
            found = places(verdict["measured"], pages)
            if page in found and len(found) > 1:
                twice.append((verdict["claim"], found))
    assert not twice, f"{page} shares measured texts with another place: {twice}"
