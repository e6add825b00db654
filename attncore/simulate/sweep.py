"""Every rescaling over models of queries and keys, dimensions and key counts: one tidy table.

:func:`rescaling_sweep` draws, for every model, dimension ``d``, number of keys ``n`` and
replicate, one set of ``n`` keys and ``n_queries`` queries, and runs every rescaling on
that same draw (common random numbers), so rescalings differ only by what they do to the
same dot products. Per rescaling, one row of the table holds

* the **distortion** of the first component (the measures of
  :func:`attncore.metrics.distortion`, computed by its fast twin
  :class:`attncore.metrics.ShapeReference`): the sample
  ``q_i . k_1`` over the queries (the raw dot products, before any rescaling) against
  ``softmax(...)_1`` of the same queries, both standardized: Wasserstein-1,
  Kolmogorov-Smirnov, change of skewness and of excess kurtosis;
* the **selectivity** of the attention: mean normalized entropy ``H / ln n`` and
  ``selectivity = 1 - H / ln n`` (0 for uniform attention, 1 for one-hot), mean effective
  number of keys over ``n``, mean largest probability and share of saturated rows;
* the **gradients**: mean Frobenius norm of the softmax Jacobian and, for the rescalings
  named by ``gradient``, the mean and median of ``||ds/dq||_F`` including the rescaling's
  factor (:func:`attncore.engine.attention_metrics`).

A rescaling that multiplies every logit by a factor ``c(K)`` gives, on one draw, exactly
the softmax of a constant ``beta = c(K)``: such rescalings all lie on the curve traced by
constant factors (:func:`scaled_sqrt_d` over a grid), and :func:`frontier_distortion`
reads that curve at a given selectivity.

>>> from attncore.distributions import Independent
>>> table = rescaling_sweep(
...     {"normal": Independent()}, ["sqrt_d", "k_total"], d_values=[16], n_values=[8],
...     n_queries=200, n_seeds=2, seed=0,
... )
>>> len(table), sorted(table["rescaling"].unique())
(4, ['k_total', 'sqrt_d'])
>>> summary = summarize(table).set_index("rescaling")
>>> bool(summary.loc["k_total", "selectivity"] < summary.loc["sqrt_d", "selectivity"])
True
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, DTypeLike

from attncore.checks import ParameterError, finite_array, positive_int, positive_real, table_with
from attncore.distributions import QueryKeyModel
from attncore.measures import (
    SATURATION_THRESHOLD,
    ShapeReference,
    check_threshold,
    extreme_share,
)
from attncore.random import stream
from attncore.rescalings import Rescaling, from_callable, get_rescaling
from attncore.simulate.engine import attention_metrics
from attncore.simulate.tasks import run_tasks

__all__ = [
    "GROUP_KEYS",
    "METRICS",
    "draw_generator",
    "frontier_distortion",
    "loglog_slopes",
    "pair_rescalings",
    "rescaling_sweep",
    "scaled_sqrt_d",
    "summarize",
]

METRICS: dict[str, str] = {
    "wasserstein": "Wasserstein-1 distance, standardized first component",
    "ks_statistic": "Kolmogorov-Smirnov distance, standardized first component",
    "skewness_change": "change of skewness",
    "kurtosis_change": "change of excess kurtosis",
    "normalized_entropy": "mean entropy / ln n",
    "selectivity": "selectivity 1 - H / ln n",
    "effective_share": "mean effective keys / n",
    "max_probability": "mean largest probability",
    "saturated_share": "share of saturated rows",
    "extreme_share": "share of first components below 1/(10 n) or above the threshold",
    "jacobian_norm": "mean softmax Jacobian norm",
    "gradient_norm": "mean ‖∂s/∂q‖",
    "gradient_median": "median ‖∂s/∂q‖",
    "factor": "factor c",
    "logit_sd": "sd of the scaled logits of key 1",
}
"""Every measured column of :func:`rescaling_sweep`, with a short description for axes."""

GROUP_KEYS: tuple[str, ...] = ("family", "d", "n", "rescaling")
"""The columns that name one configuration and rescaling; replicates are averaged over."""


def scaled_sqrt_d(multiplier: float) -> Rescaling:
    """The constant rescaling ``c = multiplier / sqrt(d)``: ``1/sqrt(d)`` times a fixed number.

    A grid of multipliers traces the distortion-selectivity curve of constant factors.

    >>> r = scaled_sqrt_d(0.5)
    >>> r.factor_for(np.ones((3, 16))), r.label
    (0.125, '0.5/√d')
    """
    m = positive_real("multiplier", multiplier)
    return from_callable(
        lambda keys, n, d: m / math.sqrt(d),
        name=f"sqrt_d_times_{m:g}",
        label=f"{m:g}/√d",
        source="vaswani2017attention",
    )


def _rescaling_table(
    rescalings: Mapping[str, str | Rescaling] | Sequence[str | Rescaling],
) -> dict[str, Rescaling]:
    if isinstance(rescalings, Mapping):
        table = {str(name): get_rescaling(r) for name, r in rescalings.items()}
    else:
        table = {}
        for r in rescalings:
            rescaling = get_rescaling(r)
            if rescaling.name in table:
                raise ParameterError(
                    f"rescalings must have distinct names, {rescaling.name!r} appears twice; "
                    "pass a mapping name -> rescaling to name them"
                )
            table[rescaling.name] = rescaling
    if not table:
        raise ParameterError("rescalings must name at least one rescaling")
    return table


def _int_values(name: str, values: Iterable[int], minimum: int) -> list[int]:
    out = [positive_int(name, v, minimum=minimum) for v in values]
    if not out:
        raise ParameterError(f"{name} must hold at least one value")
    return out


def draw_generator(seed: int, family: str, d: int, n: int, replicate: int) -> np.random.Generator:
    """The generator of one draw: keyed by the family's name, ``d``, ``n`` and the replicate.

    The key does not depend on which other families or sizes a sweep contains, so adding
    a family or a dimension leaves every other draw unchanged.

    >>> a = draw_generator(1, "normal", 16, 8, 0).standard_normal()
    >>> a == draw_generator(1, "normal", 16, 8, 0).standard_normal()
    True
    >>> a == draw_generator(1, "normal", 16, 8, 1).standard_normal()
    False
    """
    return stream(seed, zlib.crc32(family.encode()), int(d), int(n), int(replicate))


def _gradient_names(gradient: bool | Collection[str], table: Mapping[str, Rescaling]) -> set[str]:
    if isinstance(gradient, bool):
        return set(table) if gradient else set()
    if isinstance(gradient, str) or not isinstance(gradient, Collection):
        raise ParameterError(
            f"gradient must be True, False or a collection of rescaling names, got {gradient!r}"
        )
    unknown = [g for g in gradient if g not in table]
    if unknown:
        raise ParameterError(
            f"gradient must name rescalings of the sweep ({', '.join(table)}), got {unknown}"
        )
    return set(gradient)


def _draw_records(
    task: tuple[str, QueryKeyModel, int, int, int],
    *,
    table: Mapping[str, Rescaling],
    with_gradient: set[str],
    seed: int,
    n_queries: int,
    threshold: float,
    dtype: DTypeLike,
) -> list[dict[str, object]]:
    """The rows of one draw of :func:`rescaling_sweep` (one task): every rescaling on the
    draw of ``(family, d, n, replicate)``, whose stream is :func:`draw_generator`'s."""
    family, model, d, n, replicate = task
    m = n_queries
    records = []
    rng = draw_generator(seed, family, d, n, replicate)
    queries, keys = model.sample(rng, m, n, d)
    raw = queries @ keys[0]
    reference = ShapeReference(raw)
    cosines = None
    for name, rescaling in table.items():
        result = attention_metrics(
            queries,
            keys,
            rescaling,
            threshold=threshold,
            gradient=name in with_gradient,
            columns=(0,),
            dtype=dtype,
        )
        if rescaling.cosine and cosines is None:
            norms = np.linalg.norm(queries, axis=1) * np.linalg.norm(keys[0])
            cosines = raw / norms
        logits = cosines if rescaling.cosine else raw
        shape = reference.distortion(result.columns[:, 0])
        aggregates = result.aggregates()
        grad = result.gradient_norm
        records.append(
            {
                "family": family,
                "d": d,
                "n": n,
                "replicate": replicate,
                "rescaling": name,
                "label": rescaling.label,
                "wasserstein": shape.wasserstein,
                "ks_statistic": shape.ks_statistic,
                "skewness_change": shape.skewness_change,
                "kurtosis_change": shape.kurtosis_change,
                "normalized_entropy": aggregates["mean_normalized_entropy"],
                "selectivity": 1.0 - aggregates["mean_normalized_entropy"],
                "effective_share": aggregates["mean_effective_keys"] / n,
                "max_probability": aggregates["mean_max_probability"],
                "saturated_share": aggregates["saturated_share"],
                "extreme_share": extreme_share(result.columns[:, 0], n, threshold),
                "jacobian_norm": aggregates["mean_jacobian_frobenius"],
                "gradient_norm": math.nan if grad is None else float(grad.mean()),
                "gradient_median": (math.nan if grad is None else float(np.median(grad))),
                "factor": result.factor,
                "logit_sd": abs(result.factor) * float(logits.std()),
            }
        )
    return records


