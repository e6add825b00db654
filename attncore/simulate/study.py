"""The study of every rescaling: its families, its rescalings, its sweeps, its curve.

Two chapters run the rescalings of :mod:`attncore.rescalings` on the same draws
(:func:`attncore.simulate.sweep.rescaling_sweep`, whose draws depend only on the family,
``d``, ``n`` and replicate), each sweeping only what it reads:

* *Every rescaling, measured* (:func:`run_study`): the **main setting** ``(d_main, n_main)``,
  every family, every rescaling and a grid of constant factors ``f / sqrt(d)`` that traces the
  distortion/selectivity curve; and the **standard normal grid** over ``d_values x n_values``
  (float32 products), every rescaling on the row and column through the main setting and
  the unscaled softmax and ``1/sqrt(d)`` everywhere;
* *1/k_total against the alternatives* (:func:`run_comparison`): a few rescalings paired in
  **every configuration**, every family at the main setting and at further settings, and the
  whole standard normal grid.

:func:`frontier_points` places every rescaling against the curve of constant factors, and
:func:`pair_rescalings` (in :mod:`attncore.simulate.sweep`) compares two rescalings on the
same draws, seed by seed.

>>> fams = study_families()
>>> list(fams)[:3]
['N(0, 1)', 'N(1, 1)', 'N(0, 2²)']
>>> list(study_rescalings(p_values=[3.0]))[5]
'key_p_norm_3'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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
from attncore.rescalings import RESCALINGS, Rescaling, from_callable, get_rescaling, inverse_k_total
from attncore.simulate.engine import attention_metrics
from attncore.simulate.sweep import (
    draw_generator,
    frontier_distortion,
    pair_rescalings,
    rescaling_sweep,
    scaled_sqrt_d,
    summarize,
)
from attncore.softmax import softmax

__all__ = [
    "GRADIENT_NAMES",
    "GRID_NAMES",
    "NORMAL",
    "Comparison",
    "ComparisonTables",
    "ReviewTables",
    "Study",
    "comparison_tables",
    "constant_factor_rescalings",
    "curve_steps",
    "family_moments",
    "frontier_grid",
    "frontier_points",
    "nearest",
    "prescaled_softmax_gap",
    "query_scale_sweep",
    "query_scale_table",
    "review_tables",
    "run_comparison",
    "run_study",
    "study_families",
    "study_rescalings",
]

NORMAL = "N(0, 1)"
"""The name of the standard normal family in every table of the study."""

GRADIENT_NAMES: tuple[str, ...] = ("none", "sqrt_d", "k_total")
"""The rescalings whose ``||ds/dq||`` every sweep of the study computes."""

PRICED_NAMES: tuple[str, ...] = ("sqrt_d", "k_total")
"""The rescalings whose ``||ds/dq||`` :func:`run_comparison` computes: the price of
1/k_total's lower saturation is read against 1/sqrt(d)."""

