"""The introduction's key findings on the four texts, written from the ledger's computed
verdicts, and the headlines the chapters computed beyond them (the answer and the book's own
findings are :mod:`attncore.book.answer`'s).

Every sentence that states a result is chosen by the verdict it reports, so a rebuild with
other parameters cannot leave the first page saying something the chapters no longer show.

>>> rows = [{"claim": "vaswani-variance", "verdict": "holds", "measured": "z below 2",
...          "evidence": "sec-variance-proof", "source": "vaswani2017attention"}]
>>> print(key_findings(rows, ["vaswani-variance"]))  # doctest: +ELLIPSIS
```{list-table}
...
* - {bdg-success}`holds`
  - {cite:t}`vaswani2017attention`: “assume that the components of q and k are independent ...”
  - {ref}`evidence <sec-variance-proof>` in {doc}`why_sqrt_d` · {ref}`ledger V1 <...>`
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attncore.book.answer import STATED
from attncore.book.kit import CLAIM_WORDS, chip, claim_opening, ledger_number, ledger_target
from attncore.book.markup import literal
from attncore.book.sections import evidence_link
from attncore.claims import CLAIMS

__all__ = ["KEY_CLAIMS", "beyond_sources", "key_findings"]

KEY_CLAIMS = [
    "vaswani-variance",
    "vaswani-small-gradients",
    "blog-peaked-small-derivatives",
    "chuang-proposition-5",
    "bernhard-fig2-k-total-better",
    "bernhard-vanishing-gradients",
    "chuang-string-reversal",
]
"""The claims the first page reports: an editorial choice; their verdicts are computed
(Chuang's relaxed-variance formula is the decision's, said there)."""

_CHAPTERS = ("every_rescaling", "beyond_initialization", "string_reversal")
"""The chapters whose headlines the first page reports, in the book's order (the critical
scale's, the length and the stability chapters' results are the decision box's, said there
once)."""


def key_findings(rows: Sequence[dict[str, Any]], claims: Sequence[str] = KEY_CLAIMS) -> str:
    """A MyST table: per claim, its verdict chip (marked fragile where a threshold inside its
    band would change it), the opening of the source's words with the verdict's catch where it
    has one, and links to the evidence and
    to the claim's ledger row, which gives the whole quote, what was measured (said once,
    there) and the book's reading."""
    by_claim = {row["claim"]: row for row in rows}
    lines = []
    for claim in claims:
        row = by_claim.get(claim)
        if row is None:
            continue
        chapter = CLAIMS[claim].chapter
        evidence = (
            f"{evidence_link(chapter, row['evidence'], 'evidence')} in {{doc}}`{chapter}` · "
            if row.get("evidence")
            else ""
        )
        ledger = f"{{ref}}`ledger {ledger_number(claim)} <{ledger_target(claim)}>`"
        source = CLAIMS[claim].source
        fragile = " {ref}`(fragile) <ledger-fragile>`" if row.get("fragile") else ""
        lines += [
            f"* - {chip(row['verdict'])}{fragile}",
            f"  - {{cite:t}}`{source}`: “{claim_opening(claim, CLAIM_WORDS)}”"
            + (f" (catch: {literal(row['catch'])})" if row.get("catch") else ""),
            f"  - {evidence}{ledger}",
        ]
    if not lines:
        return ""
    head = ["```{list-table}", ":header-rows: 1", ":widths: 18 57 25", ""]
    return "\n".join([*head, "* - verdict", "  - claim", "  - where", *lines, "```"])


def beyond_sources(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """A MyST list of the headlines the chapters computed beyond the sources' claims (the
    rescalings in use today, measured side by side), each linked to its evidence; chapters
    that did not run are left out, and so are the headlines the book's own findings already
    state (:data:`attncore.book.answer.STATED`).

    >>> run = {"headlines": [{"name": "a", "chapter": "every_rescaling", "text": "1/d is flat",
    ...                       "evidence": "sec-frontier"}]}
    >>> print(beyond_sources({"every_rescaling": run}))
    - 1\\/d is flat ({ref}`evidence <sec-frontier>` in {doc}`every_rescaling`)
    >>> beyond_sources({})
    'No chapter that measures the rescalings in use today has run in this build.'
    """
    lines = [
        f"- {literal(headline['text'])} "
        f"({evidence_link(chapter, headline['evidence'], 'evidence')} in {{doc}}`{chapter}`)"
        for chapter in _CHAPTERS
        for headline in runs.get(chapter, {}).get("headlines", [])
        if headline["name"] not in STATED
    ]
    if not lines:
        return "No chapter that measures the rescalings in use today has run in this build."
    return "\n".join(lines)
