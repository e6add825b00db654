"""The book's statistics policy, in one place: when a difference counts as clear, how many
comparisons a verdict is corrected for, and the intervals beside its numbers.

- **The unit.** Each rule names its experimental unit (a draw of the simulation, a training
  seed, a (method, rate) cell of a sweep); a comparison is a Student t test of the mean paired
  difference over ``draws`` independent units (``draws - 1`` degrees of freedom). With few
  units the test is weak: a rule reads "not clearly" as "undecided", never as "the opposite".
- **One correction, Holm's.** A verdict that can be won by *any one* of several comparisons
  (a count of wins, a refutation on some cell) corrects them together by Holm's step-down
  method (:func:`holm`, :func:`clear`), so that the chance of even one false "clear" in the
  family is at most :data:`FAMILY_LEVEL`. A verdict that needs *every* comparison to pass
  (intersection-union) is not corrected: each must pass on its own.
- **Single differences.** One difference (a few values along one curve) is clear where the t
  test finds it at the level that ``z`` standard errors give a normal statistic
  (:func:`single`): about ``z`` standard errors with many draws, far more with few.
- **Intervals** (:mod:`attncore.intervals`, which the simulations and the training code use
  too). A mean over units gets a Student t interval (``t_quantile``); where a verdict reads
  several intervals at once by where they lie (within a band, beyond a value), they are
  simultaneous over those comparisons, Bonferroni's intervals being the interval form of the
  family-wise guarantee (Holm's method has none). A count of successes gets Wilson's binomial
  interval (``binomial_interval``), never a zero-width one.

>>> p = one_sided_p([-0.30, -0.01, 0.2], [0.02, 0.02, 0.02], draws=10, side="below")
>>> [round(float(x), 3) for x in p]
[0.0, 0.315, 1.0]
>>> holm([0.001, 0.03, 0.04]).tolist()
[True, False, False]
>>> clear([-0.3, -0.2, 0.1], [0.02, 0.02, 0.02], draws=10, side="below").tolist()
[True, True, False]
>>> single([0.3, 0.3], [0.1, 0.1], draws=[30, 2], side="above").tolist()
[True, False]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from attncore.checks import ParameterError

__all__ = [
    "FAMILY_LEVEL",
    "MIN_DRAWS",
    "clear",
    "clear_side",
    "exceeds_p",
    "holm",
    "level",
    "margin",
    "one_sided_p",
    "single",
    "two_sided_p",
]

FAMILY_LEVEL = 0.05
"""The chance, over a whole count of comparisons, of calling even one difference clear that
is not there (Holm's family-wise error rate)."""

MIN_DRAWS = 10
"""Draws per configuration from which a count of clear differences is stable from build to
build at the sizes of effect these chapters measure; with fewer, a rule still counts, and its
text says how many draws it had."""

Values = Sequence[float] | np.ndarray | pd.Series


def one_sided_p(diff: Values, se: Values, draws: Values | int, side: str) -> np.ndarray:
    """One-sided p-values of mean differences ``diff`` with standard errors ``se`` over
    ``draws`` draws each: the chance of a t statistic at least as far to ``side`` (``below``
    or ``above`` 0) if the true difference were 0. A zero standard error gives 0 or 1 (the
    draws agree exactly); a missing one (a single draw) gives 1.

    >>> one_sided_p([0.5], [0.0], 3, "above").tolist(), one_sided_p([0.5], [np.nan], 1, "above")
    ([0.0], array([1.]))
    """
    if side not in ("below", "above"):
        raise ParameterError(f"side must be one of below, above, got {side!r}")
    d = np.asarray(diff, dtype=float)
    s = np.asarray(se, dtype=float)
    n = np.broadcast_to(np.asarray(draws, dtype=float), d.shape)
    sign = -1.0 if side == "below" else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = sign * d / s
        p = stats.t.sf(t, np.maximum(n - 1, 1))
    exact = s == 0
    p = np.where(exact, np.where(sign * d > 0, 0.0, 1.0), p)
    return np.where(np.isnan(s) | (n < 2) | np.isnan(d), 1.0, p)


def two_sided_p(diff: Values, se: Values, draws: Values | int) -> np.ndarray:
    """Two-sided p-values of mean differences ``diff`` (standard errors ``se`` over ``draws``
    draws): twice the smaller of :func:`one_sided_p`'s two sides, at most 1.

    >>> two_sided_p([0.5, 0.0], [0.1, 0.1], 10).round(4).tolist()
    [0.0007, 1.0]
    """
    below, above = (one_sided_p(diff, se, draws, side) for side in ("below", "above"))
    return np.minimum(1.0, 2 * np.minimum(below, above))


def holm(p_values: Values, level: float = FAMILY_LEVEL) -> np.ndarray:
    """Holm's step-down correction: which of ``p_values`` are rejected at the family-wise
    ``level`` (the smallest against level/m, the next against level/(m - 1), ... until one
    is not)."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    limits = level / (p.size - np.arange(p.size))
    passed = p[order] <= limits
    stop = int(np.argmin(passed)) if not passed.all() else p.size
    rejected = np.zeros(p.size, dtype=bool)
    rejected[order[:stop]] = True
    return rejected


def clear(
    diff: Values,
    se: Values,
    draws: Values | int,
    side: str,
    level: float = FAMILY_LEVEL,
) -> pd.Series:
    """Which mean differences are clearly ``below`` or ``above`` 0: one-sided t tests
    (:func:`one_sided_p`) corrected together by :func:`holm`; indexed like ``diff`` when it
    is a Series."""
    p = one_sided_p(diff, se, draws, side)
    index = diff.index if isinstance(diff, pd.Series) else None
    return pd.Series(holm(p, level) if p.size else np.zeros(0, bool), index=index)


def exceeds_p(
    values: Values, se: Values, draws: int | float, ratio: float = 1.0, flat: float = 0.0
) -> np.ndarray:
    """One-sided p values (:func:`one_sided_p`, ``above``) that one of ``values`` exceeds
    ``ratio`` times another plus ``flat``, for every ordered pair (i, j), i != j: the family
    behind a largest-over-smallest spread picked from the data (for :func:`holm`).

    >>> exceeds_p([1.0, 3.0], [0.1, 0.1], 40, ratio=2.0).round(3).tolist()
    [1.0, 0.0]
    """
    v, s = np.asarray(values, dtype=float), np.asarray(se, dtype=float)
    i, j = (a.ravel() for a in np.meshgrid(np.arange(v.size), np.arange(v.size), indexing="ij"))
    i, j = i[i != j], j[i != j]
    diff = v[i] - ratio * v[j] - flat
    return one_sided_p(diff, np.hypot(s[i], ratio * s[j]), draws, "above")


def single(diff: Values, se: Values, draws: Values | int, side: str, z: float = 2.0) -> np.ndarray:
    """Where a single difference ``diff`` (standard error ``se`` over ``draws`` draws) is
    clearly ``below`` or ``above`` 0: its one-sided t test at the level ``z`` standard errors
    give a normal statistic (2.3 % for ``z`` = 2). Never with one draw.

    >>> single([-0.3, -0.3], [0.1, float("nan")], draws=[40, 1], side="below").tolist()
    [True, False]
    """
    return one_sided_p(diff, se, draws, side) < level(z)


def level(z: float = 2.0) -> float:
    """The one-sided level of :func:`single`: the chance a normal statistic passes ``z``.

    >>> round(100 * level(2.0), 1)
    2.3
    """
    return float(stats.norm.sf(z))


def clear_side(diff: float, se: float, draws: int, z: float = 2.0) -> str | None:
    """On which side of 0 one difference clearly lies (:func:`single` on each side):
    ``above``, ``below``, or None where its draws cannot tell.

    >>> clear_side(0.5, 0.1, 40), clear_side(-0.5, 0.1, 40), clear_side(0.5, 0.1, 2)
    ('above', 'below', None)
    """
    for side in ("above", "below"):
        if single([diff], [se], draws, side, z)[0]:
            return side
    return None


def margin(draws: int, z: float = 2.0) -> float:
    """How many standard errors :func:`single` asks of a difference over ``draws`` draws.

    >>> round(margin(2), 1), round(margin(10), 2), round(margin(10_000), 2)
    (14.0, 2.32, 2.0)
    """
    if draws < 2:
        return math.inf
    return float(stats.t.ppf(stats.norm.cdf(z), draws - 1))
