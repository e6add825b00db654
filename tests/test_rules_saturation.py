"""The softmax-saturation rules reach every verdict, and their readings follow the numbers."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from drivers import Branches, C, Drivers, F, H, U

from attncore.claims import Finding, Verdict
from attncore.claims.catalogue import CLAIMS, Claim
from attncore.claims.rules import saturation as rules
from attncore.evidence import saturation as evidence
from attncore.evidence.saturation import example_landmarks
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
    assert rules.worked_example_reading(ALL_MATCH).branch == "all-match"


def test_worked_example_does_not_hold_where_a_digit_differs():
    matches = {**ALL_MATCH, "softmax(8y)": False}
    verdicts = {f.claim: f.verdict for f in rules.worked_example_findings(matches)}
    assert verdicts == {
        "blog-softmax-example": Verdict.FAILS,
        "blog-jacobian-example": Verdict.HOLDS,
    }
    reading = rules.worked_example_reading(matches)
    assert reading.branch == "mismatch" and reading.values == {"mismatched": ["softmax(8y)"]}


def test_other_inputs_record_nothing_and_say_so():
    assert rules.worked_example_findings(None) == []
    assert rules.worked_example_reading(None).branch == "other-inputs"


@pytest.mark.parametrize(
    ("norms", "tops", "verb"),
    [((0.43, 0.08), (0.37, 0.95), "shrinks"), ((0.08, 0.43), (0.95, 0.37), "grows")],
)
def test_scaling_reading_follows_the_direction(norms, tops, verb):
    reading = rules.scaling_reading(*norms, *tops, factor=8.0)
    assert reading.branch == verb
    assert reading.values["direction"] == (["up"] if tops[1] > tops[0] else ["down"])
    assert round(reading.values["ratio"], 1) == 5.4


def test_scaling_reading_with_an_unchanged_norm():
    reading = rules.scaling_reading(0.5, 0.5, 0.5, 0.5, factor=1.0)
    assert reading.branch == "same" and reading.values["direction"] == ["level"]
    assert reading.values["norm"] == 0.5 and reading.values["top"] == (0.5, 0.5)


# --- overflow ------------------------------------------------------------------------------


def test_overflow_caveat_with_the_measured_formats():
    bounds = {name: exp_overflow_bound(name) for name in FLOAT_FORMATS}
    finding = rules.overflow_finding(bounds)
    assert finding.verdict is Verdict.CAVEAT
    assert finding.values["others"] == ["float32", "bfloat16", "float16"]
    reading = rules.overflow_reading(bounds)
    assert reading.branch == "double"
    groups = [(g["formats"], round(g["bound"], 2), g["one"]) for g in reading.values["groups"]]
    assert groups == [(["float32", "bfloat16"], 88.72, False), (["float16"], 11.09, True)]


def test_overflow_holds_in_double_precision_alone():
    finding = rules.overflow_finding({"float64": exp_overflow_bound("float64")})
    assert finding.verdict is Verdict.HOLDS
    assert rules.overflow_reading({"float64": 709.78}).branch == "double-only"


def test_overflow_does_not_hold_if_double_precision_differs():
    assert rules.overflow_finding({"float64": 88.72}).verdict is Verdict.FAILS
    assert rules.overflow_reading({"float64": 88.72}).branch == "none"


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
    agreement, naive = rules.shift_readings(table)
    assert (agreement.branch, naive.branch) == ("agree", "nan-once")
    assert naive.values == {"shifts": [750.0]}


def test_shift_invariance_fails_beyond_rounding():
    table = shift_frame([1e-16, 1e-6], naive_finite=(True, True))
    assert rules.shift_finding(table, 10, 8).verdict is Verdict.FAILS
    agreement, naive = rules.shift_readings(table)
    assert (agreement.branch, naive.branch) == ("differs-once", "finite")
    assert agreement.values == {"shifts": [750.0]}


def test_shift_invariance_untestable_without_shifts():
    empty = shift_frame([0.0, 0.0]).iloc[:0]
    assert rules.shift_finding(empty, 10, 8).verdict is Verdict.UNTESTABLE


# --- peaked rows have small derivatives -------------------------------------------------------

MARKS = JacobianLandmarks(**vars(example_landmarks()))
"""The example curve of the rules' docstrings, as the simulation returns it."""


