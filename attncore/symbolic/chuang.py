"""Chuang's appendix, Propositions 1 to 5, each re-derived and checked, with a verdict.

Every proposition is derived with the moment algebra of :mod:`attncore.symbolic.moments`
(joint moments of dependent variables stay unevaluated, independence factorizes them),
and the lines of Chuang's proofs are set against the derivation as :class:`Check` s, whose
residuals a verdict rule simplifies (nothing is decided here). Proposition 4 is proved for a
symbolic number of terms, by induction. Proposition 5 does not follow from its stated
assumptions: the derivation gives the exact correction terms and three counterexamples, one
in which every pair the proposition lists is independent (a coordinate-pair swap).

>>> [p.title.split(":")[0] for p in chuang_propositions()]
['Proposition 1', 'Proposition 2', 'Proposition 3', 'Proposition 4', 'Proposition 5']
>>> chuang_propositions()[4].verdict.split(".")[0]
'Does not follow from the stated assumptions'
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy as sp

from attncore.symbolic.derivation import Check, Derivation, Step
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
from attncore.symbolic.typeset import latex

__all__ = ["Counterexample", "chuang_propositions", "proposition_5_counterexamples"]

X, Y = sp.symbols("X Y")
S = sp.Symbol("S")  # a random sign, +1 or -1 with probability 1/2


_m = sp.Symbol("m", integer=True, positive=True)  # index of a coordinate pair (2m - 1, 2m)


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
    return Derivation(
        r"Proposition 1: $\operatorname{Var}X = \mathbb{E}[X^2] - (\mathbb{E}X)^2$",
        sp.Eq(Variance(X), var),
        (
            r"$X$ is square integrable (otherwise $\operatorname{Var}X$ is infinite, as the paper "
            r"says)",
        ),
        (
            Step(
                "Definition 3",
                (Expectation((X - a) ** 2), mse),
                r"linearity of expectation; $\operatorname{Var}X$ is the minimum over $a$",
            ),
            Step(
                "minimizer",
                (a, best),
                r"$\frac{d}{da}(\mathbb{E}[X^2] - 2a\,\mathbb{E}X + a^2) = 0$; it is "
                "convex in $a$",
            ),
            Step(
                "the paper's line",
                (Variance(X), Expectation((X - Expectation(X)) ** 2), paper, var),
                "the minimum value; checked identity",
            ),
        ),
        verdict=r"Holds, for every square-integrable $X$ ($\mathbb{E}[x]$ in the proof is a typo "
        r"for $\mathbb{E}[X]$).",
        checks=(Check("the paper's line for Var X", paper, var),),
    )


def _proposition_2() -> Derivation:
    joint = [[X, Y]]
    cov = expectation((X - Expectation(X)) * (Y - Expectation(Y)), joint)
    ex, ey, exy = Expectation(X), Expectation(Y), Expectation(X * Y)
    paper = _unevaluated(exy, -ex * ey, -ex * ey, ex * ey)
    return Derivation(
        r"Proposition 2: $\operatorname{Cov}(X, Y) = \mathbb{E}XY - \mathbb{E}X\,\mathbb{E}Y$",
        sp.Eq(Covariance(X, Y), cov),
        ("$X$ and $Y$ are square integrable; no independence is assumed",),
        (
            Step(
                "Definition 4 and the paper's line",
                (Covariance(X, Y), Expectation((X - ex) * (Y - ey)), paper, cov),
                r"linearity of expectation ($\mathbb{E}X$ and $\mathbb{E}Y$ are constants); "
                r"checked identity",
            ),
        ),
        verdict="Holds, for any square-integrable $X$ and $Y$.",
        checks=(Check("the paper's line for Cov(X, Y)", paper, cov),),
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
    vanishing = sp.Tuple(covariance(X**2, Y**2, independent), covariance(X, Y, independent))
    independent_form = sp.expand(
        paper.xreplace({Covariance(X**2, Y**2): 0, Covariance(X, Y): 0}).doit()
    )
    zero_means = {ex: 0, ey: 0}
    result = independent_form.xreplace(zero_means)
    any_dependence = paper.xreplace(zero_means).doit()
    checks = (
        Check("the paper's expansion", _definitions(paper, joint), direct),
        Check("independence: Cov(X², Y²) = 0", vanishing[0], sp.S.Zero),
        Check("independence: Cov(X, Y) = 0", vanishing[1], sp.S.Zero),
        Check(
            "independent, any means",
            _definitions(independent_form, independent),
            variance(X * Y, independent),
        ),
        Check("the claim", result, Variance(X) * Variance(Y)),
        Check("zero means, any dependence", any_dependence, _zero_mean_product_variance()),
    )
    return Derivation(
        r"Proposition 3: $\operatorname{Var}(XY) = \operatorname{Var}X \operatorname{Var}Y$ for "
        r"independent, zero-mean $X$ and $Y$",
        sp.Eq(Variance(X * Y), result),
        ("$X$ and $Y$ are independent", r"$\mathbb{E}X = \mathbb{E}Y = 0$"),
        (
            Step(
                "the paper's expansion",
                (Variance(X * Y), direct, paper),
                "Propositions 1 and 2, no assumption yet; checked identity",
            ),
            Step(
                "independence",
                (sp.Tuple(Covariance(X**2, Y**2), Covariance(X, Y)), vanishing),
                r"$\mathbb{E}[X^2 Y^2] = \mathbb{E}[X^2]\,\mathbb{E}[Y^2]$ and $\mathbb{E}[XY] = "
                r"\mathbb{E}X\,\mathbb{E}Y$",
            ),
            Step(
                "independent, any means",
                (Variance(X * Y), independent_form),
                "the expansion without the two covariances",
            ),
            Step("zero means", (Variance(X * Y), result), r"$\mathbb{E}X = \mathbb{E}Y = 0$"),
            Step(
                "zero means, any dependence",
                (Variance(X * Y), any_dependence),
                r"the expansion with $\mathbb{E}X = \mathbb{E}Y = 0$ but without independence",
            ),
        ),
        verdict="Holds.",
        checks=checks,
        caveats=(
            "Independence is more than the proof uses: with zero means, "
            r"$\operatorname{Var}(XY) = \operatorname{Var}X \operatorname{Var}Y + "
            r"\operatorname{Cov}(X^2, Y^2) - \operatorname{Cov}(X, Y)^2$ exactly (last step), "
            r"so $\operatorname{Cov}(X^2, Y^2) = \operatorname{Cov}(X, Y)^2$ suffices. Zero "
            r"covariance alone does not: $X = Z$, $Y = SZ$ with $Z \sim N(0, 1)$ and an "
            r"independent random sign $S$ has $\operatorname{Cov}(X, Y) = 0$ but "
            r"$\operatorname{Var}(XY) = \mathbb{E}Z^4 = 3$ (Proposition 5 with $d_k = 1$).",
        ),
    )


def _proposition_4() -> Derivation:
    three = sp.symbols("X_1:4")
    total = sum(three)
    pairs = sum(covariance(a, b, [list(three)]) for a in three for b in three)
    uncorrelated = covariance(three[0], three[1], [[v] for v in three])
    Xi = sp.IndexedBase("X")
    sifted = sift(sp.KroneckerDelta(i, j) * Variance(Xi[i]), j, i, n)
    double = sp.Sum(sp.Sum(Covariance(Xi[i], Xi[j]), (j, 1, n)), (i, 1, n))
    # Induction on n: S_n = X_1 + ... + X_n is a function of X_1..X_n, so it is independent
    # of X_{n+1} (mutual independence), and Var(S_n + X_{n+1}) = Var S_n + Var X_{n+1}.
    S_n, last = sp.Symbol("S_n"), Xi[n + 1]
    one_more = variance(S_n + last, [[S_n], [last]])
    apart = variance(S_n, [[S_n]]) + variance(last, [[last]])
    each = Variance(Xi[i])
    hypothesis = sp.Sum(each, (i, 1, n)) + sp.Sum(each, (i, n + 1, n + 1))
    claim = sp.Sum(each, (i, 1, n + 1))
    base = sp.Sum(each, (i, 1, 1))
    checks = (
        Check("base case n = 1", Variance(Xi[1]), base.doit()),
        Check("one more independent term", one_more, apart),
        Check("induction step", hypothesis, claim),
        Check("the last term of the step", sp.Sum(each, (i, n + 1, n + 1)).doit(), Variance(last)),
        Check("the paper's expansion, n = 3", variance(total, [list(three)]), pairs),
    )
    return Derivation(
        r"Proposition 4: $\operatorname{Var}\sum_i X_i = \sum_i \operatorname{Var}X_i$ for "
        r"independent $X_i$",
        sp.Eq(Variance(sp.Sum(Xi[i], (i, 1, n))), sp.Sum(sifted, (i, 1, n))),
        (r"$X_1, \dots, X_n$ are independent and square integrable", "$n$ stays a symbol"),
        (
            Step(
                "induction: base case",
                (Variance(sp.Sum(Xi[i], (i, 1, 1))), Variance(Xi[1]), base),
                "a sum of one term",
            ),
            Step(
                "induction: one more term",
                (
                    Variance(S_n + last),
                    one_more,
                    Variance(S_n) + Variance(last),
                ),
                r"$S_n = X_1 + \dots + X_n$ depends on $X_1, \dots, X_n$ only, so it is "
                r"independent of $X_{n+1}$: $\mathbb{E}[S_n X_{n+1}] = "
                r"\mathbb{E}S_n\,\mathbb{E}X_{n+1}$",
            ),
            Step(
                "induction: the hypothesis for $n$",
                (Variance(S_n) + Variance(last), hypothesis, claim),
                r"$\operatorname{Var}S_n = \sum_{i \le n} \operatorname{Var}X_i$, then one sum "
                r"over $i = 1, \dots, n+1$; checked by sympy for a symbolic $n$",
            ),
            Step(
                "the paper's expansion",
                (Variance(sp.Sum(Xi[i], (i, 1, n))), double),
                "Propositions 1 and 2 and linearity; checked with sympy for $n = 3$",
            ),
            Step(
                "independence",
                (Covariance(three[0], three[1]), uncorrelated),
                r"$\mathbb{E}[X_1 X_2] = \mathbb{E}X_1\,\mathbb{E}X_2$; so "
                r"$\operatorname{Cov}(X_i, X_j) = \delta_{ij} \operatorname{Var}X_i$",
            ),
            Step(
                "diagonal",
                (
                    sp.Sum(sp.KroneckerDelta(i, j) * Variance(Xi[i]), (j, 1, n)),
                    sifted,
                ),
                r"the Kronecker delta keeps $j = i$, inside the sum over $i = 1, \dots, n$",
            ),
        ),
        verdict="Holds, for every $n$ (by induction on $n$, with $n$ a symbol).",
        checks=checks,
        caveats=(
            r"The paper's route (the double sum of covariances) uses only "
            r"$\operatorname{Cov}(X_i, X_j) = 0$ for $i \ne j$: pairwise uncorrelated terms "
            r"suffice.",
        ),
    )


def _swap_steps() -> tuple[Step, ...]:
    """k a coordinate-pair swap of q ~ N(0, I): every pair Proposition 5 lists is independent."""
    a, b = q[2 * _m - 1], q[2 * _m]
    laws = {**normal_moments(a), **normal_moments(b)}
    apart = [[a], [b]]
    # (q_i, k_i) = (q_{2m-1}, q_{2m}); (q_i, q_j) and (k_i, k_j) are two distinct q's: each pair
    # is two distinct components of q ~ N(0, I), hence independent.
    listed = sp.Tuple(expectation(a, apart), variance(a, apart), covariance(a, b, apart)).xreplace(
        laws
    )
    term = 2 * a * b  # q_{2m-1} k_{2m-1} + q_{2m} k_{2m} = 2 q_{2m-1} q_{2m}
    term_var = variance(term, apart).xreplace(laws)
    swap_var = independent_sum_step("pair swap: variance", term, _m, d_k / 2, 2, term_var)
    return (
        Step(
            "pair swap: assumptions met",
            (sp.Tuple(Expectation(q[i]), Variance(q[i]), Covariance(q[i], k[i])), listed),
            r"$k_{2m-1} = q_{2m}$, $k_{2m} = q_{2m-1}$ with $q \sim N(0, I)$ and $d_k$ even: "
            r"each pair $(q_i, k_i)$, $(q_i, q_j)$, $(k_i, k_j)$, $i \ne j$, is two distinct "
            "components of $q$, so independent, not only uncorrelated",
        ),
        Step(
            "pair swap: one coordinate pair",
            (
                Variance(q[2 * _m - 1] * k[2 * _m - 1] + q[2 * _m] * k[2 * _m]),
                Variance(term),
                term_var,
            ),
            r"$q_{2m-1} k_{2m-1} + q_{2m} k_{2m} = 2 q_{2m-1} q_{2m}$; independent factors",
        ),
        swap_var,
    )


def _counterexample_steps() -> tuple[Step, ...]:
    """Three laws meeting every assumption of Proposition 5 with Var(q.k) != d_k."""
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
            r"$k = Sq$ with $q \sim N(0, I)$ and an independent random sign $S$; $i \ne j$",
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
            r"$q \cdot k = S \sum_i q_i^2$, $\mathbb{E}[q \cdot k] = 0$ and $S^2 = 1$",
        ),
        Step(
            "own signs: one term",
            (Variance(qi * k[i]), Variance(Si * qi**2), term_var),
            "$k_i = S_i q_i$ with independent random signs $S_i$: all covariances are zero too",
        ),
        own_var,
        *_swap_steps(),
    )


@dataclass(frozen=True)
class Counterexample:
    """A query-key law meeting Proposition 5's assumptions, with its exact ``Var(q.k)``.

    ``independent_pairs`` says whether every pair the proposition lists is independent (not
    only uncorrelated): the charitable reading of Chuang's "independent in the following ways".
    ``uncorrelated_vectors`` whether every ``Cov(q_i, k_j)`` is zero, ``j != i`` included, as
    his assumption (iv) of Section 1 asks of a query and a key.
    """

    label: str
    law: str
    variance: sp.Expr
    independent_pairs: bool
    uncorrelated_vectors: bool
    note: str

    def evaluate(self, dim: int) -> float:
        """``Var(q.k)`` at ``d_k = dim``.

        >>> proposition_5_counterexamples()[2].evaluate(16)
        32.0
        """
        return float(self.variance.subs(d_k, dim))


@functools.cache
def proposition_5_counterexamples() -> tuple[Counterexample, ...]:
    """The three counterexamples to Proposition 5, ``Var(q.k)`` as a function of ``d_k``.

    >>> [(c.law, c.variance, c.independent_pairs, c.uncorrelated_vectors)
    ...  for c in proposition_5_counterexamples()]  # doctest: +NORMALIZE_WHITESPACE
    [('shared sign', d_k*(d_k + 2), False, True), ('own signs', 3*d_k, False, True),
     ('pair swap', 2*d_k, True, False)]
    """
    steps = {s.name: s for s in _counterexample_steps()}
    return (
        Counterexample(
            "k = S q (one shared sign)",
            "shared sign",
            steps["shared sign: variance"].chain[-1],
            False,
            True,
            r"every $\operatorname{Cov}(q_i, k_j)$ is 0, but $q_i$ and $k_i$ are dependent",
        ),
        Counterexample(
            "k_i = S_i q_i (own signs)",
            "own signs",
            steps["own signs: variance"].chain[-1],
            False,
            True,
            "$q_i$ and $k_i$ are uncorrelated but dependent",
        ),
        Counterexample(
            "k = coordinate-pair swap of q",
            "pair swap",
            steps["pair swap: variance"].chain[-1],
            True,
            False,
            r"every listed pair is independent; $q_i$ and $k_j$ are correlated for $j \ne i$, "
            "which Proposition 5 does not list",
        ),
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
    swap = _step(counterexamples, "pair swap: variance").chain[-1]
    return Derivation(
        r"Proposition 5: $\operatorname{Var}(q \cdot k) = d_k$ under zero means, unit variances, "
        r"zero covariances",
        sp.Eq(Variance(dot(q, k, d_k)), d_k),
        (
            r"$\mathbb{E}q_i = \mathbb{E}k_i = 0$ and $\operatorname{Var}q_i = "
            r"\operatorname{Var}k_i = 1$ for every $i$",
            r"$\operatorname{Cov}(q_i, k_i) = 0$ for every $i$",
            r"$\operatorname{Cov}(q_i, q_j) = 0$ and $\operatorname{Cov}(k_i, k_j) = 0$ for $i "
            r"\ne j$",
        ),
        (
            Step(
                "variance of the sum, no assumption",
                (
                    Variance(dot(q, k, d_k)),
                    sp.Sum(Variance(qi * ki), (i, 1, d_k)) + off_diagonal,
                ),
                "Proposition 4's expansion before any covariance is dropped; checked for $d_k = 2$",
            ),
            Step(
                "one product, zero means",
                (Variance(qi * ki), term, term.xreplace(stated)),
                "Proposition 3's expansion with zero means but no independence; then the "
                r"stated unit variances and $\operatorname{Cov}(q_i, k_i) = 0$",
            ),
            Step(
                "exact under the stated assumptions",
                (Variance(dot(q, k, d_k)), exact),
                "the two steps above: the claim needs both extra sums to vanish",
            ),
            Step(
                "sufficient: $q$ independent of $k$",
                (
                    sp.Tuple(Covariance(qi * ki, qj * kj), Covariance(qi**2, ki**2)),
                    sp.Tuple(cross, squares),
                    sp.Tuple(cross, squares).xreplace(uncorrelated),
                ),
                r"$\mathbb{E}[q_i q_j k_i k_j] = \mathbb{E}[q_i q_j]\,\mathbb{E}[k_i k_j] = "
                r"\operatorname{Cov}(q_i, q_j) \operatorname{Cov}(k_i, k_j)$, zero for $i \ne j$; "
                "both sums vanish",
            ),
            *counterexamples,
        ),
        verdict=(
            "Does not follow from the stated assumptions. Zero covariances give neither "
            r"$\operatorname{Var}(q_i k_i) = \operatorname{Var}q_i \operatorname{Var}k_i$ (that "
            r"needs $\operatorname{Cov}(q_i^2, k_i^2) = 0$) nor uncorrelated products (that needs "
            r"$\operatorname{Cov}(q_i k_i, q_j k_j) = 0$), the two facts the "
            "proof's second and third equalities use. It holds when the query vector is "
            "independent of the key vector (with the stated moments and within-vector zero "
            "covariances), as in Vaswani et al.'s footnote."
        ),
        caveats=(
            r"Counterexample, one shared sign: $k = Sq$ with $q \sim N(0, I)$: every listed "
            r"covariance is zero (even $\operatorname{Cov}(q_i, k_j)$ for all $i, j$), yet "
            rf"$\operatorname{{Var}}(q \cdot k) = {latex(shared)}$; the scale that keeps the "
            r"logits $O(1)$ is then $1/d_k$.",
            "Counterexample, one sign per component: $k_i = S_i q_i$: the products are "
            r"independent, but $\operatorname{Var}(q_i k_i) = 3$, so "
            rf"$\operatorname{{Var}}(q \cdot k) = {latex(own)}$.",
            "Counterexample with every listed pair independent (Chuang writes 'independent in "
            r"the following ways'): $k_{2m-1} = q_{2m}$, $k_{2m} = q_{2m-1}$ with "
            rf"$q \sim N(0, I)$, $d_k$ even: $\operatorname{{Var}}(q \cdot k) = {latex(swap)}$. "
            r"It makes $q_i$ and $k_j$ correlated for $j \ne i$, which Proposition 5 does not "
            "exclude.",
        ),
        checks=(
            Check("Var of a sum of two products", two, split),
            *(
                Check(f"the claim under '{c.law}'", c.variance, d_k)
                for c in proposition_5_counterexamples()
            ),
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
