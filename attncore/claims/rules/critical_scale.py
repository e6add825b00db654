"""Verdict rules and conclusions of the chapter on the critical scale (chen2025critical).

The rules read the table of :func:`attncore.simulate.simplex.critical_sweep`: per number of
tokens ``n``, draw, correlation ``rho`` and ``gamma`` (the grid's, ``scale == "grid"``, or a
rescaling's, ``scale`` its name), the ratio of output to input angle, the self weight and the
normalised entropy of the attention rows. Each rule returns a
:class:`~attncore.claims.Finding` with the values its claim's templates say; the thresholds
that decide it are named (:mod:`attncore.claims.thresholds.critical_scale`, each with its
reason) and the verdict is recomputed across their bands
(:func:`~attncore.claims.thresholds.decided_by`). Intervals are over the draws, simultaneous
over the ``rho`` of the grid (Bonferroni). :func:`boundary_span` and :func:`scale_places`
give the chapter's own conclusions as data (:class:`~attncore.claims.finding.Reading`), which
the chapter says in its words.

The boundary is measured where the angle ratio first reaches the value the exact simplex
tends to at the critical scale (:func:`critical_level`: self weight ``odds / (1 + odds)``, 1/2
at odds 1), read in ``gamma (1 - rho)``, which is 1 at ``gamma_c = 1/(1 - rho)``.

>>> round(critical_level(0.5, 1.0), 4)
0.6145
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.interpolate import PchipInterpolator

from attncore.checks import ParameterError, positive_real
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.critical_scale import (
    ABOVE,
    BELOW,
    COLLAPSED,
    CONFIDENCE,
    IDENTITY,
    ODDS,
    STEADY,
    TOLERANCE,
)
from attncore.rescalings import get_rescaling

__all__ = [
    "REFINE",
    "boundary_span",
    "boundary_table",
    "critical_level",
    "critical_log_n",
    "crossings",
    "phase_transition",
    "ratio_at",
    "scale_places",
    "uniform_as_n_grows",
]


def critical_level(rho: float | np.ndarray, odds: float) -> float | np.ndarray:
    """The angle ratio the exact simplex tends to (``n`` to infinity) where its self weight
    tends to ``p = odds / (1 + odds)``: ``arccos(rho / (rho + (1 - rho) p^2)) / arccos(rho)``
    (:func:`attncore.symbolic.critical.limit_angle_ratio`).

    >>> [round(critical_level(0.5, odds), 3) for odds in (0.5, 1.0, 2.0)]
    [0.431, 0.614, 0.77]
    """
    positive_real("odds", odds)
    p = odds / (1 + odds)
    values = np.asarray(rho, dtype=float)
    ratio = np.arccos(values / (values + (1 - values) * p * p)) / np.arccos(values)
    return float(ratio) if ratio.ndim == 0 else ratio


#: Points per interval of the ``gamma`` grid at which the curves are read: between grid points each
#: curve is a monotone cubic (PCHIP) in ``ln gamma``, whose error at the boundary is a small
#: fraction of the straight line's (0.6 % of ``gamma_c`` on the chapter's 40-point grid).
REFINE = 16


def _curves(
    table: pd.DataFrame, refine: int = REFINE
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The grid's curves: one row per ``(n, draw, rho)`` (a frame), the ``gamma`` grid
    refined ``refine`` times, and the angle ratios there (rows by point), read off a
    monotone cubic in ``ln gamma`` through the measured points (``refine = 1``: the measured
    points themselves, to be joined by straight lines)."""
    grid = table[table["scale"] == "grid"].sort_values(["n", "draw", "rho", "gamma"])
    gammas = np.sort(grid["gamma"].unique())
    keys = grid[["n", "draw", "rho"]].drop_duplicates().reset_index(drop=True)
    if len(grid) != len(keys) * len(gammas) or len(gammas) < 2:
        raise ParameterError(
            "table must hold the same gamma grid of 2 points or more for every n, draw and rho"
        )
    ratios = grid["angle_ratio"].to_numpy().reshape(len(keys), len(gammas))
    logs = np.log(gammas)
    fine = np.interp(
        np.linspace(0, len(logs) - 1, refine * (len(logs) - 1) + 1), np.arange(len(logs)), logs
    )
    return keys, np.exp(fine), PchipInterpolator(logs, ratios, axis=1)(fine)


