"""The numbers of the chapter on training stability (the tables of
:func:`attncore.training.stability.lr_sweep`): losses capped at the initial loss, best rates,
learning-rate sensitivities, logits and entropies over training, differences paired by seed.

>>> runs = pd.DataFrame({"method": "a", "seed": [0, 0], "lr": [0.1, 1.0],
...                      "initial_loss": 2.0, "final_loss": [0.5, np.nan],
...                      "diverged": [False, True]})
>>> capped(runs)["loss"].tolist(), best_rates(capped(runs))
([0.5, 2.0], {'a': 0.1})
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attncore.evidence.statistics import holm, two_sided_p

__all__ = [
    "above_best",
    "best_rates",
    "capped",
    "logit_ratio",
    "loss_rise",
    "lowest_entropy",
    "lr_sensitivity",
    "paired",
    "rank_correlation",
    "seeds",
    "sensitivity_groups",
    "width_change",
    "width_sensitivity",
]


def capped(runs: pd.DataFrame) -> pd.DataFrame:
    """The run table with ``loss``: the final loss capped at the initial loss (a diverged
    run's NaN becomes its initial loss)."""
    out = runs.copy()
    out["loss"] = np.fmin(out["final_loss"].to_numpy(float), out["initial_loss"].to_numpy(float))
    return out


def best_rates(runs: pd.DataFrame) -> dict[str, float]:
    """Per method, the rate with the lowest mean capped loss over the seeds (the run table
    after :func:`capped`)."""
    means = runs.groupby(["method", "lr"], sort=False)["loss"].mean()
    return {method: float(rates.idxmin()[1]) for method, rates in means.groupby(level=0)}


def seeds(runs: pd.DataFrame, method: str) -> int:
    """The number of seeds ``method`` ran."""
    return int(runs.loc[runs["method"] == method, "seed"].nunique())


def _largest_logits(curves: pd.DataFrame) -> pd.Series:
    """The largest attention logit of every run over training (finite records only)."""
    finite = curves[np.isfinite(curves["max_logit"])]
    return finite.groupby(["method", "lr", "seed"])["max_logit"].max()


def _logits_at(curves: pd.DataFrame, method: str, lr: float) -> pd.Series:
    """The largest attention logit of each seed of ``method`` at rate ``lr`` (empty where none
    is finite)."""
    largest = _largest_logits(curves)
    keys = largest.index.to_frame(index=False)
    at = largest[((keys["method"] == method) & (keys["lr"] == lr)).to_numpy()]
    return at.droplevel(["method", "lr"])


def logit_ratio(curves: pd.DataFrame, method: str, rate: float, best: float) -> pd.Series:
    """Per seed of ``method``, its largest attention logit at ``rate`` over that at ``best``
    (seeds without a finite logit at both left out)."""
    return (_logits_at(curves, method, rate) / _logits_at(curves, method, best)).dropna()


def lowest_entropy(curves: pd.DataFrame) -> pd.Series:
    """The lowest attention entropy of every run over training, Zhai et al.'s measure: the
    mean over the heads and layers of each head's mean row entropy (finite records only)."""
    finite = curves[np.isfinite(curves["mean_entropy"])]
    return finite.groupby(["method", "lr", "seed"])["mean_entropy"].min()


def paired(a: pd.Series, b: pd.Series) -> tuple[float, float, int]:
    """Mean and standard error of ``a - b`` over the seeds both have, and their number.

    >>> paired(pd.Series([1.0, 2.0, 4.0]), pd.Series([0.5, 1.0, np.nan]))
    (0.75, 0.25, 2)
    """
    diff = (a - b).dropna()
    n = len(diff)
    se = float(diff.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return float(diff.mean()) if n else math.nan, se, n


def lr_sensitivity(runs: pd.DataFrame) -> pd.DataFrame:
    """Wortsman et al.'s learning-rate sensitivity of every (method, seed) curve of the run
    table: the mean over its rates of ``min(final, initial) - best``, with ``best`` the lowest
    of those values on the curve, so a diverged run counts at its initial loss (their section
    2.2, as the book reads it: the expected rise of the final loss over a range of rates above
    the best, with the loss at initialization as its ceiling); also the best rate and loss. One
    row per method and seed (and per sweep and width, where the table has those columns).

    >>> runs = pd.DataFrame({"method": "a", "seed": 0, "lr": [0.1, 1.0, 10.0],
    ...                      "initial_loss": 2.0, "final_loss": [0.5, 1.0, np.nan],
    ...                      "diverged": [False, False, True]})
    >>> lr_sensitivity(runs)[["sensitivity", "best_lr", "best_loss"]].round(3).values.tolist()
    [[0.667, 0.1, 0.5]]
    """
    keys = [key for key in ("sweep", "width") if key in runs] + ["method", "seed"]
    rows = []
    for key, curve in runs.groupby(keys, sort=False):
        capped = np.fmin(curve["final_loss"].to_numpy(), curve["initial_loss"].to_numpy())
        best = int(np.argmin(capped))
        rows.append(
            {**dict(zip(keys, key, strict=True)),
             "sensitivity": float(np.mean(capped - capped[best])),
             "best_lr": float(curve["lr"].iloc[best]), "best_loss": float(capped[best]),
             "diverged": int(curve["diverged"].sum())}
        )  # fmt: skip
    return pd.DataFrame(rows)


def width_sensitivity(
    runs: pd.DataFrame, confidence: float, draws: int = 2_000, seed: int = 0
) -> pd.DataFrame:
    """Wortsman et al.'s learning-rate sensitivity of each (width, method) of the run table,
    with the (method, rate) cell as the experimental unit: the sensitivity of the curve of cell
    means (each rate's capped loss averaged over its seeds), and a percentile bootstrap
    interval at ``confidence`` that redraws the seeds of every cell independently (``draws``
    times, from ``seed``). Columns ``width, method, lr_sensitivity, lr_sensitivity_low,
    lr_sensitivity_high, seeds``.

    >>> runs = pd.DataFrame({"width": 8, "method": "a", "seed": [0, 1] * 2,
    ...                      "lr": [0.1, 0.1, 1.0, 1.0], "initial_loss": 2.0,
    ...                      "final_loss": [0.5, 0.7, 1.5, 1.3], "diverged": False})
    >>> width_sensitivity(runs, 0.95).round(2).to_dict("records")[0]["lr_sensitivity"]
    0.4
    """
    rng = np.random.default_rng(seed)
    rows = []
    table = capped(runs)
    for (width, method), own in table.groupby(["width", "method"], sort=False):
        cells = own.pivot_table(index="lr", columns="seed", values="loss").to_numpy()
        n = cells.shape[1]
        means = cells.mean(axis=1)
        pick = rng.integers(0, n, size=(draws, *cells.shape))
        drawn = np.take_along_axis(np.broadcast_to(cells, pick.shape), pick, axis=2).mean(axis=2)
        spread = drawn.mean(axis=1) - drawn.min(axis=1)
        tail = (1.0 - confidence) / 2 * 100
        rows.append(
            {"width": int(width), "method": method,
             "lr_sensitivity": float(means.mean() - means.min()),
             "lr_sensitivity_low": float(np.percentile(spread, tail)),
             "lr_sensitivity_high": float(np.percentile(spread, 100 - tail)), "seeds": n}
        )  # fmt: skip
    return pd.DataFrame(rows)


def loss_rise(
    runs: pd.DataFrame, method: str, rate: float, best: float
) -> tuple[float, float, int]:
    """``method``'s capped loss at ``rate`` minus its capped loss at ``best``, paired by seed
    (:func:`paired`; the run table after :func:`capped`)."""
    own = runs[runs["method"] == method].set_index(["lr", "seed"])["loss"]
    return paired(own.loc[rate], own.loc[best])


def above_best(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """The runs above their method's best rate (the run table after :func:`capped`), with
    their lowest attention ``entropy`` during training, where both it and the loss are known."""
    best = best_rates(runs)
    above = runs[runs["lr"] > runs["method"].map(best)].set_index(["method", "lr", "seed"])
    return above.join(lowest_entropy(curves).rename("entropy"), how="inner").dropna(
        subset=["entropy", "loss"]
    )


def cell_means(runs: pd.DataFrame) -> pd.DataFrame:
    """The mean ``entropy`` and ``loss`` of each (method, rate) cell of ``runs`` (indexed by
    method, lr and seed), over its seeds: the experimental unit of a sweep, whose seeds share
    every setting and so are not independent evidence about the setting.

    >>> runs = pd.DataFrame({"method": ["a", "a"], "lr": [1.0, 1.0], "seed": [0, 1],
    ...                      "entropy": [1.0, 3.0], "loss": [0.5, 0.7]}).set_index(
    ...     ["method", "lr", "seed"])
    >>> cell_means(runs).to_dict("records")
    [{'entropy': 2.0, 'loss': 0.6}]
    """
    return runs[["entropy", "loss"]].groupby(level=["method", "lr"]).mean()


def rank_correlation(runs: pd.DataFrame) -> dict[str, float]:
    """Spearman's ``rho`` of the rows' ``entropy`` against their ``loss``, and its one-sided
    p-values for a negative correlation (``p``) and a positive one (``p_positive``).

    >>> found = rank_correlation(pd.DataFrame({"entropy": [1.0, 2.0, 3.0, 4.0],
    ...                                        "loss": [4.0, 3.0, 2.5, 1.0]}))
    >>> round(found["rho"], 2), round(found["p"], 3)
    (-1.0, 0.0)
    """
    rho, p = stats.spearmanr(runs["entropy"], runs["loss"], alternative="less")
    _, p_positive = stats.spearmanr(runs["entropy"], runs["loss"], alternative="greater")
    return {"rho": float(rho), "p": float(p), "p_positive": float(p_positive)}


def sensitivity_groups(runs: pd.DataFrame) -> tuple[pd.Series, list[list[str]]]:
    """The methods' mean learning-rate sensitivity over the seeds (in the run table's order),
    and the methods, lowest mean first, cut into groups each clearly below the next: a cut
    between two neighbours only where every method before it is clearly below every method
    after it, paired by seed, two-sided t tests Holm-corrected over every pair of methods (at
    :data:`~attncore.evidence.statistics.FAMILY_LEVEL`). Methods the seeds cannot tell apart,
    or all of them with one seed, stay in one group.

    >>> runs = pd.DataFrame({"method": ["a", "a", "b", "b"] * 2, "seed": [0] * 4 + [1] * 4,
    ...                      "lr": [0.1, 1.0] * 4, "initial_loss": 2.0, "diverged": False,
    ...                      "final_loss": [0.5, 1.5, 0.5, 0.6, 0.6, 1.7, 0.6, 0.7]})
    >>> means, groups = sensitivity_groups(runs)
    >>> means.round(2).tolist(), groups
    ([0.52, 0.05], [['b'], ['a']])
    """
    sensitivity = lr_sensitivity(runs).set_index(["method", "seed"])["sensitivity"]
    means = sensitivity.groupby(level="method", sort=False).mean()
    order = list(means.sort_values(kind="stable").index)
    if runs["seed"].nunique() > 1:
        return means, _groups(sensitivity, order)
    return means, [order]


def _groups(sensitivity: pd.Series, order: list[str]) -> list[list[str]]:
    """The methods of ``order`` cut into groups as :func:`sensitivity_groups` says
    (``sensitivity`` indexed by method and seed).

    >>> sens = pd.Series([0.1, 0.2, 0.1, 0.2, 0.5, 0.6], index=pd.MultiIndex.from_product(
    ...     [["a", "b", "c"], [0, 1]]))
    >>> _groups(sens, ["a", "b", "c"])
    [['a', 'b'], ['c']]
    """
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
    if not pairs:
        return [list(order)]
    tests = [paired(sensitivity.loc[a], sensitivity.loc[b]) for a, b in pairs]
    mean, se, n = (np.array(column, dtype=float) for column in zip(*tests, strict=True))
    told = holm(two_sided_p(mean, se, n))
    below = {pair for pair, m, t in zip(pairs, mean, told, strict=True) if t and m < 0}
    groups = [[order[0]]]
    for k in range(1, len(order)):
        if all((a, b) in below for a in order[:k] for b in order[k:]):
            groups.append([])
        groups[-1].append(order[k])
    return groups


def width_change(table: pd.DataFrame, method: str) -> dict[str, Any]:
    """``method``'s learning-rate sensitivity at the narrowest and the widest width of a table
    of :func:`width_sensitivity` (``first``, ``last``) and its ``change``: ``rises`` where the
    widest width's interval lies wholly above the narrowest's, ``falls`` where wholly below,
    else ``unclear``.

    >>> table = pd.DataFrame({"width": [16, 32], "method": "a", "lr_sensitivity": [0.4, 0.9],
    ...                       "lr_sensitivity_low": [0.3, 0.8], "lr_sensitivity_high": [0.5, 1.0]})
    >>> width_change(table, "a")
    {'change': 'rises', 'first': 0.4, 'last': 0.9}
    """
    own = table[table["method"] == method].set_index("width").sort_index()
    first, last = own.iloc[0], own.iloc[-1]
    if last["lr_sensitivity_low"] > first["lr_sensitivity_high"]:
        change = "rises"
    elif last["lr_sensitivity_high"] < first["lr_sensitivity_low"]:
        change = "falls"
    else:
        change = "unclear"
    return {"change": change, "first": float(first["lr_sensitivity"]),
            "last": float(last["lr_sensitivity"])}  # fmt: skip
