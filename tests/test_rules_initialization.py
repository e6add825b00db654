"""The verdict rule on Chuang's beta search and the chapter's conclusions, branch by branch."""

import math

import numpy as np
import pandas as pd
import pytest
from drivers import Branches, C, Drivers, F, H, U

from attncore.claims import Finding, Verdict
from attncore.claims.rules.initialization import (
    aligned_takeaway,
    aligned_weights,
    assumption_ii_dependence,
    beta_search_finding,
    beta_search_result,
    blog_unit_variance_finding,
    chuang_standard_init_finding,
    exponent_call,
    fixed_weights,
    fixed_weights_takeaway,
    init_takeaway,
    k_total_scale,
    miss_shares,
    mup_agreement,
    near_unit,
    qk_norm_scale,
    search_takeaway,
    standard_init_readings,
    weight_growth,
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
    assert f.verdict is Verdict.HOLDS and f.branch == "holds"
    assert f.values["found"] == 5.0 and f.values["optimum"] == pytest.approx(5.0, abs=1e-3)
    none = f.values["misses"][1]  # 0 of 20 is not 0 %: Wilson reaches z²/(20 + z²) = 16 %
    assert (none["percent"], none["items"], none["low"]) == (0.0, 1600, 0.0)
    assert round(none["high"], 1) == round(100 * 1.96**2 / (20 + 1.96**2), 1)


def test_caveat_when_noisy_searches_miss_significantly_often():
    f = finding(noisy=NOISY)
    assert f.verdict is Verdict.CAVEAT
    three = f.values["misses"][0]
    assert (three["percent"], three["items"]) == (30.0, 100)
    assert three["low"] < 30.0 < three["high"]


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
    assert f.verdict is Verdict.UNTESTABLE and f.values["best"] == 100.0
    assert f.values["edges"] == (pytest.approx(0.01), 100.0)


def test_exact_objective_alone_when_no_noisy_searches_ran():
    f = finding(noisy={})
    assert f.verdict is Verdict.HOLDS and f.branch == "exact-only" and "misses" not in f.values


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
    ("fit", "branch"),
    [
        (Slope(2.02, 0.03, 6), "matches"),
        (Slope(1.2, 0.03, 6), "differs"),
        (Slope(1.8, 0.4, 6), "unclear"),
        (Slope(1.8, float("nan"), 2), "line"),
    ],
)
def test_weight_growth_follows_the_exponent(fit, branch):
    found = weight_growth(fit, 9.0, 0.6, 3.0)
    assert found.branch == branch and found.values["saturated"] == 60.0
    assert ("se" in found.values) is not math.isnan(fit.se)


def test_rescaling_scale_both_ways():
    assert qk_norm_scale([0.80, 0.82]).branch == "flat"
    flat = k_total_scale(0.99, Slope(1.05, 0.02, 6))
    assert flat.branch == "linear" and flat.values["uniform"]
    moving = qk_norm_scale([0.5, 0.8])
    assert moving.branch == "moving" and moving.values == {"low": 0.5, "high": 0.8}
    power = k_total_scale(0.7, Slope(1.6, 0.02, 6))
    assert power.branch == "power" and power.values["slope"] == 1.6
    assert not power.values["uniform"]
    assert k_total_scale(0.7, Slope(1.6, float("nan"), 2)).branch == "line"


def test_fixed_weights_both_ways():
    structured = fixed_weights(0.9, 1.1, 16.0, 0.0, 16)
    assert structured.branch == "outside" and structured.values["around"]
    unstructured = fixed_weights(1.2, 1.5, 1.3, 1.4, 16)
    assert unstructured.branch == "inside" and not unstructured.values["around"]


def test_aligned_weights_both_ways():
    good = aligned_weights([0.3, 0.5], [0.95, 0.99], [0.2, 0.5], 16384)
    assert good.branch == "one-hot"
    assert good.values["weights"] == [{"rho": 0.2, "weight": 0.95}, {"rho": 0.5, "weight": 0.99}]
    assert aligned_weights([0.3, 0.5], [0.6, 0.99], [0.2, 0.5], 16384).branch == "grows"
    assert aligned_weights([0.3, 0.5], [0.2, 0.45], [0.2, 0.5], 16384).branch == "none"
    assert aligned_weights([0.3, 0.5], [0.4, 0.45], [0.2, -0.5], 16384).branch == "some"
    assert mup_agreement(1.2).branch == "at-limit"
    assert mup_agreement(6.0).branch == "off-limit" and mup_agreement(6.0).values["z"] == 6.0