def peaked(marks: JacobianLandmarks, rows: int = 4000) -> Finding:
    return rules.peaked_small_derivatives(marks, example_ratio=0.19, peaked_level=0.9, rows=rows)


def test_peaked_holds_when_the_norm_falls_as_far_as_in_the_blog():
    assert peaked(MARKS).verdict is Verdict.HOLDS


def test_peaked_holds_within_standard_errors_of_the_yardstick():
    # 0.06 is above 0.19 * 0.30 = 0.057, but not by two standard errors
    assert peaked(replace(MARKS, peaked_norm=0.06, peaked_norm_se=0.003)).verdict is Verdict.HOLDS


def test_peaked_caveat_when_it_falls_less_than_in_the_blog():
    marks = replace(MARKS, peaked_spread=20.0, peaked_max_probability=0.92, peaked_norm=0.10)
    finding = peaked(marks)
    assert finding.verdict is Verdict.CAVEAT and finding.branch == "caveat"
    assert finding.values["peaked_p"] == 0.92


def test_peaked_does_not_hold_when_the_norm_does_not_fall():
    rising = replace(MARKS, peak_spread=100.0, peaked_norm=0.30)  # the peak is the last point
    finding = peaked(rising)
    assert finding.verdict is Verdict.FAILS and finding.values["share"] == 1.0
    higher = replace(MARKS, peaked_norm=0.32)  # clearly above the "peak": inconsistent marks
    assert peaked(higher).verdict is Verdict.FAILS


def test_peaked_cannot_tell_when_the_fall_is_within_the_noise():
    flat = replace(MARKS, peaked_norm=0.297, peaked_norm_se=0.002)
    finding = peaked(flat)
    assert finding.verdict is Verdict.UNTESTABLE and finding.branch == "cannot-tell"
    assert finding.values["rows"] == 4000


def test_peaked_asks_a_t_test_of_the_fall_over_few_rows():
    # a fall of 2.2 standard errors is clear over 4000 rows, not over 10 (t quantile 2.32)
    fall = 2.2 * math.hypot(MARKS.peak_norm_se, MARKS.peaked_norm_se)
    marks = replace(MARKS, peaked_norm=MARKS.peak_norm - fall)
    assert peaked(marks, rows=4000).verdict is Verdict.CAVEAT
    assert peaked(marks, rows=10).branch == "cannot-tell"


def test_peaked_not_testable_when_no_rows_are_peaked():
    marks = replace(MARKS, peaked_spread=10.0, peaked_max_probability=0.83, peaked_norm=0.18)
    finding = peaked(marks)
    assert finding.verdict is Verdict.UNTESTABLE
    assert finding.branch == "untestable" and finding.values["peaked_p"] == 0.83


@pytest.mark.parametrize(
    ("spread_max", "expected"),
    [(100.0, Verdict.HOLDS), (20.0, Verdict.CAVEAT), (8.0, Verdict.UNTESTABLE)],
)
def test_peaked_rule_on_simulated_curves(spread_max, expected):
    curve = saturation_curve(np.geomspace(0.1, spread_max, 25), n_keys=64, n_rows=400, seed=5)
    marks = jacobian_landmarks(curve, n_keys=64)
    assert peaked(marks, rows=400).verdict is expected


# --- readings of the curve ---------------------------------------------------------------------


