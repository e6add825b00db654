"""Mean and variance of ``q.k`` for independent components, with ``d`` a symbol.

The lemma chain: the variance of one product term ``q_i k_i`` follows from
independence (``E[q_i k_i] = E[q_i] E[k_i]``, ``E[q_i^2 k_i^2] = E[q_i^2] E[k_i^2]``);
the ``d`` terms are independent, so their cumulants (mean, variance) add, and the
sum over ``i = 1..d`` is done by sympy with ``d`` a symbol. No ``d``-term sum is ever
expanded.

>>> dot_product_variance().statement
Eq(Var(Sum(k[i]*q[i], (i, 1, d))), d)
>>> scaled_logit_variance().rhs
1
"""

from __future__ import annotations

import functools

import sympy as sp

from attncore.symbolic.derivation import Check, Derivation, Step
from attncore.symbolic.moments import (
    cumulant_moment_steps,
    expectation,
    independent_sum_step,
    solve_linear,
)
from attncore.symbolic.notation import (
    Expectation,
    Variance,
    d,
    dot,
    i,
    k,
    mu_k,
    mu_q,
    q,
    sigma_k,
    sigma_q,
)
from attncore.symbolic.typeset import math

__all__ = [
    "blog_derivation_checks",
    "dot_product_mean",
    "dot_product_variance",
    "dot_product_variance_general",
    "general_moments",
    "product_term_steps",
    "scaled_logit_variance",
    "second_moment_step",
]

_INDEPENDENT = (
    r"the $2d$ components $q_1, \dots, q_d, k_1, \dots, k_d$ are mutually independent "
    "(no particular law, and not necessarily identically distributed)"
)
_SYMBOLIC_D = "$d$ is a positive integer that stays a symbol"
_MEAN_STEPS = (
    "mean of a product term",
    "first two cumulants",
    "cumulants of a sum of independent terms",
    "mean of the sum",
)


def second_moment_step(variable: sp.Expr, mean: sp.Expr, var: sp.Expr) -> Step:
    """``E[X^2] = Var(X) + E[X]^2``, solved from ``Var(X) = E[(X - E[X])^2]`` by linearity.

    >>> second_moment_step(q[i], mu_q, sigma_q**2).chain[-1]
    mu_q**2 + sigma_q**2
    """
    centered = expectation((variable - Expectation(variable)) ** 2, [[variable]])
    second = solve_linear(Variance(variable), centered, Expectation(variable**2))
    value = second.xreplace({Variance(variable): var, Expectation(variable): mean})
    return Step(
        f"second moment of {math(variable)}",
        (Expectation(variable**2), second, value),
        r"$\operatorname{Var}(X) = \mathbb{E}[(X - \mathbb{E}X)^2] = \mathbb{E}[X^2] - "
        r"(\mathbb{E}X)^2$ by linearity",
    )


def product_term_steps(
    mean_q: sp.Expr, var_q: sp.Expr, mean_k: sp.Expr, var_k: sp.Expr
) -> tuple[Step, ...]:
    """Mean, second moment and variance of one term ``q_i k_i``, ``q_i`` independent of ``k_i``.

    The last step's ``chain[-1]`` is ``Var(q_i k_i)``.

    >>> product_term_steps(0, 1, 0, 1)[-1].equation
    Eq(Var(k[i]*q[i]), 1)
    """
    qi, ki = q[i], k[i]
    groups = [[qi], [ki]]
    known = {
        Expectation(qi): mean_q,
        Expectation(ki): mean_k,
        Expectation(qi**2): var_q + mean_q**2,
        Expectation(ki**2): var_k + mean_k**2,
    }
    steps = [second_moment_step(qi, mean_q, var_q), second_moment_step(ki, mean_k, var_k)]
    first = expectation(qi * ki, groups)
    second = expectation((qi * ki) ** 2, groups)
    first_value, second_value = first.xreplace(known), second.xreplace(known)
    variance_value = sp.expand(second_value - first_value**2)
    steps += [
        Step(
            "mean of a product term",
            (Expectation(qi * ki), first, first_value),
            r"independence of $q_i$ and $k_i$: $\mathbb{E}[XY] = \mathbb{E}X\,\mathbb{E}Y$",
        ),
        Step(
            "second moment of a product term",
            (Expectation((qi * ki) ** 2), second, sp.expand(second_value)),
            "independence: $q_i^2$ and $k_i^2$ are functions of independent variables",
        ),
        Step(
            "variance of a product term",
            (
                Variance(qi * ki),
                Expectation((qi * ki) ** 2) - Expectation(qi * ki) ** 2,
                variance_value,
            ),
            r"$\operatorname{Var}(X) = \mathbb{E}[X^2] - (\mathbb{E}X)^2$",
        ),
    ]
    return tuple(steps)


