"""The first page's short answer: one sentence per claim, chosen by its computed verdict."""

from __future__ import annotations

import pytest

from attncore.book import intro_page
from attncore.claims import CLAIMS, Verdict

REACHABLE = [Verdict.HOLDS, Verdict.CAVEAT, Verdict.FAILS]


def test_every_claim_of_the_short_answer_has_a_sentence_for_every_verdict() -> None:
    for claim, variants in intro_page._SHORT.items():
        assert claim in CLAIMS
        assert set(variants) == {v.value for v in REACHABLE}, claim
        assert len(set(variants.values())) == len(REACHABLE), f"{claim}: verdicts share words"


@pytest.mark.parametrize("verdict", REACHABLE)
def test_the_short_answer_follows_each_verdict(verdict: Verdict) -> None:
    rows = [{"claim": c, "verdict": verdict.value} for c in intro_page._SHORT]
    text = intro_page.short_answer(rows)
    for claim, variants in intro_page._SHORT.items():
        sentence = variants[verdict.value]
        assert sentence[1:] in text, (claim, verdict)
        others = [v for k, v in variants.items() if k != verdict.value]
        assert not any(other[1:] in text for other in others), (claim, verdict)


def test_claims_not_tested_in_this_build_are_left_out() -> None:
    rows = [{"claim": "vaswani-variance", "verdict": Verdict.UNTESTABLE.value}]
    assert intro_page.short_answer(rows).startswith("No chapter has run yet")
    rows.append({"claim": "chuang-proposition-5", "verdict": Verdict.FAILS.value})
    assert intro_page.short_answer(rows).startswith("The variance argument needs independence")


def test_a_fragile_key_finding_is_marked_so() -> None:
    row = {
        "claim": "vaswani-small-gradients",
        "verdict": "holds",
        "measured": "m",
        "evidence": "sec-x",
        "fragile": [{"threshold": "falls_to", "value": 0.4, "verdict": "holds with a caveat"}],
    }
    text = intro_page.key_findings([row], ["vaswani-small-gradients"])
    assert text.startswith("- {bdg-success}`holds` *(fragile)*")
    assert "*(fragile)*" not in intro_page.key_findings([{**row, "fragile": []}], [row["claim"]])
