"""The numbers the softmax-saturation rules read: the measures at the ends of a keys table,
the rows at the unscaled spreads, the slope of a curve's tail, the formats' overflow bounds
grouped, the softmax over each axis and the word-by-word changes of a quotation.

>>> e = ends(example_keys())
>>> e["first"], e["last"], e["top"]
(2, 4096, (0.72, 0.006))
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from types import SimpleNamespace
from typing import Any, Protocol

import numpy as np
import pandas as pd

from attncore.checks import ParameterError
from attncore.evidence.statistics import clear
from attncore.softmax import softmax

__all__ = [
    "CurveLandmarks",
    "agreement_record",
    "clearly_below",
    "ends",
    "example_agreement",
    "example_keys",
    "example_landmarks",
    "example_shifts",
    "example_skew",
    "extremes",
    "marked_records",
    "marked_rows",
    "nearest",
    "overflow_groups",
    "peaked_fall",
    "places",
    "points_by_keys",
    "quotation_changes",
    "rises",
    "shift_records",
    "softmax_axes",
    "tail_slope",
    "unscaled_rows",
    "unscaled_steps",
]


class CurveLandmarks(Protocol):
    """What the rules read from a saturation curve
    (:class:`attncore.simulate.saturation.JacobianLandmarks` has these fields)."""

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


def example_landmarks() -> SimpleNamespace:
    """Landmarks of a curve of 64 keys for examples: the mean norm peaks at spread 2.5 and
    falls to 0.02 where rows are peaked (largest probability 0.986)."""
    return SimpleNamespace(
        uniform_norm=0.124,
        smallest_spread=0.01,
        largest_spread=100.0,
        peak_spread=2.5,
        peak_norm=0.30,
        peak_norm_se=0.002,
        peaked_spread=100.0,
        peaked_max_probability=0.986,
        peaked_norm=0.02,
        peaked_norm_se=0.001,
        spread_at_half=15.8,
        tail_slope=-0.95,
        tail_slope_se=0.01,
    )


def example_keys() -> pd.DataFrame:
    """A keys table at spread 1 for examples: 2 and 4096 keys, every measure with its
    standard error."""
    return pd.DataFrame(
        {
            "n_keys": [2, 4096],
            "spread": [1.0, 1.0],
            "max_probability": [0.72, 0.006],
            "max_probability_se": [0.01, 0.0001],
            "top_over_uniform": [1.45, 24.0],
            "top_over_uniform_se": [0.02, 0.4],
            "jacobian_norm": [0.36, 0.026],
            "jacobian_norm_se": [0.01, 0.0001],
            "norm_over_uniform": [0.72, 1.64],
            "norm_over_uniform_se": [0.02, 0.01],
            "entropy_ratio": [0.77, 0.94],
        }
    )


def example_shifts() -> pd.DataFrame:
    """A shift table for examples: shifts 1 and 750, within rounding, the naive formula
    overflowing at 750."""
    return pd.DataFrame(
        {
            "shift": [1.0, 750.0],
            "largest_difference": [0.0, 1e-13],
            "rounding": [1e-16, 1e-13],
            "naive_finite": [True, False],
        }
    )


def example_skew() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A saturation curve and a keys table for examples, at spread 1 and the marked spread 8:
    the largest probability rises, to 0.97 with 4 keys, to 0.80 with 64."""
    curve = pd.DataFrame(
        {"spread": [1.0, 10.0], "max_probability": [0.3, 0.97], "max_probability_se": [0.01] * 2}
    )
    by_keys = pd.DataFrame(
        {
            "n_keys": [4, 4, 64, 64],
            "spread": [1.0, 8.0, 1.0, 8.0],
            "max_probability": [0.5, 0.97, 0.1, 0.80],
            "max_probability_se": [0.01] * 4,
        }
    )
    return curve, by_keys


def example_agreement() -> dict[str, float | int | bool]:
    """What :func:`attncore.simulate.saturation.jacobian_agreement` finds, for examples."""
    return {"rows": 30, "keys": 4, "largest_difference": 1e-17, "rounding": 9e-16, "symbolic": True}


def agreement_record(agreement: Mapping[str, Any]) -> dict[str, Any]:
    """The ``rows`` and ``keys`` of a Jacobian check and its largest ``difference``."""
    return {
        "rows": int(agreement["rows"]),
        "keys": int(agreement["keys"]),
        "difference": float(agreement["largest_difference"]),
    }


def overflow_groups(bounds: Mapping[str, float]) -> tuple[list[str], list[dict[str, Any]]]:
    """The formats whose ``ln`` of the largest finite number lies in [709, 710), then the others
    grouped by that bound: ``formats``, ``bound`` and ``one`` (a single format)."""
    at_709 = [name for name, b in bounds.items() if math.floor(b) == 709]
    groups: dict[str, list[str]] = {}
    for name, b in bounds.items():
        if math.floor(b) != 709:
            groups.setdefault(f"{b:.2f}", []).append(name)
    records = [
        {"formats": names, "bound": float(b), "one": len(names) == 1} for b, names in groups.items()
    ]
    return at_709, records


