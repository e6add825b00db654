"""The claims of the four source texts and of later papers, and the verdicts the chapters
compute for them.

The catalogue (:data:`CLAIMS`) is data about the sources: what each says in its own words
(``quote``, verbatim; an omission is marked with …), what exactly the book tests
(``reading``, in the book's words), what kind of claim it is (:class:`Kind`), which
chapter tests it, and the sentences that state its verdict (``says``); one module per
source holds its claims; :data:`SOURCES` says in which part of the ledger each source
stands. The verdicts themselves are computed by the chapters' runs
(:mod:`attncore.claims.ledger` gathers them).

>>> CLAIMS["blog-softmax-example"].source
'pranay2025why'
>>> SOURCES["chen2025critical"].part
'Modern practice'
>>> CLAIMS["chuang-proposition-1"].kind.value
'textbook identity'
"""

from __future__ import annotations

from attncore.claims.catalogue import (
    bernhard,
    chen,
    chiang,
    chuang,
    dehghani,
    nakanishi,
    pranay,
    vaswani,
    wortsman,
    zhai,
)
from attncore.claims.claim import Claim, Kind, Source, Verdict

__all__ = [
    "CLAIMS",
    "FOUR_TEXTS",
    "MODERN_PRACTICE",
    "SOURCES",
    "Claim",
    "Kind",
    "Source",
    "Verdict",
]

FOUR_TEXTS = "The four source texts"
"""The ledger's part for the texts the book is a companion to."""

MODERN_PRACTICE = "Modern practice"
"""The ledger's part for later papers whose claims a chapter tests."""


SOURCES: dict[str, Source] = {
    "vaswani2017attention": Source(FOUR_TEXTS, "V"),
    "pranay2025why": Source(FOUR_TEXTS, "P"),
    "bernhard2023alternatives": Source(FOUR_TEXTS, "B"),
    "chuang2023scaling": Source(FOUR_TEXTS, "C"),
    "chen2025critical": Source(MODERN_PRACTICE, "CLPR"),
    "chiang2022overcoming": Source(MODERN_PRACTICE, "CC"),
    "nakanishi2025scalable": Source(MODERN_PRACTICE, "N"),
    "wortsman2024small": Source(MODERN_PRACTICE, "W"),
    "zhai2023stabilizing": Source(MODERN_PRACTICE, "Z"),
    "dehghani2023scaling": Source(MODERN_PRACTICE, "D"),
}
"""Every source of :data:`CLAIMS`, in the ledger's order of parts."""


CLAIMS: dict[str, Claim] = {
    **vaswani.CLAIMS,
    **pranay.CLAIMS,
    **bernhard.CLAIMS,
    **chuang.CLAIMS,
    **chen.CLAIMS,
    **chiang.CLAIMS,
    **nakanishi.CLAIMS,
    **wortsman.CLAIMS,
    **zhai.CLAIMS,
    **dehghani.CLAIMS,
}
"""Every claim, by key: each source's claims (its module here) in the order of :data:`SOURCES`."""
