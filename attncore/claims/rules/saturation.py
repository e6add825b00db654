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
from collections.abc import Mapping
from typing import Protocol

import pandas as pd

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding

__all__ = [
    "CurveLandmarks",
    "decline_sentence",
    "overflow_finding",
    "overflow_sentence",
    "peak_sentence",
    "peaked_small_derivatives",
    "scaling_sentence",
    "shift_finding",
    "shift_sentence",
    "unscaled_sentence",
    "worked_example_findings",
    "worked_example_sentence",
]

EXAMPLE_CLAIMS = {
    "blog-softmax-example": ("softmax(y)", "softmax(8y)"),
    "blog-jacobian-example": ("Jacobian of softmax(y)", "Jacobian of softmax(8y)"),
}
"""Which of the post's printed outputs each worked-example claim covers."""

SHIFT_ROUNDINGS = 4
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


def shift_finding(table: pd.DataFrame, n_rows: int, n_keys: int) -> Finding:
    """Chuang's ``Softmax(beta z + epsilon) = Softmax(beta z)``, from
    :func:`attncore.simulate.saturation.shift_table`.

    Holds if every shift moves the softmax by at most :data:`SHIFT_ROUNDINGS` roundings of
    the shifted logits (the identity is exact; floating point can only add rounding); does
    not hold otherwise; not testable on an empty table.

    >>> t = pd.DataFrame({"shift": [1.0], "largest_difference": [1e-16], "rounding": [4e-16]})
    >>> shift_finding(t, n_rows=10, n_keys=8).verdict.value
    'holds'
    """
    check = (
        f"{n_rows} random rows of {n_keys} logits, softmax with and without a shift; "
        f"tolerance {SHIFT_ROUNDINGS} roundings of the shifted logits"
    )
    if table.empty:
        return Finding("chuang-shift-invariance", Verdict.UNTESTABLE, "no shift measured", check)
    within = table["largest_difference"] <= SHIFT_ROUNDINGS * table["rounding"]
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

    The slope of the tail (mean norm against spread, log-log) goes into the measured text.

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
        f"mean ||J||_F peaks at {marks.peak_norm:.3f} (spread {marks.peak_spread:.3g}); at the "
        f"most peaked rows of the grid (spread {marks.peaked_spread:.3g}, mean largest "
        f"probability {marks.peaked_max_probability:.3f}) it is {marks.peaked_norm:.3f}, "
        f"{marks.peaked_norm / marks.peak_norm:.2f} of its peak"
    )
    if not math.isnan(marks.tail_slope):
        measured += f"; log-log slope over the last decade of spreads {marks.tail_slope:.2f}"
    if marks.peaked_max_probability < peaked_level:
        return Finding(
            "blog-peaked-small-derivatives",
            Verdict.UNTESTABLE,
            measured + f"; no spread of the grid makes rows peaked (>= {peaked_level:g})",
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


def decline_sentence(marks: CurveLandmarks) -> str:
    """How the mean Jacobian norm falls past its peak, and the slope of the tail.

    >>> from types import SimpleNamespace as marks
    >>> m = marks(peak_spread=2.5, largest_spread=100.0, spread_at_half=15.8,
    ...           tail_slope=-0.95, tail_slope_se=0.01)
    >>> decline_sentence(m)
    'Past the peak the mean norm falls: it is below half its peak from a spread of about \
15.8 on. Over the last decade of the grid it falls like a power of the spread, with log-log \
slope -0.95: a slow decline rather than a cliff.'
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
    slope, se = marks.tail_slope, marks.tail_slope_se
    if math.isnan(slope):
        return head + " The last decade of the grid has too few spreads to fit a slope."
    if slope < -2 * se:
        pace = "a slow decline rather than a cliff" if slope > -2 else "a steep decline"
        tail = (
            f"Over the last decade of the grid it falls like a power of the spread, with "
            f"log-log slope {slope:.2f}: {pace}."
        )
    elif slope > 2 * se:
        tail = f"Over the last decade of the grid it rises (log-log slope {slope:.2f})."
    else:
        tail = f"Over the last decade of the grid it is flat (log-log slope {slope:.2f})."
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