def shift_records(table: pd.DataFrame) -> list[dict[str, float]]:
    """Per ``shift`` of a shift table, its largest ``difference`` and the ``rounding``."""
    return [
        {"shift": r.shift, "difference": r.largest_difference, "rounding": r.rounding}
        for r in table.itertuples()
    ]


def peaked_fall(marks: CurveLandmarks) -> dict[str, float]:
    """The mean norm at its peak (``peak_norm`` at ``peak_spread``) and at the most peaked rows
    (``peaked_norm`` at ``peaked_spread``, mean largest probability ``peaked_p``), and the
    ``share`` of the peak left there."""
    return {
        "peak_norm": marks.peak_norm,
        "peak_spread": marks.peak_spread,
        "peaked_spread": marks.peaked_spread,
        "peaked_p": marks.peaked_max_probability,
        "peaked_norm": marks.peaked_norm,
        "share": marks.peaked_norm / marks.peak_norm,
    }


def tail_slope(
    marks: CurveLandmarks, slopes: Sequence[float]
) -> tuple[float, float, dict[str, Any]]:
    """The tail's slope and its standard error, with the values that say them: with two or
    more ``slopes`` (one per seed) their mean and standard deviation over the ``seeds``, else
    the curve's own fit and its standard error (``seeds`` 1).

    >>> tail_slope(example_landmarks(), [float("nan")])
    (-0.95, 0.01, {'slope': -0.95, 'error': 0.01, 'seeds': 1})
    """
    values = np.asarray([v for v in slopes if not math.isnan(v)], dtype=float)
    if values.size >= 2:
        slope, sd = float(values.mean()), float(values.std(ddof=1))
        return (
            slope,
            sd / math.sqrt(values.size),
            {"slope": slope, "error": sd, "seeds": int(values.size)},
        )
    slope, se = marks.tail_slope, marks.tail_slope_se
    return slope, se, {"slope": slope, "error": se, "seeds": 1}


def unscaled_rows(marked: pd.DataFrame, peak_norm: float) -> list[dict[str, Any]]:
    """Per ``d`` (the index of ``marked``), the mean Jacobian norm as a ``share`` of
    ``peak_norm`` in per cent and the mean largest probability (``top``)."""
    return [
        {"d": int(d), "share": 100 * r.jacobian_norm / peak_norm, "top": r.max_probability}
        for d, r in marked.iterrows()
    ]


