"""Verdict rules and readings of the chapter "Beyond initialization", on the numbers of
:mod:`attncore.evidence.initialization`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from attncore.checks import ParameterError
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.evidence import initialization as evidence
from attncore.evidence.initialization import Fit
from attncore.evidence.statistics import margin

limits = thresholds_of("initialization")

__all__ = [
    "aligned_takeaway",
    "aligned_weights",
    "assumption_ii_dependence",
    "beta_search_finding",
    "beta_search_result",
    "blog_unit_variance_finding",
    "chuang_standard_init_finding",
    "exponent_call",
    "fixed_weights",
    "fixed_weights_takeaway",
    "init_takeaway",
    "k_total_scale",
    "miss_shares",
    "mup_agreement",
    "near_unit",
    "qk_norm_scale",
    "search_takeaway",
    "standard_init_readings",
    "weight_growth",
]

Floats = Sequence[float]
Errors = Mapping[int, Sequence[float]]


def exponent_call(fit: Fit, expected: float) -> str:
    """``differs`` where a fitted slope is clearly away from ``expected`` (a t test at two
    standard errors), ``matches`` where not and its margin is narrow enough, else ``unclear``.

    >>> from attncore.simulate.weights import Slope
    >>> [exponent_call(Slope(s, e, 6), 2.0) for s, e in [(2.05, 0.03), (1.5, 0.03), (2, 0.5)]]
    ['matches', 'differs', 'unclear']
    """
    asked = margin(fit.points - 1) * fit.se if fit.points > 2 else math.nan
    if math.isnan(asked):
        return "unclear"
    if abs(fit.slope - expected) > asked:
        return "differs"
    return "matches" if asked <= limits.EXPONENT_TOLERANCE else "unclear"


def weight_growth(fit: Fit, sd_end: float, saturated_end: float, max_growth: float) -> Reading:
    """``1/sqrt(d)``'s logit sd against the weight growth: :func:`exponent_call` of its log-log
    slope against 2, or ``line`` where the fit has no spread.

    >>> weight_growth(evidence.example_fit(), 9.3, 0.62, 3.0).branch
    'matches'
    """
    branch = "line" if math.isnan(fit.se) else exponent_call(fit, 2.0)
    values = {**evidence.fit_values(fit), "sd": float(sd_end)}
    values |= {"saturated": 100 * float(saturated_end), "growth": float(max_growth)}
    return Reading(branch, values)


def qk_norm_scale(qk_entropy: Sequence[float]) -> Reading:
    """QK-norm's entropy ratio over the growth factors: ``flat`` within 0.05, else ``moving``.

    >>> qk_norm_scale([0.80, 0.81]).branch
    'flat'
    """
    low, high = float(min(qk_entropy)), float(max(qk_entropy))
    return Reading("flat" if high - low <= 0.05 else "moving", {"low": low, "high": high})


def k_total_scale(k_total_entropy_end: float, k_total_fit: Fit) -> Reading:
    """``1/k_total``'s logits against the weight scale: ``linear`` (:func:`exponent_call`),
    else ``power``, or ``line`` where the fit has no spread.

    >>> k_total_scale(0.99, evidence.example_fit()).branch
    'power'
    """
    values = {"entropy": float(k_total_entropy_end), "uniform": bool(k_total_entropy_end >= 0.95)}
    if exponent_call(k_total_fit, 1.0) == "matches":
        return Reading("linear", values)
    branch = "line" if math.isnan(k_total_fit.se) else "power"
    return Reading(branch, {**values, **evidence.fit_values(k_total_fit)})


def fixed_weights(low: float, high: float, rank_one: float, disjoint: float, d_k: int) -> Reading:
    """``outside`` where the rank-one or the disjoint pair leaves the random weights' range.

    >>> fixed_weights(0.9, 1.1, 16.0, 0.0, 16).branch
    'outside'
    """
    outside = [v for v in (rank_one, disjoint) if not low <= v <= high]
    values = {"low": float(low), "high": float(high), "around": bool(low <= 1.0 <= high)}
    values |= {"rank_one": float(rank_one), "disjoint": float(disjoint), "d": int(d_k)}
    return Reading("outside" if outside else "inside", values)


def aligned_weights(
    sqrt_first: Floats, sqrt_last: Floats, rho_values: Floats, max_width: int
) -> Reading:
    """Whether ``1/sqrt(d)`` raises the weight on the aligned key with the width for every
    correlation (``grows``, ``one-hot`` where it ends above 0.9), for ``some`` or for ``none``.

    >>> aligned_weights([0.2], [0.99], [0.5], 4096).branch
    'one-hot'
    """
    growing = [b > a for a, b in zip(sqrt_first, sqrt_last, strict=True)]
    grows = "one-hot" if min(sqrt_last) > 0.9 else "grows"
    branch = grows if all(growing) else "some" if any(growing) else "none"
    weights = evidence.weight_records(rho_values, sqrt_last)
    return Reading(branch, {"width": int(max_width), "weights": weights})


def mup_agreement(mup_z: float) -> Reading:
    """``1/d``'s weight at the largest width: ``at-limit`` within 3 standard errors, else not.

    >>> mup_agreement(1.0).branch, mup_agreement(5.0).branch
    ('at-limit', 'off-limit')
    """
    return Reading("at-limit" if mup_z <= 3.0 else "off-limit", {"z": float(mup_z)})


def miss_shares(
    errors: Errors, miss_decades: float = limits.MISS_DECADES, miss_share: float = limits.MISS_SHARE
) -> dict[int, tuple[float, bool]]:
    """Per subsample size, the share of searches that miss by more than ``miss_decades`` and
    whether it is above ``miss_share`` at ``SIGNIFICANCE`` (``evidence.miss_tests``).

    >>> miss_shares({100: [0.5, 0.0, 0.3, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0], 1600: [0.0] * 10})
    {100: (0.3, True), 1600: (0.0, False)}
    """
    tests = evidence.miss_tests(errors, miss_decades, miss_share)
    return {i: (share, p < limits.SIGNIFICANCE) for i, (share, p) in tests.items()}


@decided_by(limits.MISS_DECADES, limits.MISS_SHARE, limits.SIGNIFICANCE)
def beta_search_finding(
    grid_betas: Sequence[float],
    grid_values: Sequence[float],
    found_beta: float,
    found_value: float,
    evaluations: int,
    tolerance: float,
    noisy_errors: Errors,
    *,
    miss_decades: float = limits.MISS_DECADES,
    miss_share: float = limits.MISS_SHARE,
) -> Finding:
    """``chuang-beta-search``: not testable where the grid's best beta is at its edge; does not
    hold unless the exact search ends within ``tolerance`` decades plus a grid step of it, or
    as high on the objective; a caveat where noisy searches miss significantly often.

    >>> b = np.geomspace(0.1, 100, 301); v = -np.log10(b / 5.0) ** 2
    >>> beta_search_finding(b, v, 5.0, 0.0, 19, 0.01, {100: [0.0] * 10}).verdict.value
    'holds'
    """
    claim = "chuang-beta-search"
    betas, values = np.asarray(grid_betas, dtype=float), np.asarray(grid_values, dtype=float)
    if int(np.argmax(values)) in (0, betas.size - 1):
        return Finding(claim, Verdict.UNTESTABLE, values=evidence.grid_edges(betas, values))
    said, step, fall = evidence.exact_search(
        betas, values, found_beta, found_value, tolerance, evaluations
    )
    near = said["decades"] <= tolerance + step or found_value >= said["optimum_value"] - fall
    shares = miss_shares(noisy_errors, miss_decades, miss_share)
    if not near:
        return Finding(claim, Verdict.FAILS, values=said)
    if not shares:
        return Finding(claim, Verdict.HOLDS, values=said, branch="exact-only")
    verdict = Verdict.CAVEAT if any(flagged for _, flagged in shares.values()) else Verdict.HOLDS
    misses = evidence.miss_records(noisy_errors, miss_decades)
    return Finding(claim, verdict, values={**said, "misses": misses})


def beta_search_result(
    found_beta: float,
    grid_beta: float,
    tolerance: float,
    scan_evaluations: int,
    evaluations: int,
    noisy_errors: Errors,
    median_evaluations: float,
) -> Reading:
    """The search: ``exact-only`` where no noisy search ran, else ``reliable``, ``unreliable``
    or ``unreliable-some`` by how many shares of misses are significant (:func:`miss_shares`).

    >>> beta_search_result(4.77, 4.78, 0.01, 5, 19, {100: [0.0] * 10}, 18).branch
    'reliable'
    """
    values = evidence.search_record(found_beta, grid_beta, tolerance, scan_evaluations, evaluations)
    shares = miss_shares(noisy_errors)
    if not shares:
        return Reading("exact-only", values)
    misses = evidence.miss_records(noisy_errors, limits.MISS_DECADES)
    values.update(misses=misses, median=float(median_evaluations))
    flagged = [str(i) for i, (_, significant) in shares.items() if significant]
    if not flagged or len(flagged) == len(shares):
        return Reading("unreliable" if flagged else "reliable", values)
    return Reading("unreliable-some", {**values, "flagged": flagged})


def near_unit(variance: float, se: float, tolerance: float = limits.UNIT_TOLERANCE) -> bool:
    """Whether a sampled variance is 1 within ``tolerance`` plus ``Z_LIMIT`` standard errors.

    >>> near_unit(1.05, 0.001), near_unit(0.5, 0.01), near_unit(1.5, 0.2)
    (True, False, True)
    """
    return abs(variance - 1.0) <= tolerance + limits.Z_LIMIT * se


def _unit_weights(rows: pd.DataFrame, tolerance: float = limits.UNIT_TOLERANCE) -> list[bool]:
    """Per default: whether it draws weights of unit variance and zero mean."""
    return [
        near_unit(r["weight variance"], r["weight variance SE"], tolerance)
        and abs(r["weight mean z"]) <= limits.Z_LIMIT
        for _, r in rows.iterrows()
    ]


def _unit_qk(rows: pd.DataFrame, tolerance: float = limits.UNIT_TOLERANCE) -> list[bool]:
    """Per default: whether the entries of Q and K have unit variance."""
    return [
        near_unit(r["Q variance"], r["Q variance SE"], tolerance)
        and near_unit(r["K variance"], r["K variance SE"], tolerance)
        for _, r in rows.iterrows()
    ]


@decided_by(limits.UNIT_TOLERANCE, limits.Z_LIMIT)
def blog_unit_variance_finding(
    table: pd.DataFrame, *, unit_tolerance: float = limits.UNIT_TOLERANCE
) -> Finding:
    """``blog-init-unit-variance`` from :func:`attncore.simulate.initializers.initializer_moments`:
    holds if every default draws weights of unit variance and zero mean, a caveat if some do.

    >>> blog_unit_variance_finding(evidence.example_moments()).verdict.value
    'does not hold'
    """
    rows = evidence.defaults(table)
    if rows.empty:
        return Finding("blog-init-unit-variance", Verdict.UNTESTABLE)
    unit = _unit_weights(rows, unit_tolerance)
    verdict = Verdict.HOLDS if all(unit) else Verdict.CAVEAT if any(unit) else Verdict.FAILS
    defaults = evidence.labelled(rows, weight="weight variance", q="Q variance")
    return Finding("blog-init-unit-variance", verdict, values={"defaults": defaults})


@decided_by(limits.UNIT_TOLERANCE, limits.SMALL_CORRELATION, limits.Z_LIMIT)
def chuang_standard_init_finding(
    table: pd.DataFrame,
    *,
    unit_tolerance: float = limits.UNIT_TOLERANCE,
    small_correlation: float = limits.SMALL_CORRELATION,
) -> Finding:
    """``chuang-standard-init-conditions`` from the defaults: does not hold where none has Q
    and K entries of unit variance, or a mean or a large correlation is not 0; else a caveat
    where some are not unit, or a correlation of at most ``small_correlation`` is not 0.

    >>> chuang_standard_init_finding(evidence.example_moments()).verdict.value
    'holds with a caveat'
    """
    claim = "chuang-standard-init-conditions"
    rows = evidence.defaults(table)
    if rows.empty:
        return Finding(claim, Verdict.UNTESTABLE)
    unit = _unit_qk(rows, unit_tolerance)
    zero_mean = [r["largest |mean z|"] <= limits.Z_LIMIT for _, r in rows.iterrows()]
    correlated = ~(rows["largest |cov z|"] <= limits.Z_LIMIT)
    small = rows["largest |corr|"] <= small_correlation
    values = {"defaults": evidence.labelled(rows, q="Q variance", k="K variance")}
    values |= evidence.largest_moments(rows)
    fails = not any(unit) or not all(zero_mean) or (correlated & ~small).any()
    caveat = not all(unit) or (correlated & small).any()
    verdict = Verdict.FAILS if fails else Verdict.CAVEAT if caveat else Verdict.HOLDS
    return Finding(claim, verdict, values=values)


def standard_init_readings(table: pd.DataFrame) -> list[Reading]:
    """The defaults' weight variances (``weights-all``, ``-some``, ``-none``), Q variances
    (``qk-...``), means and covariances (``moments``, ``moments-correlated``), if any.

    >>> [r.branch for r in standard_init_readings(evidence.example_moments())]
    ['weights-none', 'qk-some', 'moments-correlated']
    """
    rows = evidence.defaults(table)
    if rows.empty:
        return [Reading("no-defaults")]
    readings = []
    for name, unit, column in (
        ("weights", _unit_weights(rows), "weight variance"),
        ("qk", _unit_qk(rows), "Q variance"),
    ):
        which = "all" if all(unit) else "some" if any(unit) else "none"
        kept = [str(lab) for lab, u in zip(rows["label"], unit, strict=True) if u]
        variances = evidence.labelled(rows, variance=column)
        readings.append(Reading(f"{name}-{which}", {"variances": variances, "unit": kept}))
    correlated = evidence.labelled(
        rows[rows["largest |cov z|"] > limits.Z_LIMIT], corr="largest |corr|"
    )
    moments: dict[str, Any] = {
        "means_zero": bool((rows["largest |mean z|"] <= limits.Z_LIMIT).all())
    }
    if correlated:
        return [*readings, Reading("moments-correlated", {**moments, "correlated": correlated})]
    return [*readings, Reading("moments", moments)]


def _assumptions(table: pd.DataFrame, unit_tolerance: float) -> pd.DataFrame:
    """Per initializer: whether (ii) (unit variance of the Q and K entries), (iii)'s zero means
    and (iv) (covariances 0 within ``Z_LIMIT``) are met, with its ``q`` variance and ``cov_z``."""
    return pd.DataFrame(
        {
            "label": table["label"].astype(str),
            "ii": _unit_qk(table, unit_tolerance),
            "q": table["Q variance"].astype(float),
            "means": table["largest |mean z|"] <= limits.Z_LIMIT,
            "iv": table["largest |cov z|"] <= limits.Z_LIMIT,
            "cov_z": table["largest |cov z|"].astype(float),
        }
    )


def _without_ii(claim: str, unmet: pd.DataFrame) -> Finding:
    """``chuang-without-ii-invalid``: holds if every initializer that misses (ii) loses (iv)."""
    if unmet.empty:
        return Finding(claim, Verdict.UNTESTABLE)
    kept, lost = (list(unmet.loc[unmet["iv"] == keeps, "label"]) for keeps in (True, False))
    if not kept:
        return Finding(claim, Verdict.HOLDS, values={"lost": lost})
    if not lost:
        return Finding(claim, Verdict.FAILS, values={"kept": kept})
    return Finding(claim, Verdict.FAILS, values={"kept": kept, "lost": lost}, branch="fails-mixed")


@decided_by(limits.UNIT_TOLERANCE, limits.Z_LIMIT)
def assumption_ii_dependence(
    table: pd.DataFrame, claim: str, *, unit_tolerance: float = limits.UNIT_TOLERANCE
) -> Finding:
    """``chuang-iii-iv-based-on-ii`` or ``chuang-without-ii-invalid`` over every initializer.
    (iii)'s unit variance restates (ii), so what (iii) and (iv) add is tested: zero means and
    zero covariances. The first follows (ii) forward: refuted by an initializer that meets
    (ii) and not the rest; not testable where none meets (ii).

    >>> t = evidence.example_moments()
    >>> assumption_ii_dependence(t, "chuang-iii-iv-based-on-ii").verdict.value
    'holds'
    """
    if claim not in ("chuang-iii-iv-based-on-ii", "chuang-without-ii-invalid"):
        raise ParameterError(f"{claim!r}: not about (ii)")
    met = _assumptions(table, unit_tolerance)
    if claim == "chuang-without-ii-invalid":
        return _without_ii(claim, met[~met["ii"]])
    values: dict[str, Any] = {"initializers": met.to_dict("records")}
    meeting = met[met["ii"]]
    if meeting.empty:
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    broken = list(meeting.loc[~(meeting["iv"] & meeting["means"]), "label"])
    if broken:
        return Finding(claim, Verdict.FAILS, values={**values, "broken": broken})
    return Finding(claim, Verdict.HOLDS, values={**values, "kept": list(meeting["label"])})


def init_takeaway(table: pd.DataFrame) -> Reading:
    """The defaults in one sentence: ``unit`` where all draw unit-variance weights, or not.

    >>> init_takeaway(evidence.example_moments()).values["unit_qk"]
    (1, 2)
    """
    rows = evidence.defaults(table)
    if rows.empty:
        return Reading("no-defaults")
    unit_w, unit_qk = _unit_weights(rows), _unit_qk(rows)
    spans = evidence.ranges(rows)
    values = {"weights": spans["weights"], "unit_weights": (sum(unit_w), len(rows))}
    values |= {"qk": spans["qk"], "unit_qk": (sum(unit_qk), len(rows))}
    return Reading("unit" if all(unit_w) else "not-unit", values)


def fixed_weights_takeaway(low: float, high: float, rank_one: float, disjoint: float) -> Reading:
    """``structure`` where the structured pairs leave the random weights' range, ``entry-sd``.

    >>> fixed_weights_takeaway(0.9, 1.1, 16.0, 0.0).branch
    'structure'
    """
    lo, hi = min(rank_one, disjoint), max(rank_one, disjoint)
    values = {"structured": (float(lo), float(hi)), "random": (float(low), float(high))}
    return Reading("structure" if lo < low or hi > high else "entry-sd", values)


def aligned_takeaway(
    sqrt_first: Floats, sqrt_last: Floats, max_width: int, mup_z: float
) -> Reading:
    """The aligned-key result in one sentence (branch ``aligned``).

    >>> aligned_takeaway([0.2], [0.99], 4096, 1.0).values
    {'width': 4096, 'grows': True, 'at_limit': True}
    """
    grows = all(b > a for a, b in zip(sqrt_first, sqrt_last, strict=True))
    values = {"width": int(max_width), "grows": bool(grows), "at_limit": bool(mup_z <= 3.0)}
    return Reading("aligned", values)


def search_takeaway(
    verdict: Verdict, found_beta: float, grid_beta: float, noisy_errors: Errors, *, planted: float
) -> Reading:
    """Chuang's search in one sentence: ``exact-only``, ``reliable`` or ``unreliable``.

    >>> search_takeaway(Verdict.HOLDS, 5.1, 5.1, {100: [0.0] * 10}, planted=5.0).branch
    'reliable'
    """
    values: dict[str, Any] = {"planted": float(planted), "found": float(found_beta)}
    values |= {"optimum": float(grid_beta), "verdict": verdict.value}
    shares = miss_shares(noisy_errors)
    if not shares:
        return Reading("exact-only", values)
    values["worst"] = 100 * max(share for share, _ in shares.values())
    significant = any(flagged for _, flagged in shares.values())
    return Reading("unreliable" if significant else "reliable", values)
