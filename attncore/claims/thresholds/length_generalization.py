"""The thresholds of the rules on length generalization
(:mod:`attncore.claims.rules.length_generalization`), each with the reason a person gives for
it."""

from attncore.claims.thresholds import Threshold

__all__ = ["CONFIDENCE", "SOLVED"]

CONFIDENCE = Threshold(
    0.95,
    "confidence",
    "the intervals' level, simultaneous over the comparisons of one rule: the seeds and the "
    "Bonferroni correction control its errors, so no band applies",
    scale="fixed",
)
"""Confidence of the intervals over the seeds."""

SOLVED = Threshold(
    0.95,
    "solved",
    "FIRST counts as solved at a length when the lower end of the accuracy's interval is at "
    "least 0.95: the published replication's 0.98 with log-n scaling would pass, its 0.51, "
    "0.73 and 0.89 with standard attention would not",
    scale="share",
)
"""Smallest accuracy (lower interval end) read as "generalizes" at a length."""
