"""Expected key length and why ``k_total`` is close to ``n sqrt(d)`` (Bernhard, section 5).

For a key with independent standard normal components, ``||k||^2`` has MGF
``(1 - 2t)^{-d/2}``, the chi-square law with ``d`` degrees of freedom, so
``E||k|| = sqrt(2) Gamma((d+1)/2) / Gamma(d/2)``. Stirling's series for
``log Gamma`` gives ``E||k|| = sqrt(d) - 1/(4 sqrt(d)) + 1/(32 d^{3/2}) + ...``, which
agrees with ``sqrt(d - 1/2)`` up to ``1/(16 d^{3/2})``. Summing ``n`` independent keys,
``E[k_total] / (n sqrt(d)) = 1 - 1/(4d) + ...`` and the relative spread of ``k_total``
is about ``1/sqrt(2 n d)``.

>>> expected_key_length().rhs
sqrt(2)*gamma(d/2 + 1/2)/gamma(d/2)
>>> round(expected_key_length().evaluate(d=16), 4)
3.938
"""

from __future__ import annotations

import functools

import sympy as sp

from attncore.symbolic.derivation import Derivation, Step
from attncore.symbolic.moments import gaussian_integral, taylor
from attncore.symbolic.notation import (
    Expectation,
    MomentGeneratingFunction,
    Norm,
    Variance,
    d,
    dot,
    i,
    k,
    n,
    q,
    t,
)
from attncore.symbolic.variance import dot_product_variance

__all__ = [
    "expected_key_length",
    "k_total_approximation",
    "key_length_expansion",
    "key_length_variance",
]

_ASSUMPTIONS = (
    "the key $k$ has $d$ independent standard normal components",
    "$d$ is a positive integer that stays a symbol",
)
_Z = sp.Symbol("z", real=True)
_Y = sp.Symbol("y", positive=True)
_U = sp.Symbol("u")  # 1/d, the small parameter of the expansions (no assumptions: faster)
_K_TOTAL = sp.Symbol("k_total", positive=True)


def _powers(expr: sp.Expr) -> sp.Expr:
    """Collect powers of 2 and of the same base: 2 * 2^(d/2 - 1/2) / 2^(d/2) -> sqrt(2)."""
    return sp.powsimp(sp.expand_power_base(expr, force=True), combine="exp", force=True)


def _truncate(polynomial: sp.Expr, order: int) -> sp.Expr:
    """The terms of degree < ``order`` of a polynomial in ``u = 1/d``."""
    poly = sp.Poly(sp.expand(polynomial), _U)
    return sum((c * _U**m for (m,), c in poly.terms() if m < order), sp.S.Zero)


@functools.cache
def expected_key_length() -> Derivation:
    """``E||k|| = sqrt(2) Gamma((d+1)/2) / Gamma(d/2)`` for a standard normal key.

    >>> [s.name for s in expected_key_length().steps][2:]
    ['chi-square density', 'mean length']
    """
    one = gaussian_integral(1 - 2 * t)  # E[exp(t z^2)] = int exp(-(1 - 2t) z^2 / 2) / sqrt(2 pi)
    total = sp.Product(one, (i, 1, d))
    squared = Norm(k) ** 2
    density = _Y ** (d / 2 - 1) * sp.exp(-_Y / 2) / (2 ** (d / 2) * sp.gamma(d / 2))
    # One gamma integral int_0^oo y^(s-1) exp(-w y / 2) dy (s, w > 0) gives both the MGF of
    # the density (s = d/2, w = 1 - 2t) and its mean length (s = (d + 1)/2, w = 1).
    s, w = sp.symbols("s w", positive=True)
    gamma_integral = sp.integrate(_Y ** (s - 1) * sp.exp(-w * _Y / 2), (_Y, 0, sp.oo), conds="none")
    scale = 2 ** (d / 2) * sp.gamma(d / 2)
    density_mgf = _powers(gamma_integral.subs(s, d / 2) / scale).subs(w, 1 - 2 * t)
    if density_mgf != total.doit():
        raise ArithmeticError(f"the chi-square MGF {density_mgf} differs from {total.doit()}")
    mean = _powers(gamma_integral.subs({s: (d + 1) / 2, w: 1}) / scale)
    return Derivation(
        "Expected length of a standard normal key",
        sp.Eq(Expectation(Norm(k)), mean),
        _ASSUMPTIONS,
        (
            Step(
                "moment generating function of one square",
                (MomentGeneratingFunction(k[i] ** 2, t), Expectation(sp.exp(t * k[i] ** 2)), one),
                r"Gaussian integral over $k_i \sim N(0, 1)$, for $t < 1/2$",
            ),
            Step(
                "moment generating function of the squared length",
                (MomentGeneratingFunction(squared, t), total, total.doit()),
                "the $d$ squares are independent",
            ),
            Step(
                "chi-square density",
                (sp.Integral(sp.exp(t * _Y) * density, (_Y, 0, sp.oo)), density_mgf),
                "this density has the same moment generating function, which exists near 0 and "
                r"so fixes the law of $\|k\|^2 = y$",
            ),
            Step(
                "mean length",
                (Expectation(Norm(k)), sp.Integral(sp.sqrt(_Y) * density, (_Y, 0, sp.oo)), mean),
                r"$\mathbb{E}\|k\| = \mathbb{E}\sqrt{\|k\|^2}$",
            ),
        ),
    )


