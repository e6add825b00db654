"""Chuang's dynamic search for the softmax scaling factor beta.

Chuang (2023, section 2) proposes to "try beta in {10^N, 10^-N} for N = 0, 1, 2, ..., then
run a binary search to narrow down the range of the best scaling factor". He gives no
further detail; :func:`chuang_beta_search` is one faithful reading, stated fully:

1. **Decade scan.** Evaluate the objective at 1, then 10 and 0.1, then 100 and 0.01, ...
   and stop after the first N at which neither new point improves on the best so far
   (or at ``max_exponent``, or when ``beta * max_logit`` would overflow ``exp``).
2. **Bracket search.** The best decade and its two neighbours bracket the optimum in
   ``log10 beta``. A binary search for a maximum compares two interior points and drops
   the part of the bracket beyond the worse one; the golden-section search places them so
   that one is reused at the next step (one new evaluation per step, the bracket shrinks
   by 0.618), until the bracket is narrower than ``tolerance`` decades. The result is the
   better of the last two interior points; with a noisy objective it can be worse than a
   point seen earlier, which is the price of trusting each comparison (the chapter
   "Beyond initialization" measures how often).

The objective is maximized (e.g. a validation accuracy); each evaluation is counted. Chuang
runs the search "during the training after either each iteration or batch"; reading each
evaluation as one training run per candidate beta is the book's interpretation.

:func:`chuang_grid_search` reads "narrow down the range" for a machine that evaluates many
candidates at once (the training chapter trains them together): the decade scan is one round,
then each round puts a grid of points inside the bracket around the best so far, a grid that
shrinks by ``max_exponent + 1`` per round, until its spacing is below the tolerance. On an
objective with one maximum both searches land within the tolerance of it
(``tests/test_chuang.py``); on a plateau or a noisy objective they can stop at different
points of equal value.

:func:`halving_search` spends the budget where it matters (successive halving, Jamieson &
Talwalkar 2016; Li et al. 2018): every beta of a grid of spacing ``tolerance`` decades is
tried with a small fraction of the budget, the better half with twice as much, and so on,
the full budget only for the last two. It needs an objective that takes a budget, and it finds
the grid's best only where short budgets rank the betas as the full one does.

To see whether the search finds the best beta, the book adds a problem whose best beta is
known (:class:`CalibrationProblem`: labels drawn from ``softmax(beta* z)``, objective the
mean log-likelihood) and a noisy version of it, where every evaluation sees a fresh
subsample, a stand-in for one short training run (:func:`noisy_search_errors`).

>>> import math
>>> result = chuang_beta_search(lambda b: -(math.log10(b) - math.log10(5.0)) ** 2)
>>> round(result.beta, 1), result.scan_evaluations, result.evaluations
(5.0, 5, 19)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attncore.checks import ParameterError, finite_real, positive_int, positive_real
from attncore.random import SeedLike, make_rng
from attncore.softmax import softmax

__all__ = [
    "BetaSearchResult",
    "CalibrationProblem",
    "chuang_beta_search",
    "chuang_grid_search",
    "halving_search",
    "noisy_search_errors",
]

_LOG_MAX_FLOAT64 = math.log(1.7976931348623157e308)  # exp overflows above this (709.78)


@dataclass(frozen=True)
class BetaSearchResult:
    """The beta found, its objective value, and every evaluation in order."""

    beta: float
    value: float
    history: tuple[tuple[float, float], ...]
    scan_evaluations: int

    @property
    def evaluations(self) -> int:
        """Number of objective evaluations (training runs, in Chuang's setting)."""
        return len(self.history)


def chuang_beta_search(
    objective: Callable[[float], float],
    *,
    max_exponent: int = 6,
    tolerance: float = 0.01,
    max_logit: float | None = None,
) -> BetaSearchResult:
    """Maximize ``objective(beta)`` by a decade scan and a bisection in ``log10 beta``.

    ``tolerance`` is the final bracket width in decades (0.01 decades is 2.3% in beta).
    ``max_logit``, if given, is the largest |logit| the beta multiplies: no beta with
    ``beta * max_logit`` above the float64 overflow bound of ``exp`` (709.78) is tried.
    """
    max_exponent = positive_int("max_exponent", max_exponent, minimum=0)
    tolerance = positive_real("tolerance", tolerance)
    if max_logit is not None:
        max_logit = positive_real("max_logit", max_logit)
    history: list[tuple[float, float]] = []

    def evaluate(log_beta: float) -> float:
        beta = 10.0**log_beta
        value = finite_real("objective(beta)", objective(beta))
        history.append((beta, value))
        return value

    def allowed(exponent: int) -> bool:
        return max_logit is None or 10.0**exponent * max_logit <= _LOG_MAX_FLOAT64

    values = {0: evaluate(0.0)}
    for n in range(1, max_exponent + 1):
        best_before = max(values.values())
        improved = False
        for exponent in (n, -n):
            if allowed(exponent):
                values[exponent] = evaluate(float(exponent))
                improved |= values[exponent] > best_before
        if not improved:
            break
    scan = len(history)
    best = max(values, key=values.__getitem__)
    ceiling = math.inf if max_logit is None else math.log10(_LOG_MAX_FLOAT64 / max_logit)
    low, high = best - 1.0, min(best + 1.0, ceiling)
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    left, right = high - ratio * (high - low), low + ratio * (high - low)
    f_left, f_right = evaluate(left), evaluate(right)
    while high - low > tolerance:
        if f_left >= f_right:
            high, right, f_right = right, left, f_left
            left = high - ratio * (high - low)
            f_left = evaluate(left)
        else:
            low, left, f_left = left, right, f_right
            right = low + ratio * (high - low)
            f_right = evaluate(right)
    beta_log = left if f_left >= f_right else right
    value = max(f_left, f_right)
    return BetaSearchResult(10.0**beta_log, value, tuple(history), scan)


def chuang_grid_search(
    objective: Callable[[Sequence[float]], Sequence[float]],
    *,
    max_exponent: int = 6,
    tolerance: float = 0.01,
    max_logit: float | None = None,
) -> BetaSearchResult:
    """Maximize ``objective`` over ``beta`` in rounds of candidates evaluated together: the
    book's reading of Chuang's search for a machine that evaluates many ``beta`` at once.

    ``objective(betas)`` returns one value per beta. The first round is the decade scan whole:
    ``10^0``, ``10^1``, ``10^-1``, ... up to ``10^+-max_exponent`` (those ``max_logit`` allows,
    as in :func:`chuang_beta_search`). Each later round narrows the range around the best
    ``beta`` so far, ``b`` (in ``log10 beta``), found on a grid of spacing ``h``: ``2 N`` new
    points ``b +- j h'`` for ``j = 1 .. N`` (``N = max_exponent``), ``h' = h / (N + 1)``, the
    interior of the bracket ``[b - h, b + h]`` between ``b``'s two neighbours. It stops when the
    spacing is at most ``tolerance`` decades: for an objective with one maximum, the ``beta``
    returned is then within ``tolerance`` decades of it, as the golden-section search's is.
    Among equal values the one evaluated first wins (the scan's order, nearest first), as in the
    decade scan of :func:`chuang_beta_search`.

    >>> result = chuang_grid_search(
    ...     lambda betas: [-(math.log10(b) - math.log10(5.0)) ** 2 for b in betas],
    ...     max_exponent=3, tolerance=0.1)
    >>> round(result.beta, 1), result.scan_evaluations, result.evaluations
    (5.0, 7, 19)
    """
    max_exponent = positive_int("max_exponent", max_exponent, minimum=1)
    tolerance = positive_real("tolerance", tolerance)
    if max_logit is not None:
        max_logit = positive_real("max_logit", max_logit)
    ceiling = math.inf if max_logit is None else math.log10(_LOG_MAX_FLOAT64 / max_logit)
    history: list[tuple[float, float]] = []
    logs: list[float] = []

    def evaluate(candidates: list[float]) -> None:
        candidates = [c for c in candidates if c <= ceiling]
        betas = [10.0**c for c in candidates]
        values = list(objective(betas))
        if len(values) != len(betas):
            raise ParameterError(
                f"objective must return one value per beta ({len(betas)}), got {len(values)}"
            )
        for c, beta, value in zip(candidates, betas, values, strict=True):
            history.append((beta, finite_real("objective(beta)", value)))
            logs.append(c)

    evaluate([float(e) for n in range(max_exponent + 1) for e in dict.fromkeys((n, -n))])
    scan = len(history)
    spacing = 1.0
    while spacing > tolerance:
        best = logs[_first_best(history)]
        spacing /= max_exponent + 1
        steps = [j * spacing for n in range(1, max_exponent + 1) for j in (n, -n)]
        evaluate([best + step for step in steps])
    index = _first_best(history)
    return BetaSearchResult(history[index][0], history[index][1], tuple(history), scan)


def halving_search(
    objective: Callable[[Sequence[float], int], Sequence[float]],
    *,
    budget: int,
    max_exponent: int = 3,
    tolerance: float = 0.1,
    keep: int = 2,
) -> tuple[BetaSearchResult, tuple[int, ...]]:
    """Maximize ``objective(betas, steps)`` (one value per beta after ``steps`` of training,
    say) over a grid in ``log10 beta`` from ``-max_exponent`` to ``max_exponent`` of spacing at
    most ``tolerance`` (the integers on it) by successive halving: the whole grid at the
    smallest budget, then the better half (rounded up) at twice it, until at most ``keep``
    remain, which get ``budget``. Ties go to the beta nearer 1 (the decade scan's order).
    Returns the result (every evaluation in order; ``scan_evaluations`` the first rung's) and
    the budget of each evaluation.

    >>> result, budgets = halving_search(
    ...     lambda betas, steps: [-(math.log10(b) - math.log10(5.0)) ** 2 for b in betas],
    ...     budget=64, max_exponent=3, tolerance=0.1)
    >>> round(result.beta, 2), result.scan_evaluations, result.evaluations, sum(budgets)
    (5.01, 61, 122, 758)
    """
    budget = positive_int("budget", budget)
    max_exponent = positive_int("max_exponent", max_exponent, minimum=1)
    tolerance = positive_real("tolerance", tolerance)
    keep = positive_int("keep", keep)
    per_decade = math.ceil(1 / tolerance - 1e-9)
    alive = [
        k / per_decade for k in range(-max_exponent * per_decade, max_exponent * per_decade + 1)
    ]
    sizes = [len(alive)]
    while sizes[-1] > keep:
        sizes.append(math.ceil(sizes[-1] / 2))
    history: list[tuple[float, float]] = []
    budgets: list[int] = []
    for rung, size in enumerate(sizes):
        alive = alive[:size]
        steps = max(1, budget >> (len(sizes) - 1 - rung))
        values = list(objective([10.0**c for c in alive], steps))
        if len(values) != len(alive):
            raise ParameterError(
                f"objective must return one value per beta ({len(alive)}), got {len(values)}"
            )
        scored = [finite_real("objective(beta)", v) for v in values]
        history += [(10.0**c, v) for c, v in zip(alive, scored, strict=True)]
        budgets += [steps] * len(alive)
        ranked = sorted(
            zip(alive, scored, strict=True), key=lambda cv: (-cv[1], abs(cv[0]), -cv[0])
        )
        alive = [c for c, _ in ranked]
    best, value = 10.0 ** alive[0], ranked[0][1]
    return BetaSearchResult(best, value, tuple(history), sizes[0]), tuple(budgets)


def _first_best(history: Sequence[tuple[float, float]]) -> int:
    """Index of the first evaluation with the largest value."""
    values = [value for _, value in history]
    return values.index(max(values))


@dataclass(frozen=True)
class CalibrationProblem:
    """The book's test problem for the search: ``n_items`` rows of standard normal logits
    ``z`` and labels drawn from ``softmax(beta_star z)``. The objective, the mean
    log-likelihood of the labels under ``softmax(beta z)``, is maximized by the
    maximum-likelihood beta, close to ``beta_star``, which a fine grid locates.

    >>> problem = CalibrationProblem.draw(beta_star=5.0, n_items=2000, n_classes=10, seed=0)
    >>> betas, values = problem.grid()
    >>> bool(3.5 < betas[np.argmax(values)] < 7.0)
    True
    """

    logits: np.ndarray
    labels: np.ndarray

    @classmethod
    def draw(
        cls, beta_star: float, n_items: int, n_classes: int, seed: SeedLike
    ) -> CalibrationProblem:
        """Draw the logits, then one label per item from ``softmax(beta_star z)``."""
        beta_star = positive_real("beta_star", beta_star)
        n_items = positive_int("n_items", n_items)
        n_classes = positive_int("n_classes", n_classes, minimum=2)
        rng = make_rng(seed)
        logits = rng.standard_normal((n_items, n_classes))
        labels = np.array([rng.choice(n_classes, p=p) for p in softmax(beta_star * logits)])
        return cls(logits, labels)

    @property
    def max_logit(self) -> float:
        """The largest ``|z|``, which bounds the betas the search may try."""
        return float(np.abs(self.logits).max())

    def log_likelihood(self, beta: float, rows: slice | np.ndarray = slice(None)) -> float:
        """Mean log-likelihood of the labels of ``rows`` under ``softmax(beta z)``.

        >>> CalibrationProblem(np.zeros((2, 4)), np.array([0, 3])).log_likelihood(1.0)
        -1.386...
        """
        z = beta * self.logits[rows]
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(log_p[np.arange(len(z)), self.labels[rows]].mean())

    def grid(
        self, low: float = 0.01, high: float = 100.0, points: int = 4001
    ) -> tuple[np.ndarray, np.ndarray]:
        """The objective on a geometric grid of betas from ``low`` to ``high``."""
        betas = np.geomspace(positive_real("low", low), positive_real("high", high), points)
        return betas, np.array([self.log_likelihood(b) for b in betas])


def noisy_search_errors(
    problem: CalibrationProblem,
    items: Sequence[int],
    n_searches: int,
    reference_beta: float,
    *,
    tolerance: float = 0.01,
    seed: SeedLike,
) -> pd.DataFrame:
    """Run :func:`chuang_beta_search` ``n_searches`` times per subsample size in ``items``,
    each evaluation on a fresh subsample of the problem's items (drawn without
    replacement), and measure how far each search ends from ``reference_beta``.

    Columns: ``items``, ``error`` (``|log10(beta_found / reference_beta)|``, in decades) and
    ``evaluations``.

    >>> problem = CalibrationProblem.draw(5.0, 500, 10, seed=0)
    >>> t = noisy_search_errors(problem, [100], 3, 5.0, seed=1)
    >>> t.columns.tolist(), len(t)
    (['items', 'error', 'evaluations'], 3)
    """
    n_items = len(problem.labels)
    if any(positive_int("items", i) > n_items for i in items):
        raise ParameterError(f"items must each be at most the problem's {n_items} items")
    reference_beta = positive_real("reference_beta", reference_beta)
    rng = make_rng(seed)
    rows = []
    for size in items:
        for _ in range(positive_int("n_searches", n_searches)):

            def noisy(beta: float, size: int = size) -> float:
                return problem.log_likelihood(beta, rng.choice(n_items, size=size, replace=False))

            result = chuang_beta_search(noisy, tolerance=tolerance)
            error = abs(math.log10(result.beta / reference_beta))
            rows.append({"items": size, "error": error, "evaluations": result.evaluations})
    return pd.DataFrame(rows)
