"""The verdict rule on Chuang's beta search and the chapter's conclusions, branch by branch."""

import math

import numpy as np
import pandas as pd
import pytest

from attncore.claims import Verdict
from attncore.claims.rules.initialization import (
    aligned_sentence,
    aligned_takeaway,
    beta_search_finding,
    beta_search_sentence,
    blog_unit_variance_finding,
    chuang_standard_init_finding,
    exponent_call,
    fixed_weights_sentence,
    fixed_weights_takeaway,
    init_takeaway,
    miss_shares,
    near_unit,
    rescaling_scale_sentence,
    search_takeaway,
    standard_init_sentence,
    weight_growth_sentence,
)
from attncore.simulate.weights import Slope

BETAS = np.geomspace(0.01, 100, 4001)
VALUES = -((np.log10(BETAS) - np.log10(5.0)) ** 2)  # optimum at 5
CLEAN = {100: [0.01] * 20, 1600: [0.0] * 20}
NOISY = {100: [0.5] * 6 + [0.01] * 14, 1600: [0.0] * 20}


def finding(found=5.0, noisy=CLEAN, values=VALUES):
    value = float(np.interp(np.log10(found), np.log10(BETAS), values))
    return beta_search_finding(BETAS, values, found, value, 19, 0.01, noisy)


def test_holds_when_the_search_finds_the_grid_optimum_and_noise_rarely_misleads_it():
    f = finding()
    assert f.verdict is Verdict.HOLDS
    assert "found β 5.000 vs grid optimum 5.000" in f.measured
    assert "0 % of searches miss by > 0.1 decade with 1600 items" in f.measured


def test_caveat_when_noisy_searches_miss_significantly_often():
    f = finding(noisy=NOISY)
    assert f.verdict is Verdict.CAVEAT
    assert "30 % of searches miss" in f.measured


def test_a_few_misses_among_few_searches_are_within_sampling_error():
    assert finding(noisy={100: [0.5] + [0.0] * 19}).verdict is Verdict.HOLDS


def test_fails_when_the_exact_search_ends_away_from_the_optimum():
    assert finding(found=7.0).verdict is Verdict.FAILS
    assert finding(found=7.0, noisy=NOISY).verdict is Verdict.FAILS


def test_a_flat_objective_accepts_any_beta_as_good_as_the_best():
    flat = np.where(np.abs(np.log10(BETAS / 5.0)) < 0.2, 0.0, VALUES)
    flat[np.argmin(np.abs(BETAS - 5.0))] = 1e-9  # the grid's argmax, on a plateau
    assert finding(found=6.0, values=flat).verdict is Verdict.HOLDS


def test_not_testable_when_the_grid_optimum_is_at_its_edge():
    increasing = np.log(BETAS)
    f = finding(found=100.0, values=increasing)
    assert f.verdict is Verdict.UNTESTABLE
    assert "edge of the grid" in f.measured


def test_exact_objective_alone_when_no_noisy_searches_ran():
    f = finding(noisy={})
    assert f.verdict is Verdict.HOLDS and "noisy" not in f.measured


def test_miss_shares_use_a_one_sided_binomial_test():
    # P(X >= 3 | 10, 0.05) = 0.0115 rejects 5 %, P(X >= 2 | 10, 0.05) = 0.086 does not
    shares = miss_shares({10: [0.2] * 3 + [0.0] * 7, 11: [0.2] * 2 + [0.0] * 9})
    assert shares == {10: (0.3, True), 11: (2 / 11, False)}
    assert miss_shares({100: [0.2] * 5 + [0.0] * 95}) == {100: (0.05, False)}


def test_an_exponent_is_called_the_formulas_only_when_its_fit_pins_it_down():
    assert exponent_call(Slope(2.1, 0.05, 6), 2.0) == "matches"
    assert exponent_call(Slope(2.4, 0.05, 6), 2.0) == "differs"
    assert exponent_call(Slope(2.1, 0.3, 6), 2.0) == "unclear"  # too much scatter
    assert exponent_call(Slope(2.0, float("nan"), 2), 2.0) == "unclear"  # two points
    assert exponent_call(Slope(2.1, 0.05, 3), 2.0) == "unclear"  # one degree of freedom


@pytest.mark.parametrize(
    ("fit", "phrase"),
    [
        (Slope(2.02, 0.03, 6), "as the relaxed formula says"),
        (Slope(1.2, 0.03, 6), "not the 2 of"),
        (Slope(1.8, 0.4, 6), "too loosely fixed to tell"),
        (Slope(1.8, float("nan"), 2), "a line through two growth factors, no spread"),
    ],
)
def test_weight_growth_sentence_follows_the_exponent(fit, phrase):
    sentence = weight_growth_sentence(fit, 9.0, 0.6, 3.0)
    assert phrase in sentence and "60 % of the rows" in sentence
    assert math.isnan(fit.se) or f"± {fit.se:.2f}" in sentence


