"""Row metrics and distortion against explicit-matrix and finite-difference references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from attncore.checks import ParameterError
from attncore.measures import (
    SATURATION_THRESHOLD,
    cosine_query_gradient_norm,
    distortion,
    extreme_share,
    max_probability,
    query_gradient_norm,
    saturated_share,
)
from attncore.random import make_rng
from attncore.softmax import jacobian, softmax


def numerical_jacobian(f, q: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences: column j is (f(q + h e_j) - f(q - h e_j)) / 2h."""
    columns = []
    for j in range(q.size):
        step = np.zeros_like(q)
        step[j] = h
        columns.append((f(q + step) - f(q - step)) / (2 * h))
    return np.stack(columns, axis=1)


def test_gradient_norm_matches_explicit_jacobian_and_finite_differences():
    rng = make_rng(10)
    keys, c = rng.standard_normal((6, 3)), 0.7
    queries = rng.standard_normal((4, 3))
    s = softmax(c * queries @ keys.T)
    explicit = [np.linalg.norm(c * jacobian(row) @ keys) for row in s]
    fd = [np.linalg.norm(numerical_jacobian(lambda x: softmax(c * keys @ x), q)) for q in queries]
    norms = query_gradient_norm(s, keys, factor=c)
    np.testing.assert_allclose(norms, explicit, rtol=1e-12)
    np.testing.assert_allclose(norms, fd, rtol=1e-6)


def test_gradient_norm_stays_accurate_in_saturated_rows():
    # Reference: rows s_i (k_i - kbar), with k_a - kbar = sum_j s_j (k_a - k_j) formed
    # explicitly around the largest key a, so no large terms cancel.
    rng = make_rng(11)
    keys = 3.0 * rng.standard_normal((8, 5))
    logits = rng.standard_normal((5, 8))
    logits[np.arange(5), [0, 3, 7, 7, 2]] += np.array([20.0, 25.0, 30.0, 40.0, 35.0])
    s = softmax(logits)
    assert s.max(axis=1).min() > 1 - 1e-7
    reference = []
    for row in s:
        shifted = keys - keys[row.argmax()]
        reference.append(np.linalg.norm(row[:, None] * (shifted - row @ shifted)))
    np.testing.assert_allclose(query_gradient_norm(s, keys), reference, rtol=1e-9)


def test_cosine_gradient_norm_matches_finite_differences():
    rng = make_rng(12)
    keys, g = rng.standard_normal((5, 4)), 2.5
    queries = rng.standard_normal((3, 4))

    def probabilities(q: np.ndarray) -> np.ndarray:
        cos = keys @ q / (np.linalg.norm(keys, axis=1) * np.linalg.norm(q))
        return softmax(g * cos)

    s = np.stack([probabilities(q) for q in queries])
    fd = [np.linalg.norm(numerical_jacobian(probabilities, q)) for q in queries]
    np.testing.assert_allclose(cosine_query_gradient_norm(s, queries, keys, g), fd, rtol=1e-6)


def test_dividing_by_k_total_shrinks_the_gradient_by_the_same_factor():
    rng = make_rng(13)
    keys, q = rng.standard_normal((16, 8)), rng.standard_normal((1, 8))
    k_total = np.linalg.norm(keys, axis=1).sum()
    s = softmax(q @ keys.T / k_total)
    at_unit = query_gradient_norm(s, keys)
    assert query_gradient_norm(s, keys, 1 / k_total) == pytest.approx(at_unit / k_total)


def test_largest_probability_and_saturated_share():
    s = np.array([[0.25, 0.25, 0.5], [0.0, 1.0, 0.0], [0.005, 0.99, 0.005]])
    np.testing.assert_array_equal(max_probability(s), [0.5, 1.0, 0.99])
    assert saturated_share(max_probability(s), threshold=0.9) == pytest.approx(2 / 3)
    assert saturated_share(max_probability(s), threshold=0.99) == pytest.approx(1 / 3)
    assert saturated_share(max_probability(s)) == saturated_share(
        max_probability(s), threshold=SATURATION_THRESHOLD
    )
    assert SATURATION_THRESHOLD == 0.9  # the one default of every saturation threshold


