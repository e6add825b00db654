"""The thresholds of the rules on the rescalings (:mod:`attncore.claims.rules.rescalings`),
each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold
from attncore.evidence.statistics import FAMILY_LEVEL, level, margin

__all__ = [
    "CLEAR",
    "FALLS_TO",
    "FLAT",
    "LEVEL",
    "MANY",
    "MARGIN",
    "MATCHED_MARGIN",
    "MODERATE",
    "PRICE",
    "ROUNDING",
    "SAME_ORDER",
    "STEADY",
    "UNIFORM_SHARE",
]

CLEAR = Threshold(
    2.0,
    "clear",
    "two standard errors, the usual mark of a single comparison, where a rule compares a few "
    "values along one curve or across d; with few draws a t test over them at the same level "
    f"({100 * level(2.0):.1f} %) asks for more ({margin(2):.0f} with two draws, "
    f"{margin(10):.1f} with ten)",
    scale="fixed",
)
"""How many standard errors a single difference must exceed to count."""

LEVEL = Threshold(
    FAMILY_LEVEL,
    "level",
    "the family-wise 5 % of Holm's correction over the configurations a verdict counts",
    scale="fixed",
)
"""The level of the corrected tests of a count over configurations."""

UNIFORM_SHARE = Threshold(
    0.95,
    "uniform_share",
    "attention that keeps more than 95 % of the keys effectively in play is nearly uniform "
    "(the book's convention, reported beside distortion, never held against it)",
    scale="share",
)
"""Effective keys over ``n`` above which attention counts as nearly uniform."""

MANY = Threshold(
    0.5,
    "many",
    "'in many situations' read as in at least half of the configurations measured",
)
"""Share of configurations from which "in many situations" counts as borne out."""

STEADY = Threshold(
    1.25,
    "steady",
    "a quantity that moves by less than a quarter across d is steady (the book's reading of "
    "'stable' and of 'counteract')",
    scale="factor",
)
"""Largest over smallest value across d within which a quantity counts as steady."""

SAME_ORDER = Threshold(
    2.0,
    "same_order",
    "two values within a factor 2 of each other are of the same order",
    scale="factor",
)
"""Largest over smallest value within which a gradient counts as "of the same order"."""

FLAT = Threshold(
    0.05,
    "flat",
    "entropy / ln n and a share range from 0 to 1, and a change of 0.05 (a twentieth of that "
    "range) is the smallest a reader would call a change",
)
"""Absolute change of entropy / ln n or of a share within which it counts as flat."""

FALLS_TO = Threshold(
    0.5,
    "falls_to",
    "'extremely small gradients' read as a Jacobian norm that falls to below half between the "
    "smallest and the largest d",
)
"""The share of its value at the smallest d below which the unscaled Jacobian norm must fall."""

PRICE = Threshold(
    0.5,
    "price",
    "a median gradient reaching the query below half of 1/√d's is a price paid for less saturation",
)
"""Gradient ratio (to 1/√d's, median) below which a rescaling's lower saturation has a price."""

MARGIN = Threshold(
    0.1,
    "margin",
    "near the uniform end both distortions sit on the floor of the curve, where a difference "
    "below a tenth of 1/k_total's W₁ is the floor's, not a rescaling's",
)
"""The share of 1/k_total's W₁ a difference must exceed to call 1/(n√d) worse or better."""

MATCHED_MARGIN = Threshold(
    0.1,
    "matched_margin",
    "once both attend equally sharply, a W₁ lower by less than a tenth of the matched "
    "reference's is no better-kept shape but the spread of a factor from draw to draw (the "
    "book's margin for 'worse' or 'better')",
)
"""The share of the matched reference's W₁ by which a rescaling must distort less, at the same
mean entropy, for its lower distortion to count as a better-kept shape."""

MODERATE = Threshold(
    4.0,
    "moderate",
    "'too large' is not defined: queries up to 4 times longer than drawn are the book's "
    "'moderate' (a query of norm about 4√d instead of √d)",
)
"""Query scale up to which reaching 1/√d's distortion counts against Bernhard's section 3."""

ROUNDING = Threshold(
    1e-12,
    "tolerance",
    "two float64 computations of the same softmax differ by rounding, a few units of 1e-16 "
    "per operation, far below 1e-12",
)
"""The largest difference of two computations of one attention that counts as rounding."""
