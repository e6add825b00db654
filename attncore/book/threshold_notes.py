"""The thresholds that decided the ledger's verdicts, each explained once on the page.

A threshold (:class:`~attncore.claims.thresholds.Threshold`, in a verdict record as plain
data) is explained, with its reason and its band, in one table of the ledger; each row that
it decides names it and its value, linked to that explanation, and says whether the verdict
is fragile. :class:`ThresholdNotes` gives each threshold its label. Records may come from a
run folder, so every text is escaped and labels are built from letters and digits only.

>>> notes = ThresholdNotes("threshold-page")
>>> t = {"name": "unit", "value": 2.0, "reason": "what 'about 1' means", "band": [1.41, 4.0]}
>>> notes.note([t], [])
'Thresholds: unit = 2 ({ref}`reason and band <threshold-page-unit>`).'
>>> explained(t)
'unit = 2 (what &#39;about 1&#39; means; band 1.41 to 4)'
>>> print(notes.note([t], [{"threshold": "unit", "value": 3.46, "verdict": "fails"}]))
**Fragile**: the verdict becomes “fails” at unit = 3.46. Thresholds: unit = 2 ({ref}`reason \
and band <threshold-page-unit>`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from attncore.book.markup import literal

__all__ = ["LINK_TEXT", "ThresholdNotes", "explained", "fragile_text", "named"]

Record = dict[str, Any]

LINK_TEXT = "reason and band"
"""The text of the link from a threshold's later uses to where a page explains it (a fixed
text: a role's text cannot be escaped, and a record's name may come from a run folder)."""


def _key(threshold: Record) -> tuple[str, float, str, tuple[float, ...]]:
    band = tuple(float(end) for end in threshold.get("band") or ())
    return (str(threshold["name"]), float(threshold["value"]), str(threshold["reason"]), band)


def named(threshold: Record) -> str:
    """The threshold's name and value, escaped: ``unit = 2``."""
    return f"{literal(str(threshold['name']))} = {float(threshold['value']):.3g}"


def explained(threshold: Record) -> str:
    """The threshold with its reason and band, escaped: ``unit = 2 (why; band 1.41 to 4)``."""
    band = threshold.get("band")
    return f"{named(threshold)} ({literal(str(threshold['reason']))}" + (
        f"; band {band[0]:.3g} to {band[1]:.3g})" if band else ")"
    )


def fragile_text(fragile: Sequence[Record], thresholds: Sequence[Record] = ()) -> str:
    """Where a verdict changes inside the bands of its thresholds, or ``""`` where it does not.
    A flip that rounds to the threshold's own value (a count exactly at the threshold) is
    said to lie just above or just below it.

    >>> fragile_text([{"threshold": "unit", "value": 3.46, "verdict": "fails"}])
    '**Fragile**: the verdict becomes “fails” at unit = 3.46.'
    >>> fragile_text([{"threshold": "many", "value": 0.50001, "verdict": "holds"}],
    ...              [{"name": "many", "value": 0.5}])
    '**Fragile**: the verdict becomes “holds” just above many = 0.5.'
    """
    if not fragile:
        return ""
    values = {str(t.get("name")): t.get("value") for t in thresholds}

    def where(flip: Record) -> str:
        name, value = str(flip["threshold"]), float(flip["value"])
        own = values.get(name)
        if isinstance(own, int | float) and f"{value:.3g}" == f"{float(own):.3g}":
            side = "above" if value > own else "below"
            return f"just {side} {literal(name)} = {float(own):.3g}"
        return f"at {literal(name)} = {value:.3g}"

    flips = "; ".join(f"“{literal(str(f['verdict']))}” {where(f)}" for f in fragile)
    return f"**Fragile**: the verdict becomes {flips}."


@dataclass
class ThresholdNotes:
    """The thresholds one page has explained, each under a label that starts with
    ``prefix``: the first record of a name gets ``prefix-name``, another record of that name
    (another value or reason) ``prefix-name-2`` and so on."""

    prefix: str
    labels: dict[tuple[str, float, str, tuple[float, ...]], str] = field(default_factory=dict)
    records: dict[str, Record] = field(default_factory=dict)
    """Each label's threshold record, in the order the page met them."""

    def label(self, threshold: Record) -> str:
        """The threshold's label, given at its first use here."""
        key = _key(threshold)
        if key in self.labels:
            return self.labels[key]
        slug = re.sub(r"[^a-z0-9]+", "-", key[0].lower()).strip("-") or "threshold"
        label, taken = f"{self.prefix}-{slug}", set(self.labels.values())
        count = 1
        while label in taken:
            count += 1
            label = f"{self.prefix}-{slug}-{count}"
        self.labels[key] = label
        self.records[label] = threshold
        return label

    def note(self, thresholds: Sequence[Record], fragile: Sequence[Record]) -> str:
        """The note of one verdict: whether it is fragile, then its thresholds by name and
        value, each linked to where it is explained; empty without thresholds."""
        if not thresholds:
            return ""
        labels = [self.label(threshold) for threshold in thresholds]
        listed = "Thresholds: " + "; ".join(
            f"{named(t)} ({{ref}}`{LINK_TEXT} <{label}>`)"
            for t, label in zip(thresholds, labels, strict=True)
        )
        if fragile:
            return f"{fragile_text(fragile, thresholds)} {listed}."
        return f"{listed}."