def test_distortion_uses_scipy_on_standardized_samples():
    rng = make_rng(14)
    before = rng.standard_normal(500)
    after = np.exp(before)
    result = distortion(before, after)
    z_after = (after - after.mean()) / after.std()
    assert result.skewness_change == pytest.approx(stats.skew(after) - stats.skew(before))
    assert result.kurtosis_change == pytest.approx(stats.kurtosis(after) - stats.kurtosis(before))
    assert result.wasserstein == pytest.approx(
        stats.wasserstein_distance((before - before.mean()) / before.std(), z_after)
    )
    assert 0 < result.ks_statistic < 1 and result.ks_pvalue < 1e-6


@pytest.mark.filterwarnings("ignore:ks_2samp. Exact calculation unsuccessful")
def test_distortion_ignores_location_and_scale():
    before = make_rng(15).standard_normal(300)
    result = distortion(before, 5.0 * before - 2.0)
    assert result.wasserstein == pytest.approx(0.0, abs=1e-12)
    assert result.skewness_change == pytest.approx(0.0, abs=1e-12)
    assert result.kurtosis_change == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: max_probability([0.5, 0.6]), r"^s must be probability vectors"),
        (lambda: saturated_share([0.5], threshold=1.0), r"^threshold must be .* in \(0, 1\)"),
        (lambda: saturated_share([0.5], threshold=math.nan), r"^threshold must be a finite"),
        (lambda: query_gradient_norm([0.5, 0.5], np.ones((3, 2))), r"^s must have one column"),
        (lambda: query_gradient_norm([0.5, 0.5], np.ones((2, 2)), math.inf), r"^factor must"),
        (
            lambda: cosine_query_gradient_norm([[0.5, 0.5]], np.zeros((1, 2)), np.eye(2), 1.0),
            r"^queries must have rows of length > 0 for cosines, row 0 is 0$",
        ),
        (
            lambda: cosine_query_gradient_norm([[0.5, 0.5]], np.ones((1, 3)), np.eye(2), 1.0),
            r"^queries must have shape \(1, 2\)",
        ),
        (lambda: distortion([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]), r"^before must not be constant"),
        (lambda: distortion([1.0, 2.0, 3.0], [1.0, 2.0]), r"^after must have at least 3"),
        (lambda: distortion([1.0, np.nan, 3.0], [1.0, 2.0, 3.0]), r"^before must contain only"),
    ],
)
def test_bad_input_gives_one_line_parameter_error(call, message):
    with pytest.raises(ParameterError, match=message) as error:
        call()
    assert "\n" not in str(error.value)


def test_extreme_share_counts_components_near_zero_or_one():
    n = 10
    components = np.array([0.5 / 100, 0.011, 0.1, 0.95, 0.9])
    # below 1/(10 n) = 0.01: the first; above 0.9: the fourth (0.9 itself is not above)
    assert extreme_share(components, n) == pytest.approx(2 / 5)
    assert extreme_share(components, n, threshold=0.5) == pytest.approx(3 / 5)
    assert extreme_share(components, n, near_zero=0.5) == pytest.approx(3 / 5)
    uniform = np.full((4, n), 1 / n)
    assert extreme_share(uniform, n) == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 1}, r"^n must be an integer >= 2"),
        ({"n": True}, r"^n must be an integer >= 2"),
        ({"n": 4, "near_zero": 1.5}, r"^near_zero must be a real number in \(0, 1\)"),
        ({"n": 4, "threshold": 0.0}, r"^threshold must be"),
    ],
)
def test_extreme_share_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        extreme_share([0.5], **kwargs)
