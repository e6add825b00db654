"""Rescalings: what multiplies ``q . k`` before the softmax, one named function each.

Following Bernhard (bernhard2023alternatives), the scalar attention is the plain dot
product and the rescaling decides what goes into the softmax. Almost every rescaling is a
factor ``c(K, n, d)`` that multiplies all logits ``q . k`` of the ``n`` keys ``K`` of
dimension ``d``; QK-norm (``cosine=True``) first replaces ``q . k`` by the cosine
``q . k / (||q|| ||k||)`` and then multiplies by its gain.

All rescalings live in :data:`RESCALINGS`; adding one is one function plus its
:func:`register` line. Keyword parameters of the function (with defaults) become the
rescaling's parameters, changed with :meth:`Rescaling.with_params`.

>>> sorted(RESCALINGS)[:4]
['constant', 'cosine', 'k_total', 'key_p_norm']
>>> K = np.array([[3.0, 4.0], [0.0, 5.0]])
>>> RESCALINGS["k_total"].factor_for(K)
0.1
>>> RESCALINGS["ssmax"].with_params(s=2.0).label
'SSMax (s = 2)'
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from attncore.checks import ParameterError, finite_array, finite_real, positive_real

__all__ = [
    "RESCALINGS",
    "Rescaling",
    "from_callable",
    "get_rescaling",
    "register",
    "row_norms",
]

Factor = Callable[..., float]
"""``factor(keys, n, d, **params) -> c``: the number that multiplies every logit."""


@dataclass(frozen=True)
class Rescaling:
    """A named rescaling: ``factor(keys, n, d, **params)`` times ``q . k`` (or the cosine).

    ``label_format`` is a short label for plots whose ``{name}`` fields are filled from
    ``params`` to give :attr:`label`; ``source`` is the BibTeX key of the text it comes from.

    >>> r = Rescaling("half", lambda keys, n, d: 0.5, label_format="1/2", source="user")
    >>> r.scaled_logits([[2.0, 0.0]], [[1.0, 1.0], [3.0, 0.0]]).tolist()
    [[1.0, 3.0]]
    """

    name: str
    factor: Factor = field(repr=False)
    label_format: str
    source: str
    params: Mapping[str, float | None] = field(default_factory=dict)
    cosine: bool = False

    def with_params(self, **params: float | None) -> Rescaling:
        """The same rescaling with other parameter values (each finite and > 0).

        >>> RESCALINGS["key_p_norm"].with_params(p=3.0).params
        {'p': 3.0}
        >>> RESCALINGS["sqrt_d"].with_params(p=3.0)
        Traceback (most recent call last):
        ...
        attncore.checks.ParameterError: p is not a parameter of sqrt_d; its parameters: none
        """
        for name, value in params.items():
            if name not in self.params:
                known = ", ".join(self.params) or "none"
                raise ParameterError(
                    f"{name} is not a parameter of {self.name}; its parameters: {known}"
                )
            if value is not None or self.params[name] is not None:
                positive_real(name, value)
        return replace(self, params={**self.params, **params})

    @property
    def label(self) -> str:
        """The short label for plots, with the parameter values filled in.

        >>> RESCALINGS["constant"].with_params(beta=5.0).label
        'β = 5'
        """
        values = {k: "auto" if v is None else f"{v:g}" for k, v in self.params.items()}
        return self.label_format.format(**values)

    def factor_for(self, keys: ArrayLike) -> float:
        """The factor ``c`` for the keys ``K`` (``n x d``), checked to be finite.

        >>> RESCALINGS["sqrt_d"].factor_for(np.ones((3, 4)))
        0.5
        >>> RESCALINGS["k_total"].factor_for(np.zeros((3, 4)))
        Traceback (most recent call last):
        ...
        attncore.checks.ParameterError: k_total must be a finite real number > 0, got 0.0
        """
        k = finite_array("keys", keys, ndim=2)
        n, d = k.shape
        return finite_real(f"factor of {self.name}", self.factor(k, n, d, **self.params))

    def scaled_logits(self, queries: ArrayLike, keys: ArrayLike) -> np.ndarray:
        """The full ``n_queries x n`` matrix of scaled logits (for small inputs; the
        engine in :mod:`attncore.simulate.engine` works in chunks).

        >>> RESCALINGS["qk_norm"].with_params(g=2.0).scaled_logits([[1.0, 0.0]], [[5.0, 0.0]])
        array([[2.]])
        """
        q = finite_array("queries", queries, ndim=2)
        k = finite_array("keys", keys, ndim=2)
        if q.shape[1] != k.shape[1]:
            raise ParameterError(
                f"queries must have as many columns as keys ({k.shape[1]}), got {q.shape[1]}"
            )
        c = self.factor_for(k)
        if self.cosine:
            q = q / row_norms("queries", q)[:, None]
            k = k / row_norms("keys", k)[:, None]
        return c * (q @ k.T)


def row_norms(name: str, rows: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row, which must be > 0 (cosines need it). Rows are divided by
    their largest entry first, so huge or tiny rows neither overflow nor underflow.

    >>> row_norms("keys", np.array([[3.0, 4.0]])).tolist()
    [5.0]
    >>> row_norms("keys", np.array([[3e200, 4e200], [3e-200, 4e-200]])).tolist()
    [5e+200, 5e-200]
    >>> row_norms("queries", np.zeros((2, 3)))
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: queries must have rows of length > 0 for cosines, row 0 is 0
    """
    scale = np.abs(rows).max(axis=1)
    unit = rows / np.where(scale > 0, scale, 1.0)[:, None]
    norms = scale * np.sqrt(np.einsum("ij,ij->i", unit, unit))
    zero = np.flatnonzero(norms == 0)
    if zero.size:
        raise ParameterError(f"{name} must have rows of length > 0 for cosines, row {zero[0]} is 0")
    return norms


