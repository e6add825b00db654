"""Hostile but finite arrays: the library returns a correct finite result or a ParameterError,
never a silent NaN, inf or wrong number."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncore.checks import ParameterError
from attncore.rescalings import get_rescaling, row_norms
from attncore.simulate.engine import attention_metrics
from attncore.softmax import softmax

RNG = np.random.default_rng(0)
Q, K = RNG.standard_normal((40, 16)), RNG.standard_normal((8, 16))


@settings(max_examples=60, deadline=None)
@given(
    exponent=st.integers(min_value=-300, max_value=300),
    rescaling=st.sampled_from(["sqrt_d", "k_total", "qk_norm", "none", "mup"]),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_scaled_queries_and_keys_give_finite_metrics_or_one_error(exponent, rescaling, dtype):
    scale = 10.0**exponent
    try:
        metrics = attention_metrics(Q * scale, K * scale, rescaling, dtype=dtype)
    except ParameterError as error:
        assert "overflow" in str(error) or "must" in str(error)
        return
    for value in (metrics.entropy, metrics.max_probability, metrics.jacobian_frobenius):
        assert np.isfinite(value).all()
    if rescaling == "qk_norm":  # a cosine does not depend on the scale
        reference = attention_metrics(Q, K, rescaling, dtype=dtype)
        assert np.allclose(metrics.max_probability, reference.max_probability, rtol=1e-4)


def test_a_huge_constant_factor_is_an_error_not_nan():
    with pytest.raises(ParameterError, match="overflow float64"):
        attention_metrics(Q, K, get_rescaling("constant", beta=1e308))


def test_half_precision_softmax_of_a_long_row_sums_to_one():
    s = softmax(np.zeros(70_000, np.float16))
    assert s.dtype == np.float16 and abs(float(s.astype(np.float64).sum()) - 1) < 1e-2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: softmax([[1.0, 2.0], [3.0]]), "rectangular"),
        (lambda: softmax([1.0, 2.0], axis=3), "axis must be an integer"),
        (lambda: row_norms("queries", np.zeros((1, 3))), "length > 0"),
    ],
)
def test_bad_arrays_are_one_line_errors(call, message):
    with pytest.raises(ParameterError, match=message):
        call()


def test_norms_of_huge_and_tiny_rows_are_right():
    rows = np.array([[3e200, 4e200], [3e-200, 4e-200]])
    assert np.allclose(row_norms("rows", rows), [5e200, 5e-200])
