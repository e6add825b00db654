"""Every rule can reach every verdict its claim admits, and every sentence its claim says.

For each catalogued claim that a chapter tests, the chapter's rule tests
(``tests/test_rules_<chapter>.py``) hold in ``DRIVERS`` one small synthetic input per verdict
its rule can return; the catalogue names, with a reason, every verdict the rule cannot return
(:attr:`attncore.claims.Claim.unreachable`). :data:`DRIVERS` collects them all, and the tests
check that the two together cover all four verdicts, that each driver reaches the verdict it
is filed under, and that no driver reaches a verdict the catalogue calls unreachable.
:data:`BRANCHES` collects each module's ``BRANCHES``, which drive each branch of a rule beyond
those, so that every template of the catalogue is rendered from a finding: no missing slot, no
value no template says, no markup left over. :func:`unreachable_list` is the listing the report
and the ledger show.
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from pathlib import Path

import pytest
from drivers import Branches, Drivers

from attncore.claims import CLAIMS, Finding, Verdict
from attncore.claims.claim import ANY
from attncore.claims.saying import how_checked, sentence, slots

RULE_TESTS = [
    importlib.import_module(path.stem)
    for path in sorted(Path(__file__).parent.glob("test_rules_*.py"))
]
"""Every chapter's rule tests, each with its ``DRIVERS`` and ``BRANCHES``."""

DRIVERS: Drivers = {
    key: drivers for module in RULE_TESTS for key, drivers in module.DRIVERS.items()
}
"""Per claim a chapter tests: for each verdict its rule can return, an input that returns it."""

BRANCHES: Branches = {
    key: drivers for module in RULE_TESTS for key, drivers in module.BRANCHES.items()
}
"""Per claim: the branches of its rule beyond those its verdicts' drivers take, each with an
input that takes it."""


def _finding(result: object) -> Finding:
    return getattr(result, "finding", result)


@pytest.mark.parametrize("table", ["DRIVERS", "BRANCHES"])
def test_each_claim_is_driven_by_one_chapter(table: str) -> None:
    owners = Counter(key for module in RULE_TESTS for key in getattr(module, table))
    assert not [key for key, count in owners.items() if count > 1], owners.most_common(3)


def unreachable_list() -> list[str]:
    """Every rule's verdicts it cannot return, with the catalogue's reason: one line each."""
    return [
        f"{key}: cannot return “{verdict.value}”: {reason}"
        for key, claim in CLAIMS.items()
        for verdict, reason in claim.unreachable.items()
    ]


TESTED = [key for key, claim in CLAIMS.items() if not claim.untestable]
CASES = [(key, verdict) for key in DRIVERS for verdict in DRIVERS[key]]


def test_every_tested_claim_has_drivers():
    assert sorted(DRIVERS) == sorted(TESTED)


@pytest.mark.parametrize("key", TESTED)
def test_drivers_and_the_unreachable_cover_every_verdict(key: str) -> None:
    reached = set(DRIVERS[key])
    unreachable = set(CLAIMS[key].unreachable)
    assert not reached & unreachable, (
        f"{key}: filed as unreachable but driven: {reached & unreachable}"
    )
    assert reached | unreachable == set(Verdict), f"{key}: {set(Verdict) - reached - unreachable}"
    assert all(reason.strip() for reason in CLAIMS[key].unreachable.values())


@pytest.mark.parametrize(("key", "verdict"), CASES)
def test_each_driver_reaches_its_verdict(key: str, verdict: Verdict) -> None:
    finding = _finding(DRIVERS[key][verdict]())
    assert finding.claim == key
    assert finding.verdict is verdict, finding.measured


def _driven(key: str) -> list[Finding]:
    drivers = [*DRIVERS[key].values(), *BRANCHES.get(key, {}).values()]
    return [_finding(driver()) for driver in drivers]


SAID = [key for key in TESTED if CLAIMS[key].says]


@pytest.mark.parametrize("key", SAID)
def test_every_template_is_said_by_some_finding_and_every_value_by_some_template(
    key: str,
) -> None:
    claim = CLAIMS[key]
    found = _driven(key)
    taken = {f.branch for f in found}
    own = set(claim.says) - {ANY}
    assert own <= taken, f"{key}: no driver takes the branches {sorted(own - taken)}"
    assert ANY in claim.says or taken <= own, f"{key}: no template for {sorted(taken - own)}"
    if ANY in claim.says:
        assert taken - own, f"{key}: every branch has its own template; the '{ANY}' one is unused"
    texts = [*claim.says.values(), claim.check, *claim.words.values()]
    said = {name for text in texts for name in slots(text)}
    for finding in found:
        unsaid = set(finding.values) - said
        assert not unsaid, f"{key}: values no template says: {sorted(unsaid)}"
        text = sentence(finding) + " " + how_checked(finding)
        assert not re.search(r"[{}$\\`]|\bnan\b", text), f"{key}, {finding.branch}: {text}"


@pytest.mark.parametrize("key", [key for key, claim in CLAIMS.items() if claim.says])
def test_a_template_prints_each_value_once(key: str) -> None:
    claim = CLAIMS[key]
    for branch, text in [*claim.says.items(), ("check", claim.check)]:
        names = slots(text)
        assert len(names) == len(set(names)), f"{key}, {branch}: a slot twice in {text!r}"


def test_the_listing_names_every_unreachable_verdict_with_its_reason():
    listing = unreachable_list()
    assert len(listing) == sum(len(c.unreachable) for c in CLAIMS.values())
    assert any(line.startswith("chuang-25000-samples: cannot return “holds”") for line in listing)