GRID_NAMES: tuple[str, ...] = ("none", "sqrt_d")
"""The rescalings :func:`run_study` sweeps over the whole standard normal grid (Vaswani et
al.'s comparison); the others only on the row and column through the main setting."""


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

    >>> family_moments(study_families(), 64).loc["N(0, 2²)", "Var(q·k)/d"]
    np.float64(16.0)
    """
    return pd.DataFrame(
        {
            "queries and keys": [m.label for m in families.values()],
            "E[k_j²]": [key_second_moment(m) for m in families.values()],
            "Var(q·k)/d": [m.dot_var(d) / d for m in families.values()],
        },
        index=pd.Index(list(families), name="family"),
    )


def study_rescalings(
    p_values: Iterable[float] = (3.0,), ssmax_s: float = 0.5
) -> dict[str, Rescaling]:
    """Every rescaling of the study, by its name in the tables: each registered one in the
    registry's order, with one p-norm of the key lengths per ``p`` (``key_p_norm_<p>``) and
    SSMax with ``s``. The constant ``beta`` is left out: constant factors are the study's
    constant-factor curve (:func:`constant_factor_rescalings`). A newly registered rescaling
    joins the study without an edit here.

    >>> rescalings = study_rescalings(p_values=[2.0, 4.0], ssmax_s=1.0)
    >>> [name for name in rescalings if name.startswith("key_p")], rescalings["ssmax"].label
    (['key_p_norm_2', 'key_p_norm_4'], 'SSMax (s = 1)')
    """
    table: dict[str, Rescaling] = {}
    for name in RESCALINGS:
        if name == "key_p_norm":
            table.update({f"key_p_norm_{p:g}": get_rescaling(name, p=p) for p in p_values})
        elif name == "ssmax":
            table[name] = get_rescaling(name, s=ssmax_s)
        elif name != "constant":
            table[name] = get_rescaling(name)
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
    """The replicate-level tables of :func:`run_study` (columns of
    :func:`attncore.simulate.sweep.rescaling_sweep`) and the grid's reference sizes.

    ``main`` holds the main setting, every family with the curve's constant factors;
    ``grid`` the standard normal grid. ``d_ref`` and ``n_ref`` are the grid's sizes nearest
    ``d_main`` and ``n_main``, where the grid computes every rescaling. ``settings`` holds
    the keyword arguments of :func:`run_study` that made it.
    """

    main: pd.DataFrame
    grid: pd.DataFrame
    d_ref: int
    n_ref: int
    settings: dict[str, object] = field(default_factory=dict)

    def summaries(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Means over replicates with standard errors (:func:`~attncore.simulate.sweep.summarize`)
        of ``main`` and ``grid``."""
        return summarize(self.main), summarize(self.grid)


def _grid_sweep(
    model: QueryKeyModel,
    rescalings: Mapping[str, Rescaling],
    d_values: Sequence[int],
    n_values: Sequence[int],
    *,
    grid_queries: int,
    gradient: bool | list[str],
    common: Mapping[str, object],
) -> pd.DataFrame:
    return rescaling_sweep(
        {NORMAL: model},
        rescalings,
        d_values,
        n_values,
        n_queries=grid_queries,
        gradient=gradient,
        dtype=np.float32,
        **common,  # type: ignore[arg-type]
    )


def run_study(
    families: Mapping[str, QueryKeyModel],
    rescalings: Mapping[str, Rescaling],
    multipliers: Sequence[float],
    *,
    d_main: int,
    n_main: int,
    n_queries: int,
    d_values: Sequence[int],
    n_values: Sequence[int],
    grid_queries: int,
    n_seeds: int,
    seed: int,
    threshold: float,
    scheduler: object = None,
) -> Study:
    """Run the sweeps of *Every rescaling, measured* on common random numbers.

    Every gradient is computed for the standard normal family at the main setting and on the
    grid; elsewhere only for :data:`GRADIENT_NAMES`. Off the grid's row ``n_ref`` and column
    ``d_ref`` only :data:`GRID_NAMES` run. The draws do not depend on how a sweep is split
    (:func:`~attncore.simulate.sweep.draw_generator`), nor on where the draws run
    (``scheduler``, see :func:`attncore.simulate.tasks.run_tasks`).

    >>> study = run_study(study_families(), study_rescalings(), [0.1, 10.0], d_main=8,
    ...     n_main=4, n_queries=50, d_values=[8, 16], n_values=[4], grid_queries=50,
    ...     n_seeds=2, seed=0, threshold=0.9)
    >>> len(study.main) == 8 * (len(study_rescalings()) + 2) * 2, study.d_ref, study.n_ref
    (True, 8, 4)
    """
    if NORMAL not in families:
        raise ParameterError(f"families must contain the standard normal family {NORMAL!r}")
    common = dict(seed=seed, threshold=threshold, n_seeds=n_seeds, scheduler=scheduler)
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
    d_ref, n_ref = nearest(d_values, d_main), nearest(n_values, n_main)
    few = {name: rescalings[name] for name in GRID_NAMES if name in rescalings}
    other_d = [d for d in d_values if d != d_ref]
    parts = [
        (rescalings, [d_ref], list(n_values)),
        (rescalings, other_d, [n_ref]),
        (few, other_d, [n for n in n_values if n != n_ref]),
    ]
    grid = pd.concat(
        [
            _grid_sweep(
                families[NORMAL],
                table,
                ds,
                ns,
                grid_queries=grid_queries,
                gradient=True,
                common=common,
            )
            for table, ds, ns in parts
            if ds and ns and table
        ]
    )
    settings = dict(
        d_main=d_main,
        n_main=n_main,
        n_queries=n_queries,
        n_seeds=n_seeds,
        seed=seed,
        threshold=threshold,
        d_values=list(d_values),
        n_values=list(n_values),
        grid_queries=grid_queries,
    )
    return Study(main, grid, int(d_ref), int(n_ref), settings)


