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

The objective is maximized (e.g. a validation accuracy); each evaluation is counted,
because in Chuang's setting each one is a training run.

>>> import math
>>> result = chuang_beta_search(lambda b: -(math.log10(b) - math.log10(5.0)) ** 2)
>>> round(result.beta, 1), result.scan_evaluations, result.evaluations
(5.0, 5, 19)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from attncore.checks import finite_real, positive_int, positive_real

__all__ = ["BetaSearchResult", "chuang_beta_search"]

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
