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
