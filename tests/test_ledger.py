"""The ledger joins the catalogue with the verdicts of chapter runs, and names each one's run."""

import json

import pytest

from attncore.book.kit import verdict_record
from attncore.checks import ParameterError
from attncore.claims import CLAIMS, PENDING, Finding, Verdict, ledger

COMMIT = "a" * 40


def run(chapter, records, code="c0de", dirty=False):
    return {
        "chapter": chapter,
        "parameters_hash": "0123456789ab",
        "revision": {"commit": COMMIT, "dirty": dirty},
        "code": code,
        "verdicts": records,
    }


def row(rows, claim):
    return next(r for r in rows if r["claim"] == claim)


FOOTNOTE = {"ds": (16, 64), "pairs": 100, "worst": 5.0, "z_limit": 4.0}
"""The values the templates of the footnote's check say."""


def test_a_recorded_verdict_reaches_its_row_with_its_run():
    record = verdict_record(
        Finding("vaswani-variance", Verdict.UNTESTABLE, values=FOOTNOTE), "sec-x"
    )
    rows = ledger({"why_sqrt_d": run("why_sqrt_d", [record])}, {"why_sqrt_d": "c0de"})
    found = row(rows, "vaswani-variance")
    assert found["verdict"] == "not testable here" and found["measured"] == record["measured"]
    assert found["run"] == f"parameters 0123456789ab, commit {COMMIT[:12]}"
    assert not found["stale"]


def test_a_claim_its_chapter_ran_without_checking_is_pending_and_says_so():
    rows = ledger({"softmax_saturation": run("softmax_saturation", [])})
    found = row(rows, "blog-softmax-example")
    assert found["verdict"] == PENDING and "did not check it" in found["measured"]


def test_a_verdict_from_other_code_than_the_chapters_now_is_stale():
    record = verdict_record(
        Finding("vaswani-variance", Verdict.UNTESTABLE, values=FOOTNOTE), "sec-x"
    )
    rows = ledger({"why_sqrt_d": run("why_sqrt_d", [record], code="old")}, {"why_sqrt_d": "new"})
    assert row(rows, "vaswani-variance")["stale"]


def test_unknown_claim_or_untyped_verdict_is_refused():
    with pytest.raises(ParameterError, match="claim must be one of"):
        Finding("no-such-claim", Verdict.HOLDS)
    with pytest.raises(ParameterError, match="verdict must be a Verdict"):
        Finding("vaswani-variance", "holds")


@pytest.mark.notebooks
def test_every_claim_of_a_built_chapter_has_a_verdict(built_book):
    from attncore.book.build import RUNS, toc_chapters
    from attncore.book.run_folders import read_runs

    runs = read_runs(built_book / RUNS)
    for manifest in runs.values():
        for record in manifest["verdicts"]:
            assert record["claim"] in CLAIMS
            assert record["verdict"] in {v.value for v in Verdict}
            assert record["measured"] and record["evidence"].startswith("sec-")
    built = set(toc_chapters(built_book))
    rows = ledger(runs)
    missing = [r["claim"] for r in rows if r["chapter"] in built and r["verdict"] == PENDING]
    assert not missing, f"claims of built chapters without a verdict: {missing}"
    page = (
        built_book / "_build" / "html" / "book" / "generated" / "claims_ledger.html"
    ).read_text()
    for r in rows:
        assert r["verdict"] in page
    assert json.loads((built_book / RUNS / "claims_ledger" / "manifest.json").read_text())


def test_a_claim_marked_untestable_says_why_whatever_ran():
    found = row(ledger({}), "chuang-rnn-challenging")
    assert found["verdict"] == Verdict.UNTESTABLE.value and "recurrent" in found["measured"]


def test_a_stale_verdict_is_marked_short_with_its_run_on_hover():
    from attncore.book.ledger_page import ledger_tables

    record = verdict_record(Finding("vaswani-variance", Verdict.HOLDS, values=FOOTNOTE), "sec-x")
    runs = {"why_sqrt_d": run("why_sqrt_d", [record], code="old", dirty=True)}
    table = ledger_tables(ledger(runs, {"why_sqrt_d": "new"}))
    lines = table.splitlines()
    verdict = lines.index("  - {bdg-success}`holds`")
    assert lines[verdict + 2] == (
        "    {abbr}`stale: run of other code (from the run with parameters 0123456789ab, "
        f"commit {COMMIT[:12]} with uncommitted changes)`"
    )
    assert table.count("stale") == 1


def test_every_ledger_row_has_its_own_number():
    from attncore.book.kit import ledger_number
    from attncore.claims import CLAIMS

    numbers = [ledger_number(claim) for claim in CLAIMS]
    assert len(set(numbers)) == len(numbers)
