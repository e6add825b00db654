"""Every component of Bernhard's panels, not only the first.

Bernhard plots the first component of the attention vector over the queries and writes "By
symmetry, the other components should look similar". The keys of one draw are exchangeable,
so every component has the same law *over draws of the keys*; within one draw the keys are
fixed, and each component is a sample over the queries for its own key.
:func:`component_records` describes the sample of every key ``j`` of every panel: its mean,
standard deviation and skewness, the length of the key, and its two-sample
Kolmogorov-Smirnov distance from the sample of key 1 (the one the paper plots).

>>> from attncore.sources.bernhard import draw_panels
>>> rows = component_records(draw_panels(0, n_queries=50, n_keys=4, d_small=2, d_large=3))
>>> len(rows), rows[0]["ks_to_first"]
(24, 0.0)
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats

from attncore.random import SeedLike
from attncore.simulate.tasks import run_tasks
from attncore.sources.bernhard import PanelDraw, draw_panels

__all__ = ["component_records", "component_sweep", "ks_distances"]


def ks_distances(first: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Two-sample Kolmogorov-Smirnov distance between ``first`` (shape ``(m,)``) and each
    column of ``others`` (shape ``(m', k)``).

    >>> x = np.array([0.0, 1.0, 2.0, 3.0])
    >>> ks_distances(x, np.column_stack([x, x + 10.0])).tolist()
    [0.0, 1.0]
    """
    a = np.sort(np.asarray(first, dtype=float))
    b = np.sort(np.asarray(others, dtype=float), axis=0)
    out = np.empty(b.shape[1])
    for j in range(b.shape[1]):
        pooled = np.concatenate([a, b[:, j]])
        fa = np.searchsorted(a, pooled, side="right") / a.size
        fb = np.searchsorted(b[:, j], pooled, side="right") / b.shape[0]
        out[j] = np.abs(fa - fb).max()
    return out


def component_records(draws: dict[str, PanelDraw]) -> list[dict[str, object]]:
    """One row per panel and key ``j`` (numbered from 1): ``key_length`` (``||k_j||``),
    ``mean``, ``sd`` (denominator ``m - 1``) and ``skewness`` (``g1``) of component ``j`` over
    the queries, and ``ks_to_first``, its KS distance from component 1. Panels without a
    softmax use the raw dot products ``q_i . k_j``.
    """
    rows = []
    for panel, draw in draws.items():
        matrix = draw.logits if draw.attention is None else draw.attention
        lengths = np.linalg.norm(draw.keys, axis=1)
        means, sds = matrix.mean(axis=0), matrix.std(axis=0, ddof=1)
        skews = stats.skew(matrix, axis=0)
        ks = ks_distances(matrix[:, 0], matrix)
        for j in range(matrix.shape[1]):
            rows.append(
                {
                    "panel": panel,
                    "key": j + 1,
                    "key_length": float(lengths[j]),
                    "mean": float(means[j]),
                    "sd": float(sds[j]),
                    "skewness": float(skews[j]),
                    "ks_to_first": float(ks[j]),
                }
            )
    return rows


def _component_draw(seed: SeedLike, settings: dict[str, object]) -> list[dict[str, object]]:
    return component_records(draw_panels(seed, **settings))  # type: ignore[arg-type]


def component_sweep(
    seeds: Iterable[SeedLike],
    *,
    scheduler: object = None,
    progress: bool = False,
    **settings: object,
) -> pd.DataFrame:
    """:func:`component_records` for every seed (or generator), with a column ``seed``
    numbering the draws from 0; ``settings`` go to
    :func:`attncore.sources.bernhard.draw_panels`. Given the same generators as
    :func:`attncore.sources.bernhard.sweep`, it describes the same draws. Every draw is one
    task of :func:`attncore.simulate.tasks.run_tasks` (``scheduler``, ``progress``), on its
    own copy of its generator.

    >>> t = component_sweep(range(2), n_queries=30, n_keys=3, d_small=2, d_large=3)
    >>> t.shape[0], sorted(set(t["seed"])), sorted(set(t["key"]))
    (36, [0, 1], [1, 2, 3])
    """
    tasks = [copy.deepcopy(s) if isinstance(s, np.random.Generator) else s for s in seeds]
    work = functools.partial(_component_draw, settings=settings)
    results = run_tasks(work, tasks, scheduler=scheduler, progress=progress)
    rows = []
    for index, part in enumerate(results):
        rows += [{"seed": index, **r} for r in part]
    return pd.DataFrame(rows)