@dataclass(frozen=True)
class Comparison:
    """The replicate-level tables of :func:`run_comparison`: ``families`` holds every family
    at every setting of the family comparison (the main setting first), ``grid`` the
    standard normal grid; ``settings`` the keyword arguments that made them."""

    families: pd.DataFrame
    grid: pd.DataFrame
    settings: dict[str, object] = field(default_factory=dict)

    def every(self) -> pd.DataFrame:
        """Every configuration measured: the family comparison and the standard normal grid,
        whose family is renamed ``N(0, 1) (grid)`` (its draws differ from the family table's)."""
        return pd.concat([self.families, self.grid.assign(family=NORMAL + " (grid)")])


def run_comparison(
    families: Mapping[str, QueryKeyModel],
    rescalings: Mapping[str, Rescaling],
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
    scheduler: object = None,
) -> Comparison:
    """Run ``rescalings`` in every configuration of *1/k_total against the alternatives*:
    every family at ``(d_main, n_main)`` and at each of ``family_settings``, and the standard
    normal grid, on the draws of :func:`run_study` (the same family, sizes, queries and
    seed give the same draw); ``||ds/dq||`` for :data:`PRICED_NAMES`.

    >>> small = {name: r for name, r in study_rescalings().items() if name in GRADIENT_NAMES}
    >>> comparison = run_comparison(study_families(), small, d_main=8, n_main=4,
    ...     n_queries=50, family_settings=[(16, 8)], d_values=[8], n_values=[4],
    ...     grid_queries=50, n_seeds=2, seed=0, threshold=0.9)
    >>> len(comparison.families) == 8 * 2 * 3 * 2, sorted(set(comparison.every()["d"]))
    (True, [8, 16])
    """
    if NORMAL not in families:
        raise ParameterError(f"families must contain the standard normal family {NORMAL!r}")
    common = dict(seed=seed, threshold=threshold, n_seeds=n_seeds, scheduler=scheduler)
    gradient = [g for g in PRICED_NAMES if g in rescalings]
    settings = list(dict.fromkeys([(d_main, n_main), *family_settings]))
    table = pd.concat(
        [
            rescaling_sweep(
                families, rescalings, [d], [n], n_queries=n_queries, gradient=gradient, **common
            )
            for d, n in settings
        ]
    )
    grid = _grid_sweep(
        families[NORMAL],
        rescalings,
        d_values,
        n_values,
        grid_queries=grid_queries,
        gradient=gradient,
        common=common,
    )
    made = dict(
        d_main=d_main,
        n_main=n_main,
        n_queries=n_queries,
        n_seeds=n_seeds,
        seed=seed,
        threshold=threshold,
        d_values=list(d_values),
        n_values=list(n_values),
        grid_queries=grid_queries,
    )
    return Comparison(table, grid, made)


def frontier_grid(
    model: QueryKeyModel,
    rescalings: Mapping[str, Rescaling],
    multipliers: Sequence[float],
    d_values: Sequence[int],
    n_values: Sequence[int],
    *,
    n_queries: int,
    n_seeds: int,
    seed: int,
    threshold: float,
    family: str = NORMAL,
    scheduler: object = None,
) -> pd.DataFrame:
    """The main setting's sweep of :func:`run_study` (every rescaling and the curve of
    constant factors ``multipliers / sqrt(d)``), for one family, at every ``(d, n)`` of the
    grid of the distinct ``d_values`` and ``n_values``: means over replicates with standard
    errors (:func:`summarize`). The draws are the
    study's (:func:`~attncore.simulate.sweep.draw_generator` keys them by family, ``d``,
    ``n`` and replicate), so at ``(d_main, n_main)`` the rows are those of the main sweep;
    no gradient reaching the query is computed (the softmax's own Jacobian is).

    >>> grid = frontier_grid(study_families()[NORMAL], study_rescalings(), [0.1, 10.0],
    ...     [16, 8, 16], [4], n_queries=50, n_seeds=2, seed=0, threshold=0.9)
    >>> sorted(set(zip(grid["d"], grid["n"]))), len(grid) == 2 * (len(study_rescalings()) + 2)
    ([(8, 4), (16, 4)], True)
    """
    curve = {**rescalings, **constant_factor_rescalings(multipliers)}
    table = rescaling_sweep(
        {family: model},
        curve,
        sorted(set(d_values)),
        sorted(set(n_values)),
        n_queries=n_queries,
        n_seeds=n_seeds,
        seed=seed,
        threshold=threshold,
        scheduler=scheduler,
    )
    return summarize(table)


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


