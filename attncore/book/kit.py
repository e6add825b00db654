"""How a verdict reads on a chapter page: its chip, its line, its ledger number and the
opening of its quote, and the record of it a run's manifest keeps.

>>> finding = Finding("blog-softmax-example", Verdict.HOLDS)
>>> verdict_record(finding, "sec-x")["verdict"], chip("holds")
('holds', '{bdg-success}`holds`')
"""

from __future__ import annotations

import re
from typing import Any

from attncore.book.markup import literal
from attncore.claims import CLAIMS, PENDING, Finding, Verdict
from attncore.claims.catalogue import SOURCES
from attncore.claims.saying import catch, how_checked, sentence

__all__ = [
    "VERDICT_COLOURS",
    "chip",
    "claim_opening",
    "ledger_number",
    "ledger_target",
    "quote_markdown",
    "verdict_line",
    "verdict_record",
]

_BADGES = {
    Verdict.HOLDS.value: ("success", "#00843f"),
    Verdict.CAVEAT.value: ("warning", "#f66a0a"),
    Verdict.FAILS.value: ("danger", "#d72d47"),
    Verdict.UNTESTABLE.value: ("info", "#276be9"),
    PENDING: ("muted", "#29313d"),
}

VERDICT_COLOURS = {verdict: colour for verdict, (_, colour) in _BADGES.items()}
"""One colour per verdict, for chips and figures alike: the colour the book's theme (the
PyData theme of Jupyter Book, light mode) gives each chip's badge class."""


def chip(verdict: str) -> str:
    """The verdict as a coloured MyST badge.

    >>> chip("holds")
    '{bdg-success}`holds`'
    """
    return f"{{bdg-{_BADGES[verdict][0]}}}`{verdict}`"


def ledger_target(claim: str) -> str:
    """The label of ``claim``'s row in the claims ledger.

    >>> ledger_target("vaswani-variance")
    'ledger-vaswani-variance'
    """
    return f"ledger-{claim}"


def ledger_number(claim: str) -> str:
    """The number of ``claim``'s row in the claims ledger, for citing it: the source's prefix
    (:data:`~attncore.claims.catalogue.SOURCES`) and the claim's place among that source's
    claims in the catalogue.

    >>> ledger_number("vaswani-variance"), ledger_number("chen-phase-transition")
    ('V1', 'CLPR2')
    """
    source = CLAIMS[claim].source
    same = [c for c, found in CLAIMS.items() if found.source == source]
    return f"{SOURCES[source].prefix}{same.index(claim) + 1}"


def verdict_record(finding: Finding, evidence: str) -> dict[str, Any]:
    """The record of ``finding`` for the run's manifest; ``evidence`` is the label of the
    section that shows it (a MyST target). The claim itself (its quote and reading) stays in
    the catalogue: the ledger reads it there."""
    return {
        "claim": finding.claim,
        "source": CLAIMS[finding.claim].source,
        "chapter": CLAIMS[finding.claim].chapter,
        "verdict": finding.verdict.value,
        "branch": finding.branch,
        "measured": sentence(finding, keep_break=True),
        "catch": catch(finding),
        "check": how_checked(finding),
        "evidence": evidence,
        "thresholds": [t.record() for t in finding.thresholds],
        "fragile": [f.record() for f in finding.fragile],
    }


def verdict_line(finding: Finding) -> str:
    """One line for the chapter page: the verdict chip (marked *fragile* where a threshold
    inside its band would change it), the opening of the claim's words, a link to its row in
    the claims ledger and what was measured. The thresholds, their reasons and bands, and the
    whole quote are the ledger row's detail, not the chapter's.

    >>> print(verdict_line(Finding("blog-softmax-example", Verdict.HOLDS)))
    {bdg-success}`holds` {ref}`P1 <ledger-blog-softmax-example>` {cite:t}`pranay2025why`: \
“Softmax of y\\: \\[0\\.202 0\\.247 0\\.183 0\\.368\\] … Softmax of y\\_scaled\\: \
\\[0\\.008 0\\.039 …”: every printed digit of softmax(y) and softmax(8y) is reproduced
    """
    claim = CLAIMS[finding.claim]
    fragile = " {ref}`fragile <ledger-fragile>`" if finding.fragile else ""
    return (
        f"{chip(finding.verdict.value)}{fragile} "
        f"{{ref}}`{ledger_number(finding.claim)} <{ledger_target(finding.claim)}>` "
        f"{{cite:t}}`{claim.source}`: “{claim_opening(finding.claim, CLAIM_WORDS)}”: "
        f"{sentence(finding)}"
    )


CLAIM_WORDS = 12
"""Words of a claim quoted beside its verdict on a chapter page: enough to name the claim (its
ledger row, a link away, has it whole)."""


def claim_opening(claim: str, words: int) -> str:
    """The first ``words`` words of ``claim``'s quote (an ellipsis if there are more), as
    MyST (:func:`quote_markdown`).

    >>> claim_opening("vaswani-variance", 4)
    'assume that the components …'
    """
    return quote_markdown(CLAIMS[claim].quote, words)


_MATH = re.compile(r"(\$\$.+?\$\$|\$.+?\$)", re.S)


def quote_markdown(text: str, words: int | None = None) -> str:
    r"""A quote as MyST that prints as written: its mathematics as inline math, every other
    special character of Markdown escaped; cut after ``words`` words (a formula counts as
    one, punctuation none) with an ellipsis. Display math ``$$…$$`` and the blog's
    ``$\( x \)$`` are shown as inline ``$x$``.

    >>> print(quote_markdown(r"the *new* [1] $\( d_k \)$, and $$a = b.$$ end", words=6))
    the \*new\* \[1\] $d_k$\, and $a = b.$ …
    """
    shown, count = [], 0
    for i, piece in enumerate(_MATH.split(text)):
        parts = [piece] if i % 2 else re.split(r"(\s+)", piece)
        for part in parts:
            if not part or part.isspace():
                shown.append(" " if part else "")
                continue
            if words is not None and count >= words:
                return re.sub(r"\s+", " ", "".join(shown)).strip() + " …"
            count += bool(i % 2 or re.search(r"\w", part))
            if i % 2:
                inner = part.strip("$").replace("\\(", "").replace("\\)", "").strip()
                shown.append(f"${inner}$")
            else:
                shown.append(literal(part))
    return re.sub(r"\s+", " ", "".join(shown)).strip()
