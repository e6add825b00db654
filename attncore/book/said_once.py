"""Say each thing once: the sentences a built page repeats, and the measured texts that appear
in more than one place.

A built page is read as a reader reads it: the article's text without scripts, styles and the
navigation around it. A sentence is what ends in ``.``, ``;``, ``:``, ``!`` or ``?``; only
sentences of :data:`MIN_WORDS` words or more count, so that short labels ("holds", "Seed 3.")
may recur.

>>> html = "<nav>Menu.</nav><p>" + "The gap closes with training in the setup a, b and c. " * 2
>>> repeated_sentences(page_text(html))
{'The gap closes with training in the setup a, b and c.': 2}
>>> places("the gap closes", {"p1": "x the gap closes y", "p2": "The gap closes"})
['p1']
"""

from __future__ import annotations

import html as entities
import re
from collections import Counter
from collections.abc import Mapping

__all__ = ["MIN_WORDS", "page_text", "places", "repeated_sentences"]

MIN_WORDS = 10
"""The fewest words a sentence has for its repetition to count."""

_HIDDEN = re.compile(r"(?s)<(script|style|nav|header|footer|head)\b.*?</\1>")
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+")


def page_text(html: str) -> str:
    """The visible words of a built page, tags removed and whitespace collapsed."""
    text = re.sub(r"<[^>]+>", " ", _HIDDEN.sub(" ", html))
    return " ".join(entities.unescape(text).split())


def repeated_sentences(text: str, min_words: int = MIN_WORDS) -> dict[str, int]:
    """Each sentence of at least ``min_words`` words that ``text`` holds more than once, with
    how many times."""
    sentences = (s.strip() for s in _SENTENCE_END.split(text))
    counts = Counter(s for s in sentences if len(s.split()) >= min_words)
    return {sentence: count for sentence, count in counts.items() if count > 1}


def places(measured: str, pages: Mapping[str, str]) -> list[str]:
    """The pages (name to visible text) whose text holds ``measured``, once per time it
    appears there: a page that shows it twice is listed twice."""
    found = []
    for name, text in pages.items():
        found += [name] * text.count(" ".join(measured.split()))
    return found