def test_peak_reading_above_and_not_above_uniform():
    assert rules.peak_reading(MARKS, 64).branch == "above"
    flat = replace(MARKS, peak_spread=0.01, peak_norm=0.124)
    assert rules.peak_reading(flat, 64).branch == "not-above"
    edge = replace(MARKS, peak_spread=100.0)
    assert rules.peak_reading(edge, 64).branch == "edge"


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, ("half", "falls-one-seed", False)),
        ({"tail_slope": -3.0}, ("half", "falls-one-seed", True)),
        ({"spread_at_half": math.nan}, ("above-half", "falls-one-seed", False)),
        ({"tail_slope": 0.5, "tail_slope_se": 0.1}, ("half", "rises-one-seed", None)),
        ({"tail_slope": -0.01, "tail_slope_se": 0.1}, ("half", "flat-one-seed", None)),
        ({"peak_spread": 100.0, "tail_slope": math.nan}, ("no-decline", "too-few", None)),
    ],
)
def test_decline_readings_follow_the_numbers(changes, expected):
    head, tail = rules.decline_readings(replace(MARKS, **changes))
    assert (head.branch, tail.branch, tail.values.get("steep")) == expected


def test_decline_over_seeds_gives_their_mean_and_spread():
    _, tail = rules.decline_readings(MARKS, [-0.9, -0.92, -0.91, math.nan])
    assert tail.branch == "falls" and tail.values["seeds"] == 3
    assert math.isclose(tail.values["slope"], -0.91) and math.isclose(tail.values["error"], 0.01)


@pytest.mark.parametrize(
    ("norms", "ending"),
    [((0.24, 0.09), "smaller"), ((0.09, 0.24), "larger"), ((0.24, 0.2399), "inconsistent")],
)
def test_unscaled_reading_follows_the_numbers(norms, ending):
    marked = pd.DataFrame(
        {"jacobian_norm": norms, "jacobian_norm_se": [0.002] * 2, "max_probability": [0.7, 0.9]},
        index=[64, 512],
    )
    reading = rules.unscaled_reading(marked, peak_norm=0.3)
    assert reading.branch == ending
    assert [(row["d"], round(row["share"])) for row in reading.values["rows"]] == [
        (64, round(100 * norms[0] / 0.3)),
        (512, round(100 * norms[1] / 0.3)),
    ]


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
    reading = rules.jacobian_formula_reading(AGREEMENT)
    assert reading.values["numeric"] and reading.values["symbolic"]


@pytest.mark.parametrize(
    "change", [{"largest_difference": 1e-3}, {"symbolic": False}], ids=["numeric", "symbolic"]
)
def test_jacobian_formula_does_not_hold_if_either_check_fails(change):
    agreement = {**AGREEMENT, **change}
    assert rules.jacobian_formula(agreement).verdict is Verdict.FAILS
    values = rules.jacobian_formula_reading(agreement).values
    assert not (values["numeric"] and values["symbolic"])


def test_jacobian_formula_on_a_real_measurement():
    from attncore.simulate.saturation import jacobian_agreement

    agreement = jacobian_agreement(10, 6, [0.1, 30.0], seed=3)
    assert rules.jacobian_formula(agreement).verdict is Verdict.HOLDS


# --- the variance factor --------------------------------------------------------------------


def test_variance_factor_holds_for_exactly_64():
    assert rules.variance_factor(64.0, 64.0, 8.0, True).verdict is Verdict.HOLDS
    assert rules.variance_factor_reading(64.0, 8.0).branch == "square"


@pytest.mark.parametrize(
    "args", [(63.0, 63.0, 8.0, True), (64.0, 64.0, 8.0, False), (49.0, 49.0, 7.0, True)]
)
def test_variance_factor_does_not_hold_otherwise(args):
    assert rules.variance_factor(*args).verdict is Verdict.FAILS


def test_variance_factor_reading_names_a_wrong_ratio():
    reading = rules.variance_factor_reading(63.0, 8.0)
    assert reading.branch == "other" and reading.values["square"] == 64.0


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
    assert rules.skew_reading(table, MARKED, 0.95).branch == "everywhere"