def rescaling_sweep(
    models: Mapping[str, QueryKeyModel],
    rescalings: Mapping[str, str | Rescaling] | Sequence[str | Rescaling],
    d_values: Iterable[int],
    n_values: Iterable[int],
    *,
    n_queries: int,
    n_seeds: int,
    seed: int,
    gradient: bool | Collection[str] = False,
    threshold: float = SATURATION_THRESHOLD,
    dtype: DTypeLike = np.float64,
    scheduler: object = None,
    progress: bool = False,
) -> pd.DataFrame:
    """One row per model (``family``), ``d``, ``n``, replicate and rescaling.

    ``models`` maps a family name to a query/key model of :mod:`attncore.distributions`;
    ``rescalings`` is a list of registered names or :class:`Rescaling` objects (named by
    their ``name``), or a mapping name -> rescaling. Every ``(d, n)`` of the product of
    ``d_values`` and ``n_values`` is run, ``n_seeds`` replicates each, every replicate with
    its own draw (:func:`draw_generator`) shared by all rescalings. Columns: ``family, d,
    n, replicate, rescaling, label`` and :data:`METRICS`. The "before" sample of the
    distortion is always the raw dot products ``q . k_1``, also for QK-norm, whose logits
    are cosines.

    ``gradient`` is ``True`` (every rescaling), ``False`` or the names of the rescalings
    whose ``||ds/dq||`` is computed (it roughly doubles the cost of a large draw); the
    ``gradient_*`` columns of the others are NaN. ``threshold`` defines a saturated row
    (largest probability above it); ``dtype`` is the precision of the engine's matrix
    products (float64 or float32; the softmax always runs in float64).

    Every draw is one task of :func:`attncore.simulate.tasks.run_tasks` (``scheduler``,
    ``progress``), keyed ``(family, d, n, replicate)``; its stream depends only on that key,
    so the table is the same however and wherever the draws run.
    """
    if not models:
        raise ParameterError("models must name at least one query/key model")
    table = _rescaling_table(rescalings)
    with_gradient = _gradient_names(gradient, table)
    ds = _int_values("d_values", d_values, 1)
    ns = _int_values("n_values", n_values, 2)
    m = positive_int("n_queries", n_queries, minimum=3)
    replicates = positive_int("n_seeds", n_seeds)
    threshold = check_threshold(threshold)
    stream(seed)  # checks the seed here, before any task runs

    tasks = [
        (str(family), model, d, n, replicate)
        for family, model in models.items()
        for d in ds
        for n in ns
        for replicate in range(replicates)
    ]
    work = functools.partial(
        _draw_records,
        table=table,
        with_gradient=with_gradient,
        seed=seed,
        n_queries=m,
        threshold=threshold,
        dtype=dtype,
    )
    keys = [(family, d, n, replicate) for family, _, d, n, replicate in tasks]
    parts = run_tasks(work, tasks, keys=keys, scheduler=scheduler, progress=progress)
    return pd.DataFrame.from_records([record for part in parts for record in part])