def crossings(table: pd.DataFrame, odds: float = ODDS, refine: int = REFINE) -> pd.DataFrame:
    """Per ``(n, draw, rho)``: the ``gamma`` at which the angle ratio first reaches
    :func:`critical_level` (on the curves of ``_curves(table, refine)``, then linearly in
    ``ln gamma``; NaN where the grid does not bracket it), and ``x = gamma (1 - rho)``, its
    ratio to ``1/(1 - rho)``.

    >>> table = pd.DataFrame({"n": 64, "draw": 0, "rho": 0.5, "scale": "grid",
    ...                       "gamma": [1.0, 2.0, 4.0], "angle_ratio": [0.2, 0.5, 0.9]})
    >>> [round(float(crossings(table, refine=r)["x"].iloc[0]), 3) for r in (1, REFINE)]
    [1.219, 1.245]
    """
    keys, gammas, ratios = _curves(table, refine)
    level = critical_level(keys["rho"].to_numpy(), odds)[:, None]
    reached = ratios >= level
    first = reached.argmax(axis=1)
    found = reached.any(axis=1) & (first > 0)
    before = np.maximum(first - 1, 0)
    rows = np.arange(len(keys))
    y0, y1 = ratios[rows, before], ratios[rows, first]
    g0, g1 = np.log(gammas[before]), np.log(gammas[first])
    with np.errstate(invalid="ignore", divide="ignore"):
        at = np.exp(g0 + (level[:, 0] - y0) * (g1 - g0) / (y1 - y0))
    keys = keys.copy()
    keys["gamma"] = np.where(found, at, np.nan)
    keys["x"] = keys["gamma"] * (1 - keys["rho"])
    return keys


def _summary(
    values: pd.DataFrame, column: str, comparisons: int, confidence: float
) -> pd.DataFrame:
    """Per ``(n, rho)``: the mean of ``column`` over the draws (NaN left out), the half-width
    of its simultaneous interval (t, Bonferroni over ``comparisons``; NaN below two draws)
    and the number of draws."""
    grouped = values.groupby(["n", "rho"])[column]
    summary = pd.DataFrame({"mean": grouped.mean(), "sd": grouped.std(), "draws": grouped.count()})
    df = np.where(summary["draws"] >= 2, summary["draws"] - 1, np.nan)
    quantile = stats.t.ppf(1 - (1 - confidence) / (2 * comparisons), df)
    summary["half"] = quantile * summary["sd"] / np.sqrt(summary["draws"])
    return summary.drop(columns="sd")


def boundary_table(
    table: pd.DataFrame, odds: float = ODDS, confidence: float = CONFIDENCE
) -> pd.DataFrame:
    """Per ``(n, rho)``: the measured boundary over the draws, ``x`` (its ratio to
    ``1/(1 - rho)``) with its interval ``x_low``, ``x_high``, the same for ``gamma``,
    ``gamma_c = 1/(1 - rho)`` and the draws that bracketed a crossing.

    The interval is the simultaneous interval over the draws widened by ``grid``, the mean
    distance between the crossings read off the cubic and off straight lines between the
    grid's points: a bound on the interpolation's error, which the draws do not show."""
    found = crossings(table, odds)
    found["grid"] = (found["x"] - crossings(table, odds, refine=1)["x"]).abs()
    summary = _summary(found, "x", found["rho"].nunique(), confidence)
    bounds = summary.join(found.groupby(["n", "rho"])["grid"].mean()).reset_index()
    bounds = bounds.rename(columns={"mean": "x"})
    width = bounds["half"] + bounds["grid"]
    bounds["x_low"], bounds["x_high"] = bounds["x"] - width, bounds["x"] + width
    bounds["gamma_c"] = 1 / (1 - bounds["rho"])
    for column in ("x", "x_low", "x_high"):
        bounds[column.replace("x", "gamma")] = bounds[column] * bounds["gamma_c"]
    return bounds.drop(columns="half")


def ratio_at(table: pd.DataFrame, factor: float) -> pd.DataFrame:
    """Per ``(n, draw, rho)``: the angle ratio at ``gamma = factor / (1 - rho)``,
    interpolated in ``ln gamma`` (:data:`REFINE`; NaN outside the grid).

    >>> table = pd.DataFrame({"n": 64, "draw": 0, "rho": 0.5, "scale": "grid",
    ...                       "gamma": [1.0, 4.0], "angle_ratio": [0.2, 0.8]})
    >>> float(ratio_at(table, 1.0)["angle_ratio"].iloc[0])
    0.5
    """
    keys, gammas, ratios = _curves(table)
    targets = np.log(factor / (1 - keys["rho"].to_numpy()))
    logs = np.log(gammas)
    inside = (targets >= logs[0]) & (targets <= logs[-1])
    right = np.clip(np.searchsorted(logs, targets), 1, len(logs) - 1)
    rows = np.arange(len(keys))
    share = (targets - logs[right - 1]) / (logs[right] - logs[right - 1])
    values = ratios[rows, right - 1] + share * (ratios[rows, right] - ratios[rows, right - 1])
    keys = keys.copy()
    keys["angle_ratio"] = np.where(inside, values, np.nan)
    return keys


