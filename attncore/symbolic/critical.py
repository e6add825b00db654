r"""The critical scale of Chen, Lin, Polyanskiy and Rigollet (chen2025critical), exact simplex.

On the exact simplex every token is a unit vector and every pair has inner product
:math:`\rho`. One attention layer with logits :math:`\beta\langle y_i, y_j\rangle` and the
identity as value gives token :math:`i` the self weight
:math:`1/(1 + (n - 1)e^{-\beta(1 - \rho)})` and spreads the rest evenly over the others. With
:math:`\beta = \gamma \ln n` the self weight tends to 0, 1/2 or 1 as :math:`n \to \infty`
according as :math:`\gamma(1 - \rho)` is below, at or above 1: the critical scale is
:math:`\gamma_c = 1/(1 - \rho)`. The output angles follow from the self weight :math:`p`:
their cosine tends to :math:`\rho/(\rho + (1 - \rho)p^2)`, so the ratio of output to input
angle tends to 0 (collapse), to 1 (identity), and at :math:`\gamma_c` to the value
:func:`limit_angle_ratio` gives at :math:`p = 1/2`.

This is the book's derivation in the paper's setting as its abstract and the project's
anchors describe it (the paper's own proof, for the almost-simplex, is not reproduced).

>>> critical_gamma().rhs
1/(1 - rho)
>>> round(limit_angle_ratio().evaluate(rho=0.5, p=0.5), 4)
0.6145
"""

from __future__ import annotations

import functools

import sympy as sp

from attncore.symbolic.derivation import Derivation, Step
from attncore.symbolic.notation import j, n

__all__ = [
    "critical_gamma",
    "critical_self_weight",
    "limit_angle_cosine",
    "limit_angle_ratio",
    "simplex_self_weight",
]

beta, gamma = sp.symbols("beta gamma", positive=True)
rho = sp.Symbol("rho", positive=True)  # with rho < 1, stated in the assumptions
p = sp.Symbol("p", positive=True)  # the self weight, with p <= 1
a = sp.Symbol("a", positive=True)  # gamma (1 - rho), the scale relative to the critical one
q = sp.Symbol("q", positive=True)  # the weight of each other token, (1 - p)/(n - 1)
_delta = sp.Symbol("delta", positive=True)
_self = sp.Symbol("A_{ii}", positive=True)
_cos = sp.Symbol(r"\cos\theta'_{n}")

_ASSUMPTIONS = (
    r"the $n \ge 2$ tokens are unit vectors (after the pre-layer normalisation "
    r"$y = x/\|x\|$) with $\langle y_i, y_j\rangle = \rho$ for every pair $i \ne j$, "
    r"$0 < \rho < 1$: the exact simplex",
    r"one attention layer: logits $\beta\langle y_i, y_j\rangle$, weights "
    r"$A_{ij} = e^{\beta\langle y_i, y_j\rangle}/\sum_k e^{\beta\langle y_i, y_k\rangle}$, "
    r"output $x'_i = \sum_j A_{ij} y_j$ (value the identity, no residual connection)",
)
_LOG_SCALE = r"$\beta = \gamma \ln n$ with $\gamma > 0$ fixed as $n \to \infty$"


@functools.cache
def simplex_self_weight() -> Derivation:
    r"""The self weight :math:`A_{ii} = 1/(1 + (n - 1)e^{-\beta(1 - \rho)})` on the exact
    simplex.

    >>> round(simplex_self_weight().evaluate(n=4, beta=0, rho=0.5), 3)
    0.25
    """
    others = sp.Sum(sp.exp(beta * rho), (j, 1, n - 1))
    softmax = sp.exp(beta) / (sp.exp(beta) + others)
    closed = 1 / (1 + (n - 1) * sp.exp(-beta * (1 - rho)))
    if sp.simplify(softmax.doit() - closed) != 0:
        raise ArithmeticError(f"the softmax row {softmax.doit()} is not {closed}")
    return Derivation(
        "Self weight on the exact simplex",
        sp.Eq(_self, closed),
        _ASSUMPTIONS,
        (
            Step(
                "softmax of row i",
                (_self, softmax, softmax.doit(), closed),
                r"the logit of the token itself is $\beta$, each of the $n - 1$ others "
                r"$\beta\rho$; divide by $e^{\beta}$",
            ),
        ),
    )


