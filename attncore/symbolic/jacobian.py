r"""The softmax Jacobian ``diag(s) - s s^T``, its trace and Frobenius norm; Bernhard's bound.

The Jacobian is differentiated by sympy for a small ``n`` and rewritten in the
outputs ``s``; its trace ``1 - sum s_i^2`` and squared Frobenius norm
``sum s_i^2 - 2 sum s_i^3 + (sum s_i^2)^2`` are derived with ``n`` a symbol. Both
vanish when the softmax saturates (one ``s_i`` near 1), which is the vanishing
gradient the scaling prevents.

>>> softmax_jacobian(2).rhs
Matrix([
[-s_1**2 + s_1,      -s_1*s_2],
[     -s_1*s_2, -s_2**2 + s_2]])
>>> softmax_jacobian_trace().rhs
1 - Sum(s[i]**2, (i, 1, n))
"""

from __future__ import annotations

import functools

import sympy as sp
from sympy.simplify.simplify import factor_sum

from attncore.checks import ParameterError, positive_int
from attncore.symbolic.derivation import Derivation, Step
from attncore.symbolic.moments import sift, solve_linear
from attncore.symbolic.notation import Expectation, Norm, d, dot, i, j, k, n, q
from attncore.symbolic.typeset import latex

__all__ = [
    "cauchy_schwarz_bound",
    "softmax_jacobian",
    "softmax_jacobian_frobenius",
    "softmax_jacobian_trace",
]

_MAX_N = 8  # the explicit matrix is for small n; trace and norm are derived for symbolic n
_s = sp.IndexedBase("s", positive=True)
_J = sp.MatrixSymbol("J", n, n)
_ASSUMPTIONS = (
    r"$s = \operatorname{softmax}(z)$: $s_i = e^{z_i} / \sum_j e^{z_j}$, so $s_i > 0$ and "
    r"$\sum_i s_i = 1$",
    r"$J_{ij} = \partial s_i / \partial z_j$",
)


@functools.cache
def softmax_jacobian(n: int) -> Derivation:
    """``J = diag(s) - s s^T`` for ``n`` outputs, differentiated by sympy (``n <= 8``).

    >>> softmax_jacobian(3).steps[1].chain[-1]
    s_1*(1 - s_1)
    """
    size = positive_int("n", n)
    if size > _MAX_N:
        raise ParameterError(f"n must be an integer between 1 and {_MAX_N}, got {n!r}")
    z = sp.symbols(f"z_1:{size + 1}", real=True)
    s = sp.symbols(f"s_1:{size + 1}", positive=True)
    partition = sum(sp.exp(v) for v in z)
    outputs = [sp.exp(v) / partition for v in z]
    derivative = sp.Matrix(size, size, lambda r, c: sp.diff(outputs[r], z[c]))
    target = sp.diag(*s) - sp.Matrix(s) * sp.Matrix(s).T
    in_z = target.subs(dict(zip(s, outputs, strict=True)))
    if any(sp.cancel(entry) != 0 for entry in derivative - in_z):
        raise ArithmeticError("the softmax derivative is not diag(s) - s s^T")
    steps = [
        Step("softmax", (s[0], outputs[0]), "definition, shown for $i = 1$"),
        Step(
            "diagonal entry",
            (sp.Derivative(outputs[0], z[0]), derivative[0, 0], s[0] * (1 - s[0])),
            r"quotient rule, then $e^{z_1} / \sum_j e^{z_j} = s_1$",
        ),
    ]
    if size > 1:
        steps.append(
            Step(
                "off-diagonal entry",
                (sp.Derivative(outputs[0], z[1]), derivative[0, 1], -s[0] * s[1]),
                "quotient rule: only the denominator depends on $z_2$",
            )
        )
    return Derivation(
        f"Jacobian of the softmax, $n = {size}$",
        sp.Eq(sp.MatrixSymbol("J", size, size), target, evaluate=False),
        _ASSUMPTIONS,
        tuple(steps),
        caveats=("J is symmetric, and J 1 = 0: adding a constant to every logit changes nothing.",),
    )


def _entry() -> sp.Expr:
    return sp.KroneckerDelta(i, j) * _s[i] - _s[i] * _s[j]


