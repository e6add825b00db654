"""The study of every rescaling: its families, its rescalings, its three sweeps, its curve.

The chapter *Every rescaling, measured* runs every rescaling of :mod:`attncore.rescalings`
on the same draws (:func:`attncore.simulate.sweep.rescaling_sweep`) in three sweeps:

* the **main setting** ``(d_main, n_main)``: every family, every rescaling and a grid of
  constant factors ``f / sqrt(d)`` that traces the distortion/selectivity curve;
* **further settings** of the family comparison, one ``(d, n)`` each;
* the **standard normal grid** over ``d_values x n_values`` (float32 products).

:func:`run_study` returns them as one :class:`Study`; :func:`frontier_points` places every
rescaling against the curve of constant factors, and :func:`pair_rescalings` (in
:mod:`attncore.simulate.sweep`) compares two rescalings on the same draws, seed by seed.

>>> fams = study_families()
>>> list(fams)[:3]
['N(0, 1)', 'N(1, 1)', 'N(0, 2²)']
>>> list(study_rescalings(p_values=[3.0]))[5]
'key_p_norm_3'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attncore.checks import ParameterError, positive_real
from attncore.distributions import (
    Correlated,
    Independent,
    Laplace,
    Normal,
    Projected,
    QueryKeyModel,
    StudentT,
    Uniform,
    key_second_moment,
)
from attncore.rescalings import Rescaling, get_rescaling
from attncore.simulate.sweep import frontier_distortion, rescaling_sweep, scaled_sqrt_d, summarize

__all__ = [
    "GRADIENT_NAMES",
    "NORMAL",
    "Study",
    "constant_factor_rescalings",
    "family_moments",
    "frontier_points",
    "nearest",
    "run_study",
    "study_families",
    "study_rescalings",
]

NORMAL = "N(0, 1)"
"""The name of the standard normal family in every table of the study."""

GRADIENT_NAMES: tuple[str, ...] = ("none", "sqrt_d", "k_total")
"""The rescalings whose ``||ds/dq||`` every sweep of the study computes."""


def study_families(
    shift_mean: float = 1.0,
    wide_sd: float = 2.0,
    t_df: float = 3.0,
    rho: float = 0.5,
    d_x: int = 64,
    sigma_w: float = 0.2,
) -> dict[str, QueryKeyModel]:
    """The eight query/key families of the study, by name; the standard normal first, then
    the two with changed moments, then the other families.

    >>> list(study_families(t_df=4.0, rho=0.25))[5:7]
    ['t(4)', 'correlated ρ = 0.25']
    """
    return {
        NORMAL: Independent(),
        f"N({shift_mean:g}, 1)": Independent(Normal(shift_mean, 1.0), Normal(shift_mean, 1.0)),
        f"N(0, {wide_sd:g}²)": Independent(Normal(0.0, wide_sd), Normal(0.0, wide_sd)),
        "U(-1, 1)": Independent(Uniform(-1.0, 1.0), Uniform(-1.0, 1.0)),
        "Laplace(0, 1)": Independent(Laplace(0.0, 1.0), Laplace(0.0, 1.0)),
        f"t({t_df:g})": Independent(StudentT(t_df), StudentT(t_df)),
        f"correlated ρ = {rho:g}": Correlated(rho),
        f"projected d_x = {d_x}": Projected(d_x=d_x, sigma_wq=sigma_w, sigma_wk=sigma_w),
    }


def family_moments(families: Mapping[str, QueryKeyModel], d: int) -> pd.DataFrame:
    """Per family: its label, ``E[k_j^2]`` of a key component and ``Var(q.k) / d`` at ``d``.

    >>> family_moments(study_families(), 64).loc["N(0, 2²)", "Var(q.k) / d"]
    np.float64(16.0)
    """
    return pd.DataFrame(
        {
            "queries and keys": [m.label for m in families.values()],
            "E[k_j^2]": [key_second_moment(m) for m in families.values()],
            "Var(q.k) / d": [m.dot_var(d) / d for m in families.values()],
        },
        index=pd.Index(list(families), name="family"),
    )


def study_rescalings(
    p_values: Iterable[float] = (3.0,), ssmax_s: float = 0.5
) -> dict[str, Rescaling]:
    """Every rescaling of the study, by its name in the tables: the registered ones, one
    p-norm of the key lengths per ``p`` (``key_p_norm_<p>``) and SSMax with ``s``.

    >>> rescalings = study_rescalings(p_values=[2.0, 4.0], ssmax_s=1.0)
    >>> [name for name in rescalings if name.startswith("key_p")], rescalings["ssmax"].label
    (['key_p_norm_2', 'key_p_norm_4'], 'SSMax (s = 1)')
    """
    named = ["none", "sqrt_d", "k_total", "mean_key_length", "key_rss"]
    table = {name: get_rescaling(name) for name in named}
    table.update({f"key_p_norm_{p:g}": get_rescaling("key_p_norm", p=p) for p in p_values})
    for name in ["n_sqrt_d", "mup", "log_n", "log512_n"]:
        table[name] = get_rescaling(name)
    table["ssmax"] = get_rescaling("ssmax", s=ssmax_s)
    table["qk_norm"] = get_rescaling("qk_norm")
    return table


def constant_factor_rescalings(multipliers: Iterable[float]) -> dict[str, Rescaling]:
    """The constant factors ``f / sqrt(d)`` of the curve, named ``curve_000``, ``curve_001``...

    >>> list(constant_factor_rescalings([0.1, 1.0]))
    ['curve_000', 'curve_001']
    """
    return {f"curve_{i:03d}": scaled_sqrt_d(f) for i, f in enumerate(multipliers)}


def nearest(values: Iterable[float], target: float) -> float:
    """The value closest to ``target`` on a logarithmic scale.

    >>> nearest([16, 32, 64, 128], 50)
    64
    """
    target = positive_real("target", target)
    return min(values, key=lambda v: abs(math.log(positive_real("value", v) / target)))


@dataclass(frozen=True)
class Study:
    """The replicate-level tables of the three sweeps (columns of
    :func:`attncore.simulate.sweep.rescaling_sweep`) and the grid's reference sizes.

    ``main`` holds the main setting, with the curve's constant factors; ``families`` every
    family at every setting of the family comparison (main setting included), without the
    curve; ``grid`` the standard normal grid. ``d_ref`` and ``n_ref`` are the grid's sizes
    nearest ``d_main`` and ``n_main``, where the grid computes every rescaling's gradient.
    """

    main: pd.DataFrame
    families: pd.DataFrame
    grid: pd.DataFrame
    d_ref: int
    n_ref: int

    def summaries(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """Means over replicates with standard errors (:func:`~attncore.simulate.sweep.summarize`)
        of ``main``, ``families`` and ``grid``."""
        return summarize(self.main), summarize(self.families), summarize(self.grid)

    def comparison_table(self) -> pd.DataFrame:
        """Every configuration measured: the family comparison and the standard normal grid,
        whose family is renamed ``N(0, 1) (grid)`` (its draws differ from the family table's)."""
        return pd.concat([self.families, self.grid.assign(family=NORMAL + " (grid)")])


def run_study(
    families: Mapping[str, QueryKeyModel],
    rescalings: Mapping[str, Rescaling],
    multipliers: Sequence[float],
    *,
    d_main: int,
    n_main: int,
    n_queries: int,
    family_settings: Sequence[tuple[int, int]],
    d_values: Sequence[int],
    n_values: Sequence[int],
    grid_queries: int,
    n_seeds: int,
    seed: int,
    threshold: float,
) -> Study:
    """Run the three sweeps of the study on common random numbers.

    Every gradient is computed for the standard normal family at the main setting and on the
    grid's row ``n_ref`` and column ``d_ref``; elsewhere only for :data:`GRADIENT_NAMES`. The
    draws do not depend on how a sweep is split (:func:`~attncore.simulate.sweep.draw_generator`).

    >>> study = run_study(study_families(), study_rescalings(), [0.1, 10.0], d_main=8,
    ...     n_main=4, n_queries=50, family_settings=[], d_values=[8, 16], n_values=[4],
    ...     grid_queries=50, n_seeds=2, seed=0, threshold=0.9)
    >>> len(study.main) == 8 * (len(study_rescalings()) + 2) * 2, study.d_ref, study.n_ref
    (True, 8, 4)
    """
    if NORMAL not in families:
        raise ParameterError(f"families must contain the standard normal family {NORMAL!r}")
    common = dict(seed=seed, threshold=threshold, n_seeds=n_seeds)
    gradient = [g for g in GRADIENT_NAMES if g in rescalings]
    others = {name: model for name, model in families.items() if name != NORMAL}
    curve = {**rescalings, **constant_factor_rescalings(multipliers)}
    main = pd.concat(
        [
            rescaling_sweep(
                models, curve, [d_main], [n_main], n_queries=n_queries, gradient=grad, **common
            )
            for models, grad in [({NORMAL: families[NORMAL]}, True), (others, gradient)]
            if models
        ]
    )
    further = [
        rescaling_sweep(
            families, rescalings, [d], [n], n_queries=n_queries, gradient=gradient, **common
        )
        for d, n in family_settings
    ]
    table = pd.concat([main[main["rescaling"].isin(list(rescalings))], *further])
    table = table.drop_duplicates(["family", "d", "n", "replicate", "rescaling"])
    d_ref, n_ref = nearest(d_values, d_main), nearest(n_values, n_main)
    parts = [
        ([d_ref], list(n_values), True),
        ([d for d in d_values if d != d_ref], [n_ref], True),
        ([d for d in d_values if d != d_ref], [n for n in n_values if n != n_ref], gradient),
    ]
    grid = pd.concat(
        [
            rescaling_sweep(
                {NORMAL: families[NORMAL]},
                rescalings,
                ds,
                ns,
                n_queries=grid_queries,
                gradient=grad,
                dtype=np.float32,
                **common,
            )
            for ds, ns, grad in parts
            if ds and ns
        ]
    )
    return Study(main, table, grid, int(d_ref), int(n_ref))


def frontier_points(summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a summary of the main setting into the constant-factor curve and the rescalings.

    Returns ``(curves, points)``: the rows of the ``curve_*`` rescalings with a selectivity
    above 0 (the curve is read on a log scale), and the other rows with ``off_curve``, their
    distortion minus the curve's distortion at their selectivity, family by family (NaN
    where the selectivity is outside the curve).

    >>> summary = pd.DataFrame({"family": "f", "rescaling": ["curve_000", "curve_001", "r"],
    ...                         "selectivity": [0.01, 0.1, 0.0316],
    ...                         "wasserstein": [0.1, 0.3, 0.25]})
    >>> curves, points = frontier_points(summary)
    >>> len(curves), round(float(points["off_curve"].iloc[0]), 3)
    (2, 0.05)
    """
    on_curve = summary["rescaling"].str.startswith("curve_")
    curves = summary[on_curve & (summary["selectivity"] > 0)]
    points = summary[~on_curve].copy()
    points["off_curve"] = np.nan
    for family, part in curves.groupby("family"):
        at = points["family"] == family
        points.loc[at, "off_curve"] = points.loc[at, "wasserstein"] - frontier_distortion(
            part["selectivity"], part["wasserstein"], points.loc[at, "selectivity"]
        )
    return curves, points
