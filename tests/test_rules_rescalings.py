"""Every branch of the verdict rules of the chapter on every rescaling, on small tables."""

from __future__ import annotations

import pandas as pd
import pytest

from attncore.checks import ParameterError
from attncore.claims import Finding, Verdict
from attncore.claims.rules import rescalings as rules

INDEX = pd.MultiIndex.from_tuples(
    [("f", 8, 4), ("g", 8, 4), ("f", 16, 64), ("g", 16, 64)], names=["family", "d", "n"]
)


def pairs(diff, se=0.01, share=0.5, **extra):
    """Paired W1 comparisons of a against b with the given mean differences a - b."""
    diff = pd.Series(diff, index=INDEX[: len(diff)], dtype=float)
    table = pd.DataFrame(
        {
            "wasserstein_diff": diff,
            "wasserstein_diff_se": se,
            "wasserstein_a": 0.3 + diff / 2,
            "wasserstein_b": 0.3 - diff / 2,
            "selectivity_a": 0.01,
            "selectivity_b": 0.1,
            "selectivity_diff": -0.09,
            "selectivity_diff_se": 0.001,
            "effective_share_a": share,
        },
        index=diff.index,
    )
    for key, value in extra.items():
        table[key] = value
    return table


@pytest.mark.parametrize(
    ("diff", "share", "verdict"),
    [
        ([-0.2, -0.2, -0.2, -0.2], 0.5, Verdict.HOLDS),
        ([-0.2, -0.2, -0.2, -0.2], 0.99, Verdict.CAVEAT),
        ([-0.2, -0.2, 0.1, 0.0], 0.5, Verdict.CAVEAT),
        ([-0.2, 0.1, 0.1, 0.0], 0.5, Verdict.FAILS),
    ],
)
def test_lower_distortion_every_branch(diff, share, verdict):
    finding = rules.lower_distortion(
        "bernhard-d-n-range", pairs(diff, share=share), "k_total", "sqrt_d", check="toy"
    )
    assert finding.verdict is verdict
    assert "of 4 configurations" in finding.measured


def test_a_difference_within_the_standard_errors_does_not_count():
    finding = rules.lower_distortion(
        "bernhard-d-n-range", pairs([-0.05] * 4, se=0.05), "k_total", "sqrt_d", check="toy"
    )
    assert finding.verdict is Verdict.FAILS


def test_other_families_need_even_more_so_for_holds():
    reference = pd.DataFrame(
        {"wasserstein_diff": [-0.1, -0.1], "wasserstein_diff_se": [0.01, 0.01]},
        index=pd.MultiIndex.from_tuples([(8, 4), (16, 64)], names=["d", "n"]),
    )
    big = rules.bernhard_other_families(pairs([-0.3] * 4), reference, check="toy")
    assert big.verdict is Verdict.HOLDS
    small = rules.bernhard_other_families(pairs([-0.11] * 4), reference, check="toy")
    assert small.verdict is Verdict.CAVEAT and "not everywhere for: f, g" in small.measured
    worse = rules.bernhard_other_families(pairs([0.2] * 4), reference, check="toy")
    assert worse.verdict is Verdict.FAILS


def test_section5_caveat_when_the_ranking_is_the_ordering_of_the_factors():
    selective = pairs([-0.2] * 4)
    assert rules.bernhard_section5_worse({"x": selective}, check="t").verdict is Verdict.CAVEAT
    plain = pairs([-0.2] * 4, selectivity_diff=0.0)
    assert rules.bernhard_section5_worse({"x": plain}, check="t").verdict is Verdict.HOLDS
    lost = pairs([0.2] * 4, selectivity_diff=0.0)
    assert rules.bernhard_section5_worse({"x": lost}, check="t").verdict is Verdict.FAILS
    table = rules.section5_table({"x": selective})
    assert table.loc["x", "W1 clearly above k_total's"] == 4
    with pytest.raises(ParameterError):
        rules.bernhard_section5_worse({}, check="t")


def nsd(diff):
    """n_sqrt_d (a) against k_total (b); family f is the standard normal."""
    return pairs(diff, factor_a=2.0, factor_b=1.0)


@pytest.mark.parametrize(
    ("diff", "verdict"),
    [
        ([0.0, 0.2, 0.0, 0.2], Verdict.HOLDS),
        ([0.0, 0.2, 0.0, 0.0], Verdict.CAVEAT),
        ([0.2, -0.2, 0.2, 0.001], Verdict.FAILS),
    ],
)
def test_n_sqrt_d_every_branch(diff, verdict):
    finding = rules.bernhard_n_sqrt_d_other(nsd(diff), "f", check="toy")
    assert finding.verdict is verdict
    assert "g: factor ratio 2.00" in finding.measured


def test_n_sqrt_d_sentence_follows_the_calls():
    assert "every setting for: g;" in rules.n_sqrt_d_sentence(nsd([0.0, 0.2, 0.0, 0.2]), "f")
    assert "in none for: g" in rules.n_sqrt_d_sentence(nsd([0.2, -0.2, 0.2, 0.0]), "f")
    with pytest.raises(ParameterError):
        rules.bernhard_n_sqrt_d_other(nsd([0.1, 0.1, 0.1, 0.1]).loc[["f"]], "f", check="t")