def _sum_steps(term_steps: tuple[Step, ...]) -> tuple[Step, Step, Step, Step]:
    """The cumulant facts, then mean and variance of the sum of the d independent terms."""
    mean_term = next(s for s in term_steps if s.name == "mean of a product term").chain[-1]
    variance_term = term_steps[-1].chain[-1]
    return (
        *cumulant_moment_steps(),
        independent_sum_step("mean of the sum", q[i] * k[i], i, d, 1, mean_term),
        independent_sum_step("variance of the sum", q[i] * k[i], i, d, 2, variance_term),
    )


@functools.cache
def dot_product_variance() -> Derivation:
    """``Var(q.k) = d`` for independent components with mean 0 and variance 1 (footnote 4).

    >>> dot_product_variance().rhs
    d
    """
    terms = product_term_steps(0, 1, 0, 1)
    sums = _sum_steps(terms)
    return Derivation(
        "Variance of the dot product (Vaswani et al., footnote 4)",
        sp.Eq(Variance(dot(q, k, d)), sums[-1].chain[-1]),
        (
            _INDEPENDENT,
            r"$\mathbb{E}q_i = \mathbb{E}k_i = 0$ for every $i$",
            r"$\operatorname{Var}q_i = \operatorname{Var}k_i = 1$ for every $i$",
            _SYMBOLIC_D,
        ),
        terms + sums,
        verdict=(
            "Holds exactly, for every $d$ and every law of the components with these two "
            "moments; the mean is 0 (step *mean of the sum*)."
        ),
        caveats=(
            "Mutual independence is more than the footnote needs: $q$ independent of $k$, "
            "with uncorrelated components inside each vector, gives the same result; zero "
            "covariances alone, as Chuang's Proposition 5 (below) assumes them, do not.",
        ),
    )


def _general_assumptions() -> tuple[str, ...]:
    return (
        _INDEPENDENT,
        r"$\mathbb{E}q_i = \mu_q$ and $\operatorname{Var}q_i = \sigma_q^2$ for every $i$",
        r"$\mathbb{E}k_i = \mu_k$ and $\operatorname{Var}k_i = \sigma_k^2$ for every $i$",
        _SYMBOLIC_D,
    )


@functools.cache
def _general_steps() -> tuple[Step, ...]:
    terms = product_term_steps(mu_q, sigma_q**2, mu_k, sigma_k**2)
    return terms + _sum_steps(terms)


@functools.cache
def dot_product_mean() -> Derivation:
    """``E(q.k) = d mu_q mu_k`` for independent components with means ``mu_q``, ``mu_k``.

    >>> dot_product_mean().rhs
    d*mu_k*mu_q
    """
    steps = _general_steps()
    return Derivation(
        "Mean of the dot product, general moments",
        sp.Eq(Expectation(dot(q, k, d)), steps[-2].chain[-1]),
        _general_assumptions(),
        tuple(s for s in steps if s.name in _MEAN_STEPS),
    )


@functools.cache
def dot_product_variance_general() -> Derivation:
    """``Var(q.k) = d (sigma_q^2 sigma_k^2 + sigma_q^2 mu_k^2 + mu_q^2 sigma_k^2)``.

    >>> dot_product_variance_general().rhs
    d*(mu_k**2*sigma_q**2 + mu_q**2*sigma_k**2 + sigma_k**2*sigma_q**2)
    """
    steps = _general_steps()
    return Derivation(
        "Variance of the dot product, general moments",
        sp.Eq(Variance(dot(q, k, d)), sp.factor(steps[-1].chain[-1])),
        _general_assumptions(),
        steps,
        caveats=(
            "Only the first two moments of each component enter; the law does not.",
            r"With nonzero means the variance still grows like $d$, and the mean "
            r"$d\,\mu_q\mu_k$ grows like $d$ too.",
        ),
    )


