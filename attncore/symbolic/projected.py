"""Chuang's relaxed assumptions: ``q = x W_q``, ``k = x' W_k``, and a token attending to itself.

Conditional on the tokens, the components of ``q`` are uncorrelated with variance
``||x||^2 sigma_wq^2`` (the columns of ``W_q`` are independent), ``k`` likewise with
``||x'||^2 sigma_wk^2``, and ``q`` is independent of ``k``. The law of total variance
then gives ``Var(q.k) = d_k sigma_wq^2 sigma_wk^2 E[||x||^2 ||x'||^2]``: for two
different tokens this is Chuang's ``(d_x s_X^2 s_Wq^2)(d_x s_X^2 s_Wk^2) d_k``,
exactly; for a token attending to itself (``x' = x``) it is ``E||x||^4`` instead, larger
by the factor ``1 + (mu_4 / sigma_x^4 - 1) / d_x`` (``1 + 2/d_x`` for normal tokens).

>>> projected_dot_variance().rhs
d_k*d_x**2*sigma_wk**2*sigma_wq**2*sigma_x**4
>>> self_attention_variance_ratio().rhs
1 + (mu_4/sigma_x**4 - 1)/d_x
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike

from attncore.checks import ParameterError, finite_array, positive_real
from attncore.symbolic.derivation import Derivation, Step
from attncore.symbolic.moments import expectation, independent_sum_step, sift, variance
from attncore.symbolic.notation import (
    Expectation,
    Norm,
    Variance,
    d_k,
    d_x,
    dot,
    j,
    k,
    mu_4,
    q,
    sigma_wk,
    sigma_wq,
    sigma_x,
)

__all__ = [
    "projected_dot_variance",
    "projected_dot_variance_given_weights",
    "projected_logit_moments",
    "self_attention_variance_ratio",
]

a, b, l_ = sp.symbols("a b l", integer=True, positive=True)
x_query, x_key = sp.IndexedBase("x"), sp.IndexedBase("x'")
W_q, W_k = sp.IndexedBase("W_q"), sp.IndexedBase("W_k")
_M = sp.MatrixSymbol("M", d_x, d_x)  # W_q W_k^T
_LOGIT = sp.Symbol(r"q \cdot k")
_WEIGHTS = sp.Tuple(sp.Symbol("W_q"), sp.Symbol("W_k"))


def _assumptions(self_attention: bool) -> tuple[str, ...]:
    token = (
        "the key is computed from the same token as the query: $x' = x$"
        if self_attention
        else "$x'$ is independent of $x$, with the same law"
    )
    moments = r"mean 0, variance $\sigma_x^2$" + (
        r" and fourth moment $\mu_4$" if self_attention else ""
    )
    return (
        r"$q = x W_q$ and $k = x' W_k$ with $W_q, W_k$ of size $d_x \times d_k$",
        r"the entries of $W_q$ and $W_k$ are independent, mean 0, variances $\sigma_{wq}^2$ and "
        r"$\sigma_{wk}^2$; the weights are independent of the tokens",
        f"the token $x$ has independent components with {moments}",
        token,
        "$d_x$ and $d_k$ are positive integers that stay symbols",
    )


def _conditional_covariance_step(
    name: str, token: sp.IndexedBase, weights: sp.IndexedBase, sd: sp.Expr
) -> Step:
    """``E[v_j v_l | token] = sd^2 delta_jl ||token||^2`` for ``v = token @ weights``."""
    pair = token[a] * token[b] * sd**2 * sp.KroneckerDelta(a, b) * sp.KroneckerDelta(j, l_)
    inner = sift(pair, b, a, d_x)
    component = sp.Sum(token[a] * weights[a, j], (a, 1, d_x))
    other = sp.Sum(token[b] * weights[b, l_], (b, 1, d_x))
    return Step(
        name,
        (
            Expectation(component * other, token),
            sp.Sum(
                token[a] * token[b] * Expectation(weights[a, j] * weights[b, l_]),
                (a, 1, d_x),
                (b, 1, d_x),
            ),
            sp.Sum(pair, (a, 1, d_x), (b, 1, d_x)),
            sp.factor_terms(sp.Sum(inner, (a, 1, d_x))),
        ),
        "linearity given the token; entries of the weights are independent with mean 0, so "
        r"$\mathbb{E}[W_{aj} W_{bl}] = \sigma^2 \delta_{ab} \delta_{jl}$",
    )


@functools.cache
def _squared_norm_moments() -> tuple[Step, Step, Step]:
    """Mean and variance of ``||x||^2``, and ``E||x||^4``, with ``d_x`` a symbol."""
    xa = x_query[a]
    laws = {
        Expectation(xa): 0,
        Expectation(xa**2): sigma_x**2,
        Expectation(xa**3): sp.Symbol("mu_3"),
        Expectation(xa**4): mu_4,
    }
    term_mean = expectation(xa**2, [[xa]]).xreplace(laws)
    term_var = variance(xa**2, [[xa]]).xreplace(laws)
    mean = independent_sum_step(r"mean of $\|x\|^2$", xa**2, a, d_x, 1, term_mean)
    var = independent_sum_step(r"variance of $\|x\|^2$", xa**2, a, d_x, 2, term_var)
    fourth = sp.expand(var.chain[-1] + mean.chain[-1] ** 2)
    return (
        mean,
        var,
        Step(
            r"$\mathbb{E}\|x\|^4$",
            (
                Expectation(Norm(x_query) ** 4),
                Variance(Norm(x_query) ** 2) + Expectation(Norm(x_query) ** 2) ** 2,
                fourth,
            ),
            r"$\mathbb{E}Y^2 = \operatorname{Var}Y + (\mathbb{E}Y)^2$ for $Y = \|x\|^2$",
        ),
    )


@functools.cache
def projected_dot_variance(self_attention: bool = False) -> Derivation:
    """``Var(q.k)`` for ``q = x W_q``, ``k = x' W_k``; ``x' = x`` if ``self_attention``.

    >>> projected_dot_variance(self_attention=True).rhs
    d_k*d_x*sigma_wk**2*sigma_wq**2*(d_x*sigma_x**4 + mu_4 - sigma_x**4)
    """
    key_token = x_query if self_attention else x_key
    logit = dot(q, k, d_k, index=j)
    given = sp.Tuple(x_query, key_token) if not self_attention else x_query
    # E[q_j q_l | x] E[k_j k_l | x'], from the two conditional covariance steps
    pairs = (sigma_wq * sigma_wk * Norm(x_query) * Norm(key_token) * sp.KroneckerDelta(j, l_)) ** 2
    conditional_var = sp.Sum(sift(pairs, l_, j, d_k), (j, 1, d_k)).doit()
    mean_step, var_step, fourth_step = _squared_norm_moments()
    if self_attention:
        token_moment = fourth_step.chain[-1]
        token_steps: tuple[Step, ...] = (mean_step, var_step, fourth_step)
        token_reason = r"$\mathbb{E}\|x\|^4$ from the steps above"
    else:
        token_moment = mean_step.chain[-1] ** 2
        token_steps = (mean_step,)
        token_reason = (
            r"$x$ and $x'$ are independent: $\mathbb{E}[\|x\|^2 \|x'\|^2] = "
            r"\mathbb{E}\|x\|^2\,\mathbb{E}\|x'\|^2$"
        )
    result = sp.factor(d_k * sigma_wq**2 * sigma_wk**2 * token_moment)
    steps: tuple[Step, ...] = (
        _conditional_covariance_step("query given the token", x_query, W_q, sigma_wq),
        _conditional_covariance_step("key given the token", key_token, W_k, sigma_wk),
        Step(
            "given the tokens",
            (
                sp.Tuple(Expectation(logit, given), Variance(logit, given)),
                sp.Tuple(
                    sp.Sum(Expectation(q[j], x_query) * Expectation(k[j], key_token), (j, 1, d_k)),
                    sp.Sum(pairs, (j, 1, d_k), (l_, 1, d_k)),
                ),
                sp.Tuple(0, conditional_var),
            ),
            "given the tokens $q$ and $k$ are independent ($W_q$ is independent of $W_k$), with "
            r"uncorrelated zero-mean components: $\operatorname{Var} = \sum_{j,l} "
            r"\mathbb{E}[q_j q_l]\,\mathbb{E}[k_j k_l]$",
        ),
        Step(
            "law of total variance",
            (
                Variance(logit),
                Expectation(Variance(logit, given)) + Variance(Expectation(logit, given)),
                Expectation(conditional_var),
            ),
            "the conditional mean is 0",
        ),
        *token_steps,
        Step("result", (Variance(logit), result), token_reason),
    )
    chuang = (d_x * sigma_x**2 * sigma_wq**2) * (d_x * sigma_x**2 * sigma_wk**2) * d_k
    if self_attention:
        title = r"Variance of $q \cdot k$ when a token attends to itself ($x' = x$)"
        verdict = (
            "Chuang's formula, stated for 'the scalar product $q_i k_i$' (in self-attention, "
            "with the same index $i$, a token and itself), is too small for this pair: the "
            r"variance is larger by the self-attention factor, $1 + 2/d_x$ for normal tokens."
        )
        caveats: tuple[str, ...] = (
            r"Given fixed weights the logit has mean $\sigma_x^2 \operatorname{tr}(W_q W_k^\top)$, "
            "not 0.",
        )
    else:
        if sp.expand(result - chuang) != 0:
            raise ArithmeticError(f"the derivation disagrees with Chuang's formula: {result}")
        title = r"Variance of $q \cdot k$ for projected tokens (Chuang's relaxed assumptions)"
        verdict = (
            r"Chuang's $(d_x \sigma_X^2 \sigma_{W_q}^2)(d_x \sigma_X^2 \sigma_{W_k}^2)\, d_k$ "
            "holds exactly, not approximately, over the joint draw of the two tokens and the "
            "weights; no normality and no large $d_x$ or $d_k$ is needed."
        )
        caveats = (
            "Conditional on fixed weights (a trained model) the variance over the tokens is "
            r"$\sigma_x^4 \|W_q W_k^\top\|_F^2$: it depends on the weights through "
            r"$\|W_q W_k^\top\|_F$, not through $\sigma_{wq}$ and $\sigma_{wk}$ alone. Plugging "
            r"the measured entry variances $\|W\|_F^2 / (d_x d_k)$ into Chuang's formula gives "
            r"$\sigma_x^4 \|W_q\|_F^2 \|W_k\|_F^2 / d_k$, while $\|W_q W_k^\top\|_F^2$ can be "
            r"anything from 0 (orthogonal row spaces: every row of $W_q$ orthogonal to every row "
            r"of $W_k$) to $\|W_q\|_F^2 \|W_k\|_F^2$ (rank one, aligned): from 0 to $d_k$ times "
            "the formula.",
        )
    return Derivation(
        title,
        sp.Eq(Variance(logit), result),
        _assumptions(self_attention),
        steps,
        verdict=verdict,
        caveats=caveats,
    )


@functools.cache
def self_attention_variance_ratio() -> Derivation:
    """``Var(q.k | x' = x) / Var(q.k | x' indep. x) = 1 + (mu_4 / sigma_x^4 - 1) / d_x``.

    >>> self_attention_variance_ratio().steps[-1].chain[-1]
    1 + 2/d_x
    """
    same, different = projected_dot_variance(True).rhs, projected_dot_variance(False).rhs
    ratio = sp.cancel(same / different)
    kurtosis = mu_4 / sigma_x**4
    form = 1 + (kurtosis - 1) / d_x
    if sp.cancel(ratio - form) != 0:
        raise ArithmeticError(f"unexpected ratio {ratio}")
    lhs = Variance(sp.Symbol(r"(q \cdot k)_{\mathrm{self}}")) / Variance(_LOGIT)
    return Derivation(
        "Self-attention correction to Chuang's variance",
        sp.Eq(lhs, form),
        _assumptions(self_attention=True)[:3],
        (
            Step("ratio", (lhs, same / different, ratio, form), "the two variances above"),
            Step(
                "normal tokens",
                (lhs, form.subs(mu_4, 3 * sigma_x**4)),
                r"$\mu_4 = 3\sigma_x^4$ for a normal component",
            ),
        ),
        caveats=(
            r"The excess over 1 is $(\kappa_x - 1)/d_x$ with $\kappa_x$ the kurtosis of a token "
            "component: small for wide tokens, but it is there "
            "for the diagonal of every self-attention logit matrix.",
        ),
    )


@functools.cache
def projected_dot_variance_given_weights(self_attention: bool = False) -> Derivation:
    """Variance of ``q.k = x M x'^T`` over the tokens, for fixed ``M = W_q W_k^T``.

    >>> projected_dot_variance_given_weights().rhs
    sigma_x**4*Trace(M*M.T)
    >>> projected_dot_variance_given_weights(self_attention=True).steps[1].chain[-1]
    sigma_x**2*Trace(M)
    """
    frobenius, trace, trace_square = sp.Trace(_M * _M.T), sp.Trace(_M), sp.Trace(_M * _M)
    diagonal = sp.Sum(_M[a, a] ** 2, (a, 0, d_x - 1))
    if self_attention:
        mean = sigma_x**2 * trace
        var = sigma_x**4 * (frobenius + trace_square) + (mu_4 - 3 * sigma_x**4) * diagonal
    else:
        mean, var = sp.Integer(0), sigma_x**4 * frobenius
    key_token = x_query if self_attention else x_key
    bilinear = sp.Sum(x_query[a] * _M[a, b] * key_token[b], (a, 0, d_x - 1), (b, 0, d_x - 1))
    return Derivation(
        "Logit variance over the tokens for fixed weights"
        + (" (token attends to itself)" if self_attention else " (two different tokens)"),
        sp.Eq(Variance(_LOGIT, _WEIGHTS), var),
        (*_assumptions(self_attention)[2:4], "$W_q$ and $W_k$ are fixed (conditioned on)"),
        (
            Step(
                "bilinear form",
                (_LOGIT, bilinear),
                r"$q \cdot k = x W_q (x' W_k)^\top = x M x'^\top$ with $M = W_q W_k^\top$ "
                r"(indices from 0)",
            ),
            Step(
                "mean",
                (Expectation(_LOGIT, _WEIGHTS), mean),
                r"linearity; $\mathbb{E}[x_a x'_b] = 0$, $\mathbb{E}[x_a x_b] = \sigma_x^2 "
                r"\delta_{ab}$",
            ),
            _check_quadratic_form(self_attention, mean, var),
        ),
        caveats=(
            "Averaging over iid weights gives back the variance over random weights: "
            r"$\mathbb{E}\|M\|_F^2 = d_x^2 d_k \sigma_{wq}^2 \sigma_{wk}^2$ and "
            r"$\mathbb{E}\operatorname{tr}(M^2) = \mathbb{E}\sum_a M_{aa}^2 = "
            r"\mathbb{E}(\operatorname{tr} M)^2 = d_x d_k \sigma_{wq}^2 \sigma_{wk}^2$.",
        ),
    )


def _check_quadratic_form(self_attention: bool, mean: sp.Expr, var: sp.Expr) -> Step:
    """Mean and variance against the full expansion for ``d_x = 3`` with a symbolic ``M``.

    ``E[x_a x_b x_c x_e]`` is nonzero only if no index appears once, i.e. for at most
    two distinct indices; ``d_x = 3`` has every such pattern (and patterns with three
    distinct indices, where both sides vanish), so the contraction is checked in full.
    """
    size = 3
    entries = sp.ImmutableMatrix(size, size, lambda r, c: sp.Symbol(f"M_{r}{c}"))
    xs = sp.symbols(f"x_0:{size}")
    ys = xs if self_attention else sp.symbols(f"x'_0:{size}")
    variables = list(dict.fromkeys(xs + ys))
    laws = {}
    for v in variables:
        laws.update({Expectation(v): 0, Expectation(v**2): sigma_x**2})
        laws.update({Expectation(v**3): sp.Symbol("mu_3"), Expectation(v**4): mu_4})
    form = (sp.Matrix([xs]) * entries * sp.Matrix(ys))[0]
    groups = [[v] for v in variables]
    derived_mean = expectation(form, groups).xreplace(laws)
    derived_var = expectation(form**2, groups).xreplace(laws) - derived_mean**2

    def concrete(expr: sp.Expr) -> sp.Expr:
        expr = expr.subs(d_x, size).doit()
        return expr.subs(sp.MatrixSymbol("M", size, size), entries).doit()

    if sp.expand(derived_mean - concrete(mean)) != 0 or sp.expand(derived_var - concrete(var)):
        raise ArithmeticError(f"the fixed-weight moments disagree with the d_x = {size} case")
    return Step(
        "variance",
        (Variance(_LOGIT, _WEIGHTS), var),
        r"$\mathbb{E}[x_a x_b x_c x_e] = \sigma_x^4 (\delta_{ab}\delta_{ce} + "
        r"\delta_{ac}\delta_{be} + \delta_{ae}\delta_{bc}) + (\mu_4 - 3\sigma_x^4)\,\delta_{abce}$ "
        r"contracted with $M_{ab} M_{ce}$; checked against the full expansion for a symbolic "
        r"$3 \times 3$ matrix $M$, which has every pattern of indices with a nonzero moment",
    )


def projected_logit_moments(
    w_q: ArrayLike,
    w_k: ArrayLike,
    sigma_x: float = 1.0,
    fourth_moment: float | None = None,
    self_attention: bool = False,
) -> tuple[float, float]:
    """Mean and variance of ``q.k`` over random tokens, for fixed weight matrices.

    Token components are iid with mean 0, standard deviation ``sigma_x`` and fourth
    moment ``fourth_moment`` (default ``3 sigma_x^4``, normal tokens); see
    :func:`projected_dot_variance_given_weights`.

    >>> projected_logit_moments(np.eye(2), np.eye(2))
    (0.0, 2.0)
    >>> projected_logit_moments(np.eye(2), np.eye(2), self_attention=True)
    (2.0, 4.0)
    """
    wq = finite_array("w_q", w_q, ndim=2)
    wk = finite_array("w_k", w_k, ndim=2)
    if wq.shape != wk.shape:
        raise ParameterError(f"w_q and w_k must have the same shape, got {wq.shape} and {wk.shape}")
    s2 = positive_real("sigma_x", sigma_x) ** 2
    m4 = 3 * s2**2 if fourth_moment is None else positive_real("fourth_moment", fourth_moment)
    if m4 < s2**2:
        raise ParameterError(f"fourth_moment must be >= sigma_x^4 = {s2**2}, got {m4}")
    m = wq @ wk.T
    frobenius = float(np.sum(m * m))
    if not self_attention:
        return 0.0, s2**2 * frobenius
    mean = s2 * float(np.trace(m))
    var = s2**2 * (frobenius + float(np.trace(m @ m))) + (m4 - 3 * s2**2) * float(
        np.sum(np.diag(m) ** 2)
    )
    return mean, var
