"""The thresholds of the rules on the critical scale (:mod:`attncore.claims.rules.critical_scale`),
each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold

__all__ = ["ABOVE", "BELOW", "COLLAPSED", "CONFIDENCE", "IDENTITY", "ODDS", "STEADY", "TOLERANCE"]

ODDS = Threshold(
    1.0,
    "odds",
    "at the critical scale the exact simplex's self weight tends to 1/2, a token keeping as "
    "much weight as all the others together (odds 1), midway between collapse (odds 0) and "
    "the identity (odds without bound)",
)
"""The self weight's odds whose limiting angle ratio marks the boundary."""

TOLERANCE = Threshold(
    0.15,
    "tolerance",
    "at n = 4096 the boundary's definition alone (odds 1/2 to 2) moves it by ln 2/ln n = 8 % "
    "and the almost-simplex's perturbation by about ln n/(2(d - 1)), 3 % at d = 128, while a "
    "boundary at γ = 1 whatever ρ would be 20 % or more off from ρ = 0.2 on",
)
"""How far, relatively, the measured boundary may lie from ``1/(1 - rho)``."""

BELOW = Threshold(
    2.0,
    "below",
    "'insufficient scaling' read as the critical scale divided by 2, beyond the finite-n "
    "transition, whose width in γ(1 − ρ) is about 1/ln n",
    scale="factor",
)
"""The factor below the critical scale at which collapse is looked for."""

ABOVE = Threshold(
    2.0,
    "above",
    "'excessive scaling' read as the critical scale times 2, beyond the finite-n transition",
    scale="factor",
)
"""The factor above the critical scale at which the identity is looked for."""

COLLAPSED = Threshold(
    0.1,
    "collapsed",
    "an output angle a tenth of the input angle or less: the outputs have closed nine tenths "
    "of the way to one direction",
)
"""Largest angle ratio read as "collapsed to a single direction"."""

IDENTITY = Threshold(
    0.9,
    "identity",
    "an output angle nine tenths of the input angle or more: the layer moved the tokens' "
    "geometry by a tenth at most",
    scale="share",
)
"""Smallest angle ratio read as "attention reduced to the identity"."""

STEADY = Threshold(
    0.05,
    "steady",
    "a change from the smallest to the largest n of the angle ratio or the rows' normalised "
    "entropy (both 0 to 1) whose whole interval stays within 0.05 of no change is read as "
    "none: half the tenth by which the collapse and identity thresholds read 'near 0' and "
    "'near 1'; a wider interval leaves the change undecided",
)
"""Largest change, over the interval of a change with ``n``, read as "no change"."""

CONFIDENCE = Threshold(
    0.95,
    "confidence",
    "the intervals' level, simultaneous over the ρ of the grid: the draws and the Bonferroni "
    "correction control its errors, so no band applies",
    scale="fixed",
)
"""Confidence of the simultaneous intervals over the draws."""
