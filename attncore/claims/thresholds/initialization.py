"""The thresholds of the rules of the chapter "Beyond initialization"
(:mod:`attncore.claims.rules.initialization`), each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold

__all__ = [
    "EXPONENT_TOLERANCE",
    "MISS_DECADES",
    "MISS_SHARE",
    "SIGNIFICANCE",
    "SMALL_CORRELATION",
    "UNIT_TOLERANCE",
    "Z_LIMIT",
]

MISS_DECADES = Threshold(
    0.1,
    "miss_decades",
    "a search that ends more than 0.1 decade (26 % in β) from the optimum has missed it: the "
    "exact objective's own search lands far closer",
)
"""A search misses when it ends more than this many decades (26 % in beta) from the optimum."""

MISS_SHARE = Threshold(
    0.05,
    "miss_share",
    "a search used in practice may miss one time in twenty, the usual 5 % of a test",
)
"""The share of misses a working search may have; more is a caveat only when a one-sided
binomial test rejects this share at :data:`SIGNIFICANCE`."""

SIGNIFICANCE = Threshold(
    0.05, "significance", "the 5 % level of the one-sided binomial test", scale="fixed"
)
"""Level of the one-sided binomial test of a miss share against :data:`MISS_SHARE`."""

EXPONENT_TOLERANCE = 0.3
"""How closely a fitted growth exponent must be pinned down (its clear margin, in the
exponent's units) to be called the formula's: 0.3 tells 2 (the square of the weight scale)
from 1 (linear) with room to spare."""

UNIT_TOLERANCE = Threshold(
    0.1,
    "unit_tolerance",
    "a variance within 10 % of 1 is 'unit': it moves a logit spread by 5 %, less than any "
    "threshold downstream of it resolves",
)
"""How far from 1 (beyond sampling error) a variance may be and still count as "unit"."""

Z_LIMIT = Threshold(
    4.0,
    "z_limit",
    "4 standard errors rather than 2, since every table makes many comparisons",
    scale="fixed",
)
"""Standard errors beyond which a mean, covariance or variance differs from its target (4
rather than 2: every table makes many such comparisons)."""

SMALL_CORRELATION = Threshold(
    0.05,
    "small_correlation",
    "a correlation of at most 0.05 between entries changes the variance of q·k by a few "
    "percent at most",
)
"""A significant correlation no larger than this counts as small (a caveat, not a failure)."""
