"""Logits of grown, fixed and structured projection weights against Chuang's formula."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.random import spawn
from attncore.simulate.weights import (
    conditional_logit_variances,
    growth_exponent,
    structured_weight_table,
    weight_growth_table,
)


@pytest.fixture(scope="module")
def table():
    return weight_growth_table(
        32, 8, 16, 400, [1.0, 1.5, 2.0, 3.0], ["sqrt_d", "qk_norm", "k_total"], iter(spawn(3, 4))
    )


def test_sqrt_d_spread_follows_chuangs_relaxed_formula(table):
    # Var of the scaled logit is (d_x sigma_W^2)^2 = growth^4, so the sd grows like growth^2
    rows = table[table["rescaling"] == "sqrt_d"]
    ratio = rows["sd of scaled logits"] / rows["weight growth"] ** 2
    assert ratio.between(0.8, 1.2).all()
    fit = growth_exponent(table, "sqrt_d")
    assert fit.slope == pytest.approx(2.0, abs=0.15) and 0 <= fit.se < 0.15


def test_qk_norm_ignores_the_weight_scale_and_k_total_grows_linearly(table):
    qk = table[table["rescaling"] == "qk_norm"]["entropy / ln n"]
    assert qk.max() - qk.min() < 0.02
    assert 0.7 < growth_exponent(table, "k_total").slope < 1.4  # one weight draw per factor


def test_saturation_grows_with_the_weights(table):
    sat = table[table["rescaling"] == "sqrt_d"]["saturated rows"].to_numpy()
    assert sat[-1] > sat[0]


def test_growth_exponent_needs_two_factors(table):
    with pytest.raises(ParameterError, match="at least 2 growth factors"):
        growth_exponent(table[table["weight growth"] == 1.0])


def test_conditional_variance_is_the_frobenius_norm_and_averages_to_one():
    v = conditional_logit_variances(16, 4, 2000, seed=4)
    se = v.std(ddof=1) / math.sqrt(v.size)
    assert abs(v.mean() - 1.0) < 4 * se
    rng = np.random.default_rng(4)
    w_q, w_k = rng.normal(0, 0.25, (16, 4)), rng.normal(0, 0.25, (16, 4))
    assert v[0] == pytest.approx(np.sum((w_q @ w_k.T) ** 2) / 4)


def test_conditional_variance_by_simulating_tokens():
    v = conditional_logit_variances(8, 4, 1, seed=5)[0]
    rng = np.random.default_rng(5)
    w_q, w_k = rng.normal(0, 8**-0.5, (8, 4)), rng.normal(0, 8**-0.5, (8, 4))
    tokens = np.random.default_rng(6).standard_normal((2, 200_000, 8))
    logits = np.einsum("ij,ij->i", tokens[0] @ w_q, tokens[1] @ w_k) / 2
    assert logits.var() == pytest.approx(v, rel=0.03)


@pytest.mark.parametrize("d_k", [6, 7])
def test_structured_weights_keep_the_entry_sd_and_reach_the_extremes(d_k):
    t = structured_weight_table(32, d_k, seed=1)
    np.testing.assert_allclose(t["entry sd of W_q"].iloc[1:], 32**-0.5, rtol=0.15)
    assert t["Var(q·k/√d_k | W)"].iloc[1] == pytest.approx(d_k)
    assert t["Var(q·k/√d_k | W)"].iloc[2] == pytest.approx(0.0, abs=1e-12)
