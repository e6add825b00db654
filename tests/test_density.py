"""R's bw.nrd0 against values worked out by hand, and the exact Gaussian KDE against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import attncore.density as kde
from attncore.checks import ParameterError
from attncore.density import bw_nrd0, kde_curve, kde_values, scipy_silverman


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        # sd = sqrt(2.5) = 1.5811, IQR = 4 - 2 = 2, 2 / 1.34 = 1.4925 is the smaller
        ([1.0, 2.0, 3.0, 4.0, 5.0], 0.9 * (2 / 1.34) * 5**-0.2),
        # sd = sqrt(4/3) = 1.1547, type-7 quartiles -1 and 1: IQR / 1.34 = 1.4925 is larger
        ([-1.0, -1.0, 1.0, 1.0], 0.9 * math.sqrt(4 / 3) * 4**-0.2),
        # IQR = 0, so R falls back to sd = sqrt(80 / 4) = 4.4721
        ([0.0, 0.0, 0.0, 0.0, 10.0], 0.9 * math.sqrt(20.0) * 5**-0.2),
        # sd = 0 and IQR = 0: |x[1]| (R's first element) = 3
        ([3.0, 3.0, 3.0], 0.9 * 3.0 * 3**-0.2),
        # everything 0: 1
        ([0.0, 0.0], 0.9 * 2**-0.2),
    ],
)
def test_bw_nrd0_matches_hand_computation(x, expected):
    assert bw_nrd0(x) == pytest.approx(expected, rel=1e-12)


def test_bw_nrd0_numbers():
    assert round(bw_nrd0([1.0, 2.0, 3.0, 4.0, 5.0]), 4) == 0.9736
    assert round(bw_nrd0([-1.0, -1.0, 1.0, 1.0]), 4) == 0.7876


def test_bw_nrd0_is_smaller_than_scipys_silverman_for_a_skewed_sample():
    x = np.random.default_rng(1).lognormal(sigma=1.5, size=500)
    nrd0, silverman = bw_nrd0(x), scipy_silverman(x)
    sd, (q25, q75) = x.std(ddof=1), np.quantile(x, [0.25, 0.75])
    assert nrd0 == pytest.approx(0.9 * min(sd, (q75 - q25) / 1.34) * 500**-0.2)
    assert silverman == pytest.approx(stats.gaussian_kde(x, "silverman").factor * sd)
    assert silverman > 2 * nrd0


def test_bw_nrd0_rejects_too_few_values():
    with pytest.raises(ParameterError, match="at least 2 values"):
        bw_nrd0([1.0])
    with pytest.raises(ParameterError, match="finite"):
        bw_nrd0([1.0, math.nan])


def test_kde_values_equals_scipys_with_the_same_bandwidth():
    x = np.random.default_rng(2).standard_normal(300)
    grid = np.linspace(-4, 4, 101)
    h = bw_nrd0(x)
    reference = stats.gaussian_kde(x, bw_method=h / x.std(ddof=1))(grid)
    np.testing.assert_allclose(kde_values(x, grid), reference, rtol=1e-10)


def test_kde_values_integrates_to_one_and_chunks_agree(monkeypatch):
    x = np.random.default_rng(3).exponential(size=200)
    grid = np.linspace(-3, 12, 3001)
    whole = kde_values(x, grid)
    assert integrate.trapezoid(whole, grid) == pytest.approx(1.0, abs=1e-6)
    monkeypatch.setattr(kde, "_CHUNK", 1000)  # five grid points per block
    np.testing.assert_allclose(kde_values(x, grid), whole, rtol=1e-13)


def test_kde_curve_spans_the_data_or_three_bandwidths_more():
    x = np.array([0.0, 1.0, 5.0])
    grid, _ = kde_curve(x, n_points=512)
    assert (grid[0], grid[-1], grid.size) == (0.0, 5.0, 512)
    h = bw_nrd0(x)
    grid, density = kde_curve(x, n_points=11, cut=3.0)
    assert grid[0] == pytest.approx(-3 * h) and grid[-1] == pytest.approx(5 + 3 * h)
    assert (density > 0).all()
    with pytest.raises(ParameterError, match="cut"):
        kde_curve(x, cut=-1.0)
    with pytest.raises(ParameterError, match="bandwidth"):
        kde_values(x, [0.0], bandwidth=0.0)