def test_rescaling_scale_sentence_both_ways():
    flat = rescaling_scale_sentence([0.80, 0.82], 0.99, Slope(1.05, 0.02, 6))
    assert "does not see the weight scale" in flat and "grow linearly with σ_W (" in flat
    assert "stays almost uniform" in flat
    moving = rescaling_scale_sentence([0.5, 0.8], 0.7, Slope(1.6, 0.02, 6))
    assert "moves from 0.50 to 0.80" in moving and "σ_W to the power 1.60 ± 0.02" in moving
    assert "moves away from uniform" in moving


def test_fixed_weights_sentence_both_ways():
    structured = fixed_weights_sentence(0.9, 1.1, 16.0, 0.0, 16)
    assert "scatters around" in structured and "do not determine" in structured
    unstructured = fixed_weights_sentence(1.2, 1.5, 1.3, 1.4, 16)
    assert "does not bracket" in unstructured and "determines the spread here" in unstructured


def test_aligned_sentence_both_ways():
    good = aligned_sentence([0.3, 0.5], [0.95, 0.99], [0.2, 0.5], 16384, 1.2)
    assert "grows with the width" in good and "one-hot" in good
    assert "agrees with its width-independent limit" in good
    bad = aligned_sentence([0.3, 0.5], [0.2, 0.45], [0.2, 0.5], 16384, 6.0)
    assert "does not grow with the width" in bad and "one-hot" not in bad
    mixed = aligned_sentence([0.3, 0.5], [0.4, 0.45], [0.2, -0.5], 16384, 1.0)
    assert "only for some ρ" in mixed
    assert "still 6.0 standard errors" in bad


def test_beta_search_sentence_both_ways():
    clean = beta_search_sentence(4.77, 4.775, 0.01, 5, 19, CLEAN, 18)
    assert "within its tolerance" in clean and "no more than the 5 %" in clean
    noisy = beta_search_sentence(4.0, 4.775, 0.01, 5, 19, NOISY, 18)
    assert "outside its tolerance" in noisy and "noise flips it" in noisy
    assert "30 % with 100 items per evaluation and 0 % with 1600" in noisy
    assert "noisy" not in beta_search_sentence(4.77, 4.775, 0.01, 5, 19, {}, 18)
    one = beta_search_sentence(4.77, 4.775, 0.01, 5, 19, {100: [0.0] * 10}, 18)
    assert "is 0 % with 100 items per evaluation (median" in one


def init_table(
    weight=(0.005, 0.008),
    qk=(0.34, 0.5),
    mean_z=(1.0, 1.0),
    cov_z=(1.0, 1.0),
    corr=(0.001, 0.001),
    default=(True, True),
):
    """A synthetic table of initializer moments, two initializers "a" and "b"."""
    return pd.DataFrame(
        {
            "label": ["a", "b"],
            "default": list(default),
            "weight mean z": list(mean_z),
            "weight variance": list(weight),
            "weight variance SE": [1e-4, 1e-4],
            "Q variance": list(qk),
            "Q variance SE": [0.002, 0.002],
            "K variance": list(qk),
            "K variance SE": [0.002, 0.002],
            "largest |mean z|": list(mean_z),
            "largest |cov z|": list(cov_z),
            "largest |corr|": list(corr),
        }
    )


def test_near_unit_allows_the_tolerance_plus_sampling_error():
    assert near_unit(1.09, 0.0) and not near_unit(1.11, 0.0)
    assert near_unit(1.3, 0.06) and not near_unit(0.5, 0.01)


@pytest.mark.parametrize(
    ("weight", "mean_z", "verdict"),
    [
        ((1.0, 0.98), (0.5, 1.0), Verdict.HOLDS),
        ((1.0, 0.008), (0.5, 1.0), Verdict.CAVEAT),
        ((1.0, 1.0), (0.5, 9.0), Verdict.CAVEAT),  # a nonzero mean is not "zero mean"
        ((0.005, 0.008), (0.5, 1.0), Verdict.FAILS),
    ],
)
def test_blog_unit_variance_branches(weight, mean_z, verdict):
    f = blog_unit_variance_finding(init_table(weight=weight, mean_z=mean_z))
    assert f.verdict is verdict
    assert f.claim == "blog-init-unit-variance" and "(a)" in f.measured


def test_rules_ignore_the_reference_rows_and_need_a_default():
    t = init_table(weight=(1.0, 0.005), default=(False, True))
    assert blog_unit_variance_finding(t).verdict is Verdict.FAILS
    none = init_table(default=(False, False))
    assert blog_unit_variance_finding(none).verdict is Verdict.UNTESTABLE
    assert chuang_standard_init_finding(none).verdict is Verdict.UNTESTABLE
    assert standard_init_sentence(none) == "No library default was measured."


