"""The rescaling sweep against the engine called by hand, its invariances, summaries, errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from attncore.checks import ParameterError
from attncore.distributions import Independent, Laplace, Normal, Projected
from attncore.measures import ShapeReference, distortion
from attncore.random import make_rng
from attncore.rescalings import get_rescaling
from attncore.simulate.engine import attention_metrics
from attncore.simulate.sweep import (
    METRICS,
    draw_generator,
    frontier_distortion,
    rescaling_sweep,
    scaled_sqrt_d,
    summarize,
)

MODELS = {"normal": Independent(), "laplace": Independent(Laplace(), Laplace())}


def small_sweep(**overrides):
    arguments = dict(
        models=MODELS,
        rescalings=["none", "sqrt_d", "k_total", get_rescaling("qk_norm")],
        d_values=[4, 16],
        n_values=[2, 8],
        n_queries=60,
        n_seeds=2,
        seed=5,
        gradient=True,
    )
    arguments.update(overrides)
    return rescaling_sweep(**arguments)


def test_one_row_per_family_size_replicate_and_rescaling():
    table = small_sweep()
    assert len(table) == 2 * 2 * 2 * 2 * 4
    assert set(METRICS) <= set(table.columns)
    assert not table[list(METRICS)].isna().any().any()
    keys = ["family", "d", "n", "replicate", "rescaling"]
    assert not table.duplicated(keys).any()


def test_rows_equal_the_engine_and_distortion_called_by_hand():
    table = small_sweep().set_index(["family", "d", "n", "replicate", "rescaling"])
    queries, keys = MODELS["laplace"].sample(draw_generator(5, "laplace", 16, 8, 1), 60, 8, 16)
    for name in ["sqrt_d", "k_total", "qk_norm"]:
        result = attention_metrics(queries, keys, name, threshold=0.9, gradient=True, columns=(0,))
        shape = distortion(queries @ keys[0], result.columns[:, 0])
        row = table.loc[("laplace", 16, 8, 1, name)]
        assert row["wasserstein"] == pytest.approx(shape.wasserstein, rel=1e-12)
        assert row["skewness_change"] == pytest.approx(shape.skewness_change, rel=1e-12)
        assert row["selectivity"] == pytest.approx(1 - result.normalized_entropy.mean(), rel=1e-12)
        assert row["effective_share"] == pytest.approx(result.effective_keys.mean() / 8)
        assert row["gradient_norm"] == pytest.approx(result.gradient_norm.mean(), rel=1e-12)
        assert row["gradient_median"] == pytest.approx(np.median(result.gradient_norm))
        assert row["factor"] == pytest.approx(result.factor, rel=1e-15)


def test_every_rescaling_sees_the_same_draw():
    """1/sqrt(d) and the constant 1/sqrt(d) built by scaled_sqrt_d are the same softmax."""
    table = rescaling_sweep(
        MODELS,
        {"a": "sqrt_d", "b": scaled_sqrt_d(1.0)},
        d_values=[8],
        n_values=[4],
        n_queries=50,
        n_seeds=3,
        seed=0,
    )
    a = table[table["rescaling"] == "a"].reset_index(drop=True)
    b = table[table["rescaling"] == "b"].reset_index(drop=True)
    pd.testing.assert_frame_equal(a[list(METRICS)], b[list(METRICS)])


def test_draws_do_not_depend_on_the_other_families_or_sizes():
    alone = rescaling_sweep(
        {"laplace": MODELS["laplace"]}, ["k_total"], [16], [8], n_queries=40, n_seeds=2, seed=9
    )
    together = rescaling_sweep(
        MODELS, ["k_total"], [4, 16], [2, 8], n_queries=40, n_seeds=2, seed=9
    )
    part = together.query("family == 'laplace' and d == 16 and n == 8").reset_index(drop=True)
    pd.testing.assert_frame_equal(alone, part)


def test_same_seed_same_table_other_seed_other_table():
    first, again = small_sweep(), small_sweep()
    pd.testing.assert_frame_equal(first, again)
    assert not np.allclose(first["wasserstein"], small_sweep(seed=6)["wasserstein"])


def test_no_gradient_gives_nan_gradient_columns():
    table = small_sweep(gradient=False)
    assert table["gradient_norm"].isna().all() and table["gradient_median"].isna().all()


def test_gradient_for_named_rescalings_only():
    table = small_sweep(gradient=["k_total", "qk_norm"])
    full = small_sweep()
    named = table["rescaling"].isin(["k_total", "qk_norm"])
    assert table.loc[~named, "gradient_norm"].isna().all()
    np.testing.assert_array_equal(
        table.loc[named, "gradient_norm"], full.loc[named, "gradient_norm"]
    )
    others = [c for c in METRICS if not c.startswith("gradient")]
    pd.testing.assert_frame_equal(table[others], full[others])


@pytest.mark.filterwarnings("ignore:ks_2samp. Exact calculation unsuccessful")
@pytest.mark.parametrize("transform", [np.exp, np.tanh, lambda x: x**3, lambda x: 2 * x + 1])
@pytest.mark.parametrize("size", [3, 50, 1001])
def test_shape_reference_equals_distortion(transform, size):
    x = make_rng(size).standard_normal(size)
    fast = ShapeReference(x).distortion(transform(x))
    slow = distortion(x, transform(x))
    assert fast.wasserstein == pytest.approx(slow.wasserstein, rel=1e-9, abs=1e-12)
    assert fast.ks_statistic == pytest.approx(slow.ks_statistic, rel=1e-12)
    assert fast.skewness_change == pytest.approx(slow.skewness_change, rel=1e-9, abs=1e-12)
    assert fast.kurtosis_change == pytest.approx(slow.kurtosis_change, rel=1e-9, abs=1e-12)
    assert math.isnan(fast.ks_pvalue)


def test_shape_reference_with_ties_and_errors():
    x = np.array([0.0, 0.0, 1.0, 1.0, 2.0, 5.0])
    after = np.array([1.0, 1.0, 1.0, 3.0, 3.0, 3.0])
    fast, slow = ShapeReference(x).distortion(after), distortion(x, after)
    assert fast.ks_statistic == pytest.approx(slow.ks_statistic)
    assert fast.wasserstein == pytest.approx(slow.wasserstein)
    with pytest.raises(ParameterError, match="as many values as before"):
        ShapeReference(x).distortion(after[:-1])
    with pytest.raises(ParameterError, match="must not be constant"):
        ShapeReference(x).distortion(np.ones(6))


def test_k_total_is_close_to_uniform_and_less_distorting_than_sqrt_d():
    table = rescaling_sweep(
        {"normal": Independent()},
        ["sqrt_d", "k_total"],
        [64],
        [32],
        n_queries=500,
        n_seeds=2,
        seed=1,
    )
    summary = summarize(table).set_index("rescaling")
    assert summary.loc["k_total", "effective_share"] > 0.99
    assert summary.loc["k_total", "wasserstein"] < summary.loc["sqrt_d", "wasserstein"]


def test_float32_products_agree_with_float64():
    kwargs = dict(
        models={"normal": Independent(Normal(0.0, 2.0), Normal(0.0, 2.0))},
        rescalings=["sqrt_d", "k_total"],
        d_values=[32],
        n_values=[16],
        n_queries=100,
        n_seeds=1,
        seed=2,
    )
    wide = rescaling_sweep(**kwargs)
    narrow = rescaling_sweep(**kwargs, dtype=np.float32)
    np.testing.assert_allclose(narrow["selectivity"], wide["selectivity"], rtol=1e-4)
    np.testing.assert_allclose(narrow["wasserstein"], wide["wasserstein"], rtol=1e-3, atol=1e-4)


def test_summarize_means_and_standard_errors():
    table = small_sweep()
    summary = summarize(table)
    assert len(summary) == len(table) // 2
    group = table.query("family == 'normal' and d == 4 and n == 8 and rescaling == 'sqrt_d'")
    row = summary.query("family == 'normal' and d == 4 and n == 8 and rescaling == 'sqrt_d'")
    values = group["wasserstein"].to_numpy()
    assert row["wasserstein"].item() == pytest.approx(values.mean())
    assert row["wasserstein_se"].item() == pytest.approx(values.std(ddof=1) / math.sqrt(2))
    assert row["label"].item() == "1/√d"


def test_frontier_distortion_interpolates_in_log_selectivity():
    curve_x, curve_y = [1e-1, 1e-3, 1e-2], [0.9, 0.1, 0.5]  # unsorted on purpose
    at = frontier_distortion(curve_x, curve_y, [1e-3, math.sqrt(1e-3 * 1e-2), 1e-1, 2e-1, 0.0])
    np.testing.assert_allclose(at[:3], [0.1, 0.3, 0.9])
    assert np.isnan(at[3]) and np.isnan(at[4])


def test_scaled_sqrt_d_is_a_multiple_of_the_scaled_dot_product():
    keys = np.ones((5, 64))
    assert scaled_sqrt_d(2.0).factor_for(keys) == pytest.approx(0.25)
    assert scaled_sqrt_d(1.0).factor_for(keys) == get_rescaling("sqrt_d").factor_for(keys)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rescalings": []}, "at least one rescaling"),
        ({"rescalings": ["sqrt_d", "sqrt_d"]}, "distinct names"),
        ({"rescalings": ["sqrtd"]}, "rescaling must be one of"),
        ({"models": {}}, "at least one query/key model"),
        ({"d_values": []}, "d_values must hold at least one value"),
        ({"n_values": [1]}, "n_values must be an integer >= 2"),
        ({"n_queries": 2}, "n_queries must be an integer >= 3"),
        ({"n_seeds": 0}, "n_seeds must be an integer >= 1"),
        ({"gradient": 1}, "gradient must be True, False or a collection"),
        ({"gradient": "k_total"}, "gradient must be True, False or a collection"),
        ({"gradient": ["mup"]}, "gradient must name rescalings of the sweep"),
        ({"threshold": 1.5}, "threshold must be a real number in"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"models": {"p": Projected(d_x=4, self_attention=True)}}, "n_keys must equal"),
    ],
)
def test_bad_arguments_name_the_parameter(overrides, message):
    with pytest.raises(ParameterError, match=message):
        small_sweep(**overrides)


def test_bad_summaries_and_curves_name_the_parameter():
    table = small_sweep(n_seeds=1)
    with pytest.raises(ParameterError, match="by must name columns"):
        summarize(table, by=["family", "size"])
    with pytest.raises(ParameterError, match="metrics must be columns"):
        summarize(table, metrics=["accuracy"])
    with pytest.raises(ParameterError, match="same length >= 2"):
        frontier_distortion([0.1], [0.2], [0.1])
    with pytest.raises(ParameterError, match="must be > 0"):
        frontier_distortion([0.0, 0.1], [0.2, 0.3], [0.1])
    assert summarize(table)["wasserstein_se"].isna().all()


def test_pair_rescalings_pairs_by_replicate():
    from attncore.simulate.sweep import pair_rescalings

    table = small_sweep()
    pairs = pair_rescalings(table, "k_total", "sqrt_d", ["wasserstein"])
    a = table[table["rescaling"] == "k_total"].set_index(["family", "d", "n", "replicate"])
    b = table[table["rescaling"] == "sqrt_d"].set_index(["family", "d", "n", "replicate"])
    diff = (a["wasserstein"] - b["wasserstein"]).groupby(level=["family", "d", "n"])
    np.testing.assert_allclose(pairs["wasserstein_diff"], diff.mean().loc[pairs.index])
    np.testing.assert_allclose(pairs["wasserstein_diff_se"], diff.sem().loc[pairs.index])
    with pytest.raises(ParameterError):
        pair_rescalings(table, "k_total", "no_such", ["wasserstein"])


def test_extreme_share_is_the_share_of_first_components_near_zero_or_one():
    table = small_sweep(gradient=False).set_index(["family", "d", "n", "replicate", "rescaling"])
    share = table["extreme_share"]
    assert share.between(0, 1).all()
    # large unscaled logits push first components to 0 or 1 more often than 1/k_total's
    at = ("normal", 16, 8)
    assert (
        share.loc[(*at, slice(None), "none")].mean()
        > share.loc[(*at, slice(None), "k_total")].mean()
    )
