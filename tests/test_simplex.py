"""Chen et al.'s model simulated, against the exact-simplex derivation and by Monte Carlo.

Three routes meet here: the simulation (tokens, logits, softmax, outputs, angles), the sympy
derivation of the exact simplex (attncore.symbolic.critical), and, for the random
almost-simplex, the self weight the exact simplex would have once the perturbation's
moment generating function is averaged in. The last is only a test oracle: for two
independent uniform directions of R^m, E[exp(b <z, z'>)] = 0F1(; m/2; b^2/4) (the
normalising constant of the von Mises-Fisher law), so the others' weight in row i is, on
average over the directions, (n - 1) exp(-b) 0F1(; m/2; b^2/4) with b = beta (1 - rho).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy.special import hyp0f1

from attncore.checks import ParameterError
from attncore.random import stream
from attncore.simulate.simplex import (
    attention_layer,
    critical_sweep,
    dimension_sweep,
    gradient_gain,
    gradient_sweep,
    normalise,
    pair_angles,
    random_directions,
    registry_gamma,
    simplex_tokens,
)
from attncore.symbolic.critical import (
    critical_gamma,
    critical_self_weight,
    limit_angle_cosine,
    limit_angle_ratio,
    simplex_self_weight,
)


def exact_angle_ratio(n: int, beta: float, rho: float) -> float:
    """The finite-n angle ratio of the exact simplex from the derivation's own expression
    (inner product over squared norm, before the limit), at the derived self weight."""
    weight = simplex_self_weight().evaluate(n=n, beta=beta, rho=rho)
    cosine = limit_angle_cosine().steps[0].chain[-1]
    values = {s.name: s for s in cosine.free_symbols}
    spread = (1 - weight) / (n - 1)
    value = cosine.subs(
        {values["n"]: n, values["p"]: weight, values["q"]: spread, values["rho"]: rho}
    )
    return math.acos(float(value)) / math.acos(rho)


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("gamma", [0.3, 1.0, 2.5])
def test_the_simulated_exact_simplex_is_the_derivation_to_rounding(rho, gamma):
    n = 64
    beta = gamma * math.log(n)
    [point] = attention_layer(simplex_tokens(np.eye(n), rho), [beta], n_probes=n)
    assert point.self_weight == pytest.approx(
        simplex_self_weight().evaluate(n=n, beta=beta, rho=rho), rel=1e-12
    )
    assert point.angle_ratio == pytest.approx(exact_angle_ratio(n, beta, rho), rel=1e-9)


@pytest.mark.parametrize("rho", [0.2, 0.6])
def test_the_finite_n_self_weight_tends_to_the_derived_limits(rho):
    """At n = 10^12 the closed form is within 0.01 of 0, 1/2 and 1 below, at and above the
    critical scale (the distance falls like n to a power, so 10^12 is far enough)."""
    gamma_c = critical_gamma().evaluate(rho=rho)
    assert gamma_c == pytest.approx(1 / (1 - rho))
    limits = [case.args[0] for case in critical_self_weight().rhs.args]
    for gamma, limit in zip([gamma_c / 2, gamma_c, 2 * gamma_c], limits, strict=True):
        n = 10**12
        weight = simplex_self_weight().evaluate(n=n, beta=gamma * math.log(n), rho=rho)
        assert weight == pytest.approx(float(limit), abs=0.01)


def test_the_limit_angle_ratio_is_the_finite_n_ratio_for_large_n():
    n, rho = 10**6, 0.4
    for gamma in [0.9, 1 / (1 - rho), 2.0]:
        beta = gamma * math.log(n)
        weight = simplex_self_weight().evaluate(n=n, beta=beta, rho=rho)
        limit = limit_angle_ratio().evaluate(rho=rho, p=weight)
        assert exact_angle_ratio(n, beta, rho) == pytest.approx(limit, abs=1e-3)


def annealed_self_weight(n: int, beta: float, rho: float, d: int) -> float:
    b = beta * (1 - rho)
    return 1 / (1 + (n - 1) * math.exp(-b) * hyp0f1((d - 1) / 2, b * b / 4))


@pytest.mark.parametrize("d", [64, 1024])
@pytest.mark.parametrize("gamma", [1.0, 2.0, 3.0])
def test_monte_carlo_self_weight_meets_the_averaged_simplex_within_standard_errors(d, gamma):
    """The random almost-simplex: its mean self weight over 20 draws lies within 4 standard
    errors of the exact simplex's with the perturbation averaged in (the average over the
    directions is taken inside the denominator: its error is of order 1/n, below the
    standard error here)."""
    n, rho = 256, 0.5
    beta = gamma * math.log(n)
    weights = [
        attention_layer(
            simplex_tokens(random_directions(n, d - 1, stream(3, d, draw)), rho), [beta], 16
        )[0].self_weight
        for draw in range(20)
    ]
    se = np.std(weights, ddof=1) / math.sqrt(len(weights))
    expected = annealed_self_weight(n, beta, rho, d)
    assert abs(np.mean(weights) - expected) <= 4 * se
    exact = simplex_self_weight().evaluate(n=n, beta=beta, rho=rho)
    assert abs(np.mean(weights) - exact) > 4 * se  # the perturbation is seen: not a vacuous test


def test_the_perturbation_fades_as_d_grows_like_one_over_d():
    n, rho, beta = 256, 0.5, 2 * math.log(256)
    exact = simplex_self_weight().evaluate(n=n, beta=beta, rho=rho)
    gaps = [abs(annealed_self_weight(n, beta, rho, d) - exact) for d in (64, 256, 1024)]
    assert gaps[0] / gaps[1] == pytest.approx(4, rel=0.1)
    assert gaps[1] / gaps[2] == pytest.approx(4, rel=0.1)


def test_tokens_have_norm_sqrt_d_and_pairwise_correlation_rho_on_average():
    directions = random_directions(400, 255, stream(1, 0))
    y = normalise(simplex_tokens(directions, 0.3))
    inner = (y @ y.T)[np.triu_indices(400, k=1)]
    assert np.allclose(np.linalg.norm(simplex_tokens(directions, 0.3), axis=1), 16.0)
    assert inner.mean() == pytest.approx(0.3, abs=4 * inner.std() / math.sqrt(inner.size / 400))
    assert inner.std() == pytest.approx(0.7 / math.sqrt(255), rel=0.05)


def test_angles_are_accurate_where_arccos_is_not():
    tiny = 1e-10
    pair = np.array([[1.0, 0.0], [math.cos(tiny), math.sin(tiny)]])
    assert pair_angles(pair)[0] == pytest.approx(tiny, rel=1e-6)
    assert math.acos(float(pair[0] @ pair[1])) == 0.0  # the naive route loses it entirely


def test_the_attention_depends_on_rho_and_gamma_only_through_gamma_times_one_minus_rho():
    """Softmax ignores the shift rho shared by every logit of a row: the self weight at
    (rho, gamma) is the one at (rho', gamma (1 - rho)/(1 - rho')); a check of the direct route."""
    directions = random_directions(128, 31, stream(2, 0))
    first = attention_layer(simplex_tokens(directions, 0.2), [1.5 * math.log(128)], 8)[0]
    second = attention_layer(simplex_tokens(directions, 0.6), [1.5 * 0.8 / 0.4 * math.log(128)], 8)[
        0
    ]
    assert first.self_weight == pytest.approx(second.self_weight, rel=1e-10)
    assert first.angle_ratio != pytest.approx(second.angle_ratio, rel=1e-3)  # angles differ


def test_registry_factors_become_gamma():
    assert registry_gamma("sqrt_d", 4096, 64) == pytest.approx(8 / math.log(4096))
    assert registry_gamma("log_n", 4096, 64) == pytest.approx(8.0)
    assert registry_gamma("none", 512, 16) == pytest.approx(16 / math.log(512))


def test_the_sweep_does_not_depend_on_the_other_n_nor_on_the_order():
    common = dict(rho_values=[0.3, 0.7], gamma_values=[0.5, 2.0], d=8, n_draws=2, n_probes=4)
    both = critical_sweep([16, 32], seed=5, **common, scheduler="synchronous")
    alone = critical_sweep([32], seed=5, **common, scheduler="synchronous")
    assert both[both["n"] == 32].reset_index(drop=True).equals(alone)
    assert set(both["scale"]) == {"grid", "sqrt_d", "log_n"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"n_values": []}, "n_values must name"),
        ({"rho_values": [1.0]}, "rho_values must be"),
        ({"gamma_values": [-1.0]}, "gamma_values must be"),
        ({"n_probes": 40}, "n_probes must be at most the smallest n"),
        ({"d": 1}, "d must be an integer >= 2"),
        ({"rescalings": ["sqrt"]}, "rescaling must be one of"),
    ],
)
def test_bad_arguments_are_one_line_errors(arguments, message):
    call = dict(
        n_values=[32], rho_values=[0.5], gamma_values=[1.0], d=8, n_draws=1, n_probes=4, seed=0
    )
    with pytest.raises(ParameterError, match=message):
        critical_sweep(**{**call, **arguments})


def _jacobian_by_differences(y: np.ndarray, i: int, beta: float, step: float = 1e-6) -> np.ndarray:
    """The Jacobian of output ``i`` with respect to ``y_i`` along the sphere, column by column
    from central differences of the layer itself along an orthonormal basis of the tangent."""

    def output(y_i: np.ndarray) -> np.ndarray:
        tokens = y.copy()
        tokens[i] = y_i
        logits = beta * tokens @ y_i
        weights = np.exp(logits - logits.max())
        return weights @ tokens / weights.sum()

    tangent = np.linalg.svd(np.eye(len(y[i])) - np.outer(y[i], y[i]))[0][:, :-1]
    columns = [(output(y[i] + step * t) - output(y[i] - step * t)) / (2 * step) for t in tangent.T]
    return np.array(columns).T


@pytest.mark.parametrize("beta", [0.5, 6.0, 40.0])
def test_the_gradient_gain_is_the_differenced_jacobian_of_the_layer(beta):
    """With the vectors sqrt(d) e_1 ... sqrt(d) e_d, Hutchinson's estimate is exact: the gain
    is then the RMS singular value of the Jacobians the layer's own differences give."""
    rng = np.random.default_rng(3)
    n, d, probes = 40, 6, 3
    y = normalise(simplex_tokens(random_directions(n, d - 1, rng), rho=0.4))
    basis = np.broadcast_to(math.sqrt(d) * np.eye(d), (probes, d, d))
    squares = [np.sum(_jacobian_by_differences(y, i, beta) ** 2) for i in range(probes)]
    expected = math.sqrt(sum(squares) / (probes * (d - 1)))
    assert gradient_gain(y, [beta], basis)[0] == pytest.approx(expected, rel=1e-7)


