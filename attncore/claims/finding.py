"""What a verdict rule returns: the verdict on one claim, what was measured, how it was checked,
and the thresholds that decided it (with where, inside their bands, the verdict would change).

>>> f = Finding("vaswani-variance", Verdict.HOLDS, "z = 0.3 at d = 64", "Monte Carlo, 10^5 pairs")
>>> f.verdict.value
'holds'
>>> Finding("no-such-claim", Verdict.HOLDS, "", "")
Traceback (most recent call last):
...
attncore.checks.ParameterError: claim must be one of ..., got 'no-such-claim'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from attncore.checks import ParameterError
from attncore.claims.catalogue import CLAIMS, Verdict

if TYPE_CHECKING:
    from attncore.claims.thresholds import Flip, Threshold

__all__ = ["Finding"]


@dataclass(frozen=True)
class Finding:
    """The verdict on ``claim`` (a key of :data:`~attncore.claims.CLAIMS`), the measured
    result in plain words, and the check that produced it; ``thresholds`` and ``fragile`` are
    filled in by :func:`attncore.claims.thresholds.decided_by`: the thresholds the rule used
    and each change of the verdict inside their bands (none: the verdict is not fragile)."""

    claim: str
    verdict: Verdict
    measured: str
    check: str
    thresholds: tuple[Threshold, ...] = ()
    fragile: tuple[Flip, ...] = ()

    def __post_init__(self) -> None:
        if self.claim not in CLAIMS:
            raise ParameterError(f"claim must be one of {', '.join(CLAIMS)}, got {self.claim!r}")
        if not isinstance(self.verdict, Verdict):
            raise ParameterError(f"verdict must be a Verdict, got {self.verdict!r}")
