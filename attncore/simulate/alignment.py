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

The scaling is a rescaling of the registry (:mod:`attncore.rescalings`) whose factor does
not read the keys (``sqrt_d``, ``mup``, ``n_sqrt_d``, ``log_n``, ``constant``, ...): the
fast route draws logits, not key vectors.

>>> w = aligned_key_weight(d=4096, n_keys=8, rho=0.5, scaling="mup", n_queries=2000, seed=0)
>>> round(float(w.mean()), 2), round(mup_limit(n_keys=8, rho=0.5), 2)
(0.19, 0.19)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from attncore.checks import ParameterError, finite_real, positive_int
from attncore.random import SeedLike, make_rng
from attncore.rescalings import Rescaling, get_rescaling
from attncore.softmax import softmax

__all__ = [
    "aligned_key_table",
    "aligned_key_weight",
    "keyless_factor",
    "mup_deviation",
    "mup_limit",
]


def keyless_factor(scaling: str | Rescaling, n_keys: int, d: int) -> float:
    """The factor of the registered rescaling ``scaling`` for ``n_keys`` keys of width ``d``,
    for rescalings whose factor does not read the keys.

    The factor is evaluated on all-zero keys: every registered rescaling that reads the
    key lengths fails there, and is refused; so are cosine rescalings (QK-norm), whose
    logits are not ``c q.k``.

    >>> keyless_factor("sqrt_d", 8, 16), keyless_factor("mup", 8, 16)
    (0.25, 0.0625)
    >>> keyless_factor("k_total", 8, 16)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: scaling must be a rescaling whose factor does not read \
the keys (sqrt_d, mup, n_sqrt_d, log_n, constant, ...), got 'k_total'
    """
    rescaling = get_rescaling(scaling)
    refused = ParameterError(
        "scaling must be a rescaling whose factor does not read the keys "
        f"(sqrt_d, mup, n_sqrt_d, log_n, constant, ...), got {rescaling.name!r}"
    )
    if rescaling.cosine:
        raise refused
    try:
        return rescaling.factor_for(np.zeros((n_keys, d)))
    except ParameterError:
        raise refused from None


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
    factor = keyless_factor(scaling, n_keys, d)
    rng = make_rng(seed)
    norm_sq = rng.chisquare(d, size=n_queries)
    z = rng.standard_normal((n_queries, n_keys))
    norm = np.sqrt(norm_sq)
    logits = norm[:, None] * z
    logits[:, 0] = rho * norm_sq + math.sqrt(1.0 - rho * rho) * norm * z[:, 0]
    return softmax(factor * logits)[:, 0]


def aligned_key_table(
    widths: Sequence[int],
    rho_values: Sequence[float],
    scalings: Sequence[str],
    n_keys: int,
    n_queries: int,
    streams: Iterator[SeedLike],
) -> pd.DataFrame:
    """Mean weight on the aligned key and its standard error for every correlation, scaling
    and width (in that nesting order), one generator from ``streams`` per row.

    >>> from attncore.random import spawn
    >>> table = aligned_key_table([16, 64], [0.5], ["sqrt_d", "mup"], 4, 50, iter(spawn(0, 4)))
    >>> table.columns.tolist(), len(table)
    (['rho', 'scaling', 'd', 'weight', 'se'], 4)
    """
    rows = []
    for rho in rho_values:
        for scaling in scalings:
            for d in widths:
                w = aligned_key_weight(d, n_keys, rho, scaling, n_queries, next(streams))
                se = float(w.std(ddof=1)) / math.sqrt(w.size)
                rows.append({"rho": rho, "scaling": scaling, "d": d, "weight": w.mean(), "se": se})
    return pd.DataFrame(rows)


def mup_deviation(table: pd.DataFrame, n_keys: int) -> pd.DataFrame:
    """At the largest width in ``table`` (from :func:`aligned_key_table`), the ``mup`` rows'
    distance from :func:`mup_limit` in standard errors, per correlation.

    >>> t = pd.DataFrame({"rho": [0.0], "scaling": ["mup"], "d": [64], "weight": [0.26],
    ...                   "se": [0.005]})
    >>> mup_deviation(t, 4)["z"].round(2).tolist()
    [2.0]
    """
    last = table[(table["d"] == table["d"].max()) & (table["scaling"] == "mup")].copy()
    limits = [mup_limit(n_keys, rho) for rho in last["rho"]]
    last["limit"] = limits
    last["z"] = (last["weight"] - last["limit"]).abs() / last["se"]
    return last[["rho", "d", "weight", "se", "limit", "z"]].reset_index(drop=True)


def mup_limit(n_keys: int, rho: float) -> float:
    """Weight on the aligned key as ``d`` grows under ``1/d`` scaling: ``e^rho/(e^rho + n - 1)``.

    >>> mup_limit(2, 0.0)
    0.5
    """
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    rho = finite_real("rho", rho)
    return math.exp(rho) / (math.exp(rho) + n_keys - 1)