def curve_steps(
    table: pd.DataFrame, names: Sequence[str], metrics: Sequence[str], family: str = NORMAL
) -> pd.DataFrame:
    """Consecutive points of a sequence of rescalings (e.g. the constant factors of the
    curve, in order), paired draw by draw: one row per step ``names[i] -> names[i + 1]``.

    Columns, for every metric ``m``: ``m_from`` and ``m_to`` (means over replicates),
    ``m_diff`` (mean paired difference, to minus from) and ``m_diff_se`` (its standard
    error over the replicates), ``step`` (``i``) and ``draws`` (the replicates paired).

    >>> toy = pd.DataFrame({"family": "f", "replicate": [0, 0, 1, 1],
    ...                     "rescaling": ["a", "b"] * 2, "w": [0.1, 0.3, 0.2, 0.3]})
    >>> row = curve_steps(toy, ["a", "b"], ["w"], family="f").iloc[0]
    >>> [round(float(row[c]), 3) for c in ["w_from", "w_to", "w_diff", "w_diff_se"]]
    [0.15, 0.3, 0.15, 0.05]
    """
    if len(names) < 2:
        raise ParameterError("names must hold at least two rescalings")
    part = table[(table["family"] == family) & table["rescaling"].isin(list(names))]
    missing = [name for name in names if name not in set(part["rescaling"])]
    if missing:
        raise ParameterError(f"rescalings not in the table for {family!r}: {', '.join(missing)}")
    rows = []
    for i, (before, after) in enumerate(itertools.pairwise(names)):
        first = part[part["rescaling"] == before].set_index("replicate")[list(metrics)]
        second = part[part["rescaling"] == after].set_index("replicate")[list(metrics)]
        first, second = first.align(second, join="inner")
        row: dict[str, float] = {"step": i}
        for m in metrics:
            diff = second[m] - first[m]
            row.update({f"{m}_from": first[m].mean(), f"{m}_to": second[m].mean()})
            row.update({f"{m}_diff": diff.mean(), f"{m}_diff_se": diff.sem(ddof=1)})
        row["draws"] = len(first)
        rows.append(row)
    return pd.DataFrame(rows)


def _scaled_k_total(scale: float) -> Rescaling:
    def factor(keys: np.ndarray, n: int, d: int) -> float:
        return scale * inverse_k_total(keys, n, d)

    return from_callable(
        factor, name=f"k_total_q{scale:g}", label=f"1/k_total, queries × {scale:g}"
    )


def query_scale_sweep(
    model: QueryKeyModel,
    scales: Sequence[float],
    *,
    d: int,
    n: int,
    n_queries: int,
    n_seeds: int,
    seed: int,
    threshold: float,
    family: str = NORMAL,
    scheduler: object = None,
) -> pd.DataFrame:
    """``1/k_total`` with every query multiplied by each of ``scales`` (keys unchanged), and
    ``1/sqrt(d)`` on the same draws (the draws of ``family`` at ``(d, n)`` in every sweep).

    Scaling the queries by ``a`` scales the logits ``q . k_i / k_total`` by ``a`` and leaves
    the standardized dot products unchanged, so the rows are :func:`rescaling_sweep`'s for
    the factors ``a / k_total``; ``query_scale`` holds ``a`` (NaN for ``sqrt_d``).

    >>> table = query_scale_sweep(study_families()[NORMAL], [1.0, 100.0], d=16, n=8,
    ...                           n_queries=100, n_seeds=2, seed=0, threshold=0.9)
    >>> w = table.groupby("rescaling")["wasserstein"].mean()
    >>> bool(w["k_total_q1"] < w["k_total_q100"]), sorted(set(table["query_scale"].dropna()))
    (True, [1.0, 100.0])
    """
    values = [positive_real("scale", a) for a in scales]
    if not values:
        raise ParameterError("scales must hold at least one scale")
    table = {f"k_total_q{a:g}": _scaled_k_total(a) for a in values}
    table["sqrt_d"] = get_rescaling("sqrt_d")
    out = rescaling_sweep(
        {family: model},
        table,
        [d],
        [n],
        n_queries=n_queries,
        n_seeds=n_seeds,
        seed=seed,
        threshold=threshold,
        scheduler=scheduler,
    )
    scale_of = {f"k_total_q{a:g}": a for a in values}
    out["query_scale"] = out["rescaling"].map(scale_of)
    return out


