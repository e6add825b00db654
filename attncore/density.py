"""Gaussian kernel density estimates with R's default bandwidth, as in Bernhard's figures.

Bernhard's figures are ggplot2 density plots: R's ``density()`` with a Gaussian kernel and
the default bandwidth ``bw.nrd0``, evaluated on 512 points spanning the range of the data
(``geom_density`` with ``trim = FALSE`` uses the range of the data, not ``density()``'s
three bandwidths beyond it). ``bw.nrd0`` is Silverman's rule of thumb

    h = 0.9 min(sd, IQR / 1.34) n^(-1/5)

with the sample standard deviation (denominator ``n - 1``) and R's default (type 7)
quantiles, which are numpy's default ``linear`` ones. It is not scipy's ``"silverman"``
option: :class:`scipy.stats.gaussian_kde` multiplies the standard deviation by
``(n (d + 2) / 4)^(-1 / (d + 4))``, i.e. ``1.06 n^(-1/5)`` in one dimension, and has no
``min(sd, IQR / 1.34)``, so it smooths more, and far more for a skewed sample whose
interquartile range is small next to its standard deviation (:func:`scipy_silverman`).

R's ``density()`` bins the data and convolves by FFT; :func:`kde_values` sums the
kernels exactly, which differs from R's curve by far less than a line width.

>>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
>>> round(bw_nrd0(x), 4), round(scipy_silverman(x), 4)
(0.9736, 1.2139)
>>> grid, density = kde_curve(x, n_points=5)
>>> grid.tolist(), bool(np.all(density > 0))
([1.0, 2.0, 3.0, 4.0, 5.0], True)
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from attncore.checks import ParameterError, finite_array, finite_real, positive_int, positive_real

__all__ = ["bw_nrd0", "kde_curve", "kde_values", "scipy_silverman"]

_IQR_TO_SD = 1.34
"""R's 1.34 for the interquartile range of N(0, 1), qnorm(0.75) - qnorm(0.25) = 1.349."""

_CHUNK = 1 << 20
"""Kernel evaluations per block of grid points (8 MiB in float64)."""


def _sample(x: ArrayLike, minimum: int) -> np.ndarray:
    values = finite_array("x", x, ndim=1).astype(np.float64)
    if values.size < minimum:
        raise ParameterError(f"x must have at least {minimum} values, got {values.size}")
    return values


def bw_nrd0(x: ArrayLike) -> float:
    """R's default bandwidth ``bw.nrd0``: ``0.9 min(sd, IQR / 1.34) n^(-1/5)``.

    As in R, a zero ``min(sd, IQR / 1.34)`` falls back to the standard deviation, then to
    ``|x[0]|``, then to 1, so a sample with many ties still gets a bandwidth > 0.

    >>> round(bw_nrd0([0.0, 0.0, 0.0, 0.0, 10.0]), 4)  # IQR 0: falls back to sd = 4.472
    2.9172
    >>> round(bw_nrd0([3.0, 3.0, 3.0]), 4)  # constant: |x[0]| = 3
    2.1674
    >>> bw_nrd0([1.0])
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: x must have at least 2 values, got 1
    """
    values = _sample(x, 2)
    sd = float(values.std(ddof=1))
    q25, q75 = np.quantile(values, [0.25, 0.75])
    lo = min(sd, float(q75 - q25) / _IQR_TO_SD)
    if lo == 0:
        lo = sd or abs(float(values[0])) or 1.0
    return 0.9 * lo * values.size ** (-0.2)


def scipy_silverman(x: ArrayLike) -> float:
    """The bandwidth of ``scipy.stats.gaussian_kde(x, bw_method="silverman")`` in one
    dimension: ``(3 n / 4)^(-1/5) sd``, for comparison with :func:`bw_nrd0`.

    >>> from scipy import stats
    >>> x = np.random.default_rng(0).exponential(size=300)
    >>> kde = stats.gaussian_kde(x, bw_method="silverman")
    >>> bool(np.isclose(scipy_silverman(x), kde.factor * x.std(ddof=1)))
    True
    """
    values = _sample(x, 2)
    return (0.75 * values.size) ** -0.2 * float(values.std(ddof=1))


def kde_values(x: ArrayLike, grid: ArrayLike, bandwidth: float | None = None) -> np.ndarray:
    """The values of the Gaussian kernel density estimate of the sample ``x`` at the points
    ``grid`` (an array, not an estimator object like :class:`scipy.stats.gaussian_kde`):
    ``f(g) = (1 / (n h)) sum_i phi((g - x_i) / h)``, with ``h = bw_nrd0(x)`` by default.

    >>> kde_values([0.0], [0.0], bandwidth=1.0).round(4).tolist()  # 1 / sqrt(2 pi)
    [0.3989]
    """
    values = _sample(x, 1)
    points = finite_array("grid", grid, ndim=1).astype(np.float64)
    h = bw_nrd0(values) if bandwidth is None else positive_real("bandwidth", bandwidth)
    out = np.empty(points.size)
    step = max(1, _CHUNK // values.size)
    norm = 1.0 / (values.size * h * math.sqrt(2.0 * math.pi))
    for start in range(0, points.size, step):
        u = (points[start : start + step, None] - values[None, :]) / h
        out[start : start + step] = np.exp(-0.5 * u * u).sum(axis=1) * norm
    return out


def kde_curve(
    x: ArrayLike, n_points: int = 512, bandwidth: float | None = None, cut: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Grid and density of the Gaussian KDE of ``x`` on ``n_points`` equally spaced points
    from ``min(x) - cut h`` to ``max(x) + cut h``: ``cut = 0`` is ggplot2's
    ``geom_density``, ``cut = 3`` R's ``density()``.

    >>> grid, f = kde_curve([0.0, 1.0], n_points=3, bandwidth=0.5, cut=3.0)
    >>> grid.tolist(), round(float(f[1]), 4)
    ([-1.5, 0.5, 2.5], 0.4839)
    """
    values = _sample(x, 2)
    n_points = positive_int("n_points", n_points, minimum=2)
    h = bw_nrd0(values) if bandwidth is None else positive_real("bandwidth", bandwidth)
    cut = finite_real("cut", cut)
    if cut < 0:
        raise ParameterError(f"cut must be a real number >= 0, got {cut!r}")
    grid = np.linspace(values.min() - cut * h, values.max() + cut * h, n_points)
    return grid, kde_values(values, grid, h)