def test_skews_caveat_when_many_keys_stay_below_the_post():
    table = keys({4: [0.5, 0.97, 0.99], 1024: [0.02, 0.67, 0.88]})
    finding = rules.variance_skews_softmax(rising_curve(), table, MARKED, peak=0.95)
    assert finding.verdict is Verdict.CAVEAT
    assert {"n_keys": 1024, "spread": 8.0, "d": 64} in finding.values["short"]
    reading = rules.skew_reading(table, MARKED, 0.95)
    assert reading.branch == "some"
    assert reading.values["reached"] == [{"n": 4, "d": 64}, {"n": 4, "d": 512}]
    assert reading.values["below"] == [{"n": 1024, "d": 64}, {"n": 1024, "d": 512}]


def test_skews_reading_when_no_marked_row_is_peaked_enough():
    table = keys({1024: [0.02, 0.67, 0.88]})
    assert rules.skew_reading(table, MARKED, 0.95).branch == "nowhere"


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
    values = rules.n_dependence_reading(table).values
    assert (values["first"], values["last"], values["top_over"]) == (2, 4096, (1.45, 24.0))


def test_depends_on_n_caveat_when_only_the_uniform_scale_changes():
    finding = rules.depends_on_n(at_unit([1.5, 1.6], [1.0, 1.1]))
    assert finding.verdict is Verdict.CAVEAT and finding.branch == "caveat"


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
    assert finding.verdict is Verdict.UNTESTABLE and finding.values == {"sizes": [64]}


def test_depends_on_n_on_simulated_rows():
    from attncore.simulate.saturation import keys_table

    table = keys_table([2, 4096], [1.0], n_rows=200, seed=0)
    assert rules.depends_on_n(table).verdict is Verdict.HOLDS


# --- the quotation ----------------------------------------------------------------------------

ORIGINAL = Claim("", "a", "1", "Intro. To counteract this, we scale the products by 1/√d.", "")
VERBATIM = '"To counteract this, we scale the products by 1/√d".'
REWORDED = '"To counter this, we scale the products by 1/√d".'
ALTERED = '"To counteract this, we scale the products by √d".'
"""Quotes of :data:`ORIGINAL`'s second sentence: word for word, with a word changed, with the
formula changed."""


def quotation(text: str) -> Finding:
    return rules.quotation_finding("blog-vaswani-quote", Claim("", "b", "2", text, ""), ORIGINAL)


def test_quotation_finding_reaches_every_outcome():
    assert quotation(VERBATIM).verdict is Verdict.HOLDS
    assert quotation(REWORDED).verdict is Verdict.CAVEAT
    assert quotation(ALTERED).verdict is Verdict.FAILS
    blog = rules.quotation_finding(
        "blog-vaswani-quote", CLAIMS["blog-vaswani-quote"], CLAIMS["vaswani-small-gradients"]
    )
    assert blog.verdict is Verdict.FAILS
    replaced = [r for change in blog.values["changes"] for r in change["replaced"]]
    assert any(r["was"] == "1/√d_k" for r in replaced)


# --- reachability drivers ---------------------------------------------------------------------

NONE_MATCH = dict.fromkeys(ALL_MATCH, False)
FEW_KEYS = {4: [0.5, 0.97, 0.99]}
"""Four keys, as peaked as the post at both marked spreads."""


def skews(curve: pd.DataFrame, values: dict[int, list[float]]) -> Finding:
    return rules.variance_skews_softmax(curve, keys(values), MARKED, peak=0.95)