def _difference(
    last: pd.DataFrame, first: pd.DataFrame, comparisons: int, confidence: float
) -> pd.DataFrame:
    """Per ``rho``: the difference of two independent means (last minus first) and the
    half-width of its simultaneous interval (Welch's standard error, the smaller draws' t)."""

    def error(summary: pd.DataFrame) -> pd.Series:  # back from half-width to standard error
        draws = np.maximum(summary["draws"] - 1, 1)
        return summary["half"] / stats.t.ppf(1 - (1 - confidence) / (2 * comparisons), draws)

    draws = np.minimum(last["draws"], first["draws"])
    quantile = stats.t.ppf(1 - (1 - confidence) / (2 * comparisons), np.maximum(draws - 1, 1))
    return pd.DataFrame(
        {
            "difference": last["mean"] - first["mean"],
            "half": quantile * np.sqrt(error(last) ** 2 + error(first) ** 2),
        }
    )


def _listed(rhos: Iterable[float]) -> list[float]:
    """The correlations, in order, as plain numbers.

    >>> _listed(pd.Index([0.5, 0.1]))
    [0.1, 0.5]
    """
    return sorted(float(rho) for rho in rhos)


def _exceptions(**kinds: pd.Index) -> list[dict[str, Any]]:
    """One record per kind of exception that holds some correlations: the kind (a key of the
    claim's ``words``) and its correlations, in order.

    >>> _exceptions(outside=pd.Index([0.8, 0.5]), unclear=pd.Index([]))
    [{'why': ['outside'], 'rhos': [0.5, 0.8]}]
    """
    return [{"why": [kind], "rhos": _listed(rhos)} for kind, rhos in kinds.items() if len(rhos)]


def _pair(values: pd.Series) -> tuple[float, float]:
    """The smallest and the largest of ``values`` (NaN left out)."""
    return float(values.min()), float(values.max())


@decided_by(ODDS, TOLERANCE)
def critical_log_n(
    table: pd.DataFrame,
    *,
    odds: float = ODDS,
    tolerance: float = TOLERANCE,
    confidence: float = CONFIDENCE,
) -> Finding:
    """ "The critical scaling β_n ≍ log n", read as a boundary at ``gamma_c = 1/(1 - rho)``:
    at the largest ``n``, holds if every ``rho``'s simultaneous interval of the boundary lies
    within ``tolerance`` (relative) of ``1/(1 - rho)``; holds with a caveat if some do (the
    ``exceptions`` name the others, and the ``rho`` whose crossing the grid does not
    bracket); does not hold if every ``rho``'s interval lies wholly outside it; not testable
    with fewer than two draws, no bracketed crossing (branch ``no-crossing``), or where no
    interval lies within the tolerance and some reach across its edge (the draws cannot tell).

    Values: ``n`` (the largest), the range of the ``boundary`` over the correlations ``rhos``
    (in units of ``1/(1 - rho)``), the range of their ``intervals``, the fewest ``draws``, and
    for a caveat or an undecided verdict the ``exceptions`` (kind and correlations).
    """
    claim = "chen-critical-log-n"
    bounds = boundary_table(table, odds, confidence)
    n_max = int(bounds["n"].max())
    last = bounds[bounds["n"] == n_max].set_index("rho")
    measured_ok = last["draws"] >= 2
    if not measured_ok.any():
        return Finding(claim, Verdict.UNTESTABLE, values={"n": n_max}, branch="no-crossing")
    shown = last[measured_ok]
    within = (shown["x_low"] >= 1 - tolerance) & (shown["x_high"] <= 1 + tolerance)
    outside = (shown["x_high"] < 1 - tolerance) | (shown["x_low"] > 1 + tolerance)
    values: dict[str, Any] = {
        "n": n_max,
        "boundary": _pair(shown["x"]),
        "rhos": _listed(shown.index),
        "intervals": (float(shown["x_low"].min()), float(shown["x_high"].max())),
        "draws": int(shown["draws"].min()),
    }
    exceptions = _exceptions(
        outside=within.index[outside],
        unclear=within.index[~within & ~outside],
        unbracketed=last.index[~measured_ok],
    )
    if within.all() and measured_ok.all():
        return Finding(claim, Verdict.HOLDS, values=values)
    if within.any():
        return Finding(claim, Verdict.CAVEAT, values={**values, "exceptions": exceptions})
    if outside.all() and measured_ok.all():
        return Finding(claim, Verdict.FAILS, values=values)
    return Finding(claim, Verdict.UNTESTABLE, values={**values, "exceptions": exceptions})


