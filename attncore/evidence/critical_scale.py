"""The numbers of the chapter on the critical scale (the sweep of
:func:`attncore.simulate.simplex.critical_sweep`): where the angle ratio crosses
:func:`critical_level` (the boundary, in ``gamma (1 - rho)``, 1 at ``gamma_c = 1/(1 - rho)``), the
ratio at multiples of ``gamma_c``, and means over the draws with simultaneous Student-t intervals.

>>> round(critical_level(0.5, 1.0), 4)
0.6145
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.interpolate import PchipInterpolator

from attncore.checks import ParameterError, positive_real
from attncore.intervals import t_quantile

__all__ = [
    "LEVEL",
    "ODDS",
    "REFINE",
    "boundary_by_d",
    "boundary_table",
    "boundary_values",
    "change_with_n",
    "critical_level",
    "crossings",
    "difference",
    "ends_values",
    "gain_table",
    "gain_values",
    "growth_values",
    "listed",
    "pair",
    "ratio_at",
    "summary",
]

LEVEL = 0.95
"""The intervals' level where a caller gives none: that of the rules' ``confidence``
threshold (``CONFIDENCE`` in ``attncore/claims/thresholds/critical_scale.yaml``)."""

ODDS = 1.0
"""The self weight's odds at which the boundary is read where a caller gives none: that of the
rules' ``odds`` threshold (``ODDS`` in ``attncore/claims/thresholds/critical_scale.yaml``)."""

REFINE = 16
"""Points per interval of the ``gamma`` grid at which the curves are read: between grid points
each curve is a monotone cubic (PCHIP) in ``ln gamma``, whose error at the boundary is a small
fraction of the straight line's (0.6 % of ``gamma_c`` on the chapter's 40-point grid)."""


def critical_level(rho: float | np.ndarray, odds: float) -> float | np.ndarray:
    """The angle ratio the exact simplex tends to (``n`` to infinity) where its self weight
    tends to ``p = odds / (1 + odds)``: ``arccos(rho / (rho + (1 - rho) p^2)) / arccos(rho)``
    (:func:`attncore.symbolic.critical.limit_angle_ratio`).

    >>> [round(critical_level(0.5, odds), 3) for odds in (0.5, 1.0, 2.0)]
    [0.431, 0.614, 0.77]
    """
    positive_real("odds", odds)
    p = odds / (1 + odds)
    values = np.asarray(rho, dtype=float)
    ratio = np.arccos(values / (values + (1 - values) * p * p)) / np.arccos(values)
    return float(ratio) if ratio.ndim == 0 else ratio