@functools.cache
def _length_series() -> sp.Expr:
    """``E||k|| / sqrt(d)`` as a polynomial in ``u = 1/d``, exact through ``u^3``."""
    z = sp.Symbol("z", positive=True)
    # Stirling: log Gamma(z + 1/2) - log Gamma(z) = log(z)/2 - 1/(8z) + 1/(192 z^3) + O(z^-5).
    log_ratio = sp.series(sp.loggamma(z + sp.S.Half) - sp.loggamma(z), z, sp.oo, 5).removeO()
    scaled = sp.sqrt(2) * sp.exp(log_ratio.subs(z, 1 / (2 * _U))) * sp.sqrt(_U)  # z = d/2
    return taylor(sp.expand(scaled, force=True), _U, 3)


def _in_d(series_in_u: sp.Expr, factor: sp.Expr, order: sp.Expr) -> sp.Expr:
    """``factor * series(u = 1/d) + O(order)`` as an expression in ``d``."""
    return sp.expand(factor * series_in_u.subs(_U, 1 / d)) + sp.O(order, (d, sp.oo))


@functools.cache
def key_length_expansion() -> Derivation:
    """``E||k|| = sqrt(d) - 1/(4 sqrt(d)) + 1/(32 d^{3/2}) + 5/(128 d^{5/2}) + O(d^{-7/2})``.

    >>> key_length_expansion().steps[-1].chain[-1]
    1/(16*d**(3/2)) + O(d**(-5/2), (d, oo))
    """
    series = _length_series()
    mean = expected_key_length().rhs
    expansion = _in_d(series, sp.sqrt(d), d ** sp.Rational(-7, 2))
    root = taylor(sp.sqrt(1 - _U / 2), _U, 2)
    gap = _truncate(series - root, 3)
    return Derivation(
        "Asymptotic expansion of the expected key length",
        sp.Eq(Expectation(Norm(k)), expansion),
        _ASSUMPTIONS,
        (
            Step(
                "Stirling's series",
                (mean, sp.sqrt(d) * series.subs(_U, 1 / d)),
                r"$\log\Gamma(z + \tfrac12) - \log\Gamma(z) = \tfrac12\log z - \frac{1}{8z} + "
                r"\frac{1}{192 z^3} + O(z^{-5})$ at $z = d/2$ (sympy's asymptotic series of "
                r"$\log\Gamma$), then the exponential",
            ),
            Step(
                r"$\sqrt{d - 1/2}$",
                (sp.sqrt(d - sp.S.Half), _in_d(root, sp.sqrt(d), d ** sp.Rational(-5, 2))),
                r"binomial series of $\sqrt{1 - 1/(2d)}$",
            ),
            Step(
                "difference",
                (mean - sp.sqrt(d - sp.S.Half), _in_d(gap, sp.sqrt(d), d ** sp.Rational(-5, 2))),
                r"the two series agree through the $1/\sqrt{d}$ term",
            ),
        ),
    )


@functools.cache
def key_length_variance() -> Derivation:
    """``Var||k|| = d - E||k||^2``, which tends to 1/2: ``1/2 - 1/(8d) + O(d^{-2})``.

    >>> key_length_variance().steps[-1].chain[-1]
    -1/(8*d) + 1/2 + O(d**(-2), (d, oo))
    """
    mean = expected_key_length().rhs
    exact = d - mean**2
    series = _truncate(1 - _length_series() ** 2, 3)  # (d - E||k||^2) / d
    return Derivation(
        "Variance of the length of a standard normal key",
        sp.Eq(Variance(Norm(k)), exact),
        _ASSUMPTIONS,
        (
            Step(
                "second moment",
                (Expectation(Norm(k) ** 2), Expectation(dot(k, k, d)), d),
                r"linearity: $\mathbb{E}k_i^2 = 1$ for each of the $d$ components",
            ),
            Step(
                "variance",
                (Variance(Norm(k)), exact),
                r"$\operatorname{Var}Y = \mathbb{E}Y^2 - (\mathbb{E}Y)^2$ with $Y = \|k\|$",
            ),
            Step(
                "expansion",
                (exact, _in_d(series, d, d**-2)),
                "the series of the expected length, squared",
            ),
        ),
    )


