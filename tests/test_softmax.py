"""Bounds of exp per floating-point format, against the formats' own descriptions."""

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.softmax import FLOAT_FORMATS, exp_overflow_bound


@pytest.mark.parametrize("name", ["float64", "float32", "float16"])
def test_overflow_bound_is_ln_of_numpys_largest_finite(name):
    largest = np.finfo(np.dtype(name)).max
    assert exp_overflow_bound(name) == pytest.approx(float(np.log(np.float64(largest))), rel=1e-12)


@pytest.mark.parametrize("name", ["float64", "float32", "float16"])
def test_exp_overflows_between_the_integers_around_the_bound(name):
    dtype, whole = np.dtype(name), np.floor(exp_overflow_bound(name))
    with np.errstate(over="ignore"):
        assert np.isfinite(np.exp(np.asarray(whole, dtype=dtype)))
        assert np.isinf(np.exp(np.asarray(whole + 1, dtype=dtype)))


def test_bfloat16_has_the_exponent_range_of_float32():
    assert exp_overflow_bound("bfloat16") == pytest.approx(88.72, abs=0.005)
    torch = pytest.importorskip("torch")
    largest = float(torch.finfo(torch.bfloat16).max)
    assert exp_overflow_bound("bfloat16") == pytest.approx(np.log(largest), rel=1e-12)
    assert exp_overflow_bound("float16") == pytest.approx(11.09, abs=0.005)


def test_double_precision_bound_is_chuangs_709():
    assert np.floor(exp_overflow_bound("float64")) == 709
    with np.errstate(over="ignore"):
        assert np.isfinite(np.exp(709.0)) and np.isinf(np.exp(710.0))


def test_unknown_format_names_the_known_ones():
    with pytest.raises(ParameterError, match="name must be one of " + ", ".join(FLOAT_FORMATS)):
        exp_overflow_bound("float8")