def test_random_vectors_estimate_the_gain_within_standard_errors():
    rng = np.random.default_rng(4)
    n, d, probes, k, beta = 64, 8, 4, 4000, 5.0
    y = normalise(simplex_tokens(random_directions(n, d - 1, rng), rho=0.5))
    jacobians = []
    for i in range(probes):
        j = _jacobian_by_differences(y, i, beta)  # d x (d - 1), on a basis of the tangent
        jacobians.append(j.T @ j)
    exact = sum(np.trace(m) for m in jacobians) / (probes * (d - 1))
    # each ||J v||^2 for standard normal v has variance 2 tr((J^T J)^2)
    se = math.sqrt(sum(2 * np.trace(m @ m) / k for m in jacobians)) / (probes * (d - 1))
    estimate = gradient_gain(y, [beta], rng.standard_normal((probes, d, k)))[0] ** 2
    assert abs(estimate - exact) < 4 * se


def test_the_gain_is_one_at_the_identity_and_falls_with_d_below_the_critical_scale():
    table = gradient_sweep(512, [0.5], [0.25, 8.0], [16, 256], 2, 4, seed=2, n_vectors=64)
    gain = table.groupby(["factor", "d"])["gain"].mean()
    assert gain[8.0].to_numpy() == pytest.approx(1.0, abs=0.04)  # the estimate's sd: 1 % at d = 16
    assert gain[0.25, 256] < gain[0.25, 16] / 4


