"""How saturated a softmax row is, and how the softmax distorts a distribution.

Per row of probabilities ``s`` (one query's attention over ``n`` keys), without forming
any ``n x n`` matrix. Entropy (also ``/ ln n``), the effective number of keys
``1 / sum s_i^2`` and the Frobenius norm of the Jacobian ``J = diag(s) - s s^T`` are in
:mod:`attncore.softmax`; this module adds the largest probability, the share of
saturated rows, and the norm of the gradient of ``s`` with respect to the query.

Gradient with respect to the query: with logits ``c K q`` the chain rule gives
``ds/dq = c J K``. Row ``i`` of ``J K`` is ``s_i (k_i - kbar)`` with ``kbar = s^T K``,
hence ``||J K||_F^2 = sum_i s_i^2 ||k_i - kbar||^2``, computed from two ``m x n`` by
``n x d`` products (see :func:`query_gradient_norm`).

>>> s = np.array([[0.5, 0.5], [1.0, 0.0]])
>>> max_probability(s).tolist(), saturated_share(max_probability(s), threshold=0.9)
([0.5, 1.0], 0.5)
>>> query_gradient_norm(s, np.array([[1.0, 0.0], [0.0, 1.0]])).tolist()
[0.5, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from attncore.checks import ParameterError, finite_array, finite_real
from attncore.rescalings import row_norms
from attncore.softmax import _probabilities

__all__ = [
    "NEAR_ZERO",
    "SATURATION_THRESHOLD",
    "Distortion",
    "ShapeReference",
    "check_threshold",
    "cosine_query_gradient_norm",
    "distortion",
    "extreme_share",
    "max_probability",
    "query_gradient_norm",
    "saturated_share",
]


SATURATION_THRESHOLD = 0.9
"""The default largest probability above which a row counts as saturated: the one default
of every function with a ``threshold`` (a row with 0.9 on one key is nearly one-hot)."""

NEAR_ZERO = 0.1
"""A probability below ``NEAR_ZERO / n`` (a tenth of the uniform weight) counts as near 0."""


def check_threshold(threshold: object) -> float:
    """Return ``threshold`` if it is a probability in (0, 1).

    >>> check_threshold(1.0)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: threshold must be a real number in (0, 1), got 1.0
    """
    t = finite_real("threshold", threshold)
    if not 0.0 < t < 1.0:
        raise ParameterError(f"threshold must be a real number in (0, 1), got {threshold!r}")
    return t


def max_probability(s: ArrayLike) -> np.ndarray:
    """Largest probability per row: 1/n when uniform, 1 when saturated.

    >>> max_probability([0.1, 0.7, 0.2]).tolist()
    0.7
    """
    return _probabilities(s).max(axis=-1)


def saturated_share(max_probabilities: ArrayLike, threshold: float = SATURATION_THRESHOLD) -> float:
    """Share of rows whose largest probability is above ``threshold``.

    >>> saturated_share([0.95, 0.5])
    0.5

    >>> saturated_share([0.995, 0.5, 0.999, 0.2], threshold=0.99)
    0.5
    """
    top = finite_array("max_probabilities", max_probabilities)
    return float(np.mean(top > check_threshold(threshold)))


def extreme_share(
    probabilities: ArrayLike,
    n: int,
    threshold: float = SATURATION_THRESHOLD,
    near_zero: float = NEAR_ZERO,
) -> float:
    """Share of softmax components near 0 or 1: below ``near_zero / n`` or above ``threshold``.

    Bernhard's section 6 places vanishing gradients where "individual components resulting
    from applying softmax approach 0 or 1"; ``probabilities`` are such components (any
    shape, e.g. the first component of every query), ``n`` the number of keys of their rows.

    >>> extreme_share([0.001, 0.2, 0.95, 0.5], n=8)
    0.5
    """
    p = finite_array("probabilities", probabilities)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ParameterError(f"n must be an integer >= 2, got {n!r}")
    low = finite_real("near_zero", near_zero)
    if not 0.0 < low < 1.0:
        raise ParameterError(f"near_zero must be a real number in (0, 1), got {near_zero!r}")
    return float(np.mean((p < low / n) | (p > check_threshold(threshold))))


def _jk_frobenius_squared(
    p: np.ndarray, keys: np.ndarray, key_sq_norms: np.ndarray, stacked: np.ndarray | None = None
) -> np.ndarray:
    """``||J K||_F^2`` per row of ``p`` (``m x n`` float64) with two BLAS products.

    Shifting every key by the key ``k_a`` of the row's largest probability leaves ``J K``
    unchanged (``J 1 = 0``). With ``u_i = k_i - k_a`` and ``ubar = s^T U``,
    ``||J K||_F^2 = sum w_i ||u_i||^2 - 2 (w^T U).ubar + ||ubar||^2 sum w`` where
    ``w = s^2``. Every sum runs over ``i != a`` only (``u_a = 0``), so a saturated row
    gives small terms without the cancellation of the unshifted expansion. The products
    ``s_{-a}^T K`` and ``w_{-a}^T K`` run in ``keys.dtype``; ``stacked`` is an optional
    ``(2m, n)`` work buffer of that dtype.
    """
    m, n = p.shape
    rows = np.arange(m)
    top = p.argmax(axis=1)
    s_top = p[rows, top]
    stacked = np.empty((2 * m, n), keys.dtype) if stacked is None else stacked[: 2 * m]
    others, others_sq = stacked[:m], stacked[m:]
    others[...] = p
    others[rows, top] = 0.0
    np.square(others, out=others_sq)
    rest = others.sum(axis=1, dtype=np.float64)
    rest_sq = others_sq.sum(axis=1, dtype=np.float64)
    w_key_sq = (others_sq @ key_sq_norms).astype(np.float64)
    products = (stacked @ keys).astype(np.float64)
    s_keys, w_keys = products[:m], products[m:]
    k_top = keys[top].astype(np.float64)
    u_bar = s_keys - rest[:, None] * k_top
    w_u = w_keys - rest_sq[:, None] * k_top
    w_uu = w_key_sq + rest_sq * key_sq_norms[top] - 2.0 * np.einsum("ij,ij->i", w_keys, k_top)
    jk2 = (
        w_uu
        - 2.0 * np.einsum("ij,ij->i", w_u, u_bar)
        + np.einsum("ij,ij->i", u_bar, u_bar) * (rest_sq + s_top**2)
    )
    return np.maximum(jk2, 0.0)


def _jy_squared(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``||J y||^2 = sum_i s_i^2 (y_i - s.y)^2`` per row, for a logit row ``y`` (``m x n``)."""
    y_bar = np.einsum("ij,ij->i", p, y)
    return np.einsum("ij,ij,ij->i", p, p, np.square(y - y_bar[:, None]))


