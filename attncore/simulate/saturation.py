"""How the softmax saturates as the spread of its logits grows.

Rows of ``n_keys`` logits are drawn iid normal with standard deviation ``spread``. For
standard normal query and key components this is the distribution of one row of
``q.k_i / c`` *given* ``||q|| = sqrt(d)`` (within a row the logits share ``q``, so
unconditionally a row is a scale mixture of such rows), with ``spread = sqrt(d) / c``.
For each spread :func:`saturation_curve` reports the mean over rows of the normalized entropy, the
largest probability, the effective number of keys, the Frobenius norm of the softmax
Jacobian and the share of saturated rows, each with its standard error.

>>> curve = saturation_curve([0.01, 100.0], n_keys=8, n_rows=200, seed=0)
>>> curve["entropy_ratio"].round(2).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from attncore.checks import ParameterError, finite_array, positive_int
from attncore.measures import SATURATION_THRESHOLD, check_threshold
from attncore.random import SeedLike, make_rng
from attncore.simulate.tasks import run_tasks
from attncore.softmax import (
    effective_keys,
    entropy,
    jacobian_frobenius,
    softmax,
    uniform_jacobian_norm,
)

__all__ = [
    "ROW_METRICS",
    "JacobianLandmarks",
    "jacobian_agreement",
    "jacobian_landmarks",
    "keys_table",
    "saturation_curve",
    "shift_table",
    "tail_slopes",
]

ROW_METRICS = {
    "entropy_ratio": "entropy / ln n",
    "max_probability": "largest probability",
    "effective_keys": "effective number of keys",
    "jacobian_norm": "Jacobian Frobenius norm",
    "saturated": "share of saturated rows",
}


def saturation_curve(
    spreads: ArrayLike,
    n_keys: int,
    n_rows: int,
    seed: SeedLike,
    threshold: float = SATURATION_THRESHOLD,
) -> pd.DataFrame:
    """Mean row metrics (and standard errors, columns ``*_se``) of softmax(spread * z), z ~ N(0, 1).

    One standard normal matrix of shape ``(n_rows, n_keys)`` is drawn and multiplied by
    each spread, so the curves are smooth in the spread (common random numbers).
    A row is saturated when its largest probability exceeds ``threshold``.
    """
    grid = finite_array("spreads", spreads, ndim=1)
    if (grid <= 0).any():
        raise ParameterError("spreads must all be > 0")
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    n_rows = positive_int("n_rows", n_rows, minimum=2)
    threshold = check_threshold(threshold)
    z = make_rng(seed).standard_normal((n_rows, n_keys))
    records = []
    for spread in grid:
        s = softmax(spread * z)
        rows = {
            "entropy_ratio": entropy(s, normalized=True),
            "max_probability": s.max(axis=-1),
            "effective_keys": effective_keys(s),
            "jacobian_norm": jacobian_frobenius(s),
        }
        rows["saturated"] = (rows["max_probability"] > threshold).astype(float)
        record = {"spread": float(spread)}
        for name, values in rows.items():
            record[name] = values.mean()
            record[f"{name}_se"] = values.std(ddof=1) / np.sqrt(n_rows)
        records.append(record)
    return pd.DataFrame.from_records(records)


@dataclass(frozen=True)
class JacobianLandmarks:
    """Where the mean Jacobian norm of a :func:`saturation_curve` peaks and how it falls.

    ``uniform_norm`` is the norm for uniform attention, ``sqrt(n - 1) / n``; ``smallest_spread``
    and ``largest_spread`` are the ends of the grid;
    ``peak_*`` describe the grid point with the largest mean norm; ``peaked_*`` the grid
    point with the largest mean largest probability (the most peaked rows of the grid);
    ``spread_at_half`` is the first spread past the peak where the mean norm is below half
    its peak (NaN if none); ``tail_slope`` (with standard error ``tail_slope_se``) is the
    least-squares slope of log norm against log spread over the last decade of the grid
    (NaN with fewer than 3 points there).
    """

    uniform_norm: float
    smallest_spread: float
    largest_spread: float
    peak_spread: float
    peak_norm: float
    peak_norm_se: float
    peaked_spread: float
    peaked_max_probability: float
    peaked_norm: float
    peaked_norm_se: float
    spread_at_half: float
    tail_slope: float
    tail_slope_se: float


def _tail_slope(curve: pd.DataFrame) -> tuple[float, float]:
    """Least-squares slope (and its standard error) of log mean Jacobian norm against log
    spread over the last decade of ``curve``'s spreads; NaN with fewer than 3 points."""
    tail = curve[curve["spread"] >= curve["spread"].max() / 10]
    if len(tail) < 3:
        return float("nan"), float("nan")
    x, y = np.log(tail["spread"].to_numpy()), np.log(tail["jacobian_norm"].to_numpy())
    (slope, _), cov = np.polyfit(x, y, 1, cov=True)
    return float(slope), float(np.sqrt(cov[0, 0]))


