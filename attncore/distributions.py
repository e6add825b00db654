"""Where queries and keys come from: component distributions and query/key models.

A *component distribution* draws the entries of a vector; each knows its exact mean and
variance (``math.inf`` for an infinite variance, ``math.nan`` for a mean that does not
exist). A *query/key model* draws a matrix of queries ``Q`` (``n_queries x d``) and a
matrix of keys ``K`` (``n_keys x d``) and knows the exact mean and variance of ``q . k``
for one query-key pair.

>>> model = Independent(query=Normal(), key=Normal())
>>> Q, K = model.sample(np.random.default_rng(0), n_queries=3, n_keys=5, d=16)
>>> Q.shape, K.shape
((3, 16), (5, 16))
>>> model.dot_mean(16), model.dot_var(16)
(0.0, 16.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from attncore.checks import ParameterError, finite_real, positive_int, positive_real

__all__ = [
    "Correlated",
    "Distribution",
    "Independent",
    "Laplace",
    "Normal",
    "Projected",
    "QueryKeyModel",
    "StudentT",
    "Uniform",
    "key_second_moment",
]


class Distribution(Protocol):
    """A component distribution: what every class of this module provides."""

    @property
    def mean(self) -> float: ...

    @property
    def var(self) -> float: ...

    @property
    def label(self) -> str: ...

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray: ...


class QueryKeyModel(Protocol):
    """A model of queries and keys: what :class:`Independent`, :class:`Correlated` and
    :class:`Projected` provide."""

    @property
    def label(self) -> str: ...

    def sample(
        self, rng: np.random.Generator, n_queries: int, n_keys: int, d: int
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def dot_mean(self, d: int) -> float: ...

    def dot_var(self, d: int) -> float: ...


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


def _sizes(n_queries: object, n_keys: object, d: object) -> tuple[int, int, int]:
    return (
        positive_int("n_queries", n_queries),
        positive_int("n_keys", n_keys),
        positive_int("d", d),
    )


@dataclass(frozen=True)
class Normal:
    """Normal distribution N(mean, sd^2).

    >>> Normal(mean=1.0, sd=2.0).var
    4.0
    >>> Normal(sd=0.0)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: sd must be a finite real number > 0, got 0.0
    """

    mean: float = 0.0
    sd: float = 1.0

    def __post_init__(self) -> None:
        _set(self, "mean", finite_real("mean", self.mean))
        _set(self, "sd", positive_real("sd", self.sd))

    @property
    def var(self) -> float:
        return self.sd**2

    @property
    def label(self) -> str:
        return f"N({self.mean:g}, {self.sd:g}²)"

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Draw an array of ``shape``.

        >>> Normal().sample(np.random.default_rng(0), (2, 3)).shape
        (2, 3)
        """
        return rng.normal(self.mean, self.sd, size=shape)


@dataclass(frozen=True)
class Uniform:
    """Uniform distribution on [low, high): mean (low + high) / 2, variance (high - low)^2 / 12.

    >>> Uniform(-1.0, 1.0).var
    0.333...
    >>> Uniform(1.0, 1.0)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: high must be > low (1.0), got 1.0
    """

    low: float = -1.0
    high: float = 1.0

    def __post_init__(self) -> None:
        _set(self, "low", finite_real("low", self.low))
        _set(self, "high", finite_real("high", self.high))
        if self.high <= self.low:
            raise ParameterError(f"high must be > low ({self.low!r}), got {self.high!r}")

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2

    @property
    def var(self) -> float:
        return (self.high - self.low) ** 2 / 12

    @property
    def label(self) -> str:
        return f"U({self.low:g}, {self.high:g})"

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Draw an array of ``shape``.

        >>> bool((Uniform(2.0, 3.0).sample(np.random.default_rng(0), (100,)) >= 2.0).all())
        True
        """
        return rng.uniform(self.low, self.high, size=shape)


@dataclass(frozen=True)
class Laplace:
    """Laplace distribution with location ``loc`` and scale ``scale``: variance 2 scale^2.

    >>> Laplace(loc=1.0, scale=0.5).var
    0.5
    """

    loc: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        _set(self, "loc", finite_real("loc", self.loc))
        _set(self, "scale", positive_real("scale", self.scale))

    @property
    def mean(self) -> float:
        return self.loc

    @property
    def var(self) -> float:
        return 2 * self.scale**2

    @property
    def label(self) -> str:
        return f"Laplace({self.loc:g}, {self.scale:g})"

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Draw an array of ``shape``.

        >>> Laplace().sample(np.random.default_rng(0), (4,)).shape
        (4,)
        """
        return rng.laplace(self.loc, self.scale, size=shape)


