"""Each closed form of attncore.symbolic against Monte Carlo, within a standard-error band.

Every comparison passes if ``|estimate - closed form| <= Z * standard error`` with
``Z = 4``: for a correct closed form a two-sided false alarm has probability 6.3e-5 per
comparison (about 3e-3 over the ~50 comparisons here). The standard error of a mean is
``sd / sqrt(N)``; that of a sample variance is ``sqrt((mu_4 - sigma^4) / N)``, with the
central fourth moment ``mu_4`` exact where the derivations give it and estimated
otherwise. Seeds are fixed, so the suite is deterministic.

Draws come from the engine's models (:mod:`attncore.distributions`) wherever one fits:
``Independent`` gives independent pairs in one call (row ``a`` of ``Q`` with row ``a`` of
``K``); ``Correlated`` and ``Projected`` share ``z`` or the weights within a call, so
their unconditional moments take one pair per call. The random-sign counterexamples to
Chuang's Proposition 5 and the fixed-weight moments have no engine model and are drawn
with numpy from :func:`attncore.seeding.make_rng`.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from attncore.distributions import Correlated, Independent, Laplace, Normal, Projected, Uniform
from attncore.random import make_rng
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
    scaled_logit_variance,
)
from attncore.symbolic.notation import d, d_k, n

Z = 4.0
N = 20_000  # independent pairs where one engine call gives them all
N_CALLS = 4_000  # one pair per engine call (Correlated, Projected)


def assert_mean(sample: np.ndarray, expected: float, sd: float | None = None) -> None:
    """The sample mean is within Z standard errors of ``expected``."""
    spread = float(np.std(sample, ddof=1)) if sd is None else sd
    error = spread / math.sqrt(sample.size)
    assert abs(float(np.mean(sample)) - expected) <= Z * error, (np.mean(sample), expected, error)


def assert_variance(sample: np.ndarray, expected: float, mu4: float | None = None) -> None:
    """The sample variance is within Z standard errors ``sqrt((mu_4 - sigma^4) / N)``."""
    centred = sample - np.mean(sample)
    fourth = float(np.mean(centred**4)) if mu4 is None else mu4
    error = math.sqrt(max(fourth - expected**2, 0.0) / sample.size)
    assert abs(float(np.var(sample, ddof=1)) - expected) <= Z * error, (
        np.var(sample, ddof=1),
        expected,
        error,
    )


def pair_dots(model: Independent, dim: int, count: int, seed: int) -> np.ndarray:
    """``count`` independent values of ``q.k``: row a of Q with row a of K."""
    queries, keys = model.sample(make_rng(seed), count, count, dim)
    return np.einsum("ij,ij->i", queries, keys)


def one_pair_per_call(model: Correlated | Projected, dim: int, seed: int) -> np.ndarray:
    rng = make_rng(seed)
    out = np.empty(N_CALLS)
    for m in range(N_CALLS):
        queries, keys = model.sample(rng, 1, 1, dim)
        out[m] = queries[0] @ keys[0]
    return out


# --- 1 and 2 --------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, 16])
def test_variance_d_for_normal_components(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=dim)
    var = dot_product_variance().evaluate(d=dim)
    kurtosis = normal_dot_product_kurtosis().evaluate(d=dim)
    assert_mean(sample, 0.0, sd=math.sqrt(var))
    assert_variance(sample, var, mu4=kurtosis * var**2)


def test_variance_d_for_non_normal_components() -> None:
    # Unit variances: U(-sqrt 3, sqrt 3) queries and Laplace(0, 1/sqrt 2) keys.
    model = Independent(Uniform(-math.sqrt(3), math.sqrt(3)), Laplace(0.0, 1 / math.sqrt(2)))
    sample = pair_dots(model, 8, N, seed=3)
    assert_variance(sample, dot_product_variance().evaluate(d=8))


def test_general_moments() -> None:
    model = Independent(Normal(0.5, 2.0), Uniform(-1.0, 3.0))  # key: mean 1, variance 4/3
    moments = {"d": 6, "mu_q": 0.5, "mu_k": 1.0}
    var = dot_product_variance_general().evaluate(**moments, sigma_q=2.0, sigma_k=math.sqrt(4 / 3))
    sample = pair_dots(model, 6, N, seed=4)
    assert_mean(sample, dot_product_mean().evaluate(**moments), sd=math.sqrt(var))
    assert_variance(sample, var)


def test_scaled_logit_has_unit_variance() -> None:
    sample = pair_dots(Independent(Normal(), Normal()), 64, N, seed=5) / 8.0
    assert_variance(sample, scaled_logit_variance().rhs, mu4=3 + 6 / 64)


# --- 3 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, 4])
def test_fourth_moment_of_normal_dot_product(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=10 + dim)
    step = next(s for s in normal_dot_product_kurtosis().steps if s.name == "fourth moment")
    assert_mean(sample**4, float(step.chain[-1].subs(d, dim)))


@pytest.mark.parametrize("dim", [1, 3])
def test_characteristic_function(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=20 + dim)
    cf = normal_dot_product_characteristic_function()
    for value in (0.4, 1.5):
        assert_mean(np.cos(value * sample), cf.evaluate(d=dim, t=value))


@pytest.mark.parametrize("dim", [1, 3, 16])
def test_density_gives_the_interval_probabilities(dim: int) -> None:
    sample = pair_dots(Independent(Normal(), Normal()), dim, N, seed=30 + dim)
    scale = math.sqrt(dim)
    for low, high in ((-0.25, 0.25), (0.5, 1.5), (1.5, 4.0)):
        a, b = low * scale, high * scale
        nodes = [a, 0.0, b] if a < 0 < b else [a, b]  # the d = 1 log singularity at 0
        p = float(mpmath.quad(lambda v: float(normal_dot_product_pdf(float(v), dim)), nodes))
        hits = ((sample > a) & (sample < b)).astype(float)
        assert_mean(hits, p, sd=math.sqrt(p * (1 - p)))


# --- 4 ------------------------------------------------------------------------------------------


def _counterexample(name: str, dim: int) -> float:
    step = next(s for s in chuang_propositions()[4].steps if s.name == name)
    return float(step.chain[-1].subs(d_k, dim))


@pytest.mark.parametrize("dim", [3, 8])
def test_chuang_counterexample_with_a_shared_sign(dim: int) -> None:
    rng = make_rng(40 + dim)
    queries = rng.standard_normal((N, dim))
    signs = rng.choice([-1.0, 1.0], size=(N, 1))
    keys = signs * queries
    # the covariances Proposition 5 lists are zero: Cov(q_1, k_1), Cov(q_1, k_2), Cov(k_1, k_2)
    for a, b in (
        (queries[:, 0], keys[:, 0]),
        (queries[:, 0], keys[:, 1]),
        (keys[:, 0], keys[:, 1]),
    ):
        assert_mean(a * b, 0.0)
    sample = np.einsum("ij,ij->i", queries, keys)
    assert_variance(sample, _counterexample("shared sign: variance", dim))  # d (d + 2), not d


def test_chuang_counterexample_with_one_sign_per_component() -> None:
    rng = make_rng(50)
    queries = rng.standard_normal((N, 8))
    keys = rng.choice([-1.0, 1.0], size=(N, 8)) * queries
    sample = np.einsum("ij,ij->i", queries, keys)
    assert_variance(sample, _counterexample("own signs: variance", 8))


@pytest.mark.parametrize("self_attention", [False, True])
def test_projected_variance_over_weights_and_tokens(self_attention: bool) -> None:
    # d_x = 2 makes the self-attention factor 1 + 2/d_x = 2 plain to see.
    model = Projected(d_x=2, sigma_x=1.3, sigma_wq=0.8, sigma_wk=1.1, self_attention=self_attention)
    sample = one_pair_per_call(model, 3, seed=60 + self_attention)
    values = {"d_x": 2, "d_k": 3, "sigma_x": 1.3, "sigma_wq": 0.8, "sigma_wk": 1.1}
    if self_attention:
        values["mu_4"] = 3 * 1.3**4
    var = projected_dot_variance(self_attention).evaluate(**values)
    assert_mean(sample, 0.0, sd=math.sqrt(var))
    assert_variance(sample, var)


@pytest.mark.parametrize("self_attention", [False, True])
def test_projected_moments_for_fixed_weights(self_attention: bool) -> None:
    rng = make_rng(70 + self_attention)
    w_q, w_k = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    # Uniform tokens on [-1, 1]: variance 1/3, fourth moment 1/5 (not normal).
    tokens = rng.uniform(-1.0, 1.0, size=(N, 3))
    other = tokens if self_attention else rng.uniform(-1.0, 1.0, size=(N, 3))
    sample = np.einsum("ij,ij->i", tokens @ w_q, other @ w_k)
    mean, var = projected_logit_moments(w_q, w_k, math.sqrt(1 / 3), 1 / 5, self_attention)
    assert_mean(sample, mean, sd=math.sqrt(var))
    assert_variance(sample, var)


# --- 5 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [2, 16])
def test_key_length_mean_and_variance(dim: int) -> None:
    _, keys = Independent(Normal(), Normal()).sample(make_rng(80 + dim), 1, N, dim)
    lengths = np.linalg.norm(keys, axis=1)
    var = key_length_variance().evaluate(d=dim)
    assert_mean(lengths, expected_key_length().evaluate(d=dim), sd=math.sqrt(var))
    assert_variance(lengths, var)


def test_k_total_against_n_sqrt_d() -> None:
    keys_per_set, dim, sets = 8, 16, 10_000
    _, keys = Independent(Normal(), Normal()).sample(make_rng(90), 1, keys_per_set * sets, dim)
    k_total = np.linalg.norm(keys, axis=1).reshape(sets, keys_per_set).sum(axis=1)
    derivation = k_total_approximation()
    assert_mean(k_total / (keys_per_set * math.sqrt(dim)), derivation.evaluate(d=dim))
    spread = next(s for s in derivation.steps if s.name == "relative spread").chain[1]
    relative = float(spread.subs({d: dim, n: keys_per_set}))
    mean = keys_per_set * expected_key_length().evaluate(d=dim)
    assert_variance(k_total, (relative * mean) ** 2)


# --- 7 ------------------------------------------------------------------------------------------


def test_correlated_moments_and_the_1_over_d_scale() -> None:
    value, dim = 0.6, 8
    sample = one_pair_per_call(Correlated(rho=value), dim, seed=100)
    var = correlated_dot_variance().evaluate(d=dim, rho=value)
    assert_mean(sample, correlated_dot_mean().evaluate(d=dim, rho=value), sd=math.sqrt(var))
    assert_variance(sample, var)
    assert_mean((sample / dim - value) ** 2, correlated_logit_scaling().evaluate(d=dim, rho=value))