def tail_slopes(
    spreads: ArrayLike, n_keys: int, n_rows: int, seeds: Sequence[SeedLike]
) -> np.ndarray:
    """The tail slope of :func:`jacobian_landmarks`, once per seed: each seed draws its own
    ``n_rows`` rows and the curve over the last decade of ``spreads``, so the spread of the
    slopes over seeds is the slope's own sampling spread.

    >>> slopes = tail_slopes(np.geomspace(1.0, 100.0, 21), 16, 300, [1, 2, 3])
    >>> slopes.shape, bool(np.all((slopes < -0.5) & (slopes > -1.5)))
    ((3,), True)
    """
    grid = finite_array("spreads", spreads, ndim=1)
    tail = grid[grid >= grid.max() / 10]
    return np.array(
        [_tail_slope(saturation_curve(tail, n_keys, n_rows, seed))[0] for seed in seeds]
    )


def jacobian_landmarks(curve: pd.DataFrame, n_keys: int) -> JacobianLandmarks:
    """The :class:`JacobianLandmarks` of ``curve`` (rows of ``n_keys`` logits).

    >>> curve = saturation_curve(np.geomspace(0.1, 100.0, 31), n_keys=16, n_rows=400, seed=1)
    >>> marks = jacobian_landmarks(curve, n_keys=16)
    >>> round(marks.uniform_norm, 4), bool(marks.peak_norm > marks.uniform_norm)
    (0.2421, True)
    >>> bool(-1.5 < marks.tail_slope < -0.5)
    True
    """
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    peak = curve.loc[curve["jacobian_norm"].idxmax()]
    peaked = curve.loc[curve["max_probability"].idxmax()]
    past = curve[curve["spread"] > peak["spread"]]
    below = past[past["jacobian_norm"] < 0.5 * peak["jacobian_norm"]]
    slope, slope_se = _tail_slope(curve)
    return JacobianLandmarks(
        uniform_norm=uniform_jacobian_norm(n_keys),
        smallest_spread=float(curve["spread"].min()),
        largest_spread=float(curve["spread"].max()),
        peak_spread=float(peak["spread"]),
        peak_norm=float(peak["jacobian_norm"]),
        peak_norm_se=float(peak["jacobian_norm_se"]),
        peaked_spread=float(peaked["spread"]),
        peaked_max_probability=float(peaked["max_probability"]),
        peaked_norm=float(peaked["jacobian_norm"]),
        peaked_norm_se=float(peaked["jacobian_norm_se"]),
        spread_at_half=float(below["spread"].iloc[0]) if len(below) else float("nan"),
        tail_slope=float(slope),
        tail_slope_se=slope_se,
    )


def shift_table(rows: ArrayLike, shifts: ArrayLike) -> pd.DataFrame:
    """How far ``softmax(rows + shift)`` is from ``softmax(rows)``, one table row per shift.

    Columns: ``shift``, ``largest_difference`` (largest absolute difference of
    probabilities), ``rounding`` (the spacing of floats at the largest shifted logit, the
    rounding error of adding the shift) and ``naive_finite`` (whether the softmax without
    the maximum subtracted stays finite).

    >>> table = shift_table(make_rng(0).standard_normal((10, 8)), [1.0, 750.0])
    >>> table["naive_finite"].tolist(), bool((table["largest_difference"] < 1e-12).all())
    ([True, False], True)
    """
    z = finite_array("rows", rows, ndim=2)
    grid = finite_array("shifts", shifts, ndim=1)
    base = softmax(z)
    records = []
    for shift in grid:
        shifted = z + shift
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            e = np.exp(shifted)
            naive = e / e.sum(axis=1, keepdims=True)
        records.append(
            {
                "shift": float(shift),
                "largest_difference": float(np.abs(softmax(shifted) - base).max()),
                "rounding": float(np.spacing(np.abs(shifted).max())),
                "naive_finite": bool(np.isfinite(naive).all()),
            }
        )
    return pd.DataFrame.from_records(records)


