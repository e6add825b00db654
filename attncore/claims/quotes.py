"""Whether a catalogued quote is its source's words.

A quote is verbatim up to three things, which the comparison normalises on both sides and
nothing else: whitespace (runs of it, and space before punctuation, as the texts were
extracted from PDFs), Markdown emphasis (``*`` and ``**``) and typographic quotes (“ ” ‘ ’
read as " and '). An omission is marked with … (U+2026): each part between the marks must
stand in the source in the order quoted, and each part within one paragraph. A paragraph
whose text stops mid-sentence (no final . ! ? or :, as where a page break of the PDF fell)
runs on into the next one; a part that crosses a real paragraph break must be split there
with a mark.

>>> text = "The dot products **grow** large.\\n\\nThey push the softmax to “regions”."
>>> missing_parts("The dot products grow large. … push the softmax", text)
[]
>>> missing_parts("grow large. They push", text)
['grow large. They push']
>>> missing_parts("to \\"regions\\" … The dot products", text)
['The dot products']
"""

from __future__ import annotations

import re

__all__ = ["ELLIPSIS", "missing_parts", "normalise", "paragraphs"]

ELLIPSIS = "…"
"""The mark of an omission inside a quote."""

_TYPOGRAPHIC = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})


def normalise(text: str) -> str:
    """``text`` with emphasis marks dropped, typographic quotes made plain and whitespace
    collapsed (none before , . ; : ) or after ( ).

    >>> normalise("a  **b** ,\\n “c” ( d )")
    'a b, "c" (d)'
    """
    text = text.translate(_TYPOGRAPHIC).replace("*", "")
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r" ([,.;:)])", r"\1", text)
    return re.sub(r"\( ", "(", text)


def paragraphs(source: str) -> list[str]:
    """The normalised paragraphs of ``source`` (split at blank lines), a paragraph that stops
    mid-sentence joined to the next.

    >>> paragraphs("One sentence\\n\\ngoes on.\\n\\nAnother.")
    ['One sentence goes on.', 'Another.']
    """
    joined: list[str] = []
    for block in re.split(r"\n\s*\n", source):
        text = normalise(block)
        if not text:
            continue
        if joined and not re.search(r"[.!?:]$", joined[-1]):
            joined[-1] = f"{joined[-1]} {text}"
        else:
            joined.append(text)
    return joined


def missing_parts(quote: str, source: str) -> list[str]:
    """The parts of ``quote`` (split at :data:`ELLIPSIS`) that do not stand in ``source``
    within one paragraph and in the order quoted; an empty list when the quote is verbatim."""
    found = paragraphs(source)
    where = (0, 0)
    missing = []
    for part in (normalise(p) for p in quote.split(ELLIPSIS)):
        if not part:
            continue
        place = None
        for index in range(where[0], len(found)):
            start = where[1] if index == where[0] else 0
            at = found[index].find(part, start)
            if at >= 0:
                place = (index, at + len(part))
                break
        if place is None:
            missing.append(part)
        else:
            where = place
    return missing