DRIVERS: Drivers = {
    "blog-softmax-example": {
        H: lambda: rules.worked_example_findings(ALL_MATCH)[0],
        F: lambda: rules.worked_example_findings(NONE_MATCH)[0],
    },
    "blog-jacobian-example": {
        H: lambda: rules.worked_example_findings(ALL_MATCH)[1],
        F: lambda: rules.worked_example_findings(NONE_MATCH)[1],
    },
    "blog-peaked-small-derivatives": {
        H: lambda: peaked(MARKS),
        C: lambda: peaked(replace(MARKS, peaked_norm=0.2)),
        F: lambda: peaked(replace(MARKS, peak_spread=100.0, peaked_norm=0.3)),
        U: lambda: peaked(replace(MARKS, peaked_max_probability=0.5)),
    },
    "blog-jacobian-formula": {
        H: lambda: rules.jacobian_formula(AGREEMENT),
        F: lambda: rules.jacobian_formula({**AGREEMENT, "symbolic": False}),
    },
    "blog-variance-skews-softmax": {
        H: lambda: skews(rising_curve(), FEW_KEYS),
        C: lambda: skews(rising_curve(), {**FEW_KEYS, 1024: [0.02, 0.67, 0.88]}),
        F: lambda: skews(rising_curve((0.2, 0.9, 0.5)), FEW_KEYS),
        U: lambda: skews(rising_curve().iloc[:1], FEW_KEYS),
    },
    "blog-variance-factor-64": {
        H: lambda: rules.variance_factor(64.0, 64.0, 8.0, True),
        F: lambda: rules.variance_factor(64.0, 64.0, 8.0, False),
    },
    "bernhard-softmax-depends-on-n": {
        H: lambda: rules.depends_on_n(at_unit([1.45, 24.0], [0.73, 1.64])),
        C: lambda: rules.depends_on_n(at_unit([1.5, 1.6], [1.0, 1.1])),
        F: lambda: rules.depends_on_n(at_unit([1.5, 1.6], [1.0, 1.1], sizes=(64, 65))),
        U: lambda: rules.depends_on_n(at_unit([1.5, 1.5], [1.0, 1.0], sizes=(64, 64))),
    },
    "chuang-shift-invariance": {
        H: lambda: rules.shift_finding(shift_frame([1e-16, 3e-13]), 10, 8),
        F: lambda: rules.shift_finding(shift_frame([1e-16, 1e-6]), 10, 8),
        U: lambda: rules.shift_finding(shift_frame([0.0, 0.0]).iloc[:0], 10, 8),
    },
    "chuang-overflow-709": {
        H: lambda: rules.overflow_finding({"float64": 709.78}),
        C: lambda: rules.overflow_finding({"float64": 709.78, "float16": 11.09}),
        F: lambda: rules.overflow_finding({"float64": 88.7}),
        U: lambda: rules.overflow_finding({"float16": 11.09}),
    },
    "blog-vaswani-quote": {
        H: lambda: quotation(VERBATIM),
        C: lambda: quotation(REWORDED),
        F: lambda: quotation(ALTERED),
    },
    "chuang-softmax-columns": {
        F: lambda: rules.softmax_axis_finding(np.arange(9.0).reshape(3, 3)),
        U: lambda: rules.softmax_axis_finding(np.ones((3, 3))),
    },
}
"""Per claim of the chapter on softmax saturation: for each verdict its rule can return, an
input that returns it (collected by ``tests/test_reachability.py``)."""

BRANCHES: Branches = {
    "blog-peaked-small-derivatives": {
        "cannot-tell": lambda: peaked(replace(MARKS, peaked_norm=0.297, peaked_norm_se=0.002)),
    },
}
"""Per claim of the same chapter: for each branch of its rule that no verdict's driver takes,
an input that takes it (a fall the rows cannot tell from none)."""


def test_skews_short_only_after_holm_over_the_rows():
    table = keys({**FEW_KEYS, 16: [0.3, 0.96, 0.95 - 2.15 * 0.005]})
    rows = evidence.marked_rows(table, MARKED)
    assert evidence.clearly_below(rows, 0.95).any()  # clear on its own
    assert skews(rising_curve(), {**FEW_KEYS, 16: [0.3, 0.96, 0.95 - 2.15 * 0.005]}).verdict is (
        Verdict.HOLDS
    )
