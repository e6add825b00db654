"""Verdict rules and readings of the chapter on the critical scale (chen2025critical), on the
sweep of :func:`attncore.simulate.simplex.critical_sweep` (numbers: :mod:`attncore.evidence`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.evidence import critical_scale as evidence
from attncore.rescalings import get_rescaling

limits = thresholds_of("critical_scale")

__all__ = [
    "boundary_span",
    "critical_log_n",
    "phase_transition",
    "scale_places",
    "uniform_as_n_grows",
]


def _exceptions(**kinds: pd.Index) -> list[dict[str, Any]]:
    """One record per kind of exception that holds some correlations: the kind (a key of the
    claim's ``words``) and its correlations, in order."""
    return [
        {"why": [kind], "rhos": evidence.listed(rhos)} for kind, rhos in kinds.items() if len(rhos)
    ]


@decided_by(limits.ODDS, limits.TOLERANCE)
def critical_log_n(
    table: pd.DataFrame,
    *,
    odds: float = limits.ODDS,
    tolerance: float = limits.TOLERANCE,
    confidence: float = limits.CONFIDENCE,
) -> Finding:
    """``chen-critical-log-n`` at the largest ``n``, from whether each ``rho``'s interval of the
    boundary (:func:`evidence.boundary_table`, in units of ``1/(1 - rho)``) lies within
    ``tolerance`` of 1 or wholly outside; the ``exceptions`` name the other ``rho``."""
    claim = "chen-critical-log-n"
    bounds = evidence.boundary_table(table, odds, confidence)
    n_max = int(bounds["n"].max())
    last = bounds[bounds["n"] == n_max].set_index("rho")
    measured_ok = last["draws"] >= 2
    if not measured_ok.any():
        return Finding(claim, Verdict.UNTESTABLE, values={"n": n_max}, branch="no-crossing")
    shown = last[measured_ok]
    within = (shown["x_low"] >= 1 - tolerance) & (shown["x_high"] <= 1 + tolerance)
    outside = (shown["x_high"] < 1 - tolerance) | (shown["x_low"] > 1 + tolerance)
    values = evidence.boundary_values(shown, n_max)
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
    """:func:`phase_transition` on one ``n``, where the sharpening is not measured."""
    if ends.all():
        return Finding(claim, Verdict.CAVEAT, values=values, branch="one-n")
    if ends.any():
        missed = evidence.listed(ends.index[~ends])
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
    """:func:`phase_transition` over several ``n``: both ``ends`` reached (or clearly
    ``missed``) and the ratio's changes below (``falls``) and above (``rises``) the scale."""
    sharpens = (falls["difference"] + falls["half"] < 0) & (
        rises["difference"] + rises["half"] >= 0
    )
    flat = (falls["difference"] - falls["half"] > -steady) | (
        rises["difference"] + rises["half"] < 0
    )
    values = {**values, "falls": evidence.pair(falls["difference"])}
    against = missed & flat
    if ends.all() and sharpens.all():
        return Finding(claim, Verdict.HOLDS, values=values)
    if ends.any() or sharpens.any():
        exceptions = _exceptions(ends=ends.index[~ends], blunt=sharpens.index[~sharpens])
        return Finding(claim, Verdict.CAVEAT, values={**values, "exceptions": exceptions})
    if against.all():
        return Finding(claim, Verdict.FAILS, values=values)
    undecided = evidence.listed(against.index[~against])
    return Finding(claim, Verdict.UNTESTABLE, values={**values, "undecided": undecided})


@decided_by(limits.BELOW, limits.ABOVE, limits.COLLAPSED, limits.IDENTITY, limits.STEADY)
def phase_transition(
    table: pd.DataFrame,
    *,
    below: float = limits.BELOW,
    above: float = limits.ABOVE,
    collapsed: float = limits.COLLAPSED,
    identity: float = limits.IDENTITY,
    steady: float = limits.STEADY,
    confidence: float = limits.CONFIDENCE,
) -> Finding:
    """``chen-phase-transition``: at the largest ``n`` the angle ratio at ``gamma_c / below``
    at most ``collapsed`` and at ``gamma_c * above`` at least ``identity`` (the ends), and from
    the smallest ``n`` the first falls clearly while the second does not (the sharpening)."""
    claim = "chen-phase-transition"
    comparisons = table["rho"].nunique()
    low, high = (
        evidence.summary(evidence.ratio_at(table, f), "angle_ratio", comparisons, confidence)
        for f in (1 / below, above)
    )
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
    values = evidence.ends_values(last_low, last_high, n_max)
    if len(ns) < 2:
        return _one_n(claim, ends, values)
    falls = evidence.difference(last_low, low.loc[n_min], comparisons, confidence)
    rises = evidence.difference(last_high, high.loc[n_min], comparisons, confidence)
    return _sharpening(claim, ends, missed, falls, rises, steady, {**values, "n_min": int(n_min)})


@decided_by(limits.STEADY)
def uniform_as_n_grows(
    table: pd.DataFrame,
    scale: str = "sqrt_d",
    *,
    steady: float = limits.STEADY,
    confidence: float = limits.CONFIDENCE,
) -> Finding:
    """``chen-uniform-as-n-grows`` at the fixed logit scale ``scale``: from the smallest ``n`` to
    the largest, the entropy rises and the angle ratio falls, each by more than ``steady`` (its
    whole interval beyond what counts as no change; at every ``rho`` holds, at some a caveat);
    fails where both change clearly less than ``steady``."""
    claim = "chen-uniform-as-n-grows"
    rows = table[table["scale"] == scale]
    label = get_rescaling(scale).label
    ns = sorted(rows["n"].unique())
    if len(ns) < 2:
        values = {"scale": label, "count": len(ns)}
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="one-n")
    if rows.groupby(["n", "rho"]).size().min() < 2:
        return Finding(claim, Verdict.UNTESTABLE, values={"scale": label}, branch="one-draw")
    rises = evidence.change_with_n(rows, "entropy", confidence)
    falls = evidence.change_with_n(rows, "angle_ratio", confidence)
    uniform = rises["difference"] - rises["half"] > steady  # a collapse, not a drift
    cluster = falls["difference"] + falls["half"] < -steady
    against = (rises["difference"] + rises["half"] < steady) & (
        falls["difference"] - falls["half"] > -steady
    )
    values = {"scale": label, **evidence.growth_values(rows, rises, falls)}
    both = uniform & cluster
    if both.all():
        return Finding(claim, Verdict.HOLDS, values=values)
    if uniform.any() or cluster.any():
        unclear = evidence.listed(both.index[~both])
        return Finding(claim, Verdict.CAVEAT, values={**values, "unclear": unclear})
    if against.all():
        return Finding(claim, Verdict.FAILS, values=values)
    undecided = evidence.listed(against.index[~against])
    return Finding(claim, Verdict.UNTESTABLE, values={**values, "undecided": undecided})