@functools.cache
def k_total_approximation() -> Derivation:
    """``E[k_total] / (n sqrt(d)) = E||k|| / sqrt(d) = 1 - 1/(4d) + O(d^{-2})``.

    ``k_total = sum_i ||k_i||`` over ``n`` independent standard normal keys.

    >>> k_total_approximation().steps[1].chain[-1]
    1/(32*d**2) - 1/(4*d) + 1 + O(d**(-3), (d, oo))
    >>> k_total_approximation().steps[3].chain[-1]
    n**(-2)
    """
    mean = expected_key_length().rhs
    var = key_length_variance().rhs
    series = _length_series()
    ratio = mean / sp.sqrt(d)
    norms = sp.IndexedBase("k")
    lengths = sp.Sum(Norm(norms[i]), (i, 1, n))
    spread = sp.sqrt(var) / (sp.sqrt(n) * mean)
    # sd / mean = sqrt(Var||k||) / (sqrt(n) E||k||) = sqrt(1 - s^2) / (sqrt(n) s) with
    # s = E||k|| / sqrt(d); times sqrt(2 n d) it is a series in u = 1/d starting at 1.
    spread_series = taylor(sp.sqrt(sp.cancel(2 * (1 - series**2) / _U)) / series, _U, 1)
    scale = sp.sqrt(2 * n * d)
    logit = dot(q, k, d) / (n * sp.sqrt(d))
    return Derivation(
        r"$k_\text{total}$ compared with $n\sqrt{d}$ (Bernhard, section 5)",
        sp.Eq(Expectation(_K_TOTAL) / (n * sp.sqrt(d)), ratio),
        (
            r"the $n$ keys $k_1, \dots, k_n$ are independent, each with $d$ independent standard "
            "normal components",
            r"$k_\text{total} = \|k_1\| + \dots + \|k_n\|$",
            "$d$ and $n$ are positive integers that stay symbols",
        ),
        (
            Step(
                "mean",
                (Expectation(_K_TOTAL), Expectation(lengths), n * Expectation(Norm(k)), n * mean),
                "linearity (no independence needed)",
            ),
            Step(
                r"ratio to $n\sqrt{d}$",
                (ratio, _in_d(series, 1, d**-3)),
                r"the expansion of the expected length: the relative error is about $1/(4d)$",
            ),
            Step(
                "relative spread",
                (
                    sp.sqrt(Variance(_K_TOTAL)) / Expectation(_K_TOTAL),
                    spread,
                    sp.Mul(1 / scale, _in_d(spread_series, 1, d**-2), evaluate=False),
                ),
                r"$\operatorname{Var}k_\text{total} = n \operatorname{Var}\|k\|$ for independent "
                r"keys",
            ),
            Step(
                r"logits divided by $n\sqrt{d}$",
                (Variance(logit), dot_product_variance().rhs / (n**2 * d)),
                r"$\operatorname{Var}(q \cdot k) = d$ for a standard normal query independent of "
                r"the key",
            ),
        ),
        verdict=(
            r"Bernhard's remark holds for standard normal keys: $k_\text{total} / (n\sqrt{d})$ "
            r"tends to 1, with mean $1 - 1/(4d) + O(d^{-2})$ and relative spread about "
            r"$1/\sqrt{2nd}$."
        ),
        caveats=(
            "Both scalings make the logits $O(1/n)$ (last step): the softmax of $n$ such logits "
            "is within $O(1/n)$ of uniform, which is why its output keeps the shape of the logits.",
            r"For components with mean $\mu$ and variance $\sigma^2$, "
            r"$\mathbb{E}\|k\|^2 = d(\sigma^2 + \mu^2)$, so $k_\text{total}$ is close to "
            r"$n\sqrt{d(\sigma^2 + \mu^2)}$, not $n\sqrt{d}$: dividing by $n\sqrt{d}$ matches "
            r"$k_\text{total}$ only when $\sigma^2 + \mu^2 = 1$, as Bernhard observes for other "
            r"laws.",
        ),
    )
