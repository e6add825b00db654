"""The ledger explains each threshold once and its rows link there; it gathers what its rows
share (thresholds, settings, reasons, quote checks) in one place. Chapters name none."""

from attncore.book.kit import verdict_line, verdict_record
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


def test_a_chapter_line_names_no_threshold_and_its_ledger_row_explains_each_once():
    finding = toy("vaswani-variance", 1.02)
    line = verdict_line(finding)
    assert "unit_tolerance" not in line and literal(UNIT.reason) not in line
    assert "{ref}`V1 <ledger-vaswani-variance>`" in line
    record = verdict_record(finding, "sec-variance-simulated")
    run = {"parameters_hash": "0" * 12, "revision": {"commit": "a" * 40, "dirty": False}}
    rows = ledger({"why_sqrt_d": {**run, "code": "c", "verdicts": [record]}}, {"why_sqrt_d": "c"})
    page = ledger_tables(rows) + shared_tables(rows)
    assert page.count(literal(UNIT.reason)) == 1
    assert "{ref}`reason and band <ledger-threshold-unit-tolerance>`" in page


def test_another_value_of_a_name_is_explained_again_under_its_own_label():
    notes = ThresholdNotes("t")
    a = {"name": "x", "value": 1.0, "reason": "r", "band": None}
    assert notes.label(a) == "t-x"
    assert notes.label({**a, "value": 2.0}) == "t-x-2"
    assert notes.label(a) == "t-x" and len(notes.records) == 2  # the first is not given again


def test_a_hostile_threshold_name_never_enters_a_role():
    notes = ThresholdNotes("t")
    hostile = {"name": "a` <x>`{raw}", "value": 1.0, "reason": "`", "band": None}
    notes.note([hostile], [])
    text = notes.note([hostile], [])
    assert f"{{ref}}`{LINK_TEXT} <t-a-x-raw>`" in text and "\\`" in text


def test_the_ledger_says_each_shared_threshold_reason_and_measurement_once():
    records = [
        verdict_record(toy(claim, 1.02), "sec-variance-simulated")
        for claim in ("vaswani-variance", "blog-scaled-variance")
    ]
    width = {"width": 16, "sweep": "this build", "difference": -0.5, "se": 0.01}
    same = {"method": "QK-norm", "above": 0, "places": 1, "low": -0.5, "high": -0.5,
            "closest": [width]}  # fmt: skip
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
