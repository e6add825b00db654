"""Verdict rules and readings of the softmax-saturation chapter, on the numbers of
:mod:`attncore.evidence.saturation`."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from attncore.checks import ParameterError
from attncore.claims.catalogue import Claim, Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.evidence import saturation as evidence
from attncore.evidence.statistics import clear_side, single

limits = thresholds_of("saturation")

__all__ = [
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
    """The worked-example claims from :func:`attncore.sources.blog.digit_matches`: each holds
    where both its outputs' digits match; none for other inputs (``None``: they stay pending).

    >>> ok = dict.fromkeys(["softmax(y)", "softmax(8y)", "Jacobian of softmax(y)"], True)
    >>> [f.verdict.value for f in worked_example_findings(ok | {"Jacobian of softmax(8y)": 0})]
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
    """This run against the post's digits: ``other-inputs``, ``all-match`` or ``mismatch``.

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
    """What scaling by ``factor`` did to the Jacobian norm: ``shrinks``, ``grows`` or ``same``.

    >>> scaling_reading(0.431, 0.081, 0.368, 0.950, 8.0).values["direction"]
    ['up']
    """
    direction = "up" if max_scaled > max_y else "down" if max_scaled < max_y else "level"
    values: dict[str, Any] = {"factor": factor, "top": (max_y, max_scaled)}
    values |= {"direction": [direction], "norm": (norm_y, norm_scaled)}
    if math.isclose(norm_y, norm_scaled, rel_tol=1e-9, abs_tol=1e-15):
        return Reading("same", {**values, "norm": norm_y})
    ratio = max(norm_y, norm_scaled) / min(norm_y, norm_scaled)
    return Reading("shrinks" if norm_scaled < norm_y else "grows", {**values, "ratio": ratio})


def overflow_finding(bounds: Mapping[str, float]) -> Finding:
    """``chuang-overflow-709`` from :func:`attncore.softmax.exp_overflow_bound` per format:
    holds if 709 is the integer bound of every format, with a caveat if of double precision only.

    >>> overflow_finding({"float64": 709.78, "float16": 11.09}).verdict.value
    'holds with a caveat'
    """
    claim = "chuang-overflow-709"
    values: dict[str, Any] = {"bounds": [{"format": n, "bound": b} for n, b in bounds.items()]}
    if "float64" not in bounds:
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    others = [name for name, b in bounds.items() if math.floor(b) != 709]
    if "float64" in others or not others:
        return Finding(claim, Verdict.FAILS if others else Verdict.HOLDS, values=values)
    return Finding(claim, Verdict.CAVEAT, values={**values, "others": others})


def overflow_reading(bounds: Mapping[str, float]) -> Reading:
    """Which formats 709 bounds: ``double``, ``formats`` or ``none`` (``-only``: no other).

    >>> overflow_reading({"float64": 709.78, "float32": 88.72}).branch
    'double'
    """
    at_709, records = evidence.overflow_groups(bounds)
    branch = "none" if not at_709 else "double" if at_709 == ["float64"] else "formats"
    values = {"groups": records, **({"formats": at_709} if branch == "formats" else {})}
    return Reading(branch if records else f"{branch}-only", values)


@decided_by(limits.SHIFT_ROUNDINGS)
def shift_finding(
    table: pd.DataFrame, n_rows: int, n_keys: int, *, roundings: float = limits.SHIFT_ROUNDINGS
) -> Finding:
    """``chuang-shift-invariance`` from :func:`attncore.simulate.saturation.shift_table`:
    holds if every shift moves the softmax by at most ``roundings`` roundings.

    >>> shift_finding(evidence.example_shifts(), n_rows=10, n_keys=8).verdict.value
    'holds'
    """
    values: dict[str, Any] = {"rows": n_rows, "keys": n_keys}
    if table.empty:
        return Finding("chuang-shift-invariance", Verdict.UNTESTABLE, values=values)
    within = table["largest_difference"] <= roundings * table["rounding"]
    values["shifts"] = evidence.shift_records(table)
    verdict = Verdict.HOLDS if within.all() else Verdict.FAILS
    return Finding("chuang-shift-invariance", verdict, values=values)


def shift_readings(table: pd.DataFrame) -> tuple[Reading, Reading]:
    """Whether the shifted softmax agrees with the unshifted one (``agree``, ``differ``, or
    ``differs-once``), then whether the naive formula stays finite (``finite``, ``nan``, ...).

    >>> [r.branch for r in shift_readings(evidence.example_shifts())]
    ['agree', 'nan-once']
    """
    within = table["largest_difference"] <= limits.SHIFT_ROUNDINGS * table["rounding"]
    bad = [float(v) for v in table.loc[~within, "shift"]]
    failing = [float(v) for v in table.loc[~table["naive_finite"], "shift"]]
    agreement = Reading("differs-once" if len(bad) == 1 else "differ", {"shifts": bad})
    naive = Reading("nan-once" if len(failing) == 1 else "nan", {"shifts": failing})
    return (Reading("agree") if not bad else agreement), (naive if failing else Reading("finite"))


@decided_by(limits.PEAKED)
def peaked_small_derivatives(
    marks: evidence.CurveLandmarks, example_ratio: float, peaked_level: float, *, rows: int
) -> Finding:
    """``blog-peaked-small-derivatives``: at the most peaked rows (none below ``peaked_level``),
    the norm's fall from its peak, t-tested over ``rows``: clearly above 0 holds (a caveat if
    clearly short of ``example_ratio``), none (peak there) or clearly below 0 fails, else undecided.

    >>> m = evidence.example_landmarks()
    >>> peaked_small_derivatives(m, example_ratio=0.19, peaked_level=0.9, rows=4000).verdict.value
    'holds'
    """
    claim = "blog-peaked-small-derivatives"
    values = {**evidence.peaked_fall(marks), "example_ratio": example_ratio, "rows": rows}
    if marks.peaked_max_probability < peaked_level:
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    se_fall = math.hypot(marks.peak_norm_se, marks.peaked_norm_se)
    side = clear_side(marks.peak_norm - marks.peaked_norm, se_fall, rows)
    if marks.peaked_spread == marks.peak_spread or side == "below":
        return Finding(claim, Verdict.FAILS, values=values)
    if side is None:
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="cannot-tell")
    left = marks.peaked_norm - example_ratio * marks.peak_norm
    short = single([left], [marks.peaked_norm_se], rows, "above")[0]
    return Finding(claim, Verdict.CAVEAT if short else Verdict.HOLDS, values=values)


def peak_reading(marks: evidence.CurveLandmarks, n_keys: int) -> Reading:
    """Where the mean norm peaks: ``edge`` (at the grid's end), else ``above`` or
    ``not-above`` the norm of uniform attention by two standard errors.

    >>> peak_reading(evidence.example_landmarks(), 64).branch
    'above'
    """
    names = ("peak_spread", "peak_norm", "uniform_norm")
    values = {"n_keys": n_keys, **{name: getattr(marks, name) for name in names}}
    above = marks.peak_norm - 2 * marks.peak_norm_se > marks.uniform_norm
    edge = marks.peak_spread >= marks.largest_spread
    return Reading("edge" if edge else "above" if above else "not-above", values)


def decline_readings(
    marks: evidence.CurveLandmarks, slopes: Sequence[float] = ()
) -> tuple[Reading, Reading]:
    """How the mean norm falls past its peak (``no-decline``, ``above-half``, ``half``), then the
    tail's slope: ``too-few``, else ``falls``, ``rises`` or ``flat`` (``-one-seed``: one seed).

    >>> head, tail = decline_readings(evidence.example_landmarks(), [-0.9, -0.92, -0.91])
    >>> head.branch, tail.branch, round(tail.values["slope"], 2), tail.values["seeds"]
    ('half', 'falls', -0.91, 3)
    """
    if marks.peak_spread >= marks.largest_spread:
        head = Reading("no-decline")
    elif math.isnan(marks.spread_at_half):
        head = Reading("above-half", {"largest_spread": marks.largest_spread})
    else:
        head = Reading("half", {"spread_at_half": marks.spread_at_half})
    slope, se, said = evidence.tail_slope(marks, slopes)
    seeds = "-one-seed" if said["seeds"] == 1 else ""
    if math.isnan(slope):
        return head, Reading("too-few")
    if slope < -2 * se:
        return head, Reading("falls" + seeds, {**said, "steep": not slope > -2})
    return head, Reading(("rises" if slope > 2 * se else "flat") + seeds, said)


def unscaled_reading(marked: pd.DataFrame, peak_norm: float) -> Reading:
    """At the unscaled spreads (one row per ``d``, increasing): ``smaller`` where each larger
    d has a clearly smaller mean norm, ``larger`` where clearly larger, else ``inconsistent``.

    >>> marked = pd.DataFrame({"jacobian_norm": [0.24, 0.09], "jacobian_norm_se": [0.002] * 2,
    ...                        "max_probability": [0.74, 0.93]}, index=[64, 512])
    >>> unscaled_reading(marked, 0.30).branch
    'smaller'
    """
    rows = evidence.unscaled_rows(marked, peak_norm)
    gaps, noise = evidence.unscaled_steps(marked)
    smaller, larger = (gaps > noise).all(), (gaps < -noise).all()
    return Reading("smaller" if smaller else "larger" if larger else "inconsistent", {"rows": rows})


def _agreement_values(agreement: Mapping[str, Any], roundings: float) -> dict[str, Any]:
    """The values of :func:`jacobian_formula`; ``numeric``: within ``roundings`` roundings."""
    numeric = float(agreement["largest_difference"]) <= roundings * float(agreement["rounding"])
    values = {"symbolic": bool(agreement["symbolic"]), "numeric": numeric}
    return values | evidence.agreement_record(agreement)


@decided_by(limits.JACOBIAN_ROUNDINGS)
def jacobian_formula(
    agreement: Mapping[str, float | int | bool],
    *,
    jacobian_roundings: float = limits.JACOBIAN_ROUNDINGS,
) -> Finding:
    """``blog-jacobian-formula`` from :func:`attncore.simulate.saturation.jacobian_agreement`:
    holds if sympy's derivative and the complex-step Jacobian both agree with the formula.

    >>> jacobian_formula(evidence.example_agreement()).verdict.value
    'holds'
    """
    values = _agreement_values(agreement, jacobian_roundings)
    verdict = Verdict.HOLDS if values["numeric"] and values["symbolic"] else Verdict.FAILS
    return Finding("blog-jacobian-formula", verdict, values=values)


def jacobian_formula_reading(agreement: Mapping[str, float | int | bool]) -> Reading:
    """Branch ``checked``, with the values of :func:`jacobian_formula`.

    >>> jacobian_formula_reading(evidence.example_agreement()).values["numeric"]
    True
    """
    return Reading("checked", _agreement_values(agreement, limits.JACOBIAN_ROUNDINGS))


def variance_factor(
    exact_ratio: float, float_ratio: float, factor: float, symbolic: bool
) -> Finding:
    """``blog-variance-factor-64``: holds if the exact ratio is ``factor**2 == 64`` and
    Var(cY) = c² Var(Y) was derived (:mod:`attncore.sources.blog`).

    >>> variance_factor(64.0, 64.0, 8.0, True).verdict.value
    'holds'
    """
    values = {"factor": factor, "exact": exact_ratio, "float": float_ratio}
    values["symbolic"] = bool(symbolic)
    verdict = Verdict.HOLDS if symbolic and exact_ratio == factor**2 == 64 else Verdict.FAILS
    return Finding("blog-variance-factor-64", verdict, values=values)


def variance_factor_reading(exact_ratio: float, factor: float) -> Reading:
    """The measured ratio: ``square`` where it is ``factor`` squared, else ``other``.

    >>> variance_factor_reading(64.0, 8.0)
    Reading(branch='square', values={'factor': 8.0, 'ratio': 64.0})
    """
    values = {"factor": factor, "ratio": exact_ratio}
    if exact_ratio == factor**2:
        return Reading("square", values)
    return Reading("other", {**values, "square": factor**2})


@decided_by(limits.BLOG_PEAK)
def variance_skews_softmax(
    curve: pd.DataFrame, by_keys: pd.DataFrame, marked: Mapping[float, int], peak: float
) -> Finding:
    """``blog-variance-skews-softmax``: does not hold unless the largest probability clearly
    rises at every n and falls on no step (Holm over steps); a caveat where it stays clearly
    below ``peak`` at a ``marked`` spread (Holm over the rows; -> its d).

    >>> variance_skews_softmax(*evidence.example_skew(), {8.0: 64}, 0.95).values["short"]
    [{'n_keys': 64, 'spread': 8.0, 'd': 64}]
    """
    claim = "blog-variance-skews-softmax"
    if len(curve) < 2 or by_keys.empty:
        return Finding(claim, Verdict.UNTESTABLE)
    rows = evidence.marked_rows(by_keys, marked)
    short = rows[evidence.clearly_below(rows, peak, corrected=True)]
    values: dict[str, Any] = {"by_keys": evidence.points_by_keys(by_keys)}
    rising = evidence.rises(curve, by_keys, max(marked), corrected=True)
    if not rising or short.empty:
        return Finding(claim, Verdict.HOLDS if rising else Verdict.FAILS, values=values)
    values["short"] = evidence.marked_records(short, marked)
    return Finding(claim, Verdict.CAVEAT, values=values)


def skew_reading(by_keys: pd.DataFrame, marked: Mapping[float, int], peak: float) -> Reading:
    """Where the mean largest probability reaches ``peak`` at the marked spreads:
    ``everywhere``, ``nowhere`` or ``some`` (not clearly below it, by two standard errors).

    >>> skew_reading(evidence.example_skew()[1], {8.0: 64}, 0.95).values["below"]
    [{'n': 64, 'd': 64}]
    """
    rows = evidence.marked_rows(by_keys, marked)
    below = evidence.clearly_below(rows, peak)
    if below.all() or not below.any():
        branch = "nowhere" if below.any() else "everywhere"
        return Reading(branch, {"peak": peak, "rows": evidence.places(rows, marked)})
    reached, short = evidence.places(rows[~below], marked), evidence.places(rows[below], marked)
    return Reading("some", {"peak": peak, "reached": reached, "below": short})


def _material(table: pd.DataFrame, factor: float, *columns: str) -> bool:
    """Whether some of ``columns`` changes by at least ``factor``, beyond two standard errors."""
    ends = [evidence.extremes(table, column) for column in columns]
    return any(lo > 0 and hi >= factor * lo and not noisy for lo, hi, noisy in ends)


@decided_by(limits.MATERIAL_FACTOR)
def depends_on_n(table: pd.DataFrame, *, material: float = limits.MATERIAL_FACTOR) -> Finding:
    """``bernhard-softmax-depends-on-n`` from a keys table at spread 1: holds if the largest
    probability or the norm changes materially with n relative to uniform, a caveat if absolute.

    >>> depends_on_n(evidence.example_keys()).verdict.value
    'holds'
    """
    sizes = sorted(set(table["n_keys"]))
    claim = "bernhard-softmax-depends-on-n"
    if len(sizes) < 2:
        return Finding(claim, Verdict.UNTESTABLE, values={"sizes": [int(n) for n in sizes]})
    t = table.sort_values("n_keys")
    relative = _material(t, material, "top_over_uniform", "norm_over_uniform")
    absolute = _material(t, material, "max_probability", "jacobian_norm")
    verdict = Verdict.HOLDS if relative else Verdict.CAVEAT if absolute else Verdict.FAILS
    return Finding(claim, verdict, values=evidence.ends(t))


def n_dependence_reading(table: pd.DataFrame) -> Reading:
    """Branch ``ends``: the measures at the smallest and the largest n (``evidence.ends``).

    >>> n_dependence_reading(evidence.example_keys()).values["top_over"]
    (1.45, 24.0)
    """
    return Reading("ends", evidence.ends(table))


def quotation_finding(claim: str, quote: Claim, original: Claim) -> Finding:
    r"""Whether the quotation between double quotes in ``quote`` matches ``original`` word by
    word: a caveat where only words without mathematics (a digit, √, / or ^) differ.

    >>> original = Claim("", "a", "1", "It is big. We scale the dot products by 1/√d_k.", "")
    >>> quote = Claim("", "b", "2", r"Quoting a: “We scale dot products by $\sqrt{d_k}$”.", "")
    >>> quotation_finding("blog-vaswani-quote", quote, original).verdict.value
    'does not hold'
    """
    quoted = re.search(r'["“]([^"”]+)["”]', quote.quote)
    if quoted is None:
        raise ParameterError(f"claim {claim} holds no quotation between double quotes")
    changes = evidence.quotation_changes(quoted.group(1), original.quote)
    words = [r["was"] + r["now"] for change in changes for rs in change.values() for r in rs]
    math_changed = any(re.search(r"[\d√/^]", w) for w in words)
    verdict = Verdict.FAILS if math_changed else Verdict.CAVEAT if changes else Verdict.HOLDS
    return Finding(claim, verdict, values={"changes": changes})


def softmax_axis_finding(logits: np.ndarray) -> Finding:
    """``chuang-softmax-columns`` on a square matrix of logits: does not hold where his column
    softmax differs from the softmax over the last dimension, not testable where it cannot.

    >>> softmax_axis_finding(np.arange(9.0).reshape(3, 3)).verdict.value
    'does not hold'
    """
    values = evidence.softmax_axes(logits)
    verdict = Verdict.UNTESTABLE if values["gap"] <= 1e-12 else Verdict.FAILS
    return Finding("chuang-softmax-columns", verdict, values=values)
