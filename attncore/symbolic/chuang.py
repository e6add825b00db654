"""Chuang's appendix, Propositions 1 to 5, each re-derived and checked, with a verdict.

Every proposition is derived with the moment algebra of :mod:`attncore.symbolic.moments`
(joint moments of dependent variables stay unevaluated, independence factorizes them),
and the lines of Chuang's proofs are checked against the derivation as identities.
Propositions 1 to 4 hold (3 and 4 under weaker assumptions than stated). Proposition 5
does not follow from its stated assumptions, zero covariances: the derivation gives the
exact correction terms and two counterexamples.

>>> [p.title.split(":")[0] for p in chuang_propositions()]
['Proposition 1', 'Proposition 2', 'Proposition 3', 'Proposition 4', 'Proposition 5']
>>> chuang_propositions()[4].verdict.split(".")[0]
'Does not follow from the stated assumptions'
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
    rademacher_moments,
    sift,
    solve_linear,
    variance,
)
from attncore.symbolic.notation import (
    Covariance,
    Expectation,
    Variance,
    d_k,
    dot,
    i,
    j,
    k,
    n,
    q,
)

__all__ = ["chuang_propositions"]

X, Y = sp.symbols("X Y")
S = sp.Symbol("S")  # a random sign, +1 or -1 with probability 1/2


def _same(a: sp.Expr, b: sp.Expr, what: str) -> None:
    """Raise if two expressions differ: the check behind every 'checked' step."""
    if sp.expand(a - b) != 0:
        raise ArithmeticError(f"{what} does not hold: {a} != {b}")


def _definitions(expr: sp.Expr, groups: list[list[sp.Expr]]) -> sp.Expr:
    """Replace every Var and Cov in ``expr`` by its definition in moments (Props. 1 and 2)."""
    return sp.expand(
        expr.replace(Covariance, lambda a, b: covariance(a, b, groups)).replace(
            Variance, lambda a: variance(a, groups)
        )
    )


def _step(steps: tuple[Step, ...], name: str) -> Step:
    return next(s for s in steps if s.name == name)


def _unevaluated(*terms: sp.Expr) -> sp.Expr:
    """A sum printed term by term, as written in the paper."""
    return sp.Add(*terms, evaluate=False)


def _proposition_1() -> Derivation:
    a = sp.Symbol("a", real=True)
    mse = expectation((X - a) ** 2, [[X]])
    best = solve_linear(sp.diff(mse, a), 0, a)
    var = sp.expand(mse.subs(a, best))
    paper = _unevaluated(Expectation(X**2), Expectation(X) ** 2, -2 * Expectation(X) ** 2)
    _same(paper, var, "Proposition 1")
    return Derivation(
        "Proposition 1: Var[X] = E(X^2) - (EX)^2",
        sp.Eq(Variance(X), var),
        ("X is square integrable (otherwise Var[X] is infinite, as the paper says)",),
        (
            Step(
                "Definition 3",
                (Expectation((X - a) ** 2), mse),
                "linearity of expectation; Var[X] is the minimum over a",
            ),
            Step("minimizer", (a, best), "d/da of E[X^2] - 2a E[X] + a^2 is 0; it is convex in a"),
            Step(
                "the paper's line",
                (Variance(X), Expectation((X - Expectation(X)) ** 2), paper, var),
                "the minimum value; checked identity",
            ),
        ),
        verdict="Holds, for every square-integrable X ('E[x]' in the proof is a typo for E[X]).",
    )


def _proposition_2() -> Derivation:
    joint = [[X, Y]]
    cov = expectation((X - Expectation(X)) * (Y - Expectation(Y)), joint)
    ex, ey, exy = Expectation(X), Expectation(Y), Expectation(X * Y)
    paper = _unevaluated(exy, -ex * ey, -ex * ey, ex * ey)
    _same(paper, cov, "Proposition 2")
    return Derivation(
        "Proposition 2: Cov[X, Y] = EXY - EXEY",
        sp.Eq(Covariance(X, Y), cov),
        ("X and Y are square integrable; no independence is assumed",),
        (
            Step(
                "Definition 4 and the paper's line",
                (Covariance(X, Y), Expectation((X - ex) * (Y - ey)), paper, cov),
                "linearity of expectation (E[X] and E[Y] are constants); checked identity",
            ),
        ),
        verdict="Holds, for any square-integrable X and Y.",
    )


@functools.cache
def _zero_mean_product_variance() -> sp.Expr:
    """Var(XY) for zero means, any dependence: Cov(X^2, Y^2) + Var X Var Y - Cov(X, Y)^2."""
    return Covariance(X**2, Y**2) + Variance(X) * Variance(Y) - Covariance(X, Y) ** 2


def _proposition_3() -> Derivation:
    joint, independent = [[X, Y]], [[X], [Y]]
    ex, ey = Expectation(X), Expectation(Y)
    direct = variance(X * Y, joint)
    paper = _unevaluated(
        Covariance(X**2, Y**2),
        (Variance(X) + ex**2) * (Variance(Y) + ey**2),
        -((ey * ex + Covariance(X, Y)) ** 2),
    )
    _same(_definitions(paper, joint), direct, "Proposition 3 (the paper's expansion)")
    vanishing = sp.Tuple(covariance(X**2, Y**2, independent), covariance(X, Y, independent))
    if vanishing != sp.Tuple(0, 0):
        raise ArithmeticError(f"independence should remove both covariances, got {vanishing}")
    independent_form = sp.expand(
        paper.xreplace({Covariance(X**2, Y**2): 0, Covariance(X, Y): 0}).doit()
    )
    _same(_definitions(independent_form, independent), variance(X * Y, independent), "Prop. 3")
    zero_means = {ex: 0, ey: 0}
    result = independent_form.xreplace(zero_means)
    any_dependence = paper.xreplace(zero_means).doit()
    _same(any_dependence, _zero_mean_product_variance(), "the zero-mean product variance")
    return Derivation(
        "Proposition 3: Var[XY] = Var X Var Y for independent, zero-mean X and Y",
        sp.Eq(Variance(X * Y), result),
        ("X and Y are independent", "E[X] = E[Y] = 0"),
        (
            Step(
                "the paper's expansion",
                (Variance(X * Y), direct, paper),
                "Propositions 1 and 2, no assumption yet; checked identity",
            ),
            Step(
                "independence",
                (sp.Tuple(Covariance(X**2, Y**2), Covariance(X, Y)), vanishing),
                "E[X^2 Y^2] = E[X^2] E[Y^2] and E[XY] = E[X] E[Y]",
            ),
            Step(
                "independent, any means",
                (Variance(X * Y), independent_form),
                "the expansion without the two covariances",
            ),
            Step("zero means", (Variance(X * Y), result), "E[X] = E[Y] = 0"),
            Step(
                "zero means, any dependence",
                (Variance(X * Y), any_dependence),
                "the expansion with E[X] = E[Y] = 0 but without independence",
            ),
        ),
        verdict="Holds.",
        caveats=(
            "Independence is more than the proof uses: with zero means, "
            "Var(XY) = Var X Var Y + Cov(X^2, Y^2) - Cov(X, Y)^2 exactly (last step), so "
            "Cov(X^2, Y^2) = Cov(X, Y)^2 suffices. Zero covariance alone does not: "
            "X = Z, Y = S Z with Z ~ N(0, 1) and an independent random sign S has "
            "Cov(X, Y) = 0 but Var(XY) = E[Z^4] = 3 (Proposition 5, d_k = 1).",
        ),
    )


def _proposition_4() -> Derivation:
    three = sp.symbols("X_1:4")
    total = sum(three)
    pairs = sum(covariance(a, b, [list(three)]) for a in three for b in three)
    _same(variance(total, [list(three)]), pairs, "Var of a sum of 3 terms")
    uncorrelated = covariance(three[0], three[1], [[v] for v in three])
    Xi = sp.IndexedBase("X")
    sifted = sift(sp.KroneckerDelta(i, j) * Variance(Xi[i]), j, i, n)
    double = sp.Sum(sp.Sum(Covariance(Xi[i], Xi[j]), (j, 1, n)), (i, 1, n))
    return Derivation(
        "Proposition 4: Var(sum X_i) = sum Var X_i for independent X_i",
        sp.Eq(Variance(sp.Sum(Xi[i], (i, 1, n))), sp.Sum(sifted, (i, 1, n))),
        ("X_1, ..., X_n are independent and square integrable", "n stays a symbol"),
        (
            Step(
                "the paper's expansion",
                (Variance(sp.Sum(Xi[i], (i, 1, n))), double),
                "Propositions 1 and 2 and linearity; checked with sympy for n = 3",
            ),
            Step(
                "independence",
                (Covariance(three[0], three[1]), uncorrelated),
                "E[X_1 X_2] = E[X_1] E[X_2]; so Cov(X_i, X_j) = delta_ij Var X_i",
            ),
            Step(
                "diagonal",
                (
                    sp.Sum(sp.KroneckerDelta(i, j) * Variance(Xi[i]), (j, 1, n)),
                    sifted,
                ),
                "the Kronecker delta keeps j = i, inside the sum over i = 1..n",
            ),
        ),
        verdict="Holds.",
        caveats=(
            "Only Cov(X_i, X_j) = 0 for i != j is used: pairwise uncorrelated terms suffice.",
        ),
    )


def _counterexample_steps() -> tuple[Step, ...]:
    """Two laws meeting every assumption of Proposition 5 with Var(q.k) != d_k."""
    qi, qj = q[i], q[j]
    Si, Sj = sp.Symbol("S_i"), sp.Symbol("S_j")
    laws = {**normal_moments(qi), **normal_moments(qj)}
    laws.update({**rademacher_moments(S), **rademacher_moments(Si), **rademacher_moments(Sj)})
    shared = [[qi], [qj], [S]]
    listed = sp.Tuple(
        expectation(S * qi, shared),
        variance(S * qi, shared),
        covariance(qi, S * qi, shared),
        covariance(qi, S * qj, shared),
        covariance(qi, qj, shared),
        covariance(S * qi, S * qj, shared),
    ).xreplace(laws)
    # Shared sign: q.k = S sum q_i^2, so Var(q.k) = E[(sum q_i^2)^2] = Var(sum q_i^2) + d_k^2.
    square_var = variance(qi**2, [[qi]]).xreplace(laws)
    square_mean = expectation(qi**2, [[qi]]).xreplace(laws)
    var_sum = independent_sum_step("shared sign: variance of squares", qi**2, i, d_k, 2, square_var)
    mean_sum = independent_sum_step("shared sign: mean of squares", qi**2, i, d_k, 1, square_mean)
    shared_var = sp.factor(var_sum.chain[-1] + mean_sum.chain[-1] ** 2)
    # Independent signs: the products S_i q_i^2 are independent with variance E[q_i^4] = 3.
    term_var = variance(Si * qi**2, [[qi], [Si]]).xreplace(laws)
    own_var = independent_sum_step("own signs: variance", Si * qi**2, i, d_k, 2, term_var)
    sum_squares = sp.Sum(qi**2, (i, 1, d_k))
    return (
        Step(
            "shared sign: assumptions met",
            (
                sp.Tuple(
                    Expectation(S * qi),
                    Variance(S * qi),
                    Covariance(qi, S * qi),
                    Covariance(qi, S * qj),
                    Covariance(qi, qj),
                    Covariance(S * qi, S * qj),
                ),
                listed,
            ),
            "k = S q with q ~ N(0, I) and an independent random sign S; i != j",
        ),
        mean_sum,
        var_sum,
        Step(
            "shared sign: variance",
            (
                Variance(dot(q, k, d_k)),
                Expectation(S**2 * sum_squares**2),
                Variance(sum_squares) + Expectation(sum_squares) ** 2,
                shared_var,
            ),
            "q.k = S sum q_i^2, E[q.k] = 0 and S^2 = 1",
        ),
        Step(
            "own signs: one term",
            (Variance(qi * k[i]), Variance(Si * qi**2), term_var),
            "k_i = S_i q_i with independent random signs S_i: all covariances are zero too",
        ),
        own_var,
    )


def _proposition_5() -> Derivation:
    q1, q2, k1, k2 = q[1], q[2], k[1], k[2]
    everything = [[q1, q2, k1, k2]]
    two = variance(q1 * k1 + q2 * k2, everything)
    split = (
        variance(q1 * k1, everything)
        + variance(q2 * k2, everything)
        + 2 * covariance(q1 * k1, q2 * k2, everything)
    )
    _same(two, split, "Var of a sum of two products")
    qi, ki, qj, kj = q[i], k[i], q[j], k[j]
    term = _zero_mean_product_variance().xreplace({X: qi, Y: ki})
    stated = {Variance(qi): 1, Variance(ki): 1, Covariance(qi, ki): 0}
    off_diagonal = sp.Sum(
        sp.Sum((1 - sp.KroneckerDelta(i, j)) * Covariance(qi * ki, qj * kj), (j, 1, d_k)),
        (i, 1, d_k),
    )
    exact = d_k + sp.Sum(Covariance(qi**2, ki**2), (i, 1, d_k)) + off_diagonal
    vectors = [[qi, qj], [ki, kj]]  # q independent of k; components inside each may depend
    zero_means = {Expectation(v): 0 for v in (qi, qj, ki, kj)}
    cross = covariance(qi * ki, qj * kj, vectors).xreplace(zero_means)
    squares = covariance(qi**2, ki**2, vectors)
    # With zero means, Cov(q_i, q_j) = 0 is E[q_i q_j] = 0 (and the same for k).
    uncorrelated = {Expectation(qi * qj): 0, Expectation(ki * kj): 0}
    counterexamples = _counterexample_steps()
    shared = _step(counterexamples, "shared sign: variance").chain[-1]
    own = _step(counterexamples, "own signs: variance").chain[-1]
    return Derivation(
        "Proposition 5: Var(q.k) = d_k under zero means, unit variances, zero covariances",
        sp.Eq(Variance(dot(q, k, d_k)), d_k),
        (
            "E[q_i] = E[k_i] = 0 and Var(q_i) = Var(k_i) = 1 for every i",
            "Cov(q_i, k_i) = 0 for every i",
            "Cov(q_i, q_j) = 0 and Cov(k_i, k_j) = 0 for i != j",
        ),
        (
            Step(
                "variance of the sum, no assumption",
                (
                    Variance(dot(q, k, d_k)),
                    sp.Sum(Variance(qi * ki), (i, 1, d_k)) + off_diagonal,
                ),
                "Proposition 4's expansion before any covariance is dropped; checked for d_k = 2",
            ),
            Step(
                "one product, zero means",
                (Variance(qi * ki), term, term.xreplace(stated)),
                "Proposition 3's expansion with zero means but no independence; then the "
                "stated unit variances and Cov(q_i, k_i) = 0",
            ),
            Step(
                "exact under the stated assumptions",
                (Variance(dot(q, k, d_k)), exact),
                "the two steps above: the claim needs both extra sums to vanish",
            ),
            Step(
                "sufficient: q independent of k",
                (
                    sp.Tuple(Covariance(qi * ki, qj * kj), Covariance(qi**2, ki**2)),
                    sp.Tuple(cross, squares),
                    sp.Tuple(cross, squares).xreplace(uncorrelated),
                ),
                "E[q_i q_j k_i k_j] = E[q_i q_j] E[k_i k_j] = Cov(q_i, q_j) Cov(k_i, k_j), zero "
                "for i != j; both sums vanish",
            ),
            *counterexamples,
        ),
        verdict=(
            "Does not follow from the stated assumptions. Zero covariances give neither "
            "Var(q_i k_i) = Var q_i Var k_i (that needs Cov(q_i^2, k_i^2) = 0) nor "
            "uncorrelated products (that needs Cov(q_i k_i, q_j k_j) = 0), the two facts the "
            "proof's second and third equalities use. It holds when the query vector is "
            "independent of the key vector (with the stated moments and within-vector zero "
            "covariances), as in Vaswani et al.'s footnote."
        ),
        caveats=(
            f"Counterexample, one shared sign: k = S q with q ~ N(0, I): every listed "
            f"covariance is zero (even Cov(q_i, k_j) for all i, j), yet Var(q.k) = "
            f"{sp.sstr(shared)}; the scale that keeps the logits O(1) is then 1/d_k.",
            f"Counterexample, one sign per component: k_i = S_i q_i: the products are "
            f"independent, but Var(q_i k_i) = 3, so Var(q.k) = {sp.sstr(own)}.",
        ),
    )


@functools.cache
def chuang_propositions() -> tuple[Derivation, ...]:
    """Chuang's Propositions 1 to 5 as checked derivations, each with a verdict.

    >>> for p in chuang_propositions()[:3]:
    ...     print(p.statement)
    Eq(Var(X), -E[X]**2 + E[X**2])
    Eq(Cov(X, Y), -E[X]*E[Y] + E[X*Y])
    Eq(Var(X*Y), Var(X)*Var(Y))
    """
    return (
        _proposition_1(),
        _proposition_2(),
        _proposition_3(),
        _proposition_4(),
        _proposition_5(),
    )