def _one_n(claim: str, ends: pd.Series, values: dict[str, Any]) -> Finding:
    """The finding of :func:`phase_transition` on a single ``n``: whether the transition
    sharpens is not measured, so a caveat where both ends are reached at some ``rho``
    (branch ``one-n``, or ``one-n-partly`` with the ``missed`` correlations), else not
    testable (``one-n-untestable``)."""
    if ends.all():
        return Finding(claim, Verdict.CAVEAT, values=values, branch="one-n")
    if ends.any():
        missed = _listed(ends.index[~ends])
        return Finding(
            claim, Verdict.CAVEAT, values={**values, "missed": missed}, branch="one-n-partly"
        )
    return Finding(claim, Verdict.UNTESTABLE, values=values, branch="one-n-untestable")


def _sharpening(
    claim: str,
    ends: pd.Series,
    missed: pd.Series,
    falls: pd.DataFrame,
    rises: pd.DataFrame,
    steady: float,
    values: dict[str, Any],
) -> Finding:
    """The finding of :func:`phase_transition` over several ``n``, from whether both ``ends``
    are reached (or clearly ``missed``) and the changes of the ratio below (``falls``) and
    above (``rises``) the critical scale from the smallest ``n`` to the largest."""
    sharpens = (falls["difference"] + falls["half"] < 0) & (
        rises["difference"] + rises["half"] >= 0
    )
    flat = (falls["difference"] - falls["half"] > -steady) | (
        rises["difference"] + rises["half"] < 0
    )
    values = {**values, "falls": _pair(falls["difference"])}
    against = missed & flat
    if ends.all() and sharpens.all():
        return Finding(claim, Verdict.HOLDS, values=values)
    if ends.any() or sharpens.any():
        exceptions = _exceptions(ends=ends.index[~ends], blunt=sharpens.index[~sharpens])
        return Finding(claim, Verdict.CAVEAT, values={**values, "exceptions": exceptions})
    if against.all():
        return Finding(claim, Verdict.FAILS, values=values)
    undecided = _listed(against.index[~against])
    return Finding(claim, Verdict.UNTESTABLE, values={**values, "undecided": undecided})


@decided_by(BELOW, ABOVE, COLLAPSED, IDENTITY, STEADY)
def phase_transition(
    table: pd.DataFrame,
    *,
    below: float = BELOW,
    above: float = ABOVE,
    collapsed: float = COLLAPSED,
    identity: float = IDENTITY,
    steady: float = STEADY,
    confidence: float = CONFIDENCE,
) -> Finding:
    """ "Insufficient scaling collapses all tokens to a single direction, while excessive
    scaling reduces attention to identity": at the largest ``n``, the angle ratio at
    ``gamma_c / below`` is at most ``collapsed`` and at ``gamma_c * above`` at least
    ``identity`` (interval bounds), and, from the smallest to the largest ``n``, the first
    falls clearly while the second does not fall clearly (the transition sharpens).

    Holds if all four hold at every ``rho``; holds with a caveat if both ends are reached or
    the transition sharpens at some ``rho``; does not hold if, at every ``rho``, an end is
    clearly missed (its interval wholly on the wrong side) and the transition clearly does
    not sharpen (the fall at ``gamma_c / below`` clearly smaller than ``steady``, or the ratio
    at ``gamma_c * above`` clearly falling); not testable where the grid does not reach both
    factors (branch ``off-grid``), fewer than two draws ran, or the draws cannot tell (one
    ``n`` only, with no end reached: the sharpening that would give a caveat is not measured).

    Values: ``n`` (the largest), the range over the correlations ``rhos`` of the ratio at the
    ``collapse`` end and at the ``identity`` end; over several ``n`` the smallest, ``n_min``,
    the range of the change below (``falls``), and the ``exceptions`` of a caveat or the
    ``undecided`` correlations of an undecided verdict.
    """
    claim = "chen-phase-transition"
    comparisons = table["rho"].nunique()
    low = _summary(ratio_at(table, 1 / below), "angle_ratio", comparisons, confidence)
    high = _summary(ratio_at(table, above), "angle_ratio", comparisons, confidence)
    ns = sorted(low.index.get_level_values("n").unique())
    n_max, n_min = ns[-1], ns[0]
    last_low, last_high = low.loc[n_max], high.loc[n_max]
    usable = (last_low["draws"] >= 2) & (last_high["draws"] >= 2)
    if not usable.any():
        return Finding(claim, Verdict.UNTESTABLE, values={"n": int(n_max)}, branch="off-grid")
    ends = (last_low["mean"] + last_low["half"] <= collapsed) & (
        last_high["mean"] - last_high["half"] >= identity
    )
    ends &= usable
    missed = (last_low["mean"] - last_low["half"] > collapsed) | (
        last_high["mean"] + last_high["half"] < identity
    )
    values = {
        "n": int(n_max),
        "collapse": _pair(last_low["mean"]),
        "identity": _pair(last_high["mean"]),
        "rhos": _listed(last_low.index),
    }
    if len(ns) < 2:
        return _one_n(claim, ends, values)
    falls = _difference(last_low, low.loc[n_min], comparisons, confidence)
    rises = _difference(last_high, high.loc[n_min], comparisons, confidence)
    return _sharpening(claim, ends, missed, falls, rises, steady, {**values, "n_min": int(n_min)})


