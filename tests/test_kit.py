"""The chapter kit's verdict lines: each threshold's reason given once per page."""

from __future__ import annotations

from attncore.book.kit import verdict_line
from attncore.book.markup import literal
from attncore.claims.rules.training import (
    UNIT,
    chuang_assumptions_invalid,
    chuang_sigma_w_moving_factors,
    example_evaluations,
)


def test_a_shared_threshold_is_explained_once_per_page() -> None:
    evals = example_evaluations()
    findings = [chuang_sigma_w_moving_factors(evals), chuang_assumptions_invalid(evals)]
    explained: set[str] = set()
    lines = [verdict_line(finding, explained) for finding in findings]
    reason = literal(UNIT.reason)
    assert reason in lines[0] and reason not in lines[1]
    assert "unit = 2 (its reason is given above" in lines[1]
    assert explained >= {"unit", "weight_change"}
    # without a page's memory (the ledger, one line alone) every reason is given
    assert reason in verdict_line(findings[1])
