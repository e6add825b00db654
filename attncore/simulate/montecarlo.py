"""Monte Carlo estimates of the moments of q.k, with standard errors, to set beside closed forms.

:func:`pair_dot_products` draws independent query-key pairs from a model of
:mod:`attncore.distributions`; :func:`estimate_moments` returns the sample mean, variance
and kurtosis with their standard errors, so a closed form can be judged by how many
standard errors it lies from the estimate (:attr:`MomentEstimate.z_mean` and friends).

>>> from attncore.distributions import Independent
>>> sample = pair_dot_products(Independent(), d=16, n_pairs=20_000, seed=0)
>>> est = estimate_moments(sample)
>>> abs(est.var - 16) < 4 * est.var_se
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from attncore.checks import ParameterError, finite_array, positive_int
from attncore.distributions import Independent, QueryKeyModel
from attncore.random import SeedLike, make_rng

__all__ = ["MomentEstimate", "estimate_moments", "pair_dot_products"]

_PAIRS_PER_CHUNK = 1 << 21  # query and key components held at once (16 MiB each in float64)


def pair_dot_products(model: QueryKeyModel, d: int, n_pairs: int, seed: SeedLike) -> np.ndarray:
    """``n_pairs`` independent draws of ``q.k`` from ``model`` in dimension ``d``.

    For :class:`~attncore.distributions.Independent` models the pairs are drawn in chunks
    (row ``i`` of the queries with row ``i`` of the keys). Other models share a draw
    across the vectors of one ``sample`` call (the common component of ``Correlated``,
    the weights of ``Projected``), so each pair comes from its own call: the pairs are then
    independent and the moments are the unconditional ones the closed forms state.

    >>> from attncore.distributions import Projected
    >>> pair_dot_products(Projected(d_x=4, self_attention=True), 8, 3, seed=1).shape
    (3,)
    """
    d = positive_int("d", d)
    n_pairs = positive_int("n_pairs", n_pairs)
    rng = make_rng(seed)
    if isinstance(model, Independent):
        chunk = max(1, _PAIRS_PER_CHUNK // d)
        parts = []
        for start in range(0, n_pairs, chunk):
            count = min(chunk, n_pairs - start)
            q, k = model.sample(rng, count, count, d)
            parts.append(np.einsum("ij,ij->i", q, k))
        return np.concatenate(parts)
    out = np.empty(n_pairs)
    for i in range(n_pairs):
        q, k = model.sample(rng, 1, 1, d)
        out[i] = q[0] @ k[0]
    return out


@dataclass(frozen=True)
class MomentEstimate:
    """Sample mean, variance and kurtosis (Pearson, 3 for a normal law) with standard errors.

    The mean's error is ``sd / sqrt(N)``; the variance's is ``sqrt((m4 - m2^2) / N)`` with
    the sample central moments; the kurtosis error comes from ``batches`` batch means, which
    needs no further moment assumptions.
    """

    n: int
    mean: float
    mean_se: float
    var: float
    var_se: float
    kurtosis: float
    kurtosis_se: float

    def z_mean(self, exact: float) -> float:
        """How many standard errors the estimated mean lies from ``exact``."""
        return (self.mean - exact) / self.mean_se

    def z_var(self, exact: float) -> float:
        """How many standard errors the estimated variance lies from ``exact``."""
        return (self.var - exact) / self.var_se

    def z_kurtosis(self, exact: float) -> float:
        """How many standard errors the estimated kurtosis lies from ``exact``."""
        return (self.kurtosis - exact) / self.kurtosis_se


def estimate_moments(sample: np.ndarray, batches: int = 20) -> MomentEstimate:
    """Moments of ``sample`` with standard errors (see :class:`MomentEstimate`).

    >>> est = estimate_moments(np.random.default_rng(0).standard_normal(40_000))
    >>> round(est.var, 2), round(est.kurtosis, 1)
    (1.0, 3.0)
    """
    x = finite_array("sample", sample, ndim=1)
    batches = positive_int("batches", batches, minimum=2)
    if x.size < 10 * batches:
        raise ParameterError(f"sample must hold at least {10 * batches} values, got {x.size}")
    centred = x - x.mean()
    m2, m4 = np.mean(centred**2), np.mean(centred**4)
    if m2 == 0:
        raise ParameterError("sample must not be constant: its standard errors would be 0")
    var = float(np.var(x, ddof=1))
    per_batch = [stats.kurtosis(b, fisher=False) for b in np.array_split(x, batches)]
    return MomentEstimate(
        n=x.size,
        mean=float(x.mean()),
        mean_se=math.sqrt(var / x.size),
        var=var,
        var_se=math.sqrt(max(m4 - m2 * m2, 0.0) / x.size),
        kurtosis=float(stats.kurtosis(x, fisher=False)),
        kurtosis_se=float(np.std(per_batch, ddof=1) / math.sqrt(batches)),
    )
