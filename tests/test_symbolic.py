"""Symbolic checks of attncore.symbolic: the closed forms, the result type, and sympy.stats.

Every closed form is compared with the form the issue or the literature gives (so the
test does not echo the code), with an independent computation by sympy.stats for
d = 1 and 2 where that is fast, and with the engine's own closed forms.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import special
from sympy import stats

from attncore import softmax as numeric_softmax
from attncore.checks import ParameterError
from attncore.distributions import Correlated, Independent, Normal, Projected, Uniform
from attncore.symbolic import (
    Check,
    Derivation,
    Step,
    cauchy_schwarz_bound,
    chuang_propositions,
    correlated_dot_mean,
    correlated_dot_variance,
    correlated_logit_scaling,
    dot_product_mean,
    dot_product_variance,
    dot_product_variance_general,
    expected_key_length,
    k_total_approximation,
    key_length_expansion,
    key_length_variance,
    normal_dot_product_characteristic_function,
    normal_dot_product_density,
    normal_dot_product_kurtosis,
    normal_dot_product_mgf,
    normal_dot_product_pdf,
    projected_dot_variance,
    projected_dot_variance_given_weights,
    projected_logit_moments,
    proposition_5_counterexamples,
    scaled_logit_variance,
    self_attention_variance_ratio,
    softmax_jacobian,
    softmax_jacobian_frobenius,
    softmax_jacobian_trace,
)
from attncore.symbolic.notation import (
    d,
    d_k,
    d_x,
    mu_4,
    mu_k,
    mu_q,
    n,
    rho,
    sigma_k,
    sigma_q,
    sigma_wk,
    sigma_wq,
    sigma_x,
    t,
    x,
)

DERIVATIONS = {
    "dot_product_variance": dot_product_variance,
    "dot_product_mean": dot_product_mean,
    "dot_product_variance_general": dot_product_variance_general,
    "scaled_logit_variance": scaled_logit_variance,
    "normal_dot_product_mgf": normal_dot_product_mgf,
    "normal_dot_product_characteristic_function": normal_dot_product_characteristic_function,
    "normal_dot_product_kurtosis": normal_dot_product_kurtosis,
    "normal_dot_product_density": normal_dot_product_density,
    "projected_dot_variance": projected_dot_variance,
    "projected_dot_variance_self": lambda: projected_dot_variance(self_attention=True),
    "self_attention_variance_ratio": self_attention_variance_ratio,
    "given_weights": projected_dot_variance_given_weights,
    "given_weights_self": lambda: projected_dot_variance_given_weights(self_attention=True),
    "expected_key_length": expected_key_length,
    "key_length_expansion": key_length_expansion,
    "key_length_variance": key_length_variance,
    "k_total_approximation": k_total_approximation,
    "softmax_jacobian": lambda: softmax_jacobian(3),
    "softmax_jacobian_trace": softmax_jacobian_trace,
    "softmax_jacobian_frobenius": softmax_jacobian_frobenius,
    "cauchy_schwarz_bound": cauchy_schwarz_bound,
    "correlated_dot_mean": correlated_dot_mean,
    "correlated_dot_variance": correlated_dot_variance,
    "correlated_logit_scaling": correlated_logit_scaling,
    **{
        f"chuang_{number}": (lambda m=number: chuang_propositions()[m - 1])
        for number in range(1, 6)
    },
}


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    return sp.simplify(a - b) == 0


# --- the result type -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DERIVATIONS))
def test_every_derivation_is_complete(name: str) -> None:
    derivation = DERIVATIONS[name]()
    assert isinstance(derivation, Derivation)
    assert isinstance(derivation.statement, sp.Basic) and derivation.latex
    assert derivation.assumptions and all(isinstance(a, str) and a for a in derivation.assumptions)
    assert derivation.steps and all(isinstance(s, Step) and s.latex for s in derivation.steps)
    markdown = derivation.to_markdown()
    assert derivation.latex in markdown and derivation.assumptions[0] in markdown
    assert derivation._repr_markdown_() == markdown


def test_derivations_are_cached() -> None:
    assert dot_product_variance() is dot_product_variance()
    assert softmax_jacobian(3) is softmax_jacobian(3)


def test_evaluate_substitutes_by_name_and_rejects_unknown_names() -> None:
    general = dot_product_variance_general()
    assert general.evaluate(d=2, mu_q=1, mu_k=0, sigma_q=1, sigma_k=1) == 4.0
    assert general.evaluate(d=2).free_symbols == {mu_q, mu_k, sigma_q, sigma_k}
    with pytest.raises(ParameterError, match="dd is not a symbol of this statement"):
        general.evaluate(dd=2)


def test_step_rejects_a_short_chain_and_an_unknown_relation() -> None:
    with pytest.raises(ParameterError, match="chain must hold at least 2"):
        Step("bad", (sp.Integer(1),), "no")
    with pytest.raises(ParameterError, match="relation must be"):
        Step("bad", (sp.Integer(1), sp.Integer(1)), "no", relation=sp.Lt)


# --- 1 and 2: mean and variance of q.k ----------------------------------------------------


def test_variance_is_d_with_d_a_symbol() -> None:
    result = dot_product_variance()
    assert result.rhs == d and result.rhs.free_symbols == {d}
    reasons = " ".join(step.reason for step in result.steps)
    assert "independence" in reasons and "independent" in reasons


@pytest.mark.parametrize("dim", [1, 2])
def test_variance_matches_sympy_stats(dim: int) -> None:
    qs = [stats.Normal(f"q{m}", 0, 1) for m in range(dim)]
    ks = [stats.Normal(f"k{m}", 0, 1) for m in range(dim)]
    direct = stats.variance(sum(a * b for a, b in zip(qs, ks, strict=True)))
    assert direct == dot_product_variance().rhs.subs(d, dim)


def test_variance_needs_no_normality_sympy_stats() -> None:
    # Random signs have mean 0 and variance 1 but are far from normal.
    q1, q2 = stats.Rademacher("q1"), stats.Rademacher("q2")
    k1, k2 = stats.Rademacher("k1"), stats.Rademacher("k2")
    assert stats.variance(q1 * k1 + q2 * k2) == dot_product_variance().rhs.subs(d, 2)


def test_general_moments_match_the_issue_and_sympy_stats() -> None:
    expected_var = d * (sigma_q**2 * sigma_k**2 + sigma_q**2 * mu_k**2 + mu_q**2 * sigma_k**2)
    assert _same(dot_product_variance_general().rhs, expected_var)
    assert _same(dot_product_mean().rhs, d * mu_q * mu_k)
    # d = 1, a normal query with general moments against a standard normal key.
    qv, kv = stats.Normal("q", mu_q, sigma_q), stats.Normal("k", 0, 1)
    closed = dot_product_variance_general().rhs.subs({d: 1, mu_k: 0, sigma_k: 1})
    assert _same(stats.variance(qv * kv), closed)


def test_scaled_logit_has_variance_one_and_a_mean_growing_with_d() -> None:
    result = scaled_logit_variance()
    assert result.rhs == 1
    mean_step = next(s for s in result.steps if s.name == "general moments: mean")
    assert _same(mean_step.chain[-1], sp.sqrt(d) * mu_q * mu_k)


def test_general_moments_agree_with_the_engine() -> None:
    model = Independent(Normal(0.5, 2.0), Uniform(-1.0, 3.0))
    values = {"d": 7, "mu_q": 0.5, "sigma_q": 2.0, "mu_k": 1.0, "sigma_k": math.sqrt(4 / 3)}
    assert dot_product_mean().evaluate(d=7, mu_q=0.5, mu_k=1.0) == pytest.approx(model.dot_mean(7))
    assert dot_product_variance_general().evaluate(**values) == pytest.approx(model.dot_var(7))


# --- 3: standard normal components ----------------------------------------------------------


def test_mgf_characteristic_function_and_kurtosis() -> None:
    assert normal_dot_product_mgf().rhs == (1 - t**2) ** (-d / 2)
    assert normal_dot_product_characteristic_function().rhs == (1 + t**2) ** (-d / 2)
    assert _same(normal_dot_product_kurtosis().rhs, 3 + 6 / d)
    agrees = normal_dot_product_characteristic_function().steps[-1]
    assert _same(agrees.chain[-1], normal_dot_product_characteristic_function().rhs)


def test_fourth_moment_matches_sympy_stats_for_d_1() -> None:
    # (d = 2 gives 24 too, but takes sympy.stats 0.4 s: the Monte Carlo test covers d > 1.)
    direct = stats.E((stats.Normal("q", 0, 1) * stats.Normal("k", 0, 1)) ** 4)
    step = next(s for s in normal_dot_product_kurtosis().steps if s.name == "fourth moment")
    assert direct == 9 == step.chain[-1].subs(d, 1)


def test_density_is_normalized_with_variance_d_and_kurtosis_3_plus_6_over_d() -> None:
    moments = next(
        s for s in normal_dot_product_density().steps if s.name.startswith("normalization")
    )
    assert tuple(moments.chain[-1]) == (1, d, 3 * d * (d + 2))


def test_density_special_cases() -> None:
    steps = {s.name: s for s in normal_dot_product_density().steps}
    assert steps["$d = 1$"].chain[-1] == sp.besselk(0, sp.Abs(x)) / sp.pi
    assert steps["$d = 2$"].chain[-1] == sp.exp(-sp.Abs(x)) / 2  # a Laplace law


def test_density_for_d_1_matches_the_product_density_computed_directly() -> None:
    # Density of the product of two independent N(0, 1): int phi(y) phi(x/y) / |y| dy.
    y, r = sp.Symbol("y", positive=True), sp.Symbol("r", positive=True)
    direct = 2 * sp.integrate(
        sp.exp(-(y**2) / 2 - r**2 / (2 * y**2)) / (2 * sp.pi * y), (y, 0, sp.oo)
    )
    closed = normal_dot_product_density().rhs.subs(d, 1)
    for value in (0.3, 1.0, 2.5):
        assert float(direct.subs(r, value).evalf()) == pytest.approx(
            float(closed.subs(x, value).evalf()), rel=1e-10
        )


@pytest.mark.parametrize("dim", [3, 16])
def test_numeric_pdf_matches_the_symbolic_density(dim: int) -> None:
    density = sp.lambdify(x, normal_dot_product_density().rhs.subs(d, dim), "scipy")
    points = np.array([-7.0, -1.0, 0.25, 2.0, 9.0])
    np.testing.assert_allclose(normal_dot_product_pdf(points, dim), density(points), rtol=1e-12)


@pytest.mark.parametrize("dim", [1, 2, 5, 64, 256])
def test_numeric_pdf_integrates_to_1_with_variance_d(dim: int) -> None:
    width = 40 * math.sqrt(dim) + 40

    def pdf(v: float) -> float:
        return float(normal_dot_product_pdf(float(v), dim))

    if dim <= 2:  # tanh-sinh quadrature copes with the log singularity (d = 1) and kink at 0
        mass = float(2 * mpmath.quad(pdf, [0, 1, width]))
        var = float(2 * mpmath.quad(lambda v: v * v * pdf(v), [0, 1, width]))
    else:  # smooth and even: the trapezoid rule on a fine grid is very accurate
        grid = np.linspace(0.0, width, 40_001)
        values = normal_dot_product_pdf(grid, dim)
        mass, var = 2 * np.trapezoid(values, grid), 2 * np.trapezoid(grid**2 * values, grid)
    assert mass == pytest.approx(1.0, abs=1e-9)
    assert var == pytest.approx(dim, rel=1e-9)


def test_numeric_pdf_at_zero_and_for_large_d() -> None:
    assert normal_dot_product_pdf(0.0, 1) == np.inf
    assert float(normal_dot_product_pdf(0.0, 2)) == pytest.approx(0.5)
    assert float(normal_dot_product_pdf(1e-300, 3)) == pytest.approx(
        float(normal_dot_product_pdf(0.0, 3))
    )
    # d = 1000: K_nu overflows double precision near 0; compare with mpmath.
    nu = mpmath.mpf(999) / 2
    for value in (0.01, 1.0, 40.0):
        exact = (
            value**nu
            * mpmath.besselk(nu, value)
            / (2**nu * mpmath.sqrt(mpmath.pi) * mpmath.gamma(500))
        )
        assert float(normal_dot_product_pdf(value, 1000)) == pytest.approx(float(exact), rel=1e-10)
    # and it approaches N(0, d): at x = 0 the ratio to the normal density is 1 + O(1/d)
    normal_at_0 = 1 / math.sqrt(2 * math.pi * 1000)
    assert float(normal_dot_product_pdf(0.0, 1000)) / normal_at_0 == pytest.approx(1, abs=2e-3)


def test_numeric_pdf_rejects_bad_input() -> None:
    with pytest.raises(ParameterError, match="d must be an integer >= 1"):
        normal_dot_product_pdf(0.5, 0)
    with pytest.raises(ParameterError, match="x must contain only finite numbers"):
        normal_dot_product_pdf([np.nan], 3)


# --- 4: Chuang --------------------------------------------------------------------------------


def test_chuang_verdicts() -> None:
    propositions = chuang_propositions()
    assert len(propositions) == 5
    assert all(p.verdict.startswith("Holds") for p in propositions[:4])
    assert propositions[4].verdict.startswith("Does not follow")


def test_chuang_proposition_statements() -> None:
    p1, p2, p3, p4, p5 = chuang_propositions()
    assert str(p1.statement) == "Eq(Var(X), -E[X]**2 + E[X**2])"
    assert str(p2.statement) == "Eq(Cov(X, Y), -E[X]*E[Y] + E[X*Y])"
    assert str(p3.statement) == "Eq(Var(X*Y), Var(X)*Var(Y))"
    assert str(p4.rhs) == "Sum(Var(X[i]), (i, 1, n))"
    assert p5.rhs == d_k


def test_chuang_proposition_3_with_sympy_stats() -> None:
    a, b = sp.symbols("a b", positive=True)
    xv, yv = stats.Normal("x", 0, a), stats.Normal("y", 0, b)
    assert _same(stats.variance(xv * yv), a**2 * b**2)  # Var X Var Y


def test_chuang_counterexamples() -> None:
    steps = {s.name: s for s in chuang_propositions()[4].steps}
    assert tuple(steps["shared sign: assumptions met"].chain[-1]) == (0, 1, 0, 0, 0, 0)
    assert sp.expand(steps["shared sign: variance"].chain[-1]) == d_k**2 + 2 * d_k
    assert steps["own signs: variance"].chain[-1] == 3 * d_k
    # d_k = 1 with sympy.stats: q ~ N(0, 1), k = S q with a random sign S.
    qv, sign = stats.Normal("q", 0, 1), stats.Rademacher("S")
    assert stats.covariance(qv, sign * qv) == 0
    assert stats.variance(qv * sign * qv) == 3


def test_projected_variance_matches_chuang_and_the_self_attention_correction() -> None:
    chuang = (d_x * sigma_x**2 * sigma_wq**2) * (d_x * sigma_x**2 * sigma_wk**2) * d_k
    assert _same(projected_dot_variance().rhs, chuang)
    e_norm4 = d_x * mu_4 + d_x * (d_x - 1) * sigma_x**4  # E||x||^4 from the brief
    assert _same(
        projected_dot_variance(self_attention=True).rhs, d_k * sigma_wq**2 * sigma_wk**2 * e_norm4
    )
    ratio = self_attention_variance_ratio()
    assert _same(ratio.rhs, 1 + (mu_4 / sigma_x**4 - 1) / d_x)
    assert ratio.steps[-1].chain[-1] == 1 + 2 / d_x


@pytest.mark.parametrize("self_attention", [False, True])
def test_projected_variance_agrees_with_the_engine(self_attention: bool) -> None:
    model = Projected(d_x=5, sigma_x=1.5, sigma_wq=0.7, sigma_wk=1.2, self_attention=self_attention)
    values = {"d_x": 5, "d_k": 6, "sigma_x": 1.5, "sigma_wq": 0.7, "sigma_wk": 1.2}
    if self_attention:
        values["mu_4"] = 3 * 1.5**4  # normal tokens
    assert projected_dot_variance(self_attention).evaluate(**values) == pytest.approx(
        model.dot_var(6)
    )


@pytest.mark.parametrize("self_attention", [False, True])
def test_given_weights_symbolic_and_numeric_agree(self_attention: bool) -> None:
    rng = np.random.default_rng(5)
    w_q, w_k = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    sx, m4 = 0.8, 1.8 * 0.8**4  # uniform tokens: fourth moment 9/5 sigma^4
    derivation = projected_dot_variance_given_weights(self_attention)
    M = sp.MatrixSymbol("M", 3, 3)
    statement = derivation.rhs.subs(d_x, 3).doit()
    value = statement.subs(M, sp.ImmutableMatrix(w_q @ w_k.T)).doit().subs({sigma_x: sx, mu_4: m4})
    mean, var = projected_logit_moments(w_q, w_k, sx, m4, self_attention)
    assert float(value) == pytest.approx(var, rel=1e-12)
    assert mean == pytest.approx(sx**2 * np.trace(w_q @ w_k.T) if self_attention else 0.0)


def test_projected_logit_moments_rejects_bad_input() -> None:
    with pytest.raises(ParameterError, match="same shape"):
        projected_logit_moments(np.ones((2, 2)), np.ones((3, 2)))
    with pytest.raises(ParameterError, match="fourth_moment must be >= sigma_x"):
        projected_logit_moments(np.ones((2, 2)), np.ones((2, 2)), 1.0, 0.5, True)


# --- 5: key length ----------------------------------------------------------------------------


def test_expected_key_length_matches_sympy_stats_for_d_1_and_2() -> None:
    assert expected_key_length().evaluate(d=1) == pytest.approx(
        float(stats.E(sp.Abs(stats.Normal("z", 0, 1))))
    )
    assert expected_key_length().evaluate(d=2) == pytest.approx(
        float(stats.E(sp.sqrt(stats.ChiSquared("c", 2))))
    )


def test_key_length_expansion_coefficients_and_accuracy() -> None:
    # the mean of a chi law: sqrt(d) (1 - 1/(4d) + 1/(32 d^2) + 5/(128 d^3) + ...)
    literature = sp.sqrt(d) * (1 - 1 / (4 * d) + 1 / (32 * d**2) + 5 / (128 * d**3))
    assert _same(key_length_expansion().rhs.removeO(), literature)
    assert key_length_expansion().steps[-1].chain[-1].removeO() == 1 / (16 * d ** sp.Rational(3, 2))
    exact = expected_key_length().evaluate(d=100)
    assert key_length_expansion().evaluate(d=100) == pytest.approx(exact, abs=2e-7)
    assert exact - math.sqrt(99.5) == pytest.approx(1 / (16 * 100**1.5), rel=0.05)


def test_key_length_variance_and_k_total() -> None:
    assert key_length_variance().evaluate(d=1) == pytest.approx(1 - 2 / math.pi)
    assert key_length_variance().evaluate(d=10_000) == pytest.approx(0.5, abs=1e-4)
    steps = {s.name: s for s in k_total_approximation().steps}
    spread = steps["relative spread"]
    exact = float(spread.chain[1].subs({d: 64, n: 32}))
    assert exact == pytest.approx(1 / math.sqrt(2 * 32 * 64), rel=1 / 64)
    assert steps[r"logits divided by $n\sqrt{d}$"].chain[-1] == n**-2


# --- 6: softmax Jacobian and the Cauchy-Schwarz bound ------------------------------------------


def test_jacobian_matches_the_numeric_one_on_the_blog_example() -> None:
    s = numeric_softmax.softmax([0.2, 0.4, 0.1, 0.8])
    matrix = softmax_jacobian(4).rhs
    outputs = sorted(matrix.free_symbols, key=lambda v: v.name)
    symbolic = matrix.subs(dict(zip(outputs, s, strict=True)))
    np.testing.assert_allclose(
        np.array(symbolic, dtype=float), numeric_softmax.jacobian(s), atol=1e-15
    )


@pytest.mark.parametrize("size", [2, 5])
def test_trace_and_frobenius_closed_forms_on_random_points(size: int) -> None:
    rng = np.random.default_rng(size)
    probabilities = rng.dirichlet(np.ones(size), 3)
    s = sp.IndexedBase("s", positive=True)
    for p in probabilities:
        values = {s[m + 1]: p[m] for m in range(size)}
        matrix = numeric_softmax.jacobian(p)
        trace = softmax_jacobian_trace().rhs.subs(n, size).doit().subs(values)
        norm = softmax_jacobian_frobenius().rhs.subs(n, size).doit().subs(values)
        assert float(trace) == pytest.approx(np.trace(matrix), rel=1e-12)
        assert float(norm) == pytest.approx(np.linalg.norm(matrix), rel=1e-12)
        assert float(norm) == pytest.approx(float(numeric_softmax.jacobian_frobenius(p)), rel=1e-12)


def test_trace_and_frobenius_special_values() -> None:
    assert softmax_jacobian_trace().steps[-2].chain[-1] == (n - 1) / n
    assert softmax_jacobian_frobenius().steps[-1].chain[-1] == sp.sqrt(n - 1) / n


def test_softmax_jacobian_checks_n() -> None:
    with pytest.raises(ParameterError, match="n must be an integer between 1 and 8"):
        softmax_jacobian(9)
    with pytest.raises(ParameterError, match="n must be an integer >= 1"):
        softmax_jacobian(0)


@pytest.mark.parametrize("dim", [1, 2, 7, 64])
def test_cauchy_schwarz_bound_holds_for_random_and_extreme_vectors(dim: int) -> None:
    rng = np.random.default_rng(dim)
    queries = rng.standard_normal((500, dim)) * rng.lognormal(0, 3, (500, 1))
    keys = rng.standard_normal((500, 6, dim)) * rng.lognormal(0, 3, (500, 6, 1))
    keys[::7, 1:] = 0.0  # one nonzero key: the second inequality is an equality
    keys[::11, 0] = 2.5 * queries[::11]  # a key parallel to the query: the first one is
    logits = np.abs(np.einsum("mkd,md->mk", keys, queries))
    k_total = np.linalg.norm(keys, axis=2).sum(axis=1, keepdims=True)
    bound = np.linalg.norm(queries, axis=1, keepdims=True)
    assert np.all(logits / k_total <= bound * (1 + 1e-12))
    tight = (logits / k_total / bound)[::77, 0]  # both: equality up to rounding
    np.testing.assert_allclose(tight, 1.0, rtol=1e-12)


def test_cauchy_schwarz_derivation() -> None:
    bound = cauchy_schwarz_bound()
    assert isinstance(bound.statement, sp.Le)
    typical = next(s for s in bound.steps if s.name == "typical size")
    assert typical.chain[-1] == sp.sqrt(2 / sp.pi)
    assert float(stats.E(sp.Abs(stats.Normal("z", 0, 1)))) == pytest.approx(
        float(typical.chain[-1])
    )


# --- 7: correlated queries and keys ------------------------------------------------------------


def test_correlated_moments_match_the_issue_and_the_engine() -> None:
    assert correlated_dot_mean().rhs == d * rho
    assert _same(correlated_dot_variance().rhs, d * (1 + rho**2))
    assert _same(correlated_logit_scaling().rhs, (1 + rho**2) / d)
    for value in (-0.4, 0.7):
        model = Correlated(rho=value)
        assert correlated_dot_mean().evaluate(d=9, rho=value) == pytest.approx(model.dot_mean(9))
        assert correlated_dot_variance().evaluate(d=9, rho=value) == pytest.approx(model.dot_var(9))


def test_correlated_variance_beyond_the_normal_law() -> None:
    # (sympy.stats gives 1 + rho^2 for d = 1 too, but takes 0.6 s; the engine and the Monte
    # Carlo test check the normal case.)
    general = next(s for s in correlated_dot_variance().steps if "any law" in s.name)
    m_4 = sp.Symbol("m_4", positive=True)
    assert general.chain[-1].subs(m_4, 3) == 1 + rho**2
    assert general.chain[-1].subs(m_4, 1) == 1 - rho**2  # random signs: m_4 = 1


def test_density_uses_special_functions_that_scipy_evaluates() -> None:
    # The book overlays the numeric pdf; the symbolic form must lambdify to the same numbers.
    value = special.kv(0, 1.0) / math.pi
    assert float(normal_dot_product_pdf(1.0, 1)) == pytest.approx(value, rel=1e-14)
    symbolic = sp.lambdify((d, x), normal_dot_product_density().rhs, modules="scipy")
    for dim, point in ((1, 1.0), (2, 0.3), (5, 2.5), (16, 7.0)):
        assert float(normal_dot_product_pdf(point, dim)) == pytest.approx(
            float(symbolic(dim, point)), rel=1e-10
        )


def test_chuang_checks_are_residuals_that_vanish_for_propositions_1_to_4() -> None:
    for p in chuang_propositions()[:4]:
        assert p.checks, p.title
        assert all(sp.simplify(r) == 0 for r in p.residuals().values()), p.title


def test_chuang_proposition_4_is_proved_by_induction_for_symbolic_n() -> None:
    p4 = chuang_propositions()[3]
    residuals = p4.residuals()
    for name in ("base case n = 1", "one more independent term", "induction step"):
        assert sp.simplify(residuals[name]) == 0
    step = next(c for c in p4.checks if c.name == "induction step")
    assert n in step.lhs.free_symbols  # n stays a symbol: no finite expansion
    assert "for every $n$" in p4.verdict


def test_chuang_proposition_5_claim_checks_fail_for_every_counterexample() -> None:
    residuals = chuang_propositions()[4].residuals()
    assert sp.simplify(residuals["Var of a sum of two products"]) == 0
    claims = {k: v for k, v in residuals.items() if k.startswith("the claim")}
    assert len(claims) == 3 and all(sp.simplify(r) != 0 for r in claims.values())


def test_pair_swap_counterexample() -> None:
    steps = {s.name: s for s in chuang_propositions()[4].steps}
    assert tuple(steps["pair swap: assumptions met"].chain[-1]) == (0, 1, 0)
    assert steps["pair swap: one coordinate pair"].chain[-1] == 4
    assert sp.simplify(steps["pair swap: variance"].chain[-1] - 2 * d_k) == 0
    swap = proposition_5_counterexamples()[2]
    assert swap.independent_pairs and swap.evaluate(10) == 20.0
    # d_k = 2 with sympy.stats: q_1, q_2 independent N(0, 1), k = (q_2, q_1)
    q1, q2 = stats.Normal("q1", 0, 1), stats.Normal("q2", 0, 1)
    assert stats.variance(q1 * q2 + q2 * q1) == 4  # = 2 d_k


def test_check_residual_is_left_undecided() -> None:
    a = sp.Symbol("a")
    check = Check("x", (a + 1) ** 2, a**2 + 1)
    assert sp.expand(check.residual) == 2 * a
