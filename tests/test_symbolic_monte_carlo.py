"""Each closed form of attncore.symbolic against Monte Carlo, within a standard-error band.

Every comparison goes through :func:`attncore.simulate.montecarlo.compare_with_closed_form`
and passes if ``|estimate - closed form| <= Z * standard error`` with ``Z = 4``: for a
correct closed form a two-sided false alarm has probability 6.3e-5 per comparison (about
3e-3 over the ~50 comparisons here). The standard errors are the library's: ``sd / sqrt(N)``
for a mean, ``sqrt((m_4 - m_2^2) / N)`` with sample central moments for a variance. Seeds
are fixed, so the suite is deterministic.

Draws come from :func:`attncore.simulate.montecarlo.pair_dot_products` (the engine's models:
one call for ``Independent``, one pair per call for ``Correlated`` and ``Projected``, which
share ``z`` or the weights within a call) and from
:func:`~attncore.simulate.montecarlo.proposition_5_pairs` for the counterexamples to
Chuang's Proposition 5; the fixed-weight moments are drawn with numpy.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from attncore.distributions import Correlated, Independent, Laplace, Normal, Projected, Uniform
from attncore.random import make_rng
from attncore.simulate.montecarlo import (
    compare_with_closed_form,
    largest_listed_covariance,
    pair_dot_products,
    proposition_5_pairs,
)
from attncore.symbolic import (
    chuang_propositions,
    correlated_dot_mean,
    correlated_dot_variance,
    correlated_logit_scaling,
    dot_product_mean,
    dot_product_variance,
    dot_product_variance_general,
    expected_key_length,
    k_total_approximation,
    key_length_variance,
    normal_dot_product_characteristic_function,
    normal_dot_product_kurtosis,
    normal_dot_product_pdf,
    projected_dot_variance,
    projected_logit_moments,
    proposition_5_counterexamples,
    scaled_logit_variance,
)
from attncore.symbolic.notation import d, d_k, n

Z = 4.0
N = 20_000  # independent pairs where one engine call gives them all
N_CALLS = 4_000  # one pair per engine call (Correlated, Projected)


def assert_close(
    sample: np.ndarray,
    mean: float | None = None,
    var: float | None = None,
    kurtosis: float | None = None,
) -> None:
    """Every given closed form is within Z standard errors of its estimate (the library's
    comparison; its row says what missed)."""
    comparison = compare_with_closed_form(sample, mean, var, kurtosis)
    assert comparison.within(Z, kurtosis=kurtosis is not None), comparison.row()


def pair_dots(model: Independent, dim: int, count: int, seed: int) -> np.ndarray:
    return pair_dot_products(model, dim, count, seed)


def one_pair_per_call(model: Correlated | Projected, dim: int, seed: int) -> np.ndarray:
    return pair_dot_products(model, dim, N_CALLS, seed)


# --- 1 and 2 --------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, 16])
def test_variance_d_for_normal_components(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=dim)
    var = dot_product_variance().evaluate(d=dim)
    kurtosis = normal_dot_product_kurtosis().evaluate(d=dim)
    assert_close(sample, mean=0.0, var=var, kurtosis=kurtosis)


def test_variance_d_for_non_normal_components() -> None:
    # Unit variances: U(-sqrt 3, sqrt 3) queries and Laplace(0, 1/sqrt 2) keys.
    model = Independent(Uniform(-math.sqrt(3), math.sqrt(3)), Laplace(0.0, 1 / math.sqrt(2)))
    sample = pair_dots(model, 8, N, seed=3)
    assert_close(sample, var=dot_product_variance().evaluate(d=8))


def test_general_moments() -> None:
    model = Independent(Normal(0.5, 2.0), Uniform(-1.0, 3.0))  # key: mean 1, variance 4/3
    moments = {"d": 6, "mu_q": 0.5, "mu_k": 1.0}
    var = dot_product_variance_general().evaluate(**moments, sigma_q=2.0, sigma_k=math.sqrt(4 / 3))
    sample = pair_dots(model, 6, N, seed=4)
    assert_close(sample, mean=dot_product_mean().evaluate(**moments))
    assert_close(sample, var=var)


def test_scaled_logit_has_unit_variance() -> None:
    sample = pair_dots(Independent(Normal(), Normal()), 64, N, seed=5) / 8.0
    assert_close(sample, var=scaled_logit_variance().rhs)


# --- 3 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, 4])
def test_fourth_moment_of_normal_dot_product(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=10 + dim)
    step = next(s for s in normal_dot_product_kurtosis().steps if s.name == "fourth moment")
    assert_close(sample**4, mean=float(step.chain[-1].subs(d, dim)))


@pytest.mark.parametrize("dim", [1, 3])
def test_characteristic_function(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=20 + dim)
    cf = normal_dot_product_characteristic_function()
    for value in (0.4, 1.5):
        assert_close(np.cos(value * sample), mean=cf.evaluate(d=dim, t=value))


@pytest.mark.parametrize("dim", [1, 3, 16])
def test_density_gives_the_interval_probabilities(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=30 + dim)
    scale = math.sqrt(dim)
    for low, high in ((-0.25, 0.25), (0.5, 1.5), (1.5, 4.0)):
        a, b = low * scale, high * scale
        nodes = [a, 0.0, b] if a < 0 < b else [a, b]  # the d = 1 log singularity at 0
        p = float(mpmath.quad(lambda v: float(normal_dot_product_pdf(float(v), dim)), nodes))
        hits = ((sample > a) & (sample < b)).astype(float)
        assert_close(hits, mean=p)


# --- 4 ------------------------------------------------------------------------------------------


def _counterexample(name: str, dim: int) -> float:
    step = next(s for s in chuang_propositions()[4].steps if s.name == name)
    return float(step.chain[-1].subs(d_k, dim))


@pytest.mark.parametrize("dim", [4, 8])
def test_chuang_counterexamples_meet_the_assumptions_and_break_the_claim(dim: int) -> None:
    queries, keys = proposition_5_pairs(dim, N, seed=40 + dim)
    for law in proposition_5_counterexamples():
        k = keys[law.law]
        # the pairs Proposition 5 lists are uncorrelated: (q_1, k_1), (q_1, q_2), (k_1, k_2)
        for a, b in ((queries[:, 0], k[:, 0]), (queries[:, 0], queries[:, 1]), (k[:, 0], k[:, 1])):
            assert_close(a * b, mean=0.0)
        assert_close(np.einsum("ij,ij->i", queries, k), var=law.evaluate(dim))  # not d_k
        assert law.evaluate(dim) != dim
    assert largest_listed_covariance(queries, keys["pair swap"]) < 0.05


def test_uncorrelated_vectors_says_whether_every_cross_covariance_is_zero() -> None:
    # Chuang's Section 1 asks every Cov(q_i, k_j) to be zero, j != i included.
    queries, keys = proposition_5_pairs(4, N, seed=45)
    for law in proposition_5_counterexamples():
        pairs = [queries[:, i] * keys[law.law][:, j] for i in range(4) for j in range(4)]
        zero = [compare_with_closed_form(p, mean=0.0).within(Z) for p in pairs]
        assert all(zero) is law.uncorrelated_vectors, law.law


def test_counterexample_variances_match_the_derivation_steps() -> None:
    assert [c.evaluate(8) for c in proposition_5_counterexamples()] == [
        _counterexample("shared sign: variance", 8),
        _counterexample("own signs: variance", 8),
        _counterexample("pair swap: variance", 8),
    ]


@pytest.mark.parametrize("self_attention", [False, True])
def test_projected_variance_over_weights_and_tokens(self_attention: bool) -> None:
    # d_x = 2 makes the self-attention factor 1 + 2/d_x = 2 plain to see.
    model = Projected(d_x=2, sigma_x=1.3, sigma_wq=0.8, sigma_wk=1.1, self_attention=self_attention)
    sample = one_pair_per_call(model, 3, seed=60 + self_attention)
    values = {"d_x": 2, "d_k": 3, "sigma_x": 1.3, "sigma_wq": 0.8, "sigma_wk": 1.1}
    if self_attention:
        values["mu_4"] = 3 * 1.3**4
    var = projected_dot_variance(self_attention).evaluate(**values)
    assert_close(sample, mean=0.0)
    assert_close(sample, var=var)


@pytest.mark.parametrize("self_attention", [False, True])
def test_projected_moments_for_fixed_weights(self_attention: bool) -> None:
    rng = make_rng(70 + self_attention)
    w_q, w_k = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    # Uniform tokens on [-1, 1]: variance 1/3, fourth moment 1/5 (not normal).
    tokens = rng.uniform(-1.0, 1.0, size=(N, 3))
    other = tokens if self_attention else rng.uniform(-1.0, 1.0, size=(N, 3))
    sample = np.einsum("ij,ij->i", tokens @ w_q, other @ w_k)
    mean, var = projected_logit_moments(w_q, w_k, math.sqrt(1 / 3), 1 / 5, self_attention)
    assert_close(sample, mean=mean)
    assert_close(sample, var=var)


# --- 5 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [2, 16])
def test_key_length_mean_and_variance(dim: int) -> None:
    _, keys = Independent(Normal(), Normal()).sample(make_rng(80 + dim), 1, N, dim)
    lengths = np.linalg.norm(keys, axis=1)
    var = key_length_variance().evaluate(d=dim)
    assert_close(lengths, mean=expected_key_length().evaluate(d=dim))
    assert_close(lengths, var=var)


def test_k_total_against_n_sqrt_d() -> None:
    keys_per_set, dim, sets = 8, 16, 10_000
    _, keys = Independent(Normal(), Normal()).sample(make_rng(90), 1, keys_per_set * sets, dim)
    k_total = np.linalg.norm(keys, axis=1).reshape(sets, keys_per_set).sum(axis=1)
    derivation = k_total_approximation()
    assert_close(k_total / (keys_per_set * math.sqrt(dim)), mean=derivation.evaluate(d=dim))
    spread = next(s for s in derivation.steps if s.name == "relative spread").chain[1]
    relative = float(spread.subs({d: dim, n: keys_per_set}))
    mean = keys_per_set * expected_key_length().evaluate(d=dim)
    assert_close(k_total, var=(relative * mean) ** 2)


# --- 7 ------------------------------------------------------------------------------------------


def test_correlated_moments_and_the_1_over_d_scale() -> None:
    value, dim = 0.6, 8
    sample = one_pair_per_call(Correlated(rho=value), dim, seed=100)
    var = correlated_dot_variance().evaluate(d=dim, rho=value)
    assert_close(sample, mean=correlated_dot_mean().evaluate(d=dim, rho=value))
    assert_close(sample, var=var)
    scaling = correlated_logit_scaling().evaluate(d=dim, rho=value)
    assert_close((sample / dim - value) ** 2, mean=scaling)
