"""Verdict rules and conclusions of the softmax-saturation chapter.

Rules take what the chapter measured (plain numbers, mappings and tables) and return a
:class:`~attncore.claims.Finding`; the ``*_sentence`` functions turn the same numbers into
the sentences the chapter glues into its prose, so that no result is typed by hand.

>>> worked_example_findings(None)
[]
>>> worked_example_sentence(None)[:40]
'This run uses other inputs than the post'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Protocol

import numpy as np
import pandas as pd

from attncore.checks import ParameterError
from attncore.claims.catalogue import Claim, Verdict
from attncore.claims.finding import Finding
from attncore.claims.thresholds import Threshold, decided_by
from attncore.softmax import softmax

__all__ = [
    "MATERIAL_FACTOR",
    "PEAKED",
    "CurveLandmarks",
    "decline_sentence",
    "depends_on_n",
    "jacobian_formula",
    "jacobian_formula_sentence",
    "n_dependence_sentence",
    "overflow_finding",
    "overflow_sentence",
    "peak_sentence",
    "peaked_small_derivatives",
    "quotation_finding",
    "scaling_sentence",
    "shift_finding",
    "shift_sentence",
    "skew_sentence",
    "softmax_axis_finding",
    "unscaled_sentence",
    "variance_factor",
    "variance_factor_sentence",
    "variance_skews_softmax",
    "worked_example_findings",
    "worked_example_sentence",
]

EXAMPLE_CLAIMS = {
    "blog-softmax-example": ("softmax(y)", "softmax(8y)"),
    "blog-jacobian-example": ("Jacobian of softmax(y)", "Jacobian of softmax(8y)"),
}
"""Which of the post's printed outputs each worked-example claim covers."""

SHIFT_ROUNDINGS = Threshold(
    4,
    "roundings",
    "adding the shift rounds each logit once, and the maximum subtraction and exp carry that "
    "error into each probability: a few roundings, four",
)
"""Shift invariance holds numerically when the softmax moves by at most this many roundings
of the shifted logits (adding the shift rounds each logit once; the maximum subtraction
and ``exp`` carry that error into the probabilities, relative to each of them)."""


def worked_example_findings(matches: Mapping[str, bool] | None) -> list[Finding]:
    """The findings on the post's printed digits, from
    :func:`attncore.sources.blog.digit_matches` (``None``: this run used other inputs).

    A run with other inputs checks nothing, so it returns no finding at all and the ledger
    keeps the claims pending.

    >>> ok = dict.fromkeys(["softmax(y)", "softmax(8y)"], True)
    >>> ok |= {"Jacobian of softmax(y)": True, "Jacobian of softmax(8y)": False}
    >>> [f.verdict.value for f in worked_example_findings(ok)]
    ['holds', 'does not hold']
    """
    if matches is None:
        return []
    findings = []
    for claim, keys in EXAMPLE_CLAIMS.items():
        findings.append(
            Finding(
                claim,
                Verdict.HOLDS if all(matches[k] for k in keys) else Verdict.FAILS,
                measured="; ".join(
                    f"{k}: {'all digits match' if matches[k] else 'mismatch'}" for k in keys
                ),
                check="recomputed with a max-subtracted softmax, rounded to the printed digits",
            )
        )
    return findings


def worked_example_sentence(matches: Mapping[str, bool] | None) -> str:
    """The sentence that reports the comparison with the post's printed digits.

    >>> worked_example_sentence({"softmax(y)": True, "softmax(8y)": False})
    'Mismatch with the post in: softmax(8y).'
    """
    if matches is None:
        return (
            "This run uses other inputs than the post, so there are no printed digits to "
            "compare with: it records no verdict on the post's worked example."
        )
    if all(matches.values()):
        return "Every printed digit of the post is reproduced."
    return "Mismatch with the post in: " + ", ".join(k for k, ok in matches.items() if not ok) + "."


