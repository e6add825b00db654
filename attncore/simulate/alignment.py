"""Attention to one aligned key among independent ones: the case for 1/d scaling.

After training, a query and the key it should find are correlated. Model it per query:
the aligned key is ``k_1 = rho q + sqrt(1 - rho^2) e`` and the other ``n - 1`` keys are
independent, all with standard normal components. Given ``q``, the logits are exactly

    q.k_1 = rho ||q||^2 + sqrt(1 - rho^2) ||q|| z_1,    q.k_j = ||q|| z_j  (j > 1)

with ``||q||^2`` chi-square with ``d`` degrees of freedom and ``z_j`` iid N(0, 1), so the
logits are drawn in O(n) per query whatever ``d``. The aligned logit grows like ``rho d``
and the others like ``sqrt(d)``: scaled by ``1/sqrt(d)`` the gap grows like ``rho sqrt(d)``
and the weight on the aligned key tends to 1 as the width grows; scaled by ``1/d`` the
logits tend to ``rho`` and 0 and the weight to ``e^rho / (e^rho + n - 1)`` (muP's
width-independent limit, Yang et al. 2022).

>>> w = aligned_key_weight(d=4096, n_keys=8, rho=0.5, scaling="mup", n_queries=2000, seed=0)
>>> round(float(w.mean()), 2), round(mup_limit(n_keys=8, rho=0.5), 2)
(0.19, 0.19)
"""

from __future__ import annotations

import math

import numpy as np

from attncore.checks import ParameterError, finite_real, positive_int
from attncore.random import SeedLike, make_rng
from attncore.softmax import softmax

__all__ = ["SCALINGS", "aligned_key_weight", "mup_limit"]

SCALINGS = {"sqrt_d": lambda d: 1.0 / math.sqrt(d), "mup": lambda d: 1.0 / d}


def aligned_key_weight(
    d: int, n_keys: int, rho: float, scaling: str, n_queries: int, seed: SeedLike
) -> np.ndarray:
    """Softmax weight on the aligned key for each of ``n_queries`` queries.

    >>> aligned_key_weight(16, 4, 0.0, "sqrt_d", 3, seed=1).shape
    (3,)
    """
    d = positive_int("d", d)
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    n_queries = positive_int("n_queries", n_queries)
    rho = finite_real("rho", rho)
    if not -1.0 <= rho <= 1.0:
        raise ParameterError(f"rho must be in [-1, 1], got {rho}")
    if scaling not in SCALINGS:
        raise ParameterError(f"scaling must be one of {', '.join(SCALINGS)}, got {scaling!r}")
    rng = make_rng(seed)
    norm_sq = rng.chisquare(d, size=n_queries)
    z = rng.standard_normal((n_queries, n_keys))
    norm = np.sqrt(norm_sq)
    logits = norm[:, None] * z
    logits[:, 0] = rho * norm_sq + math.sqrt(1.0 - rho * rho) * norm * z[:, 0]
    return softmax(SCALINGS[scaling](d) * logits)[:, 0]


def mup_limit(n_keys: int, rho: float) -> float:
    """Weight on the aligned key as ``d`` grows under ``1/d`` scaling: ``e^rho/(e^rho + n - 1)``.

    >>> mup_limit(2, 0.0)
    0.5
    """
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    rho = finite_real("rho", rho)
    return math.exp(rho) / (math.exp(rho) + n_keys - 1)