@dataclass(frozen=True)
class StudentT:
    """Student t with ``df`` degrees of freedom, shifted by ``loc`` and scaled by ``scale``.

    The mean ``loc`` exists for df > 1 (``math.nan`` otherwise); the variance
    ``scale^2 df / (df - 2)`` is finite for df > 2 and ``math.inf`` for df <= 2.

    >>> StudentT(df=4.0).var
    2.0
    >>> StudentT(df=2.0).var
    inf
    >>> StudentT(df=1.0).mean
    nan
    """

    df: float
    loc: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        _set(self, "df", positive_real("df", self.df))
        _set(self, "loc", finite_real("loc", self.loc))
        _set(self, "scale", positive_real("scale", self.scale))

    @property
    def mean(self) -> float:
        return self.loc if self.df > 1 else math.nan

    @property
    def var(self) -> float:
        return self.scale**2 * self.df / (self.df - 2) if self.df > 2 else math.inf

    @property
    def label(self) -> str:
        shift = "" if (self.loc, self.scale) == (0.0, 1.0) else f", {self.loc:g}, {self.scale:g}"
        return f"t({self.df:g}{shift})"

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Draw an array of ``shape``.

        >>> StudentT(df=3.0).sample(np.random.default_rng(0), (2,)).shape
        (2,)
        """
        return self.loc + self.scale * rng.standard_t(self.df, size=shape)


@dataclass(frozen=True)
class Independent:
    """Every component of every query and key independent: queries from ``query``, keys from
    ``key`` (queries drawn first, as in the reference R code).

    For one pair, with means ``m_q, m_k`` and variances ``v_q, v_k`` of the components:
    ``E[q.k] = d m_q m_k`` and ``Var[q.k] = d [(v_q + m_q^2)(v_k + m_k^2) - m_q^2 m_k^2]``
    (``math.inf`` if a component variance is infinite).

    >>> Independent(Normal(1.0, 1.0), Uniform(0.0, 2.0)).dot_mean(8)
    8.0
    >>> Independent(StudentT(df=2.0), Normal()).dot_var(8)
    inf
    """

    query: Distribution = field(default_factory=Normal)
    key: Distribution = field(default_factory=Normal)

    @property
    def label(self) -> str:
        return f"q ~ {self.query.label}, k ~ {self.key.label}"

    def sample(
        self, rng: np.random.Generator, n_queries: int, n_keys: int, d: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``Q`` (``n_queries x d``) and then ``K`` (``n_keys x d``).

        >>> Q, K = Independent().sample(np.random.default_rng(1), 2, 3, 4)
        >>> Q.shape, K.shape
        ((2, 4), (3, 4))
        """
        n_queries, n_keys, d = _sizes(n_queries, n_keys, d)
        return self.query.sample(rng, (n_queries, d)), self.key.sample(rng, (n_keys, d))

    def dot_mean(self, d: int) -> float:
        """Exact ``E[q.k]`` (``nan`` if a component mean does not exist).

        >>> Independent(Normal(2.0), Normal(3.0)).dot_mean(4)
        24.0
        """
        return positive_int("d", d) * self.query.mean * self.key.mean

    def dot_var(self, d: int) -> float:
        """Exact ``Var[q.k]``.

        >>> Independent(Normal(1.0, 1.0), Normal(0.0, 2.0)).dot_var(3)
        24.0
        """
        d = positive_int("d", d)
        q, k = self.query, self.key
        if math.isinf(q.var) or math.isinf(k.var):
            return math.inf
        return d * ((q.var + q.mean**2) * (k.var + k.mean**2) - q.mean**2 * k.mean**2)