def _rows_and_keys(s: ArrayLike, keys: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    p = np.atleast_2d(_probabilities(s)).astype(np.float64)
    k = finite_array("keys", keys, ndim=2).astype(np.float64)
    if p.ndim != 2 or p.shape[1] != k.shape[0]:
        raise ParameterError(
            f"s must have one column per key ({k.shape[0]}), got shape {np.shape(s)}"
        )
    return p, k


def query_gradient_norm(s: ArrayLike, keys: ArrayLike, factor: float = 1.0) -> np.ndarray:
    """``||ds/dq||_F = |c| ||J K||_F`` per row, for logits ``c q . k_i`` with softmax ``s``.

    ``J K`` has rows ``s_i (k_i - kbar)``, ``kbar = s^T K``, so
    ``||J K||_F^2 = sum_i s_i^2 ||k_i - kbar||^2``; dividing the logits by ``k_total``
    shrinks the gradient by the same factor.

    >>> keys = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> query_gradient_norm([0.5, 0.5], keys, factor=2.0).tolist()
    [1.0]
    """
    p, k = _rows_and_keys(s, keys)
    c = finite_real("factor", factor)
    return abs(c) * np.sqrt(_jk_frobenius_squared(p, k, np.einsum("ij,ij->i", k, k)))


def cosine_query_gradient_norm(
    s: ArrayLike, queries: ArrayLike, keys: ArrayLike, gain: float
) -> np.ndarray:
    """``||ds/dq||_F`` per row for QK-norm logits ``g cos(q, k_i)`` with softmax ``s``.

    ``d(g cos_i)/dq = (g/||q||) (I - qhat qhat^T) khat_i``, so
    ``ds/dq = (g/||q||) J Khat P`` with ``P`` the projection orthogonal to ``q`` and
    ``||J Khat P||_F^2 = ||J Khat||_F^2 - ||J cos||^2`` (as ``Khat qhat = cos``).

    >>> q, keys = np.array([[2.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 3.0]])
    >>> s = np.exp([[1.0, 0.0]]) / np.exp([[1.0, 0.0]]).sum()
    >>> cosine_query_gradient_norm(s, q, keys, gain=1.0).round(4).tolist()
    [0.139]
    """
    p, k = _rows_and_keys(s, keys)
    q = finite_array("queries", queries, ndim=2).astype(np.float64)
    if q.shape != (p.shape[0], k.shape[1]):
        raise ParameterError(
            f"queries must have shape {(p.shape[0], k.shape[1])} (rows of s, key dimension), "
            f"got {q.shape}"
        )
    g = finite_real("gain", gain)
    q_norms = row_norms("queries", q)
    k_hat = k / row_norms("keys", k)[:, None]
    cosines = (q / q_norms[:, None]) @ k_hat.T
    jk2 = _jk_frobenius_squared(p, k_hat, np.ones(k.shape[0]))
    return np.abs(g) / q_norms * np.sqrt(np.maximum(jk2 - _jy_squared(p, cosines), 0.0))


@dataclass(frozen=True)
class Distortion:
    """How one component's distribution changes from ``before`` to ``after`` rescaling.

    Changes of skewness and excess kurtosis (after minus before), and the Wasserstein-1
    and Kolmogorov-Smirnov distances between the two samples, each standardized to mean
    0 and standard deviation 1 (so only the shape counts, not location or scale).
    """

    skewness_change: float
    kurtosis_change: float
    wasserstein: float
    ks_statistic: float
    ks_pvalue: float


def _standardized(name: str, sample: ArrayLike) -> np.ndarray:
    x = finite_array(name, sample, ndim=1)
    if x.size < 3:
        raise ParameterError(f"{name} must have at least 3 values, got {x.size}")
    sd = x.std()
    if sd == 0:
        raise ParameterError(f"{name} must not be constant (standard deviation 0)")
    return (x - x.mean()) / sd


def distortion(before: ArrayLike, after: ArrayLike) -> Distortion:
    """Shape change between two samples (e.g. ``q_i . k_1`` and its softmax probability).

    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal(2000)
    >>> lognormal = distortion(x, np.exp(x))
    >>> round(lognormal.skewness_change, 2), round(lognormal.ks_statistic, 3)
    (3.68, 0.207)
    """
    b, a = _standardized("before", before), _standardized("after", after)
    ks = stats.ks_2samp(b, a)
    return Distortion(
        skewness_change=float(stats.skew(a) - stats.skew(b)),
        kurtosis_change=float(stats.kurtosis(a) - stats.kurtosis(b)),
        wasserstein=float(stats.wasserstein_distance(b, a)),
        ks_statistic=float(ks.statistic),
        ks_pvalue=float(ks.pvalue),
    )


class ShapeReference:
    """The standardized, sorted "before" sample of one draw, against which every rescaling's
    "after" sample is measured: :meth:`distortion` gives the numbers of
    :func:`distortion` (Wasserstein-1, Kolmogorov-Smirnov statistic,
    changes of skewness and excess kurtosis) without its p-value, for samples of equal size.

    With equal sizes, the Wasserstein-1 distance is the mean absolute difference of the
    sorted samples, and the sample moments are those of scipy's ``skew`` and ``kurtosis``
    (biased, Fisher). Sorting "before" once per draw and skipping scipy's per-call
    overhead makes a sweep of thousands of comparisons several times faster.

    >>> x = np.random.default_rng(0).standard_normal(2000)
    >>> reference, slow = ShapeReference(x), distortion(x, np.exp(x))
    >>> fast = reference.distortion(np.exp(x))
    >>> bool(np.isclose(fast.wasserstein, slow.wasserstein)), fast.ks_statistic == slow.ks_statistic
    (True, True)
    """

    def __init__(self, before: ArrayLike) -> None:
        z = _standardized("before", before)
        self.sorted = np.sort(z)
        self.skewness = float(np.mean(z**3))
        self.kurtosis = float(np.mean(z**4) - 3.0)

    def distortion(self, after: ArrayLike) -> Distortion:
        """Shape change from the reference to ``after`` (same size); ``ks_pvalue`` is NaN."""
        z = _standardized("after", after)
        if z.size != self.sorted.size:
            raise ParameterError(
                f"after must have as many values as before ({self.sorted.size}), got {z.size}"
            )
        a = np.sort(z)
        b = self.sorted
        both = np.concatenate([b, a])
        gap = np.searchsorted(b, both, side="right") - np.searchsorted(a, both, side="right")
        return Distortion(
            skewness_change=float(np.mean(z**3)) - self.skewness,
            kurtosis_change=float(np.mean(z**4) - 3.0) - self.kurtosis,
            wasserstein=float(np.mean(np.abs(a - b))),
            ks_statistic=float(np.abs(gap).max() / b.size),
            ks_pvalue=math.nan,
        )
