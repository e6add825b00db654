"""The thresholds of the rules on the string-reversal chapter
(:mod:`attncore.claims.rules.training`), each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold

__all__ = [
    "ABOUT_FIVE",
    "FAST",
    "GUESS",
    "HALF_DATA_TARGET",
    "LARGE_SPREAD",
    "LEARNED",
    "MIN_GAP",
    "SEEN_SHARE",
    "UNIT",
    "WEIGHT_CHANGE",
]

GUESS = Threshold(
    0.05,
    "guess",
    "below 5 % token accuracy a method has learned next to nothing: guessing gives 1 %, and "
    "Chuang's 1/√d stays at 1.5 %",
)
"""Below this validation token accuracy a method has learned nothing (guessing is 1/101)."""

LEARNED = Threshold(0.95, "learned", "Chuang's own mark, 'above 95%'", scale="fixed")
"""At or above this validation token accuracy a method has learned the task."""

LARGE_SPREAD = Threshold(
    10.0,
    "large",
    "logits spread by 10 across keys put about e^10, some 22,000 times, more weight on a key "
    "one spread above the mean than on the mean key: attention starts out one-hot",
)
"""At or above this logit spread at initialization the logits are large (the blog's regime)."""

FAST = Threshold(
    1.5,
    "fast",
    "two paces within a factor 1.5 of each other are 'about the same': the steps to 95 % of "
    "one method's seeds already spread by about that much",
    scale="factor",
)
"""Two methods learn at about the same pace when their median steps to 95% are within this
factor."""

WEIGHT_CHANGE = Threshold(
    1.25,
    "weight_change",
    "a product σ_Wq σ_Wk that moves by less than a quarter has not changed (the noise of "
    "its estimate over one run's weights is far smaller)",
    scale="factor",
)
"""sigma_Wq sigma_Wk has changed when it moved by at least this factor during training."""

UNIT = Threshold(
    2.0,
    "unit",
    "a variance or spread within a factor 2 of 1 is 'about unit': the softmax of logits "
    "spread by 0.5 and by 2 is neither uniform nor one-hot, and the four assumptions give 1",
    scale="factor",
)
"""A variance or spread is "about 1" when within this factor of 1."""

ABOUT_FIVE = Threshold(
    2.0,
    "about_five",
    "Chuang's 'a constant ∼5' read as within a factor 2 of 5 (2.5 to 10): the search itself "
    "steps by decades, so a factor 2 is its resolution before the bisection",
    scale="factor",
)
"""Chuang's "a constant of about 5", read as within this factor of 5."""

MIN_GAP = Threshold(
    0.01,
    "min_gap",
    "a difference of mean accuracies below one point is too small to call a method worse, "
    "whatever the standard error",
)
"""The smallest drop of mean validation accuracy that counts as training worse."""

SEEN_SHARE = Threshold(
    0.01,
    "seen_share",
    "test strings that also stand among the training strings could be answered from memory; "
    "up to 1 % of them cannot lift an accuracy above 95 % by themselves",
)
"""Share of test strings seen in training above which the test accuracy may be memorized."""

HALF_DATA_TARGET = Threshold(0.96, "target", "Chuang's own mark, 'higher than 96%'", "fixed")
"""Chuang's section 4: the dynamic factor reaches "higher than 96%" with about half the data."""