def _limits() -> dict[str, tuple[sp.Expr, sp.Expr]]:
    """The self weight with ``beta = gamma ln n`` written through ``a = gamma (1 - rho)``,
    and its limit for ``a`` below, at and above 1."""
    weight = 1 / (1 + (n - 1) * n ** (-a))
    cases = {"below": 1 / (1 + _delta), "at": sp.Integer(1), "above": 1 + _delta}
    return {
        case: (weight.subs(a, value), sp.limit(weight.subs(a, value), n, sp.oo))
        for case, value in cases.items()
    }


@functools.cache
def critical_self_weight() -> Derivation:
    r"""With :math:`\beta = \gamma\ln n`, :math:`A_{ii} \to 0`, :math:`1/2` or :math:`1`
    as :math:`\gamma(1 - \rho)` is below, at or above 1.

    >>> [c.args[0] for c in critical_self_weight().rhs.args]
    [0, 1/2, 1]
    """
    weight = simplex_self_weight().rhs
    logged = 1 / (1 + (n - 1) * n ** (-gamma * (1 - rho)))
    if sp.simplify(weight.subs(beta, gamma * sp.log(n)) - logged) != 0:
        raise ArithmeticError(f"{weight} at beta = gamma ln n is not {logged}")
    reduced = 1 / (1 + (n - 1) * n ** (-a))
    if sp.simplify(logged.subs(gamma, a / (1 - rho)) - reduced) != 0:
        raise ArithmeticError(f"{logged} is not {reduced} at gamma = a / (1 - rho)")
    limits = _limits()
    if [limit for _, limit in limits.values()] != [0, sp.Rational(1, 2), 1]:
        raise ArithmeticError(f"unexpected limits {limits}")
    scale = gamma * (1 - rho)
    statement = sp.Piecewise((0, scale < 1), (sp.Rational(1, 2), sp.Eq(scale, 1)), (1, True))
    steps = [
        Step(
            "logarithmic scale",
            (weight.subs(beta, gamma * sp.log(n)), logged, reduced),
            r"$e^{-\gamma \ln n\,(1 - \rho)} = n^{-\gamma(1 - \rho)}$; write "
            r"$a = \gamma(1 - \rho)$",
        )
    ]
    reasons = {
        "below": r"$a = 1/(1 + \delta) < 1$, $\delta > 0$: $(n - 1)n^{-a}$ grows like "
        r"$n^{\delta/(1 + \delta)}$",
        "at": r"$a = 1$: $(n - 1)/n \to 1$",
        "above": r"$a = 1 + \delta > 1$: $(n - 1)n^{-a}$ falls like $n^{-\delta}$",
    }
    for case, (expr, limit) in limits.items():
        chain = (sp.Limit(expr, n, sp.oo), limit)
        steps.append(Step(f"{case} the critical scale", chain, reasons[case]))
    return Derivation(
        r"The self weight as $n \to \infty$",
        sp.Eq(sp.Limit(_self, n, sp.oo), statement),
        (*_ASSUMPTIONS, _LOG_SCALE),
        tuple(steps),
    )