def _at_uniform(expr: sp.Expr) -> sp.Expr:
    """``expr`` at ``s_i = 1/n`` for every ``i`` (inside the sums too)."""
    return sp.factor(expr.xreplace({_s[i]: 1 / n, _s[j]: 1 / n}).doit())


@functools.cache
def softmax_jacobian_trace() -> Derivation:
    """``tr J = 1 - sum s_i^2`` for symbolic ``n``: ``1 - 1/n`` when uniform, 0 when saturated.

    >>> [s.chain[-1] for s in softmax_jacobian_trace().steps[-2:]]
    [(n - 1)/n, 0]
    """
    diagonal = _entry().subs(j, i)
    total = sp.Sum(diagonal, (i, 1, n))
    split = sp.expand(total)
    result = sp.factor_terms(split.subs(sp.Sum(_s[i], (i, 1, n)), 1))
    return Derivation(
        "Trace of the softmax Jacobian",
        sp.Eq(sp.Trace(_J), result),
        (*_ASSUMPTIONS, "n stays a symbol"),
        (
            Step(
                "diagonal",
                (sp.Symbol("J_ii"), diagonal),
                r"$J_{ij} = \delta_{ij} s_i - s_i s_j$ at $j = i$",
            ),
            Step("sum", (sp.Trace(_J), total, split, result), r"linearity, then $\sum_i s_i = 1$"),
            Step("uniform $s_i = 1/n$", (sp.Trace(_J), _at_uniform(result)), "the largest value"),
            Step(
                "saturated $s = e_1$",
                (sp.Trace(_J), result.subs(sp.Sum(_s[i] ** 2, (i, 1, n)), 1)),
                r"$\sum_i s_i^2 = 1$ exactly when one $s_i$ is 1",
            ),
        ),
        caveats=(
            r"Since $\sum_i s_i^2 \ge 1/n$ (Cauchy–Schwarz), $0 \le \operatorname{tr} J \le "
            r"1 - 1/n$.",
        ),
    )


@functools.cache
def softmax_jacobian_frobenius() -> Derivation:
    """``||J||_F = sqrt(sum s_i^2 - 2 sum s_i^3 + (sum s_i^2)^2)`` for symbolic ``n``.

    >>> softmax_jacobian_frobenius().steps[-1].chain[-1]
    sqrt(n - 1)/n
    """
    norm = sp.Symbol(r"\left\|J\right\|_{F}")
    squared = sp.expand(_entry() ** 2)
    inner = factor_sum(sift(squared, j, i, n))  # s_i^2 leaves the sum over j
    # The sum over j of s_j^2 is the same sum as the one over i: rename j to i.
    total = sp.factor_terms(sp.expand(sp.Sum(inner, (i, 1, n)))).xreplace({j: i})
    closed = sp.sqrt(total)
    three = softmax_jacobian(3).rhs
    explicit = sum(entry**2 for entry in three)
    s3 = sp.symbols("s_1:4", positive=True)
    at_three = total.subs(n, 3).doit().xreplace({_s[m]: s3[m - 1] for m in (1, 2, 3)})
    if sp.expand(at_three - explicit) != 0:
        raise ArithmeticError("the Frobenius closed form disagrees with the 3 x 3 Jacobian")
    return Derivation(
        "Frobenius norm of the softmax Jacobian",
        sp.Eq(norm, closed),
        (*_ASSUMPTIONS, "n stays a symbol"),
        (
            Step(
                "square of an entry",
                (sp.Symbol("J_ij") ** 2, _entry() ** 2, squared),
                r"$J_{ij} = \delta_{ij} s_i - s_i s_j$, $\delta_{ij}^2 = \delta_{ij}$",
            ),
            Step(
                "sum over $j$",
                (sp.Sum(squared, (j, 1, n)), inner),
                "the Kronecker delta keeps $j = i$; $s_i^2$ factors out of the last sum",
            ),
            Step(
                "sum over $i$",
                (norm**2, total),
                r"linearity; checked against the explicit $3 \times 3$ Jacobian",
            ),
            Step("uniform $s_i = 1/n$", (norm, _at_uniform(closed)), "the centre of the simplex"),
        ),
        caveats=(
            "The book's numerical Jacobian norm evaluates this closed form without the matrix.",
            r"$\|J\|_F = 0$ exactly when $s$ is one-hot: a saturated softmax passes no gradient.",
        ),
    )


