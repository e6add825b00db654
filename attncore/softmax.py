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
    "FLOAT_FORMATS",
    "effective_keys",
    "entropy",
    "exp_overflow_bound",
    "jacobian",
    "jacobian_frobenius",
    "softmax",
    "uniform_jacobian_norm",
]


FLOAT_FORMATS: dict[str, tuple[int, int]] = {
    "float64": (53, 1023),
    "float32": (24, 127),
    "bfloat16": (8, 127),
    "float16": (11, 15),
}
"""Binary floating-point formats as (significand bits with the implicit one, largest exponent)."""


def exp_overflow_bound(name: str) -> float:
    """``ln`` of the largest finite number of the format ``name`` (a key of
    :data:`FLOAT_FORMATS`): ``exp(x)`` overflows to infinity for ``x`` above it.

    The largest finite number is ``(2 - 2^(1 - p)) 2^emax``; bfloat16 keeps float32's
    exponent range, so its bound is float32's, and only float16's is much lower.

    >>> {n: round(exp_overflow_bound(n), 2) for n in FLOAT_FORMATS}
    {'float64': 709.78, 'float32': 88.72, 'bfloat16': 88.72, 'float16': 11.09}
    """
    if name not in FLOAT_FORMATS:
        raise ParameterError(f"name must be one of {', '.join(FLOAT_FORMATS)}, got {name!r}")
    precision, emax = FLOAT_FORMATS[name]
    return float(np.log(2.0 - 2.0 ** (1 - precision)) + emax * np.log(2.0))


def softmax(logits: ArrayLike, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    Half-precision input is computed in single precision and returned in half, so a long row
    of equal logits does not overflow its sum.

    >>> softmax(np.array([[1.0, 1.0], [0.0, np.log(3.0)]])).round(2).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    >>> float(softmax(np.zeros(70_000, np.float16)).sum())
    1.0...
    """
    x = finite_array("logits", logits)
    if not isinstance(axis, int | np.integer) or not -x.ndim <= axis < x.ndim:
        raise ParameterError(f"axis must be an integer in [{-x.ndim}, {x.ndim - 1}], got {axis!r}")
    work = x.astype(np.promote_types(x.dtype, np.float32), copy=False)
    z = np.exp(work - work.max(axis=axis, keepdims=True))
    z /= z.sum(axis=axis, keepdims=True)
    return z.astype(x.dtype, copy=False)


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

    ``||J||_F^2 = sum s_i^2 - 2 sum s_i^3 + (sum s_i^2)^2``, evaluated in a form without
    cancellation (see :func:`_jacobian_frobenius_rows`), so saturated rows keep their
    relative accuracy instead of returning rounding noise.

    >>> float(jacobian_frobenius([0.5, 0.5]))
    0.5
    >>> float(jacobian_frobenius(softmax([40.0, 0.0])))  # 2 s_1 s_2, about 2 e^-40
    8.49...e-18
    """
    return _jacobian_frobenius_rows(_probabilities(s))


def _jacobian_frobenius_rows(p: np.ndarray, overwrite: bool = False) -> np.ndarray:
    """``||diag(s) - s s^T||_F`` per row of probabilities ``p``, unchecked.

    With ``a`` the largest entry of a row, ``t = s_a``, and over the other entries
    ``r = sum s_i``, ``q2 = sum s_i^2``, ``q3 = sum s_i^3``, the closed form becomes
    ``t^2 r^2 + sum s_i^2 (1 - 2 s_i) + q2 (2 t^2 + q2)``: every term is >= 0 because
    ``s_i <= 1/2`` for ``i != a``, so nothing cancels. ``r`` is summed from the small
    entries, never formed as ``1 - t``. With ``overwrite`` the row maxima of ``p`` are
    set to 0 in place, which saves a copy in the engine's hot loop.
    """
    top_index = p.argmax(axis=-1)[..., None]
    top = np.take_along_axis(p, top_index, axis=-1)[..., 0]
    rest = p if overwrite else p.copy()
    np.put_along_axis(rest, top_index, 0.0, axis=-1)
    r = rest.sum(axis=-1)
    q2 = np.einsum("...i,...i->...", rest, rest)
    q3 = np.einsum("...i,...i,...i->...", rest, rest, rest)
    t2 = top * top
    return np.sqrt(t2 * r * r + (q2 - 2.0 * q3) + q2 * (2.0 * t2 + q2))


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


def uniform_jacobian_norm(n: int) -> float:
    """Frobenius norm of the softmax Jacobian for uniform attention over ``n`` keys,
    ``sqrt(n - 1) / n`` (the closed form at ``s = 1/n``).

    >>> uniform_jacobian_norm(4) == float(jacobian_frobenius(np.full(4, 0.25)))
    True
    """
    return float(np.sqrt(n - 1) / n)