RESCALINGS: dict[str, Rescaling] = {}
"""Every registered rescaling, by name."""


def _defaults(factor: Factor) -> dict[str, float | None]:
    sig = inspect.signature(factor)
    return {p.name: p.default for p in list(sig.parameters.values())[3:]}


def register(
    name: str, *, label: str, source: str, cosine: bool = False
) -> Callable[[Factor], Factor]:
    """Decorator adding ``factor(keys, n, d, **params)`` to :data:`RESCALINGS` as ``name``.

    >>> @register("tenth", label="1/10", source="user")
    ... def tenth(keys, n, d):
    ...     return 0.1
    >>> RESCALINGS.pop("tenth").factor_for(np.ones((2, 2)))
    0.1
    """

    def add(factor: Factor) -> Factor:
        RESCALINGS[name] = Rescaling(name, factor, label, source, _defaults(factor), cosine)
        return factor

    return add


def from_callable(
    factor: Factor, *, name: str = "custom", label: str = "custom", source: str = "user"
) -> Rescaling:
    """An unregistered :class:`Rescaling` from any ``factor(keys, n, d, **params)``.

    >>> r = from_callable(lambda keys, n, d: 1.0 / n, label="1/n")
    >>> r.factor_for(np.ones((4, 2)))
    0.25
    """
    return Rescaling(name, factor, label, source, _defaults(factor))


def get_rescaling(rescaling: str | Rescaling, **params: float | None) -> Rescaling:
    """The registered rescaling called ``rescaling`` (or ``rescaling`` itself), with ``params``.

    >>> get_rescaling("mup").label
    '1/d (μP)'
    >>> get_rescaling("sqrt")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: rescaling must be one of constant, ..., got 'sqrt'
    """
    if isinstance(rescaling, Rescaling):
        return rescaling.with_params(**params) if params else rescaling
    if rescaling not in RESCALINGS:
        raise ParameterError(
            f"rescaling must be one of {', '.join(sorted(RESCALINGS))}, got {rescaling!r}"
        )
    return RESCALINGS[rescaling].with_params(**params)


