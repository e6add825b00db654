"""What the catalogue is made of: a :class:`Claim` of a :class:`Source`, its :class:`Kind`,
and the :class:`Verdict` a rule gives it.

>>> Verdict.CAVEAT.value, Verdict.CAVEAT.key
('holds with a caveat', 'caveat')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["ANY", "PART_REASON", "Claim", "Kind", "Source", "Verdict"]

ANY = "any"
"""The key of a claim's template for every branch that has none of its own."""


class Verdict(StrEnum):
    """How a claim fared against its check."""

    HOLDS = "holds"
    CAVEAT = "holds with a caveat"
    FAILS = "does not hold"
    UNTESTABLE = "not testable here"

    @property
    def key(self) -> str:
        """The verdict's one-word name, the branch a rule takes unless it names another."""
        return _KEYS[self.name]


_KEYS = {"HOLDS": "holds", "CAVEAT": "caveat", "FAILS": "fails", "UNTESTABLE": "untestable"}


class Kind(StrEnum):
    """What a claim is, so that a tally weighs findings apart from identities and quotations.

    - ``FINDING``: a claim about what happens (a measurement, an inference, a judgement)
      that evidence can confirm or refute;
    - ``IDENTITY``: a mathematical identity or textbook fact, true by derivation, checked
      for slips;
    - ``QUOTATION``: what a text reproduces of another or of itself: a quotation, printed
      digits, a term.
    """

    FINDING = "substantive finding"
    IDENTITY = "textbook identity"
    QUOTATION = "quotation check"


@dataclass(frozen=True)
class Claim:
    """One claim of a source text: the chapter that tests it, where the claim stands (BibTeX
    key and section), the source's words (``quote``, verbatim but for whitespace, emphasis
    and typographic quotes; … marks an omission) and the book's ``reading`` of them (what
    exactly is tested), its ``kind``. A claim that nothing in the book can decide has no
    chapter and says why in ``untestable``; ``unreachable`` names each verdict its rule
    cannot return, with the reason; where no text of the source is kept beside the book,
    ``quote_checked`` says what its words were checked against; ``setting``, where several
    readings share one, is the experiment they are read in (the ledger states it once).

    ``says`` holds the sentences a person wrote to state the verdict: one template per branch
    its rule can take (the rule's :attr:`~attncore.claims.Finding.branch`), with named slots
    the rule's :attr:`~attncore.claims.Finding.values` fill (:mod:`attncore.claims.saying`
    lists the format specs); ``check`` says how it was checked, with slots too; ``words``
    names the phrases a template's ``words`` slot lists; ``catch``, a template too, names the
    price of a verdict that holds where the run shows one (said beside the chip wherever the
    claim's words are shown without its sentence).

    ``part`` names what of the quote the check leaves untested (a phrase). A claim tested only
    in part holds at most with a caveat: its rule's *holds* reads *holds with a caveat*
    (:class:`~attncore.claims.Finding`), its sentence says what was left untested, and *holds*
    is unreachable for it.

    >>> claim = Claim("stability", "zhai2023stabilizing", "1", "q", "r", part="other settings")
    >>> claim.unreachable[Verdict.HOLDS]
    'the check tests part of the sentence, not other settings: it holds at most with a caveat'
    """

    chapter: str
    source: str
    section: str
    quote: str
    reading: str
    kind: Kind = Kind.FINDING
    untestable: str = ""
    unreachable: Mapping[Verdict, str] = field(default_factory=dict)
    quote_checked: str = ""
    setting: str = ""
    says: Mapping[str, str] = field(default_factory=dict)
    check: str = ""
    words: Mapping[str, str] = field(default_factory=dict)
    catch: str = ""
    part: str = ""

    def __post_init__(self) -> None:
        if self.part:
            reason = PART_REASON.format(part=self.part)
            object.__setattr__(self, "unreachable", {**self.unreachable, Verdict.HOLDS: reason})


PART_REASON = "the check tests part of the sentence, not {part}: it holds at most with a caveat"
"""Why *holds* is unreachable for a claim tested only in part (:attr:`Claim.part`)."""


@dataclass(frozen=True)
class Source:
    """A text whose claims the catalogue holds: the ``part`` of the ledger that lists it and
    the ``prefix`` of its rows' numbers (``V1``, ``CLPR2``)."""

    part: str
    prefix: str