@functools.cache
def cauchy_schwarz_bound() -> Derivation:
    """Bernhard's bound ``|q.k_i| / k_total <= ||k_i|| ||q|| / k_total <= ||q||``.

    >>> print(cauchy_schwarz_bound().statement)
    Abs(Sum(k[i]*q[i], (i, 1, d)))/k_total <= ||q||
    """
    tau = sp.Symbol("tau", real=True)
    k_total = sp.Symbol("k_total", positive=True)
    norm_q, norm_k = Norm(q), Norm(k)
    logit = dot(q, k, d)
    distance = sp.factor_terms(sp.expand(sp.Sum(sp.expand((q[i] - tau * k[i]) ** 2), (i, 1, d))))
    sums = {
        sp.Sum(q[i] ** 2, (i, 1, d)): norm_q**2,
        sp.Sum(k[i] ** 2, (i, 1, d)): norm_k**2,
        sp.Sum(k[i] * q[i], (i, 1, d)): logit,
    }
    quadratic = distance.xreplace(sums)
    best = solve_linear(sp.diff(quadratic, tau), 0, tau)
    minimum = quadratic.subs(tau, best)
    # E|q.k_i| given the key: q.k_i ~ N(0, ||k_i||^2) for a standard normal query.
    z = sp.Symbol("z", real=True)
    mean_abs = 2 * sp.integrate(z * sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi), (z, 0, sp.oo))
    lengths = sp.Sum(
        Norm(sp.IndexedBase("k")[j]), (j, 1, sp.Symbol("n", integer=True, positive=True))
    )
    return Derivation(
        r"Bernhard's Cauchy–Schwarz bound on the $k_\text{total}$-scaled logits",
        sp.Le(sp.Abs(logit) / k_total, norm_q),
        (
            r"$q$ and the keys $k_1, \dots, k_n$ are vectors of $\mathbb{R}^d$; $k = k_i$ is one "
            r"of "
            "the keys",
            r"$k_\text{total} = \|k_1\| + \dots + \|k_n\| > 0$",
        ),
        (
            Step(
                "bilinearity",
                (Norm(q - tau * k) ** 2, distance, quadratic),
                r"expand $\sum_i (q_i - \tau k_i)^2$ with $d$ a symbol",
            ),
            Step(
                r"minimum over $\tau$",
                (sp.Integer(0), minimum),
                rf"a squared length is $\ge 0$ for every $\tau$, in particular at $\tau = "
                rf"{latex(best)}$",
                relation=sp.Le,
            ),
            Step(
                "Cauchy–Schwarz",
                (sp.Abs(logit), norm_q * norm_k),
                r"multiply the last line by $\|k\|^2 > 0$ and take square roots",
                relation=sp.Le,
            ),
            Step(
                "one length against the total",
                (norm_k, lengths),
                r"$k_\text{total}$ adds the other lengths, each $\ge 0$",
                relation=sp.Le,
            ),
            Step(
                "the bound",
                (sp.Abs(logit) / k_total, norm_q * norm_k / k_total, norm_q),
                "the two inequalities above",
                relation=sp.Le,
            ),
            Step(
                "typical size",
                (Expectation(sp.Abs(logit), k) / norm_k, mean_abs),
                r"for $q \sim N(0, I)$ independent of $k$, $q \cdot k \sim N(0, \|k\|^2)$ given "
                r"$k$, "
                r"and $\mathbb{E}|Z| = 2\int_0^\infty z\,\phi(z)\,dz$",
            ),
        ),
        caveats=(
            "The second inequality is an equality only when every other key is 0, so the bound "
            r"is loose: for standard normal $q$ and keys, $|q \cdot k_i| / k_\text{total}$ is "
            r"about "
            r"$\sqrt{2/\pi}/n$ on average while $\|q\|$ is about $\sqrt{d}$, a factor of order "
            r"$n\sqrt{d}$.",
        ),
    )
