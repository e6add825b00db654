"""What a verdict rule returns: the verdict on one claim, the branch of the rule that gave it,
the values that decided it, and the thresholds it read (with where, inside their bands, the
verdict would change). A finding holds no sentence: :mod:`attncore.claims.saying` writes it
from the claim's templates.

>>> f = Finding("vaswani-variance", Verdict.HOLDS, values={"z": 0.3})
>>> f.verdict.value, f.branch
('holds', 'holds')
>>> Finding("no-such-claim", Verdict.HOLDS)
Traceback (most recent call last):
...
attncore.checks.ParameterError: claim must be one of ..., got 'no-such-claim'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from attncore.checks import ParameterError
from attncore.claims.catalogue import CLAIMS, Verdict

if TYPE_CHECKING:
    from attncore.claims.thresholds import Flip, Threshold

__all__ = ["Finding", "Reading"]


@dataclass(frozen=True)
class Finding:
    """The ``verdict`` on ``claim`` (a key of :data:`~attncore.claims.CLAIMS`); ``values``,
    the measured values a template of the claim says (named, plain numbers, counts, pairs);
    ``branch``, the template the rule chose (the verdict's key unless the rule names another);
    ``check``, a chapter's own words for how it checked, where they replace the claim's.
    A claim tested only in part (:attr:`~attncore.claims.Claim.part`) that its rule finds to
    hold gets *holds with a caveat*, its branch still the rule's.
    ``thresholds`` and ``fragile`` are filled in by
    :func:`attncore.claims.thresholds.decided_by`: the thresholds the rule used and each
    change of the verdict inside their bands (none: the verdict is not fragile)."""

    claim: str
    verdict: Verdict
    values: Mapping[str, Any] = field(default_factory=dict)
    branch: str = ""
    check: str = ""
    thresholds: tuple[Threshold, ...] = ()
    fragile: tuple[Flip, ...] = ()

    def __post_init__(self) -> None:
        if self.claim not in CLAIMS:
            raise ParameterError(f"claim must be one of {', '.join(CLAIMS)}, got {self.claim!r}")
        if not isinstance(self.verdict, Verdict):
            raise ParameterError(f"verdict must be a Verdict, got {self.verdict!r}")
        if not self.branch:
            object.__setattr__(self, "branch", self.verdict.key)
        if self.verdict is Verdict.HOLDS and CLAIMS[self.claim].part:
            object.__setattr__(self, "verdict", Verdict.CAVEAT)  # tested in part: Claim.part


@dataclass(frozen=True)
class Reading:
    """A chapter's own conclusion from its measurements (not a claim's verdict), as data: the
    ``branch`` its rule took and the ``values`` that the chapter's template for that branch
    says (:func:`attncore.claims.saying.say`)."""

    branch: str
    values: Mapping[str, Any] = field(default_factory=dict)
