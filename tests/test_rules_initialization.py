"""The verdict rule on Chuang's beta search and the chapter's conclusions, branch by branch."""

import numpy as np
import pytest

from attncore.claims import Verdict
from attncore.claims.rules.initialization import (
    aligned_sentence,
    beta_search_finding,
    beta_search_sentence,
    exponent_matches,
    fixed_weights_sentence,
    miss_shares,
    rescaling_scale_sentence,
    weight_growth_sentence,
)

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
    assert "found beta 5.000 vs grid optimum 5.000" in f.measured
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


def test_exponent_tolerance():
    assert exponent_matches(2.25) and not exponent_matches(2.4)


@pytest.mark.parametrize(
    ("exponent", "phrase"), [(2.02, "as the relaxed formula says"), (1.2, "not the 2 of")]
)
def test_weight_growth_sentence_follows_the_exponent(exponent, phrase):
    sentence = weight_growth_sentence(exponent, 9.0, 0.6, 3.0)
    assert phrase in sentence and "60 % of the rows" in sentence


def test_rescaling_scale_sentence_both_ways():
    flat = rescaling_scale_sentence([0.80, 0.82], 0.99, 1.05)
    assert "does not see the weight scale" in flat and "grow linearly with σ_W (" in flat
    assert "stays almost uniform" in flat
    moving = rescaling_scale_sentence([0.5, 0.8], 0.7, 1.6)
    assert "moves from 0.50 to 0.80" in moving and "σ_W to the power 1.60 (" in moving
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
