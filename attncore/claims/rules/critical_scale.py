"""Verdict rules and conclusions of the chapter on the critical scale (chen2025critical).

The rules read the table of :func:`attncore.simulate.simplex.critical_sweep`: per number of
tokens ``n``, draw, correlation ``rho`` and ``gamma`` (the grid's, ``scale == "grid"``, or a
rescaling's, ``scale`` its name), the ratio of output to input angle, the self weight and the
normalised entropy of the attention rows. Each rule returns a
:class:`~attncore.claims.Finding`; the thresholds that decide it are named
(:class:`~attncore.claims.thresholds.Threshold`, each with its reason) and the verdict is
recomputed across their bands (:func:`~attncore.claims.thresholds.decided_by`). Intervals
are over the draws, simultaneous over the ``rho`` of the grid (Bonferroni). The
``*_sentence`` functions turn the same numbers into the chapter's glued sentences.

The boundary is measured where the angle ratio first reaches the value the exact simplex
tends to at the critical scale (:func:`critical_level`: self weight ``odds / (1 + odds)``, 1/2
at odds 1), read in ``gamma (1 - rho)``, which is 1 at ``gamma_c = 1/(1 - rho)``.

>>> round(critical_level(0.5, 1.0), 4)
0.6145
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats
from scipy.interpolate import PchipInterpolator

from attncore.checks import ParameterError
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding
from attncore.claims.thresholds import Threshold, decided_by
from attncore.rescalings import get_rescaling

__all__ = [
    "ABOVE",
    "BELOW",
    "COLLAPSED",
    "CONFIDENCE",
    "IDENTITY",
    "ODDS",
    "REFINE",
    "STEADY",
    "TOLERANCE",
    "boundary_sentence",
    "boundary_table",
    "critical_level",
    "critical_log_n",
    "crossings",
    "phase_transition",
    "ratio_at",
    "scales_sentence",
    "uniform_as_n_grows",
]

ODDS = Threshold(
    1.0,
    "odds",
    "at the critical scale the exact simplex's self weight tends to 1/2, a token keeping as "
    "much weight as all the others together (odds 1), midway between collapse (odds 0) and "
    "the identity (odds without bound)",
)
"""The self weight's odds whose limiting angle ratio marks the boundary."""

TOLERANCE = Threshold(
    0.15,
    "tolerance",
    "at n = 4096 the boundary's definition alone (odds 1/2 to 2) moves it by ln 2/ln n = 8 % "
    "and the almost-simplex's perturbation by about ln n/(2(d - 1)), 3 % at d = 128, while a "
    "boundary at γ = 1 whatever ρ would be 20 % or more off from ρ = 0.2 on",
)
"""How far, relatively, the measured boundary may lie from ``1/(1 - rho)``."""

BELOW = Threshold(
    2.0,
    "below",
    "'insufficient scaling' read as the critical scale divided by 2, beyond the finite-n "
    "transition, whose width in γ(1 − ρ) is about 1/ln n",
    scale="factor",
)
"""The factor below the critical scale at which collapse is looked for."""

ABOVE = Threshold(
    2.0,
    "above",
    "'excessive scaling' read as the critical scale times 2, beyond the finite-n transition",
    scale="factor",
)
"""The factor above the critical scale at which the identity is looked for."""

COLLAPSED = Threshold(
    0.1,
    "collapsed",
    "an output angle a tenth of the input angle or less: the outputs have closed nine tenths "
    "of the way to one direction",
)
"""Largest angle ratio read as "collapsed to a single direction"."""

IDENTITY = Threshold(
    0.9,
    "identity",
    "an output angle nine tenths of the input angle or more: the layer moved the tokens' "
    "geometry by a tenth at most",
    scale="share",
)
"""Smallest angle ratio read as "attention reduced to the identity"."""

STEADY = Threshold(
    0.05,
    "steady",
    "a change from the smallest to the largest n of the angle ratio or the rows' normalised "
    "entropy (both 0 to 1) whose whole interval stays within 0.05 of no change is read as "
    "none: half the tenth by which the collapse and identity thresholds read 'near 0' and "
    "'near 1'; a wider interval leaves the change undecided",
)
"""Largest change, over the interval of a change with ``n``, read as "no change"."""

CONFIDENCE = Threshold(
    0.95,
    "confidence",
    "the intervals' level, simultaneous over the ρ of the grid: the draws and the Bonferroni "
    "correction control its errors, so no band applies",
    scale="fixed",
)
"""Confidence of the simultaneous intervals over the draws."""

_CHECK = (
    "simulated almost-simplex at the chapter's d, n and ρ; intervals over the draws, "
    "simultaneous over ρ by Bonferroni"
)


