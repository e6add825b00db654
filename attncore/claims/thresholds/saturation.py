"""The thresholds of the rules on softmax saturation (:mod:`attncore.claims.rules.saturation`),
each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold

__all__ = ["BLOG_PEAK", "JACOBIAN_ROUNDINGS", "MATERIAL_FACTOR", "PEAKED", "SHIFT_ROUNDINGS"]

SHIFT_ROUNDINGS = Threshold(
    4,
    "roundings",
    "adding the shift rounds each logit once, and the maximum subtraction and exp carry that "
    "error into each probability: a few roundings, four",
)
"""Shift invariance holds numerically when the softmax moves by at most this many roundings
of the shifted logits (adding the shift rounds each logit once; the maximum subtraction
and ``exp`` carry that error into the probabilities, relative to each of them)."""

PEAKED = Threshold(
    0.9,
    "peaked_level",
    "rows whose mean largest probability reaches the chapter's saturation threshold are peaked",
    scale="share",
)
"""The mean largest probability from which rows count as peaked (the chapter passes its
saturation threshold)."""

JACOBIAN_ROUNDINGS = Threshold(
    4,
    "jacobian_roundings",
    "the complex-step Jacobian and the formula each round a few times: four times the "
    "rounding bound leaves room for both",
)
"""``diag(s) - s s^T`` agrees with the complex-step Jacobian when they differ by at most this
many times the rounding bound of :func:`attncore.simulate.saturation.jacobian_agreement`."""

BLOG_PEAK = Threshold(
    0.95,
    "peak",
    "the post's own example, whose largest probability 0.95 it calls 'extremely peaked'",
    scale="fixed",
)
"""The largest probability the post calls "extremely close to 1" (the chapter passes the
value computed from the post's example)."""

MATERIAL_FACTOR = Threshold(
    2.0,
    "material",
    "a measure that changes by a factor 2 across the numbers of keys changes materially (the "
    "book's reading of Bernhard's point)",
    scale="factor",
)
"""A measure changes materially with n when its largest mean over the grid of n is at least
this many times its smallest (the book's reading of Bernhard's point)."""
