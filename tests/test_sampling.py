"""First component as intended and as published (the R code's column-by-column refill)."""

from __future__ import annotations

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.distributions import Independent
from attncore.engine import attention_metrics
from attncore.sampling import (
    BERNHARD_PANELS,
    bernhard_figures,
    first_component,
    published_matrix,
    simulate_bernhard_panel,
)
from attncore.seeding import make_rng


def test_published_sample_is_15_whole_queries_and_20_entries_of_the_16th():
    attention = np.arange(500 * 32, dtype=float).reshape(500, 32)  # entry = 32 query + key
    published = first_component(attention, as_published=True)
    np.testing.assert_array_equal(
        published, np.concatenate([attention[:15].ravel(), attention[15, :20]])
    )
    np.testing.assert_array_equal(first_component(attention), attention[:, 0])


def test_published_matrix_is_rs_column_major_refill():
    attention = np.arange(12.0).reshape(4, 3)
    # R: matrix(c(t(attention)), nrow = 4) fills column 1 with the first 4 values, ...
    expected = np.array([[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]], dtype=float)
    np.testing.assert_array_equal(published_matrix(attention), expected)


def test_panel_matches_the_engine_on_the_same_draw():
    panel = simulate_bernhard_panel(3, d=16, rescaling="k_total", n_queries=40, n_keys=8)
    queries, keys = Independent().sample(make_rng(3), 40, 8, 16)
    attention = attention_metrics(queries, keys, "k_total", columns=range(8)).columns
    np.testing.assert_allclose(panel.intended, attention[:, 0], rtol=1e-12)
    np.testing.assert_allclose(panel.published, attention.ravel()[:40], rtol=1e-12)


def test_raw_panel_holds_dot_products():
    panel = simulate_bernhard_panel(4, d=16, rescaling=None, n_queries=6, n_keys=3)
    queries, keys = Independent().sample(make_rng(4), 6, 3, 16)
    np.testing.assert_allclose(panel.intended, queries @ keys[0])
    np.testing.assert_allclose(panel.published, (queries @ keys.T).ravel()[:6])


def test_bernhard_figures_are_reproducible_and_drawn_in_sequence():
    first, second = bernhard_figures(seed=1000), bernhard_figures(seed=1000)
    assert list(first) == list(BERNHARD_PANELS)
    for panel in first:
        assert np.array_equal(first[panel].intended, second[panel].intended)
        assert first[panel].published.shape == (500,)
    assert not np.array_equal(first["2b"].intended, first["2c"].intended)
    assert (first["1a"].intended < 0).any() and (first["1b"].intended > 0).all()


def test_bad_input_gives_one_line_parameter_error():
    with pytest.raises(ParameterError, match=r"^attention must have 2 dimension") as error:
        first_component([1.0, 2.0])
    assert "\n" not in str(error.value)
    with pytest.raises(ParameterError, match=r"^d must be an integer >= 1, got 0$"):
        simulate_bernhard_panel(0, d=0, rescaling="sqrt_d")