def scaling_sentence(
    norm_y: float, norm_scaled: float, max_y: float, max_scaled: float, factor: float
) -> str:
    """What multiplying the logits by ``factor`` did to the largest probability and the
    Frobenius norm of the Jacobian.

    >>> scaling_sentence(0.431, 0.081, 0.368, 0.950, 8.0)
    'Multiplying the logits by 8 raises the largest probability from 0.368 to 0.950 and \
shrinks the Frobenius norm of the Jacobian from 0.431 to 0.081, by a factor of 5.3.'
    >>> scaling_sentence(0.081, 0.431, 0.950, 0.368, 0.125)[:70]
    'Multiplying the logits by 0.125 lowers the largest probability from 0.'
    """
    top = "raises" if max_scaled > max_y else "lowers" if max_scaled < max_y else "keeps"
    head = (
        f"Multiplying the logits by {factor:g} {top} the largest probability from "
        f"{max_y:.3f} to {max_scaled:.3f} and "
    )
    if math.isclose(norm_y, norm_scaled, rel_tol=1e-9, abs_tol=1e-15):
        return head + f"leaves the Frobenius norm of the Jacobian at {norm_y:.3f}."
    verb, ratio = (
        ("shrinks", norm_y / norm_scaled)
        if norm_scaled < norm_y
        else ("grows", norm_scaled / norm_y)
    )
    return (
        head + f"{verb} the Frobenius norm of the Jacobian from {norm_y:.3f} to "
        f"{norm_scaled:.3f}, by a factor of {ratio:.1f}."
    )


def overflow_finding(bounds: Mapping[str, float]) -> Finding:
    """Chuang's "709 is the upper bound of the exponent of exp before the machine overflows".

    ``bounds`` maps a floating-point format to ``ln`` of its largest finite number
    (:func:`attncore.softmax.exp_overflow_bound`). Holds if 709 is the largest integer
    exponent in double precision and in every other format given; holds with a caveat if
    it is so only in double precision; does not hold if not even there; not testable
    without double precision.

    >>> overflow_finding({"float64": 709.78, "float16": 11.09}).verdict.value
    'holds with a caveat'
    """
    measured = ", ".join(f"{name}: exp overflows above {b:.2f}" for name, b in bounds.items())
    check = "ln of the largest finite number of each floating-point format"
    if "float64" not in bounds:
        return Finding(
            "chuang-overflow-709",
            Verdict.UNTESTABLE,
            measured + " (no double-precision bound measured)",
            check,
        )
    if math.floor(bounds["float64"]) != 709:
        verdict = Verdict.FAILS
    elif all(math.floor(b) == 709 for b in bounds.values()):
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.CAVEAT
        others = [name for name, b in bounds.items() if math.floor(b) != 709]
        measured += f"; 709 is the bound in double precision only, not in {', '.join(others)}"
    return Finding("chuang-overflow-709", verdict, measured, check)


def overflow_sentence(bounds: Mapping[str, float]) -> str:
    """Which formats Chuang's 709 describes, from the measured bounds.

    >>> overflow_sentence({"float64": 709.78, "float32": 88.72, "bfloat16": 88.72})
    'His 709 is the bound of double precision; float32 and bfloat16 overflow above 88.72.'
    """
    at_709 = [name for name, b in bounds.items() if math.floor(b) == 709]
    groups: dict[str, list[str]] = {}
    for name, b in bounds.items():
        if math.floor(b) != 709:
            groups.setdefault(f"{b:.2f}", []).append(name)
    if not at_709:
        head = "His 709 is the bound of none of the measured formats"
    elif at_709 == ["float64"]:
        head = "His 709 is the bound of double precision"
    else:
        head = "His 709 is the bound of " + " and ".join(at_709)
    if not groups:
        return head + "."
    rest = "; ".join(
        f"{' and '.join(names)} overflow{'s' if len(names) == 1 else ''} above {b}"
        for b, names in groups.items()
    )
    return f"{head}; {rest}."


@decided_by(SHIFT_ROUNDINGS)
def shift_finding(
    table: pd.DataFrame, n_rows: int, n_keys: int, *, roundings: float = SHIFT_ROUNDINGS
) -> Finding:
    """Chuang's ``Softmax(beta z + epsilon) = Softmax(beta z)``, from
    :func:`attncore.simulate.saturation.shift_table`.

    Holds if every shift moves the softmax by at most ``roundings`` roundings of
    the shifted logits (the identity is exact; floating point can only add rounding); does
    not hold otherwise; not testable on an empty table.

    >>> t = pd.DataFrame({"shift": [1.0], "largest_difference": [1e-16], "rounding": [4e-16]})
    >>> shift_finding(t, n_rows=10, n_keys=8).verdict.value
    'holds'
    """
    check = (
        f"{n_rows} random rows of {n_keys} logits, softmax with and without a shift; "
        f"tolerance {roundings:.3g} roundings of the shifted logits"
    )
    if table.empty:
        return Finding("chuang-shift-invariance", Verdict.UNTESTABLE, "no shift measured", check)
    within = table["largest_difference"] <= roundings * table["rounding"]
    measured = "; ".join(
        f"shift {r.shift:g}: largest |difference| {r.largest_difference:.1e} "
        f"(rounding {r.rounding:.1e})"
        for r in table.itertuples()
    )
    return Finding(
        "chuang-shift-invariance", Verdict.HOLDS if within.all() else Verdict.FAILS, measured, check
    )


