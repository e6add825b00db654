"""Queries and keys correlated per coordinate: ``E(q.k) = d rho``, ``Var(q.k) = d (1 + rho^2)``.

After training, a query and the keys it should attend to are aligned: model that
as a correlation ``rho`` between ``q_i`` and ``k_i`` in every coordinate. Writing
``k_i = rho q_i + sqrt(1 - rho^2) z_i`` with ``z_i`` independent of ``q_i`` gives a
bivariate normal pair with unit variances and correlation ``rho``; the moment
algebra gives ``E[q_i k_i] = rho`` and ``Var(q_i k_i) = 1 + rho^2``, and the ``d``
independent pairs add. The mean ``d rho`` outgrows the standard deviation
``sqrt(d (1 + rho^2))``, so ``q.k / sqrt(d)`` grows like ``sqrt(d)`` while ``q.k / d``
tends to ``rho``: the argument for a ``1/d`` scale after training (muP).

>>> correlated_dot_mean().rhs
d*rho
>>> correlated_dot_variance().rhs
d*(rho**2 + 1)
"""

from __future__ import annotations

import functools

import sympy as sp

from attncore.symbolic.derivation import Derivation, Step
from attncore.symbolic.moments import (
    covariance,
    expectation,
    independent_sum_step,
    normal_moments,
    variance,
)
from attncore.symbolic.notation import Expectation, Variance, d, dot, i, k, q, rho

__all__ = [
    "correlated_dot_mean",
    "correlated_dot_variance",
    "correlated_logit_scaling",
    "correlated_moments",
]

_z = sp.IndexedBase("z")
_m4 = sp.Symbol("m_4", positive=True)  # E[q_i^4] beyond the normal case
_ASSUMPTIONS = (
    r"the pairs $(q_i, k_i)$, $i = 1, \dots, d$, are independent of each other",
    r"each pair is bivariate normal with means 0, variances 1 and correlation $\rho$, "
    r"$-1 \le \rho \le 1$: $k_i = \rho q_i + \sqrt{1 - \rho^2}\, z_i$ with $q_i, z_i$ "
    "independent $N(0, 1)$",
    "$d$ is a positive integer that stays a symbol",
)


@functools.cache
def _pair_steps() -> tuple[Step, ...]:
    """Moments of one pair and of one product term, by the moment algebra."""
    qi, zi = q[i], _z[i]
    key = rho * qi + sp.sqrt(1 - rho**2) * zi
    groups = [[qi], [zi]]
    laws = {**normal_moments(qi), **normal_moments(zi)}
    general = {
        Expectation(qi**4): _m4,
        **{e: v for e, v in laws.items() if e != Expectation(qi**4)},
    }
    pair = sp.Tuple(variance(key, groups), covariance(qi, key, groups))
    centred = {Expectation(qi): 0, Expectation(zi): 0}
    mean_term = expectation(qi * key, groups).xreplace(centred)
    var_term = variance(qi * key, groups).xreplace(centred)
    return (
        Step(
            "the pair",
            (sp.Tuple(Variance(k[i]), Expectation(q[i] * k[i])), pair, pair.xreplace(laws)),
            r"$k_i = \rho q_i + \sqrt{1 - \rho^2}\, z_i$; independence of $q_i$ and $z_i$",
        ),
        Step(
            "mean of a product term",
            (Expectation(q[i] * k[i]), mean_term, mean_term.xreplace(laws)),
            r"independence of $q_i$ and $z_i$; $\mathbb{E}q_i^2 = 1$",
        ),
        Step(
            "variance of a product term, any law of $q_i$",
            (Variance(q[i] * k[i]), var_term, sp.factor(var_term.xreplace(general))),
            r"independence of $q_i$ and $z_i$, zero means; $\mathbb{E}q_i^4 = m_4$ and unit "
            r"variances",
        ),
        Step(
            "variance of a product term",
            (Variance(q[i] * k[i]), sp.factor(var_term.xreplace(laws))),
            "normal $q_i$: $m_4 = 3$",
        ),
    )


@functools.cache
def correlated_dot_mean() -> Derivation:
    """``E(q.k) = d rho``.

    >>> correlated_dot_mean().steps[-1].chain[1]
    Sum(E[k[i]*q[i]], (i, 1, d))
    """
    pair = _pair_steps()
    total = independent_sum_step("mean of the sum", q[i] * k[i], i, d, 1, pair[1].chain[-1])
    return Derivation(
        r"Mean of $q \cdot k$ for correlated coordinates",
        sp.Eq(Expectation(dot(q, k, d)), total.chain[-1]),
        _ASSUMPTIONS,
        (*pair[:2], total),
        caveats=(r"Linearity alone gives $d\rho$: neither normality nor independence is needed.",),
    )


