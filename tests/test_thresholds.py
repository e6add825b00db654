"""The threshold files (attncore/claims/thresholds/<rules>.yaml): every name a rule reads is in
its file, every entry is read somewhere, and a malformed entry is refused in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attncore.checks import ParameterError
from attncore.claims.thresholds import _entry, thresholds_of

REPO = Path(__file__).resolve().parent.parent
RULES = sorted(p.stem for p in (REPO / "attncore/claims/thresholds").glob("*.yaml"))


@pytest.mark.parametrize("rules", RULES)
def test_every_name_a_rule_reads_is_in_its_file_and_every_entry_is_read(rules):
    source = (REPO / "attncore/claims/rules" / f"{rules}.py").read_text()
    declared = set(vars(thresholds_of(rules)))
    assert set(re.findall(r"\blimits\.([A-Z][A-Z0-9_]*)", source)) <= declared
    elsewhere = [*(REPO / "attncore").rglob("*.py"), *(REPO / "notebooks").glob("*.md")]
    text = source + "".join(p.read_text() for p in elsewhere)
    assert all(re.search(rf"\b{name}\b", text) for name in declared)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"value": 2.0}, "must have a value and a reason"),
        ({"value": 2.0, "reason": "r", "scael": "factor"}, "must have a value and a reason"),
        ({"value": True, "reason": "r"}, "value must be a number"),
        ({"value": "1e-12", "reason": "r"}, "value must be a number"),
        ({"value": 2.0, "reason": "at {lvel} %"}, "a reason's slots are"),
    ],
)
def test_a_malformed_entry_is_refused_in_one_line_naming_it(entry, says):
    with pytest.raises(
        ParameterError, match=re.escape(f"x.yaml: KEY{'' if says.startswith('must') else ':'}")
    ) as error:
        _entry("x.yaml: KEY", "KEY", entry)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_a_value_may_name_a_statistic_and_a_reason_its_numbers():
    level = _entry(
        "x", "LEVEL", {"value": "family_level", "reason": "{level:.1f} %", "scale": "fixed"}
    )
    assert (float(level), level.name, level.reason) == (0.05, "level", "2.3 %")
