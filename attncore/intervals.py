"""The intervals every number of the book is given with: Student t intervals of a mean over
independent units, simultaneous over several where a verdict reads them together, and
Wilson's interval of a share of successes. The policy that says which one a rule uses is
:mod:`attncore.evidence.statistics`'s; the simulations and the training code use these too.

>>> round(float(t_quantile(0.95, 9)), 3), round(normal_quantile(0.95), 2)
(2.262, 1.96)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

__all__ = ["binomial_interval", "normal_quantile", "t_quantile"]

Degrees = Sequence[float] | np.ndarray | float
"""Degrees of freedom: one number, or one per interval."""


def t_quantile(confidence: float, df: Degrees, comparisons: int = 1) -> np.ndarray:
    """The Student t quantile of a two-sided interval at ``confidence`` with ``df`` degrees of
    freedom, simultaneous over ``comparisons`` intervals (Bonferroni): the half-width of an
    interval of a mean is this times its standard error.

    >>> round(float(t_quantile(0.95, 4)), 3), round(float(t_quantile(0.95, 4, comparisons=3)), 3)
    (2.776, 3.961)
    """
    return stats.t.ppf(1 - (1 - confidence) / (2 * comparisons), df)


def normal_quantile(confidence: float) -> float:
    """The normal quantile of a two-sided interval at ``confidence`` (1.96 at 95 %).

    >>> round(normal_quantile(0.95), 2)
    1.96
    """
    return float(stats.norm.ppf(1 - (1 - confidence) / 2))


def binomial_interval(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's interval at ``level`` for the share of successes behind a count, the interval
    every count of successes over seeds, runs or searches gets (5 of 5 is not certainty).

    >>> [round(x, 2) for x in binomial_interval(5, 5)]
    [0.57, 1.0]
    """
    found = stats.binomtest(int(successes), int(trials)).proportion_ci(level, method="wilson")
    return float(found.low), float(found.high)
