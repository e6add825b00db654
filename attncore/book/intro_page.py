"""The introduction's answer and key findings, written from the ledger's computed verdicts.

Every sentence that states a result is chosen by the verdict it reports, so a rebuild with
other parameters cannot leave the first page saying something the chapters no longer show.

>>> rows = [{"claim": "vaswani-variance", "verdict": "holds", "measured": "z below 2",
...          "evidence": "sec-variance-proof", "source": "vaswani2017attention"}]
>>> short_answer(rows).startswith("Dividing q·k by √d gives it unit variance")
True
>>> print(key_findings(rows, ["vaswani-variance"]))  # doctest: +ELLIPSIS
- {bdg-success}`holds` ... (...`evidence <sec-variance-proof>` in {doc}`why_sqrt_d` · ...V1...)
<BLANKLINE>
  ```{dropdown} What was measured
  z below 2
  ```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attncore.book.kit import chip, ledger_number, ledger_target, quote_markdown
from attncore.book.ledger_page import evidence_link
from attncore.book.markup import literal
from attncore.claims import CLAIMS, PENDING, Verdict

__all__ = ["KEY_CLAIMS", "beyond_sources", "key_findings", "short_answer"]

KEY_CLAIMS = [
    "vaswani-variance",
    "vaswani-small-gradients",
    "blog-peaked-small-derivatives",
    "chuang-proposition-5",
    "chuang-relaxed-variance",
    "bernhard-fig2-k-total-better",
    "bernhard-vanishing-gradients",
    "chuang-string-reversal",
]
"""The claims the first page reports: an editorial choice; their verdicts are computed."""

_CHAPTERS = ("every_rescaling", "beyond_initialization", "string_reversal", "critical_scale")
"""The chapters whose headlines the first page reports, in the book's order."""

_H, _C, _F = Verdict.HOLDS.value, Verdict.CAVEAT.value, Verdict.FAILS.value

_SHORT: dict[str, dict[str, str]] = {
    "vaswani-variance": {
        _H: "Dividing q·k by √d gives it unit variance when the components of q and k are "
        "independent with mean 0 and variance 1, whatever d is",
        _C: "Dividing q·k by √d gives it unit variance for independent components with mean 0 "
        "and variance 1, with a caveat the key findings below state",
        _F: "This book's check of the footnote, that q·k has variance d for independent "
        "unit-variance components, did not confirm it",
    },
    "vaswani-small-gradients": {
        _H: "without that factor the logits spread like √d, the softmax saturates and its "
        "Jacobian shrinks as d grows, as Vaswani et al. suspected",
        _C: "without that factor the softmax moves toward saturation as d grows, but only part "
        "of what Vaswani et al. suspected shows everywhere (the Jacobian shrinking, the "
        "saturation rising, 1/√d holding the Jacobian steady: the key findings below say which)",
        _F: "yet the measured softmax gradients did not shrink with d as Vaswani et al. suspected",
    },
    "chuang-proposition-5": {
        _H: "The variance argument holds under the assumptions Chuang lists",
        _C: "The variance argument needs independence: it holds if Chuang's 'independent in "
        "the following ways' means independent, but zero covariances, as his Proposition 5 "
        "lists them, do not give Var(q·k) = d",
        _F: "The variance argument needs independence: zero covariances, as Chuang's "
        "Proposition 5 lists them, do not give Var(q·k) = d",
    },
    "bernhard-vanishing-gradients": {
        _H: "Bernhard's 1/k_total keeps the softmax farther from 0 and 1 than 1/√d, at no "
        "price in the gradient that reaches the query",
        _C: "Bernhard's 1/k_total keeps the softmax farther from 0 and 1 than 1/√d, with a "
        "caveat: not everywhere, or at a price; what was measured under its key finding below "
        "says which",
        _F: "Bernhard's 1/k_total did not keep the softmax away from 0 and 1 here",
    },
    "chuang-string-reversal": {
        _H: "In training, the factor Chuang's search finds, about 5, learns his string reversal "
        "where 1/√d does not, in every setup whose search finds a factor that learns",
        _C: "In training, the gap Chuang reports between 1/√d and a searched factor appears "
        "with a caveat: not in every setup, or not with a factor of about 5; what was measured "
        "under its key finding below says which",
        _F: "In training, the gap Chuang reports between 1/√d and a searched factor did not "
        "reproduce here",
    },
}
"""Per claim, the sentence of the short answer for each verdict it can have (a claim not
testable in this build is left out)."""


def _verdicts(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    return {row["claim"]: row["verdict"] for row in rows}


def short_answer(rows: Sequence[dict[str, Any]]) -> str:
    """A few sentences answering the book's question, each chosen by a computed verdict;
    claims whose chapter did not run (pending or not testable) are left out.

    >>> short_answer([{"claim": "chuang-proposition-5", "verdict": "holds with a caveat"}])[:46]
    'The variance argument needs independence: it h'
    """
    verdicts = _verdicts(rows)
    parts = []
    for claim, variants in _SHORT.items():
        verdict = verdicts.get(claim, PENDING)
        if verdict in (_H, _C, _F):
            parts.append(variants[verdict])
    if not parts:
        return "No chapter has run yet, so this page has no finding to report."
    return " ".join(part[0].upper() + part[1:] + "." for part in parts)


def key_findings(rows: Sequence[dict[str, Any]], claims: Sequence[str] = KEY_CLAIMS) -> str:
    """A MyST list: per claim, its verdict chip (marked fragile where a threshold inside its
    band would change it), the source's words, links to the evidence and to the claim's ledger
    row (which gives the book's reading), and what was measured in a dropdown (the numbers
    are long; the verdict and the claim are what a first reading needs)."""
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
        measured = literal(row["measured"]) if row["measured"] else "not run in this build"
        source, quote = CLAIMS[claim].source, quote_markdown(CLAIMS[claim].quote)
        fragile = " *(fragile)*" if row.get("fragile") else ""
        lines += [
            f"- {chip(row['verdict'])}{fragile} {{cite:t}}`{source}`: “{quote}” "
            f"({evidence}{ledger})",
            "",
            "  ```{dropdown} What was measured",
            f"  {measured}",
            "  ```",
        ]
    return "\n".join(lines)


def beyond_sources(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """A MyST list of the headlines the chapters computed beyond the sources' claims (the
    rescalings in use today, measured side by side), each linked to its evidence; chapters
    that did not run are left out.

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
    ]
    if not lines:
        return "No chapter that measures the rescalings in use today has run in this build."
    return "\n".join(lines)
