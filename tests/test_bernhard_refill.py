"""First component as intended and as published (the R code's column-by-column refill)."""

from __future__ import annotations

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.sources.bernhard_refill import first_component, published_matrix


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


def test_bad_input_gives_one_line_parameter_error():
    with pytest.raises(ParameterError, match=r"^attention must have 2 dimension") as error:
        first_component([1.0, 2.0])
    assert "\n" not in str(error.value)
