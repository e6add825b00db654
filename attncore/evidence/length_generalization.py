"""The numbers of the chapter on length generalization (the score table of
:func:`attncore.training.lengths.score_lengths`): mean accuracies over the seeds and differences
paired by seed, with Student-t intervals simultaneous over a reading's comparisons (Bonferroni).

>>> table = pd.DataFrame({"method": "sqrt_d", "seed": [0, 1, 0, 1], "length": [10, 10, 99, 99],
...                       "accuracy": [1.0, 1.0, 0.6, 0.8]})
>>> row = summary(table).loc[("sqrt_d", 99)]
>>> round(float(row["accuracy"]), 2), round(float(row["low"]), 2), accuracy_text(row)
(0.7, -0.57, '0.700 [0.000, 1.000]')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from attncore.evidence import ALIKE
from attncore.intervals import binomial_interval, normal_quantile, t_quantile

__all__ = [
    "LEVEL",
    "OUTCOMES",
    "accuracy_text",
    "accuracy_values",
    "binomial_variance",
    "change_values",
    "flattening",
    "interval",
    "k_total_values",
    "longest",
    "paired",
    "replication_differences",
    "replication_table",
    "summary",
    "temperature_differences",
    "temperature_table",
    "worst_over_lengths",
]

LEVEL = 0.95
"""The intervals' level where a caller gives none: that of the rules' ``confidence``
threshold (``CONFIDENCE`` in ``attncore/claims/thresholds/length_generalization.yaml``)."""

OUTCOMES = ("solved", "not solved", "one seed", "not learned", "undecided")
"""What a run records of a method at the longest length: its accuracy's interval at or above
the solved mark, wholly below it, none (one seed), not solved even at the training length, or
across the mark (:func:`attncore.claims.rules.length_generalization.solved_at_longest`)."""


def interval(values: np.ndarray, comparisons: int, confidence: float) -> tuple[float, float]:
    """Mean and half-width of the simultaneous t interval of ``values`` (NaN below two)."""
    if len(values) < 2:
        return float(np.mean(values)), math.nan
    quantile = t_quantile(confidence, len(values) - 1, comparisons)
    return float(np.mean(values)), float(quantile * np.std(values, ddof=1) / math.sqrt(len(values)))


def longest(table: pd.DataFrame) -> int:
    """The longest test length of the table."""
    return int(table["length"].max())


def summary(table: pd.DataFrame, confidence: float = LEVEL) -> pd.DataFrame:
    """Per method and length: the mean accuracy over the seeds and its interval (``low``,
    ``high``, one comparison each), the means of the other columns, and the seeds."""
    rows = []
    for (method, length), group in table.groupby(["method", "length"], sort=False):
        mean, half = interval(group["accuracy"].to_numpy(), 1, confidence)
        row = {"method": method, "length": length, "accuracy": mean, "low": mean - half}
        row |= {"high": mean + half, "seeds": len(group)}
        for column in ("entropy", "largest", "scale", "factor"):
            if column in group:
                row[column] = float(group[column].mean())
        rows.append(row)
    return pd.DataFrame(rows).set_index(["method", "length"])


def paired(
    table: pd.DataFrame,
    a: str,
    b: str,
    length: int,
    column: str = "accuracy",
    comparisons: int = 1,
    confidence: float = LEVEL,
) -> tuple[float, float]:
    """Mean over the seeds of ``a``'s ``column`` minus ``b``'s at ``length``, and the
    half-width of its interval (NaN with fewer than two shared seeds).

    >>> table = pd.DataFrame({"method": ["x", "x", "y", "y"], "seed": [0, 1, 0, 1],
    ...                       "length": 99, "accuracy": [0.9, 1.0, 0.5, 0.7]})
    >>> [round(v, 3) for v in paired(table, "x", "y", 99)]
    [0.35, 0.635]
    """
    at = table[table["length"] == length].set_index(["method", "seed"])[column]
    difference = (at.loc[a] - at.loc[b]).dropna().to_numpy()
    return interval(difference, comparisons, confidence)


def accuracy_values(row: pd.Series, name: str = "accuracy") -> dict[str, tuple[float, ...]]:
    """A mean accuracy (a row of :func:`summary`) and its interval cut to the range an
    accuracy can take, as ``name``: (mean, low, high).

    >>> accuracy_values(pd.Series({"accuracy": 0.9, "low": 0.8, "high": 1.1}), "a")
    {'a': (0.9, 0.8, 1.0)}
    """
    low, high = max(row["low"], 0.0), min(row["high"], 1.0)
    return {name: (float(row["accuracy"]), float(low), float(high))}


def change_values(mean: float, half: float, name: str) -> dict[str, tuple[float, ...]]:
    """A paired difference of two shares (accuracies, weights, entropies over ln n) and its
    interval cut to the range such a difference can take, -1 to 1, as ``name``: (mean, low,
    high).

    >>> change_values(0.25, 1.273, "d")
    {'d': (0.25, -1.0, 1.0)}
    """
    low, high = max(mean - half, -1.0), min(mean + half, 1.0)
    return {name: (float(mean), float(low), float(high))}


_NO_INTERVAL = "one seed, no interval"
"""What stands for an interval that a single seed cannot give."""


def accuracy_text(row: pd.Series) -> str:
    """A table's cell: a mean accuracy (a row of :func:`summary`) and its interval, cut to the
    range an accuracy can take; the mean alone where one seed gives no interval.

    >>> accuracy_text(pd.Series({"accuracy": 0.5, "low": math.nan, "high": math.nan, "seeds": 1}))
    '0.500 (one seed, no interval)'
    >>> accuracy_text(pd.Series({"accuracy": 1.0, "low": 1.0, "high": 1.0, "seeds": 5}))
    '1.000 (seeds alike)'
    """
    if math.isnan(row["low"]) or math.isnan(row["high"]):
        return f"{row['accuracy']:.3f} ({_NO_INTERVAL})"
    low, high = f"{max(row['low'], 0.0):.3f}", f"{min(row['high'], 1.0):.3f}"
    return f"{row['accuracy']:.3f} " + (f"({ALIKE})" if low == high else f"[{low}, {high}]")


def _difference(mean: float, half: float) -> str:
    """A table's cell: a paired difference of two shares and its interval, cut to -1 to 1
    (:func:`change_values`); the mean alone where one seed gives no interval.

    >>> _difference(0.25, 1.273), _difference(-0.05, 0.01), _difference(0.5, math.nan)
    ('+0.250 [-1.000, +1.000]', '-0.050 [-0.060, -0.040]', '+0.500 (one seed, no interval)')
    """
    if math.isnan(half):
        return f"{mean:+.3f} ({_NO_INTERVAL})"
    low, high = f"{max(mean - half, -1.0):+.3f}", f"{min(mean + half, 1.0):+.3f}"
    return f"{mean:+.3f} " + (f"({ALIKE})" if low == high else f"[{low}, {high}]")


def flattening(
    table: pd.DataFrame, train_length: int, confidence: float = LEVEL
) -> dict[str, tuple[float, float]]:
    """From ``train_length`` to the longest length, 1/√d's change of the [CLS] query's
    normalised ``entropy`` and of its ``largest`` weight (paired within seeds), and at the
    longest length SSMax's largest weight minus 1/√d's (``focus``, paired by seed): each a
    mean and the half-width of its interval, simultaneous over the three.

    >>> table = pd.DataFrame({"method": ["sqrt_d"] * 4 + ["ssmax_learned"] * 2,
    ...                       "seed": [0, 1] * 3, "length": [5, 5, 50, 50, 50, 50],
    ...                       "entropy": 0.5, "largest": [0.9, 0.8, 0.5, 0.4, 0.9, 0.9]})
    >>> {k: round(v[0], 2) for k, v in flattening(table, 5).items()}
    {'entropy': 0.0, 'largest': -0.4, 'focus': 0.45}
    """
    last = longest(table)
    standard = table[table["method"] == "sqrt_d"].set_index(["length", "seed"])
    found = {
        column: interval(
            (standard.loc[last, column] - standard.loc[train_length, column]).to_numpy(),
            3,
            confidence,
        )
        for column in ("entropy", "largest")
    }
    found["focus"] = paired(table, "ssmax_learned", "sqrt_d", last, "largest", 3, confidence)
    return found


def k_total_values(rows: pd.DataFrame, train_length: int, last: int) -> dict[str, Any]:
    """1/k_total's accuracy at the length ``last`` with its interval (:func:`accuracy_values`;
    ``rows`` from :func:`summary`), and its factor on q·k there and at ``train_length``
    (``factor_short``, ``factor_long``, ``fall`` the ratio), beside the number of keys at each
    (``keys_short``, ``keys_long``, ``key_growth`` the ratio)."""
    short, long = rows.loc[("k_total", train_length), "scale"], rows.loc[("k_total", last)]
    values: dict[str, Any] = {"train_length": train_length, "longest": last}
    values |= accuracy_values(long, "k_total")
    values |= {"factor_short": float(short), "factor_long": float(long["scale"])}
    values |= {"fall": float(short / long["scale"]), "keys_short": train_length + 1}
    values |= {"keys_long": last + 1, "key_growth": (last + 1) / (train_length + 1)}
    return values


def temperature_differences(table: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """Per inference-time temperature on the 1/√d models (``names``: method -> label), at the
    longest length: the paired difference in accuracy against the models as trained
    (``change``) and against the models trained with ln n/√d (``gap``), each with the
    half-width of its interval, simultaneous over all the comparisons (NaN with one seed).

    >>> table = pd.DataFrame({"method": ["sqrt_d"] * 2 + ["sqrt_d + q"] * 2 + ["log_n"] * 2,
    ...                       "seed": [0, 1] * 3, "length": 50,
    ...                       "accuracy": [0.6, 0.8, 0.9, 1.0, 1.0, 1.0]})
    >>> temperature_differences(table, {"sqrt_d + q": "Q"}).round(3).loc["Q"].tolist()
    [0.25, 1.273, -0.05, 1.273]
    """
    last, comparisons = longest(table), 2 * len(names)
    rows = {}
    for method, label in names.items():
        change = paired(table, method, "sqrt_d", last, comparisons=comparisons)
        gap = paired(table, method, "log_n", last, comparisons=comparisons)
        rows[label] = {"change": change[0], "change_half": change[1], "gap": gap[0]}
        rows[label]["gap_half"] = gap[1]
    return pd.DataFrame.from_dict(rows, orient="index")


def temperature_table(table: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """The page's table of :func:`temperature_differences`: each difference (columns
    ``change`` and ``gap``, the chapter titles them) with its interval in brackets, cut to -1
    to 1."""
    found = temperature_differences(table, names)
    return pd.DataFrame(
        {
            c: [_difference(m, h) for m, h in zip(found[c], found[f"{c}_half"], strict=True)]
            for c in ("change", "gap")
        },
        index=found.index.rename("temperature at test time"),
    )


def replication_table(scores: pd.DataFrame, confidence: float = LEVEL) -> pd.DataFrame:
    """The authors' setup run by the book (rows of
    :func:`~attncore.training.first_authors.score_authors` with a ``train_length`` column), per
    training length, method and test length: the mean accuracy over the seeds with its
    Student-t interval cut to [0, 1] (NaN with one seed), the mean cross-entropy and the seeds.

    >>> scores = pd.DataFrame({"train_length": 10, "method": "standard", "seed": [0, 1],
    ...                        "length": 1000, "accuracy": [0.5, 0.7], "cross_entropy": 1.0})
    >>> replication_table(scores).iloc[0].to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'train_length': 10, 'method': 'standard', 'test_length': 1000, 'accuracy_mean': 0.6,
     'accuracy_low': 0.0, 'accuracy_high': 1.0, 'cross_entropy_mean': 1.0, 'seeds': 2}
    """
    rows = []
    keys = ["train_length", "method", "length"]
    for (train_length, method, length), group in scores.groupby(keys, sort=False):
        mean, half = interval(group["accuracy"].to_numpy(), 1, confidence)
        rows.append({
            "train_length": int(train_length), "method": method, "test_length": int(length),
            "accuracy_mean": mean, "accuracy_low": max(mean - half, 0.0),
            "accuracy_high": min(mean + half, 1.0),
            "cross_entropy_mean": float(group["cross_entropy"].mean()), "seeds": len(group),
        })  # fmt: skip
    return pd.DataFrame(rows)


def replication_differences(
    scores: pd.DataFrame,
    runs: Mapping[tuple[str, int], Sequence[float]],
    test_length: int,
    strings: int,
    confidence: float = LEVEL,
) -> pd.DataFrame:
    """Per training length and method present in both: the book's mean accuracy at
    ``test_length`` (``scores`` as in :func:`replication_table`) against the published runs'
    (``runs``: per attention and training length, each run's accuracy on ``strings`` sampled
    strings, from :func:`attncore.sources.replication.runs_at_100_epochs`), their
    ``difference`` and the half-width of its Welch interval (NaN where the book has one seed).
    The published mean's variance is at least the binomial one of all its strings together
    (:func:`binomial_variance`), so that runs alike in every string still leave room.

    >>> scores = pd.DataFrame({"train_length": 10, "method": "standard", "seed": [0, 1, 2],
    ...                        "length": 1000, "accuracy": [0.5, 0.6, 0.7]})
    >>> runs = {("standard", 10): [0.5, 0.55, 0.45, 0.5]}
    >>> found = replication_differences(scores, runs, 1000, 100)
    >>> found[["difference", "half"]].round(3).values.tolist()
    [[0.1, 0.211]]
    """
    rows = []
    at = scores[scores["length"] == test_length]
    for (train_length, method), group in at.groupby(["train_length", "method"], sort=False):
        key = (method, int(train_length))
        if key not in runs:
            continue
        ours, theirs = group["accuracy"].to_numpy(), np.asarray(runs[key], dtype=float)
        spread = theirs.var(ddof=1) / len(theirs) if len(theirs) > 1 else 0.0
        b = max(spread, binomial_variance(theirs, strings, confidence))
        if len(ours) > 1:
            a = ours.var(ddof=1) / len(ours)
            df = (a + b) ** 2 / (a**2 / (len(ours) - 1) + b**2 / max(len(theirs) - 1, 1))
        else:  # one seed: no spread of the book's side to compare with
            a = df = math.nan
        rows.append({
            "train_length": int(train_length), "method": method, "ours": float(ours.mean()),
            "theirs": float(theirs.mean()), "difference": float(ours.mean() - theirs.mean()),
            "half": float(t_quantile(confidence, df) * math.sqrt(a + b)),
        })  # fmt: skip
    return pd.DataFrame(rows)


def binomial_variance(accuracies: np.ndarray, strings: int, confidence: float = LEVEL) -> float:
    """The variance of a mean accuracy over runs of ``strings`` sampled strings each that the
    Wilson interval of all their strings together implies (its half-width over the normal
    quantile, squared): never 0, even where every string was right.

    >>> round(binomial_variance(np.array([1.0] * 20), 100), 9)
    2.39e-07
    """
    right = round(float(np.sum(accuracies)) * strings)
    low, high = binomial_interval(right, strings * len(accuracies), confidence)
    return float(((high - low) / (2 * normal_quantile(confidence))) ** 2)


def worst_over_lengths(table: pd.DataFrame) -> pd.DataFrame:
    """Per network (``layer_norm``) and output ``scale`` of a constructed FIRST network's
    table (:func:`attncore.simulate.first_construction.cross_entropy_table`), its largest
    cross-entropy over the lengths and the length where it is: what one model (one scale)
    guarantees at every length. Sorted by network, then scale.

    >>> rows = pd.DataFrame({"layer_norm": True, "scale": [1.0, 1.0, 2.0, 2.0],
    ...                      "length": [10, 100] * 2, "cross_entropy": [0.3, 0.4, 0.1, 0.1]})
    >>> worst_over_lengths(rows)[["scale", "worst", "worst_length"]].values.tolist()
    [[1.0, 0.4, 100.0], [2.0, 0.1, 10.0]]
    """
    ordered = table.sort_values(["layer_norm", "scale", "length"])
    at = ordered.groupby(["layer_norm", "scale"])["cross_entropy"].idxmax()
    worst = ordered.loc[at, ["layer_norm", "scale", "cross_entropy", "length"]]
    return worst.rename(columns={"cross_entropy": "worst", "length": "worst_length"}).reset_index(
        drop=True
    )
