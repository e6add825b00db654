"""attncore.simulate.montecarlo: the one route from a simulation to a z-score."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.distributions import Correlated, Independent
from attncore.simulate import montecarlo as mc


def test_compare_with_closed_form_from_a_model_or_a_sample() -> None:
    from_model = mc.compare_with_closed_form(Independent(), 0.0, 16.0, d=16, n_pairs=8_000, seed=3)
    sample = mc.pair_dot_products(Independent(), 16, 8_000, seed=3)
    from_sample = mc.compare_with_closed_form(sample, 0.0, 16.0)
    assert from_model.row() == from_sample.row()
    assert from_model.within(4.0)


def test_a_wrong_closed_form_is_many_standard_errors_off() -> None:
    c = mc.compare_with_closed_form(Independent(), 0.0, 20.0, d=16, n_pairs=20_000, seed=4)
    assert not c.within(4.0)
    assert c.z_var < -10 and c.worst_z() == abs(c.z_var)


def test_missing_closed_forms_are_not_compared() -> None:
    c = mc.compare_with_closed_form(np.random.default_rng(0).standard_normal(1_000), mean=0.0)
    assert math.isnan(c.z_var) and math.isnan(c.z_kurtosis)
    assert set(c.row()) == {"mean", "mean se", "mean closed form", "z (mean)"}
    assert math.isnan(mc.compare_with_closed_form(np.arange(300.0)).worst_z())


def test_others_are_scored_but_do_not_count_in_worst_z() -> None:
    c = mc.compare_with_closed_form(
        Independent(), var=8.0, d=8, n_pairs=10_000, seed=5, others={"wrong": 12.0}
    )
    assert c.within(4.0)
    assert c.row()["z (wrong)"] < -10


def test_a_model_needs_its_sizes() -> None:
    with pytest.raises(ParameterError, match="d, n_pairs and seed"):
        mc.compare_with_closed_form(Independent(), 0.0, 1.0)


def test_comparison_table_draws_models_in_order_and_leaves_samples_alone() -> None:
    sample = mc.pair_dot_products(Correlated(0.5), 4, 400, seed=9)
    cases = {
        "model": {"sample_or_model": Independent(), "d": 4, "var": 4.0},
        "sample": {"sample_or_model": sample, "mean": 2.0, "var": 5.0},
    }
    seeds = iter([11])
    table = mc.comparison_table(cases, 4_000, seeds)
    assert list(table.index) == ["model", "sample"]
    assert next(seeds, None) is None  # one seed for the one model
    assert (table["worst |z|"] < 4).all()


def test_proposition_5_pairs_and_their_listed_covariances() -> None:
    q, keys = mc.proposition_5_pairs(6, 30_000, seed=2)
    assert np.array_equal(keys["pair swap"][:, [1, 0, 3, 2, 5, 4]], q)
    assert np.array_equal(np.abs(keys["own signs"]), np.abs(q))
    for k in keys.values():
        assert mc.largest_listed_covariance(q, k) < 0.05
    assert mc.largest_listed_covariance(q, q) > 0.9  # k = q: Cov(q_i, k_i) = 1
    with pytest.raises(ParameterError, match="even"):
        mc.proposition_5_pairs(5, 10, seed=0)


def test_k_total_ratios_and_cauchy_schwarz_ratios() -> None:
    r = mc.k_total_ratios(4, 512, 10_000, seed=1)
    assert r.shape == (200,)
    q, k = Independent().sample(np.random.default_rng(0), 50, 8, 16)
    ratios = mc.cauchy_schwarz_ratios(q, k)
    assert ratios.shape == (50, 8) and ratios.max() <= 1


def test_histogram_chi_square_rejects_a_wrong_density() -> None:
    x = np.random.default_rng(1).standard_normal(20_000)
    edges = np.linspace(-4, 4, 41)
    right = mc.histogram_chi_square(x, lambda v: np.exp(-v * v / 2) / np.sqrt(2 * np.pi), edges)
    wrong = mc.histogram_chi_square(x, lambda v: np.exp(-v * v / 8) / np.sqrt(8 * np.pi), edges)
    assert right.per_bin < 2 < wrong.per_bin
    assert set(right.row()) == {"bins", "chi-square", "chi-square / bins"}


def test_scaled_second_moment_is_one_in_the_footnote_setting() -> None:
    import pandas as pd

    table = pd.DataFrame({"variance closed form": [16.0, 64.0]})
    assert mc.scaled_second_moment(table, 16).tolist() == [1.0, 4.0]