def grid(none_last=0.2, sat_last=0.8, root_last=0.5, se=0.01):
    """none and sqrt_d at d = 16 and 256 for n = 8: Jacobian 0.5 and saturation 0.1 at d = 16."""
    rows = []
    for rescaling, last_j, last_s in [("none", none_last, sat_last), ("sqrt_d", root_last, 0.0)]:
        for d, j, sat in [(16, 0.5, 0.1 if rescaling == "none" else 0.0), (256, last_j, last_s)]:
            rows.append(
                dict(
                    rescaling=rescaling,
                    d=d,
                    n=8,
                    jacobian_norm=j,
                    jacobian_norm_se=se,
                    saturated_share=sat,
                    saturated_share_se=se,
                )
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("kwargs", "verdict"),
    [
        ({}, Verdict.HOLDS),
        ({"none_last": 0.4}, Verdict.CAVEAT),  # falls, but not to half
        ({"root_last": 0.2}, Verdict.CAVEAT),  # saturates, 1/sqrt(d) does not hold it
        ({"none_last": 0.5, "sat_last": 0.1}, Verdict.FAILS),
        ({"none_last": 0.45, "sat_last": 0.12, "se": 0.1}, Verdict.FAILS),  # within the errors
    ],
)
def test_vaswani_every_branch(kwargs, verdict):
    finding = rules.vaswani_small_gradients(grid(**kwargs), threshold=0.9, check="toy")
    assert finding.verdict is verdict


def test_vaswani_table_needs_two_dimensions():
    with pytest.raises(ParameterError):
        rules.vaswani_table(grid().query("d == 16"))


def vanishing(sat_a, sat_b, share=0.5, grad_a=1.0, w_diff=-0.2):
    return pairs(
        [w_diff] * len(sat_a),
        share=share,
        saturated_share_a=sat_a,
        saturated_share_b=sat_b,
        saturated_share_diff=[a - b for a, b in zip(sat_a, sat_b, strict=True)],
        saturated_share_diff_se=0.01,
        gradient_norm_a=grad_a,
        gradient_norm_b=1.0,
    )


@pytest.mark.parametrize(
    ("table", "verdict"),
    [
        (vanishing([0.0, 0.0], [0.3, 0.0]), Verdict.HOLDS),
        (vanishing([0.0, 0.0], [0.3, 0.0], share=0.99), Verdict.CAVEAT),
        (vanishing([0.0, 0.0], [0.3, 0.0], grad_a=0.01), Verdict.CAVEAT),
        (vanishing([0.0, 0.0], [0.3, 0.0], w_diff=0.2), Verdict.CAVEAT),
        (vanishing([0.0, 0.5], [0.3, 0.0]), Verdict.CAVEAT),
        (vanishing([0.0, 0.5], [0.0, 0.0]), Verdict.FAILS),
        (vanishing([0.3, 0.0], [0.3, 0.0]), Verdict.FAILS),
        (vanishing([0.0, 0.0], [0.0, 0.0]), Verdict.UNTESTABLE),
    ],
)
def test_vanishing_gradients_every_branch(table, verdict):
    finding = rules.bernhard_vanishing_gradients(table, threshold=0.9, check="toy")
    assert finding.verdict is verdict
    assert "times n" in finding.measured


def test_sentences_follow_the_numbers():
    assert "sits on the grey curve" in rules.curve_sentence(0.01)
    assert "off the curve by up to 0.300" in rules.curve_sentence(0.3)
    assert "not measured" in rules.curve_sentence(float("nan"))
    price = rules.vanishing_price_sentence(vanishing([0.0, 0.0], [0.3, 0.0], grad_a=0.25))
    assert "0.300 under 1/√d" in price and "median 1" in price
    reference = pairs([-0.1] * 4).xs("f", level="family")
    sentence = rules.families_sentence(pairs([-0.2] * 4), pairs([-0.3] * 4), reference)
    assert "in 4 of 4 configurations" in sentence
    assert "4 of 4" in rules.grid_sentence(pairs([-0.2] * 4))
    assert "2 of 4" in rules.grid_sentence(pairs([-0.2, -0.2, 0.1, 0.1]))


def test_lowest_sentence_both_ways():
    labels = {"k_total": "1/k_total", "sqrt_d": "1/√d"}
    low = pd.DataFrame({"f": [0.1, 0.5], "g": [0.1, 0.2]}, index=["k_total", "sqrt_d"])
    assert "no other rescaling is lower" in rules.lowest_sentence(low, low, labels)
    high = pd.DataFrame({"f": [0.6, 0.5], "g": [0.1, 0.2]}, index=["k_total", "sqrt_d"])
    assert "it is 1/√d" in rules.lowest_sentence(high, high, labels)


CLAIMS = [
    "bernhard-other-moments",
    "bernhard-other-families",
    "bernhard-d-n-range",
    "bernhard-section5-worse",
    "bernhard-n-sqrt-d-other",
    "vaswani-small-gradients",
    "bernhard-vanishing-gradients",
]


def test_summary_bullets_follow_the_verdicts():
    caveat = {c: Finding(c, Verdict.CAVEAT, "", "") for c in CLAIMS}
    text = rules.summary_bullets(caveat)
    assert "uniform end of the curve" in text and "about 1/n" in text
    fails = {
        **caveat,
        "bernhard-vanishing-gradients": Finding(
            "bernhard-vanishing-gradients", Verdict.FAILS, "", ""
        ),
        "bernhard-d-n-range": Finding("bernhard-d-n-range", Verdict.FAILS, "", ""),
    }
    text = rules.summary_bullets(fails)
    assert "does not distort the shape less" in text and "does not saturate less" in text
    holds = {c: Finding(c, Verdict.HOLDS, "", "") for c in CLAIMS}
    assert "as Vaswani et al. suspect" in rules.summary_bullets(holds)