def _keys_part(n: int, spreads: np.ndarray, n_rows: int, seed: SeedLike, threshold: float):
    part = saturation_curve(spreads, n_keys=n, n_rows=n_rows, seed=seed, threshold=threshold)
    uniform = uniform_jacobian_norm(n)
    part.insert(0, "n_keys", n)
    part["uniform_norm"] = uniform
    part["top_over_uniform"] = n * part["max_probability"]
    part["top_over_uniform_se"] = n * part["max_probability_se"]
    part["norm_over_uniform"] = part["jacobian_norm"] / uniform
    part["norm_over_uniform_se"] = part["jacobian_norm_se"] / uniform
    return part


def keys_table(
    n_values: ArrayLike,
    spreads: ArrayLike,
    n_rows: int,
    seed: SeedLike,
    threshold: float = SATURATION_THRESHOLD,
    *,
    scheduler: object = None,
) -> pd.DataFrame:
    """:func:`saturation_curve` at ``spreads`` for every number of keys in ``n_values``.

    Adds the columns ``n_keys``, ``uniform_norm`` (the Jacobian norm of uniform attention,
    ``sqrt(n - 1) / n``), and the two measures relative to uniform attention:
    ``top_over_uniform`` (``n`` times the largest probability) and ``norm_over_uniform``
    (the Jacobian norm over ``uniform_norm``), each with its standard error.

    With an integer ``seed`` every number of keys draws from that seed on its own, and each
    is one task of :func:`attncore.simulate.tasks.run_tasks` (``scheduler``); a generator is
    drawn from in the order of ``n_values``, in this process.

    >>> t = keys_table([2, 64], [1.0], n_rows=200, seed=0)
    >>> t["n_keys"].tolist(), bool((t["top_over_uniform"] >= 1).all())
    ([2, 64], True)
    """
    sizes = [positive_int("n_keys", int(n), minimum=2) for n in np.atleast_1d(n_values)]
    grid = finite_array("spreads", spreads, ndim=1)
    work = functools.partial(
        _keys_part, spreads=grid, n_rows=n_rows, seed=seed, threshold=threshold
    )
    if isinstance(seed, np.random.Generator):
        parts = [work(n) for n in sizes]
    else:
        parts = run_tasks(work, sizes, keys=[(n,) for n in sizes], scheduler=scheduler)
    return pd.concat(parts, ignore_index=True)


def _complex_softmax(z: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of complex logits, the real parts' maximum subtracted."""
    e = np.exp(z - z.real.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def jacobian_agreement(
    n_rows: int, n_keys: int, spreads: ArrayLike, seed: SeedLike, symbolic_n: int = 4
) -> dict[str, float | int | bool]:
    """How far ``diag(s) - s s^T`` is from the Jacobian of the softmax computed without it.

    ``n_rows`` rows of ``n_keys`` standard normal logits are drawn for each spread and
    multiplied by it; the Jacobian of each row is computed by the complex step,
    ``ds/dz_j = Im softmax(z + i h e_j) / h`` with ``h = 1e-20``, which has no subtractive
    cancellation and is exact to rounding for an analytic function. Returns the number of
    rows and keys, ``largest_difference`` (largest absolute difference over all entries),
    ``rounding`` (``n_keys`` times the machine epsilon, a bound on the rounding of the sums
    in the softmax) and ``symbolic`` (whether sympy's derivative of the softmax with
    ``symbolic_n`` outputs equals ``diag(s) - s s^T``, see
    :func:`attncore.symbolic.jacobian.softmax_jacobian`).

    >>> a = jacobian_agreement(20, 5, [0.1, 10.0], seed=0)
    >>> a["rows"], a["symbolic"], bool(a["largest_difference"] <= a["rounding"])
    (40, True, True)
    """
    from attncore.symbolic.jacobian import softmax_jacobian

    grid = finite_array("spreads", spreads, ndim=1)
    n_rows = positive_int("n_rows", n_rows)
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    z = make_rng(seed).standard_normal((n_rows, n_keys))
    step = 1e-20
    worst = 0.0
    for spread in grid:
        rows = spread * z
        stepped = rows[:, None, :] + 1j * step * np.eye(n_keys)[None, :, :]
        # row r, step j, output i: d s_i / d z_j, transposed to J_ij
        numeric = np.swapaxes(_complex_softmax(stepped).imag / step, 1, 2)
        s = softmax(rows)
        formula = np.einsum("ri,ij->rij", s, np.eye(n_keys)) - s[:, :, None] * s[:, None, :]
        worst = max(worst, float(np.abs(numeric - formula).max()))
    try:
        softmax_jacobian(symbolic_n)
        symbolic = True
    except ArithmeticError:
        symbolic = False
    return {
        "rows": n_rows * grid.size,
        "keys": n_keys,
        "largest_difference": worst,
        "rounding": n_keys * float(np.finfo(float).eps),
        "symbolic": symbolic,
    }
