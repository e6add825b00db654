"""Bernhard's panels with their raw dot products, statistics and the seed sweep."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import attncore.sources.bernhard as bernhard
from attncore.checks import ParameterError
from attncore.density import bw_nrd0, scipy_silverman
from attncore.distributions import Independent
from attncore.random import make_rng, spawn
from attncore.rescalings import get_rescaling
from attncore.simulate.engine import attention_metrics
from attncore.softmax import softmax
from attncore.sources.bernhard import (
    COMPONENT_LAWS,
    STATISTICS,
    component_law,
    draw_panels,
    panel_records,
    rescaling_records,
    summary_statistics,
    sweep,
)
from attncore.sources.bernhard_refill import BERNHARD_PANELS, first_component

SMALL = dict(n_queries=60, n_keys=8, d_small=4, d_large=32)


def reference_figures(seed):
    """The reference procedure, plainly: one generator; per panel queries, then keys, then
    ``Q @ K.T`` (BLAS) or the softmax of the rescaled logits, and its first component."""
    rng = make_rng(seed)
    figures = {}
    for panel, (d, rescaling) in BERNHARD_PANELS.items():
        queries, keys = Independent().sample(rng, 500, 32, d)
        if rescaling is None:
            values = queries @ keys.T
        else:
            values = softmax(get_rescaling(rescaling).scaled_logits(queries, keys))
        figures[panel] = (first_component(values), first_component(values, as_published=True))
    return figures


def test_default_draws_follow_the_reference_procedure():
    draws, figures = draw_panels(1000), reference_figures(1000)
    assert list(draws) == list(BERNHARD_PANELS)
    for panel, draw in draws.items():
        intended, published = figures[panel]
        np.testing.assert_allclose(draw.values.intended, intended, rtol=1e-12)
        np.testing.assert_allclose(draw.values.published, published, rtol=1e-12)
        assert draw.queries.shape == (500, draw.d) and draw.keys.shape == (32, draw.d)


def test_panels_are_reproducible_and_drawn_in_sequence():
    first, second = draw_panels(1000), draw_panels(1000)
    for panel in first:
        assert np.array_equal(first[panel].values.intended, second[panel].values.intended)
        assert first[panel].values.published.shape == (500,)
    assert not np.array_equal(first["2b"].values.intended, first["2c"].values.intended)
    assert (first["1a"].values.intended < 0).any() and (first["1b"].values.intended > 0).all()


def test_k_total_panel_matches_the_engine_on_the_same_draw():
    draw = draw_panels(3, n_queries=40, n_keys=8, d_small=16, d_large=16)["2c"]
    attention = attention_metrics(draw.queries, draw.keys, "k_total", columns=range(8)).columns
    np.testing.assert_allclose(draw.values.intended, attention[:, 0], rtol=1e-12)
    np.testing.assert_allclose(draw.values.published, attention.ravel()[:40], rtol=1e-12)


def test_bad_dimension_gives_one_line_parameter_error():
    with pytest.raises(ParameterError, match=r"^d_small must be an integer >= 1, got 0$"):
        draw_panels(0, d_small=0)


def test_raw_sample_is_the_dot_products_of_the_same_draw():
    draws = draw_panels(5, **SMALL)
    for draw in draws.values():
        np.testing.assert_allclose(draw.raw.intended, draw.queries @ draw.keys[0])
        np.testing.assert_allclose(draw.raw.published, (draw.queries @ draw.keys.T).ravel()[:60])
        assert draw.published_queries == math.ceil(60 / 8)
    assert draws["1a"].values is draws["1a"].raw and draws["1a"].attention is None
    # panel 1b is the plain softmax of the raw dot products of its own draw
    logits = draws["1b"].raw.intended
    s1 = draws["1b"].values.intended
    others = np.log(np.exp(draws["1b"].logits).sum(axis=1))
    np.testing.assert_allclose(np.log(s1), logits - others, rtol=1e-10, atol=1e-10)


def test_draw_order_is_queries_then_keys_panel_by_panel():
    rng = make_rng(9)
    draws = draw_panels(9, **SMALL)
    for draw in draws.values():
        queries, keys = Independent().sample(rng, 60, 8, draw.d)
        assert np.array_equal(draw.queries, queries) and np.array_equal(draw.keys, keys)


def test_selectivity_matches_the_engine():
    draws = draw_panels(3, **SMALL)
    rows = {(r["panel"], r["sample"]): r for r in panel_records(draws)}
    for panel in ("1b", "1c", "2b", "2c"):
        draw = draws[panel]
        engine = attention_metrics(draw.queries, draw.keys, draw.rescaling)
        row = rows[(panel, "intended")]
        assert row["mean_max_probability"] == pytest.approx(engine.max_probability.mean())
        assert row["mean_normalized_entropy"] == pytest.approx(engine.normalized_entropy.mean())
        assert rows[(panel, "published")]["ks_other_sample"] == row["ks_other_sample"]
    assert math.isnan(rows[("1a", "intended")]["wasserstein"])


def test_panel_records_measure_distortion_against_the_same_sample():
    draws = draw_panels(4, **SMALL)
    rows = {(r["panel"], r["sample"]): r for r in panel_records(draws)}
    for sample in ("intended", "published"):
        before = getattr(draws["2c"].raw, sample)
        after = getattr(draws["2c"].values, sample)
        z = [(x - x.mean()) / x.std() for x in (before, after)]
        assert rows[("2c", sample)]["wasserstein"] == pytest.approx(stats.wasserstein_distance(*z))
        assert rows[("2c", sample)]["mean"] == pytest.approx(after.mean())


def test_summary_statistics_by_hand():
    s = summary_statistics([1.0, 2.0, 3.0, 4.0, 10.0])
    assert list(s) == list(STATISTICS)
    # type-7 quantiles: position (5 - 1) p
    assert s["q05"] == pytest.approx(1.2) and s["q25"] == 2.0 and s["q75"] == 4.0
    assert s["q95"] == pytest.approx(4 + 0.8 * 6)
    assert s["sd"] == pytest.approx(math.sqrt(50 / 4))
    # g1 = m3 / m2^1.5 with m2 = 50/5 = 10, m3 = (-27 - 8 - 1 + 0 + 216) / 5 = 36
    assert s["skewness"] == pytest.approx(36 / 10**1.5)
    with pytest.raises(ParameterError, match="at least 3"):
        summary_statistics([1.0, 2.0])


@pytest.mark.parametrize("name", COMPONENT_LAWS)
def test_component_laws_are_standardized(name):
    law = component_law(name, t_df=7.0)
    assert law.mean == 0.0 and law.var == pytest.approx(1.0)
    x = law.sample(np.random.default_rng(0), (200_000,))
    assert abs(x.mean()) < 0.01 and abs(x.var() - 1) < 0.03


def test_component_law_rejects_an_infinite_variance():
    with pytest.raises(ParameterError, match="t_df must be > 2"):
        component_law("t", t_df=2.0)


def test_rescaling_records_show_k_total_logits_of_order_one_over_n():
    draws = draw_panels(6, n_queries=400, n_keys=32, d_small=16, d_large=256)
    rows = {
        (r["panel"], r["rescaling"]): r for r in rescaling_records(draws, ["sqrt_d", "k_total"])
    }
    for panel in ("1a", "2a"):
        k_total = rows[(panel, "k_total")]
        assert k_total["logit_sd"] == pytest.approx(1 / 32, rel=0.2)
        assert rows[(panel, "sqrt_d")]["logit_sd"] == pytest.approx(1.0, rel=0.2)
        assert k_total["mean_normalized_entropy"] > 0.999
        assert k_total["r2_raw"] > 0.9 > rows[(panel, "sqrt_d")]["r2_raw"]
    with pytest.raises(ParameterError, match="cosines"):
        rescaling_records(draws, ["qk_norm"])


def test_sweep_is_reproducible_and_numbers_the_draws():
    first = sweep(spawn(11, 3), ["k_total"], **SMALL)
    second = sweep(spawn(11, 3), ["k_total"], **SMALL)
    for a, b in zip(first, second, strict=True):
        assert a.equals(b)
    panels, costs = first
    assert sorted(panels["seed"].unique()) == [0, 1, 2] and len(panels) == 3 * 12
    assert len(costs) == 3 * 2


def test_ks_critical_matches_scipys_two_sample_test_at_the_mark():
    crit = bernhard.ks_critical(500)
    # two samples whose KS distance sits just above the critical value reject at 5 %
    a = np.linspace(0.0, 1.0, 500)
    shift = np.ceil(crit * 500 + 1) / 500
    assert stats.ks_2samp(a, a + shift).pvalue < 0.05
    assert stats.ks_2samp(a, a + shift - 4 / 500).pvalue > 0.05


def test_bandwidth_ratios_are_scipys_over_r_and_largest_for_skewed_panels():
    draws = bernhard.draw_panels(1000)
    ratios = bernhard.bandwidth_ratios(draws)
    x = draws["1b"].values.intended
    assert ratios[2] == pytest.approx(scipy_silverman(x) / bw_nrd0(x))
    assert ratios.argmax() in (2, 3)  # panel 1b, the most skewed


def test_panel_table_is_the_seed_rows_with_bandwidths():
    draws = bernhard.draw_panels(3, n_queries=60, n_keys=4, d_small=2, d_large=5)
    rows = pd.DataFrame(bernhard.panel_records(draws))
    table = bernhard.panel_table(rows, draws, ["2b"])
    assert table.loc[("2b", "published"), "bw.nrd0"] == bw_nrd0(draws["2b"].values.published)
    assert table.loc[("2b", "intended"), "mean"] == draws["2b"].values.intended.mean()


def test_seed_percentiles_place_a_draw_among_the_draws():
    settings = dict(n_queries=30, n_keys=4, d_small=2, d_large=3)
    panels, _ = bernhard.sweep(range(5), [], **settings)
    one = pd.DataFrame(bernhard.panel_records(bernhard.draw_panels(2, **settings)))
    percentiles = bernhard.seed_percentiles(panels, one)
    part = panels[(panels.panel == "1b") & (panels["sample"] == "intended")].skewness
    mine = one[(one.panel == "1b") & (one["sample"] == "intended")].skewness.iloc[0]
    assert mine in set(part)  # seed 2 is one of the five draws
    assert percentiles[("1b", "intended")] == 100 * (part < mine).mean()
    assert percentiles.index[0] == ("1a", "intended")


def test_linearization_is_exact_for_vanishing_logits():
    draw = bernhard.draw_panels(0, n_queries=50, n_keys=32, d_small=2, d_large=64)["2a"]
    k_total = bernhard.linearization(draw, "k_total")
    sqrt_d = bernhard.linearization(draw, "sqrt_d")
    assert k_total["row_sd"] < sqrt_d["row_sd"] / 10
    error = np.abs(k_total["weight"] - 1 - k_total["centred"]).max()
    assert error < k_total["row_sd"] ** 2 * 10 < 0.1


def test_rescaling_medians_are_medians_over_draws():
    _, costs = bernhard.sweep(range(5), ["none", "k_total"], n_queries=30, n_keys=4, d_small=2)
    medians = bernhard.rescaling_medians(costs)
    part = costs[(costs.d == 2) & (costs.rescaling == "k_total")]
    assert medians.loc[(2, "k_total"), "W₁ distortion"] == part.wasserstein.median()
