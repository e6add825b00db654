"""Every component of Bernhard's panels: the statistics per key and the KS distances."""

from __future__ import annotations

import numpy as np
from scipy import stats

from attncore.random import spawn
from attncore.sources.bernhard import draw_panels, summary_statistics
from attncore.sources.bernhard_components import component_records, component_sweep, ks_distances


def test_ks_distances_equal_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=60), rng.normal(0.3, 1.2, size=(60, 3))
    expected = [stats.ks_2samp(a, b[:, j]).statistic for j in range(3)]
    assert np.allclose(ks_distances(a, b), expected)


def test_records_describe_each_column_of_the_panel():
    draws = draw_panels(3, n_queries=40, n_keys=5, d_small=4, d_large=9)
    rows = [r for r in component_records(draws) if r["panel"] == "1b"]
    attention = draws["1b"].attention
    for r in rows:
        column = attention[:, r["key"] - 1]
        expected = summary_statistics(column)
        assert np.isclose(r["mean"], expected["mean"]) and np.isclose(r["sd"], expected["sd"])
        assert np.isclose(r["skewness"], expected["skewness"])
        assert np.isclose(r["key_length"], np.linalg.norm(draws["1b"].keys[r["key"] - 1]))
    assert rows[0]["ks_to_first"] == 0.0


def test_raw_panels_use_the_dot_products():
    draws = draw_panels(3, n_queries=40, n_keys=5, d_small=4, d_large=9)
    row = next(r for r in component_records(draws) if r["panel"] == "2a" and r["key"] == 2)
    assert np.isclose(row["mean"], draws["2a"].logits[:, 1].mean())


def test_sweep_draws_what_the_panel_sweep_draws():
    settings = dict(n_queries=30, n_keys=4, d_small=2, d_large=3)
    table = component_sweep(spawn(5, 2), **settings)
    again = draw_panels(spawn(5, 2)[1], **settings)
    first = table[(table.seed == 1) & (table.panel == "1c") & (table.key == 1)]
    assert np.isclose(first["mean"].item(), again["1c"].attention[:, 0].mean())
