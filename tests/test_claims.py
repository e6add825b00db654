"""Verdicts are written as data by the chapters, for claims of the catalogue only."""

import json

import pytest

from attncore.checks import ParameterError
from attncore.claims import CLAIMS, Verdict, read_verdicts, record_verdict


def test_recorded_verdict_round_trips(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record_verdict("vaswani-variance", Verdict.HOLDS, "z = 0.3", "simulation", "sec-x")
    record = read_verdicts(tmp_path / "verdicts")["vaswani-variance"]
    assert record["verdict"] == "holds" and record["measured"] == "z = 0.3"
    assert record["source"] == CLAIMS["vaswani-variance"].source


def test_unknown_claim_or_untyped_verdict_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParameterError, match="claim must be one of"):
        record_verdict("no-such-claim", Verdict.HOLDS, "", "", "")
    with pytest.raises(ParameterError, match="verdict must be a Verdict"):
        record_verdict("vaswani-variance", "holds", "", "", "")
    assert not (tmp_path / "verdicts").exists()


def test_every_claim_names_a_source_of_the_bibliography():
    from pathlib import Path

    bib = (Path(__file__).resolve().parent.parent / "book" / "references.bib").read_text()
    for claim in CLAIMS.values():
        assert f"{{{claim.source}," in bib, claim.source


@pytest.mark.notebooks
def test_chapters_record_verdicts_for_catalogued_claims(built_book):
    verdicts = built_book / "book" / "generated" / "verdicts"
    records = [json.loads(p.read_text()) for p in verdicts.glob("*.json")]
    assert records, "no chapter recorded a verdict"
    for record in records:
        assert record["claim"] in CLAIMS
        assert record["verdict"] in {v.value for v in Verdict}
        assert record["measured"] and record["evidence"].startswith("sec-")


@pytest.mark.notebooks
def test_every_claim_of_a_built_chapter_has_a_verdict(built_book):
    from attncore.build import toc_chapters
    from attncore.claims import ledger

    built = set(toc_chapters(built_book))
    rows = ledger(read_verdicts(built_book / "book" / "generated" / "verdicts"))
    missing = [
        row["claim"] for row in rows if row["chapter"] in built and row["verdict"] == "pending"
    ]
    assert not missing, f"claims of built chapters without a verdict: {missing}"
    page = (
        built_book / "_build" / "html" / "book" / "generated" / "claims_ledger.html"
    ).read_text()
    for row in rows:
        assert row["verdict"] in page