@decided_by(STEADY)
def uniform_as_n_grows(
    table: pd.DataFrame,
    scale: str = "sqrt_d",
    *,
    steady: float = STEADY,
    confidence: float = CONFIDENCE,
) -> Finding:
    """ "Attention scores collapse toward uniformity as context length n increases, causing
    tokens to cluster excessively", at the fixed logit scale ``scale`` (a rescaling the sweep
    measured): holds if, from the smallest to the largest ``n``, the normalised entropy of
    the rows rises clearly and the angle ratio falls clearly at every ``rho``; holds with a
    caveat if one of them does at some ``rho``; does not hold if at every ``rho`` neither
    does and the draws show it (the entropy's rise and the ratio's fall each clearly smaller
    than ``steady``); not testable with one ``n`` (branch ``one-n``), fewer than two draws
    (``one-draw``), or where the draws cannot tell (a change neither clear nor clearly smaller
    than ``steady``).

    Values: the ``scale``'s label; with two ``n`` or more, the first and last ``n`` and their
    ``gammas``, the ranges over the correlations ``rhos`` of the change of the ``entropy`` and
    of the angle ``ratio``, and the ``unclear`` correlations of a caveat or the ``undecided``
    ones of an undecided verdict.
    """
    claim = "chen-uniform-as-n-grows"
    rows = table[table["scale"] == scale]
    label = get_rescaling(scale).label
    ns = sorted(rows["n"].unique())
    if len(ns) < 2:
        values = {"scale": label, "count": len(ns)}
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="one-n")
    if rows.groupby(["n", "rho"]).size().min() < 2:
        return Finding(claim, Verdict.UNTESTABLE, values={"scale": label}, branch="one-draw")
    comparisons = rows["rho"].nunique()
    entropy = _summary(rows, "entropy", comparisons, confidence)
    ratio = _summary(rows, "angle_ratio", comparisons, confidence)
    rises = _difference(entropy.loc[ns[-1]], entropy.loc[ns[0]], comparisons, confidence)
    falls = _difference(ratio.loc[ns[-1]], ratio.loc[ns[0]], comparisons, confidence)
    uniform = rises["difference"] - rises["half"] > 0
    cluster = falls["difference"] + falls["half"] < 0
    against = (rises["difference"] + rises["half"] < steady) & (
        falls["difference"] - falls["half"] > -steady
    )
    gammas = rows.groupby("n")["gamma"].first()
    values = {
        "scale": label,
        "n": (int(ns[0]), int(ns[-1])),
        "gammas": (float(gammas[ns[0]]), float(gammas[ns[-1]])),
        "entropy": _pair(rises["difference"]),
        "ratio": _pair(falls["difference"]),
        "rhos": _listed(rises.index),
    }
    both = uniform & cluster
    if both.all():
        return Finding(claim, Verdict.HOLDS, values=values)
    if uniform.any() or cluster.any():
        unclear = _listed(both.index[~both])
        return Finding(claim, Verdict.CAVEAT, values={**values, "unclear": unclear})
    if against.all():
        return Finding(claim, Verdict.FAILS, values=values)
    undecided = _listed(against.index[~against])
    return Finding(claim, Verdict.UNTESTABLE, values={**values, "undecided": undecided})