def shift_sentence(table: pd.DataFrame) -> str:
    """What the shift table shows, for the prose under it.

    >>> t = pd.DataFrame({"shift": [1.0, 750.0], "largest_difference": [0.0, 1e-13],
    ...                   "rounding": [1e-16, 1e-13], "naive_finite": [True, False]})
    >>> shift_sentence(t)
    'The shifted and unshifted softmax agree to within the rounding of the shifted logits \
for every shift. The naive formula without the maximum subtracted returns NaN for the shift 750.'
    """
    within = table["largest_difference"] <= SHIFT_ROUNDINGS * table["rounding"]
    if within.all():
        head = (
            "The shifted and unshifted softmax agree to within the rounding of the shifted "
            "logits for every shift."
        )
    else:
        bad = ", ".join(f"{v:g}" for v in table.loc[~within, "shift"])
        head = (
            "The shifted and unshifted softmax differ by more than the rounding of the "
            f"shifted logits for the shift{'s' if (~within).sum() > 1 else ''} {bad}."
        )
    failing = table.loc[~table["naive_finite"], "shift"]
    if failing.empty:
        return head + " The naive formula without the maximum subtracted stays finite here."
    shifts = ", ".join(f"{v:g}" for v in failing)
    plural = "s" if len(failing) > 1 else ""
    return (
        f"{head} The naive formula without the maximum subtracted returns NaN for the "
        f"shift{plural} {shifts}."
    )


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