def unscaled_steps(marked: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """From one ``d`` to the next: the fall of the mean Jacobian norm and two standard errors
    of that fall."""
    norms, ses = marked["jacobian_norm"].to_numpy(), marked["jacobian_norm_se"].to_numpy()
    return norms[:-1] - norms[1:], 2 * (ses[:-1] ** 2 + ses[1:] ** 2) ** 0.5


def rises(curve: pd.DataFrame, by_keys: pd.DataFrame, top: float, corrected: bool = False) -> bool:
    """Whether the mean largest probability falls clearly (two standard errors) nowhere along
    ``curve`` and, for every number of keys, is clearly higher at the spread ``top`` than at
    spread 1. ``corrected``: a fall is clear only where Holm over the steps rejects (normal
    one-sided tests, :func:`~attncore.evidence.statistics.clear`)."""
    values = curve["max_probability"].to_numpy()
    ses = curve["max_probability_se"].to_numpy()
    step = np.hypot(ses[1:], ses[:-1])
    if corrected:
        falls = clear(values[1:] - values[:-1], step, math.inf, "below").to_numpy()
    else:
        falls = values[1:] + 2 * step < values[:-1]
    rising = []
    for _, part in by_keys.groupby("n_keys"):
        base = part[np.isclose(part["spread"], 1.0)].iloc[0]
        end = part[np.isclose(part["spread"], top)].iloc[0]
        gap = end["max_probability"] - base["max_probability"]
        rising.append(gap > 2 * math.hypot(end["max_probability_se"], base["max_probability_se"]))
    return not (falls.any() or not all(rising))


def marked_rows(by_keys: pd.DataFrame, marked: Mapping[float, int]) -> pd.DataFrame:
    """The rows of a keys table at the ``marked`` spreads."""
    return by_keys[np.isin(by_keys["spread"].round(9), np.round(list(marked), 9))]


def clearly_below(table: pd.DataFrame, level: float, corrected: bool = False) -> pd.Series:
    """Per row, whether the mean largest probability lies two standard errors below ``level``;
    ``corrected``: where Holm over the rows rejects (normal one-sided tests,
    :func:`~attncore.evidence.statistics.clear`)."""
    if corrected:
        return clear(
            table["max_probability"] - level, table["max_probability_se"], math.inf, "below"
        )
    return table["max_probability"] + 2 * table["max_probability_se"] < level


def points_by_keys(by_keys: pd.DataFrame) -> list[dict[str, Any]]:
    """Per number of keys ``n``, its ``points``: the mean largest probability ``p`` at each
    ``spread``."""
    return [
        {
            "n": int(n),
            "points": [{"p": p.max_probability, "spread": p.spread} for p in part.itertuples()],
        }
        for n, part in by_keys.groupby("n_keys")
    ]


def nearest(marked: Mapping[float, int], spread: float) -> float:
    """The marked spread nearest to ``spread``."""
    return min(marked, key=lambda m: abs(m - spread))


def places(rows: pd.DataFrame, marked: Mapping[float, int]) -> list[dict[str, int]]:
    """Each row as its number of keys ``n`` and the dimension ``d`` of its marked spread."""
    return [{"n": int(r.n_keys), "d": marked[nearest(marked, r.spread)]} for r in rows.itertuples()]


def marked_records(rows: pd.DataFrame, marked: Mapping[float, int]) -> list[dict[str, Any]]:
    """Each row as its ``n_keys``, its ``spread`` and the dimension ``d`` of that spread."""
    return [
        {"n_keys": int(r.n_keys), "spread": r.spread, "d": marked[nearest(marked, r.spread)]}
        for r in rows.itertuples()
    ]


def extremes(table: pd.DataFrame, column: str) -> tuple[float, float, bool]:
    """The smallest and the largest value of ``column`` over the rows, and whether they lie
    within two standard errors (``<column>_se``) of each other."""
    values, ses = table[column].to_numpy(), table[f"{column}_se"].to_numpy()
    hi, lo = int(values.argmax()), int(values.argmin())
    return values[lo], values[hi], values[hi] - values[lo] <= 2 * math.hypot(ses[hi], ses[lo])


def ends(table: pd.DataFrame) -> dict[str, Any]:
    """The measures of a keys table at its smallest and largest number of keys: ``first`` and
    ``last`` n, and each measure as a pair (``top``, ``top_over``, ``norm``, ``norm_over``,
    ``entropy``)."""
    t = table.sort_values("n_keys")
    a, b = t.iloc[0], t.iloc[-1]
    columns = {
        "top": "max_probability",
        "top_over": "top_over_uniform",
        "norm": "jacobian_norm",
        "norm_over": "norm_over_uniform",
        "entropy": "entropy_ratio",
    }
    pairs = {name: (float(a[column]), float(b[column])) for name, column in columns.items()}
    return {"first": int(a.n_keys), "last": int(b.n_keys), **pairs}


def _words(text: str) -> list[str]:
    r"""The words of ``text`` for a comparison of quotations: mathematics written out
    (``\frac{a}{b}`` as a/b, ``\sqrt{x}`` as √x, no dollars) and footnote marks dropped.

    >>> _words(r"scale by $\frac{1}{\sqrt{d_k}}$ ⁴.")
    ['scale', 'by', '1/√d_k']
    """
    text = re.sub(r"\\sqrt\{([^{}]*)\}", r"√\1", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)
    text = re.sub(r"[$⁰¹²³⁴⁵⁶⁷⁸⁹]", "", text)
    return re.findall(r"[^\s,.;:\"“”]+", text)


def quotation_changes(quoted: str, original: str) -> list[dict[str, list[dict[str, str]]]]:
    """The changes, word by word and in order, from the passage of ``original`` that
    ``quoted`` quotes (its words before and after the passage are no change) to ``quoted``:
    each a record whose one non-empty list names its kind (``replaced``, ``omitted`` or
    ``added``), holding the original's words (``was``) and the quotation's (``now``).

    >>> changes = quotation_changes("We scale by √d_k", "Big. We scale the products by 1/√d_k.")
    >>> [c["omitted"] or c["replaced"] for c in changes]
    [[{'was': 'the products', 'now': ''}], [{'was': '1/√d_k', 'now': '√d_k'}]]
    """
    said, source = _words(quoted), _words(original)
    opcodes = SequenceMatcher(None, source, said, autojunk=False).get_opcodes()
    while opcodes and opcodes[0][0] == "delete":
        opcodes.pop(0)
    while opcodes and opcodes[-1][0] == "delete":
        opcodes.pop()
    kinds = {"replace": "replaced", "delete": "omitted", "insert": "added"}
    changes = []
    for op, i1, i2, j1, j2 in opcodes:
        if op != "equal":
            record: dict[str, list[dict[str, str]]] = {"replaced": [], "omitted": [], "added": []}
            record[kinds[op]] = [{"was": " ".join(source[i1:i2]), "now": " ".join(said[j1:j2])}]
            changes.append(record)
    return changes


def softmax_axes(logits: np.ndarray) -> dict[str, Any]:
    """The softmax of a square matrix over its columns (Chuang's formula) against the softmax
    over its last dimension: the ``rows`` and ``columns``, the range of the row sums of the
    column softmax (``row_sums``) and the largest difference (``gap``)."""
    a = np.asarray(logits, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] < 2:
        raise ParameterError(f"logits must be a square matrix of size 2 or more, got {a.shape}")
    rows, columns = softmax(a, axis=-1), softmax(a, axis=0)
    row_sums = columns.sum(axis=1)
    return {
        "rows": int(a.shape[0]),
        "columns": int(a.shape[1]),
        "row_sums": (float(row_sums.min()), float(row_sums.max())),
        "gap": float(np.abs(rows - columns).max()),
    }
