"""Verdict rules and conclusions of the chapter "Beyond initialization".

:func:`beta_search_finding` judges Chuang's search for beta (chuang2023scaling, section 2)
on the book's calibration problem; :func:`blog_unit_variance_finding` and
:func:`chuang_standard_init_finding` judge what the blog and Chuang say standard
initializations do; :func:`assumption_ii_dependence` judges how Chuang relates his
conditions. The other functions read the chapter's measurements into the conclusions its
prose states, as :class:`~attncore.claims.finding.Reading` data (a branch and the values
that decide it); the chapter's templates say them, so that no result is typed by hand.

>>> from attncore.simulate.weights import Slope
>>> found = weight_growth(Slope(2.01, 0.03, 6), 9.3, 0.62, 3.0)
>>> found.branch, found.values["slope"]
('matches', 2.01)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd
from scipy.stats import binom

from attncore.checks import ParameterError
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.initialization import (
    EXPONENT_TOLERANCE,
    MISS_DECADES,
    MISS_SHARE,
    SIGNIFICANCE,
    SMALL_CORRELATION,
    UNIT_TOLERANCE,
    Z_LIMIT,
)
from attncore.evidence.statistics import margin

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


class Fit(Protocol):
    """A fitted slope with its standard error over ``points`` points, such as
    :class:`attncore.simulate.weights.Slope`."""

    @property
    def slope(self) -> float: ...
    @property
    def se(self) -> float: ...
    @property
    def points(self) -> int: ...


def exponent_call(fit: Fit, expected: float) -> str:
    """``differs`` where a fitted slope is clearly away from ``expected`` (a t test on the
    fit's ``points - 2`` degrees of freedom at the level of two standard errors),
    ``matches`` where it is not and its clear margin is within :data:`EXPONENT_TOLERANCE`,
    ``unclear`` otherwise (too few points, or too much scatter to tell).

    >>> from attncore.simulate.weights import Slope
    >>> [exponent_call(Slope(s, e, 6), 2.0) for s, e in [(2.05, 0.03), (1.5, 0.03), (2, 0.5)]]
    ['matches', 'differs', 'unclear']
    """
    asked = margin(fit.points - 1) * fit.se if fit.points > 2 else math.nan
    if math.isnan(asked):
        return "unclear"
    if abs(fit.slope - expected) > asked:
        return "differs"
    return "matches" if asked <= EXPONENT_TOLERANCE else "unclear"


def _fit(fit: Fit) -> dict[str, Any]:
    """A fitted exponent's values: its ``slope``, the ``points`` that fixed it and its ``se``
    where it has one (a line through two points has none)."""
    values: dict[str, Any] = {"slope": float(fit.slope), "points": int(fit.points)}
    if not math.isnan(fit.se):
        values["se"] = float(fit.se)
    return values


def weight_growth(fit: Fit, sd_end: float, saturated_end: float, max_growth: float) -> Reading:
    """The result of the weight-growth experiment for ``1/sqrt(d)``: the log-log slope of
    the logit sd against the weight growth (branch: :func:`exponent_call` against the relaxed
    formula's 2, ``matches``, ``differs`` or ``unclear``; ``line`` where the fit has no
    spread), the sd (``sd``) and the percentage of saturated rows (``saturated``) at the
    largest growth (``growth``).

    >>> from attncore.simulate.weights import Slope
    >>> weight_growth(Slope(1.4, 0.05, 6), 2.0, 0.0, 3.0).branch
    'differs'
    >>> weight_growth(Slope(1.4, float("nan"), 2), 2.0, 0.0, 3.0).branch
    'line'
    """
    branch = "line" if math.isnan(fit.se) else exponent_call(fit, 2.0)
    values = {
        **_fit(fit),
        "sd": float(sd_end),
        "saturated": 100 * float(saturated_end),
        "growth": float(max_growth),
    }
    return Reading(branch, values)


def qk_norm_scale(qk_entropy: Sequence[float]) -> Reading:
    """How QK-norm responds to the weight scale, from its entropy ratio at every growth
    factor: ``flat`` where it moves by at most 0.05 (sampling noise), ``moving`` otherwise;
    values the ``low`` and ``high`` ratio.

    >>> qk_norm_scale([0.80, 0.81]).branch, qk_norm_scale([0.6, 0.8]).branch
    ('flat', 'moving')
    """
    low, high = float(min(qk_entropy)), float(max(qk_entropy))
    return Reading("flat" if high - low <= 0.05 else "moving", {"low": low, "high": high})


def k_total_scale(k_total_entropy_end: float, k_total_fit: Fit) -> Reading:
    """How ``1/k_total`` responds to the weight scale: ``linear`` where its logits grow
    linearly with the weight scale (:func:`exponent_call` against 1), else ``power`` with the
    fitted exponent (``line`` where the fit has no spread); values the entropy ratio at the
    largest growth (``entropy``) and whether it is at least 0.95 (``uniform``).

    >>> from attncore.simulate.weights import Slope
    >>> k_total_scale(0.99, Slope(1.0, 0.02, 6)).branch
    'linear'
    >>> k_total_scale(0.5, Slope(1.6, 0.02, 6)).values["uniform"]
    False
    """
    values: dict[str, Any] = {
        "entropy": float(k_total_entropy_end),
        "uniform": bool(k_total_entropy_end >= 0.95),
    }
    if exponent_call(k_total_fit, 1.0) == "matches":
        return Reading("linear", values)
    branch = "line" if math.isnan(k_total_fit.se) else "power"
    return Reading(branch, {**values, **_fit(k_total_fit)})


def fixed_weights(low: float, high: float, rank_one: float, disjoint: float, d_k: int) -> Reading:
    """The conditional variance of the scaled logit for fixed weights: the 5-95 % range over
    random draws (``low``, ``high``; ``around``: whether it brackets Chuang's 1), and the
    values of the rank-one and disjoint pairs of the same entry sd (``rank_one``,
    ``disjoint``); branch ``outside`` where either lies outside the range, else ``inside``.

    >>> fixed_weights(0.9, 1.1, 16.0, 0.0, 16).branch, fixed_weights(0.9, 1.1, 1.0, 0.95, 16).branch
    ('outside', 'inside')
    """
    outside = [v for v in (rank_one, disjoint) if not low <= v <= high]
    values = {
        "low": float(low),
        "high": float(high),
        "around": bool(low <= 1.0 <= high),
        "rank_one": float(rank_one),
        "disjoint": float(disjoint),
        "d": int(d_k),
    }
    return Reading("outside" if outside else "inside", values)


def aligned_weights(
    sqrt_first: Sequence[float],
    sqrt_last: Sequence[float],
    rho_values: Sequence[float],
    max_width: int,
) -> Reading:
    """The aligned-key experiment with ``1/sqrt(d)``: whether the weight on the aligned key
    grows from the smallest to the largest width for every correlation (``grows``, or
    ``one-hot`` where it also ends above 0.9 for each), for some (``some``) or for none
    (``none``); values the ``width`` and per correlation its ``weights`` at that width
    (records of ``rho`` and ``weight``).

    >>> aligned_weights([0.2], [0.99], [0.5], 4096).branch
    'one-hot'
    >>> aligned_weights([0.2, 0.3], [0.19, 0.4], [0.2, 0.5], 4096).branch
    'some'
    """
    growing = [b > a for a, b in zip(sqrt_first, sqrt_last, strict=True)]
    if all(growing):
        branch = "one-hot" if min(sqrt_last) > 0.9 else "grows"
    else:
        branch = "some" if any(growing) else "none"
    weights = [
        {"rho": float(r), "weight": float(w)} for r, w in zip(rho_values, sqrt_last, strict=True)
    ]
    return Reading(branch, {"width": int(max_width), "weights": weights})


def mup_agreement(mup_z: float) -> Reading:
    """The aligned-key experiment with ``1/d``: ``at-limit`` where the weight at the largest
    width is within 3 standard errors of its width-independent limit, ``off-limit``
    otherwise; value ``z``, the largest distance in standard errors.

    >>> mup_agreement(1.0).branch, mup_agreement(5.0).branch
    ('at-limit', 'off-limit')
    """
    return Reading("at-limit" if mup_z <= 3.0 else "off-limit", {"z": float(mup_z)})


def miss_shares(
    errors: Mapping[int, Sequence[float]],
    miss_decades: float = MISS_DECADES,
    miss_share: float = MISS_SHARE,
) -> dict[int, tuple[float, bool]]:
    """Per subsample size, the share of searches ending more than ``miss_decades`` from the
    optimum, and whether it is significantly above ``miss_share`` (one-sided binomial test
    at :data:`SIGNIFICANCE`).

    >>> miss_shares({100: [0.5, 0.0, 0.3, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0], 1600: [0.0] * 10})
    {100: (0.3, True), 1600: (0.0, False)}
    """
    out = {}
    for items, errs in errors.items():
        e = np.asarray(errs, dtype=float)
        misses = int(np.sum(e > miss_decades))
        p_value = float(binom.sf(misses - 1, e.size, miss_share))
        out[items] = (misses / e.size, p_value < SIGNIFICANCE)
    return out


def _misses(shares: Mapping[int, tuple[float, bool]]) -> list[dict[str, Any]]:
    """The miss shares as records: the ``percent`` of searches that miss with ``items``
    items per evaluation."""
    return [{"percent": 100 * share, "items": int(i)} for i, (share, _) in shares.items()]


def _exact_search(
    betas: np.ndarray, values: np.ndarray, found_beta: float, found_value: float, tolerance: float
) -> tuple[bool, dict[str, Any]]:
    """Whether the search on the exact objective ends at the grid's optimum (within
    ``tolerance`` decades plus one grid step, or with an objective within the objective's own
    change over ``tolerance`` decades around it), and the values that say it."""
    best = int(np.argmax(values))
    beta_hat, value_hat = float(betas[best]), float(values[best])
    step = float(np.log10(betas[1] / betas[0]))
    near = np.abs(np.log10(betas / beta_hat)) <= tolerance
    value_tolerance = value_hat - float(values[near].min())
    decades = abs(math.log10(found_beta / beta_hat))
    exact_ok = decades <= tolerance + step or found_value >= value_hat - value_tolerance
    said = {
        "found": float(found_beta),
        "optimum": beta_hat,
        "decades": decades,
        "found_value": float(found_value),
        "optimum_value": value_hat,
    }
    return exact_ok, said


@decided_by(MISS_DECADES, MISS_SHARE, SIGNIFICANCE)
def beta_search_finding(
    grid_betas: Sequence[float],
    grid_values: Sequence[float],
    found_beta: float,
    found_value: float,
    evaluations: int,
    tolerance: float,
    noisy_errors: Mapping[int, Sequence[float]],
    *,
    miss_decades: float = MISS_DECADES,
    miss_share: float = MISS_SHARE,
) -> Finding:
    """The verdict on ``chuang-beta-search``.

    ``grid_*``: the exact objective on a fine grid; ``found_*`` and ``evaluations``: the
    search on the exact objective, whose final bracket is ``tolerance`` decades;
    ``noisy_errors``: per subsample size, how far (decades) each search on the noisy
    objective ended from the grid optimum.

    - not testable here: the grid's best beta lies at its edge, so the grid does not
      bracket the optimum and gives nothing to compare with;
    - does not hold: on the exact objective the search ends neither within ``tolerance``
      decades (plus one grid step) of the grid optimum nor with an objective within the
      objective's own change over ``tolerance`` decades around it;
    - holds with a caveat: it does, but for some subsample size the share of noisy searches
      that miss by more than ``miss_decades`` is significantly above ``miss_share``;
    - holds: otherwise (branch ``exact-only`` where no noisy search ran).

    >>> b = np.geomspace(0.1, 100, 301); v = -np.log10(b / 5.0) ** 2
    >>> beta_search_finding(b, v, 5.0, 0.0, 19, 0.01, {100: [0.0] * 10}).verdict.value
    'holds'
    """
    claim = "chuang-beta-search"
    betas = np.asarray(grid_betas, dtype=float)
    values = np.asarray(grid_values, dtype=float)
    best = int(np.argmax(values))
    if best in (0, betas.size - 1):
        edge = {"grid": betas.size, "best": float(betas[best])}
        edge["edges"] = (float(betas[0]), float(betas[-1]))
        return Finding(claim, Verdict.UNTESTABLE, values=edge)
    exact_ok, said = _exact_search(betas, values, found_beta, found_value, tolerance)
    said = {"grid": betas.size, **said, "evaluations": int(evaluations)}
    shares = miss_shares(noisy_errors, miss_decades, miss_share)
    if not exact_ok:
        return Finding(claim, Verdict.FAILS, values=said)
    if not shares:
        return Finding(claim, Verdict.HOLDS, values=said, branch="exact-only")
    significant = any(flagged for _, flagged in shares.values())
    verdict = Verdict.CAVEAT if significant else Verdict.HOLDS
    return Finding(claim, verdict, values={**said, "misses": _misses(shares)})


def beta_search_result(
    found_beta: float,
    grid_beta: float,
    tolerance: float,
    scan_evaluations: int,
    evaluations: int,
    noisy_errors: Mapping[int, Sequence[float]],
    median_evaluations: float,
) -> Reading:
    """The result of the search, on the exact objective (values ``found``, ``optimum``,
    ``within`` its ``tolerance``, ``scan`` and all ``evaluations``) and on the noisy one
    (``misses``, records of :func:`_misses`, and the ``median`` number of evaluations).
    Branch ``exact-only`` where no noisy search ran; else ``reliable`` where no share of
    misses is significantly above :data:`MISS_SHARE`, ``unreliable`` where every one is,
    ``unreliable-some`` where some are (``flagged``, their numbers of items).

    >>> beta_search_result(4.77, 4.78, 0.01, 5, 19, {100: [0.0] * 10}, 18).branch
    'reliable'
    """
    decades = abs(math.log10(found_beta / grid_beta))
    values: dict[str, Any] = {
        "found": float(found_beta),
        "optimum": float(grid_beta),
        "within": bool(decades <= tolerance),
        "tolerance": float(tolerance),
        "scan": int(scan_evaluations),
        "evaluations": int(evaluations),
    }
    shares = miss_shares(noisy_errors)
    if not shares:
        return Reading("exact-only", values)
    values.update(misses=_misses(shares), median=float(median_evaluations))
    flagged = [str(i) for i, (_, significant) in shares.items() if significant]
    if not flagged:
        return Reading("reliable", values)
    if len(flagged) == len(shares):
        return Reading("unreliable", values)
    return Reading("unreliable-some", {**values, "flagged": flagged})


def near_unit(variance: float, se: float, tolerance: float = UNIT_TOLERANCE) -> bool:
    """Whether a sampled variance is 1 within :data:`UNIT_TOLERANCE` plus :data:`Z_LIMIT`
    standard errors.

    >>> near_unit(1.05, 0.001), near_unit(0.5, 0.01), near_unit(1.5, 0.2)
    (True, False, True)
    """
    return abs(variance - 1.0) <= tolerance + Z_LIMIT * se


def _defaults(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["default"].astype(bool)]


def _unit_weights(rows: pd.DataFrame, tolerance: float = UNIT_TOLERANCE) -> list[bool]:
    """Per default: whether it draws weights of unit variance (:func:`near_unit`) and zero
    mean (within :data:`Z_LIMIT` standard errors)."""
    return [
        near_unit(r["weight variance"], r["weight variance SE"], tolerance)
        and abs(r["weight mean z"]) <= Z_LIMIT
        for _, r in rows.iterrows()
    ]


def _unit_qk(rows: pd.DataFrame, tolerance: float = UNIT_TOLERANCE) -> list[bool]:
    """Per default: whether the entries of Q and K have unit variance (:func:`near_unit`)."""
    return [
        near_unit(r["Q variance"], r["Q variance SE"], tolerance)
        and near_unit(r["K variance"], r["K variance SE"], tolerance)
        for _, r in rows.iterrows()
    ]


@decided_by(UNIT_TOLERANCE, Z_LIMIT)
def blog_unit_variance_finding(
    table: pd.DataFrame, *, unit_tolerance: float = UNIT_TOLERANCE
) -> Finding:
    """The verdict on ``blog-init-unit-variance`` from a table of
    :func:`attncore.simulate.initializers.initializer_moments` (rows with ``default`` true
    are the library defaults judged; the others are ignored).

    A default draws weights "with zero mean and unit variance" when its sampled weight
    variance passes :func:`near_unit` (``unit_tolerance``) and its weight mean is within
    :data:`Z_LIMIT` standard errors of 0.

    - not testable here: the table holds no default;
    - holds: every default does;
    - holds with a caveat: some do, others do not ("typically" is then doubtful);
    - does not hold: none does.

    Values: ``defaults``, records of each one's ``label``, ``weight`` variance and the
    variance of its Q entries (``q``) on unit-variance tokens.

    >>> t = pd.DataFrame({"label": ["a"], "default": [True], "weight mean z": [0.3],
    ...                   "weight variance": [0.02], "weight variance SE": [0.001],
    ...                   "Q variance": [0.5], "K variance": [0.5]})
    >>> blog_unit_variance_finding(t).verdict.value
    'does not hold'
    """
    claim = "blog-init-unit-variance"
    rows = _defaults(table)
    if rows.empty:
        return Finding(claim, Verdict.UNTESTABLE)
    unit = _unit_weights(rows, unit_tolerance)
    defaults = [
        {
            "label": str(r["label"]),
            "weight": float(r["weight variance"]),
            "q": float(r["Q variance"]),
        }
        for _, r in rows.iterrows()
    ]
    if all(unit):
        verdict = Verdict.HOLDS
    elif any(unit):
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS
    return Finding(claim, verdict, values={"defaults": defaults})


def _covariance_state(row: pd.Series, small: float = SMALL_CORRELATION) -> str:
    """``zero``, ``small`` (significant but at most ``small``) or ``large``."""
    if row["largest |cov z|"] <= Z_LIMIT:
        return "zero"
    return "small" if row["largest |corr|"] <= small else "large"


@decided_by(UNIT_TOLERANCE, SMALL_CORRELATION, Z_LIMIT)
def chuang_standard_init_finding(
    table: pd.DataFrame,
    *,
    unit_tolerance: float = UNIT_TOLERANCE,
    small_correlation: float = SMALL_CORRELATION,
) -> Finding:
    """The verdict on ``chuang-standard-init-conditions`` from a table of
    :func:`attncore.simulate.initializers.initializer_moments` (its ``default`` rows).

    Per default: unit variance of the Q and K entries (conditions (ii) and (iii), by
    :func:`near_unit`), zero means (``largest |mean z|`` at most :data:`Z_LIMIT`) and zero
    covariances (iv) (``largest |cov z|`` at most :data:`Z_LIMIT`; a significant one no
    larger than :data:`SMALL_CORRELATION` as a correlation is "small").

    - not testable here: the table holds no default;
    - does not hold: no default gives unit variance, or some default has a nonzero mean
      or a correlation above :data:`SMALL_CORRELATION`;
    - holds with a caveat: some defaults give unit variance and others not, or some
      covariance is small but significant;
    - holds: every default meets all four conditions.

    Values: ``defaults``, records of each one's ``label`` and ``q`` and ``k`` variance; the
    largest ``mean_z`` and ``cov_z`` over the defaults and the largest correlation
    (``corr``).

    >>> t = pd.DataFrame({"label": ["a"], "default": [True], "Q variance": [1.0],
    ...     "Q variance SE": [0.01], "K variance": [1.0], "K variance SE": [0.01],
    ...     "largest |mean z|": [1.0], "largest |cov z|": [1.0], "largest |corr|": [0.001]})
    >>> chuang_standard_init_finding(t).verdict.value
    'holds'
    """
    claim = "chuang-standard-init-conditions"
    rows = _defaults(table)
    if rows.empty:
        return Finding(claim, Verdict.UNTESTABLE)
    unit = _unit_qk(rows, unit_tolerance)
    zero_mean = [r["largest |mean z|"] <= Z_LIMIT for _, r in rows.iterrows()]
    covariance = [_covariance_state(r, small_correlation) for _, r in rows.iterrows()]
    values = {
        "defaults": [
            {"label": str(r["label"]), "q": float(r["Q variance"]), "k": float(r["K variance"])}
            for _, r in rows.iterrows()
        ],
        "mean_z": float(rows["largest |mean z|"].max()),
        "cov_z": float(rows["largest |cov z|"].max()),
        "corr": float(rows["largest |corr|"].max()),
    }
    if not any(unit) or not all(zero_mean) or "large" in covariance:
        verdict = Verdict.FAILS
    elif not all(unit) or "small" in covariance:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.HOLDS
    return Finding(claim, verdict, values=values)


def standard_init_readings(table: pd.DataFrame) -> list[Reading]:
    """What the measured defaults show, as three readings: their weight variances against
    the blog's 1 (branch ``weights-all``, ``weights-some`` or ``weights-none``: how many
    draw weights of unit variance and zero mean; values ``variances``, records of ``label``
    and ``variance``, and ``unit``, the labels of those that do), the variance of the Q
    entries against Chuang's (ii) (``qk-all``, ``qk-some``, ``qk-none``; the same values),
    and the means and covariances (``moments``, or ``moments-correlated`` with
    ``correlated``, records of ``label`` and ``corr`` of each default whose covariances are
    not 0 within :data:`Z_LIMIT` standard errors; ``means_zero`` whether every mean is 0
    within them). A table without defaults gives the one reading ``no-defaults``.

    >>> t = pd.DataFrame({"label": ["a", "b"], "default": [True, True],
    ...     "weight variance": [0.005, 0.008], "weight variance SE": [1e-5, 1e-5],
    ...     "weight mean z": [0.1, 0.2], "Q variance": [0.34, 1.0], "Q variance SE": [0.01] * 2,
    ...     "K variance": [0.34, 1.0], "K variance SE": [0.01] * 2,
    ...     "largest |mean z|": [1.0, 1.0], "largest |cov z|": [8.0, 1.0],
    ...     "largest |corr|": [0.015, 0.002]})
    >>> [r.branch for r in standard_init_readings(t)]
    ['weights-none', 'qk-some', 'moments-correlated']
    """
    rows = _defaults(table)
    if rows.empty:
        return [Reading("no-defaults")]
    labels = [str(lab) for lab in rows["label"]]
    readings = []
    for (
        name,
        unit,
        column,
    ) in (
        ("weights", _unit_weights(rows), "weight variance"),
        ("qk", _unit_qk(rows), "Q variance"),
    ):
        which = "all" if all(unit) else "some" if any(unit) else "none"
        variances = [
            {"label": lab, "variance": float(v)}
            for lab, v in zip(labels, rows[column], strict=True)
        ]
        kept = [lab for lab, u in zip(labels, unit, strict=True) if u]
        readings.append(Reading(f"{name}-{which}", {"variances": variances, "unit": kept}))
    correlated = [
        {"label": str(r["label"]), "corr": float(r["largest |corr|"])}
        for _, r in rows.iterrows()
        if r["largest |cov z|"] > Z_LIMIT
    ]
    moments: dict[str, Any] = {"means_zero": bool((rows["largest |mean z|"] <= Z_LIMIT).all())}
    if correlated:
        readings.append(Reading("moments-correlated", {**moments, "correlated": correlated}))
    else:
        readings.append(Reading("moments", moments))
    return readings


def _assumptions(table: pd.DataFrame, unit_tolerance: float) -> pd.DataFrame:
    """Per initializer (every row, defaults and references): whether (ii) (unit variance of
    the Q and K entries), (iii)'s zero means and (iv) (covariances 0 within
    :data:`Z_LIMIT`) are met."""
    return pd.DataFrame(
        {
            "label": table["label"],
            "ii": [
                abs(r["Q variance"] - 1) <= unit_tolerance + Z_LIMIT * r["Q variance SE"]
                and abs(r["K variance"] - 1) <= unit_tolerance + Z_LIMIT * r["K variance SE"]
                for _, r in table.iterrows()
            ],
            "means": table["largest |mean z|"] <= Z_LIMIT,
            "iv": table["largest |cov z|"] <= Z_LIMIT,
        }
    )


def _without_ii(claim: str, unmet: pd.DataFrame) -> Finding:
    """The verdict on ``chuang-without-ii-invalid`` from the initializers that miss (ii):
    ``kept``, those whose (iv) still holds, and ``lost``, those whose (iv) fails (named
    only: the verdict line on "based on (ii)" beside it gives each one's numbers)."""
    if unmet.empty:
        return Finding(claim, Verdict.UNTESTABLE)
    kept, lost = (
        [str(lab) for lab in unmet.loc[unmet["iv"] == keeps, "label"]] for keeps in (True, False)
    )
    if not kept:
        return Finding(claim, Verdict.HOLDS, values={"lost": lost})
    if not lost:
        return Finding(claim, Verdict.FAILS, values={"kept": kept})
    return Finding(claim, Verdict.FAILS, values={"kept": kept, "lost": lost}, branch="fails-mixed")


@decided_by(UNIT_TOLERANCE, Z_LIMIT)
def assumption_ii_dependence(
    table: pd.DataFrame, claim: str, *, unit_tolerance: float = UNIT_TOLERANCE
) -> Finding:
    """Chuang's "(iii) and (iv) are based on (ii)" (``claim`` =
    ``chuang-iii-iv-based-on-ii``) and "Without assumption (ii), (iii) and (iv) are invalid"
    (``chuang-without-ii-invalid``), from a table of
    :func:`attncore.simulate.initializers.initializer_moments` (every row: the library
    defaults and the references, which differ in (ii)).

    (iii)'s unit variance is (ii) restated, so the rule tests what (iii) and (iv) add: the
    zero means and the zero covariances. *Without*: **does not hold** if some initializer
    misses (ii) while keeping (iv) (its covariances vanish without unit variance); **holds**
    if every initializer that misses (ii) misses (iv) too; **not testable here** if none
    misses (ii). *Based on*: **does not hold** if some initializer parts them ((iv) or the
    zero means met where (ii) is not, or not met where it is); **holds** if they go together
    in every initializer; **not testable here** if (ii) is met by all or by none (nothing
    to compare).

    >>> t = pd.DataFrame({"label": ["a", "b"], "Q variance": [1.0, 64.0],
    ...     "Q variance SE": [0.01, 0.1], "K variance": [1.0, 64.0], "K variance SE": [0.01, 0.1],
    ...     "largest |mean z|": [1.0, 1.0], "largest |cov z|": [1.0, 1.7]})
    >>> assumption_ii_dependence(t, "chuang-without-ii-invalid").verdict.value
    'does not hold'
    """
    if claim not in ("chuang-iii-iv-based-on-ii", "chuang-without-ii-invalid"):
        raise ParameterError(f"{claim!r}: not about (ii)")
    met = _assumptions(table, unit_tolerance)
    if claim == "chuang-without-ii-invalid":
        return _without_ii(claim, met[~met["ii"]])
    initializers = [
        {
            "label": str(r.label),
            "ii": bool(r.ii),
            "q": float(table.loc[i, "Q variance"]),
            "means": bool(r.means),
            "iv": bool(r.iv),
            "cov_z": float(table.loc[i, "largest |cov z|"]),
        }
        for i, r in met.iterrows()
    ]
    if met["ii"].all() or not met["ii"].any():
        values = {"initializers": initializers, "all_met": bool(met["ii"].all())}
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    apart = met[(met["iv"] != met["ii"]) | (met["means"] != met["ii"])]
    if not len(apart):
        return Finding(claim, Verdict.HOLDS, values={"initializers": initializers})
    values = {"initializers": initializers, "apart": [str(lab) for lab in apart["label"]]}
    return Finding(claim, Verdict.FAILS, values=values)


# ---- the takeaways at the top of the chapter ------------------------------------------------


def init_takeaway(table: pd.DataFrame) -> Reading:
    """The standard initializations in one sentence: the range of the defaults' weight
    variances (``weights``) and of the variances of their Q and K entries (``qk``), and
    how many of the ``n`` defaults each is unit for (``unit_weights``, ``unit_qk``: pairs
    of that count and ``n``). Branch ``unit`` where every default draws weights of unit
    variance, ``not-unit`` otherwise, ``no-defaults`` where none was measured.

    >>> t = pd.DataFrame({"label": ["a", "b"], "default": [True, True],
    ...     "weight variance": [0.005, 0.025], "weight variance SE": [1e-5, 1e-5],
    ...     "weight mean z": [0.1, 0.2], "Q variance": [0.34, 1.6], "Q variance SE": [0.01] * 2,
    ...     "K variance": [0.34, 1.6], "K variance SE": [0.01] * 2})
    >>> found = init_takeaway(t)
    >>> found.branch, found.values["unit_qk"], found.values["qk"]
    ('not-unit', (0, 2), (0.34, 1.6))
    """
    rows = _defaults(table)
    if rows.empty:
        return Reading("no-defaults")
    unit_w, unit_qk = _unit_weights(rows), _unit_qk(rows)
    w, qk = rows["weight variance"], rows[["Q variance", "K variance"]]
    values = {
        "weights": (float(w.min()), float(w.max())),
        "unit_weights": (sum(unit_w), len(rows)),
        "qk": (float(qk.min().min()), float(qk.max().max())),
        "unit_qk": (sum(unit_qk), len(rows)),
    }
    return Reading("unit" if all(unit_w) else "not-unit", values)


def fixed_weights_takeaway(low: float, high: float, rank_one: float, disjoint: float) -> Reading:
    """The fixed-weight result in one sentence: branch ``structure`` where structured weights
    with the initial entry sd (their range, ``structured``) leave the 5-95 % range of random
    ones (``random``), ``entry-sd`` where they do not.

    >>> fixed_weights_takeaway(0.9, 1.1, 16.0, 0.0).branch
    'structure'
    >>> fixed_weights_takeaway(0.9, 1.1, 1.0, 0.95).branch
    'entry-sd'
    """
    lo, hi = min(rank_one, disjoint), max(rank_one, disjoint)
    values = {"structured": (float(lo), float(hi)), "random": (float(low), float(high))}
    return Reading("structure" if lo < low or hi > high else "entry-sd", values)


def aligned_takeaway(
    sqrt_first: Sequence[float], sqrt_last: Sequence[float], max_width: int, mup_z: float
) -> Reading:
    """The aligned-key result in one sentence of words (the section's sentence and figure
    give the weights per correlation): whether ``1/sqrt(d)`` raises the weight on the aligned
    key at every correlation as the width grows to ``width`` (``grows``), and whether ``1/d``
    stays at its limit, within 3 standard errors (``at_limit``). One branch, ``aligned``.

    >>> aligned_takeaway([0.2], [0.99], 4096, 1.0).values
    {'width': 4096, 'grows': True, 'at_limit': True}
    """
    grows = all(b > a for a, b in zip(sqrt_first, sqrt_last, strict=True))
    values = {"width": int(max_width), "grows": bool(grows), "at_limit": bool(mup_z <= 3.0)}
    return Reading("aligned", values)


def search_takeaway(
    verdict: Verdict,
    found_beta: float,
    grid_beta: float,
    noisy_errors: Mapping[int, Sequence[float]],
    *,
    planted: float,
) -> Reading:
    """Chuang's search in one sentence: on the toy problem whose labels were drawn with
    ``planted``, what it finds on the exact objective (``found``, against the grid's
    ``optimum``), the largest percentage of noisy searches that miss (``worst``) and the
    ``verdict``. Branch ``unreliable`` where some share of misses is significantly above
    :data:`MISS_SHARE`, ``reliable`` where none is, ``exact-only`` where no noisy search ran.

    >>> search_takeaway(Verdict.HOLDS, 5.1, 5.1, {100: [0.0] * 10}, planted=5.0).branch
    'reliable'
    """
    values: dict[str, Any] = {
        "planted": float(planted),
        "found": float(found_beta),
        "optimum": float(grid_beta),
        "verdict": verdict.value,
    }
    shares = miss_shares(noisy_errors)
    if not shares:
        return Reading("exact-only", values)
    values["worst"] = 100 * max(share for share, _ in shares.values())
    significant = any(flagged for _, flagged in shares.values())
    return Reading("unreliable" if significant else "reliable", values)
