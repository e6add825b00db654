"""The thresholds of the rules on training stability (:mod:`attncore.claims.rules.stability`),
each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold

__all__ = ["COLLAPSE", "GROWTH"]

GROWTH = Threshold(
    10.0,
    "growth",
    "an order of magnitude: the largest logit of a trained reversal model at a good rate is "
    "tens, and growth that Wortsman et al. call an instability takes it to thousands",
    scale="factor",
)
"""How many times larger the largest attention logit must be at the highest rate than at the
best rate to count as attention-logit growth."""

COLLAPSE = Threshold(
    0.1,
    "collapse",
    "a tenth of the entropy of uniform attention, ln L: the row's weight sits almost all on "
    "one key",
)
"""Share of ``ln L`` below which the lowest head's mean entropy counts as collapsed."""
