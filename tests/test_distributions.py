"""Distributions and query/key models: exact moments against Monte Carlo, seeds, bad input.

Tolerances come from standard errors: a Monte Carlo mean passes if
``|mean_hat - mean| <= Z sqrt(var / N)`` and a sample variance if
``|var_hat - var| <= Z sqrt((m4_hat - var_hat^2) / N)``, with ``m4_hat`` the sample fourth
central moment (the large-N standard error of the sample variance). ``Z = 4`` gives a
two-sided false-alarm rate of 6.3e-5 per check (the seeds are fixed, so a run is
deterministic; the rate says how lucky a seed would have to be to pass a wrong formula).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.distributions import (
    Correlated,
    Independent,
    Laplace,
    Normal,
    Projected,
    StudentT,
    Uniform,
)
from attncore.random import make_rng

Z = 4.0

COMPONENTS = [
    Normal(0.5, 2.0),
    Uniform(-1.0, 3.0),
    Laplace(0.3, 1.5),
    StudentT(df=10.0, loc=0.2, scale=0.7),
]


def assert_moments(sample: np.ndarray, mean: float, var: float) -> None:
    n = sample.size
    mean_hat, var_hat = sample.mean(), sample.var(ddof=1)
    m4_hat = np.mean((sample - mean_hat) ** 4)
    assert abs(mean_hat - mean) <= Z * math.sqrt(var / n), (mean_hat, mean)
    assert abs(var_hat - var) <= Z * math.sqrt((m4_hat - var_hat**2) / n), (var_hat, var)


@pytest.mark.parametrize("dist", COMPONENTS, ids=lambda dist: dist.label)
def test_component_moments_match_monte_carlo(dist):
    assert_moments(dist.sample(make_rng(1), (200_000,)), dist.mean, dist.var)


@pytest.mark.parametrize("query", COMPONENTS, ids=lambda dist: dist.label)
@pytest.mark.parametrize("key", [Normal(1.0, 0.5), Laplace(-0.5, 1.0)], ids=["N", "Laplace"])
def test_independent_dot_moments_match_monte_carlo(query, key):
    model, d, n = Independent(query, key), 4, 100_000
    queries, keys = model.sample(make_rng(2), n, n, d)
    dots = np.einsum("ij,ij->i", queries, keys)  # pairs (q_i, k_i) are independent
    assert_moments(dots, model.dot_mean(d), model.dot_var(d))


@pytest.mark.parametrize("rho", [-0.7, 0.0, 0.4, 1.0])
def test_correlated_dot_moments_match_monte_carlo(rho):
    # Coordinates are iid (z is drawn per coordinate), so one draw with d = 4 n gives n
    # independent dot products of dimension 4 by summing groups of 4 coordinates.
    model, d, n = Correlated(rho), 4, 50_000
    queries, keys = model.sample(make_rng(3), 1, 1, d * n)
    dots = (queries[0] * keys[0]).reshape(n, d).sum(axis=1)
    assert_moments(dots, model.dot_mean(d), model.dot_var(d))


@pytest.mark.parametrize("rho", [-0.6, 0.3])
def test_correlated_covariance_structure(rho):
    n = 100_000
    queries, keys = Correlated(rho).sample(make_rng(4), 2, 2, n)  # coordinates iid
    cov = np.cov(np.vstack([queries, keys]))  # rows q0, q1, k0, k1
    expected = np.array(
        [
            [1.0, abs(rho), rho, rho],
            [abs(rho), 1.0, rho, rho],
            [rho, rho, 1.0, abs(rho)],
            [rho, rho, abs(rho), 1.0],
        ]
    )
    # Var(xy) <= 2 for unit-variance normals, hence the standard error sqrt(2 / n).
    np.testing.assert_allclose(cov, expected, rtol=0, atol=Z * math.sqrt(2.0 / n))


@pytest.mark.parametrize(
    "model",
    [
        Projected(d_x=3, sigma_x=1.5, sigma_wq=0.8, sigma_wk=1.2),
        Projected(d_x=3, sigma_x=1.5, sigma_wq=0.8, sigma_wk=1.2, self_attention=True),
    ],
    ids=["different tokens", "same token"],
)
def test_projected_dot_moments_match_monte_carlo(model):
    # W is shared by all tokens of one call: independent pairs need independent calls.
    d, n, rng = 2, 6_000, make_rng(5)
    dots = np.empty(n)
    for i in range(n):
        queries, keys = model.sample(rng, 1, 1, d)
        dots[i] = queries[0] @ keys[0]
    assert_moments(dots, model.dot_mean(d), model.dot_var(d))


def test_projected_variances_are_chuangs_and_the_fourth_moment():
    d, d_x, s_x, s_q, s_k = 16, 8, 0.5, 2.0, 3.0
    cross = Projected(d_x, s_x, s_q, s_k)
    same = Projected(d_x, s_x, s_q, s_k, self_attention=True)
    chuang = (d_x * s_x**2 * s_q**2) * (d_x * s_x**2 * s_k**2) * d
    assert cross.dot_var(d) == pytest.approx(chuang)
    assert same.dot_var(d) == pytest.approx(chuang * (d_x + 2) / d_x)


def test_self_attention_keys_are_the_query_tokens():
    model = Projected(d_x=5, self_attention=True)
    queries, keys = model.sample(make_rng(6), 3, 3, 4)
    rng = make_rng(6)  # the documented order: W_q, W_k, then the tokens
    w_q, w_k, x = rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), rng.normal(size=(3, 5))
    np.testing.assert_allclose(queries, x @ w_q)
    np.testing.assert_allclose(keys, x @ w_k)


def test_heavy_tails_have_infinite_or_missing_moments():
    assert StudentT(df=2.0).var == math.inf
    assert math.isnan(StudentT(df=1.0).mean)
    assert StudentT(df=3.0).var == pytest.approx(3.0)
    assert Independent(StudentT(df=1.5), Normal()).dot_var(8) == math.inf
    assert math.isnan(Independent(StudentT(df=0.5), Normal()).dot_mean(8))


MODELS = [
    Independent(),
    Independent(Laplace(), StudentT(df=3.0)),
    Correlated(0.5),
    Projected(d_x=6),
    Projected(d_x=6, self_attention=True),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.label)
def test_same_seed_gives_bit_identical_draws(model):
    first = model.sample(make_rng(7), 4, 4, 3)
    second = model.sample(make_rng(7), 4, 4, 3)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    assert not np.array_equal(first[0], model.sample(make_rng(8), 4, 4, 3)[0])


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Normal(sd=0.0), r"sd must be a finite real number > 0, got 0\.0"),
        (lambda: Normal(sd=-1.0), r"sd must be a finite real number > 0"),
        (lambda: Normal(mean=math.nan), r"mean must be a finite real number, got nan"),
        (lambda: Normal(mean=math.inf), r"mean must be a finite real number, got inf"),
        (lambda: Uniform(2.0, 1.0), r"high must be > low \(2\.0\), got 1\.0"),
        (lambda: Uniform(0.0, math.inf), r"high must be a finite real number"),
        (lambda: Laplace(scale=0.0), r"scale must be a finite real number > 0"),
        (lambda: StudentT(df=0.0), r"df must be a finite real number > 0"),
        (lambda: StudentT(df=math.nan), r"df must be a finite real number"),
        (lambda: Correlated(1.01), r"rho must be a real number in \[-1, 1\]"),
        (lambda: Correlated(math.nan), r"rho must be a finite real number"),
        (lambda: Projected(d_x=0), r"d_x must be an integer >= 1, got 0"),
        (lambda: Projected(d_x=2, sigma_wq=math.inf), r"sigma_wq must be a finite real"),
        (lambda: Independent().sample(make_rng(0), 0, 2, 2), r"n_queries must be .* >= 1"),
        (lambda: Independent().sample(make_rng(0), 2, 2.0, 2), r"n_keys must be an integer"),
        (lambda: Independent().sample(make_rng(0), 2, 2, -3), r"d must be an integer >= 1"),
        (lambda: Independent().dot_var(1.5), r"d must be an integer >= 1, got 1\.5"),
        (lambda: Correlated(0.2).dot_mean(0), r"d must be an integer >= 1, got 0"),
        (
            lambda: Projected(d_x=2, self_attention=True).sample(make_rng(0), 3, 4, 2),
            r"n_keys must equal n_queries \(3\) when self_attention=True, got 4",
        ),
    ],
)
def test_bad_input_gives_one_line_parameter_error(make, message):
    with pytest.raises(ParameterError, match=message) as error:
        make()
    assert "\n" not in str(error.value)


def test_key_second_moment_matches_a_large_sample():
    from attncore.distributions import key_second_moment

    rng = np.random.default_rng(0)
    for model in [
        Independent(Normal(1.0, 2.0), Normal(1.0, 2.0)),
        Independent(Laplace(), Laplace()),
    ]:
        _, keys = model.sample(rng, 2, 20000, 4)
        assert abs((keys**2).mean() / key_second_moment(model) - 1) < 0.05