@functools.cache
def correlated_dot_variance() -> Derivation:
    """``Var(q.k) = d (1 + rho^2)`` for bivariate normal pairs.

    >>> correlated_dot_variance().steps[2].chain[-1]
    m_4*rho**2 - 2*rho**2 + 1
    """
    pair = _pair_steps()
    total = independent_sum_step("variance of the sum", q[i] * k[i], i, d, 2, pair[-1].chain[-1])
    return Derivation(
        r"Variance of $q \cdot k$ for correlated coordinates",
        sp.Eq(Variance(dot(q, k, d)), sp.factor(total.chain[-1])),
        _ASSUMPTIONS,
        (*pair, total),
        caveats=(
            "The variance depends on the law beyond its correlation: with the same construction "
            r"and $\mathbb{E}q_i^4 = m_4$ it is $d\,(1 + \rho^2 (m_4 - 2))$.",
        ),
    )


@functools.cache
def correlated_logit_scaling() -> Derivation:
    """``E[(q.k/d - rho)^2] = (1 + rho^2)/d``: with a ``1/d`` scale the logit settles at ``rho``.

    >>> correlated_logit_scaling().steps[0].chain[-1]
    sqrt(d)*rho
    """
    mean = correlated_dot_mean().rhs
    var = correlated_dot_variance().rhs
    by_root, by_d = dot(q, k, d) / sp.sqrt(d), dot(q, k, d) / d
    return Derivation(
        r"Scaling the logits of aligned queries and keys: $1/\sqrt{d}$ against $1/d$ ($\mu$P)",
        sp.Eq(Expectation((by_d - rho) ** 2), sp.factor(var / d**2)),
        _ASSUMPTIONS,
        (
            Step(
                r"$1/\sqrt{d}$: mean",
                (Expectation(by_root), mean / sp.sqrt(d)),
                r"linearity; it grows like $\sqrt{d}$ whenever $\rho \ne 0$",
            ),
            Step(
                r"$1/\sqrt{d}$: variance",
                (Variance(by_root), sp.factor(var / d)),
                r"$\operatorname{Var}(cX) = c^2 \operatorname{Var}X$",
            ),
            Step("$1/d$: mean", (Expectation(by_d), mean / d), "linearity"),
            Step(
                r"$1/d$: mean squared distance to $\rho$",
                (Expectation((by_d - rho) ** 2), Variance(by_d), sp.factor(var / d**2)),
                r"$\mathbb{E}[(X - \mathbb{E}X)^2] = \operatorname{Var}X$, and "
                r"$\operatorname{Var}(cX) = c^2 \operatorname{Var}X$",
            ),
        ),
        verdict=(
            r"With a correlation $\rho \ne 0$ that does not shrink with $d$, $1/\sqrt{d}$ lets "
            r"the logit of an aligned key grow like $\rho\sqrt{d}$, while $1/d$ keeps it at "
            r"$\rho$ with fluctuations of order $1/\sqrt{d}$: the argument for $1/d$ scaling "
            "after training."
        ),
        caveats=(
            "The softmax ignores a shift shared by all keys: the growth saturates it only when "
            r"the alignment differs between keys ($\rho$ for the key to attend to, about 0 for the "
            r"others), so that the logit gaps grow like $\sqrt{d}$. In "
            "the book's simulations of correlated pairs every key of a call shares the same "
            "alignment.",
            r"At initialization ($\rho = 0$) $1/d$ shrinks the logits to $O(1/\sqrt{d})$, so the "
            r"softmax starts near uniform; $1/\sqrt{d}$ is the scale that keeps them $O(1)$ there.",
        ),
    )


def correlated_moments(d: int, rho: float) -> dict[str, float]:
    """``{"mean": E(q.k), "var": Var(q.k)}`` from the derivations, at ``d`` and ``rho``.

    >>> correlated_moments(8, 0.5)
    {'mean': 4.0, 'var': 10.0}
    """
    return {
        "mean": correlated_dot_mean().evaluate(d=d, rho=rho),
        "var": correlated_dot_variance().evaluate(d=d, rho=rho),
    }