@functools.cache
def critical_gamma() -> Derivation:
    r""":math:`\gamma_c = 1/(1 - \rho)`: where :math:`(n - 1)n^{-\gamma(1 - \rho)}`, the
    others' total weight over the self weight, neither grows nor vanishes with :math:`n`.

    >>> critical_gamma().evaluate(rho=0.75)
    4.0
    """
    odds = (n - 1) * n ** (-gamma * (1 - rho))
    exponent = sp.limit(sp.log(odds) / sp.log(n), n, sp.oo)
    solved = sp.solve(sp.Eq(exponent, 0), gamma)
    if len(solved) != 1 or sp.simplify(solved[0] - 1 / (1 - rho)) != 0:
        raise ArithmeticError(f"solving {exponent} = 0 gave {solved}")
    gamma_c = sp.Symbol(r"\gamma_c", positive=True)
    return Derivation(
        "The critical scale",
        sp.Eq(gamma_c, 1 / (1 - rho)),
        (*_ASSUMPTIONS, _LOG_SCALE),
        (
            Step(
                "growth exponent of the others' weight",
                (sp.Limit(sp.log(odds) / sp.log(n), n, sp.oo), exponent),
                r"$(1 - A_{ii})/A_{ii} = (n - 1)n^{-\gamma(1 - \rho)}$ grows like "
                r"$n$ to this power",
            ),
            Step("neither grows nor vanishes", (exponent, sp.Integer(0)), "solved for $\\gamma$"),
        ),
    )


@functools.cache
def limit_angle_cosine() -> Derivation:
    r"""The cosine of the angle between two outputs tends to
    :math:`\rho/(\rho + (1 - \rho)p^2)` when the self weight tends to :math:`p`.

    >>> limit_angle_cosine().evaluate(rho=0.5, p=1)
    0.5
    """
    own = p - q  # x'_i = (p - q) y_i + q S, with S the sum of all tokens
    to_sum = 1 + (n - 1) * rho  # <y_i, S>
    sum_square = n + n * (n - 1) * rho  # <S, S>
    inner = own**2 * rho + 2 * own * q * to_sum + q**2 * sum_square
    square = own**2 + 2 * own * q * to_sum + q**2 * sum_square
    spread = {q: (1 - p) / (n - 1)}
    limit = sp.simplify(sp.limit((inner / square).subs(spread), n, sp.oo))
    closed = rho / (rho + (1 - rho) * p**2)
    if sp.simplify(limit - closed) != 0:
        raise ArithmeticError(f"the limit {limit} is not {closed}")
    return Derivation(
        "Angle between two outputs",
        sp.Eq(sp.Limit(_cos, n, sp.oo), closed),
        (
            *_ASSUMPTIONS,
            r"the self weight $A_{ii}$ tends to $p$, $0 \le p \le 1$, and row $i$ gives each "
            r"other token $q = (1 - A_{ii})/(n - 1)$",
        ),
        (
            Step(
                "inner product over squared norm",
                (_cos, inner / square),
                r"$x'_i = (p - q)\,y_i + q\sum_k y_k$, "
                r"$\langle y_i, \sum_k y_k\rangle = 1 + (n - 1)\rho$, "
                r"$\|\sum_k y_k\|^2 = n + n(n - 1)\rho$",
            ),
            Step(
                "as n grows",
                (sp.Limit(_cos, n, sp.oo), closed),
                r"$q = (1 - p)/(n - 1)$; every term with $q$ tends to a multiple of $\rho$, "
                r"and they add up to $\rho$ in the numerator",
            ),
        ),
    )


@functools.cache
def limit_angle_ratio() -> Derivation:
    r"""The ratio of output to input angle,
    :math:`\arccos(\rho/(\rho + (1 - \rho)p^2))/\arccos\rho`: 0 at :math:`p = 0`, 1 at
    :math:`p = 1`.

    >>> [limit_angle_ratio().evaluate(rho=0.5, p=v) for v in (0, 1)]
    [0.0, 1.0]
    """
    ratio = sp.acos(limit_angle_cosine().rhs) / sp.acos(rho)
    return Derivation(
        "Ratio of output to input angle",
        sp.Eq(sp.Symbol(r"\lambda"), ratio),
        limit_angle_cosine().assumptions,
        (
            Step(
                "angles",
                (sp.Symbol(r"\lambda"), sp.acos(sp.Limit(_cos, n, sp.oo)) / sp.acos(rho), ratio),
                r"the input angle is $\arccos\rho$ for every pair",
            ),
        ),
    )
