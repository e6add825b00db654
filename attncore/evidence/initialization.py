"""The numbers the rules of "Beyond initialization" read: fitted exponents, the misses of the
searches for beta and their binomial tests, where the exact search ended against the grid,
and the moments of the library defaults' initializers.

>>> table = example_moments()
>>> defaults(table)["label"].tolist(), largest_moments(table)
(['a', 'b'], {'mean_z': 1.0, 'cov_z': 8.0, 'corr': 0.015})
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, Protocol

import numpy as np
import pandas as pd
from scipy.stats import binom

from attncore.intervals import binomial_interval

__all__ = [
    "Fit",
    "defaults",
    "exact_search",
    "example_fit",
    "example_moments",
    "fit_values",
    "grid_edges",
    "labelled",
    "largest_moments",
    "miss_records",
    "miss_tests",
    "ranges",
    "search_record",
    "weight_records",
]


class Fit(Protocol):
    """A fitted slope with its standard error over ``points`` points, such as
    :class:`attncore.simulate.weights.Slope`."""

    @property
    def slope(self) -> float: ...
    @property
    def se(self) -> float: ...
    @property
    def points(self) -> int: ...


def fit_values(fit: Fit) -> dict[str, Any]:
    """A fitted exponent's values: its ``slope``, the ``points`` that fixed it and its ``se``
    where it has one (a line through two points has none)."""
    values: dict[str, Any] = {"slope": float(fit.slope), "points": int(fit.points)}
    if not math.isnan(fit.se):
        values["se"] = float(fit.se)
    return values


def miss_tests(
    errors: Mapping[int, Sequence[float]], miss_decades: float, miss_share: float
) -> dict[int, tuple[float, float]]:
    """Per subsample size, the share of searches ending more than ``miss_decades`` from the
    optimum and the p-value of a one-sided binomial test of that share against ``miss_share``.

    >>> miss_tests({10: [0.2] * 3 + [0.0] * 7}, 0.1, 0.05)
    {10: (0.3, 0.0115...)}
    """
    out = {}
    for items, errs in errors.items():
        e = np.asarray(errs, dtype=float)
        misses = int(np.sum(e > miss_decades))
        out[items] = (misses / e.size, float(binom.sf(misses - 1, e.size, miss_share)))
    return out


def miss_records(
    errors: Mapping[int, Sequence[float]], miss_decades: float
) -> list[dict[str, Any]]:
    """Per subsample size (``items`` per evaluation), the ``percent`` of searches that end
    more than ``miss_decades`` from the optimum, with its Wilson interval (``low``, ``high``).

    >>> miss_records({100: [0.5, 0.0, 0.0, 0.0]}, 0.1)
    [{'percent': 25.0, 'low': 4.5..., 'high': 69.9..., 'items': 100}]
    """
    records = []
    for items, errs in errors.items():
        e = np.asarray(errs, dtype=float)
        misses = int(np.sum(e > miss_decades))
        low, high = binomial_interval(misses, e.size)
        records.append(
            {
                "percent": 100 * misses / e.size,
                "low": 100 * low,
                "high": 100 * high,
                "items": int(items),
            }
        )
    return records


def grid_edges(betas: np.ndarray, values: np.ndarray) -> dict[str, Any]:
    """The size of a grid of betas (``grid``), its best beta (``best``) and its ends
    (``edges``)."""
    best = float(betas[int(np.argmax(values))])
    return {"grid": betas.size, "best": best, "edges": (float(betas[0]), float(betas[-1]))}


def exact_search(
    betas: np.ndarray,
    values: np.ndarray,
    found_beta: float,
    found_value: float,
    tolerance: float,
    evaluations: int,
) -> tuple[dict[str, Any], float, float]:
    """Where the search on the exact objective ended against the grid's optimum (the ``grid``'s
    size, ``found``, ``optimum``, the ``decades`` between them and the objective at each,
    ``found_value`` and ``optimum_value``, and its ``evaluations``), then the grid's step in
    decades and the objective's fall from the optimum within ``tolerance`` decades of it.

    >>> b = np.geomspace(0.1, 100, 31)
    >>> said, step, fall = exact_search(b, -np.log10(b / 5.0) ** 2, 5.0, 0.0, 0.1, 19)
    >>> round(said["optimum"], 2), round(step, 2), round(fall, 3)
    (5.01, 0.1, 0.01)
    """
    best = int(np.argmax(values))
    beta_hat, value_hat = float(betas[best]), float(values[best])
    step = float(np.log10(betas[1] / betas[0]))
    near = np.abs(np.log10(betas / beta_hat)) <= tolerance
    said = {
        "grid": betas.size,
        "found": float(found_beta),
        "optimum": beta_hat,
        "decades": abs(math.log10(found_beta / beta_hat)),
        "found_value": float(found_value),
        "optimum_value": value_hat,
        "evaluations": int(evaluations),
    }
    return said, step, value_hat - float(values[near].min())


def search_record(
    found_beta: float, grid_beta: float, tolerance: float, scan_evaluations: int, evaluations: int
) -> dict[str, Any]:
    """The search on the exact objective: the beta it ``found``, the grid's ``optimum``, whether
    it ended ``within`` its ``tolerance`` (decades) of it, and the evaluations of its ``scan``
    and in all (``evaluations``)."""
    decades = abs(math.log10(found_beta / grid_beta))
    return {
        "found": float(found_beta),
        "optimum": float(grid_beta),
        "within": bool(decades <= tolerance),
        "tolerance": float(tolerance),
        "scan": int(scan_evaluations),
        "evaluations": int(evaluations),
    }


def weight_records(rho_values: Sequence[float], weights: Sequence[float]) -> list[dict[str, float]]:
    """Per correlation ``rho``, the ``weight`` on the aligned key."""
    return [{"rho": float(r), "weight": float(w)} for r, w in zip(rho_values, weights, strict=True)]


def defaults(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a table of initializer moments that are library defaults."""
    return table[table["default"].astype(bool)]