def summarize(
    table: pd.DataFrame,
    by: Sequence[str] = GROUP_KEYS,
    metrics: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Mean over replicates of every metric, with its standard error in ``<metric>_se`` and
    the number of replicates in ``draws``.

    The standard error is the sample standard deviation over replicates over the square
    root of their number (NaN with a single replicate). The ``label`` column is kept.

    >>> toy = pd.DataFrame({"family": "f", "d": 4, "n": 2, "rescaling": "r", "label": "r",
    ...                     "wasserstein": [0.1, 0.3]})
    >>> row = summarize(toy, metrics=["wasserstein"]).iloc[0]
    >>> float(row["wasserstein"]), float(row["wasserstein_se"])
    (0.2, 0.1)
    """
    keys = list(by)
    missing = [k for k in keys if k not in table.columns]
    if missing:
        raise ParameterError(f"by must name columns of the table, missing: {', '.join(missing)}")
    names = [c for c in METRICS if c in table.columns] if metrics is None else list(metrics)
    unknown = [c for c in names if c not in table.columns]
    if unknown:
        raise ParameterError(f"metrics must be columns of the table, unknown: {', '.join(unknown)}")
    grouped = table.groupby(keys, sort=False)
    means = grouped[names].mean()
    errors = grouped[names].sem(ddof=1).add_suffix("_se")
    out = pd.concat([means, errors], axis=1)
    out["draws"] = grouped.size()
    if "label" in table.columns and "label" not in keys:
        out.insert(0, "label", grouped["label"].first())
    return out.reset_index()


def frontier_distortion(
    curve_selectivity: ArrayLike, curve_distortion: ArrayLike, selectivity: ArrayLike
) -> np.ndarray:
    """The distortion of the constant-factor curve at ``selectivity``, by linear
    interpolation in ``log(selectivity)``; NaN outside the curve's range.

    The curve is given by points (selectivity, distortion), e.g. the means over replicates
    of a grid of :func:`scaled_sqrt_d`; they are sorted by selectivity first.

    >>> frontier_distortion([1e-3, 1e-1], [0.0, 1.0], [1e-2, 1.0]).tolist()
    [0.5, nan]
    """
    x = finite_array("curve_selectivity", curve_selectivity, ndim=1)
    y = finite_array("curve_distortion", curve_distortion, ndim=1)
    if x.size != y.size or x.size < 2:
        raise ParameterError(
            "curve_selectivity and curve_distortion must have the same length >= 2, "
            f"got {x.size} and {y.size}"
        )
    if (x <= 0).any():
        raise ParameterError("curve_selectivity must be > 0 everywhere (it is read on a log scale)")
    at = np.atleast_1d(np.asarray(selectivity, dtype=float))
    order = np.argsort(x)
    lx, ly = np.log(x[order]), y[order]
    with np.errstate(divide="ignore", invalid="ignore"):
        la = np.log(at)
    inside = (la >= lx[0]) & (la <= lx[-1])
    return np.where(inside, np.interp(la, lx, ly), np.nan)


def pair_rescalings(
    table: pd.DataFrame,
    a: str,
    b: str,
    metrics: Sequence[str],
    by: Sequence[str] = ("family", "d", "n"),
) -> pd.DataFrame:
    """Two rescalings on the same draws, seed by seed: one row per configuration ``by``.

    For every metric ``m``: ``m_a`` and ``m_b``, the means over replicates of ``a`` and
    ``b``, ``m_diff``, the mean of the paired differences ``a - b`` over the replicates, and
    ``m_diff_se``, its standard error (NaN with a single replicate); ``draws``, the number of
    replicates paired. Pairing removes the variation that the two rescalings share through
    their common draw.

    >>> toy = pd.DataFrame({"family": "f", "d": 4, "n": 2, "replicate": [0, 0, 1, 1],
    ...                     "rescaling": ["a", "b"] * 2, "wasserstein": [0.1, 0.3, 0.2, 0.3]})
    >>> row = pair_rescalings(toy, "a", "b", ["wasserstein"]).iloc[0]
    >>> columns = ["wasserstein_a", "wasserstein_diff", "wasserstein_diff_se", "draws"]
    >>> [round(float(row[c]), 3) for c in columns]
    [0.15, -0.15, 0.05, 2.0]
    """
    keys = [*by, "replicate"]
    table_with("table", table, [*keys, "rescaling", *metrics], allow_empty=True)
    for name in (a, b):
        if not (table["rescaling"] == name).any():
            raise ParameterError(f"rescaling {name!r} is not in the table")
    first = table[table["rescaling"] == a].set_index(keys)[list(metrics)]
    second = table[table["rescaling"] == b].set_index(keys)[list(metrics)]
    first, second = first.align(second, join="inner")
    grouped = {"a": first, "b": second, "diff": first - second}
    columns = {}
    for m in metrics:
        for suffix, frame in grouped.items():
            columns[f"{m}_{suffix}"] = frame[m].groupby(level=list(by), sort=False).mean()
        diff = grouped["diff"][m].groupby(level=list(by), sort=False)
        columns[f"{m}_diff_se"] = diff.sem(ddof=1)
    columns["draws"] = grouped["diff"].groupby(level=list(by), sort=False).size()
    return pd.DataFrame(columns)


def loglog_slopes(table: pd.DataFrame, x: str, y: str, by: str = "replicate") -> pd.Series:
    """The least-squares slope of ``log y`` against ``log x`` within each group ``by`` (one
    draw each), so that a fitted power law carries its spread over draws.

    >>> toy = pd.DataFrame({"replicate": [0, 0, 1, 1], "n": [8, 64] * 2,
    ...                     "g": [1.0, 1 / 8, 1.0, 1 / 16]})
    >>> [round(v, 3) for v in loglog_slopes(toy, "n", "g")]
    [-1.0, -1.333]
    """
    table_with("table", table, [x, y, by], allow_empty=True)
    return table.groupby(by).apply(
        lambda part: float(np.polyfit(np.log(part[x]), np.log(part[y]), 1)[0]),
        include_groups=False,
    )
