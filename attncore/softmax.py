"""The softmax, its Jacobian, and what it does to one row of logits.

All functions work on the last axis, so a ``(m, n)`` array is ``m`` independent rows of
``n`` logits. The softmax subtracts the row maximum first, so it is finite for any
finite logits (the reference R code returns NaN from a logit of 710 on).

>>> s = softmax([0.2, 0.4, 0.1, 0.8])
>>> np.round(s, 3).tolist()
[0.202, 0.247, 0.183, 0.368]
>>> softmax([710.0, 0.0]).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from attncore.checks import ParameterError, finite_array

__all__ = [
    "effective_keys",
    "entropy",
    "jacobian",
    "jacobian_frobenius",
    "softmax",
]


def softmax(logits: ArrayLike, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    >>> softmax(np.array([[1.0, 1.0], [0.0, np.log(3.0)]])).round(2).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    x = finite_array("logits", logits)
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    z /= z.sum(axis=axis, keepdims=True)
    return z


def _probabilities(s: ArrayLike) -> np.ndarray:
    p = finite_array("s", s)
    if (p < 0).any() or not np.allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-9):
        raise ParameterError("s must be probability vectors: entries >= 0 summing to 1 per row")
    return p


def jacobian(s: ArrayLike) -> np.ndarray:
    """Jacobian ``diag(s) - s s^T`` of the softmax at output ``s`` (one row or a stack).

    >>> jacobian([0.5, 0.5]).tolist()
    [[0.25, -0.25], [-0.25, 0.25]]
    """
    p = _probabilities(s)
    return np.einsum("...i,ij->...ij", p, np.eye(p.shape[-1])) - p[..., :, None] * p[..., None, :]


def jacobian_frobenius(s: ArrayLike) -> np.ndarray:
    """Frobenius norm of ``diag(s) - s s^T`` per row, in closed form, without the matrix.

    ``||J||_F^2 = sum s_i^2 - 2 sum s_i^3 + (sum s_i^2)^2``.

    >>> float(jacobian_frobenius([0.5, 0.5]))
    0.5
    """
    p = _probabilities(s)
    p2 = np.einsum("...i,...i->...", p, p)
    p3 = np.einsum("...i,...i,...i->...", p, p, p)
    return np.sqrt(np.maximum(p2 - 2.0 * p3 + p2 * p2, 0.0))


def entropy(s: ArrayLike, normalized: bool = False) -> np.ndarray:
    """Shannon entropy ``-sum s_i ln s_i`` per row (``/ ln n`` if ``normalized``).

    >>> float(entropy([0.25] * 4, normalized=True))
    1.0
    """
    p = _probabilities(s)
    h = -np.sum(p * np.log(np.where(p > 0, p, 1.0)), axis=-1)
    if normalized:
        n = p.shape[-1]
        if n < 2:
            raise ParameterError("s must have at least 2 entries per row to normalize entropy")
        h = h / np.log(n)
    return h


def effective_keys(s: ArrayLike) -> np.ndarray:
    """Effective number of keys ``1 / sum s_i^2`` per row (1 when saturated, n when uniform).

    >>> float(effective_keys([0.25] * 4))
    4.0
    """
    p = _probabilities(s)
    return 1.0 / np.einsum("...i,...i->...", p, p)