def boundary_span(bounds: pd.DataFrame) -> Reading:
    """Where the measured boundary lies, in units of ``1/(1 - rho)``, at each ``n``: branch
    ``measured`` with ``spans`` (per ``n``, a record of ``n`` and the range ``x`` of the
    boundary over the correlations) and the correlations ``rhos``; ``none`` where the grid
    brackets no crossing.

    >>> bounds = pd.DataFrame({"n": [64, 64, 512], "rho": [0.2, 0.8, 0.2],
    ...                        "x": [1.02, 0.99, 1.011], "draws": 5})
    >>> found = boundary_span(bounds)
    >>> found.branch, found.values["spans"], found.values["rhos"]
    ('measured', [{'n': 64, 'x': (0.99, 1.02)}, {'n': 512, 'x': (1.011, 1.011)}], [0.2, 0.8])
    >>> boundary_span(bounds.assign(x=np.nan)).branch
    'none'
    """
    measured = bounds.dropna(subset=["x"])
    if measured.empty:
        return Reading("none")
    spans = [{"n": int(n), "x": _pair(group["x"])} for n, group in measured.groupby("n")]
    return Reading("measured", {"spans": spans, "rhos": _listed(measured["rho"].unique())})


def scale_places(table: pd.DataFrame, bounds: pd.DataFrame) -> list[Reading]:
    """Where 1/√d and ln n/√d put ``gamma`` at the largest ``n``, against the measured
    boundary: one reading per scale (values: its ``scale`` label and ``gamma``). Branch
    ``sides`` lists as ``sides`` (records of a ``side``, a key of the chapter's words, and
    its correlations ``rhos``) the ``rho`` of the grid at which the scale lies clearly below
    the boundary (``below``: on the collapse side, below the lower end of its interval),
    inside its interval (``unclear``: a side the draws cannot tell) or where one draw gives
    no interval (``lone``); it lies clearly above at the others. Branch ``above``: clearly
    above at every ``rho``; ``above-measured``: at every ``rho`` where a boundary was
    measured.

    >>> table = pd.DataFrame({"n": 4096, "scale": ["sqrt_d", "log_n"], "gamma": [1.36, 11.3]})
    >>> bounds = pd.DataFrame({"n": 4096, "rho": [0.2, 0.5, 0.95], "gamma": [1.27, 2.03, 20.5],
    ...                        "gamma_low": [1.2, 1.9, 19.0], "gamma_high": [1.3, 2.1, 22.0]})
    >>> [(p.branch, p.values["scale"], p.values["gamma"]) for p in scale_places(table, bounds)]
    [('sides', '1/√d', 1.36), ('sides', 'ln n/√d', 11.3)]
    >>> scale_places(table, bounds)[0].values["sides"]
    [{'side': ['below'], 'rhos': [0.5, 0.95]}]
    >>> lone = scale_places(table, bounds.assign(gamma_low=[1.2, 1.9, None]))
    >>> [p.values["sides"] for p in lone]
    [[{'side': ['below'], 'rhos': [0.5]}, {'side': ['lone'], 'rhos': [0.95]}], \
[{'side': ['lone'], 'rhos': [0.95]}]]
    >>> scale_places(table, bounds.iloc[:2])[1].branch
    'above'
    >>> scale_places(table, bounds.assign(gamma=[1.27, 2.03, None]))[1].branch
    'above-measured'
    """
    n_max = int(bounds["n"].max())
    every = bounds[bounds["n"] == n_max]
    last = every.dropna(subset=["gamma"])
    at = table[table["n"] == n_max].groupby("scale")["gamma"].first()
    lone = last["gamma_low"].isna() | last["gamma_high"].isna()  # one draw: no interval
    places = []
    for scale in ("sqrt_d", "log_n"):
        gamma = at[scale]
        below = ~lone & (last["gamma_low"] > gamma)
        unclear = ~lone & ~below & ~(last["gamma_high"] < gamma)
        values = {"scale": get_rescaling(scale).label, "gamma": float(gamma)}
        sides = [
            {"side": [side], "rhos": _listed(last.loc[where, "rho"])}
            for side, where in (("below", below), ("unclear", unclear), ("lone", lone))
            if where.any()
        ]
        if sides:
            places.append(Reading("sides", {**values, "sides": sides}))
        else:
            measured = len(last) < len(every)
            places.append(Reading("above-measured" if measured else "above", values))
    return places
