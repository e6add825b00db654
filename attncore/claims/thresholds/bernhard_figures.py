"""The thresholds of the rules on Bernhard's figures
(:mod:`attncore.claims.rules.bernhard_figures`), each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold
from attncore.evidence.statistics import level

__all__ = [
    "FAMILY_LEVEL",
    "LAW_LEVEL",
    "MUCH",
    "NEAR_ZERO_WEIGHT",
    "NOMINAL_LEVEL",
    "SHARE_REQUIRED",
    "SKEWED",
    "Z",
]

Z = Threshold(
    2.0,
    "z",
    "two standard errors, the usual mark of a single comparison; with few draws a t test over "
    f"them at the same level ({100 * level(2.0):.1f} %) asks for more",
    scale="fixed",
)
"""The level, in standard errors of a normal statistic, at which a mean counts as clearly
beyond a mark: a t test over its draws (:func:`attncore.evidence.statistics.single`)."""

SHARE_REQUIRED = Threshold(
    0.95,
    "share_required",
    "'it is apparent / clear from the plot' read as: a single draw, what one printed figure "
    "shows, shows it 19 times in 20",
    scale="share",
)
"""The share of single draws that must show what a figure is said to show."""

SKEWED = Threshold(
    1.0,
    "skewed",
    "a skewness above 1 marks a highly skewed sample by the usual convention: 'pronounced'",
)
"""The skewness change above which a right skew counts as pronounced."""

NEAR_ZERO_WEIGHT = Threshold(
    0.1,
    "near_zero_weight",
    "a median weight below a tenth of the uniform share 1/n is 'weighted heavily near 0'",
)
"""The median weight, in units of 1/n, below which the weights sit heavily near 0."""

MUCH = Threshold(
    0.5,
    "much",
    "'much better' read as less than half the distortion, on both distances",
)
"""The ratio of distortions below which one scaling keeps the shape much better."""

FAMILY_LEVEL = Threshold(
    0.05,
    "level",
    "the family-wise 5 % over the two comparisons (Bonferroni)",
    scale="fixed",
)
"""The family-wise level of the two comparisons of the vanishing-gradient inference."""

LAW_LEVEL = Threshold(
    0.01,
    "law_level",
    "the keys are exchangeable by construction, so a false 'does not hold' should be rare: 1 "
    "run in 100",
    scale="fixed",
)
"""Family-wise level of the in-law comparison of key 1 with the other keys: the keys are
exchangeable by construction, so a false "does not hold" should be rare (1 run in 100)."""

NOMINAL_LEVEL = Threshold(
    0.05, "nominal_level", "the 5 % level of the KS critical value", scale="fixed"
)
"""The level of the KS critical value: the share of components that would pass it by chance
if they were independent samples of one law."""
