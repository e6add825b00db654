"""The thresholds of the rules of the chapter "Why sqrt(d)" and its appendix
(:mod:`attncore.claims.rules.variance`), each with the reason a person gives for it."""

from attncore.claims.thresholds import Threshold

__all__ = ["GROWN", "SIMILAR", "SMALLEST_D"]

GROWN = Threshold(
    0.1,
    "margin",
    "a mean square of q·k/√d that grows by more than 10 % over its value 1 has grown: the "
    "softmax of logits 5 % wider moves visibly",
)
"""The rise of the mean square of q·k/√d above 1 from which a reason counts as growing it."""

SIMILAR = Threshold(
    0.05,
    "tolerance",
    "two factors within 5 % of each other give logits within 5 %, too close for the curve of "
    "distortion to tell apart",
)
"""How far k_total/(n√d) may be from 1 for the two to "behave similarly"."""

SMALLEST_D = Threshold(
    16, "smallest_d", "Bernhard's smallest dimension, 16 (his Figure 1)", scale="fixed"
)
"""The smallest d from which Bernhard's statement is read."""