def labelled(rows: pd.DataFrame, **columns: str) -> list[dict[str, Any]]:
    """Per row, its ``label`` and the value of each of ``columns`` under its keyword."""
    return [
        {"label": str(r["label"]), **{name: float(r[column]) for name, column in columns.items()}}
        for _, r in rows.iterrows()
    ]


def largest_moments(rows: pd.DataFrame) -> dict[str, float]:
    """The largest ``|mean z|`` (``mean_z``), ``|cov z|`` (``cov_z``) and correlation
    (``corr``) over the rows."""
    return {
        "mean_z": float(rows["largest |mean z|"].max()),
        "cov_z": float(rows["largest |cov z|"].max()),
        "corr": float(rows["largest |corr|"].max()),
    }


def ranges(rows: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """The range of the rows' weight variances (``weights``) and of the variances of their Q
    and K entries (``qk``)."""
    w, qk = rows["weight variance"], rows[["Q variance", "K variance"]]
    return {
        "weights": (float(w.min()), float(w.max())),
        "qk": (float(qk.min().min()), float(qk.max().max())),
    }


def example_fit() -> SimpleNamespace:
    """A fitted exponent for examples: 2.01 with standard error 0.03 over 6 points."""
    return SimpleNamespace(slope=2.01, se=0.03, points=6)


def example_moments() -> pd.DataFrame:
    """A table of two defaults' moments for examples: neither draws unit-variance weights, the
    Q and K entries of ``b`` have unit variance, ``a``'s covariances are significant."""
    return pd.DataFrame(
        {
            "label": ["a", "b"],
            "default": [True, True],
            "weight variance": [0.005, 0.008],
            "weight variance SE": [1e-5, 1e-5],
            "weight mean z": [0.1, 0.2],
            "Q variance": [0.34, 1.0],
            "Q variance SE": [0.01, 0.01],
            "K variance": [0.34, 1.0],
            "K variance SE": [0.01, 0.01],
            "largest |mean z|": [1.0, 1.0],
            "largest |cov z|": [8.0, 1.0],
            "largest |corr|": [0.015, 0.002],
        }
    )