def query_scale_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per query scale of a :func:`query_scale_sweep`: the mean W1, paired over the draws
    against the smallest scale (``rise``), against ``1/sqrt(d)`` (``above_sqrt_d``) and
    against the previous scale (``step``), each with its standard error (``_se``), and the
    number of draws (``draws``).

    >>> raw = query_scale_sweep(study_families()[NORMAL], [1.0, 10.0, 100.0], d=16, n=8,
    ...                         n_queries=100, n_seeds=2, seed=0, threshold=0.9)
    >>> list(query_scale_table(raw).index)
    [1.0, 10.0, 100.0]
    """
    scaled = table.dropna(subset=["query_scale"])
    names = list(scaled.sort_values("query_scale")["rescaling"].drop_duplicates())
    if not names:
        raise ParameterError("table must hold a query_scale_sweep")
    by_replicate = table.pivot_table(
        index="replicate", columns="rescaling", values="wasserstein", aggfunc="mean"
    )
    rows = []
    for i, name in enumerate(names):
        w = by_replicate[name]
        row = {"query_scale": float(scaled.loc[scaled["rescaling"] == name, "query_scale"].iloc[0])}
        row["wasserstein"], row["wasserstein_se"] = w.mean(), w.sem(ddof=1)
        row["draws"] = int(w.count())
        for key, other in [
            ("rise", names[0]),
            ("above_sqrt_d", "sqrt_d"),
            ("step", names[max(i - 1, 0)]),
        ]:
            diff = w - by_replicate[other]
            row[key], row[f"{key}_se"] = diff.mean(), diff.sem(ddof=1)
        rows.append(row)
    return pd.DataFrame(rows).set_index("query_scale")


def prescaled_softmax_gap(
    model: QueryKeyModel, *, d: int, n: int, n_queries: int, seed: int
) -> float:
    """Bernhard's "prescaled softmax": the largest difference between ``softmax(Q K^T / sqrt(d))``
    computed directly on the raw dot products and the engine's ``1/sqrt(d)`` attention
    (which scales the queries before the product), on one draw of ``model``.

    >>> gap = prescaled_softmax_gap(study_families()[NORMAL], d=64, n=32, n_queries=100, seed=0)
    >>> gap < 1e-12
    True
    """
    rng = draw_generator(seed, "prescaled softmax", d, n, 0)
    queries, keys = model.sample(rng, n_queries, n, d)
    direct = softmax((queries @ keys.T) / math.sqrt(d), axis=1)
    engine = attention_metrics(queries, keys, "sqrt_d", columns=range(n)).columns
    return float(np.abs(direct - engine).max())


@dataclass(frozen=True)
class ReviewTables:
    """The measured tables behind the review's claims that *Every rescaling, measured*
    decides (the arguments of :func:`attncore.claims.rules.rescalings.review_findings`, by
    name)."""

    prescaled_gap: float
    curve_steps: pd.DataFrame
    grid: pd.DataFrame
    family_sqrt_d: pd.DataFrame
    sqrt_vs_none_grid: pd.DataFrame
    main: str
    grid_setting: str


def _main_words(settings: Mapping[str, object]) -> str:
    return (
        f"standard normal, d = {settings['d_main']}, n = {settings['n_main']}, "
        f"{settings['n_seeds']} draws of {settings['n_queries']} queries"
    )


def review_tables(study: Study, model: QueryKeyModel, multipliers: Sequence[float]) -> ReviewTables:
    """Every table the review's claims of :func:`run_study`'s chapter read, from a
    :class:`Study` run with ``multipliers``, plus the prescaled-softmax gap on one draw of
    ``model`` at the main setting. ``main`` and ``grid_setting`` describe the settings in
    words.

    >>> study = run_study(study_families(), study_rescalings(), [0.1, 10.0], d_main=8,
    ...     n_main=4, n_queries=50, d_values=[8, 16], n_values=[4], grid_queries=50,
    ...     n_seeds=2, seed=0, threshold=0.9)
    >>> tables = review_tables(study, study_families()[NORMAL], [0.1, 10.0])
    >>> len(tables.curve_steps), tables.prescaled_gap < 1e-12
    (1, True)
    """
    st = study.settings
    main_summary, grid_summary = study.summaries()
    family_sqrt_d = main_summary[main_summary["rescaling"] == "sqrt_d"]
    return ReviewTables(
        prescaled_gap=prescaled_softmax_gap(
            model,
            d=int(st["d_main"]),
            n=int(st["n_main"]),
            n_queries=int(st["n_queries"]),
            seed=int(st["seed"]),
        ),
        curve_steps=curve_steps(
            study.main,
            list(constant_factor_rescalings(multipliers)),
            ["wasserstein", "extreme_share", "jacobian_norm"],
        ),
        grid=grid_summary[grid_summary["rescaling"].isin(["none", "sqrt_d"])],
        family_sqrt_d=family_sqrt_d.set_index("family"),
        sqrt_vs_none_grid=pair_rescalings(
            study.grid, "sqrt_d", "none", ["extreme_share", "jacobian_norm"]
        ),
        main=_main_words(st),
        grid_setting=f"standard normal grid d in {st['d_values']}, n in {st['n_values']}, "
        f"{st['n_seeds']} draws of {st['grid_queries']} queries",
    )


@dataclass(frozen=True)
class ComparisonTables:
    """The measured tables behind the review's claims that *1/k_total against the
    alternatives* decides (the arguments of
    :func:`attncore.claims.rules.rescalings.comparison_findings`, by name)."""

    query_scales: pd.DataFrame
    sqrt_vs_none: pd.DataFrame
    k_vs_sqrt: pd.DataFrame
    main: str
    every: str


def comparison_tables(
    comparison: Comparison, model: QueryKeyModel, query_scales: Sequence[float]
) -> ComparisonTables:
    """Every table the review's claims of :func:`run_comparison`'s chapter read: pairs over
    every configuration of ``comparison`` and the query-scale sweep
    (:func:`query_scale_sweep`) of ``model`` at its main setting and seed. ``main`` and
    ``every`` describe the settings in words.

    >>> small = {name: r for name, r in study_rescalings().items() if name in GRADIENT_NAMES}
    >>> comparison = run_comparison(study_families(), small, d_main=8, n_main=4,
    ...     n_queries=50, family_settings=[], d_values=[8], n_values=[4], grid_queries=50,
    ...     n_seeds=2, seed=0, threshold=0.9)
    >>> tables = comparison_tables(comparison, study_families()[NORMAL], [1.0, 10.0])
    >>> list(tables.query_scales.index), len(tables.k_vs_sqrt)
    ([1.0, 10.0], 9)
    """
    st = comparison.settings
    every = comparison.every()
    k_metrics = ["wasserstein", "selectivity", "effective_share", "saturated_share"]
    k_metrics += ["extreme_share", "gradient_norm"]
    scaled = query_scale_sweep(
        model,
        query_scales,
        d=int(st["d_main"]),
        n=int(st["n_main"]),
        n_queries=int(st["n_queries"]),
        n_seeds=int(st["n_seeds"]),
        seed=int(st["seed"]),
        threshold=float(st["threshold"]),
    )
    return ComparisonTables(
        query_scales=query_scale_table(scaled),
        sqrt_vs_none=pair_rescalings(every, "sqrt_d", "none", ["wasserstein"]),
        k_vs_sqrt=pair_rescalings(every, "k_total", "sqrt_d", k_metrics),
        main=_main_words(st),
        every="every family at every (d, n) of the family comparison and the standard normal "
        f"grid, {st['n_seeds']} draws each, paired over draws",
    )