PEAKED = Threshold(
    0.9,
    "peaked_level",
    "rows whose mean largest probability reaches the chapter's saturation threshold are peaked",
    scale="share",
)
"""The mean largest probability from which rows count as peaked (the chapter passes its
saturation threshold)."""


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

    >>> from types import SimpleNamespace as marks
    >>> m = marks(peak_spread=2.5, peak_norm=0.30, peak_norm_se=0.001, peaked_spread=100.0,
    ...           peaked_max_probability=0.986, peaked_norm=0.02, peaked_norm_se=0.001,
    ...           tail_slope=-0.95, tail_slope_se=0.01)
    >>> peaked_small_derivatives(m, example_ratio=0.19, peaked_level=0.9).verdict.value
    'holds'
    """
    check = (
        f"mean Jacobian Frobenius norm of random rows against their mean largest probability; "
        f"peaked means a mean largest probability of at least {peaked_level:g}; 'very small' "
        f"means a fall to at most {example_ratio:.2f} of the largest mean norm, as far as in "
        "the blog's own example (book's reading); two standard errors"
    )
    measured = (
        f"mean ‖J‖_F peaks at {marks.peak_norm:.3g} (spread {marks.peak_spread:.3g}); at the "
        f"most peaked rows of the grid (spread {marks.peaked_spread:.3g}, mean largest "
        f"probability {marks.peaked_max_probability:.3f}) it is {marks.peaked_norm:.3g}, "
        f"{marks.peaked_norm / marks.peak_norm:.2g} of its peak"
    )
    if marks.peaked_max_probability < peaked_level:
        return Finding(
            "blog-peaked-small-derivatives",
            Verdict.UNTESTABLE,
            measured + f"; no spread of the grid makes rows peaked (≥ {peaked_level:g})",
            check,
        )
    se_fall = math.hypot(marks.peak_norm_se, marks.peaked_norm_se)
    if marks.peak_norm - marks.peaked_norm <= 2 * se_fall:
        verdict = Verdict.FAILS
    elif marks.peaked_norm - 2 * marks.peaked_norm_se > example_ratio * marks.peak_norm:
        verdict = Verdict.CAVEAT
        measured += (
            f"; peaked rows keep more of the norm than the blog's example ({example_ratio:.2f})"
            " (the book's reading: rows whose two largest logits are close keep a sizeable "
            "gradient)"
        )
    else:
        verdict = Verdict.HOLDS
    return Finding("blog-peaked-small-derivatives", verdict, measured, check)


def peak_sentence(marks: CurveLandmarks, n_keys: int) -> str:
    """Where the mean Jacobian norm is largest, against uniform attention.

    >>> from types import SimpleNamespace as marks
    >>> m = marks(peak_spread=2.5, peak_norm=0.304, peak_norm_se=0.001, uniform_norm=0.124,
    ...           smallest_spread=0.01, largest_spread=100.0)
    >>> peak_sentence(m, 64)[:78]
    'With n = 64 keys, the mean Jacobian norm is largest at a spread of about 2.5 ('
    """
    where = f"With n = {n_keys} keys, the mean Jacobian norm is largest"
    if marks.peak_spread >= marks.largest_spread:
        return (
            f"{where} at the largest spread of the grid, {marks.peak_spread:.3g} (norm "
            f"{marks.peak_norm:.3f}): the grid ends before the norm starts to fall."
        )
    if marks.peak_norm - 2 * marks.peak_norm_se > marks.uniform_norm:
        return (
            f"{where} at a spread of about {marks.peak_spread:.3g} (norm {marks.peak_norm:.3f}), "
            f"above the value for uniform attention ({marks.uniform_norm:.3f}): a little spread "
            "helps the gradient, since uniform attention is not where the softmax is most "
            "responsive."
        )
    return (
        f"{where} at a spread of about {marks.peak_spread:.3g} (norm {marks.peak_norm:.3f}), "
        f"no higher than the value for uniform attention ({marks.uniform_norm:.3f}): here no "
        "spread makes the softmax more responsive than uniform attention."
    )


def decline_sentence(marks: CurveLandmarks, slopes: Sequence[float] = ()) -> str:
    """How the mean Jacobian norm falls past its peak, and the slope of the tail: with
    ``slopes`` (the tail slope once per seed, :func:`attncore.simulate.saturation.tail_slopes`)
    their mean and standard deviation over seeds, else the curve's own fit with its standard
    error.

    >>> from types import SimpleNamespace as marks
    >>> m = marks(peak_spread=2.5, largest_spread=100.0, spread_at_half=15.8,
    ...           tail_slope=-0.95, tail_slope_se=0.01)
    >>> decline_sentence(m, [-0.9, -0.92, -0.91])
    'Past the peak the mean norm falls: it is below half its peak from a spread of about \
15.8 on. Over the last decade of the grid it falls like a power of the spread, with log-log \
slope -0.91 ± 0.01 (mean ± standard deviation over 3 seeds): a slow decline rather than a \
cliff.'
    """
    if marks.peak_spread >= marks.largest_spread:
        head = "The grid ends at the peak, so it shows no decline."
    elif math.isnan(marks.spread_at_half):
        head = (
            "Past the peak the mean norm falls, but stays above half its peak up to the "
            f"largest spread of the grid, {marks.largest_spread:.3g}."
        )
    else:
        head = (
            "Past the peak the mean norm falls: it is below half its peak from a spread of "
            f"about {marks.spread_at_half:.3g} on."
        )
    values = np.asarray([v for v in slopes if not math.isnan(v)], dtype=float)
    if values.size >= 2:
        slope, sd = float(values.mean()), float(values.std(ddof=1))
        se = sd / math.sqrt(values.size)
        text = f"{slope:.2f} ± {sd:.2f} (mean ± standard deviation over {values.size} seeds)"
    else:
        slope, se = marks.tail_slope, marks.tail_slope_se
        text = f"{slope:.2f} ± {se:.2f} (one seed, ± its standard error)"
    if math.isnan(slope):
        return head + " The last decade of the grid has too few spreads to fit a slope."
    if slope < -2 * se:
        pace = "a slow decline rather than a cliff" if slope > -2 else "a steep decline"
        tail = (
            f"Over the last decade of the grid it falls like a power of the spread, with "
            f"log-log slope {text}: {pace}."
        )
    elif slope > 2 * se:
        tail = f"Over the last decade of the grid it rises (log-log slope {text})."
    else:
        tail = f"Over the last decade of the grid it is flat (log-log slope {text})."
    return f"{head} {tail}"


def unscaled_sentence(marked: pd.DataFrame, peak_norm: float) -> str:
    """The mean norm and largest probability at the spreads of unscaled logits.

    ``marked`` has one row per dimension ``d`` (index), with columns ``jacobian_norm``,
    ``jacobian_norm_se`` and ``max_probability``, in increasing ``d``.

    >>> marked = pd.DataFrame({"jacobian_norm": [0.24, 0.09], "jacobian_norm_se": [0.002] * 2,
    ...                        "max_probability": [0.74, 0.93]}, index=[64, 512])
    >>> unscaled_sentence(marked, 0.30)
    'At the spread of unscaled logits the mean norm is 80 % of its peak for d = 64 and 30 % \
for d = 512, while the mean largest probability is 0.74 and 0.93: the larger d, the smaller \
the gradient, as the quote says.'
    """
    shares = " and ".join(
        f"{100 * r.jacobian_norm / peak_norm:.0f} % of its peak for d = {d}"
        if i == 0
        else f"{100 * r.jacobian_norm / peak_norm:.0f} % for d = {d}"
        for i, (d, r) in enumerate(marked.iterrows())
    )
    tops = " and ".join(f"{p:.2f}" for p in marked["max_probability"])
    norms, ses = marked["jacobian_norm"].to_numpy(), marked["jacobian_norm_se"].to_numpy()
    gaps = norms[:-1] - norms[1:]
    noise = 2 * (ses[:-1] ** 2 + ses[1:] ** 2) ** 0.5
    if (gaps > noise).all():
        end = "the larger d, the smaller the gradient, as the quote says."
    elif (gaps < -noise).all():
        end = (
            "the larger d, the larger the gradient: at these spreads the quote's effect is absent."
        )
    else:
        end = "the gradient does not change consistently with d at these spreads."
    return (
        f"At the spread of unscaled logits the mean norm is {shares}, while the mean largest "
        f"probability is {tops}: {end}"
    )


JACOBIAN_ROUNDINGS = Threshold(
    4,
    "jacobian_roundings",
    "the complex-step Jacobian and the formula each round a few times: four times the "
    "rounding bound leaves room for both",
)
"""``diag(s) - s s^T`` agrees with the complex-step Jacobian when they differ by at most this
many times the rounding bound of :func:`attncore.simulate.saturation.jacobian_agreement`."""


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
    tolerance = jacobian_roundings * float(agreement["rounding"])
    numeric_ok = float(agreement["largest_difference"]) <= tolerance
    symbolic_ok = bool(agreement["symbolic"])
    measured = (
        f"sympy's derivative of the softmax {'equals' if symbolic_ok else 'differs from'} "
        f"diag(s) − s sᵀ; over {agreement['rows']} random rows of {agreement['keys']} logits "
        f"the complex-step Jacobian differs from it by at most "
        f"{float(agreement['largest_difference']):.1e} (tolerance {tolerance:.1e})"
    )
    check = (
        "symbolic differentiation of exp(z_i) / Σ_j exp(z_j), and a complex-step Jacobian "
        "(no formula used) on random rows, from nearly uniform to saturated"
    )
    verdict = Verdict.HOLDS if numeric_ok and symbolic_ok else Verdict.FAILS
    return Finding("blog-jacobian-formula", verdict, measured, check)


def jacobian_formula_sentence(agreement: Mapping[str, float | int | bool]) -> str:
    """The result of :func:`jacobian_formula` in a sentence.

    >>> a = {"rows": 30, "keys": 4, "largest_difference": 1e-17, "rounding": 9e-16,
    ...      "symbolic": True}
    >>> jacobian_formula_sentence(a)[:59]
    'Sympy differentiates the softmax to exactly diag(s) − s sᵀ,'
    """
    tolerance = JACOBIAN_ROUNDINGS * float(agreement["rounding"])
    symbolic = (
        "Sympy differentiates the softmax to exactly diag(s) − s sᵀ"
        if agreement["symbolic"]
        else "Sympy's derivative of the softmax is not diag(s) − s sᵀ"
    )
    if float(agreement["largest_difference"]) <= tolerance:
        numeric = "agrees with it to rounding"
    else:
        numeric = "differs from it by more than rounding"
    return (
        f"{symbolic}, and on {agreement['rows']} random rows of {agreement['keys']} logits the "
        f"Jacobian computed without the formula (by the complex step) {numeric} (largest "
        f"difference {float(agreement['largest_difference']):.1e})."
    )


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
    measured = (
        f"Var({factor:g}y) / Var(y) = {exact_ratio:g} exactly for the post's y "
        f"({float_ratio:.15g} in floating point); Var(cY) = c² Var(Y) "
        f"{'derived' if symbolic else 'not derived'} symbolically"
    )
    check = "exact rational arithmetic on the post's y, and sympy on a general finite distribution"
    holds = symbolic and exact_ratio == factor**2 == 64
    return Finding(
        "blog-variance-factor-64", Verdict.HOLDS if holds else Verdict.FAILS, measured, check
    )


def variance_factor_sentence(exact_ratio: float, factor: float) -> str:
    """The measured ratio in a sentence.

    >>> print(variance_factor_sentence(64.0, 8.0))
    For the post's y, Var(8y) / Var(y) is exactly 64, which is 8².
    >>> print(variance_factor_sentence(63.0, 8.0))
    For the post's y, Var(8y) / Var(y) is 63, not 8² = 64.
    """
    head = f"For the post's y, Var({factor:g}y) / Var(y) is"
    if exact_ratio == factor**2:
        return f"{head} exactly {exact_ratio:g}, which is {factor:g}²."
    return f"{head} {exact_ratio:g}, not {factor:g}² = {factor**2:g}."


def _clearly_below(table: pd.DataFrame, peak: float) -> pd.Series:
    return table["max_probability"] + 2 * table["max_probability_se"] < peak


BLOG_PEAK = Threshold(
    0.95,
    "peak",
    "the post's own example, whose largest probability 0.95 it calls 'extremely peaked'",
    scale="fixed",
)
"""The largest probability the post calls "extremely close to 1" (the chapter passes the
value computed from the post's example)."""


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
      clearly below ``peak``;
    - holds: it rises and reaches ``peak`` at every marked spread for every number of keys;
    - not testable: fewer than two spreads, or no number of keys, measured.

    >>> curve = pd.DataFrame({"spread": [1.0, 10.0], "max_probability": [0.3, 0.97],
    ...                       "max_probability_se": [0.01, 0.01]})
    >>> keys = pd.DataFrame({"n_keys": [4, 4], "spread": [1.0, 8.0],
    ...                      "max_probability": [0.5, 0.97], "max_probability_se": [0.01] * 2})
    >>> variance_skews_softmax(curve, keys, {8.0: 64}, 0.95).verdict.value
    'holds'
    """
    check = (
        "mean largest probability of rows of iid N(0, spread²) logits against the spread, and "
        f"at the spreads of unscaled logits for several numbers of keys; 'extremely close to "
        f"1' read as at least {peak:.2f}, the largest probability of the post's own example "
        "(book's reading); two standard errors"
    )
    if len(curve) < 2 or by_keys.empty:
        return Finding(
            "blog-variance-skews-softmax",
            Verdict.UNTESTABLE,
            "fewer than two spreads, or no number of keys, measured",
            check,
        )
    values = curve["max_probability"].to_numpy()
    ses = curve["max_probability_se"].to_numpy()
    falls = values[1:] + 2 * np.hypot(ses[1:], ses[:-1]) < values[:-1]
    top = max(marked)
    rises = []
    for _, part in by_keys.groupby("n_keys"):
        base = part[np.isclose(part["spread"], 1.0)].iloc[0]
        end = part[np.isclose(part["spread"], top)].iloc[0]
        gap = end["max_probability"] - base["max_probability"]
        rises.append(gap > 2 * math.hypot(end["max_probability_se"], base["max_probability_se"]))
    marked_rows = by_keys[np.isin(by_keys["spread"].round(9), np.round(list(marked), 9))]
    short = marked_rows[_clearly_below(marked_rows, peak)]
    measured = "mean largest probability " + "; ".join(
        f"n = {n}: "
        + ", ".join(f"{p.max_probability:.3f} at spread {p.spread:.3g}" for p in part.itertuples())
        for n, part in by_keys.groupby("n_keys")
    )
    if falls.any() or not all(rises):
        measured += "; it does not rise with the spread everywhere"
        return Finding("blog-variance-skews-softmax", Verdict.FAILS, measured, check)
    if short.empty:
        return Finding("blog-variance-skews-softmax", Verdict.HOLDS, measured, check)
    missing = ", ".join(
        f"n = {r.n_keys} at spread {r.spread:.3g} (d = {marked[_nearest(marked, r.spread)]})"
        for r in short.itertuples()
    )
    measured += f"; it rises with the spread but stays clearly below {peak:.2f} for {missing}"
    return Finding("blog-variance-skews-softmax", Verdict.CAVEAT, measured, check)


def _nearest(marked: Mapping[float, int], spread: float) -> float:
    return min(marked, key=lambda m: abs(m - spread))


def skew_sentence(by_keys: pd.DataFrame, marked: Mapping[float, int], peak: float) -> str:
    """Where the mean largest probability reaches the post's peak at the unscaled spreads.

    >>> keys = pd.DataFrame({"n_keys": [4, 64], "spread": [8.0, 8.0],
    ...                      "max_probability": [0.97, 0.80], "max_probability_se": [0.01] * 2})
    >>> print(skew_sentence(keys, {8.0: 64}, 0.95)[61:])
    reaches the post's 0.95 for n = 4 at d = 64, and stays clearly below it for n = 64 at d = 64.
    """
    rows = by_keys[np.isin(by_keys["spread"].round(9), np.round(list(marked), 9))]
    below = _clearly_below(rows, peak)

    def where(part: pd.DataFrame) -> str:
        return ", ".join(
            f"n = {r.n_keys} at d = {marked[_nearest(marked, r.spread)]}" for r in part.itertuples()
        )

    head = "At the spread of unscaled logits the mean largest probability"
    if not below.any():
        return f"{head} reaches the post's {peak:.2f} everywhere measured: {where(rows)}."
    if below.all():
        return (
            f"{head} stays clearly below the post's {peak:.2f} everywhere measured: {where(rows)}."
        )
    return (
        f"{head} reaches the post's {peak:.2f} for {where(rows[~below])}, and stays clearly "
        f"below it for {where(rows[below])}."
    )


MATERIAL_FACTOR = Threshold(
    2.0,
    "material",
    "a measure that changes by a factor 2 across the numbers of keys changes materially (the "
    "book's reading of Bernhard's point)",
    scale="factor",
)
"""A measure changes materially with n when its largest mean over the grid of n is at least
this many times its smallest (the book's reading of Bernhard's point)."""


def _material(table: pd.DataFrame, column: str, factor: float = MATERIAL_FACTOR) -> bool:
    values, ses = table[column].to_numpy(), table[f"{column}_se"].to_numpy()
    hi, lo = int(values.argmax()), int(values.argmin())
    noisy = values[hi] - values[lo] <= 2 * math.hypot(ses[hi], ses[lo])
    return bool(values[lo] > 0 and values[hi] >= factor * values[lo] and not noisy)


@decided_by(MATERIAL_FACTOR)
def depends_on_n(table: pd.DataFrame, *, material: float = MATERIAL_FACTOR) -> Finding:
    """Bernhard: softmax cannot be applied without knowing how many keys there are, so "we
    might not be able to avoid all of the softmax-related difficulties by adjusting the
    scalar attention function".

    ``table`` is a :func:`attncore.simulate.saturation.keys_table` at one spread (1, where
    ``1/sqrt(d)`` puts standard normal logits, whatever ``d``). A measure changes materially
    when it changes by at least :data:`MATERIAL_FACTOR` across the grid of n, beyond two
    standard errors.

    - not testable: fewer than two distinct n;
    - holds: the largest probability or the Jacobian norm changes materially with n even
      relative to uniform attention (``n`` times the largest probability, the norm over that
      of uniform attention);
    - holds with a caveat: they change materially only in absolute terms, as uniform
      attention itself does (``1/n``);
    - does not hold: neither changes materially.

    >>> t = pd.DataFrame({"n_keys": [2, 4096], "spread": [1.0, 1.0],
    ...     "max_probability": [0.72, 0.006], "max_probability_se": [0.01, 0.0001],
    ...     "top_over_uniform": [1.45, 24.0], "top_over_uniform_se": [0.02, 0.4],
    ...     "jacobian_norm": [0.36, 0.026], "jacobian_norm_se": [0.01, 0.0001],
    ...     "norm_over_uniform": [0.72, 1.64], "norm_over_uniform_se": [0.02, 0.01],
    ...     "entropy_ratio": [0.77, 0.94]})
    >>> depends_on_n(t).verdict.value
    'holds'
    """
    check = (
        "rows of iid N(0, 1) logits (the spread 1/√d gives standard normal q and k) for "
        f"several n; 'materially' read as a change by a factor of at least {material:.3g} "
        "beyond two standard errors (book's reading)"
    )
    sizes = sorted(set(table["n_keys"]))
    if len(sizes) < 2:
        return Finding(
            "bernhard-softmax-depends-on-n",
            Verdict.UNTESTABLE,
            f"only n = {', '.join(map(str, sizes))} measured",
            check,
        )
    t = table.sort_values("n_keys")
    first, last = t.iloc[0], t.iloc[-1]
    measured = (
        f"from n = {int(first.n_keys)} to n = {int(last.n_keys)}: mean largest probability "
        f"{first.max_probability:.3g} to {last.max_probability:.3g} ({first.top_over_uniform:.3g}"
        f" to {last.top_over_uniform:.3g} times 1/n), mean ‖J‖_F {first.jacobian_norm:.3g} to "
        f"{last.jacobian_norm:.3g} ({first.norm_over_uniform:.3g} to {last.norm_over_uniform:.3g}"
        f" times that of uniform attention), entropy / ln n {first.entropy_ratio:.3g} to "
        f"{last.entropy_ratio:.3g}"
    )
    relative = _material(t, "top_over_uniform", material) or _material(
        t, "norm_over_uniform", material
    )
    absolute = _material(t, "max_probability", material) or _material(t, "jacobian_norm", material)
    if relative:
        verdict = Verdict.HOLDS
    elif absolute:
        verdict = Verdict.CAVEAT
        measured += "; relative to uniform attention the rows change little with n"
    else:
        verdict = Verdict.FAILS
    return Finding("bernhard-softmax-depends-on-n", verdict, measured, check)


def n_dependence_sentence(table: pd.DataFrame) -> str:
    """What changes with the number of keys at one spread, in a sentence.

    >>> t = pd.DataFrame({"n_keys": [2, 4096], "max_probability": [0.72, 0.006],
    ...     "top_over_uniform": [1.45, 24.0], "jacobian_norm": [0.36, 0.026],
    ...     "norm_over_uniform": [0.72, 1.64], "entropy_ratio": [0.77, 0.94]})
    >>> n_dependence_sentence(t)[:80]
    'At the same spread, going from n = 2 to n = 4096 keys takes the mean largest pro'
    """
    t = table.sort_values("n_keys")
    a, b = t.iloc[0], t.iloc[-1]
    return (
        f"At the same spread, going from n = {int(a.n_keys)} to n = {int(b.n_keys)} keys takes "
        f"the mean largest probability from {a.max_probability:.3g} to {b.max_probability:.3g} "
        f"(from {a.top_over_uniform:.3g} to {b.top_over_uniform:.3g} times the uniform share 1/n), "
        f"the mean Jacobian norm from {a.jacobian_norm:.3g} to {b.jacobian_norm:.3g} (from "
        f"{a.norm_over_uniform:.3g} to {b.norm_over_uniform:.3g} times that of uniform "
        f"attention) and the entropy over ln n from {a.entropy_ratio:.3g} to "
        f"{b.entropy_ratio:.3g}."
    )


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


def quotation_finding(claim: str, quote: Claim, original: Claim) -> Finding:
    r"""Whether the quotation in ``quote`` (the part of its words between double quotes,
    plain or typographic) matches the passage of ``original`` it quotes, word by word (the
    words of ``original`` before and after the passage are not part of the comparison).
    **Holds** if it matches; **holds with a caveat** if only words without mathematics differ
    (wording, not content); **does not hold** if a word with mathematics (a digit, √, / or ^)
    differs.

    >>> original = Claim("", "a", "1", "It is big. We scale the dot products by 1/√d_k.", "")
    >>> quote = Claim("", "b", "2", r"Quoting a: “We scale dot products by $\sqrt{d_k}$”.", "")
    >>> finding = quotation_finding("blog-vaswani-quote", quote, original)
    >>> finding.verdict.value
    'does not hold'
    >>> print(finding.measured)
    the quotation leaves out “the”; writes “√d_k” where the original writes “1/√d_k”
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
        if op == "replace":
            changes.append(f"writes “{now}” where the original writes “{was}”")
        elif op == "delete":
            changes.append(f"leaves out “{was}”")
        else:
            changes.append(f"adds “{now}”")
    if not changes:
        verdict, measured = Verdict.HOLDS, "the quotation matches the original word for word"
    else:
        verdict = Verdict.FAILS if math_changed else Verdict.CAVEAT
        measured = "the quotation " + "; ".join(changes)
    return Finding(claim, verdict, measured, "word-by-word comparison with the original sentence")


def softmax_axis_finding(logits: np.ndarray) -> Finding:
    r"""Chuang: applying softmax to :math:`QK^T/\sqrt{d_k}` "means to apply Softmax function on
    each column of the matrix", by his formula
    :math:`\exp(\beta a_{ij})/\sum_{i_1}\exp(\beta a_{i_1 j})`: each column sums to 1.

    The softmax of self-attention, and the softmax "on the last dimension" of numpy and
    PyTorch that his own definition names, normalizes each row: the weights one query puts on
    the keys sum to 1. On the square matrix ``logits`` (rows: queries, columns: keys) the rule
    compares his column formula with the softmax over the last dimension. **Does not hold**
    if they differ; **not testable here** if the matrix cannot tell them apart (they agree
    on it, as on a constant matrix).

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
    measured = (
        f"on a {a.shape[0]} × {a.shape[1]} matrix of random logits (rows: queries), his column "
        f"formula gives weights whose columns sum to 1 and whose rows (one query's weights on "
        f"the keys) sum to {row_sums.min():.2f} to {row_sums.max():.2f}; the softmax over the "
        f"last dimension gives rows that sum to 1; the two differ by up to {gap:.2f}"
    )
    check = (
        "his formula (a sum over the first index i₁ for a fixed j) against the softmax over "
        "the last dimension (numpy, PyTorch; the attention of Vaswani et al., over the keys)"
    )
    if gap <= 1e-12:
        measured += "; this matrix cannot tell the two apart"
        return Finding("chuang-softmax-columns", Verdict.UNTESTABLE, measured, check)
    measured += (
        ": normalizing each column is the softmax over the first dimension, over the queries, "
        "not the attention over the keys nor his own 'last dimension'"
    )
    return Finding("chuang-softmax-columns", Verdict.FAILS, measured, check)
