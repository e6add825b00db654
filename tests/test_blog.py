"""The blog post's worked example, recomputed, matches every digit it prints."""

import math
from dataclasses import replace

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.softmax import jacobian, jacobian_frobenius, softmax
from attncore.sources.blog import BLOG_WORKED_EXAMPLE as blog
from attncore.sources.blog import (
    digit_matches,
    example_factors,
    factor_sweep,
    worked_example,
)


def test_softmax_matches_printed_digits():
    y = np.array(blog.y)
    assert np.round(softmax(y), blog.decimals_softmax).tolist() == list(blog.softmax_y)
    scaled = np.round(softmax(blog.factor * y), blog.decimals_softmax)
    assert scaled.tolist() == list(blog.softmax_scaled)


@pytest.mark.parametrize(
    ("factor", "printed"), [(1.0, blog.jacobian_y), (blog.factor, blog.jacobian_scaled)]
)
def test_jacobian_matches_printed_digits(factor, printed):
    s = softmax(factor * np.array(blog.y))
    assert np.array_equal(np.round(jacobian(s), blog.decimals_jacobian), np.array(printed))


def test_jacobian_is_the_derivative_of_softmax():
    """diag(s) - s s^T against central finite differences of the softmax itself."""
    y, h = np.array(blog.y), 1e-6
    numeric = np.column_stack(
        [(softmax(y + h * e) - softmax(y - h * e)) / (2 * h) for e in np.eye(len(y))]
    )
    np.testing.assert_allclose(jacobian(softmax(y)), numeric, atol=1e-9)


@pytest.mark.parametrize("factor", [0.0, 1.0, 8.0, 100.0])
def test_closed_form_frobenius_norm_equals_the_matrix_norm(factor):
    s = softmax(factor * np.array(blog.y))
    assert jacobian_frobenius(s) == pytest.approx(np.linalg.norm(jacobian(s)), rel=1e-12)


def test_softmax_is_finite_where_the_naive_formula_overflows():
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp([710.0, 0.0]) / np.exp([710.0, 0.0]).sum()
    assert np.isnan(naive).any()
    stable = softmax([710.0, 0.0])
    assert np.isfinite(stable).all()
    np.testing.assert_allclose(stable, [1.0, math.exp(-710.0)], rtol=1e-12)


def test_digit_matches_for_the_posts_inputs():
    matches = digit_matches(blog.y, blog.factor)
    assert matches is not None and all(matches.values())
    assert list(matches) == [
        "softmax(y)",
        "softmax(8y)",
        "Jacobian of softmax(y)",
        "Jacobian of softmax(8y)",
    ]


@pytest.mark.parametrize(("y", "factor"), [([1.0, 2.0], 8.0), (blog.y, 7.0), (blog.y[:3], 8.0)])
def test_digit_matches_has_nothing_to_compare_for_other_inputs(y, factor):
    assert digit_matches(y, factor) is None


def test_digit_matches_notices_a_wrong_printed_digit():
    wrong = replace(blog, softmax_scaled=(0.008, 0.039, 0.004, 0.951))
    matches = digit_matches(blog.y, blog.factor, example=wrong)
    assert matches["softmax(8y)"] is False
    assert sum(matches.values()) == 3


def test_worked_example_returns_the_unrounded_outputs():
    example = worked_example([0.0, math.log(3.0)], 2.0)
    np.testing.assert_allclose(example["s"], [0.25, 0.75])
    np.testing.assert_allclose(example["s_scaled"], [0.1, 0.9])
    np.testing.assert_allclose(example["J_scaled"], jacobian(np.array([0.1, 0.9])))


def test_variance_ratio_is_the_square_of_the_factor_exactly():
    from attncore.sources.blog import variance_ratio

    assert variance_ratio(blog.y, blog.factor) == (64.0, 64.0)
    exact, approximate = variance_ratio([0.3, -1.7, 2.9], 0.1)
    assert exact == pytest.approx(0.01, rel=1e-15) and approximate == pytest.approx(0.01)


def test_variance_ratio_refuses_a_constant_vector():
    from attncore.sources.blog import variance_ratio

    with pytest.raises(ValueError, match="constant"):
        variance_ratio([1.0, 1.0], 8.0)


def test_scaled_variance_identity_for_several_sizes():
    from attncore.sources.blog import scaled_variance_identity

    assert scaled_variance_identity(2) and scaled_variance_identity(5)


@pytest.mark.parametrize("factor", [8.0, 1.0, 0.3, 3.7, 1000.0])
def test_the_factor_grid_holds_one_and_the_factor_and_spans_three_doublings_beyond(factor):
    grid = example_factors(factor)
    assert 1.0 in grid and factor in grid and np.all(np.diff(grid) > 0)
    assert grid[0] <= min(1.0, factor) / 8 and grid[-1] >= max(1.0, factor) * 8
    steps = np.diff(np.log2(grid))
    assert steps.max() <= 0.25 + 1e-12  # a quarter of a doubling at most


@pytest.mark.parametrize("factor", [8.0, 3.7])
def test_the_sweep_is_the_worked_example_at_one_and_at_the_factor(factor):
    sweep = factor_sweep(blog.y, example_factors(factor))
    for c, key in [(1.0, "s"), (factor, "s_scaled")]:
        row = sweep.index(c)
        expected = worked_example(blog.y, factor)[key]
        assert np.array_equal(sweep.probabilities[row], expected)
        assert sweep.jacobian_norm[row] == jacobian_frobenius(expected)
        assert sweep.max_probability[row] == expected.max()
        assert math.isclose(
            sweep.entropy_ratio[row], -np.sum(expected * np.log(expected)) / np.log(4)
        )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: example_factors(0.0), "factor must be a finite real number > 0"),
        (lambda: factor_sweep([1.0], [1.0]), "y must hold at least 2 logits"),
        (lambda: factor_sweep([1.0, 2.0], [1.0, -2.0]), "factor must be a finite real number > 0"),
        (lambda: factor_sweep([1.0, 2.0], [1.0]).index(2.0), "factor must be one of the sweep's"),
    ],
)
def test_bad_sweep_input_is_a_one_line_error(call, message):
    with pytest.raises(ParameterError, match=message):
        call()
