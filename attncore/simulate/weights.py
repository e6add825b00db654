"""Logits when the projection weights leave their initial point: grown, fixed, structured.

Chuang (chuang2023scaling, section 2) relaxes his assumption (ii): with ``q = x W_q``,
``k = x' W_k``, standard normal tokens of dimension ``d_x`` and weight entries of standard
deviation ``sigma_W``, the logit ``q.k / sqrt(d_k)`` of two distinct tokens has variance
``(d_x sigma_Wq^2)(d_x sigma_Wk^2)``, which is 1 at ``sigma_W = 1/sqrt(d_x)``.

- :func:`weight_growth_table` draws projected queries and keys with both weight sds
  multiplied by a growth factor and applies registered rescalings to the same draws;
- :func:`conditional_logit_variances` gives ``Var(q.k/sqrt(d_k) | W_q, W_k)`` over
  random tokens for many fixed draws of the weights at the initial scale;
- :func:`structured_weight_table` gives the same for weights whose entries have exactly
  the initial standard deviation but structure (rank one, disjoint coordinates).

>>> from attncore.random import spawn
>>> t = weight_growth_table(16, 4, 8, 50, [1.0, 2.0], ["sqrt_d"], iter(spawn(0, 2)))
>>> round(growth_exponent(t, "sqrt_d").slope)
2
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import linregress

from attncore.checks import ParameterError, positive_int
from attncore.distributions import Projected
from attncore.measures import SATURATION_THRESHOLD
from attncore.random import SeedLike, make_rng
from attncore.rescalings import get_rescaling
from attncore.simulate.engine import attention_metrics
from attncore.symbolic.projected import projected_logit_moments

__all__ = [
    "SPREAD_SAMPLE",
    "Slope",
    "conditional_logit_variances",
    "growth_exponent",
    "structured_weight_table",
    "weight_growth_table",
]

SPREAD_SAMPLE = 200
"""Queries (of each draw) whose full logit rows give the sd of the scaled logits."""


def weight_growth_table(
    d_x: int,
    d_k: int,
    n_keys: int,
    n_queries: int,
    growth: Sequence[float],
    rescalings: Sequence[str],
    streams: Iterator[SeedLike],
    threshold: float = SATURATION_THRESHOLD,
) -> pd.DataFrame:
    """Row metrics of every rescaling as both weight sds grow from ``1/sqrt(d_x)``.

    One generator from ``streams`` per growth factor draws ``W_q``, ``W_k`` and the tokens;
    each rescaling sees the same draws. Columns: ``weight growth``, ``rescaling`` (the
    registry's name), ``sd of scaled logits`` (over the first :data:`SPREAD_SAMPLE` queries),
    ``entropy / ln n``, ``largest probability`` and ``saturated rows`` (largest probability
    above ``threshold``).

    >>> from attncore.random import spawn
    >>> t = weight_growth_table(8, 4, 6, 20, [1.0], ["sqrt_d", "mup"], iter(spawn(1, 1)))
    >>> t["rescaling"].tolist()
    ['sqrt_d', 'mup']
    """
    sigma_init = 1 / math.sqrt(positive_int("d_x", d_x))
    chosen = [get_rescaling(name) for name in rescalings]
    rows = []
    for factor in growth:
        model = Projected(d_x=d_x, sigma_wq=factor * sigma_init, sigma_wk=factor * sigma_init)
        queries, keys = model.sample(make_rng(next(streams)), n_queries, n_keys, d_k)
        for rescaling in chosen:
            result = attention_metrics(queries, keys, rescaling, threshold=threshold)
            aggregates = result.aggregates()
            spread = np.std(rescaling.scaled_logits(queries[:SPREAD_SAMPLE], keys))
            rows.append(
                {
                    "weight growth": factor,
                    "rescaling": rescaling.name,
                    "sd of scaled logits": float(spread),
                    "entropy / ln n": aggregates["mean_normalized_entropy"],
                    "largest probability": aggregates["mean_max_probability"],
                    "saturated rows": result.saturated_share,
                }
            )
    return pd.DataFrame(rows)


class Slope(NamedTuple):
    """A least-squares log-log slope over ``points`` growth factors and its standard error
    (NaN with two points, which fix the line)."""

    slope: float
    se: float
    points: int


def growth_exponent(table: pd.DataFrame, rescaling: str = "sqrt_d") -> Slope:
    """Log-log slope of the logit sd against the weight growth for ``rescaling`` (Chuang's
    relaxed formula gives 2 for ``sqrt_d``), with the standard error of the fit: one weight
    draw per growth factor scatters the points around the line.

    >>> t = pd.DataFrame({"weight growth": [1.0, 2.0, 4.0], "rescaling": ["sqrt_d"] * 3,
    ...                   "sd of scaled logits": [1.0, 4.0, 16.0]})
    >>> growth_exponent(t)
    Slope(slope=2.0, se=0.0, points=3)
    """
    rows = table[table["rescaling"] == rescaling]
    if len(rows) < 2:
        raise ParameterError(f"table must hold at least 2 growth factors of {rescaling!r}")
    x, y = np.log(rows["weight growth"]), np.log(rows["sd of scaled logits"])
    fit = linregress(x, y)
    se = round(float(fit.stderr), 12) if len(rows) > 2 else math.nan
    return Slope(round(float(fit.slope), 12), se, len(rows))


def conditional_logit_variances(d_x: int, d_k: int, n_draws: int, seed: SeedLike) -> np.ndarray:
    """``Var(q.k/sqrt(d_k) | W_q, W_k)`` over standard normal tokens for ``n_draws`` draws of
    the weights with entry sd ``1/sqrt(d_x)``: ``||W_q W_k^T||_F^2 / d_k``. Its mean over
    the draws is Chuang's value 1.

    >>> v = conditional_logit_variances(64, 16, 500, seed=0)
    >>> bool(abs(v.mean() - 1) < 0.05)
    True
    """
    rng = make_rng(seed)
    sigma = 1 / math.sqrt(positive_int("d_x", d_x))
    out = np.empty(positive_int("n_draws", n_draws))
    for i in range(n_draws):
        w_q = rng.normal(0.0, sigma, (d_x, d_k))
        w_k = rng.normal(0.0, sigma, (d_x, d_k))
        out[i] = projected_logit_moments(w_q, w_k)[1] / d_k
    return out


def structured_weight_table(d_x: int, d_k: int, seed: SeedLike) -> pd.DataFrame:
    """One random pair of weights and two structured pairs whose entries have exactly the
    initial sd ``1/sqrt(d_x)`` (as a root mean square), with their conditional logit variance.

    The structured pairs: ``W_q = W_k = u v^T`` of rank one (variance ``d_k``), and ``W_q``,
    ``W_k`` writing to disjoint coordinates of ``q`` and ``k`` (``q . k = 0`` for every token).

    >>> t = structured_weight_table(64, 16, seed=0)
    >>> t["Var(q·k/√d_k | W)"].round(6).tolist()[1:]
    [16.0, 0.0]
    """
    rng = make_rng(seed)
    d_x, d_k = positive_int("d_x", d_x), positive_int("d_k", d_k, minimum=2)
    sigma = 1 / math.sqrt(d_x)
    u = rng.standard_normal(d_x)
    u *= math.sqrt(d_x) / np.linalg.norm(u)  # mean square 1
    signs = rng.choice([-1.0, 1.0], size=d_k)
    rank_one = sigma * np.outer(u, signs)
    half = d_k // 2
    left, right = np.zeros((d_x, d_k)), np.zeros((d_x, d_k))
    left[:, :half] = rng.normal(0.0, sigma * math.sqrt(d_k / half), (d_x, half))
    right[:, half:] = rng.normal(0.0, sigma * math.sqrt(d_k / (d_k - half)), (d_x, d_k - half))
    random_pair = rng.normal(0, sigma, (d_x, d_k)), rng.normal(0, sigma, (d_x, d_k))
    pairs = {
        "one random draw": random_pair,
        "W_q = W_k, rank one": (rank_one, rank_one),
        "W_q, W_k writing to disjoint coordinates of q and k": (left, right),
    }
    return pd.DataFrame(
        [
            {
                "weights": name,
                "entry sd of W_q": float(np.sqrt(np.mean(wq**2))),
                "entry sd of W_k": float(np.sqrt(np.mean(wk**2))),
                "Var(q·k/√d_k | W)": projected_logit_moments(wq, wk)[1] / d_k,
            }
            for name, (wq, wk) in pairs.items()
        ]
    )
