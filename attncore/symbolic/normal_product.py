r"""The law of ``q.k`` for standard normal components: MGF, cumulants, exact density.

One product term ``q_i k_i`` has, conditional on ``k_i``, a normal law; averaging
over ``k_i`` gives its MGF ``(1 - t^2)^{-1/2}`` and its characteristic function
``(1 + t^2)^{-1/2}``. The ``d`` terms are independent, so ``q.k`` has MGF
``(1 - t^2)^{-d/2}``: cumulants ``kappa_2 = d``, ``kappa_4 = 6 d`` and kurtosis
``3 + 6/d`` with ``d`` a symbol. Fourier inversion of ``(1 + t^2)^{-d/2}`` gives the
density (a variance-gamma law)

.. math:: f(x) = \frac{|x|^{(d-1)/2} K_{(d-1)/2}(|x|)}{2^{(d-1)/2} \sqrt{\pi}\, \Gamma(d/2)},

:func:`normal_dot_product_pdf` evaluates it with numpy for a histogram overlay.

>>> normal_dot_product_kurtosis().rhs
3 + 6/d
>>> float(normal_dot_product_pdf(0.0, 2))
0.5
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike
from scipy import special

from attncore.checks import finite_array, positive_int
from attncore.symbolic.derivation import Derivation, Step
from attncore.symbolic.moments import (
    cumulants_from_mgf,
    gaussian_integral,
    solve_linear,
    standard_normal_mgf,
    taylor,
)
from attncore.symbolic.notation import (
    CharacteristicFunction,
    Cumulant,
    CumulantGeneratingFunction,
    Density,
    Expectation,
    Kurtosis,
    MomentGeneratingFunction,
    d,
    dot,
    i,
    k,
    q,
    t,
    x,
)
from attncore.symbolic.typeset import latex

__all__ = [
    "normal_dot_product_characteristic_function",
    "normal_dot_product_density",
    "normal_dot_product_kurtosis",
    "normal_dot_product_mgf",
    "normal_dot_product_pdf",
    "normal_scaled_logit_pdf",
]

_ASSUMPTIONS = (
    r"the $2d$ components $q_1, \dots, q_d, k_1, \dots, k_d$ are independent standard normal",
    "$d$ is a positive integer that stays a symbol",
)
_Z = sp.Symbol("z", real=True)
_PHI = sp.exp(-(_Z**2) / 2) / sp.sqrt(2 * sp.pi)  # standard normal density


def _transform_steps(imaginary: bool) -> tuple[Step, ...]:
    """MGF (``imaginary=False``) or characteristic function of ``q_i k_i``, then of ``q.k``."""
    unit = sp.I if imaginary else sp.Integer(1)
    name = "characteristic function" if imaginary else "moment generating function"
    operator = CharacteristicFunction if imaginary else MomentGeneratingFunction
    s = sp.Symbol("s", real=True)
    normal = standard_normal_mgf().subs(t, unit * s)  # the MGF is entire: M(i s) is the CF
    term = q[i] * k[i]
    conditional = normal.subs(s, t * k[i])
    # Average the conditional transform over k_i ~ N(0, 1): a Gaussian integral exp(-a z^2 / 2).
    exponent = sp.expand(sp.log(conditional.subs(k[i], _Z) * _PHI * sp.sqrt(2 * sp.pi)), force=True)
    a = -2 * exponent.coeff(_Z, 2)
    term_transform = gaussian_integral(a)
    total = sp.Product(term_transform, (i, 1, d))
    condition = "" if imaginary else ", which needs $|t| < 1$"
    return (
        Step(
            f"normal {name}",
            (Expectation(sp.exp(unit * s * _Z)), normal),
            "completing the square in the Gaussian integral, at $is$ for the characteristic "
            "function: the moment generating function of $N(0, 1)$ is entire",
        ),
        Step(
            "condition on $k_i$",
            (Expectation(sp.exp(unit * t * term), k[i]), conditional),
            r"$q_i \sim N(0, 1)$ is independent of $k_i$: the normal transform at $s = t k_i$",
        ),
        Step(
            f"{name} of a product term",
            (operator(term, t), Expectation(conditional), term_transform),
            rf"Gaussian integral over $k_i \sim N(0, 1)$: exponent $-a z^2/2$ with $a = "
            rf"{latex(a)} > 0$"
            f"{condition}",
        ),
        Step(
            f"{name} of the sum",
            (
                operator(dot(q, k, d), t),
                sp.Product(operator(term, t), (i, 1, d)),
                total,
                total.doit(),
            ),
            "the $d$ terms are independent: the transform of a sum is the product",
        ),
    )


@functools.cache
def normal_dot_product_mgf() -> Derivation:
    """``M_{q.k}(t) = (1 - t^2)^{-d/2}`` for ``|t| < 1``.

    >>> normal_dot_product_mgf().rhs
    (1 - t**2)**(-d/2)
    """
    steps = _transform_steps(imaginary=False)
    return Derivation(
        r"Moment generating function of $q \cdot k$, standard normal components",
        sp.Eq(MomentGeneratingFunction(dot(q, k, d), t), steps[-1].chain[-1]),
        (*_ASSUMPTIONS, r"$|t| < 1$ (the moment generating function is infinite for $|t| \ge 1$)"),
        steps,
    )


@functools.cache
def normal_dot_product_characteristic_function() -> Derivation:
    """``phi_{q.k}(t) = (1 + t^2)^{-d/2}`` for every real ``t``.

    >>> normal_dot_product_characteristic_function().rhs
    (t**2 + 1)**(-d/2)
    """
    steps = _transform_steps(imaginary=True)
    result = steps[-1].chain[-1]
    mgf = normal_dot_product_mgf().rhs
    consistency = Step(
        "agrees with the moment generating function",
        (
            CharacteristicFunction(dot(q, k, d), t),
            MomentGeneratingFunction(dot(q, k, d), sp.I * t),
            mgf.subs(t, sp.I * t),
        ),
        r"$M$ is analytic in the strip $|\operatorname{Re} t| < 1$, so $\varphi(t) = M(it)$: the "
        r"same result",
    )
    return Derivation(
        r"Characteristic function of $q \cdot k$, standard normal components",
        sp.Eq(CharacteristicFunction(dot(q, k, d), t), result),
        _ASSUMPTIONS,
        (*steps, consistency),
    )


@functools.cache
def normal_dot_product_kurtosis() -> Derivation:
    """``Kurt(q.k) = 3 + 6/d``: heavier tails than normal, approaching 3 as d grows.

    >>> [s.chain[-1] for s in normal_dot_product_kurtosis().steps[1:3]]
    [(0, d, 0, 6*d), 3*d*(d + 2)]
    """
    mgf = normal_dot_product_mgf().rhs
    cumulants = cumulants_from_mgf(mgf, order=4)
    cgf = sp.log(mgf)
    X = dot(q, k, d)
    # Fourth central moment from the cumulants of a centred variable: mu_4 = kappa_4 + 3 kappa_2^2.
    m2, m3, m4 = (Expectation(sp.Symbol("Y") ** p) for p in (2, 3, 4))
    centred = cumulants_from_mgf(1 + m2 * t**2 / 2 + m3 * t**3 / 6 + m4 * t**4 / 24, order=4)
    fourth = solve_linear(sp.Symbol("kappa_4"), centred[3], m4)
    fourth = fourth.subs({sp.Symbol("kappa_4"): cumulants[3], m2: cumulants[1]})
    kurtosis = sp.expand(fourth / cumulants[1] ** 2)
    return Derivation(
        r"Kurtosis of $q \cdot k$, standard normal components",
        sp.Eq(Kurtosis(X), kurtosis),
        _ASSUMPTIONS,
        (
            Step(
                "cumulant generating function",
                (
                    CumulantGeneratingFunction(X, t),
                    cgf,
                    taylor(sp.expand_log(cgf, force=True), t, 5) + sp.O(t**6),
                ),
                "the logarithm of the moment generating function $(1 - t^2)^{-d/2}$",
            ),
            Step(
                "cumulants",
                (sp.Tuple(*(Cumulant(r, X) for r in range(1, 5))), sp.Tuple(*cumulants)),
                r"$\kappa_r = r!\,[t^r]\,K(t)$",
            ),
            Step(
                "fourth moment",
                (Expectation(X**4), sp.factor(fourth)),
                r"for a centred variable $\mathbb{E}Y^4 = \kappa_4 + 3\kappa_2^2$ (from $\log "
                r"M_Y$)",
            ),
            Step(
                "kurtosis",
                (Kurtosis(X), Expectation(X**4) / cumulants[1] ** 2, kurtosis),
                r"$\operatorname{Kurt}X = \mathbb{E}[(X - \mathbb{E}X)^4] / "
                r"(\operatorname{Var}X)^2$, with $\mathbb{E}X = 0$ and $\operatorname{Var}X = "
                r"\kappa_2$",
            ),
        ),
        caveats=(
            r"The skewness is 0 ($\kappa_3 = 0$) and the excess kurtosis $6/d$: "
            r"$q \cdot k/\sqrt{d}$ tends to $N(0, 1)$, with tails visibly heavier than normal at "
            "small $d$.",
        ),
    )


@functools.cache
def normal_dot_product_density() -> Derivation:
    r"""The density of ``q.k``: ``|x|^nu K_nu(|x|) / (2^nu sqrt(pi) Gamma(d/2))``, ``nu = (d-1)/2``.

    >>> normal_dot_product_density().rhs
    2**(1/2 - d/2)*Abs(x)**(d/2 - 1/2)*besselk(d/2 - 1/2, Abs(x))/(sqrt(pi)*gamma(d/2))
    >>> [s.chain[-1] for s in normal_dot_product_density().steps[-2:]]
    [besselk(0, Abs(x))/pi, exp(-Abs(x))/2]
    """
    nu = sp.Symbol("nu", positive=True)
    r = sp.Symbol("r", positive=True)  # |x|
    w = sp.Symbol("t", positive=True)  # integration variable on (0, oo)
    cf = normal_dot_product_characteristic_function().rhs
    inversion = sp.integrate(
        sp.cos(r * w) * (1 + w**2) ** (-nu - sp.S.Half), (w, 0, sp.oo), conds="none"
    )
    half_d = nu + sp.S.Half  # d/2
    bessel_k = r**nu * sp.besselk(nu, r) / (2**nu * sp.sqrt(sp.pi) * sp.gamma(half_d))
    k_from_i = sp.pi * (sp.besseli(-nu, r) - sp.besseli(nu, r)) / (2 * sp.sin(sp.pi * nu))
    # The inversion integral equals sqrt(pi) Gamma(d/2) times the candidate, by K's definition.
    residual = sp.gammasimp(inversion / sp.pi - bessel_k.subs(sp.besselk(nu, r), k_from_i))
    if residual != 0:
        raise ArithmeticError(f"Fourier inversion does not give the Bessel-K density: {residual}")
    moments = [
        sp.powsimp(sp.gammasimp(2 * sp.integrate(r**p * bessel_k, (r, 0, sp.oo), conds="none")))
        for p in (0, 2, 4)
    ]
    to_d = {nu: (d - 1) / 2}
    density = bessel_k.subs(to_d).subs(r, sp.Abs(x))
    X = dot(q, k, d)
    # d = 2 (nu = 1/2): the inversion integral is elementary; sympy evaluates it directly.
    at_d2 = sp.integrate(sp.cos(r * w) / (1 + w**2), (w, 0, sp.oo), conds="none") / sp.pi
    at_d2 = sp.powsimp(sp.expand(at_d2.rewrite(sp.exp)), force=True)
    return Derivation(
        r"Exact density of $q \cdot k$, standard normal components (variance-gamma law)",
        sp.Eq(Density(X, x), density),
        (*_ASSUMPTIONS, r"$x \ne 0$ (for $d = 1$ the density has a logarithmic singularity at 0)"),
        (
            Step(
                "Fourier inversion",
                (
                    Density(X, x),
                    sp.Integral(cf * sp.exp(-sp.I * t * x), (t, -sp.oo, sp.oo)) / (2 * sp.pi),
                    sp.Integral(sp.cos(t * sp.Abs(x)) * cf, (t, 0, sp.oo)) / sp.pi,
                ),
                r"$\varphi$ is integrable for $d \ge 2$, real and even (the characteristic "
                "function above)",
            ),
            Step(
                "the inversion integral",
                (
                    sp.Integral(sp.cos(w * r) * (1 + w**2) ** (-nu - sp.S.Half), (w, 0, sp.oo)),
                    inversion,
                ),
                r"sympy, with $\nu = (d - 1)/2 > 0$ and $r = |x| > 0$",
            ),
            Step(
                "Bessel K form",
                (inversion / sp.pi, bessel_k),
                r"$K_\nu = \pi (I_{-\nu} - I_\nu) / (2 \sin \nu\pi)$ (DLMF 10.27.4); for integer "
                r"$\nu$ by continuity in $\nu$",
            ),
            Step(
                "normalization, variance, fourth moment",
                (
                    sp.Tuple(*(sp.Integral(x**p * density, (x, -sp.oo, sp.oo)) for p in (0, 2, 4))),
                    sp.Tuple(*(sp.factor(sp.gammasimp(m.subs(to_d))) for m in moments)),
                ),
                r"sympy integrals of $r^p r^\nu K_\nu(r)$ over $(0, \infty)$, doubled by symmetry",
            ),
            Step(
                "$d = 1$",
                (Density(dot(q, k, 1), x), density.subs(d, 1)),
                r"$\nu = 0$: the product of two independent standard normals",
            ),
            Step(
                "$d = 2$",
                (Density(dot(q, k, 2), x), density.subs(d, 2), at_d2.subs(r, sp.Abs(x))),
                r"the inversion integral at $d = 2$, $\frac{1}{\pi}\int_0^\infty "
                r"\frac{\cos rt}{1 + t^2}\,dt$: a Laplace law (so "
                r"$K_{1/2}(r) = \sqrt{\pi/(2r)}\,e^{-r}$)",
            ),
        ),
        caveats=(
            r"For $d = 1$, $\varphi$ is not absolutely integrable; the inversion integral still "
            r"converges (conditionally) for $x \ne 0$, and the density $K_0(|x|)/\pi$ is "
            "unbounded at 0.",
            "For large $d$ the Bessel factor overflows double precision near 0; the book's "
            "numerical density works in logarithms.",
        ),
    )


def _log_bessel_k(order: float, z: np.ndarray) -> np.ndarray:
    """``log K_order(z)`` for ``z > 0``; where ``K`` overflows, by the upward recurrence in logs.

    ``K_{m+1}(z) = K_{m-1}(z) + (2m/z) K_m(z)`` is stable upwards (every term is positive);
    it starts from the order ``order - floor(order)`` (0 or 1/2), which cannot overflow.
    """
    with np.errstate(over="ignore"):
        out = np.log(special.kve(order, z)) - z
    bad = ~np.isfinite(out)
    if bad.any():
        zb = z[bad]
        start = order - np.floor(order)
        log_k = np.log(special.kve(start, zb)) - zb
        ratio = special.kve(start + 1, zb) / special.kve(start, zb)  # K_{start+1} / K_start
        for m in range(int(order - start)):
            log_k += np.log(ratio)
            ratio = 1.0 / ratio + 2.0 * (start + m + 1) / zb
        out[bad] = log_k
    return out


def normal_dot_product_pdf(x: ArrayLike, d: int) -> np.ndarray:
    """Density of ``q.k`` for ``d``-dimensional standard normal ``q``, ``k``, at each ``x``.

    Evaluated in logs, so it is finite for large ``d`` where ``K_nu`` overflows; at
    ``x = 0`` it is ``inf`` for ``d = 1`` and ``Gamma((d-1)/2) / (2 sqrt(pi) Gamma(d/2))``
    otherwise.

    >>> normal_dot_product_pdf([0.0, 1.0], 2).round(4).tolist()
    [0.5, 0.1839]
    >>> float(normal_dot_product_pdf(0.0, 1))
    inf
    """
    dim = positive_int("d", d)
    values = np.abs(finite_array("x", x))
    nu = (dim - 1) / 2
    log_scale = nu * np.log(2.0) + 0.5 * np.log(np.pi) + special.gammaln(dim / 2)
    # For d >= 2, |x|^nu K_nu(|x|) -> Gamma(nu) 2^(nu - 1) with relative error O(|x|):
    # below 1e-100 the limit is exact in double precision and the recurrence start cannot overflow.
    at_zero = values == 0 if dim == 1 else values < 1e-100
    out = np.empty_like(values)
    if dim == 1:
        out[at_zero] = np.inf
    else:
        out[at_zero] = np.exp(special.gammaln(nu) + (nu - 1) * np.log(2.0) - log_scale)
    z = values[~at_zero]
    out[~at_zero] = np.exp(nu * np.log(z) + _log_bessel_k(nu, z) - log_scale)
    return out


def normal_scaled_logit_pdf(x: ArrayLike, d: int) -> np.ndarray:
    """Density of the scaled logit ``q.k / sqrt(d)``: ``sqrt(d) f(sqrt(d) x)`` with ``f``
    from :func:`normal_dot_product_pdf`.

    >>> bool(normal_scaled_logit_pdf([1.0], 4)[0] == 2 * normal_dot_product_pdf([2.0], 4)[0])
    True
    """
    dim = positive_int("d", d)
    return math.sqrt(dim) * normal_dot_product_pdf(math.sqrt(dim) * finite_array("x", x), dim)
