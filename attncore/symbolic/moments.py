"""Moment algebra: expectations by linearity and independence, cumulants of sums.

:func:`expectation` is the rule every derivation uses: expectation is linear, and
the expectation of a product of *independent* factors is the product of their
expectations, ``E[XY] = E[X] E[Y]``. Random variables are listed in groups; variables
of one group may depend on each other (their joint moments stay unevaluated, as
``E[X Y]``), variables of different groups are independent. The moments of a given
law are then substituted (:func:`normal_moments`, :func:`rademacher_moments`).

>>> X, Y = sp.symbols("X Y")
>>> expectation((X + Y) ** 2, [[X], [Y]])
2*E[X]*E[Y] + E[X**2] + E[Y**2]
>>> expectation((X + Y) ** 2, [[X, Y]])
E[X**2] + E[Y**2] + 2*E[X*Y]

Cumulants of a sum of independent terms add, which is how a sum of ``d`` terms is
handled with ``d`` a symbol (:func:`independent_sum_step`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import sympy as sp

from attncore.checks import ParameterError
from attncore.symbolic.derivation import Step
from attncore.symbolic.notation import (
    Covariance,
    Cumulant,
    CumulantGeneratingFunction,
    Expectation,
    MomentGeneratingFunction,
    Variance,
    t,
)

__all__ = [
    "covariance",
    "cumulant_moment_steps",
    "cumulants_from_mgf",
    "expectation",
    "gaussian_integral",
    "independent_sum_step",
    "normal_moments",
    "rademacher_moments",
    "sift",
    "solve_linear",
    "standard_normal_mgf",
    "taylor",
    "variance",
]

_OPERATORS = (Expectation, Variance, Covariance, Cumulant)


def expectation(expr: sp.Expr, groups: Sequence[Sequence[sp.Expr]]) -> sp.Expr:
    """``E[expr]`` for a polynomial in the random variables of ``groups``.

    Groups are mutually independent; within a group, a joint moment stays as
    ``E[monomial]``. Expectations already in ``expr`` are constants.

    >>> X, Y, a = sp.symbols("X Y a")
    >>> expectation((X - Expectation(X)) * (Y - a), [[X], [Y]])
    0
    """
    variables = [v for group in groups for v in group]
    if len(set(variables)) != len(variables):
        raise ParameterError("groups must not share a random variable")
    expr = sp.sympify(expr)
    shield = {atom: sp.Dummy() for atom in expr.atoms(*_OPERATORS)}
    try:
        poly = sp.Poly(expr.xreplace(shield), *variables)
    except sp.PolynomialError as err:
        raise ParameterError(f"expr must be a polynomial in the random variables: {err}") from err
    total = sp.S.Zero
    for exponents, coeff in poly.terms():
        term, start = coeff, 0
        for group in groups:
            powers = exponents[start : start + len(group)]
            start += len(group)
            monomial = sp.Mul(*(v**p for v, p in zip(group, powers, strict=True)))
            if monomial != 1:
                term *= Expectation(monomial)
        total += term
    return sp.expand(total.xreplace({dummy: atom for atom, dummy in shield.items()}))


def variance(expr: sp.Expr, groups: Sequence[Sequence[sp.Expr]]) -> sp.Expr:
    """``Var(expr) = E[expr^2] - E[expr]^2`` with :func:`expectation`.

    >>> X, Y = sp.symbols("X Y")
    >>> variance(X * Y, [[X], [Y]])
    -E[X]**2*E[Y]**2 + E[X**2]*E[Y**2]
    """
    return sp.expand(expectation(expr**2, groups) - expectation(expr, groups) ** 2)


def covariance(a: sp.Expr, b: sp.Expr, groups: Sequence[Sequence[sp.Expr]]) -> sp.Expr:
    """``Cov(a, b) = E[a b] - E[a] E[b]`` with :func:`expectation`.

    >>> X, Y = sp.symbols("X Y")
    >>> covariance(X**2, Y**2, [[X], [Y]])
    0
    """
    return sp.expand(expectation(a * b, groups) - expectation(a, groups) * expectation(b, groups))


@functools.cache
def _gaussian_integral() -> tuple[sp.Symbol, sp.Expr]:
    a = sp.Symbol("a", positive=True)
    z = sp.Symbol("z", real=True)
    return a, sp.integrate(sp.exp(-a * z**2 / 2) / sp.sqrt(2 * sp.pi), (z, -sp.oo, sp.oo))


def gaussian_integral(a: sp.Expr) -> sp.Expr:
    """``int exp(-a z^2 / 2) dz / sqrt(2 pi)`` over the real line, ``a^{-1/2}`` for ``a > 0``.

    Integrated once by sympy for a positive symbol, then evaluated at ``a``.

    >>> gaussian_integral(1 - 2 * t)
    1/sqrt(1 - 2*t)
    """
    symbol, value = _gaussian_integral()
    return value.subs(symbol, a)


@functools.cache
def standard_normal_mgf() -> sp.Expr:
    """``E[exp(t Z)]`` for ``Z ~ N(0, 1)``: complete the square, then a Gaussian integral.

    ``t z - z^2/2 = t^2/2 - (z - t)^2/2``, and shifting ``z`` by ``t`` leaves the
    integral of ``exp(-(z - t)^2 / 2) / sqrt(2 pi)`` at :func:`gaussian_integral` ``(1)``.

    >>> standard_normal_mgf()
    exp(t**2/2)
    """
    z = sp.Symbol("z", real=True)
    if sp.expand(t * z - z**2 / 2 - (t**2 / 2 - (z - t) ** 2 / 2)) != 0:
        raise ArithmeticError("completing the square failed")
    return sp.exp(t**2 / 2) * gaussian_integral(1)


def taylor(expr: sp.Expr, variable: sp.Symbol, order: int) -> sp.Expr:
    """Taylor polynomial of ``expr`` at ``variable = 0`` through degree ``order``, by derivatives.

    >>> taylor(sp.exp(t), t, 3)
    t**3/6 + t**2/2 + t + 1
    """
    terms, derivative = [], expr
    for degree in range(order + 1):
        terms.append(
            sp.expand(derivative.subs(variable, 0)) * variable**degree / sp.factorial(degree)
        )
        derivative = sp.diff(derivative, variable)
    return sp.Add(*terms)


def _raw_moments_from_mgf(mgf: sp.Expr, order: int) -> list[sp.Expr]:
    series = taylor(mgf, t, order)
    return [sp.expand(sp.factorial(p) * series.coeff(t, p)) for p in range(order + 1)]


def normal_moments(
    variable: sp.Expr, mean: sp.Expr = 0, sd: sp.Expr = 1, order: int = 4
) -> dict[sp.Expr, sp.Expr]:
    """``{E[X^p]: value}`` for ``X ~ N(mean, sd^2)``, ``p = 1..order``, from the MGF.

    The MGF of ``mean + sd Z`` is ``exp(mean t) M_Z(sd t)``.

    >>> X = sp.Symbol("X")
    >>> normal_moments(X, order=4)[Expectation(X**4)]
    3
    """
    mgf = sp.exp(mean * t) * standard_normal_mgf().subs(t, sd * t)
    moments = _raw_moments_from_mgf(mgf, order)
    return {Expectation(variable**p): moments[p] for p in range(1, order + 1)}


def rademacher_moments(variable: sp.Expr, order: int = 4) -> dict[sp.Expr, sp.Expr]:
    """``{E[S^p]: value}`` for a random sign ``S`` (+1 or -1 with probability 1/2 each).

    >>> S = sp.Symbol("S")
    >>> [rademacher_moments(S)[Expectation(S**p)] for p in (1, 2, 3, 4)]
    [0, 1, 0, 1]
    """
    half = sp.Rational(1, 2)
    return {Expectation(variable**p): half * 1**p + half * (-1) ** p for p in range(1, order + 1)}


def cumulants_from_mgf(mgf: sp.Expr, order: int = 4) -> list[sp.Expr]:
    """Cumulants ``[kappa_1, ..., kappa_order]``: ``r!`` times the coefficients of ``log M(t)``.

    A polynomial ``M`` (a truncated Taylor expansion with moments as coefficients) goes
    through ``log(1 + y) = y - y^2/2 + ...``; any other ``M`` through derivatives.

    >>> cumulants_from_mgf(standard_normal_mgf())
    [0, 1, 0, 0]
    >>> cumulants_from_mgf(1 + sp.Symbol("m") * t, order=2)
    [m, -m**2]
    """
    y = sp.expand(mgf - 1)
    if y.is_polynomial(t) and y.subs(t, 0) == 0:
        powers = sp.Add(*((-1) ** (m + 1) * y**m / m for m in range(1, order + 1)))
        series = sp.expand(powers)
    else:
        series = taylor(sp.expand_log(sp.log(mgf), force=True), t, order)
    return [sp.expand(sp.factorial(r) * series.coeff(t, r)) for r in range(1, order + 1)]


def _cumulant(order: int, of: sp.Expr) -> sp.Expr:
    """Book notation of a cumulant: E for order 1, Var for order 2."""
    return {1: Expectation, 2: Variance}.get(order, lambda x: Cumulant(order, x))(of)


@functools.cache
def cumulant_moment_steps() -> tuple[Step, Step]:
    """The two facts behind "cumulants add": the first two cumulants, and the CGF of a sum.

    >>> [s.name for s in cumulant_moment_steps()]
    ['first two cumulants', 'cumulants of a sum of independent terms']
    """
    X = sp.Symbol("X")
    m1, m2 = Expectation(X), Expectation(X**2)
    # Taylor expansion of M_X(t) = E[exp(tX)] = 1 + E[X] t + E[X^2] t^2/2 + ...
    mgf = 1 + m1 * t + m2 * t**2 / 2
    kappa1, kappa2 = cumulants_from_mgf(mgf, order=2)
    first_two = Step(
        "first two cumulants",
        (
            sp.Tuple(Cumulant(1, X), Cumulant(2, X)),
            sp.Tuple(kappa1, sp.expand(kappa2)),
            sp.Tuple(Expectation(X), Variance(X)),
        ),
        r"$\kappa_r = r!\,[t^r] \log M_X(t)$, with "
        r"$M_X(t) = 1 + \mathbb{E}[X]\,t + \mathbb{E}[X^2]\,t^2/2 + O(t^3)$",
    )
    terms = sp.IndexedBase("X")
    idx, count = sp.symbols("i m", integer=True, positive=True)
    total = sp.Sum(terms[idx], (idx, 1, count))
    additive = Step(
        "cumulants of a sum of independent terms",
        (
            CumulantGeneratingFunction(total, t),
            sp.log(MomentGeneratingFunction(total, t)),
            sp.log(sp.Product(MomentGeneratingFunction(terms[idx], t), (idx, 1, count))),
            sp.Sum(CumulantGeneratingFunction(terms[idx], t), (idx, 1, count)),
        ),
        r"independence: $\mathbb{E}[e^{t \sum_i X_i}] = \prod_i \mathbb{E}[e^{t X_i}]$; so "
        r"$\kappa_r(\sum_i X_i) = \sum_i \kappa_r(X_i)$ for every $r$",
    )
    return first_two, additive


def independent_sum_step(
    name: str, summand: sp.Expr, index: sp.Symbol, count: sp.Expr, order: int, value: sp.Expr
) -> Step:
    """``kappa_order(sum_{index=1}^{count} summand) = count * value`` for independent terms.

    ``value`` is the cumulant shared by every term; the sum is done by sympy with
    ``count`` a symbol.

    >>> from attncore.symbolic.notation import d, i, q
    >>> independent_sum_step("sum", q[i] ** 2, i, d, 1, 1).equation
    Eq(E[Sum(q[i]**2, (i, 1, d))], d)
    """
    summed = sp.Sum(value, (index, 1, count))
    return Step(
        name,
        (
            _cumulant(order, sp.Sum(summand, (index, 1, count))),
            sp.Sum(_cumulant(order, summand), (index, 1, count)),
            summed,
            summed.doit(),
        ),
        "cumulants of independent terms add, and every term has the same one",
    )


def sift(expr: sp.Expr, inner: sp.Symbol, outer: sp.Symbol, upper: sp.Expr) -> sp.Expr:
    """``sum_{inner=1}^{upper} expr`` where ``expr`` holds ``KroneckerDelta(outer, inner)``.

    ``outer`` is the index of an enclosing sum over ``1..upper``, so the condition
    ``outer <= upper`` that sympy attaches to the result holds and is dropped.

    >>> from attncore.symbolic.notation import i, j, n, q
    >>> sift(sp.KroneckerDelta(i, j) * q[j], j, i, n)
    q[i]
    """
    in_range = {sp.Le(outer, upper): True, sp.Ge(upper, outer): True}
    return sp.Sum(expr, (inner, 1, upper)).doit().subs(in_range)


def solve_linear(lhs: sp.Expr, rhs: sp.Expr, unknown: sp.Expr) -> sp.Expr:
    """The solution of ``lhs = rhs``, an equation of degree 1 in ``unknown`` (a symbol or an
    unevaluated operator such as ``E[X^2]``).

    >>> X = sp.Symbol("X")
    >>> solve_linear(Variance(X), Expectation(X**2) - Expectation(X) ** 2, Expectation(X**2))
    E[X]**2 + Var(X)
    """
    u = sp.Dummy("u")
    poly = sp.Poly(sp.expand((lhs - rhs).xreplace({unknown: u})), u)
    if poly.degree() != 1:
        raise ParameterError(f"the equation must have degree 1 in {unknown}, got {poly.degree()}")
    slope, intercept = poly.all_coeffs()
    return sp.expand(-intercept / slope)