def _key_lengths(keys: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", keys, keys))


@register("none", label="none", source="luong2015effective")
def no_scaling(keys: np.ndarray, n: int, d: int) -> float:
    """Plain softmax of the dot products: ``c = 1`` (Luong's "dot" score, luong2015effective).

    >>> no_scaling(np.ones((2, 3)), 2, 3)
    1.0
    """
    return 1.0


@register("sqrt_d", label="1/√d", source="vaswani2017attention")
def inverse_sqrt_d(keys: np.ndarray, n: int, d: int) -> float:
    """The scaled dot product: ``c = 1 / sqrt(d)`` (vaswani2017attention).

    >>> inverse_sqrt_d(np.ones((2, 16)), 2, 16)
    0.25
    """
    return 1.0 / math.sqrt(d)


@register("k_total", label="1/k_total", source="bernhard2023alternatives")
def inverse_k_total(keys: np.ndarray, n: int, d: int) -> float:
    """Bernhard's proposal: ``c = 1 / k_total`` with ``k_total = sum_i ||k_i||``
    (bernhard2023alternatives, section 3).

    >>> inverse_k_total(np.array([[3.0, 4.0], [6.0, 8.0]]), 2, 2)
    0.0666...
    """
    return 1.0 / positive_real("k_total", float(_key_lengths(keys).sum()))


@register("mean_key_length", label="1/mean ‖k‖", source="bernhard2023alternatives")
def inverse_mean_key_length(keys: np.ndarray, n: int, d: int) -> float:
    """``c = n / k_total``, one over the mean key length (bernhard2023alternatives, section 5).

    >>> inverse_mean_key_length(np.array([[3.0, 4.0], [6.0, 8.0]]), 2, 2)
    0.133...
    """
    return 1.0 / positive_real("mean_key_length", float(_key_lengths(keys).mean()))


@register("key_rss", label="1/√Σ‖k‖²", source="bernhard2023alternatives")
def inverse_root_sum_square_key_lengths(keys: np.ndarray, n: int, d: int) -> float:
    """``c = 1 / sqrt(sum_i ||k_i||^2)`` (bernhard2023alternatives, section 5).

    >>> inverse_root_sum_square_key_lengths(np.array([[3.0, 4.0], [0.0, 0.0]]), 2, 2)
    0.2
    """
    return 1.0 / positive_real("key_rss", math.sqrt(float(np.einsum("ij,ij->", keys, keys))))


@register("key_p_norm", label="1/ᵖ√Σ‖k‖ᵖ, p = {p}", source="bernhard2023alternatives")
def inverse_key_p_norm(keys: np.ndarray, n: int, d: int, p: float = 2.0) -> float:
    """``c = 1 / (sum_i ||k_i||^p)^(1/p)``, the p-norm of the key lengths
    (bernhard2023alternatives, section 5): p = 1 is ``k_total``, p = 2 ``key_rss``.

    >>> inverse_key_p_norm(np.array([[3.0, 4.0], [6.0, 8.0]]), 2, 2, p=1.0)
    0.0666...
    """
    lengths = _key_lengths(keys)
    top = float(lengths.max())
    norm = top * float(np.sum((lengths / top) ** p)) ** (1.0 / p) if top > 0 else 0.0
    return 1.0 / positive_real("key_p_norm", norm)


@register("n_sqrt_d", label="1/(n√d)", source="bernhard2023alternatives")
def inverse_n_sqrt_d(keys: np.ndarray, n: int, d: int) -> float:
    """``c = 1 / (n sqrt(d))``, close to ``1/k_total`` for standard normal keys
    (bernhard2023alternatives, section 5).

    >>> inverse_n_sqrt_d(np.ones((2, 16)), 2, 16)
    0.125
    """
    return 1.0 / (n * math.sqrt(d))


@register("mup", label="1/d (μP)", source="yang2022tensor")
def inverse_d(keys: np.ndarray, n: int, d: int) -> float:
    """muP's attention scaling ``c = 1 / d`` (yang2022tensor): ``q . k`` grows like ``d``
    once queries and keys are correlated.

    >>> inverse_d(np.ones((2, 16)), 2, 16)
    0.0625
    """
    return 1.0 / d


@register("log_n", label="ln n/√d", source="chiang2022overcoming")
def log_n_over_sqrt_d(keys: np.ndarray, n: int, d: int) -> float:
    """``c = ln(n) / sqrt(d)``, the length-dependent scaling of chiang2022overcoming.

    >>> log_n_over_sqrt_d(np.ones((4, 16)), 4, 16)
    0.346...
    """
    return math.log(n) / math.sqrt(d)


@register("log512_n", label="log₅₁₂ n/√d", source="su2021entropy")
def log512_n_over_sqrt_d(keys: np.ndarray, n: int, d: int) -> float:
    """``c = log_512(n) / sqrt(d)``, entropy-invariant scaling of su2021entropy (equal to
    ``1/sqrt(d)`` at the training length n = 512).

    >>> log512_n_over_sqrt_d(np.ones((512, 16)), 512, 16)
    0.25
    """
    return math.log(n, 512) / math.sqrt(d)


@register("ssmax", label="SSMax (s = {s})", source="nakanishi2025scalable")
def scalable_softmax(keys: np.ndarray, n: int, d: int, s: float = 1.0) -> float:
    """Scalable-Softmax (nakanishi2025scalable): SSMax replaces the softmax of the
    attention scores ``z = q . k / sqrt(d)`` by ``softmax(s ln(n) z)``, so
    ``c = s ln(n) / sqrt(d)``; ``s`` is learned in the paper (here a parameter). With
    ``s = 1`` it coincides with ``log_n``.

    >>> scalable_softmax(np.ones((4, 16)), 4, 16, s=2.0)
    0.693...
    """
    return s * math.log(n) / math.sqrt(d)


@register("qk_norm", label="QK-norm (g = {g})", source="henry2020querykey", cosine=True)
def qk_norm_gain(keys: np.ndarray, n: int, d: int, g: float | None = None) -> float:
    """QK-norm (henry2020querykey): logits ``g cos(q, k)``; this returns the gain ``g``.

    The paper learns ``g``, initialized at ``log2(L^2 - L)`` for a sequence length ``L``;
    ``g=None`` uses that initialization with ``L = n`` (n >= 2).

    >>> qk_norm_gain(np.ones((4, 16)), 4, 16)
    3.584...
    >>> qk_norm_gain(np.ones((4, 16)), 4, 16, g=5.0)
    5.0
    """
    if g is not None:
        return g
    if n < 2:
        raise ParameterError(f"n must be an integer >= 2 for the default g of qk_norm, got {n}")
    return math.log2(n * n - n)


@register("cosine", label="cos/τ (τ = {tau})", source="liu2022swin", cosine=True)
def cosine_temperature(keys: np.ndarray, n: int, d: int, tau: float = 0.1) -> float:
    """Swin Transformer v2's scaled cosine attention (liu2022swin): logits ``cos(q, k) / tau``;
    this returns ``1 / tau``. The paper learns ``tau`` per head and layer and keeps it at or
    above 0.01; its code starts it at 0.1, the default here. A trained model learns it
    (``cosine_learned`` in :mod:`attncore.training.model`); a fixed ``tau`` is QK-norm with
    the gain ``1 / tau``.

    >>> cosine_temperature(np.ones((4, 16)), 4, 16)
    10.0
    """
    return 1.0 / tau


@register("constant", label="β = {beta}", source="chuang2023scaling")
def constant_beta(keys: np.ndarray, n: int, d: int, beta: float = 1.0) -> float:
    """A constant inverse temperature ``c = beta`` (chuang2023scaling, whose search ends
    near beta = 5 in its string-reversal example).

    >>> constant_beta(np.ones((2, 2)), 2, 2, beta=5.0)
    5.0
    """
    return beta
