"""Bernhard's six panels, with everything measured on the same draw.

:func:`draw_panels` draws the panels as the reference R code does (one generator seeded once,
panels 1a, 1b, 1c, 2a, 2b, 2c, queries first then keys) and keeps, besides what each panel plots
(as intended and as published, :mod:`attncore.sources.bernhard_refill`), what the plots hide:
the raw dot products ``q_i . k_1`` of the same queries and keys (the "before" sample of the
softmax panels) and the queries and keys themselves (to measure how selective each row's
attention is). :func:`panel_records` and :func:`rescaling_records` turn one draw into rows of a
table, and :func:`sweep` does so for many independent generators.

>>> draws = draw_panels(1000)
>>> list(draws), draws["2c"].values.intended.shape
(['1a', '1b', '1c', '2a', '2b', '2c'], (500,))
>>> draws["1b"].published_queries
16

"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import special, stats

from attncore.checks import ParameterError, finite_array, positive_int, positive_real
from attncore.density import bw_nrd0, scipy_silverman
from attncore.distributions import (
    Distribution,
    Independent,
    Laplace,
    Normal,
    QueryKeyModel,
    StudentT,
    Uniform,
)
from attncore.measures import distortion, extreme_share, max_probability
from attncore.random import SeedLike, make_rng
from attncore.rescalings import get_rescaling
from attncore.simulate.tasks import run_tasks
from attncore.softmax import entropy, jacobian_frobenius, softmax
from attncore.sources.bernhard_refill import BERNHARD_PANELS, FirstComponent, first_component

__all__ = [
    "COMPONENT_LAWS",
    "STATISTICS",
    "PanelDraw",
    "bandwidth_ratios",
    "component_law",
    "draw_panels",
    "grid_panels",
    "ks_critical",
    "linearization",
    "panel_records",
    "panel_table",
    "rescaling_medians",
    "rescaling_records",
    "seed_percentiles",
    "summary_statistics",
    "sweep",
]

COMPONENT_LAWS = ("normal", "uniform", "laplace", "t")
"""Names accepted by :func:`component_law`."""

STATISTICS = ("mean", "sd", "q05", "q25", "q50", "q75", "q95", "skewness")
"""The summary statistics of :func:`summary_statistics`, in table order."""

_QUANTILES = {"q05": 0.05, "q25": 0.25, "q50": 0.50, "q75": 0.75, "q95": 0.95}


def component_law(name: str, t_df: float = 5.0) -> Distribution:
    """The component law called ``name``, standardized to mean 0 and variance 1:
    N(0, 1), U(-sqrt 3, sqrt 3), Laplace with scale 1/sqrt 2, or Student t with ``t_df``
    degrees of freedom (> 2) scaled by sqrt((df - 2) / df).

    >>> [round(component_law(n).var, 12) for n in COMPONENT_LAWS]
    [1.0, 1.0, 1.0, 1.0]
    >>> component_law("cauchy")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: distribution must be one of normal, ..., got 'cauchy'
    """
    if name == "normal":
        return Normal()
    if name == "uniform":
        return Uniform(-math.sqrt(3.0), math.sqrt(3.0))
    if name == "laplace":
        return Laplace(0.0, 1.0 / math.sqrt(2.0))
    if name == "t":
        df = positive_real("t_df", t_df)
        if df <= 2:
            raise ParameterError(f"t_df must be > 2 for a finite variance, got {t_df!r}")
        return StudentT(df, scale=math.sqrt((df - 2.0) / df))
    raise ParameterError(f"distribution must be one of {', '.join(COMPONENT_LAWS)}, got {name!r}")


@dataclass(frozen=True)
class PanelDraw:
    """One panel's queries and keys, its raw dot products and what the panel plots.

    ``logits`` is ``Q K^T`` and ``attention`` the panel's softmax of the rescaled logits
    (``None`` for the panels without one); ``raw`` holds the first component of ``Q K^T``
    (intended: ``q_i . k_1``; published: the R code's refill of the same matrix) and
    ``values`` that of ``attention`` (the same as ``raw`` for the panels without one).
    """

    panel: str
    d: int
    rescaling: str | None
    queries: np.ndarray
    keys: np.ndarray
    logits: np.ndarray
    attention: np.ndarray | None
    raw: FirstComponent
    values: FirstComponent

    @property
    def published_queries(self) -> int:
        """How many distinct queries the published sample comes from: ``ceil(m / n)``."""
        m, n = self.queries.shape[0], self.keys.shape[0]
        return math.ceil(m / n)


def draw_panels(
    seed: SeedLike,
    *,
    n_queries: int = 500,
    n_keys: int = 32,
    d_small: int = 16,
    d_large: int = 256,
    model: QueryKeyModel | None = None,
) -> dict[str, PanelDraw]:
    """The six panels of Bernhard's figures from one generator, in the order of
    :data:`~attncore.sampling.BERNHARD_PANELS`, with Figure 1 at ``d_small`` and Figure 2
    at ``d_large`` (the published 16 and 256 by default). The products ``Q K^T`` are
    summed by ``einsum`` rather than BLAS, which for these small matrices is as fast and
    leaves no BLAS worker threads spinning on a busy machine (on 2 shared cores that made a
    sweep over seeds twice as slow).

    >>> draws = draw_panels(0, n_queries=10, n_keys=4, d_small=2, d_large=3)
    >>> [(p, x.d, x.rescaling) for p, x in draws.items()][:2]
    [('1a', 2, None), ('1b', 2, 'none')]
    """
    rng = make_rng(seed)
    model = Independent() if model is None else model
    n_queries = positive_int("n_queries", n_queries)
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    dims = {16: positive_int("d_small", d_small), 256: positive_int("d_large", d_large)}
    draws = {}
    for panel, (published_d, rescaling) in BERNHARD_PANELS.items():
        d = dims[published_d]
        queries, keys = model.sample(rng, n_queries, n_keys, d)
        logits = np.einsum("id,kd->ik", queries, keys)
        raw = FirstComponent(first_component(logits), first_component(logits, as_published=True))
        if rescaling is None:
            attention, values = None, raw
        else:
            # the same scaling as Rescaling.scaled_logits: c * (Q K^T)
            attention = softmax(get_rescaling(rescaling).factor_for(keys) * logits)
            values = FirstComponent(
                first_component(attention), first_component(attention, as_published=True)
            )
        draws[panel] = PanelDraw(panel, d, rescaling, queries, keys, logits, attention, raw, values)
    return draws


def grid_panels(
    seed: int,
    n_values: Iterable[int],
    d_values: Iterable[int],
    *,
    n_queries: int = 500,
    d_small: int = 16,
    d_large: int = 256,
    model: QueryKeyModel | None = None,
) -> Iterator[tuple[int, int, dict[str, PanelDraw]]]:
    """Bernhard's six panels at every ``(n, d)`` of a grid, one ``(n, d, panels)`` at a time
    (the draws of one setting are dropped before the next is drawn).

    Figure 1's panels (1a to 1c) are those of :func:`draw_panels` seeded with ``seed``, with
    ``n`` keys and ``d_small = d``; Figure 2's (2a to 2c) those with ``n`` keys, the given
    ``d_small`` and ``d_large = d``. So at ``n`` = the figures' number of keys the grid's
    Figure 1 at ``d_small`` and its Figure 2 at ``d_large`` are the figures' own draws.

    >>> first = dict(((n, d), p) for n, d, p in grid_panels(1000, [32], [16, 256]))
    >>> figures = draw_panels(1000)
    >>> bool(np.array_equal(first[32, 16]["1b"].values.intended, figures["1b"].values.intended))
    True
    >>> bool(np.array_equal(first[32, 256]["2c"].values.intended, figures["2c"].values.intended))
    True
    """
    seed = positive_int("seed", seed, minimum=0)
    sizes = dict(n_queries=n_queries, model=model)
    for n in [positive_int("n_values", v, minimum=2) for v in n_values]:
        for d in [positive_int("d_values", v) for v in d_values]:
            first = draw_panels(seed, n_keys=n, d_small=d, d_large=d_large, **sizes)
            second = draw_panels(seed, n_keys=n, d_small=d_small, d_large=d, **sizes)
            panels = {p: (first if p.startswith("1") else second)[p] for p in BERNHARD_PANELS}
            yield n, d, panels


def summary_statistics(x: ArrayLike) -> dict[str, float]:
    """Mean, standard deviation (denominator n - 1, as R's ``sd``), the 5, 25, 50, 75 and
    95 % quantiles (R's default type 7) and the sample skewness ``g1``.

    >>> s = summary_statistics([1.0, 2.0, 3.0, 4.0, 10.0])
    >>> s["mean"], round(s["sd"], 4), s["q50"], round(s["skewness"], 4)
    (4.0, 3.5355, 3.0, 1.1384)
    """
    values = finite_array("x", x, ndim=1)
    if values.size < 3:
        raise ParameterError(f"x must have at least 3 values, got {values.size}")
    quantiles = np.quantile(values, list(_QUANTILES.values()))
    return {
        "mean": float(values.mean()),
        "sd": float(values.std(ddof=1)),
        **{name: float(q) for name, q in zip(_QUANTILES, quantiles, strict=True)},
        "skewness": float(stats.skew(values)),
    }


def _selectivity(attention: np.ndarray | None) -> dict[str, float]:
    if attention is None:
        return {"mean_max_probability": math.nan, "mean_normalized_entropy": math.nan}
    return {
        "mean_max_probability": float(max_probability(attention).mean()),
        "mean_normalized_entropy": float(entropy(attention, normalized=True).mean()),
    }


def panel_records(draws: dict[str, PanelDraw]) -> list[dict[str, object]]:
    """One row per panel and sample (``"intended"``, ``"published"``): the
    :func:`summary_statistics` of the plotted values; for the softmax panels the
    :func:`~attncore.metrics.distortion` from the raw dot products of the same draw and
    sample (``skewness_change``, ``kurtosis_change``, ``wasserstein``, ``ks_statistic``)
    and the mean largest probability and normalized entropy of the rows; and
    ``ks_other_sample``, the KS distance between the intended and published samples.

    >>> rows = panel_records(draw_panels(1, n_queries=40, n_keys=4, d_small=2, d_large=3))
    >>> len(rows), rows[2]["panel"], rows[2]["sample"], rows[2]["mean_max_probability"] > 0.25
    (12, '1b', 'intended', True)
    """
    rows: list[dict[str, object]] = []
    for panel, draw in draws.items():
        selectivity = _selectivity(draw.attention)
        ks_samples = float(stats.ks_2samp(draw.values.intended, draw.values.published).statistic)
        for sample in ("intended", "published"):
            after = getattr(draw.values, sample)
            row: dict[str, object] = {
                "panel": panel,
                "sample": sample,
                "d": draw.d,
                "rescaling": draw.rescaling or "raw q·k",
                **summary_statistics(after),
            }
            if draw.rescaling is None:
                shape = dict.fromkeys(
                    ("skewness_change", "kurtosis_change", "wasserstein", "ks_statistic"), math.nan
                )
            else:
                change = distortion(getattr(draw.raw, sample), after)
                shape = {
                    "skewness_change": change.skewness_change,
                    "kurtosis_change": change.kurtosis_change,
                    "wasserstein": change.wasserstein,
                    "ks_statistic": change.ks_statistic,
                }
            rows.append({**row, **shape, **selectivity, "ks_other_sample": ks_samples})
    return rows


def rescaling_records(
    draws: dict[str, PanelDraw], rescalings: Sequence[str]
) -> list[dict[str, object]]:
    """For each draw of raw dot products (panels 1a and 2a) and each rescaling: the
    distortion of the first component (intended sample) by that rescaling's softmax, how
    selective the rows are (mean largest probability, mean normalized entropy), the mean
    within-row standard deviation of the scaled logits, ``r2_raw``, the squared
    correlation between ``q_i . k_1`` and the softmax output (1 when the softmax acts as
    an affine map of the logit), and the softmax's own gradient: the mean Frobenius norm of
    its Jacobian over the rows (``jacobian_norm``) and the share of first components near 0
    or 1 (``extreme_share``, :func:`attncore.measures.extreme_share`).

    >>> draws = draw_panels(2, n_queries=50, n_keys=4, d_small=8, d_large=64)
    >>> rows = rescaling_records(draws, ["sqrt_d", "k_total"])
    >>> [(r["panel"], r["rescaling"]) for r in rows][:2]
    [('1a', 'sqrt_d'), ('1a', 'k_total')]
    >>> rows[1]["r2_raw"] > rows[0]["r2_raw"]
    True
    """
    rows: list[dict[str, object]] = []
    for panel, draw in draws.items():
        if draw.rescaling is not None:
            continue
        for name in rescalings:
            rescaling = get_rescaling(name)
            if rescaling.cosine:
                raise ParameterError(
                    f"rescalings must multiply q.k by a factor, {name} uses cosines"
                )
            factor = rescaling.factor_for(draw.keys)
            scaled = factor * draw.logits
            attention = softmax(scaled)
            s1 = attention[:, 0]
            change = distortion(draw.raw.intended, s1)
            rows.append(
                {
                    "panel": panel,
                    "d": draw.d,
                    "rescaling": name,
                    "label": rescaling.label,
                    "factor": factor,
                    "logit_sd": float(scaled.std(axis=1, ddof=1).mean()),
                    "skewness_change": change.skewness_change,
                    "kurtosis_change": change.kurtosis_change,
                    "wasserstein": change.wasserstein,
                    "ks_statistic": change.ks_statistic,
                    **_selectivity(attention),
                    "r2_raw": float(np.corrcoef(draw.raw.intended, s1)[0, 1] ** 2),
                    "jacobian_norm": float(jacobian_frobenius(attention).mean()),
                    "extreme_share": extreme_share(s1, attention.shape[1]),
                }
            )
    return rows


def _seed_task(seed: SeedLike) -> SeedLike:
    """A task's own copy of a seed: a generator is copied, so that a task never advances the
    caller's generator and runs the same wherever it runs."""
    return copy.deepcopy(seed) if isinstance(seed, np.random.Generator) else seed


def _sweep_draw(
    seed: SeedLike, rescalings: Sequence[str], settings: dict[str, object]
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    draws = draw_panels(seed, **settings)  # type: ignore[arg-type]
    return panel_records(draws), rescaling_records(draws, rescalings)


def sweep(
    seeds: Iterable[SeedLike],
    rescalings: Sequence[str] = ("none", "sqrt_d", "k_total"),
    *,
    scheduler: object = None,
    progress: bool = False,
    **settings: object,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`panel_records` and :func:`rescaling_records` for every seed (or generator),
    with a column ``seed`` numbering the draws from 0; ``settings`` go to
    :func:`draw_panels`.

    Every draw is one task of :func:`attncore.simulate.tasks.run_tasks` (``scheduler``,
    ``progress``): a generator is copied into its task, so the caller's generators are left
    as they were and the tables are the same wherever the tasks run.

    >>> panels, costs = sweep(range(3), ["k_total"], n_queries=30, n_keys=4, d_small=2, d_large=3)
    >>> panels.shape[0], costs.shape[0], sorted(set(panels["seed"]))
    (36, 6, [0, 1, 2])
    """
    tasks = [_seed_task(seed) for seed in seeds]
    work = functools.partial(_sweep_draw, rescalings=list(rescalings), settings=settings)
    results = run_tasks(work, tasks, scheduler=scheduler, progress=progress)
    panel_rows, cost_rows = [], []
    for index, (panel_part, cost_part) in enumerate(results):
        panel_rows += [{"seed": index, **r} for r in panel_part]
        cost_rows += [{"seed": index, **r} for r in cost_part]
    return pd.DataFrame(panel_rows), pd.DataFrame(cost_rows)


def ks_critical(m: int, alpha: float = 0.05) -> float:
    """The asymptotic critical value of the two-sample Kolmogorov-Smirnov distance at level
    ``alpha`` for two independent samples of size ``m``: ``K^-1(alpha) sqrt(2 / m)``.

    >>> round(ks_critical(500), 4)
    0.0859
    """
    m = positive_int("m", m)
    return float(special.kolmogi(alpha) * math.sqrt(2.0 / m))


def bandwidth_ratios(draws: dict[str, PanelDraw]) -> np.ndarray:
    """scipy's Silverman bandwidth over R's ``bw.nrd0`` for every panel and sample of a draw:
    how much more scipy's default rule would smooth.

    >>> r = bandwidth_ratios(draw_panels(0, n_queries=200, n_keys=8, d_small=4, d_large=16))
    >>> r.shape, bool(r.min() > 1.1)
    ((12,), True)
    """
    return np.array(
        [
            scipy_silverman(getattr(x.values, s)) / bw_nrd0(getattr(x.values, s))
            for x in draws.values()
            for s in ("intended", "published")
        ]
    )


def panel_table(
    rows: pd.DataFrame, draws: dict[str, PanelDraw], panels: Sequence[str]
) -> pd.DataFrame:
    """The :data:`STATISTICS` of ``panels`` (rows of :func:`panel_records` for one draw) with
    the ``bw.nrd0`` bandwidth of each sample, indexed by panel and sample.

    >>> draws = draw_panels(0, n_queries=40, n_keys=4, d_small=2, d_large=3)
    >>> t = panel_table(pd.DataFrame(panel_records(draws)), draws, ["1a", "1b"])
    >>> t.shape, t.index[1]
    ((4, 9), ('1a', 'published'))
    """
    table = rows[rows["panel"].isin(panels)][["panel", "sample", *STATISTICS]].copy()
    table["bw.nrd0"] = [
        bw_nrd0(getattr(draws[p].values, s))
        for p, s in zip(table["panel"], table["sample"], strict=True)
    ]
    return table.set_index(["panel", "sample"])


def seed_percentiles(
    panels: pd.DataFrame, seed_rows: pd.DataFrame, column: str = "skewness"
) -> pd.Series:
    """For each panel and sample, the percentile of one draw's ``column`` (``seed_rows``, rows
    of :func:`panel_records`) among the draws of ``panels`` (a :func:`sweep` table): the share
    of draws with a smaller value, in per cent.

    >>> panels, _ = sweep(range(4), [], n_queries=30, n_keys=4, d_small=2, d_large=3)
    >>> one = pd.DataFrame(panel_records(draw_panels(9, n_queries=30, n_keys=4, d_small=2,
    ...                                              d_large=3)))
    >>> p = seed_percentiles(panels, one)
    >>> len(p), set(p.round()) <= {0.0, 25.0, 50.0, 75.0, 100.0}
    (12, True)
    """
    mine = seed_rows.set_index(["panel", "sample"])[column]
    return pd.Series(
        {
            key: 100.0 * float((part[column] < mine[key]).mean())
            for key, part in panels.groupby(["panel", "sample"], sort=False)
        },
        name="percentile",
    )


def linearization(draw: PanelDraw, rescaling: str) -> dict[str, np.ndarray | float]:
    """The softmax of one panel's raw dot products under ``rescaling``, against its
    linearization around uniform attention: ``centred``, the centred scaled logit
    ``z_1 - mean(z)`` of each query, ``weight``, ``n s_1`` (1 is uniform attention), and
    ``row_sd``, the mean within-row standard deviation of the scaled logits. For small logits
    ``n s_1 = 1 + z_1 - mean(z)`` to first order.

    >>> draw = draw_panels(0, n_queries=100, n_keys=8, d_small=4, d_large=64)["2a"]
    >>> lin = linearization(draw, "k_total")
    >>> round(float(np.abs(lin["weight"] - 1 - lin["centred"]).max()), 3)
    0.042
    """
    z = get_rescaling(rescaling).factor_for(draw.keys) * draw.logits
    s1 = softmax(z)[:, 0]
    return {
        "centred": z[:, 0] - z.mean(axis=1),
        "weight": draw.keys.shape[0] * s1,
        "row_sd": float(z.std(axis=1).mean()),
    }


RESCALING_MEDIANS = {
    "logit_sd": "sd of the scaled logits in a row",
    "mean_max_probability": "mean largest probability",
    "mean_normalized_entropy": "mean entropy / ln n",
    "r2_raw": "r² of s₁ on q·k₁",
    "skewness_change": "skewness change",
    "wasserstein": "W₁ distortion",
}
"""The columns of :func:`rescaling_medians` and their labels."""


def rescaling_medians(costs: pd.DataFrame) -> pd.DataFrame:
    """Medians over draws of the :func:`rescaling_records` columns in
    :data:`RESCALING_MEDIANS`, by dimension and rescaling, with readable column names.

    >>> _, costs = sweep(range(3), ["sqrt_d"], n_queries=30, n_keys=4, d_small=2, d_large=3)
    >>> rescaling_medians(costs).shape
    (2, 6)
    """
    table = costs.groupby(["d", "rescaling"], sort=False)[list(RESCALING_MEDIANS)].median()
    return table.rename(columns=RESCALING_MEDIANS)