def _curves(
    table: pd.DataFrame, refine: int = REFINE
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The grid's curves: one row per ``(n, draw, rho)`` (a frame), the ``gamma`` grid
    refined ``refine`` times, and the angle ratios there (rows by point), read off a
    monotone cubic in ``ln gamma`` through the measured points (``refine = 1``: the measured
    points themselves, to be joined by straight lines)."""
    grid = table[table["scale"] == "grid"].sort_values(["n", "draw", "rho", "gamma"])
    gammas = np.sort(grid["gamma"].unique())
    keys = grid[["n", "draw", "rho"]].drop_duplicates().reset_index(drop=True)
    if len(grid) != len(keys) * len(gammas) or len(gammas) < 2:
        raise ParameterError(
            "table must hold the same gamma grid of 2 points or more for every n, draw and rho"
        )
    ratios = grid["angle_ratio"].to_numpy().reshape(len(keys), len(gammas))
    logs = np.log(gammas)
    fine = np.interp(
        np.linspace(0, len(logs) - 1, refine * (len(logs) - 1) + 1), np.arange(len(logs)), logs
    )
    return keys, np.exp(fine), PchipInterpolator(logs, ratios, axis=1)(fine)


def crossings(table: pd.DataFrame, odds: float = ODDS, refine: int = REFINE) -> pd.DataFrame:
    """Per ``(n, draw, rho)``: the ``gamma`` at which the angle ratio first reaches
    :func:`critical_level` (on the curves of ``_curves(table, refine)``, then linearly in
    ``ln gamma``; NaN where the grid does not bracket it), and ``x = gamma (1 - rho)``, its
    ratio to ``1/(1 - rho)``.

    >>> table = pd.DataFrame({"n": 64, "draw": 0, "rho": 0.5, "scale": "grid",
    ...                       "gamma": [1.0, 2.0, 4.0], "angle_ratio": [0.2, 0.5, 0.9]})
    >>> [round(float(crossings(table, refine=r)["x"].iloc[0]), 3) for r in (1, REFINE)]
    [1.219, 1.245]
    """
    keys, gammas, ratios = _curves(table, refine)
    level = critical_level(keys["rho"].to_numpy(), odds)[:, None]
    reached = ratios >= level
    first = reached.argmax(axis=1)
    found = reached.any(axis=1) & (first > 0)
    before = np.maximum(first - 1, 0)
    rows = np.arange(len(keys))
    y0, y1 = ratios[rows, before], ratios[rows, first]
    g0, g1 = np.log(gammas[before]), np.log(gammas[first])
    with np.errstate(invalid="ignore", divide="ignore"):
        at = np.exp(g0 + (level[:, 0] - y0) * (g1 - g0) / (y1 - y0))
    keys = keys.copy()
    keys["gamma"] = np.where(found, at, np.nan)
    keys["x"] = keys["gamma"] * (1 - keys["rho"])
    return keys


def summary(
    values: pd.DataFrame,
    column: str,
    comparisons: int,
    confidence: float,
    keys: Sequence[str] = ("n", "rho"),
) -> pd.DataFrame:
    """Per value of ``keys``: the ``mean`` of ``column`` over the draws (NaN left out), the
    half-width of its simultaneous interval (``half``: t, Bonferroni over ``comparisons``; NaN
    below two draws) and the number of ``draws``."""
    grouped = values.groupby(list(keys))[column]
    found = pd.DataFrame({"mean": grouped.mean(), "sd": grouped.std(), "draws": grouped.count()})
    df = np.where(found["draws"] >= 2, found["draws"] - 1, np.nan)
    quantile = t_quantile(confidence, df, comparisons)
    found["half"] = quantile * found["sd"] / np.sqrt(found["draws"])
    return found.drop(columns="sd")


def boundary_table(
    table: pd.DataFrame, odds: float = ODDS, confidence: float = LEVEL
) -> pd.DataFrame:
    """Per ``(n, rho)``: the measured boundary over the draws, ``x`` (its ratio to
    ``1/(1 - rho)``) with its interval ``x_low``, ``x_high``, the same for ``gamma``,
    ``gamma_c = 1/(1 - rho)`` and the draws that bracketed a crossing.

    The interval is the simultaneous interval over the draws widened by ``grid``, the mean
    distance between the crossings read off the cubic and off straight lines between the
    grid's points: a bound on the interpolation's error, which the draws do not show."""
    found = crossings(table, odds)
    found["grid"] = (found["x"] - crossings(table, odds, refine=1)["x"]).abs()
    bounds = summary(found, "x", found["rho"].nunique(), confidence)
    bounds = bounds.join(found.groupby(["n", "rho"])["grid"].mean()).reset_index()
    bounds = bounds.rename(columns={"mean": "x"})
    width = bounds["half"] + bounds["grid"]
    bounds["x_low"], bounds["x_high"] = bounds["x"] - width, bounds["x"] + width
    bounds["gamma_c"] = 1 / (1 - bounds["rho"])
    for column in ("x", "x_low", "x_high"):
        bounds[column.replace("x", "gamma")] = bounds[column] * bounds["gamma_c"]
    return bounds.drop(columns="half")


def boundary_by_d(
    across: pd.DataFrame, odds: float = ODDS, confidence: float = LEVEL
) -> pd.DataFrame:
    """:func:`boundary_table` at each token dimension of a
    :func:`~attncore.simulate.simplex.dimension_sweep`, with its column ``d``."""
    return pd.concat(
        [boundary_table(rows, odds, confidence).assign(d=d) for d, rows in across.groupby("d")],
        ignore_index=True,
    )


def gain_table(gradients: pd.DataFrame, confidence: float = LEVEL) -> pd.DataFrame:
    """Per ``(d, factor, rho)`` of a :func:`~attncore.simulate.simplex.gradient_sweep`: the
    mean ``gain`` over the draws with its interval ``gain_low``, ``gain_high`` (Student t,
    simultaneous over the ``rho`` by Bonferroni; NaN below two draws) and the ``draws``.

    >>> gradients = pd.DataFrame({"d": 8, "factor": 0.5, "rho": 0.5, "gain": [0.2, 0.4]})
    >>> gain_table(gradients)[["gain", "draws"]].values.tolist()
    [[0.30000000000000004, 2.0]]
    """
    comparisons = gradients["rho"].nunique()
    found = summary(gradients, "gain", comparisons, confidence, keys=("d", "factor", "rho"))
    found = found.rename(columns={"mean": "gain"})
    found["gain_low"], found["gain_high"] = (
        found["gain"] - found["half"],
        found["gain"] + found["half"],
    )
    return found.drop(columns="half").reset_index()


def gain_values(gains: pd.DataFrame) -> dict[str, Any]:
    """The numbers of the gradient's gain on both sides of the critical scale (rows of
    :func:`gain_table`): the factors nearest 1 below and above it (``low``, ``high``; the
    smallest and the largest where one side has none) and, at each, one record per ``d`` with
    the range of the mean gain over the ``rho`` (``below``, ``above``).

    >>> gains = pd.DataFrame({"d": [8, 8, 8, 8], "factor": [0.5, 0.5, 2.0, 2.0],
    ...                       "rho": [0.2, 0.8] * 2, "gain": [0.1, 0.3, 0.9, 1.0]})
    >>> values = gain_values(gains)
    >>> values["low"], values["below"], values["above"]
    (0.5, [{'d': 8, 'x': (0.1, 0.3)}], [{'d': 8, 'x': (0.9, 1.0)}])
    """
    factors = sorted(float(f) for f in gains["factor"].unique())
    below, above = [f for f in factors if f < 1], [f for f in factors if f > 1]
    low = below[-1] if below else factors[0]
    high = above[0] if above else factors[-1]

    def at(factor: float) -> list[dict[str, Any]]:
        rows = gains[gains["factor"] == factor]
        return [{"d": int(d), "x": pair(group["gain"])} for d, group in rows.groupby("d")]

    return {"low": low, "high": high, "below": at(low), "above": at(high)}


def ratio_at(table: pd.DataFrame, factor: float) -> pd.DataFrame:
    """Per ``(n, draw, rho)``: the angle ratio at ``gamma = factor / (1 - rho)``,
    interpolated in ``ln gamma`` (:data:`REFINE`; NaN outside the grid).

    >>> table = pd.DataFrame({"n": 64, "draw": 0, "rho": 0.5, "scale": "grid",
    ...                       "gamma": [1.0, 4.0], "angle_ratio": [0.2, 0.8]})
    >>> float(ratio_at(table, 1.0)["angle_ratio"].iloc[0])
    0.5
    """
    keys, gammas, ratios = _curves(table)
    targets = np.log(factor / (1 - keys["rho"].to_numpy()))
    logs = np.log(gammas)
    inside = (targets >= logs[0]) & (targets <= logs[-1])
    right = np.clip(np.searchsorted(logs, targets), 1, len(logs) - 1)
    rows = np.arange(len(keys))
    share = (targets - logs[right - 1]) / (logs[right] - logs[right - 1])
    values = ratios[rows, right - 1] + share * (ratios[rows, right] - ratios[rows, right - 1])
    keys = keys.copy()
    keys["angle_ratio"] = np.where(inside, values, np.nan)
    return keys


def difference(
    last: pd.DataFrame, first: pd.DataFrame, comparisons: int, confidence: float
) -> pd.DataFrame:
    """Per ``rho``: the difference of two independent means (rows of :func:`summary`, last
    minus first) and the half-width of its simultaneous interval (``half``: Welch's standard
    error, the smaller draws' t)."""

    def error(rows: pd.DataFrame) -> pd.Series:  # back from half-width to standard error
        draws = np.maximum(rows["draws"] - 1, 1)
        return rows["half"] / t_quantile(confidence, draws, comparisons)

    draws = np.minimum(last["draws"], first["draws"])
    quantile = t_quantile(confidence, np.maximum(draws - 1, 1), comparisons)
    return pd.DataFrame(
        {
            "difference": last["mean"] - first["mean"],
            "half": quantile * np.sqrt(error(last) ** 2 + error(first) ** 2),
        }
    )


def change_with_n(values: pd.DataFrame, column: str, confidence: float = LEVEL) -> pd.DataFrame:
    """Per ``rho``: the change of ``column``'s mean over the draws from the smallest ``n`` to
    the largest, with its interval (:func:`difference`, simultaneous over the ``rho``).

    >>> values = pd.DataFrame({"n": [8] * 4 + [64] * 4, "rho": 0.5,
    ...                        "entropy": [0.5, 0.6, 0.5, 0.6, 0.8, 0.9, 0.8, 0.9]})
    >>> change_with_n(values, "entropy").round(3).values.tolist()
    [[0.3, 0.13]]
    """
    ns = sorted(values["n"].unique())
    comparisons = values["rho"].nunique()
    found = summary(values, column, comparisons, confidence)
    return difference(found.loc[ns[-1]], found.loc[ns[0]], comparisons, confidence)


def boundary_values(shown: pd.DataFrame, n: int) -> dict[str, Any]:
    """The numbers of the boundary at ``n`` (rows of :func:`boundary_table` indexed by ``rho``):
    the range of ``x`` (``boundary``) over the ``rhos``, the range of its ``intervals`` and the
    fewest ``draws``."""
    return {
        "n": n,
        "boundary": pair(shown["x"]),
        "rhos": listed(shown.index),
        "intervals": (float(shown["x_low"].min()), float(shown["x_high"].max())),
        "draws": int(shown["draws"].min()),
    }


def ends_values(low: pd.DataFrame, high: pd.DataFrame, n: int) -> dict[str, Any]:
    """The numbers of the transition's ends at ``n`` (rows of :func:`summary` of the angle
    ratio below and above the critical scale, indexed by ``rho``): the range of the mean ratio
    at the ``collapse`` end and at the ``identity`` end over the ``rhos``."""
    return {
        "n": int(n),
        "collapse": pair(low["mean"]),
        "identity": pair(high["mean"]),
        "rhos": listed(low.index),
    }


def growth_values(rows: pd.DataFrame, entropy: pd.DataFrame, ratio: pd.DataFrame) -> dict[str, Any]:
    """The numbers of a fixed scale's change with ``n`` (its ``rows`` of the sweep, and the
    changes of :func:`change_with_n` of the ``entropy`` and the angle ``ratio``): the first and
    last ``n``, the ``gammas`` there, and each change's range over the ``rhos``."""
    ns = sorted(rows["n"].unique())
    gammas = rows.groupby("n")["gamma"].first()
    return {
        "n": (int(ns[0]), int(ns[-1])),
        "gammas": (float(gammas[ns[0]]), float(gammas[ns[-1]])),
        "entropy": pair(entropy["difference"]),
        "ratio": pair(ratio["difference"]),
        "rhos": listed(entropy.index),
    }


def listed(rhos: Iterable[float]) -> list[float]:
    """The correlations, in order, as plain numbers.

    >>> listed(pd.Index([0.5, 0.1]))
    [0.1, 0.5]
    """
    return sorted(float(rho) for rho in rhos)


def pair(values: pd.Series) -> tuple[float, float]:
    """The smallest and the largest of ``values`` (NaN left out)."""
    return float(values.min()), float(values.max())
