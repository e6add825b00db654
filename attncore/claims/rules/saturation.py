"""Verdict rules and conclusions of the softmax-saturation chapter.

Rules take what the chapter measured (plain numbers, mappings and tables) and return a
:class:`~attncore.claims.Finding` with the values that decided it; the ``*_reading``
functions return the chapter's own conclusions from the same numbers as a
:class:`~attncore.claims.finding.Reading` (the branch and its values), which the chapter
says in its own templates, so that no result is typed by hand.

>>> worked_example_findings(None)
[]
>>> worked_example_reading(None).branch
'other-inputs'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any, Protocol

import numpy as np
import pandas as pd

from attncore.checks import ParameterError
from attncore.claims.catalogue import Claim, Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.saturation import (
    BLOG_PEAK,
    JACOBIAN_ROUNDINGS,
    MATERIAL_FACTOR,
    PEAKED,
    SHIFT_ROUNDINGS,
)
from attncore.softmax import softmax

__all__ = [
    "CurveLandmarks",
    "decline_readings",
    "depends_on_n",
    "jacobian_formula",
    "jacobian_formula_reading",
    "n_dependence_reading",
    "overflow_finding",
    "overflow_reading",
    "peak_reading",
    "peaked_small_derivatives",
    "quotation_finding",
    "scaling_reading",
    "shift_finding",
    "shift_readings",
    "skew_reading",
    "softmax_axis_finding",
    "unscaled_reading",
    "variance_factor",
    "variance_factor_reading",
    "variance_skews_softmax",
    "worked_example_findings",
    "worked_example_reading",
]

#: Which of the post's printed outputs each worked-example claim covers.
EXAMPLE_CLAIMS = {
    "blog-softmax-example": ("softmax(y)", "softmax(8y)"),
    "blog-jacobian-example": ("Jacobian of softmax(y)", "Jacobian of softmax(8y)"),
}


def worked_example_findings(matches: Mapping[str, bool] | None) -> list[Finding]:
    """The findings on the post's printed digits, from
    :func:`attncore.sources.blog.digit_matches` (``None``: this run used other inputs).

    A run with other inputs checks nothing, so it returns no finding at all and the ledger
    keeps the claims pending. Values: whether the ``unscaled`` output's digits match and
    whether the ``scaled`` one's do.

    >>> ok = dict.fromkeys(["softmax(y)", "softmax(8y)"], True)
    >>> ok |= {"Jacobian of softmax(y)": True, "Jacobian of softmax(8y)": False}
    >>> [f.verdict.value for f in worked_example_findings(ok)]
    ['holds', 'does not hold']
    """
    if matches is None:
        return []
    findings = []
    for claim, (unscaled, scaled) in EXAMPLE_CLAIMS.items():
        values = {"unscaled": bool(matches[unscaled]), "scaled": bool(matches[scaled])}
        verdict = Verdict.HOLDS if all(values.values()) else Verdict.FAILS
        findings.append(Finding(claim, verdict, values=values))
    return findings


def worked_example_reading(matches: Mapping[str, bool] | None) -> Reading:
    """How this run compares with the post's printed digits: branch ``other-inputs`` (no
    printed digits to compare with), ``all-match`` or ``mismatch`` (value ``mismatched``: the
    outputs whose digits differ).

    >>> worked_example_reading({"softmax(y)": True, "softmax(8y)": False})
    Reading(branch='mismatch', values={'mismatched': ['softmax(8y)']})
    """
    if matches is None:
        return Reading("other-inputs")
    if all(matches.values()):
        return Reading("all-match")
    return Reading("mismatch", {"mismatched": [k for k, ok in matches.items() if not ok]})


def scaling_reading(
    norm_y: float, norm_scaled: float, max_y: float, max_scaled: float, factor: float
) -> Reading:
    """What multiplying the logits by ``factor`` did to the largest probability and the
    Frobenius norm of the Jacobian. Branch: ``shrinks``, ``grows`` or ``same`` (the norm);
    values: the ``factor``, the largest probability before and after (``top``), the way it
    moved (``direction``: ``["up"]``, ``["down"]`` or ``["level"]``), the norm before and
    after (``norm``; one number for ``same``) and the ``ratio`` of the larger norm to the
    smaller.

    >>> r = scaling_reading(0.431, 0.081, 0.368, 0.950, 8.0)
    >>> r.branch, r.values["direction"], round(r.values["ratio"], 1)
    ('shrinks', ['up'], 5.3)
    """
    direction = "up" if max_scaled > max_y else "down" if max_scaled < max_y else "level"
    values: dict[str, Any] = {
        "factor": factor,
        "top": (max_y, max_scaled),
        "direction": [direction],
        "norm": (norm_y, norm_scaled),
    }
    if math.isclose(norm_y, norm_scaled, rel_tol=1e-9, abs_tol=1e-15):
        return Reading("same", {**values, "norm": norm_y})
    if norm_scaled < norm_y:
        return Reading("shrinks", {**values, "ratio": norm_y / norm_scaled})
    return Reading("grows", {**values, "ratio": norm_scaled / norm_y})


def overflow_finding(bounds: Mapping[str, float]) -> Finding:
    """Chuang's "709 is the upper bound of the exponent of exp before the machine overflows".

    ``bounds`` maps a floating-point format to ``ln`` of its largest finite number
    (:func:`attncore.softmax.exp_overflow_bound`). Holds if 709 is the largest integer
    exponent in double precision and in every other format given; holds with a caveat if
    it is so only in double precision (value ``others``: the formats where it is not); does
    not hold if not even there; not testable without double precision. Value ``bounds``:
    each ``format`` with its ``bound``.

    >>> overflow_finding({"float64": 709.78, "float16": 11.09}).verdict.value
    'holds with a caveat'
    """
    values: dict[str, Any] = {
        "bounds": [{"format": name, "bound": b} for name, b in bounds.items()]
    }
    if "float64" not in bounds:
        return Finding("chuang-overflow-709", Verdict.UNTESTABLE, values=values)
    if math.floor(bounds["float64"]) != 709:
        verdict = Verdict.FAILS
    elif all(math.floor(b) == 709 for b in bounds.values()):
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.CAVEAT
        values["others"] = [name for name, b in bounds.items() if math.floor(b) != 709]
    return Finding("chuang-overflow-709", verdict, values=values)


def overflow_reading(bounds: Mapping[str, float]) -> Reading:
    """Which formats Chuang's 709 describes, from the measured bounds. Branch: ``double``
    (double precision alone), ``formats`` (value ``formats``: those it is the bound of) or
    ``none``, each with ``-only`` where every measured format is one of them; value
    ``groups``: the other formats (``formats``) by the bound they overflow above (``bound``),
    with ``one``, whether a group holds a single format.

    >>> r = overflow_reading({"float64": 709.78, "float32": 88.72, "bfloat16": 88.72})
    >>> r.branch, r.values["groups"]
    ('double', [{'formats': ['float32', 'bfloat16'], 'bound': 88.72, 'one': False}])
    """
    at_709 = [name for name, b in bounds.items() if math.floor(b) == 709]
    groups: dict[str, list[str]] = {}
    for name, b in bounds.items():
        if math.floor(b) != 709:
            groups.setdefault(f"{b:.2f}", []).append(name)
    records = [
        {"formats": names, "bound": float(b), "one": len(names) == 1} for b, names in groups.items()
    ]
    branch = "none" if not at_709 else "double" if at_709 == ["float64"] else "formats"
    values: dict[str, Any] = {"groups": records}
    if branch == "formats":
        values["formats"] = at_709
    return Reading(branch if records else f"{branch}-only", values)


@decided_by(SHIFT_ROUNDINGS)
def shift_finding(
    table: pd.DataFrame, n_rows: int, n_keys: int, *, roundings: float = SHIFT_ROUNDINGS
) -> Finding:
    """Chuang's ``Softmax(beta z + epsilon) = Softmax(beta z)``, from
    :func:`attncore.simulate.saturation.shift_table`.

    Holds if every shift moves the softmax by at most ``roundings`` roundings of
    the shifted logits (the identity is exact; floating point can only add rounding); does
    not hold otherwise; not testable on an empty table. Values: the ``rows`` and ``keys``
    of the check and, per ``shift``, the largest ``difference`` and the ``rounding``.

    >>> t = pd.DataFrame({"shift": [1.0], "largest_difference": [1e-16], "rounding": [4e-16]})
    >>> shift_finding(t, n_rows=10, n_keys=8).verdict.value
    'holds'
    """
    values: dict[str, Any] = {"rows": n_rows, "keys": n_keys}
    if table.empty:
        return Finding("chuang-shift-invariance", Verdict.UNTESTABLE, values=values)
    within = table["largest_difference"] <= roundings * table["rounding"]
    values["shifts"] = [
        {"shift": r.shift, "difference": r.largest_difference, "rounding": r.rounding}
        for r in table.itertuples()
    ]
    verdict = Verdict.HOLDS if within.all() else Verdict.FAILS
    return Finding("chuang-shift-invariance", verdict, values=values)


def shift_readings(table: pd.DataFrame) -> tuple[Reading, Reading]:
    """What the shift table shows, for the prose under it: whether the shifted and unshifted
    softmax agree (branch ``agree``, else ``differ`` or ``differs-once`` with the ``shifts``
    where they do not), then whether the naive formula stays finite (``finite``, else
    ``nan`` or ``nan-once`` with the ``shifts`` where it does not).

    >>> t = pd.DataFrame({"shift": [1.0, 750.0], "largest_difference": [0.0, 1e-13],
    ...                   "rounding": [1e-16, 1e-13], "naive_finite": [True, False]})
    >>> [r.branch for r in shift_readings(t)], shift_readings(t)[1].values
    (['agree', 'nan-once'], {'shifts': [750.0]})
    """
    within = table["largest_difference"] <= SHIFT_ROUNDINGS * table["rounding"]
    bad = [float(v) for v in table.loc[~within, "shift"]]
    failing = [float(v) for v in table.loc[~table["naive_finite"], "shift"]]
    agreement = (
        Reading("agree")
        if within.all()
        else Reading("differs-once" if len(bad) == 1 else "differ", {"shifts": bad})
    )
    naive = (
        Reading("finite")
        if not failing
        else Reading("nan-once" if len(failing) == 1 else "nan", {"shifts": failing})
    )
    return agreement, naive


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


@decided_by(PEAKED)
def peaked_small_derivatives(
    marks: CurveLandmarks, example_ratio: float, peaked_level: float
) -> Finding:
    """The blog: "In highly skewed distributions, most s_i values are close to 0, so their
    derivatives become very small."

    Read on the blog's own terms: as rows become peaked, the Jacobian norm falls, and it
    falls as far as in the blog's own example, which it calls "very small"
    (``example_ratio``: the norm after multiplying its logits by 8 over the norm before).
    Rows count as peaked when their mean largest probability reaches ``peaked_level``.

    - not testable: no spread of the grid makes the rows peaked;
    - does not hold: at the most peaked rows the mean norm is not below its maximum over
      the grid by more than two standard errors;
    - holds with a caveat: it falls, but stays clearly (two standard errors) above
      ``example_ratio`` times its maximum: peaked, yet not as small as the blog's example;
    - holds: it falls at least as far as in the blog's example.

    Values: the peak of the mean norm (``peak_norm`` at ``peak_spread``), the most peaked
    rows' spread, mean largest probability and mean norm (``peaked_spread``, ``peaked_p``,
    ``peaked_norm``), the ``share`` of the peak left there, and the ``example_ratio``.

    >>> from types import SimpleNamespace as marks
    >>> m = marks(peak_spread=2.5, peak_norm=0.30, peak_norm_se=0.001, peaked_spread=100.0,
    ...           peaked_max_probability=0.986, peaked_norm=0.02, peaked_norm_se=0.001,
    ...           tail_slope=-0.95, tail_slope_se=0.01)
    >>> peaked_small_derivatives(m, example_ratio=0.19, peaked_level=0.9).verdict.value
    'holds'
    """
    values = {
        "peak_norm": marks.peak_norm,
        "peak_spread": marks.peak_spread,
        "peaked_spread": marks.peaked_spread,
        "peaked_p": marks.peaked_max_probability,
        "peaked_norm": marks.peaked_norm,
        "share": marks.peaked_norm / marks.peak_norm,
        "example_ratio": example_ratio,
    }
    if marks.peaked_max_probability < peaked_level:
        return Finding("blog-peaked-small-derivatives", Verdict.UNTESTABLE, values=values)
    se_fall = math.hypot(marks.peak_norm_se, marks.peaked_norm_se)
    if marks.peak_norm - marks.peaked_norm <= 2 * se_fall:
        verdict = Verdict.FAILS
    elif marks.peaked_norm - 2 * marks.peaked_norm_se > example_ratio * marks.peak_norm:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.HOLDS
    return Finding("blog-peaked-small-derivatives", verdict, values=values)


def peak_reading(marks: CurveLandmarks, n_keys: int) -> Reading:
    """Where the mean Jacobian norm is largest, against uniform attention. Branch: ``edge``
    (at the largest spread of the grid), ``above`` or ``not-above`` (clearly above the norm
    of uniform attention, or not); values ``n_keys``, ``peak_spread``, ``peak_norm`` and
    ``uniform_norm``.

    >>> from types import SimpleNamespace as marks
    >>> m = marks(peak_spread=2.5, peak_norm=0.304, peak_norm_se=0.001, uniform_norm=0.124,
    ...           smallest_spread=0.01, largest_spread=100.0)
    >>> peak_reading(m, 64).branch
    'above'
    """
    values = {
        "n_keys": n_keys,
        "peak_spread": marks.peak_spread,
        "peak_norm": marks.peak_norm,
        "uniform_norm": marks.uniform_norm,
    }
    if marks.peak_spread >= marks.largest_spread:
        return Reading("edge", values)
    if marks.peak_norm - 2 * marks.peak_norm_se > marks.uniform_norm:
        return Reading("above", values)
    return Reading("not-above", values)


def decline_readings(
    marks: CurveLandmarks, slopes: Sequence[float] = ()
) -> tuple[Reading, Reading]:
    """How the mean Jacobian norm falls past its peak, then the slope of the tail: with
    ``slopes`` (the tail slope once per seed, :func:`attncore.simulate.saturation.tail_slopes`)
    their mean and standard deviation over seeds, else the curve's own fit with its standard
    error.

    The first reading: ``no-decline`` (the grid ends at the peak), ``above-half`` (value
    ``largest_spread``) or ``half`` (value ``spread_at_half``). The second: ``too-few`` (no
    slope), else ``falls``, ``rises`` or ``flat``, with ``-one-seed`` where one seed gives
    the slope and its standard error; values ``slope``, ``error`` (the standard deviation
    over the ``seeds``, or the fit's standard error) and ``steep`` (a slope below -2).

    >>> from types import SimpleNamespace as marks
    >>> m = marks(peak_spread=2.5, largest_spread=100.0, spread_at_half=15.8,
    ...           tail_slope=-0.95, tail_slope_se=0.01)
    >>> head, tail = decline_readings(m, [-0.9, -0.92, -0.91])
    >>> head.branch, tail.branch, round(tail.values["slope"], 2), tail.values["seeds"]
    ('half', 'falls', -0.91, 3)
    """
    if marks.peak_spread >= marks.largest_spread:
        head = Reading("no-decline")
    elif math.isnan(marks.spread_at_half):
        head = Reading("above-half", {"largest_spread": marks.largest_spread})
    else:
        head = Reading("half", {"spread_at_half": marks.spread_at_half})
    return head, _tail_reading(marks, slopes)


def _tail_reading(marks: CurveLandmarks, slopes: Sequence[float]) -> Reading:
    """The second reading of :func:`decline_readings`: the slope of the tail."""
    values = np.asarray([v for v in slopes if not math.isnan(v)], dtype=float)
    if values.size >= 2:
        slope, sd = float(values.mean()), float(values.std(ddof=1))
        se = sd / math.sqrt(values.size)
        said = {"slope": slope, "error": sd, "seeds": int(values.size)}
        seeds = ""
    else:
        slope, se = marks.tail_slope, marks.tail_slope_se
        said = {"slope": slope, "error": se, "seeds": 1}
        seeds = "-one-seed"
    if math.isnan(slope):
        return Reading("too-few")
    if slope < -2 * se:
        return Reading("falls" + seeds, {**said, "steep": not slope > -2})
    if slope > 2 * se:
        return Reading("rises" + seeds, said)
    return Reading("flat" + seeds, said)


def unscaled_reading(marked: pd.DataFrame, peak_norm: float) -> Reading:
    """The mean norm and largest probability at the spreads of unscaled logits.

    ``marked`` has one row per dimension ``d`` (index), with columns ``jacobian_norm``,
    ``jacobian_norm_se`` and ``max_probability``, in increasing ``d``. Branch: ``smaller``
    (the larger d, the clearly smaller the norm), ``larger`` or ``inconsistent``; value
    ``rows``: per ``d`` the norm as a ``share`` of its peak, in per cent, and the mean
    largest probability (``top``).

    >>> marked = pd.DataFrame({"jacobian_norm": [0.24, 0.09], "jacobian_norm_se": [0.002] * 2,
    ...                        "max_probability": [0.74, 0.93]}, index=[64, 512])
    >>> r = unscaled_reading(marked, 0.30)
    >>> r.branch, [round(row["share"]) for row in r.values["rows"]]
    ('smaller', [80, 30])
    """
    rows = [
        {"d": int(d), "share": 100 * r.jacobian_norm / peak_norm, "top": r.max_probability}
        for d, r in marked.iterrows()
    ]
    norms, ses = marked["jacobian_norm"].to_numpy(), marked["jacobian_norm_se"].to_numpy()
    gaps = norms[:-1] - norms[1:]
    noise = 2 * (ses[:-1] ** 2 + ses[1:] ** 2) ** 0.5
    if (gaps > noise).all():
        return Reading("smaller", {"rows": rows})
    if (gaps < -noise).all():
        return Reading("larger", {"rows": rows})
    return Reading("inconsistent", {"rows": rows})


def _agreement_values(
    agreement: Mapping[str, float | int | bool], roundings: float
) -> dict[str, Any]:
    """What :func:`jacobian_formula` and its reading say of ``agreement``: whether sympy's
    derivative is the formula (``symbolic``), whether the complex-step Jacobian agrees with
    it within ``roundings`` times the rounding bound (``numeric``), the ``rows``, the
    ``keys`` and the largest ``difference``."""
    tolerance = roundings * float(agreement["rounding"])
    return {
        "symbolic": bool(agreement["symbolic"]),
        "numeric": float(agreement["largest_difference"]) <= tolerance,
        "rows": int(agreement["rows"]),
        "keys": int(agreement["keys"]),
        "difference": float(agreement["largest_difference"]),
    }


@decided_by(JACOBIAN_ROUNDINGS)
def jacobian_formula(
    agreement: Mapping[str, float | int | bool], *, jacobian_roundings: float = JACOBIAN_ROUNDINGS
) -> Finding:
    """The blog: the softmax derivative is ``s_i(1 - s_i)`` on the diagonal and ``-s_i s_j``
    off it, compactly ``diag(s) - s s^T``.

    ``agreement`` is :func:`attncore.simulate.saturation.jacobian_agreement`. Holds if sympy's
    derivative equals the formula and the complex-step Jacobian of every random row agrees
    with it within ``jacobian_roundings`` times the rounding bound; does not hold
    otherwise.

    >>> a = {"rows": 30, "keys": 4, "largest_difference": 1e-17, "rounding": 9e-16,
    ...      "symbolic": True}
    >>> jacobian_formula(a).verdict.value
    'holds'
    """
    values = _agreement_values(agreement, jacobian_roundings)
    verdict = Verdict.HOLDS if values["numeric"] and values["symbolic"] else Verdict.FAILS
    return Finding("blog-jacobian-formula", verdict, values=values)


def jacobian_formula_reading(agreement: Mapping[str, float | int | bool]) -> Reading:
    """The result of :func:`jacobian_formula` for the chapter's prose: branch ``checked``, with
    the values of the finding.

    >>> a = {"rows": 30, "keys": 4, "largest_difference": 1e-17, "rounding": 9e-16,
    ...      "symbolic": True}
    >>> r = jacobian_formula_reading(a)
    >>> r.values["symbolic"], r.values["numeric"]
    (True, True)
    """
    return Reading("checked", _agreement_values(agreement, JACOBIAN_ROUNDINGS))


def variance_factor(
    exact_ratio: float, float_ratio: float, factor: float, symbolic: bool
) -> Finding:
    """The blog: "the new vector has 8^2 = 64 times the original variance".

    ``exact_ratio`` is Var(factor y) / Var(y) for the post's ``y`` in exact rational
    arithmetic, ``float_ratio`` the same in floating point, ``symbolic`` whether
    Var(cY) = c^2 Var(Y) was derived for a general finite distribution
    (:func:`attncore.sources.blog.variance_ratio`,
    :func:`attncore.sources.blog.scaled_variance_identity`). Holds if the exact ratio is
    ``factor**2 == 64`` and the identity holds; does not hold otherwise.

    >>> variance_factor(64.0, 64.0, 8.0, True).verdict.value
    'holds'
    >>> variance_factor(64.0, 64.0, 8.0, False).verdict.value
    'does not hold'
    """
    values = {
        "factor": factor,
        "exact": exact_ratio,
        "float": float_ratio,
        "symbolic": bool(symbolic),
    }
    holds = symbolic and exact_ratio == factor**2 == 64
    return Finding(
        "blog-variance-factor-64", Verdict.HOLDS if holds else Verdict.FAILS, values=values
    )


def variance_factor_reading(exact_ratio: float, factor: float) -> Reading:
    """The measured ratio: branch ``square`` where it is ``factor`` squared, else ``other``
    (value ``square``, the factor squared).

    >>> variance_factor_reading(64.0, 8.0)
    Reading(branch='square', values={'factor': 8.0, 'ratio': 64.0})
    >>> variance_factor_reading(63.0, 8.0).values["square"]
    64.0
    """
    values = {"factor": factor, "ratio": exact_ratio}
    if exact_ratio == factor**2:
        return Reading("square", values)
    return Reading("other", {**values, "square": factor**2})


def _clearly_below(table: pd.DataFrame, peak: float) -> pd.Series:
    return table["max_probability"] + 2 * table["max_probability_se"] < peak


def _rises(curve: pd.DataFrame, by_keys: pd.DataFrame, top: float) -> bool:
    """Whether the mean largest probability falls clearly nowhere along ``curve`` and, for
    every number of keys, is clearly higher at the spread ``top`` than at spread 1."""
    values = curve["max_probability"].to_numpy()
    ses = curve["max_probability_se"].to_numpy()
    falls = values[1:] + 2 * np.hypot(ses[1:], ses[:-1]) < values[:-1]
    rises = []
    for _, part in by_keys.groupby("n_keys"):
        base = part[np.isclose(part["spread"], 1.0)].iloc[0]
        end = part[np.isclose(part["spread"], top)].iloc[0]
        gap = end["max_probability"] - base["max_probability"]
        rises.append(gap > 2 * math.hypot(end["max_probability_se"], base["max_probability_se"]))
    return not (falls.any() or not all(rises))


@decided_by(BLOG_PEAK)
def variance_skews_softmax(
    curve: pd.DataFrame, by_keys: pd.DataFrame, marked: Mapping[float, int], peak: float
) -> Finding:
    """The blog: "A higher variance causes the output of the softmax to become very skewed
    ... extremely close to 1 for one position and near 0 for others."

    ``curve`` is a :func:`attncore.simulate.saturation.saturation_curve` over a grid of
    spreads; ``by_keys`` a :func:`attncore.simulate.saturation.keys_table` holding the spread
    1 and the ``marked`` spreads (spread -> the d whose unscaled logits have it) for several
    numbers of keys. "Extremely close to 1" is read by the post's own example, whose largest
    probability ``peak`` it calls "extremely peaked" (the book's reading).

    - does not hold: the mean largest probability falls clearly (two standard errors)
      somewhere along the grid, or for some number of keys it is not clearly higher at the
      largest marked spread than at spread 1;
    - holds with a caveat: it rises, but at some marked spread and number of keys it stays
      clearly below ``peak`` (value ``short``: each such ``n_keys``, ``spread`` and ``d``);
    - holds: it rises and reaches ``peak`` at every marked spread for every number of keys;
    - not testable: fewer than two spreads, or no number of keys, measured.

    Value ``by_keys``: per number of keys ``n``, its ``points`` (``p`` at ``spread``).

    >>> curve = pd.DataFrame({"spread": [1.0, 10.0], "max_probability": [0.3, 0.97],
    ...                       "max_probability_se": [0.01, 0.01]})
    >>> keys = pd.DataFrame({"n_keys": [4, 4], "spread": [1.0, 8.0],
    ...                      "max_probability": [0.5, 0.97], "max_probability_se": [0.01] * 2})
    >>> variance_skews_softmax(curve, keys, {8.0: 64}, 0.95).verdict.value
    'holds'
    """
    claim = "blog-variance-skews-softmax"
    if len(curve) < 2 or by_keys.empty:
        return Finding(claim, Verdict.UNTESTABLE)
    marked_rows = by_keys[np.isin(by_keys["spread"].round(9), np.round(list(marked), 9))]
    short = marked_rows[_clearly_below(marked_rows, peak)]
    values: dict[str, Any] = {
        "by_keys": [
            {
                "n": int(n),
                "points": [{"p": p.max_probability, "spread": p.spread} for p in part.itertuples()],
            }
            for n, part in by_keys.groupby("n_keys")
        ]
    }
    if not _rises(curve, by_keys, max(marked)):
        return Finding(claim, Verdict.FAILS, values=values)
    if short.empty:
        return Finding(claim, Verdict.HOLDS, values=values)
    values["short"] = [
        {"n_keys": int(r.n_keys), "spread": r.spread, "d": marked[_nearest(marked, r.spread)]}
        for r in short.itertuples()
    ]
    return Finding(claim, Verdict.CAVEAT, values=values)


def _nearest(marked: Mapping[float, int], spread: float) -> float:
    return min(marked, key=lambda m: abs(m - spread))


def skew_reading(by_keys: pd.DataFrame, marked: Mapping[float, int], peak: float) -> Reading:
    """Where the mean largest probability reaches the post's ``peak`` at the unscaled spreads:
    branch ``everywhere`` or ``nowhere`` (value ``rows``), or ``some`` (values ``reached`` and
    ``below``), each row a number of keys ``n`` at a dimension ``d``.

    >>> keys = pd.DataFrame({"n_keys": [4, 64], "spread": [8.0, 8.0],
    ...                      "max_probability": [0.97, 0.80], "max_probability_se": [0.01] * 2})
    >>> r = skew_reading(keys, {8.0: 64}, 0.95)
    >>> r.branch, r.values["below"]
    ('some', [{'n': 64, 'd': 64}])
    """
    rows = by_keys[np.isin(by_keys["spread"].round(9), np.round(list(marked), 9))]
    below = _clearly_below(rows, peak)

    def where(part: pd.DataFrame) -> list[dict[str, int]]:
        return [
            {"n": int(r.n_keys), "d": marked[_nearest(marked, r.spread)]} for r in part.itertuples()
        ]

    if not below.any():
        return Reading("everywhere", {"peak": peak, "rows": where(rows)})
    if below.all():
        return Reading("nowhere", {"peak": peak, "rows": where(rows)})
    return Reading(
        "some", {"peak": peak, "reached": where(rows[~below]), "below": where(rows[below])}
    )


def _material(table: pd.DataFrame, column: str, factor: float = MATERIAL_FACTOR) -> bool:
    values, ses = table[column].to_numpy(), table[f"{column}_se"].to_numpy()
    hi, lo = int(values.argmax()), int(values.argmin())
    noisy = values[hi] - values[lo] <= 2 * math.hypot(ses[hi], ses[lo])
    return bool(values[lo] > 0 and values[hi] >= factor * values[lo] and not noisy)


def _ends(table: pd.DataFrame) -> dict[str, Any]:
    """The measures of ``table`` at its smallest and largest number of keys: ``first`` and
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


@decided_by(MATERIAL_FACTOR)
def depends_on_n(table: pd.DataFrame, *, material: float = MATERIAL_FACTOR) -> Finding:
    """Bernhard: softmax cannot be applied without knowing how many keys there are, so "we
    might not be able to avoid all of the softmax-related difficulties by adjusting the
    scalar attention function".

    ``table`` is a :func:`attncore.simulate.saturation.keys_table` at one spread (1, where
    ``1/sqrt(d)`` puts standard normal logits, whatever ``d``). A measure changes materially
    when it changes by at least :data:`MATERIAL_FACTOR` across the grid of n, beyond two
    standard errors.

    - not testable: fewer than two distinct n (value ``sizes``);
    - holds: the largest probability or the Jacobian norm changes materially with n even
      relative to uniform attention (``n`` times the largest probability, the norm over that
      of uniform attention);
    - holds with a caveat: they change materially only in absolute terms, as uniform
      attention itself does (``1/n``);
    - does not hold: neither changes materially.

    Values: the measures at the smallest and the largest n (:func:`_ends`).

    >>> t = pd.DataFrame({"n_keys": [2, 4096], "spread": [1.0, 1.0],
    ...     "max_probability": [0.72, 0.006], "max_probability_se": [0.01, 0.0001],
    ...     "top_over_uniform": [1.45, 24.0], "top_over_uniform_se": [0.02, 0.4],
    ...     "jacobian_norm": [0.36, 0.026], "jacobian_norm_se": [0.01, 0.0001],
    ...     "norm_over_uniform": [0.72, 1.64], "norm_over_uniform_se": [0.02, 0.01],
    ...     "entropy_ratio": [0.77, 0.94]})
    >>> depends_on_n(t).verdict.value
    'holds'
    """
    sizes = sorted(set(table["n_keys"]))
    if len(sizes) < 2:
        return Finding(
            "bernhard-softmax-depends-on-n",
            Verdict.UNTESTABLE,
            values={"sizes": [int(n) for n in sizes]},
        )
    t = table.sort_values("n_keys")
    relative = _material(t, "top_over_uniform", material) or _material(
        t, "norm_over_uniform", material
    )
    absolute = _material(t, "max_probability", material) or _material(t, "jacobian_norm", material)
    if relative:
        verdict = Verdict.HOLDS
    elif absolute:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS
    return Finding("bernhard-softmax-depends-on-n", verdict, values=_ends(t))


def n_dependence_reading(table: pd.DataFrame) -> Reading:
    """What changes with the number of keys at one spread: branch ``ends``, with the measures
    at the smallest and the largest n (:func:`_ends`).

    >>> t = pd.DataFrame({"n_keys": [2, 4096], "max_probability": [0.72, 0.006],
    ...     "top_over_uniform": [1.45, 24.0], "jacobian_norm": [0.36, 0.026],
    ...     "norm_over_uniform": [0.72, 1.64], "entropy_ratio": [0.77, 0.94]})
    >>> r = n_dependence_reading(t)
    >>> r.values["first"], r.values["last"], r.values["top_over"]
    (2, 4096, (1.45, 24.0))
    """
    return Reading("ends", _ends(table))


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


def _change(op: str, was: str, now: str) -> dict[str, list[dict[str, str]]]:
    """One change of a quotation as a record whose one non-empty list names its kind
    (``replaced``, ``omitted`` or ``added``), holding the original's words (``was``) and the
    quotation's (``now``)."""
    kind = {"replace": "replaced", "delete": "omitted", "insert": "added"}[op]
    record: dict[str, list[dict[str, str]]] = {"replaced": [], "omitted": [], "added": []}
    record[kind] = [{"was": was, "now": now}]
    return record


def quotation_finding(claim: str, quote: Claim, original: Claim) -> Finding:
    r"""Whether the quotation in ``quote`` (the part of its words between double quotes,
    plain or typographic) matches the passage of ``original`` it quotes, word by word (the
    words of ``original`` before and after the passage are not part of the comparison).
    **Holds** if it matches; **holds with a caveat** if only words without mathematics differ
    (wording, not content); **does not hold** if a word with mathematics (a digit, √, / or ^)
    differs. Value ``changes``: each change in order (:func:`_change`).

    >>> original = Claim("", "a", "1", "It is big. We scale the dot products by 1/√d_k.", "")
    >>> quote = Claim("", "b", "2", r"Quoting a: “We scale dot products by $\sqrt{d_k}$”.", "")
    >>> finding = quotation_finding("blog-vaswani-quote", quote, original)
    >>> finding.verdict.value
    'does not hold'
    >>> [c["omitted"] or c["replaced"] for c in finding.values["changes"]]
    [[{'was': 'the', 'now': ''}], [{'was': '1/√d_k', 'now': '√d_k'}]]
    """
    quoted = re.search(r'["“]([^"”]+)["”]', quote.quote)
    if quoted is None:
        raise ParameterError(f"claim {claim} holds no quotation between double quotes")
    said, source = _words(quoted.group(1)), _words(original.quote)
    opcodes = SequenceMatcher(None, source, said, autojunk=False).get_opcodes()
    while opcodes and opcodes[0][0] == "delete":
        opcodes.pop(0)
    while opcodes and opcodes[-1][0] == "delete":
        opcodes.pop()
    changes, math_changed = [], False
    for op, i1, i2, j1, j2 in opcodes:
        was, now = " ".join(source[i1:i2]), " ".join(said[j1:j2])
        if op == "equal":
            continue
        math_changed |= bool(re.search(r"[\d√/^]", was + now))
        changes.append(_change(op, was, now))
    if not changes:
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.FAILS if math_changed else Verdict.CAVEAT
    return Finding(claim, verdict, values={"changes": changes})


def softmax_axis_finding(logits: np.ndarray) -> Finding:
    r"""Chuang: applying softmax to :math:`QK^T/\sqrt{d_k}` "means to apply Softmax function on
    each column of the matrix", by his formula
    :math:`\exp(\beta a_{ij})/\sum_{i_1}\exp(\beta a_{i_1 j})`: each column sums to 1.

    The softmax of self-attention, and the softmax "on the last dimension" of numpy and
    PyTorch that his own definition names, normalizes each row: the weights one query puts on
    the keys sum to 1. On the square matrix ``logits`` (rows: queries, columns: keys) the rule
    compares his column formula with the softmax over the last dimension. **Does not hold**
    if they differ; **not testable here** if the matrix cannot tell them apart (they agree
    on it, as on a constant matrix). Values: the matrix's ``rows`` and ``columns``, the
    range of the row sums of his weights (``row_sums``) and the largest difference (``gap``).

    >>> softmax_axis_finding(np.arange(9.0).reshape(3, 3)).verdict.value
    'does not hold'
    >>> softmax_axis_finding(np.ones((3, 3))).verdict.value
    'not testable here'
    """
    a = np.asarray(logits, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] < 2:
        raise ParameterError(f"logits must be a square matrix of size 2 or more, got {a.shape}")
    rows, columns = softmax(a, axis=-1), softmax(a, axis=0)
    gap = float(np.abs(rows - columns).max())
    row_sums = columns.sum(axis=1)
    values = {
        "rows": int(a.shape[0]),
        "columns": int(a.shape[1]),
        "row_sums": (float(row_sums.min()), float(row_sums.max())),
        "gap": gap,
    }
    verdict = Verdict.UNTESTABLE if gap <= 1e-12 else Verdict.FAILS
    return Finding("chuang-softmax-columns", verdict, values=values)