def critical_level(rho: float | np.ndarray, odds: float) -> float | np.ndarray:
    """The angle ratio the exact simplex tends to (``n`` to infinity) where its self weight
    tends to ``p = odds / (1 + odds)``: ``arccos(rho / (rho + (1 - rho) p^2)) / arccos(rho)``
    (:func:`attncore.symbolic.critical.limit_angle_ratio`).

    >>> [round(critical_level(0.5, odds), 3) for odds in (0.5, 1.0, 2.0)]
    [0.431, 0.614, 0.77]
    """
    if not odds > 0:
        raise ParameterError(f"odds must be a number > 0, got {odds!r}")
    p = odds / (1 + odds)
    values = np.asarray(rho, dtype=float)
    ratio = np.arccos(values / (values + (1 - values) * p * p)) / np.arccos(values)
    return float(ratio) if ratio.ndim == 0 else ratio


REFINE = 16
"""Points per interval of the ``gamma`` grid at which the curves are read: between grid
points each curve is a monotone cubic (PCHIP) in ``ln gamma``, whose error at the boundary is
a small fraction of the straight line's (0.6 % of ``gamma_c`` on the chapter's 40-point grid)."""


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


def _rhos(values: Sequence[float]) -> str:
    """The correlations, listed in order.

    >>> _rhos([0.5, 0.1])
    '0.1, 0.5'
    """
    return ", ".join(f"{v:g}" for v in sorted(values))


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
    measured text names the others, and the ``rho`` whose crossing the grid does not
    bracket); does not hold if every ``rho``'s interval lies wholly outside it; not testable
    with fewer than two draws, no bracketed crossing, or where no interval lies within the
    tolerance and some reach across its edge (the draws cannot tell).
    """
    bounds = boundary_table(table, odds, confidence)
    n_max = int(bounds["n"].max())
    last = bounds[bounds["n"] == n_max].set_index("rho")
    check = f"{_CHECK}; boundary where the angle ratio reaches the exact simplex's limit"
    measured_ok = last["draws"] >= 2
    if not measured_ok.any():
        measured = (
            f"at n = {n_max} no ρ has a crossing bracketed by the γ grid in two draws or more"
        )
        return Finding("chen-critical-log-n", Verdict.UNTESTABLE, measured, check)
    shown = last[measured_ok]
    within = (shown["x_low"] >= 1 - tolerance) & (shown["x_high"] <= 1 + tolerance)
    outside = (shown["x_high"] < 1 - tolerance) | (shown["x_low"] > 1 + tolerance)
    measured = (
        f"at n = {n_max} the boundary lies at {shown['x'].min():.3f} to {shown['x'].max():.3f} "
        f"times 1/(1 − ρ) over ρ = {_rhos(shown.index)} (intervals {shown['x_low'].min():.3f} "
        f"to {shown['x_high'].max():.3f}, {int(shown['draws'].min())} draws or more; "
        f"tolerance ±{tolerance:.0%})"
    )
    unclear = within.index[~within & ~outside]
    if outside.any():
        measured += f"; not within it at ρ = {_rhos(within.index[outside])}"
    if len(unclear):
        measured += f"; the draws cannot tell whether within it at ρ = {_rhos(unclear)}"
    if not measured_ok.all():
        measured += (
            f"; no crossing bracketed in two draws or more at ρ = {_rhos(last.index[~measured_ok])}"
        )
    if within.all() and measured_ok.all():
        verdict = Verdict.HOLDS
    elif within.any():
        verdict = Verdict.CAVEAT
    elif outside.all() and measured_ok.all():
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    return Finding("chen-critical-log-n", verdict, measured, check)


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
    factors, fewer than two draws ran, or the draws cannot tell (one ``n`` only, with no end
    reached: the sharpening that would give a caveat is not measured).
    """
    comparisons = table["rho"].nunique()
    low = _summary(ratio_at(table, 1 / below), "angle_ratio", comparisons, confidence)
    high = _summary(ratio_at(table, above), "angle_ratio", comparisons, confidence)
    ns = sorted(low.index.get_level_values("n").unique())
    n_max, n_min = ns[-1], ns[0]
    check = f"{_CHECK}; angle ratio interpolated in ln γ at γ_c/{below:.3g} and γ_c·{above:.3g}"
    last_low, last_high = low.loc[n_max], high.loc[n_max]
    usable = (last_low["draws"] >= 2) & (last_high["draws"] >= 2)
    if not usable.any():
        measured = (
            f"at n = {n_max} the γ grid does not reach both γ_c/{below:.3g} and "
            f"γ_c·{above:.3g} in two draws or more at any ρ"
        )
        return Finding("chen-phase-transition", Verdict.UNTESTABLE, measured, check)
    ends = (last_low["mean"] + last_low["half"] <= collapsed) & (
        last_high["mean"] - last_high["half"] >= identity
    )
    ends &= usable
    missed = (last_low["mean"] - last_low["half"] > collapsed) | (
        last_high["mean"] + last_high["half"] < identity
    )
    measured = (
        f"at n = {n_max}, the angle ratio is {last_low['mean'].min():.3f} to "
        f"{last_low['mean'].max():.3f} at γ_c/{below:.3g} (collapse: at most {collapsed:g}) "
        f"and {last_high['mean'].min():.3f} to {last_high['mean'].max():.3f} at "
        f"γ_c·{above:.3g} (identity: at least {identity:g}) over ρ = {_rhos(last_low.index)}"
    )
    if not ends.all():
        measured += f"; both ends not clearly reached at ρ = {_rhos(ends.index[~ends])}"
    if len(ns) < 2:
        measured += "; one n only, so whether the transition sharpens is not measured"
        verdict = Verdict.CAVEAT if ends.any() else Verdict.UNTESTABLE
        return Finding("chen-phase-transition", verdict, measured, check)
    falls = _difference(last_low, low.loc[n_min], comparisons, confidence)
    rises = _difference(last_high, high.loc[n_min], comparisons, confidence)
    sharpens = (falls["difference"] + falls["half"] < 0) & (
        rises["difference"] + rises["half"] >= 0
    )
    flat = (falls["difference"] - falls["half"] > -steady) | (
        rises["difference"] + rises["half"] < 0
    )
    measured += (
        f"; from n = {n_min} to {n_max} the ratio at γ_c/{below:.3g} changes by "
        f"{falls['difference'].min():+.3f} to {falls['difference'].max():+.3f}"
    )
    if not sharpens.all():
        measured += (
            f"; the transition does not sharpen clearly at ρ = {_rhos(sharpens.index[~sharpens])}"
        )
    against = missed & flat
    if ends.all() and sharpens.all():
        verdict = Verdict.HOLDS
    elif ends.any() or sharpens.any():
        verdict = Verdict.CAVEAT
    elif against.all():
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
        measured += (
            f"; the draws cannot tell whether the ends are missed and the transition does "
            f"not sharpen at ρ = {_rhos(against.index[~against])}"
        )
    return Finding("chen-phase-transition", verdict, measured, check)


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
    than ``steady``); not testable with one ``n``, fewer than two draws, or where the draws
    cannot tell (a change neither clear nor clearly smaller than ``steady``).
    """
    rows = table[table["scale"] == scale]
    check = f"{_CHECK}; the logit scale of {get_rescaling(scale).label} on tokens of norm √d"
    ns = sorted(rows["n"].unique())
    if len(ns) < 2 or rows.groupby(["n", "rho"]).size().min() < 2:
        measured = (
            f"the sweep holds {len(ns)} n at the scale of {scale}: no change with n to measure"
            if len(ns) < 2
            else f"fewer than two draws at some n and ρ at the scale of {scale}: too few draws "
            "to tell"
        )
        return Finding("chen-uniform-as-n-grows", Verdict.UNTESTABLE, measured, check)
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
    measured = (
        f"at γ = {gammas[ns[0]]:.2f} (n = {ns[0]}) to {gammas[ns[-1]]:.2f} (n = {ns[-1]}), the "
        f"rows' normalised entropy changes by {rises['difference'].min():+.3f} to "
        f"{rises['difference'].max():+.3f} and the angle ratio by "
        f"{falls['difference'].min():+.3f} to {falls['difference'].max():+.3f} over "
        f"ρ = {_rhos(rises.index)}"
    )
    both = uniform & cluster
    if not both.all():
        measured += f"; not both clearly at ρ = {_rhos(both.index[~both])}"
    if both.all():
        verdict = Verdict.HOLDS
    elif uniform.any() or cluster.any():
        verdict = Verdict.CAVEAT
    elif against.all():
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
        measured += (
            f"; the draws cannot tell whether they change by less than {steady:g} at "
            f"ρ = {_rhos(against.index[~against])}"
        )
    return Finding("chen-uniform-as-n-grows", verdict, measured, check)


def boundary_sentence(bounds: pd.DataFrame) -> str:
    """Where the measured boundary lies, in units of ``1/(1 - rho)``, at each ``n``.

    >>> bounds = pd.DataFrame({"n": [64, 64, 512], "rho": [0.2, 0.8, 0.2],
    ...                        "x": [1.02, 0.99, 1.011], "draws": 5})
    >>> boundary_sentence(bounds)
    'In units of 1/(1 − ρ), the measured boundary lies at 0.990 to 1.020 at n = 64 and at \
1.011 at n = 512 (over ρ = 0.2, 0.8).'
    """
    measured = bounds.dropna(subset=["x"])
    if measured.empty:
        return "The γ grid brackets no crossing, so no boundary is measured."
    parts = []
    for n, group in measured.groupby("n"):
        low, high = f"{group['x'].min():.3f}", f"{group['x'].max():.3f}"
        parts.append(f"at {low} at n = {n}" if low == high else f"at {low} to {high} at n = {n}")
    joined = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    rhos = _rhos(measured["rho"].unique())
    return f"In units of 1/(1 − ρ), the measured boundary lies {joined} (over ρ = {rhos})."


def scales_sentence(table: pd.DataFrame, bounds: pd.DataFrame, d: int) -> str:
    """Where 1/√d and ln n/√d put ``gamma`` at the largest ``n``, against the measured
    boundary: the ``rho`` of the grid at which each lies clearly below it, on the collapse
    side (below the lower end of its interval), and those at which it lies inside the
    interval, on a side the draws cannot tell; it lies clearly above the others.

    >>> table = pd.DataFrame({"n": 4096, "scale": ["sqrt_d", "log_n"], "gamma": [1.36, 11.3]})
    >>> bounds = pd.DataFrame({"n": 4096, "rho": [0.2, 0.5, 0.95], "gamma": [1.27, 2.03, 20.5],
    ...                        "gamma_low": [1.2, 1.9, 19.0], "gamma_high": [1.3, 2.1, 22.0]})
    >>> print(scales_sentence(table, bounds, 128))
    With logits γ ln n times the tokens' inner products, at n = 4096 and d = 128, 1/√d puts
    γ at 1.36, below the measured critical γ (where the layer collapses the tokens onto one
    direction) for mean token correlations ρ = 0.5, 0.95; ln n/√d puts γ at 11.3, below it
    for ρ = 0.95.
    >>> print(scales_sentence(table, bounds.assign(gamma_low=1.0, gamma_high=30.0), 128))
    With logits γ ln n times the tokens' inner products, at n = 4096 and d = 128, 1/√d puts
    γ at 1.36, not told apart from the measured critical γ (where the layer collapses the
    tokens onto one direction) for mean token correlations ρ = 0.2, 0.5, 0.95 (inside its
    interval); ln n/√d puts γ at 11.3, not told apart from it for ρ = 0.2, 0.5, 0.95 (inside
    its interval).
    >>> print(scales_sentence(table, bounds.assign(gamma_low=[1.2, 1.9, None]), 128))
    With logits γ ln n times the tokens' inner products, at n = 4096 and d = 128, 1/√d puts
    γ at 1.36, below the measured critical γ (where the layer collapses the tokens onto one
    direction) for a mean token correlation ρ = 0.5 and not compared with it for ρ = 0.95 (one
    draw, no interval); ln n/√d puts γ at 11.3, not compared with it for ρ = 0.95 (one draw,
    no interval).
    """
    n_max = int(bounds["n"].max())
    every = bounds[bounds["n"] == n_max]
    last = every.dropna(subset=["gamma"])
    at = table[table["n"] == n_max].groupby("scale")["gamma"].first()
    named = []  # the boundary is described the first time, "it" afterwards

    def boundary(rhos: pd.Series) -> str:
        many = "mean token correlations ρ" if len(rhos) > 1 else "a mean token correlation ρ"
        if named:
            return f"it for ρ = {_rhos(rhos)}"
        named.append(True)
        return (
            "the measured critical γ (where the layer collapses the tokens onto one "
            f"direction) for {many} = {_rhos(rhos)}"
        )

    parts = []
    lone = last["gamma_low"].isna() | last["gamma_high"].isna()  # one draw: no interval
    for scale, label in (("sqrt_d", "1/√d"), ("log_n", "ln n/√d")):
        gamma = at[scale]
        below = ~lone & (last["gamma_low"] > gamma)
        unclear = ~lone & ~below & ~(last["gamma_high"] < gamma)
        sides = []
        if below.any():
            sides.append(f"below {boundary(last.loc[below, 'rho'])}")
        if unclear.any():
            sides.append(
                f"not told apart from {boundary(last.loc[unclear, 'rho'])} (inside its interval)"
            )
        if lone.any():
            sides.append(
                f"not compared with {boundary(last.loc[lone, 'rho'])} (one draw, no interval)"
            )
        if not sides:
            where = "every mean token correlation ρ"
            if len(last) < len(every):
                where += " where it was measured"
            sides.append(f"above the measured critical γ at {where}")
        parts.append(f"{label} puts γ at {gamma:.3g}, {' and '.join(sides)}")
    return (
        f"With logits γ ln n times the tokens' inner products, at n = {n_max} and d = {d}, "
        f"{'; '.join(parts)}."
    )