def test_beta_search_result_both_ways():
    clean = beta_search_result(4.77, 4.775, 0.01, 5, 19, CLEAN, 18)
    assert clean.branch == "reliable" and clean.values["within"]
    noisy = beta_search_result(4.0, 4.775, 0.01, 5, 19, NOISY, 18)
    assert noisy.branch == "unreliable-some" and not noisy.values["within"]
    assert noisy.values["flagged"] == ["100"]
    assert [m["percent"] for m in noisy.values["misses"]] == [30.0, 0.0]
    assert beta_search_result(4.77, 4.775, 0.01, 5, 19, {}, 18).branch == "exact-only"
    every = beta_search_result(4.77, 4.775, 0.01, 5, 19, {100: NOISY[100]}, 18)
    assert every.branch == "unreliable" and every.values["median"] == 18.0


def init_table(
    weight=(0.005, 0.008),
    qk=(0.34, 0.5),
    mean_z=(1.0, 1.0),
    cov_z=(1.0, 1.0),
    corr=(0.001, 0.001),
    default=(True, True),
):
    """A synthetic table of initializer moments, one initializer per entry of ``qk``: by
    default two, "a" and "b"."""
    n = len(qk)
    return pd.DataFrame(
        {
            "label": [chr(ord("a") + i) for i in range(n)],
            "default": list(default),
            "weight mean z": list(mean_z),
            "weight variance": list(weight),
            "weight variance SE": [1e-4] * n,
            "Q variance": list(qk),
            "Q variance SE": [0.002] * n,
            "K variance": list(qk),
            "K variance SE": [0.002] * n,
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
    assert f.claim == "blog-init-unit-variance" and f.values["defaults"][0]["label"] == "a"


def test_rules_ignore_the_reference_rows_and_need_a_default():
    t = init_table(weight=(1.0, 0.005), default=(False, True))
    assert blog_unit_variance_finding(t).verdict is Verdict.FAILS
    none = init_table(default=(False, False))
    assert blog_unit_variance_finding(none).verdict is Verdict.UNTESTABLE
    assert chuang_standard_init_finding(none).verdict is Verdict.UNTESTABLE
    assert [r.branch for r in standard_init_readings(none)] == ["no-defaults"]


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


def branches(table):
    return [r.branch for r in standard_init_readings(table)]


def test_standard_init_readings_follow_the_numbers():
    bad = standard_init_readings(init_table(cov_z=(8.0, 1.0), corr=(0.015, 0.001)))
    assert [r.branch for r in bad] == ["weights-none", "qk-none", "moments-correlated"]
    assert bad[2].values == {"means_zero": True, "correlated": [{"label": "a", "corr": 0.015}]}
    good = init_table(weight=(1.0, 1.0), qk=(1.0, 1.0))
    assert branches(good) == ["weights-all", "qk-all", "moments"]
    mixed = standard_init_readings(init_table(weight=(1.0, 0.01), qk=(0.5, 1.0), mean_z=(1, 9)))
    assert [r.branch for r in mixed] == ["weights-some", "qk-some", "moments"]
    assert mixed[0].values["unit"] == ["a"] and mixed[1].values["unit"] == ["b"]
    assert not mixed[2].values["means_zero"]


# ---- the takeaways ----------------------------------------------------------------------------


def test_init_takeaway_both_ways():
    bad = init_takeaway(init_table())
    assert bad.branch == "not-unit"
    assert bad.values["unit_weights"] == (0, 2) and bad.values["unit_qk"] == (0, 2)
    good = init_takeaway(init_table(weight=(1.0, 1.0), qk=(1.0, 1.0)))
    assert good.branch == "unit" and good.values["unit_qk"] == (2, 2)
    mixed = init_takeaway(init_table(weight=(1.0, 0.01), qk=(0.5, 1.0)))
    assert mixed.values["unit_weights"] == (1, 2) and mixed.values["unit_qk"] == (1, 2)
    assert mixed.values["qk"] == (0.5, 1.0)
    assert init_takeaway(init_table(default=(False, False))).branch == "no-defaults"


def test_fixed_weights_takeaway_both_ways():
    out = fixed_weights_takeaway(0.9, 1.1, 16.0, 0.0)
    assert out.branch == "structure" and out.values["structured"] == (0.0, 16.0)
    assert fixed_weights_takeaway(0.9, 1.1, 1.0, 0.95).branch == "entry-sd"


def test_aligned_takeaway_both_ways():
    good = aligned_takeaway([0.2, 0.3], [0.99, 1.0], 4096, 1.0)
    assert good.values == {"width": 4096, "grows": True, "at_limit": True}
    bad = aligned_takeaway([0.2, 0.3], [0.19, 0.31], 4096, 5.0)
    assert bad.values == {"width": 4096, "grows": False, "at_limit": False}


def test_search_takeaway_both_ways():
    noisy = search_takeaway(Verdict.CAVEAT, 5.1, 5.11, NOISY, planted=5.0)
    assert noisy.branch == "unreliable" and noisy.values["worst"] == 30.0
    assert noisy.values["verdict"] == "holds with a caveat"
    clean = search_takeaway(Verdict.HOLDS, 5.1, 5.11, CLEAN, planted=5.0)
    assert clean.branch == "reliable" and clean.values["worst"] == 0.0
    assert search_takeaway(Verdict.HOLDS, 5.1, 5.11, {}, planted=5.0).branch == "exact-only"


# ---- reachability drivers ---------------------------------------------------------------------


def dependence(claim: str, qk, cov_z, mean_z=None) -> Finding:
    """Chuang's (ii) against (iii) and (iv) in initializers of unit weights whose Q and K
    variances are ``qk`` and whose largest z of covariances (and of means) are ``cov_z`` (and
    ``mean_z``, by default 1)."""
    n = len(qk)
    table = init_table((1.0,) * n, qk, mean_z or (1.0,) * n, cov_z, (0.001,) * n, (True,) * n)
    return assumption_ii_dependence(table, claim)


DRIVERS: Drivers = {
    "chuang-beta-search": {
        H: lambda: finding(),
        C: lambda: finding(noisy=NOISY),
        F: lambda: finding(found=7.0),
        U: lambda: finding(found=100.0, values=np.log(BETAS)),
    },
    "blog-init-unit-variance": {
        H: lambda: blog_unit_variance_finding(init_table(weight=(1.0, 0.98), mean_z=(0.5, 1.0))),
        C: lambda: blog_unit_variance_finding(init_table(weight=(1.0, 0.008), mean_z=(0.5, 1.0))),
        F: lambda: blog_unit_variance_finding(init_table(mean_z=(0.5, 1.0))),
        U: lambda: blog_unit_variance_finding(init_table(default=(False, False))),
    },
    "chuang-standard-init-conditions": {
        H: lambda: chuang_standard_init_finding(init_table(qk=(1.0, 1.02))),
        C: lambda: chuang_standard_init_finding(
            init_table(qk=(1.0, 1.02), cov_z=(8.0, 1.0), corr=(0.015, 0.001))
        ),
        F: lambda: chuang_standard_init_finding(init_table()),
        U: lambda: chuang_standard_init_finding(init_table(default=(False, False))),
    },
    "chuang-iii-iv-based-on-ii": {
        H: lambda: dependence("chuang-iii-iv-based-on-ii", (1.0, 64.0), (1.0, 9.0), (1.0, 9.0)),
        F: lambda: dependence("chuang-iii-iv-based-on-ii", (1.0, 1.0), (1.0, 9.0)),
        U: lambda: dependence("chuang-iii-iv-based-on-ii", (64.0, 64.0), (1.0, 1.0)),
    },
    "chuang-without-ii-invalid": {
        H: lambda: dependence("chuang-without-ii-invalid", (1.0, 64.0), (1.0, 9.0)),
        F: lambda: dependence("chuang-without-ii-invalid", (1.0, 64.0), (1.0, 1.0)),
        U: lambda: dependence("chuang-without-ii-invalid", (1.0, 1.0), (1.0, 1.0)),
    },
}
"""Per claim of the chapter on initialization: for each verdict its rule can return, an input
that returns it (collected by ``tests/test_reachability.py``)."""

BRANCHES: Branches = {
    "chuang-beta-search": {"exact-only": lambda: finding(noisy={})},
    "chuang-without-ii-invalid": {
        "fails-mixed": lambda: dependence(
            "chuang-without-ii-invalid", (1.0, 64.0, 64.0), (1.0, 1.0, 9.0)
        ),
    },
}
"""Per claim of the chapter on initialization: for each branch of its rule that no verdict's
driver takes, an input that takes it (no noisy search; (iv) kept by some without (ii) and
lost by others)."""
