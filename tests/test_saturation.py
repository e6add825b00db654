"""The saturation curve against a plain loop over rows."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.random import make_rng
from attncore.simulate.saturation import saturation_curve


def loop_reference(spread, n_keys, n_rows, seed, threshold):
    z = make_rng(seed).standard_normal((n_rows, n_keys))
    rows = []
    for row in z:
        e = [math.exp(spread * v - spread * max(row)) for v in row]
        s = [v / sum(e) for v in e]
        sq = sum(p * p for p in s)
        rows.append(
            (
                -sum(p * math.log(p) for p in s if p > 0) / math.log(n_keys),
                max(s),
                1 / sq,
                math.sqrt(sum(p * p for p in s) - 2 * sum(p**3 for p in s) + sq * sq),
                float(max(s) > threshold),
            )
        )
    return np.mean(rows, axis=0)


@pytest.mark.parametrize("spread", [0.1, 1.0, 7.0])
def test_vectorized_curve_equals_loop(spread):
    curve = saturation_curve([spread], n_keys=5, n_rows=30, seed=3, threshold=0.5).iloc[0]
    expected = loop_reference(spread, 5, 30, 3, 0.5)
    columns = ["entropy_ratio", "max_probability", "effective_keys", "jacobian_norm", "saturated"]
    np.testing.assert_allclose(curve[columns].to_numpy(float), expected, rtol=1e-10)


def test_same_seed_same_numbers_bit_for_bit():
    a = saturation_curve([0.5, 2.0], n_keys=16, n_rows=100, seed=11)
    b = saturation_curve([0.5, 2.0], n_keys=16, n_rows=100, seed=11)
    assert a.equals(b)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"spreads": [0.0]}, "spreads must all be > 0"),
        ({"spreads": [float("nan")]}, "spreads must contain only finite numbers"),
        ({"n_keys": 1}, "n_keys must be an integer >= 2"),
        ({"n_rows": 2.5}, "n_rows must be an integer >= 2"),
        ({"threshold": 1.0}, "threshold must be a real number in (0, 1)"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, message):
    args = {"spreads": [1.0], "n_keys": 4, "n_rows": 10, "seed": 0, **kwargs}
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        saturation_curve(**args)