@pytest.mark.parametrize(
    ("qk", "mean_z", "cov_z", "corr", "verdict"),
    [
        ((1.0, 1.02), (1.0, 1.0), (1.0, 1.0), (0.001, 0.001), Verdict.HOLDS),
        ((1.0, 1.02), (1.0, 1.0), (8.0, 1.0), (0.015, 0.001), Verdict.CAVEAT),  # small cov
        ((0.34, 1.0), (1.0, 1.0), (1.0, 1.0), (0.001, 0.001), Verdict.CAVEAT),  # one unit
        ((0.34, 0.5), (1.0, 1.0), (1.0, 1.0), (0.001, 0.001), Verdict.FAILS),  # none unit
        ((1.0, 1.0), (9.0, 1.0), (1.0, 1.0), (0.001, 0.001), Verdict.FAILS),  # nonzero mean
        ((1.0, 1.0), (1.0, 1.0), (30.0, 1.0), (0.3, 0.001), Verdict.FAILS),  # correlated
    ],
)
def test_chuang_standard_init_branches(qk, mean_z, cov_z, corr, verdict):
    f = chuang_standard_init_finding(init_table(qk=qk, mean_z=mean_z, cov_z=cov_z, corr=corr))
    assert f.verdict is verdict
    assert f.claim == "chuang-standard-init-conditions"


def test_standard_init_sentence_follows_the_numbers():
    bad = standard_init_sentence(init_table(cov_z=(8.0, 1.0), corr=(0.015, 0.001)))
    assert bad.startswith("No library default measured here draws weights of unit variance")
    assert "holds for none" in bad and "except for a, whose entries are correlated" in bad
    good = standard_init_sentence(init_table(weight=(1.0, 1.0), qk=(1.0, 1.0)))
    assert good.startswith("Every library default measured here draws weights of unit variance")
    assert "holds for every one" in good and good.endswith("(iv) are 0 within sampling error.")
    mixed = standard_init_sentence(init_table(weight=(1.0, 0.01), qk=(0.5, 1.0), mean_z=(1, 9)))
    assert mixed.startswith("Only a of the library defaults")
    assert "holds for b only" in mixed and "Some means differ from 0" in mixed


# ---- the takeaways ----------------------------------------------------------------------------


def test_init_takeaway_both_ways():
    bad = init_takeaway(init_table())
    assert bad.startswith("Library defaults do not draw weights of unit variance (none of 2")
    assert bad.endswith("unit for none.")
    good = init_takeaway(init_table(weight=(1.0, 1.0), qk=(1.0, 1.0)))
    assert good.startswith("Library defaults draw weights of unit variance (every one of 2")
    assert good.endswith("unit for every one.")
    mixed = init_takeaway(init_table(weight=(1.0, 0.01), qk=(0.5, 1.0)))
    assert "(some of 2" in mixed and "unit for some." in mixed
    assert init_takeaway(init_table(default=(False, False))) == "No library default was measured."


def test_fixed_weights_takeaway_both_ways():
    out = fixed_weights_takeaway(0.9, 1.1, 16.0, 0.0)
    assert "do not fix the spread" in out and "from 0.0 to 16.0" in out
    inside = fixed_weights_takeaway(0.9, 1.1, 1.0, 0.95)
    assert inside.startswith("Here the entry standard deviation sets the spread")


def test_aligned_takeaway_both_ways():
    good = aligned_takeaway([0.2, 0.3], [0.99, 1.0], 4096, 1.0)
    assert "puts more of the weight on the aligned key, at every alignment measured," in good
    assert "keeps it at its width-independent limit (within three" in good
    assert "0.2" not in good and "1.0" not in good  # the numbers are the section's
    bad = aligned_takeaway([0.2, 0.3], [0.19, 0.31], 4096, 5.0)
    assert "does not put more of the weight on the aligned key at every" in bad
    assert "does not stay at its width-independent limit at the largest width" in bad


def test_search_takeaway_both_ways():
    noisy = search_takeaway(Verdict.CAVEAT, 5.1, 5.11, NOISY, planted=5.0)
    assert "up to 30 % of searches miss by more than 0.1 decade" in noisy
    assert noisy.endswith("verdict: holds with a caveat.")
    clean = search_takeaway(Verdict.HOLDS, 5.1, 5.11, CLEAN, planted=5.0)
    assert "noisy evaluations rarely mislead it (at most 0 %" in clean
    assert search_takeaway(Verdict.HOLDS, 5.1, 5.11, {}, planted=5.0).endswith(
        "(grid optimum 5.110); verdict: holds."
    )