@dataclass(frozen=True)
class Correlated:
    """Standard normal components with query-key correlation ``rho`` per coordinate.

    One shared vector ``z ~ N(0, I_d)`` is drawn per :meth:`sample` call, then every token
    adds its own noise: ``q_i = sqrt|rho| z + sqrt(1-|rho|) e_i`` and
    ``k_a = sign(rho) sqrt|rho| z + sqrt(1-|rho|) e'_a``. Per coordinate ``j`` this gives
    unit variances and

    * ``Cov(q_ij, k_aj) = rho`` for every query-key pair,
    * ``Cov(k_aj, k_bj) = Cov(q_ij, q_lj) = |rho|`` for two different keys (or queries),
    * no covariance between different coordinates.

    For one pair ``E[q.k] = d rho`` and ``Var[q.k] = d (1 + rho^2)`` (unconditional, over
    ``z`` too). Within one call all logits of a query share the term ``rho ||z||^2``, a
    shift that the softmax ignores: the growth ``E[q.k] = d rho`` behind the 1/d argument
    of muP does not by itself saturate the softmax in this model.

    >>> Correlated(rho=0.5).dot_mean(10), Correlated(rho=0.5).dot_var(10)
    (5.0, 12.5)
    >>> Correlated(rho=1.5)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: rho must be a real number in [-1, 1], got 1.5
    """

    rho: float

    def __post_init__(self) -> None:
        rho = finite_real("rho", self.rho)
        if not -1.0 <= rho <= 1.0:
            raise ParameterError(f"rho must be a real number in [-1, 1], got {self.rho!r}")
        _set(self, "rho", rho)

    @property
    def label(self) -> str:
        return f"corr ρ = {self.rho:g}"

    def sample(
        self, rng: np.random.Generator, n_queries: int, n_keys: int, d: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``z``, then the query noise, then the key noise.

        >>> Q, K = Correlated(rho=1.0).sample(np.random.default_rng(0), 2, 3, 4)
        >>> bool((Q[0] == K[2]).all())
        True
        """
        n_queries, n_keys, d = _sizes(n_queries, n_keys, d)
        shared, own = math.sqrt(abs(self.rho)), math.sqrt(1.0 - abs(self.rho))
        z = rng.standard_normal(d)
        queries = shared * z + own * rng.standard_normal((n_queries, d))
        keys = math.copysign(shared, self.rho) * z + own * rng.standard_normal((n_keys, d))
        return queries, keys

    def dot_mean(self, d: int) -> float:
        """Exact ``E[q.k] = d rho``.

        >>> Correlated(rho=-0.25).dot_mean(8)
        -2.0
        """
        return positive_int("d", d) * self.rho

    def dot_var(self, d: int) -> float:
        """Exact ``Var[q.k] = d (1 + rho^2)``.

        >>> Correlated(rho=0.0).dot_var(8)
        8.0
        """
        return positive_int("d", d) * (1.0 + self.rho**2)


@dataclass(frozen=True)
class Projected:
    """Projected tokens (Chuang's relaxed assumptions): ``q = x W_q``, ``k = x' W_k``.

    Tokens ``x`` have ``d_x`` iid N(0, sigma_x^2) components; ``W_q`` and ``W_k`` are
    ``d_x x d`` with iid N(0, sigma_wq^2) and N(0, sigma_wk^2) entries, drawn once per
    :meth:`sample` call and shared by all tokens. Keys come from independent tokens
    ``x'``, or with ``self_attention=True`` from the query tokens themselves (then
    ``n_keys`` must equal ``n_queries`` and key ``i`` belongs to query ``i``).

    The moments are **unconditional**, over the draw of ``W_q, W_k`` as well as the
    tokens (for a fixed draw of the weights they differ). Given the tokens,
    ``q.k = sum_j (x.w_qj)(x'.w_kj)`` over the ``d`` columns, whose terms are uncorrelated
    with mean 0 and ``E[(x.w_qj)^2 (x'.w_kj)^2 | x, x'] = s_wq^2 s_wk^2 ||x||^2 ||x'||^2``.
    Hence ``E[q.k] = 0`` and ``Var[q.k] = d s_wq^2 s_wk^2 E[||x||^2 ||x'||^2]``:

    * different tokens: ``E||x||^2 E||x'||^2 = (d_x s_x^2)^2``, so
      ``Var = d (d_x s_x^2 s_wq^2)(d_x s_x^2 s_wk^2)`` (Chuang's formula);
    * the same token (``self_attention=True``, the pair ``q_i, k_i``):
      ``E||x||^4 = s_x^4 d_x (d_x + 2)`` (a scaled chi-square with ``d_x`` degrees of
      freedom), so ``Var = d s_wq^2 s_wk^2 s_x^4 d_x (d_x + 2)``.

    With ``sigma_w = 1 / sqrt(d_x)`` and ``sigma_x = 1`` the components have unit
    variance (Chuang's assumption (ii)) and different tokens give ``Var = d``.

    >>> Projected(d_x=4, sigma_wq=0.5, sigma_wk=0.5).dot_var(16)
    16.0
    >>> Projected(d_x=4, sigma_wq=0.5, sigma_wk=0.5, self_attention=True).dot_var(16)
    24.0
    """

    d_x: int
    sigma_x: float = 1.0
    sigma_wq: float = 1.0
    sigma_wk: float = 1.0
    self_attention: bool = False

    def __post_init__(self) -> None:
        _set(self, "d_x", positive_int("d_x", self.d_x))
        for name in ("sigma_x", "sigma_wq", "sigma_wk"):
            _set(self, name, positive_real(name, getattr(self, name)))
        if not isinstance(self.self_attention, bool):
            raise ParameterError(
                f"self_attention must be True or False, got {self.self_attention!r}"
            )

    @property
    def label(self) -> str:
        kind = "self" if self.self_attention else "cross"
        return f"projected d_x = {self.d_x} ({kind})"

    def sample(
        self, rng: np.random.Generator, n_queries: int, n_keys: int, d: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``W_q``, ``W_k``, the query tokens and (unless self-attention) the key tokens.

        >>> Q, K = Projected(d_x=3, self_attention=True).sample(np.random.default_rng(0), 2, 2, 5)
        >>> Q.shape, K.shape
        ((2, 5), (2, 5))
        """
        n_queries, n_keys, d = _sizes(n_queries, n_keys, d)
        if self.self_attention and n_keys != n_queries:
            raise ParameterError(
                f"n_keys must equal n_queries ({n_queries}) when self_attention=True, got {n_keys}"
            )
        w_q = rng.normal(0.0, self.sigma_wq, size=(self.d_x, d))
        w_k = rng.normal(0.0, self.sigma_wk, size=(self.d_x, d))
        x = rng.normal(0.0, self.sigma_x, size=(n_queries, self.d_x))
        x_keys = x if self.self_attention else rng.normal(0.0, self.sigma_x, (n_keys, self.d_x))
        return x @ w_q, x_keys @ w_k

    def dot_mean(self, d: int) -> float:
        """Exact unconditional ``E[q.k] = 0``.

        >>> Projected(d_x=8).dot_mean(4)
        0.0
        """
        positive_int("d", d)
        return 0.0

    def dot_var(self, d: int) -> float:
        """Exact unconditional ``Var[q.k]`` (same-token pair if ``self_attention``).

        >>> Projected(d_x=2, sigma_x=2.0).dot_var(3)
        192.0
        """
        d = positive_int("d", d)
        weights = d * self.sigma_wq**2 * self.sigma_wk**2 * self.sigma_x**4
        if self.self_attention:
            return weights * self.d_x * (self.d_x + 2)
        return weights * self.d_x**2


def key_second_moment(model: QueryKeyModel) -> float:
    """``E[k_j^2]`` of one key component, which sets ``E||k|| ~ sqrt(d E[k_j^2])``.

    For :class:`Independent` keys ``Var + mean^2``; for :class:`Projected` keys
    ``d_x sigma_x^2 sigma_wk^2`` (over the draw of the weights); :class:`Correlated` has unit
    variances.

    >>> key_second_moment(Independent(Normal(1.0, 1.0), Normal(1.0, 2.0)))
    5.0
    >>> key_second_moment(Projected(d_x=4, sigma_wk=0.5)), key_second_moment(Correlated(0.5))
    (1.0, 1.0)
    """
    if isinstance(model, Independent):
        return model.key.var + model.key.mean**2
    if isinstance(model, Projected):
        return model.d_x * model.sigma_x**2 * model.sigma_wk**2
    if isinstance(model, Correlated):
        return 1.0
    raise ParameterError(f"model must be Independent, Correlated or Projected, got {model!r}")