@functools.cache
def scaled_logit_variance() -> Derivation:
    """``Var(q.k / sqrt(d)) = 1`` in the standard case: why the logits are divided by sqrt(d).

    >>> scaled_logit_variance().statement
    Eq(Var(Sum(k[i]*q[i], (i, 1, d))/sqrt(d)), 1)
    """
    X, c = sp.Symbol("X"), sp.Symbol("c", positive=True)
    scaled = expectation((c * X) ** 2, [[X]]) - expectation(c * X, [[X]]) ** 2
    scale_rule = Step(
        "variance of a scaled variable",
        (Variance(c * X), scaled, sp.factor(scaled), c**2 * Variance(X)),
        r"$\operatorname{Var}(X) = \mathbb{E}[X^2] - (\mathbb{E}X)^2$ and linearity; $c$ is a "
        r"constant",
    )
    logit = dot(q, k, d) / sp.sqrt(d)
    var_dot = dot_product_variance().rhs
    standard = Step(
        "standard case",
        (Variance(logit), Variance(dot(q, k, d)) / d, var_dot / d),
        r"the scaling rule with $c = 1/\sqrt{d}$, and $\operatorname{Var}(q \cdot k) = d$",
    )
    general_var = dot_product_variance_general().rhs / d
    general_mean = dot_product_mean().rhs / sp.sqrt(d)
    return Derivation(
        r"Variance of the scaled logit $q \cdot k / \sqrt{d}$",
        sp.Eq(Variance(logit), standard.chain[-1]),
        dot_product_variance().assumptions,
        (
            scale_rule,
            standard,
            Step(
                "general moments: variance",
                (Variance(logit), sp.factor(general_var)),
                "the scaling rule and the variance for general moments",
            ),
            Step(
                "general moments: mean",
                (Expectation(logit), general_mean),
                "linearity and the mean for general moments",
            ),
        ),
        verdict=r"Holds exactly for every $d$ (the footnote's argument for dividing by "
        r"$\sqrt{d}$).",
        caveats=(
            r"With nonzero means the variance of $q \cdot k/\sqrt{d}$ is still free of $d$, "
            r"but its mean $\sqrt{d}\,\mu_q\mu_k$ grows with $d$: dividing by $\sqrt{d}$ "
            "standardizes only zero-mean components.",
        ),
    )


def general_moments(
    d: int, mu_q: float, sigma_q: float, mu_k: float, sigma_k: float
) -> dict[str, float]:
    """``{"mean": E(q.k), "var": Var(q.k)}`` from :func:`dot_product_mean` and
    :func:`dot_product_variance_general`, at the given moments.

    >>> general_moments(4, 0.5, 1.0, 0.5, 1.0)
    {'mean': 1.0, 'var': 6.0}
    """
    means = {"d": d, "mu_q": mu_q, "mu_k": mu_k}
    return {
        "mean": dot_product_mean().evaluate(**means),
        "var": dot_product_variance_general().evaluate(**means, sigma_q=sigma_q, sigma_k=sigma_k),
    }


@functools.cache
def blog_derivation_checks() -> tuple[Check, ...]:
    """The lines of the blog's argument for ``Var(q.k) = d_k``, each set against the
    re-derivation of :func:`dot_product_variance` (a verdict rule simplifies the residuals).

    The blog writes ``Var(q_i k_i) = E[q_i^2] E[k_i^2] = 1`` (independence within a pair and
    zero means), ``Var(q.k) = sum_i Var(q_i k_i)`` (independence across ``i``), so
    ``Var(q.k) = d_k``, and the mean stays 0.

    >>> [sp.simplify(c.residual) for c in blog_derivation_checks()]
    [0, 0, 0, 0]
    """
    steps = {s.name: s for s in dot_product_variance().steps}
    second_q = steps[f"second moment of {math(q[i])}"].chain[-1]
    second_k = steps[f"second moment of {math(k[i])}"].chain[-1]
    term = steps["variance of a product term"].chain[-1]
    total = steps["variance of the sum"]
    return (
        Check(
            "Var(q_i k_i) = E[q_i²] E[k_i²] (independence, zero means)", term, second_q * second_k
        ),
        Check("E[q_i²] E[k_i²] = 1 (unit variances)", second_q * second_k, sp.Integer(1)),
        Check(
            "Var(q·k) = Σ_i Var(q_i k_i) = d_k (independence across i)",
            total.chain[-1],
            d * term,
        ),
        Check("the mean stays 0", steps["mean of the sum"].chain[-1], sp.Integer(0)),
    )