def boundary_span(bounds: pd.DataFrame, by: str = "n") -> Reading:
    """Where the measured boundary lies, in units of ``1/(1 - rho)``: per value of ``by`` its
    range over the ``rhos`` (branch ``measured``), or ``none`` where no crossing is bracketed.

    >>> bounds = pd.DataFrame({"n": [64, 64, 512], "rho": [0.2, 0.8, 0.2],
    ...                        "x": [1.02, 0.99, 1.011], "draws": 5})
    >>> found = boundary_span(bounds)
    >>> found.branch, found.values["spans"], found.values["rhos"]
    ('measured', [{'n': 64, 'x': (0.99, 1.02)}, {'n': 512, 'x': (1.011, 1.011)}], [0.2, 0.8])
    """
    measured = bounds.dropna(subset=["x"])
    if measured.empty:
        return Reading("none")
    spans = [{by: int(v), "x": evidence.pair(group["x"])} for v, group in measured.groupby(by)]
    return Reading("measured", {"spans": spans, "rhos": evidence.listed(measured["rho"].unique())})


def scale_places(table: pd.DataFrame, bounds: pd.DataFrame) -> list[Reading]:
    """Where 1/√d and ln n/√d put ``gamma`` at the largest ``n`` against the measured boundary:
    per scale, the ``rho`` where it lies clearly ``below`` the boundary's interval, inside it
    (``unclear``) or beside no interval (``lone``; branch ``sides``), else ``above`` everywhere
    (``above-measured``: wherever a boundary was measured).

    >>> table = pd.DataFrame({"n": 4096, "scale": ["sqrt_d", "log_n"], "gamma": [1.36, 11.3]})
    >>> bounds = pd.DataFrame({"n": 4096, "rho": [0.2, 0.5, 0.95], "gamma": [1.27, 2.03, 20.5],
    ...                        "gamma_low": [1.2, 1.9, None], "gamma_high": [1.3, 2.1, 22.0]})
    >>> [p.values["sides"] for p in scale_places(table, bounds)]
    [[{'side': ['below'], 'rhos': [0.5]}, {'side': ['lone'], 'rhos': [0.95]}], \
[{'side': ['lone'], 'rhos': [0.95]}]]
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
            {"side": [side], "rhos": evidence.listed(last.loc[where, "rho"])}
            for side, where in (("below", below), ("unclear", unclear), ("lone", lone))
            if where.any()
        ]
        if sides:
            places.append(Reading("sides", {**values, "sides": sides}))
        else:
            measured = len(last) < len(every)
            places.append(Reading("above-measured" if measured else "above", values))
    return places
