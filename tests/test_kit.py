"""The chapter kit's verdict lines: each threshold's reason given once per page, on findings
of a real rule (the training chapter's two rules that share the ``unit`` threshold)."""

from __future__ import annotations

from attncore.book.kit import verdict_line
from attncore.book.markup import literal
from attncore.book.threshold_notes import LINK_TEXT, ThresholdNotes
from attncore.claims.rules.training import (
    UNIT,
    chuang_assumptions_invalid,
    chuang_sigma_w_moving_factors,
    example_evaluations,
)


def test_a_shared_threshold_is_explained_once_per_page() -> None:
    evals = example_evaluations()
    findings = [chuang_sigma_w_moving_factors(evals), chuang_assumptions_invalid(evals)]
    notes = ThresholdNotes("threshold-page")
    lines = [verdict_line(finding, notes) for finding in findings]
    reason = literal(UNIT.reason)
    assert reason in lines[0] and reason not in lines[1]
    assert f"unit = 2 ({{ref}}`{LINK_TEXT} <threshold-page-unit>`)" in lines[1]
    # without a page's memory (the ledger, one line alone) every reason is given
    assert reason in verdict_line(findings[1])
