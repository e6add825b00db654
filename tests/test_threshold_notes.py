"""A page explains each threshold once and links to it after; the ledger gathers what its
rows share (thresholds, settings, reasons, quote checks) in one place."""

from attncore.book.kit import Chapter, verdict_line, verdict_record
from attncore.book.ledger_page import ledger_tables, shared_tables
from attncore.book.markup import literal
from attncore.book.threshold_notes import LINK_TEXT, ThresholdNotes
from attncore.claims import CLAIMS, Finding, Verdict, ledger
from attncore.claims.saying import sentence
from attncore.claims.thresholds import Threshold, decided_by

UNIT = Threshold(0.1, "unit_tolerance", "a variance within 10 % of 1 is 'unit'")
FIXED = Threshold(4.0, "z_limit", "four standard errors, for many comparisons", scale="fixed")


@decided_by(UNIT, FIXED)
def toy(claim: str, x: float, *, unit_tolerance: float = UNIT, z_limit: float = FIXED):
    verdict = Verdict.HOLDS if abs(x - 1) <= unit_tolerance else Verdict.FAILS
    said = {"ds": (16, 64), "pairs": 100, "worst": x, "z_limit": z_limit, "residual": "d - 1"}
    return Finding(claim, verdict, values=said)


def test_a_page_explains_a_threshold_at_its_first_use_and_links_there_after():
    page = Chapter("why_sqrt_d")
    first = verdict_line(toy("vaswani-variance", 1.02), page.thresholds)
    second = verdict_line(toy("blog-scaled-variance", 1.5), page.thresholds)
    assert first.startswith("(threshold-why-sqrt-d-unit-tolerance)=\n")
    assert first.count(literal(UNIT.reason)) == 1
    assert literal(UNIT.reason) not in second
    assert f"{{ref}}`{LINK_TEXT} <threshold-why-sqrt-d-unit-tolerance>`" in second
    assert "the verdict is the same across every band" in first
    assert "**Fragile**" not in first
    assert not second.startswith("(")


def test_another_value_of_a_name_is_explained_again_under_its_own_label():
    notes = ThresholdNotes("t")
    a = {"name": "x", "value": 1.0, "reason": "r", "band": None}
    assert notes.label(a) == ("t-x", True)
    assert notes.label({**a, "value": 2.0}) == ("t-x-2", True)
    assert notes.label(a) == ("t-x", False)


def test_a_hostile_threshold_name_never_enters_a_role():
    notes = ThresholdNotes("t")
    hostile = {"name": "a` <x>`{raw}", "value": 1.0, "reason": "`", "band": None}
    notes.note([hostile], [])
    text = notes.note([hostile], []).text
    assert f"{{ref}}`{LINK_TEXT} <t-a-x-raw>`" in text and "\\`" in text


def test_the_ledger_says_each_shared_threshold_reason_and_measurement_once():
    records = [
        verdict_record(toy(claim, 1.02), "sec-variance-simulated")
        for claim in ("vaswani-variance", "blog-scaled-variance")
    ]
    same = {"method": "QK-norm", "difference": -0.5, "se": 0.01, "seeds": 3}
    findings = [
        Finding(claim, Verdict.HOLDS, values=same)
        for claim in ("wortsman-mitigations-effective", "zhai-sigma-reparam-robust")
    ]
    swept = [verdict_record(finding, "sec-stability-sweep") for finding in findings]

    def run(chapter: str, verdicts: list) -> dict:
        return {
            "chapter": chapter,
            "parameters_hash": "0123456789ab",
            "revision": {"commit": "a" * 40, "dirty": False},
            "code": "c0de",
            "verdicts": verdicts,
        }

    runs = {"why_sqrt_d": run("why_sqrt_d", records), "stability": run("stability", swept)}
    rows = ledger(runs, {"why_sqrt_d": "c0de", "stability": "c0de"})
    page = ledger_tables(rows) + shared_tables(rows)
    reason = literal(UNIT.reason)
    assert page.count(reason) == 1
    assert page.count(literal(sentence(findings[0]))) == 1 and "the same measurement as" in page
    shared = [r for r in CLAIMS.values() if r.setting]
    assert len({c.setting for c in shared}) < len(shared)  # settings are shared
    for setting in {c.setting for c in shared}:
        assert page.count(literal(setting)) <= 1
