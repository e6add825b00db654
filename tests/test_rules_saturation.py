"""The softmax-saturation rules reach every verdict, and their sentences follow the numbers."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from attncore.claims import Verdict
from attncore.claims.catalogue import CLAIMS, Claim
from attncore.claims.rules import saturation as rules
from attncore.simulate.saturation import JacobianLandmarks, jacobian_landmarks, saturation_curve
from attncore.softmax import FLOAT_FORMATS, exp_overflow_bound

ALL_MATCH = {
    "softmax(y)": True,
    "softmax(8y)": True,
    "Jacobian of softmax(y)": True,
    "Jacobian of softmax(8y)": True,
}


# --- the worked example -------------------------------------------------------------------


def test_worked_example_holds_when_every_digit_matches():
    findings = rules.worked_example_findings(ALL_MATCH)
    assert {f.claim: f.verdict for f in findings} == {
        "blog-softmax-example": Verdict.HOLDS,
        "blog-jacobian-example": Verdict.HOLDS,
    }
    assert rules.worked_example_sentence(ALL_MATCH) == (
        "Every printed digit of the post is reproduced."
    )


def test_worked_example_does_not_hold_where_a_digit_differs():
    matches = {**ALL_MATCH, "softmax(8y)": False}
    verdicts = {f.claim: f.verdict for f in rules.worked_example_findings(matches)}
    assert verdicts == {
        "blog-softmax-example": Verdict.FAILS,
        "blog-jacobian-example": Verdict.HOLDS,
    }
    sentence = rules.worked_example_sentence(matches)
    assert sentence == "Mismatch with the post in: softmax(8y)."


def test_other_inputs_record_nothing_and_say_so():
    assert rules.worked_example_findings(None) == []
    sentence = rules.worked_example_sentence(None)
    assert "other inputs" in sentence and "no verdict" in sentence


@pytest.mark.parametrize(
    ("norms", "tops", "verb"),
    [((0.43, 0.08), (0.37, 0.95), "shrinks"), ((0.08, 0.43), (0.95, 0.37), "grows")],
)
def test_scaling_sentence_follows_the_direction(norms, tops, verb):
    sentence = rules.scaling_sentence(*norms, *tops, factor=8.0)
    assert f"{verb} the Frobenius norm" in sentence
    assert ("raises" if tops[1] > tops[0] else "lowers") in sentence
    assert "by a factor of 5.4" in sentence


def test_scaling_sentence_with_an_unchanged_norm():
    sentence = rules.scaling_sentence(0.5, 0.5, 0.5, 0.5, factor=1.0)
    assert sentence.endswith(
        "keeps the largest probability from 0.500 to 0.500 and leaves the "
        "Frobenius norm of the Jacobian at 0.500."
    )


# --- overflow ------------------------------------------------------------------------------


def test_overflow_caveat_with_the_measured_formats():
    bounds = {name: exp_overflow_bound(name) for name in FLOAT_FORMATS}
    finding = rules.overflow_finding(bounds)
    assert finding.verdict is Verdict.CAVEAT
    assert "not in float32, bfloat16, float16" in finding.measured
    sentence = rules.overflow_sentence(bounds)
    assert "float32 and bfloat16 overflow above 88.72" in sentence
    assert "float16 overflows above 11.09" in sentence


def test_overflow_holds_in_double_precision_alone():
    finding = rules.overflow_finding({"float64": exp_overflow_bound("float64")})
    assert finding.verdict is Verdict.HOLDS
    assert rules.overflow_sentence({"float64": 709.78}) == (
        "His 709 is the bound of double precision."
    )


def test_overflow_does_not_hold_if_double_precision_differs():
    assert rules.overflow_finding({"float64": 88.72}).verdict is Verdict.FAILS
    assert rules.overflow_sentence({"float64": 88.72}).startswith(
        "His 709 is the bound of none of the measured formats"
    )


def test_overflow_not_testable_without_double_precision():
    assert rules.overflow_finding({"float16": 11.09}).verdict is Verdict.UNTESTABLE


# --- shift invariance -----------------------------------------------------------------------


def shift_frame(differences, naive_finite=(True, False)):
    return pd.DataFrame(
        {
            "shift": [1.0, 750.0],
            "largest_difference": differences,
            "rounding": [2e-16, 1e-13],
            "naive_finite": list(naive_finite),
        }
    )


def test_shift_invariance_holds_within_rounding():
    table = shift_frame([1e-16, 3e-13])
    assert rules.shift_finding(table, 10, 8).verdict is Verdict.HOLDS
    sentence = rules.shift_sentence(table)
    assert "agree to within the rounding" in sentence and "NaN for the shift 750." in sentence


def test_shift_invariance_fails_beyond_rounding():
    table = shift_frame([1e-16, 1e-6], naive_finite=(True, True))
    assert rules.shift_finding(table, 10, 8).verdict is Verdict.FAILS
    sentence = rules.shift_sentence(table)
    assert "differ by more than the rounding" in sentence and "shift 750." in sentence
    assert "stays finite" in sentence


def test_shift_invariance_untestable_without_shifts():
    empty = shift_frame([0.0, 0.0]).iloc[:0]
    assert rules.shift_finding(empty, 10, 8).verdict is Verdict.UNTESTABLE


# --- peaked rows have small derivatives -------------------------------------------------------

MARKS = JacobianLandmarks(
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


def verdict(marks, ratio=0.19, level=0.9):
    return rules.peaked_small_derivatives(marks, example_ratio=ratio, peaked_level=level).verdict


def test_peaked_holds_when_the_norm_falls_as_far_as_in_the_blog():
    assert verdict(MARKS) is Verdict.HOLDS


def test_peaked_holds_within_standard_errors_of_the_yardstick():
    # 0.06 is above 0.19 * 0.30 = 0.057, but not by two standard errors
    assert verdict(replace(MARKS, peaked_norm=0.06, peaked_norm_se=0.003)) is Verdict.HOLDS


def test_peaked_caveat_when_it_falls_less_than_in_the_blog():
    marks = replace(MARKS, peaked_spread=20.0, peaked_max_probability=0.92, peaked_norm=0.10)
    finding = rules.peaked_small_derivatives(marks, example_ratio=0.19, peaked_level=0.9)
    assert finding.verdict is Verdict.CAVEAT
    assert "two largest logits are close" in finding.measured


def test_peaked_does_not_hold_when_the_norm_does_not_fall():
    flat = replace(MARKS, peaked_norm=0.297, peaked_norm_se=0.002)
    assert verdict(flat) is Verdict.FAILS
    rising = replace(MARKS, peak_spread=100.0, peaked_norm=0.30)  # the peak is the last point
    assert verdict(rising) is Verdict.FAILS


def test_peaked_not_testable_when_no_rows_are_peaked():
    marks = replace(MARKS, peaked_spread=10.0, peaked_max_probability=0.83, peaked_norm=0.18)
    finding = rules.peaked_small_derivatives(marks, example_ratio=0.19, peaked_level=0.9)
    assert finding.verdict is Verdict.UNTESTABLE
    assert "no spread of the grid makes rows peaked" in finding.measured


@pytest.mark.parametrize(
    ("spread_max", "expected"),
    [(100.0, Verdict.HOLDS), (20.0, Verdict.CAVEAT), (8.0, Verdict.UNTESTABLE)],
)
def test_peaked_rule_on_simulated_curves(spread_max, expected):
    curve = saturation_curve(np.geomspace(0.1, spread_max, 25), n_keys=64, n_rows=400, seed=5)
    marks = jacobian_landmarks(curve, n_keys=64)
    assert verdict(marks) is expected


# --- sentences on the curve --------------------------------------------------------------------


def test_peak_sentence_above_and_not_above_uniform():
    assert "above the value for uniform attention" in rules.peak_sentence(MARKS, 64)
    flat = replace(MARKS, peak_spread=0.01, peak_norm=0.124)
    assert "no higher than the value for uniform" in rules.peak_sentence(flat, 64)
    edge = replace(MARKS, peak_spread=100.0)
    assert "the grid ends before the norm starts to fall" in rules.peak_sentence(edge, 64)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, ("below half its peak from a spread of about 15.8", "a slow decline")),
        ({"tail_slope": -3.0}, ("below half", "a steep decline")),
        ({"spread_at_half": math.nan}, ("stays above half its peak", "falls like a power")),
        ({"tail_slope": 0.5, "tail_slope_se": 0.1}, ("below half", "it rises")),
        ({"tail_slope": -0.01, "tail_slope_se": 0.1}, ("below half", "it is flat")),
        ({"peak_spread": 100.0, "tail_slope": math.nan}, ("shows no decline", "too few")),
    ],
)
def test_decline_sentence_follows_the_numbers(changes, expected):
    sentence = rules.decline_sentence(replace(MARKS, **changes))
    assert all(part in sentence for part in expected), sentence


@pytest.mark.parametrize(
    ("norms", "ending"),
    [
        ((0.24, 0.09), "the larger d, the smaller the gradient"),
        ((0.09, 0.24), "the larger d, the larger the gradient"),
        ((0.24, 0.2399), "does not change consistently"),
    ],
)
def test_unscaled_sentence_follows_the_numbers(norms, ending):
    marked = pd.DataFrame(
        {"jacobian_norm": norms, "jacobian_norm_se": [0.002] * 2, "max_probability": [0.7, 0.9]},
        index=[64, 512],
    )
    assert ending in rules.unscaled_sentence(marked, peak_norm=0.3)


# --- the Jacobian formula -------------------------------------------------------------------

AGREEMENT = {
    "rows": 40,
    "keys": 4,
    "largest_difference": 1e-16,
    "rounding": 9e-16,
    "symbolic": True,
}


def test_jacobian_formula_holds_to_rounding():
    finding = rules.jacobian_formula(AGREEMENT)
    assert finding.verdict is Verdict.HOLDS
    assert "agrees with it to rounding" in rules.jacobian_formula_sentence(AGREEMENT)


@pytest.mark.parametrize(
    "change", [{"largest_difference": 1e-3}, {"symbolic": False}], ids=["numeric", "symbolic"]
)
def test_jacobian_formula_does_not_hold_if_either_check_fails(change):
    agreement = {**AGREEMENT, **change}
    assert rules.jacobian_formula(agreement).verdict is Verdict.FAILS
    sentence = rules.jacobian_formula_sentence(agreement)
    assert ("more than rounding" in sentence) or ("is not diag" in sentence)


def test_jacobian_formula_on_a_real_measurement():
    from attncore.simulate.saturation import jacobian_agreement

    agreement = jacobian_agreement(10, 6, [0.1, 30.0], seed=3)
    assert rules.jacobian_formula(agreement).verdict is Verdict.HOLDS


# --- the variance factor --------------------------------------------------------------------


def test_variance_factor_holds_for_exactly_64():
    assert rules.variance_factor(64.0, 64.0, 8.0, True).verdict is Verdict.HOLDS
    assert "exactly 64" in rules.variance_factor_sentence(64.0, 8.0)


@pytest.mark.parametrize(
    "args", [(63.0, 63.0, 8.0, True), (64.0, 64.0, 8.0, False), (49.0, 49.0, 7.0, True)]
)
def test_variance_factor_does_not_hold_otherwise(args):
    assert rules.variance_factor(*args).verdict is Verdict.FAILS


def test_variance_factor_sentence_names_a_wrong_ratio():
    assert rules.variance_factor_sentence(63.0, 8.0).endswith("63, not 8² = 64.")


# --- the variance skews the softmax ---------------------------------------------------------

MARKED = {8.0: 64, 22.6: 512}


def keys(values: dict[int, list[float]], se: float = 0.005) -> pd.DataFrame:
    """A keys table at the spreads 1, 8 and 22.6 with the given mean largest probabilities."""
    rows = [
        {"n_keys": n, "spread": s, "max_probability": p, "max_probability_se": se}
        for n, ps in values.items()
        for s, p in zip([1.0, 8.0, 22.6], ps, strict=True)
    ]
    return pd.DataFrame(rows)


def rising_curve(values=(0.2, 0.6, 0.99)) -> pd.DataFrame:
    return pd.DataFrame(
        {"spread": [1.0, 10.0, 100.0], "max_probability": values, "max_probability_se": [0.005] * 3}
    )


def test_skews_holds_when_every_marked_row_is_as_peaked_as_the_post():
    table = keys({4: [0.5, 0.97, 0.99], 16: [0.3, 0.96, 0.98]})
    finding = rules.variance_skews_softmax(rising_curve(), table, MARKED, peak=0.95)
    assert finding.verdict is Verdict.HOLDS
    assert "everywhere measured" in rules.skew_sentence(table, MARKED, 0.95)


def test_skews_caveat_when_many_keys_stay_below_the_post():
    table = keys({4: [0.5, 0.97, 0.99], 1024: [0.02, 0.67, 0.88]})
    finding = rules.variance_skews_softmax(rising_curve(), table, MARKED, peak=0.95)
    assert finding.verdict is Verdict.CAVEAT
    assert "n = 1024 at spread 8 (d = 64)" in finding.measured
    sentence = rules.skew_sentence(table, MARKED, 0.95)
    assert "reaches the post's 0.95 for n = 4 at d = 64" in sentence
    assert "below it for n = 1024 at d = 64, n = 1024 at d = 512" in sentence


def test_skews_sentence_when_no_marked_row_is_peaked_enough():
    table = keys({1024: [0.02, 0.67, 0.88]})
    assert "stays clearly below" in rules.skew_sentence(table, MARKED, 0.95)


def test_skews_within_standard_errors_of_the_level_counts_as_reached():
    table = keys({4: [0.5, 0.945, 0.96]}, se=0.01)
    finding = rules.variance_skews_softmax(rising_curve(), table, MARKED, peak=0.95)
    assert finding.verdict is Verdict.HOLDS


@pytest.mark.parametrize(
    ("curve", "table"),
    [
        (rising_curve((0.2, 0.9, 0.5)), keys({4: [0.5, 0.97, 0.99]})),
        (rising_curve(), keys({4: [0.5, 0.5, 0.5]})),
    ],
    ids=["curve-falls", "no-rise-for-some-n"],
)
def test_skews_does_not_hold_when_the_largest_probability_does_not_rise(curve, table):
    finding = rules.variance_skews_softmax(curve, table, MARKED, peak=0.95)
    assert finding.verdict is Verdict.FAILS


def test_skews_rule_on_simulated_rows():
    from attncore.simulate.saturation import keys_table

    marked = {float(np.sqrt(64)): 64, float(np.sqrt(512)): 512}
    curve = saturation_curve(np.geomspace(0.1, 30, 9), n_keys=8, n_rows=300, seed=0)
    few = keys_table([2], [1.0, *marked], n_rows=2000, seed=0)
    many = keys_table([2, 1024], [1.0, *marked], n_rows=300, seed=0)
    assert rules.variance_skews_softmax(curve, few, marked, 0.95).verdict is Verdict.HOLDS
    assert rules.variance_skews_softmax(curve, many, marked, 0.95).verdict is Verdict.CAVEAT


# --- the number of keys ---------------------------------------------------------------------


def at_unit(top_over: list[float], norm_over: list[float], sizes=(2, 4096)) -> pd.DataFrame:
    """A keys table at spread 1 with the given measures relative to uniform attention."""
    n = np.asarray(sizes, dtype=float)
    uniform = np.sqrt(n - 1) / n
    return pd.DataFrame(
        {
            "n_keys": list(sizes),
            "spread": 1.0,
            "max_probability": np.asarray(top_over) / n,
            "max_probability_se": 0.001 / n,
            "top_over_uniform": top_over,
            "top_over_uniform_se": 0.001,
            "jacobian_norm": np.asarray(norm_over) * uniform,
            "jacobian_norm_se": 0.001 * uniform,
            "norm_over_uniform": norm_over,
            "norm_over_uniform_se": 0.001,
            "entropy_ratio": [0.78, 0.94][: len(sizes)],
        }
    )


def test_depends_on_n_holds_when_the_rows_change_relative_to_uniform():
    table = at_unit([1.45, 24.0], [0.73, 1.64])
    assert rules.depends_on_n(table).verdict is Verdict.HOLDS
    sentence = rules.n_dependence_sentence(table)
    assert "from n = 2 to n = 4096 keys" in sentence and "from 1.45 to 24 times" in sentence


def test_depends_on_n_caveat_when_only_the_uniform_scale_changes():
    finding = rules.depends_on_n(at_unit([1.5, 1.6], [1.0, 1.1]))
    assert finding.verdict is Verdict.CAVEAT
    assert "relative to uniform attention the rows change little" in finding.measured


def test_depends_on_n_does_not_hold_when_nothing_changes():
    table = at_unit([1.5, 1.6], [1.0, 1.1], sizes=(64, 65))
    assert rules.depends_on_n(table).verdict is Verdict.FAILS


def test_depends_on_n_needs_a_material_change_beyond_noise():
    table = at_unit([1.0, 2.5], [1.0, 1.0], sizes=(64, 65))
    # a factor of 2.5, but within two standard errors, relative to uniform and in absolute terms
    table["top_over_uniform_se"] = 1.0
    table["max_probability_se"] = 1.0 / 64
    assert rules.depends_on_n(table).verdict is Verdict.FAILS


def test_depends_on_n_not_testable_with_one_n():
    table = at_unit([1.5, 1.5], [1.0, 1.0], sizes=(64, 64))
    finding = rules.depends_on_n(table)
    assert finding.verdict is Verdict.UNTESTABLE and "only n = 64" in finding.measured


def test_depends_on_n_on_simulated_rows():
    from attncore.simulate.saturation import keys_table

    table = keys_table([2, 4096], [1.0], n_rows=200, seed=0)
    assert rules.depends_on_n(table).verdict is Verdict.HOLDS


def test_quotation_finding_reaches_every_outcome():
    original = Claim("", "a", "1", "Intro. To counteract this, we scale the products by 1/√d.", "")

    def judged(text):
        quote = Claim("", "b", "2", text, "")
        return rules.quotation_finding("blog-vaswani-quote", quote, original)

    assert judged('"To counteract this, we scale the products by 1/√d".').verdict is Verdict.HOLDS
    assert judged('"To counter this, we scale the products by 1/√d".').verdict is Verdict.CAVEAT
    assert judged('"To counteract this, we scale the products by √d".').verdict is Verdict.FAILS
    blog = rules.quotation_finding(
        "blog-vaswani-quote", CLAIMS["blog-vaswani-quote"], CLAIMS["vaswani-small-gradients"]
    )
    assert blog.verdict is Verdict.FAILS and "“1/√d_k”" in blog.measured
