"""The first page's key findings on the four texts (the answer is tested in test_answer.py)."""

from __future__ import annotations

from attncore.book import intro_page


def test_a_fragile_key_finding_is_marked_so() -> None:
    row = {
        "claim": "vaswani-small-gradients",
        "verdict": "holds",
        "measured": "m",
        "evidence": "sec-x",
        "fragile": [{"threshold": "falls_to", "value": 0.4, "verdict": "holds with a caveat"}],
    }
    text = intro_page.key_findings([row], ["vaswani-small-gradients"])
    assert "* - {bdg-success}`holds` {ref}`(fragile) <ledger-fragile>`" in text
    assert "(fragile)" not in intro_page.key_findings([{**row, "fragile": []}], [row["claim"]])


def test_a_holding_verdict_with_a_price_carries_it_beside_its_chip() -> None:
    """B7 holds on Bernhard's "preserves the shape … much better", at the price of nearly
    uniform attention: the price stands in the same row as the chip, escaped."""
    from attncore.claims import Finding, Verdict
    from attncore.claims.saying import catch

    claim = "bernhard-fig2-k-total-better"
    for uniform in (True, False):
        finding = Finding(claim, Verdict.HOLDS, values={"uniform": uniform})
        row = {"claim": claim, "verdict": "holds", "evidence": "", "catch": catch(finding)}
        text = intro_page.key_findings([row], [claim])
        assert ("(catch: attention rows nearly uniform)" in text) == uniform
    hostile = {"claim": claim, "verdict": "holds", "evidence": "", "catch": "<b>`x`"}
    assert "(catch: &lt;b&gt;\\`x\\`)" in intro_page.key_findings([hostile], [claim])
