"""The one route from a finding to its sentence: the claim's template for the branch its rule
took (:attr:`attncore.claims.Claim.says`), filled with the finding's values.

A template is prose with named slots and no logic. A slot is Python's format field,
``{name}`` or ``{name:spec}``; the spec is Python's own for a number (``{ratio:.2f}``,
``{n:,}``, ``{p:.0%}``) or one of these filters, from :mod:`attncore.claims.words`:

=====================  ===============================  ===========================
spec                   value                            says
=====================  ===============================  ===========================
``plain[:digits]``     a number                         ``2,090``, ``0.00154`` (3
                                                        significant digits unless given)
``number``             a whole number                   ``three``, ``15,000``
``count:seed``         a whole number                   ``five seeds``, ``one seed``
``share:seed``         a pair ``(k, n)``                ``three of the five seeds``
``binomial:seed``      a pair ``(k, n)`` of random      ``all five seeds (95 % Wilson:
                       units that succeeded             57–100 %)``
``range[:spec]``       a pair ``(low, high)``           ``0.2 to 0.5`` (each ``plain``
                                                        or in ``spec``), one if equal
``pm[:digits]``        a pair ``(mean, se)``            ``0.42 ± 0.03`` (``digits``
                                                        decimals, 2 unless given; an
                                                        se that would read 0: one
                                                        significant digit)
``ci[:spec]``          a triple ``(mean, low, high)``   ``0.90 [0.80, 1.00]`` (each in
                                                        ``spec``, ``.3f`` unless given);
                                                        an interval that would read as
                                                        one value: ``1.000 (seeds
                                                        alike)``, not a width of 0
``list[:spec]``        strings (numbers in ``spec``)    ``a, b and c``
``words``              keys of the claim's ``words``    its phrases, listed
``items:name``         records (mappings)               each in the claim's ``words[name]``,
                                                        joined by semicolons
``details:name``       records (mappings)               as ``items``, after a
                                                        :data:`BREAK`: the measurements
                                                        behind the finding
``yes text|no text``   true or false                    the first text or the second
=====================  ===============================  ===========================

>>> say("d {d} to {top}, {seeds:count:seed}; {grew:clearly|not clearly}",
...     {"d": 16, "top": 1024, "seeds": 2, "grew": False})
'd 16 to 1024, two seeds; not clearly'
>>> say("{a:ci} and {b:ci:+.3f}", {"a": (0.9, 0.8, 1.0), "b": (-0.0, -0.0001, 0.0)})
'0.900 [0.800, 1.000] and +0.000 (seeds alike)'

A template says its finding first; where a ``details`` slot follows, what comes after the
:data:`BREAK` it makes is the measurements behind that finding, which a page listing many
verdicts (the ledger) folds away (:func:`finding_and_details`).

>>> say("{missing:.2f}", {})
Traceback (most recent call last):
...
KeyError: "the template has a slot 'missing' and the finding no such value"
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

from attncore.claims.catalogue import CLAIMS
from attncore.claims.claim import ANY, Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.words import binomial_share, count, listing, number, plain, share
from attncore.evidence import ALIKE

__all__ = [
    "ANY",
    "BREAK",
    "PARTLY",
    "catch",
    "finding_and_details",
    "how_checked",
    "read",
    "say",
    "sentence",
    "slots",
    "template",
]

BREAK = "\n"
"""Where a sentence's finding ends and its measurements begin (a ``details`` slot puts it
there); a page that shows the sentence whole reads it as a space."""


PARTLY = "{found}; untested here: {part}"
"""How a verdict on a claim tested only in part (:attr:`attncore.claims.Claim.part`) ends
its sentence, before the measurements behind it."""


class _Filters(string.Formatter):
    """Python's formatter with the book's filters (the table above) as format specs."""

    def __init__(self, words: Mapping[str, str]) -> None:
        self.words = words

    def get_value(self, key: int | str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if key not in kwargs:
            raise KeyError(f"the template has a slot {key!r} and the finding no such value")
        return kwargs[key]

    def format_field(self, value: Any, spec: str) -> str:
        name, _, rest = spec.partition(":")
        if "|" in spec:
            yes, no = spec.split("|", 1)
            return yes if value else no
        if name == "plain":
            return plain(float(value), int(rest or 3))
        if name == "number":
            return number(int(value))
        if name == "count":
            return count(int(value), rest)
        if name == "share":
            k, n = value
            return share(int(k), int(n), rest)
        if name == "binomial":
            k, n = value
            return binomial_share(int(k), int(n), rest)
        if name == "range":
            low, high = (format(v, rest) if rest else plain(float(v)) for v in value)
            return low if low == high else f"{low} to {high}"
        if name == "pm":
            mean, se = (float(v) for v in value)
            error = f"{se:.{int(rest or 2)}f}"
            error = f"{se:.1g}" if se > 0 and float(error) == 0 else error
            return f"{mean:.{int(rest or 2)}f} ± {error}"
        if name == "ci":
            shown = (format(float(v), rest or ".3f") for v in value)  # no "-0.000"
            mean, low, high = (format(0.0, rest or ".3f") if float(t) == 0 else t for t in shown)
            return f"{mean} ({ALIKE})" if low == high else f"{mean} [{low}, {high}]"
        if name == "list":
            return listing([format(v, rest) if rest else str(v) for v in value])
        if name == "words":
            return listing([self.words[key] for key in value])
        if name in ("items", "details"):
            said = "; ".join(self.format(self.words[rest], **item) for item in value)
            return BREAK + said if name == "details" else said
        return super().format_field(value, spec)


def say(template: str, values: Mapping[str, Any], words: Mapping[str, str] | None = None) -> str:
    """``template`` with its slots filled from ``values`` (``words``: the phrases a ``words``
    slot names)."""
    return _Filters(words or {}).format(template, **values)


def read(
    templates: Mapping[str, str], *readings: Reading, words: Mapping[str, str] | None = None
) -> str:
    """A chapter's ``readings`` in its own words: each in the template of ``templates`` for its
    branch, one sentence after another.

    >>> read({"up": "{n:count:seed} rise.", "flat": "Nothing moves."},
    ...      Reading("up", {"n": 2}), Reading("flat"))
    'two seeds rise. Nothing moves.'
    """
    return " ".join(say(templates[r.branch], r.values, words) for r in readings)


def slots(template: str) -> list[str]:
    """The names of ``template``'s slots, in order, a repeated one as often as it appears.

    >>> slots("{a:.2f} and {b:count:seed} and {a}")
    ['a', 'b', 'a']
    """
    return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]


def template(claim: str, branch: str) -> str:
    """The template ``claim`` says ``branch`` with (its own, else the claim's :data:`ANY`).

    >>> template("zhai-sigma-reparam-robust", "one-seed")
    'fewer than two seeds: too few seeds to tell'
    """
    says = CLAIMS[claim].says
    if branch not in says and ANY not in says:
        raise KeyError(f"claim {claim!r} has no template for branch {branch!r}")
    return says.get(branch, says.get(ANY, ""))


def sentence(finding: Finding, *, keep_break: bool = False) -> str:
    """What ``finding`` measured, in the words of its claim's template for its branch: as one
    paragraph, or with its :data:`BREAK` kept (``keep_break``, for a record that a page may
    split, :func:`finding_and_details`)."""
    claim = CLAIMS[finding.claim]
    said = say(template(finding.claim, finding.branch), finding.values, claim.words)
    if claim.part and finding.branch == Verdict.HOLDS.key:
        found, cut, details = said.partition(BREAK)
        stop = found.rstrip()[-1:] if found.rstrip()[-1:] in (":", ";", ",") else ""
        found = found.rstrip().removesuffix(stop)
        said = say(PARTLY, {"found": found, "part": claim.part}) + stop + cut + details
    return said if keep_break else " ".join(part.strip() for part in said.split(BREAK))


def catch(finding: Finding) -> str:
    """The price of ``finding`` its claim names (:attr:`~attncore.claims.Claim.catch`), empty
    where the claim names none or the finding lacks a value the template needs.

    >>> from attncore.claims import Verdict
    >>> catch(Finding("bernhard-fig2-k-total-better", Verdict.HOLDS, values={"uniform": True}))
    'attention rows nearly uniform'
    >>> catch(Finding("bernhard-fig2-k-total-better", Verdict.HOLDS))
    ''
    """
    claim = CLAIMS[finding.claim]
    if not claim.catch or not set(slots(claim.catch)) <= set(finding.values):
        return ""
    return say(claim.catch, finding.values, claim.words)


def finding_and_details(text: str) -> tuple[str, str]:
    """A sentence split at its :data:`BREAK`: the finding (its closing ``:``, ``;`` or ``,``
    left out) and the measurements behind it, empty where it has none.

    >>> finding_and_details("Var = d: " + BREAK + "d = 16: 1.01")
    ('Var = d', 'd = 16: 1.01')
    >>> finding_and_details("all 4 digits match")
    ('all 4 digits match', '')
    """
    finding, _, details = text.partition(BREAK)
    if not details:
        return text, ""
    return finding.rstrip().rstrip(":;,").rstrip(), details.strip()


def how_checked(finding: Finding) -> str:
    """How ``finding`` was checked: the chapter's words where it gave them, else the claim's
    ``check`` filled with the finding's values."""
    claim = CLAIMS[finding.claim]
    return finding.check or say(claim.check, finding.values, claim.words)