def test_the_sweeps_across_d_draw_the_tokens_of_the_sweep_at_each_d():
    common = dict(rho_values=[0.3, 0.7], n_draws=2, n_probes=4, seed=5)
    across = dimension_sweep(32, gamma_values=[0.5, 2.0], d_values=[8, 12], **common)
    for d in (8, 12):
        alone = critical_sweep([32], gamma_values=[0.5, 2.0], d=d, rescalings=(), **common)
        assert across[across["d"] == d].drop(columns="d").reset_index(drop=True).equals(alone)
    both = gradient_sweep(32, factors=[0.5, 2.0], d_values=[12, 8], **common)
    one = gradient_sweep(32, factors=[0.5, 2.0], d_values=[8], **common)
    assert both[both["d"] == 8].reset_index(drop=True).equals(one)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"d_values": []}, "d_values must name"),
        ({"d_values": [8, 8]}, "d_values must name"),
        ({"factors": [0.0]}, "factors must be"),
        ({"n_probes": 40}, "n_probes must be at most n"),
        ({"n_vectors": 0}, "n_vectors must be"),
    ],
)
def test_bad_gradient_arguments_are_one_line_errors(arguments, message):
    call = dict(n=32, rho_values=[0.5], factors=[1.0], d_values=[8], n_draws=1, n_probes=4, seed=0)
    with pytest.raises(ParameterError, match=message):
        gradient_sweep(**{**call, **arguments})


def test_bad_tokens_are_refused():
    with pytest.raises(ParameterError, match="rho must be in"):
        simplex_tokens(np.eye(3), 1.0)
    with pytest.raises(ParameterError, match="unit vectors"):
        simplex_tokens(2 * np.eye(3), 0.5)
    with pytest.raises(ParameterError, match="rows of length > 0"):
        normalise(np.zeros((2, 3)))
    with pytest.raises(ParameterError, match="n_probes must be at most"):
        attention_layer(np.eye(3), [1.0], n_probes=4)
    with pytest.raises(ParameterError, match="vectors must have shape"):
        gradient_gain(np.eye(3), [1.0], np.ones((4, 3, 2)))


def test_the_derivations_state_their_assumptions():
    for derivation in (simplex_self_weight(), critical_self_weight(), critical_gamma()):
        assert any("simplex" in a for a in derivation.assumptions)
    assert any(r"\gamma \ln n" in a for a in critical_gamma().assumptions)
    assert sp.simplify(critical_gamma().rhs * (1 - sp.Symbol("rho", positive=True))) == 1
