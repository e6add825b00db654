"""Library initializers re-implemented from their documented formulas, measured on unit-variance
tokens: sampled moments against the formulas, and the structure of each draw."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.random import make_rng
from attncore.simulate.initializers import DEFAULTS, INITIALIZERS, initializer_moments


@pytest.fixture(scope="module")
def table():
    return initializer_moments(32, 8, 300, 64, 5)


def test_sampled_variances_match_the_documented_formulas(table):
    for name, row in table.iterrows():
        z_w = (row["weight variance"] - row["weight variance (formula)"]) / row[
            "weight variance SE"
        ]
        assert abs(z_w) < 4, name
        for which in ("Q", "K"):
            z = (row[f"{which} variance"] - row["Q, K variance (formula)"]) / row[
                f"{which} variance SE"
            ]
            assert abs(z) < 4, (name, which)


def test_formulas_are_those_of_the_libraries():
    d_x, d_out = 64, 16
    assert INITIALIZERS["torch_linear"].variance(d_x, d_out) == pytest.approx(1 / (3 * 64))
    assert INITIALIZERS["torch_mha"].variance(d_x, d_x) == pytest.approx(1 / 128)
    assert INITIALIZERS["keras_dense"].variance(d_x, d_out) == pytest.approx(2 / 80)
    assert DEFAULTS == ["torch_linear", "torch_mha", "keras_dense"]


def test_draws_respect_the_uniform_bounds_and_shapes():
    rng = make_rng(0)
    wq, wk, bq, bk = INITIALIZERS["torch_linear"].draw(rng, 3, 16, 4)
    assert wq.shape == (3, 16, 4) and bq.shape == (3, 1, 4)
    drawn = np.concatenate([wq.ravel(), wk.ravel(), bq.ravel(), bk.ravel()])
    assert np.abs(drawn).max() <= 1 / math.sqrt(16)
    wq, wk, bq, _ = INITIALIZERS["torch_mha"].draw(rng, 3, 16, 4)
    assert wq.shape == (3, 16, 16) and not bq.any()  # in_proj is d_x -> d_x, bias zero
    assert np.abs(wq).max() <= math.sqrt(6 / 64) and not np.allclose(wq, wk)
    wq, _, bq, _ = INITIALIZERS["keras_dense"].draw(rng, 3, 16, 4)
    assert np.abs(wq).max() <= math.sqrt(6 / 20) and not bq.any()


def test_shared_bias_correlates_distinct_tokens_only_for_torch_linear():
    # Cov(q_ij, q_i'j) = Var(b_j) = 1/(3 d_x) against Var(q_ij) = (d_x + 1)/(3 d_x)
    t = initializer_moments(4, 4, 4000, 16, 2, ["torch_linear", "keras_dense"])
    assert t.loc["torch_linear", "largest |corr|"] == pytest.approx(1 / 5, abs=0.03)
    assert t.loc["torch_linear", "largest |cov z|"] > 10
    assert t.loc["keras_dense", "largest |cov z|"] < 4.5


def test_the_same_seed_gives_the_same_table():
    a = initializer_moments(8, 4, 20, 8, 9, ["blog_unit"])
    b = initializer_moments(8, 4, 20, 8, 9, ["blog_unit"])
    assert a.equals(b)


def test_unknown_initializers_are_refused():
    with pytest.raises(ParameterError, match="unknown initializers"):
        initializer_moments(8, 4, 20, 8, 0, ["xavier"])
