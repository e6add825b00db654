"""Every branch of the verdict rules of the chapter on every rescaling, on small tables."""

from __future__ import annotations

import numpy as np
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
            "draws": 10,
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
        ([-0.2, -0.2, -0.2, -0.2], 0.99, Verdict.HOLDS),
        ([-0.2, -0.2, 0.1, 0.0], 0.5, Verdict.CAVEAT),
        ([-0.2, 0.1, 0.1, 0.0], 0.5, Verdict.FAILS),
        ([-0.2, 0.0, 0.0, 0.0], 0.5, Verdict.UNTESTABLE),
    ],
)
def test_lower_distortion_every_branch(diff, share, verdict):
    finding = rules.lower_distortion(
        "bernhard-d-n-range", pairs(diff, share=share), "k_total", "sqrt_d", check="toy"
    )
    assert finding.verdict is verdict
    assert "of the four configurations" in finding.measured or "all four" in finding.measured


def test_a_difference_within_the_standard_errors_does_not_count():
    finding = rules.lower_distortion(
        "bernhard-d-n-range", pairs([-0.05] * 4, se=0.05), "k_total", "sqrt_d", check="toy"
    )
    assert finding.verdict is Verdict.UNTESTABLE


def test_nearly_uniform_attention_is_reported_not_held_against_distortion():
    finding = rules.lower_distortion(
        "bernhard-d-n-range", pairs([-0.2] * 4, share=0.99), "k_total", "sqrt_d", check="toy"
    )
    assert finding.verdict is Verdict.HOLDS
    assert "nearly uniform, above 95%, in four" in finding.measured


def test_a_count_over_configurations_is_corrected_for_their_number():
    # t = 2.5 over 10 draws: one-sided p about 0.017, clear alone, not among four (Holm)
    alone = rules.lower_distortion(
        "bernhard-d-n-range", pairs([-0.025], se=0.01), "k_total", "sqrt_d", check="toy"
    )
    assert alone.verdict is Verdict.HOLDS
    four = rules.lower_distortion(
        "bernhard-d-n-range", pairs([-0.025] * 4, se=0.01), "k_total", "sqrt_d", check="toy"
    )
    assert four.verdict is Verdict.UNTESTABLE


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


def test_section5_reports_the_ordering_of_the_factors_without_a_caveat():
    selective = pairs([-0.2] * 4)
    finding = rules.bernhard_section5_worse({"x": selective}, check="t")
    assert (
        finding.verdict is Verdict.HOLDS
        and "more selective than 1/k_total in 4" in finding.measured
    )
    half = pairs([-0.2, -0.2, 0.0, 0.0])
    assert rules.bernhard_section5_worse({"x": half}, check="t").verdict is Verdict.CAVEAT
    lost = pairs([0.2] * 4, selectivity_diff=0.0)
    assert rules.bernhard_section5_worse({"x": lost}, check="t").verdict is Verdict.FAILS
    unclear = pairs([-0.01] * 4, se=0.05)
    assert rules.bernhard_section5_worse({"x": unclear}, check="t").verdict is Verdict.UNTESTABLE
    table = rules.section5_table({"x": selective})
    assert table.loc["x", "W₁ clearly above k_total's"] == 4
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
    every = rules.n_sqrt_d_sentence(nsd([0.0, 0.2, 0.0, 0.2]), "f")
    assert every.startswith("1/(n√d) distorts more than 1/k_total in every setting for g.")
    assert "in no setting for g." in rules.n_sqrt_d_sentence(nsd([0.2, -0.2, 0.2, 0.0]), "f")
    with pytest.raises(ParameterError):
        rules.bernhard_n_sqrt_d_other(nsd([0.1, 0.1, 0.1, 0.1]).loc[["f"]], "f", check="t")


def grid(none_last=0.2, sat_last=0.8, root_last=0.5, se=0.01, draws=40):
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
                    draws=draws,
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
        ({"none_last": 0.45, "sat_last": 0.12, "se": 0.1}, Verdict.UNTESTABLE),  # within errors
        ({"root_last": 0.2, "none_last": 0.5, "sat_last": 0.1}, Verdict.FAILS),  # not steady
        ({"none_last": 0.4, "sat_last": 0.2, "se": 0.02}, Verdict.CAVEAT),
        ({"none_last": 0.4, "sat_last": 0.2, "se": 0.02, "draws": 2}, Verdict.UNTESTABLE),
        ({"draws": 1}, Verdict.UNTESTABLE),  # one draw shows nothing clearly
        ({"root_last": 0.6, "draws": 3}, Verdict.CAVEAT),  # steady, but not clearly within 1.25
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
        (vanishing([0.0, 0.0], [0.3, 0.0], share=0.99), Verdict.HOLDS),
        (vanishing([0.0, 0.0], [0.3, 0.0], grad_a=0.01), Verdict.CAVEAT),
        (vanishing([0.0, 0.0], [0.3, 0.0], w_diff=0.2), Verdict.CAVEAT),
        (vanishing([0.0, 0.5], [0.3, 0.0]), Verdict.CAVEAT),
        (vanishing([0.0, 0.5], [0.0, 0.0]), Verdict.FAILS),
        (vanishing([0.3, 0.0], [0.3, 0.0]), Verdict.UNTESTABLE),
        (vanishing([0.0, 0.0], [0.0, 0.0]), Verdict.UNTESTABLE),
    ],
)
def test_vanishing_gradients_every_branch(table, verdict):
    finding = rules.bernhard_vanishing_gradients(table, threshold=0.9, check="toy")
    assert finding.verdict is verdict
    assert "times n" in finding.measured
    if verdict in (Verdict.HOLDS, Verdict.CAVEAT):  # a caveat is exactly a named one
        assert bool(rules.vanishing_caveats(table)) is (verdict is Verdict.CAVEAT)


def test_vanishing_caveats_name_what_was_measured():
    assert rules.vanishing_caveats(vanishing([0.0, 0.0], [0.3, 0.0], share=0.99)) == []
    [more] = rules.vanishing_caveats(vanishing([0.0, 0.5], [0.3, 0.0]))
    assert more == "clearly more saturated in some configurations"
    [w1] = rules.vanishing_caveats(vanishing([0.0, 0.0], [0.3, 0.0], w_diff=0.2))
    assert w1.startswith("a W₁ not clearly below")
    [slow] = rules.vanishing_caveats(vanishing([0.0, 0.0], [0.3, 0.0], grad_a=0.01))
    assert "below 0.5 times that under 1/√d" in slow and "1/n" not in slow


def test_sentences_follow_the_numbers():
    assert "sits on the grey curve" in rules.curve_sentence(0.01)
    assert "off the curve by up to 0.300" in rules.curve_sentence(0.3)
    assert "not measured" in rules.curve_sentence(float("nan"))
    near = rules.bernhard_vanishing_gradients(
        vanishing([0.0, 0.0], [0.3, 0.0], grad_a=0.25), threshold=0.9, check="toy"
    )
    assert "times n: median 1" in near.measured


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


PRICE = vanishing([0.0, 0.0], [0.3, 0.0], share=0.99, grad_a=0.01)  # nearly uniform, slow


def test_summary_bullets_follow_the_verdicts():
    caveat = {c: Finding(c, Verdict.CAVEAT, "", "") for c in CLAIMS}
    text = rules.summary_bullets(caveat, PRICE)
    assert text.count("- ") == 4
    assert "in every configuration it does so at the uniform end" in text
    assert "with a caveat: a gradient reaching the query below 0.5 times" in text
    assert "1/n" not in text  # only the caveats measured are stated
    few = rules.summary_bullets(caveat, vanishing([0.0, 0.0], [0.3, 0.0], grad_a=0.01))
    assert "uniform end" not in few and "nearly uniform in none of them" in few
    half = rules.summary_bullets(caveat, vanishing([0.0, 0.0], [0.3, 0.0], share=[0.99, 0.5]))
    assert "in most configurations it does so" in half
    assert "the claim holds with a caveat under changed moments, for other families and" in text
    fails = {
        **caveat,
        "bernhard-vanishing-gradients": Finding(
            "bernhard-vanishing-gradients", Verdict.FAILS, "", ""
        ),
        "bernhard-d-n-range": Finding("bernhard-d-n-range", Verdict.FAILS, "", ""),
    }
    untold = {
        **caveat,
        "bernhard-d-n-range": Finding("bernhard-d-n-range", Verdict.UNTESTABLE, "", ""),
    }
    assert rules.summary_bullets(untold, PRICE).startswith(
        "- Where the draws of this run can tell, 1/k_total distorts the shape less than 1/√d: the "
        "claim holds with a caveat under changed moments and for other families, is not "
        "testable here over the grid of d and n;"
    )
    text = rules.summary_bullets(fails, PRICE)
    assert "does not always distort the shape less" in text and "does not saturate less" in text
    assert "for other families, does not hold over the grid of d and n." in text


def test_takeaways_follow_the_curve_and_the_verdicts():
    caveat = {c: Finding(c, Verdict.CAVEAT, "", "") for c in CLAIMS}
    on_curve = rules.takeaways(caveat, 0.004)
    assert on_curve.count("- ") == 2 and "lies on one curve" in on_curve
    assert "0.004" not in on_curve  # the number is the curve sentence's
    off_curve = rules.takeaways(caveat, 0.3)
    assert "too coarse" in off_curve and "lies on one curve" not in off_curve
    assert "not measured" in rules.takeaways(caveat, float("nan"))
    holds = {c: Finding(c, Verdict.HOLDS, "", "") for c in CLAIMS}
    assert "as Vaswani et al. suspect" in rules.takeaways(holds, 0.004)
    both = rules.comparison_takeaways(caveat, PRICE)
    assert both.count("- ") == 3 and "larger factor" in both
    assert "uniform end of the curve" in both
    text = rules.comparison_takeaways(holds, PRICE)
    assert "every configuration measured" in text and "uniform end" in text  # reported


# ---- the claims added from the claim-by-claim review --------------------------------------


def _grid(j=(0.3, 0.3), h=(0.8, 0.8), sat=(0.0, 0.0), n_h=None, ns=(8, 64), ds=(16, 256)):
    rows = []
    for n in ns:
        for i, d in enumerate(ds):
            hh = h[i] if n_h is None else n_h[ns.index(n)]
            rows.append(
                dict(
                    rescaling="sqrt_d",
                    d=d,
                    n=n,
                    jacobian_norm=j[i],
                    jacobian_norm_se=0.001,
                    normalized_entropy=hh,
                    normalized_entropy_se=0.001,
                    saturated_share=sat[i],
                    saturated_share_se=0.001,
                    draws=40,
                )
            )
    return pd.DataFrame(rows)


def test_blog_stable_region_reaches_every_outcome():
    fam = pd.DataFrame(
        {"normalized_entropy": [0.8, 0.81], "normalized_entropy_se": [0.001] * 2, "draws": 40},
        index=["N", "other"],
    )
    assert rules.blog_stable_region(_grid(), fam, normal="N", check="c").verdict == Verdict.HOLDS
    moved = _grid(n_h=(0.7, 0.9))
    assert rules.blog_stable_region(moved, fam, normal="N", check="c").verdict == Verdict.CAVEAT
    far = fam.assign(normalized_entropy=[0.8, 0.5])
    assert rules.blog_stable_region(_grid(), far, normal="N", check="c").verdict == Verdict.CAVEAT
    unstable = _grid(j=(0.3, 0.1))
    finding = rules.blog_stable_region(unstable, None, normal="N", check="c")
    assert finding.verdict == Verdict.FAILS and "clearly beyond it at n = 8, 64" in finding.measured
    few = rules.blog_stable_region(_grid().assign(draws=1), fam, normal="N", check="c")
    assert few.verdict == Verdict.UNTESTABLE
    assert "the draws cannot tell at n = 8, 64" in few.measured


def _flow(root=(0.2, 0.2), none=(0.5, 0.1), n_root=None):
    rows = []
    for k, n in enumerate((8, 64)):
        for i, d in enumerate((16, 256)):
            g = root[i] if n_root is None else n_root[k]
            rows.append(dict(rescaling="sqrt_d", d=d, n=n, gradient_norm=g, gradient_median=g))
            rows.append(
                dict(rescaling="none", d=d, n=n, gradient_norm=none[i], gradient_median=none[i])
            )
    t = pd.DataFrame(rows)
    return t.assign(gradient_norm_se=0.001, gradient_median_se=0.001, draws=40)


def test_blog_gradient_flow_reaches_every_outcome():
    assert rules.blog_gradient_flow(_flow(), check="c").verdict == Verdict.HOLDS
    assert rules.blog_gradient_flow(_flow(none=(0.2, 0.2)), check="c").verdict == Verdict.CAVEAT
    assert rules.blog_gradient_flow(_flow(n_root=(0.4, 0.1)), check="c").verdict == Verdict.CAVEAT
    assert rules.blog_gradient_flow(_flow(root=(0.4, 0.1)), check="c").verdict == Verdict.FAILS


def _pairs(**columns):
    idx = pd.MultiIndex.from_tuples([("f", 16, 8), ("f", 256, 8)], names=["family", "d", "n"])
    return pd.DataFrame({k: list(v) for k, v in columns.items()}, index=idx).assign(draws=10)


def _alleviate(e_diff, j_diff):
    n = len(e_diff)
    return _pairs(
        extreme_share_a=[0.1] * n,
        extreme_share_b=[0.5] * n,
        extreme_share_diff=e_diff,
        extreme_share_diff_se=[0.01] * n,
        jacobian_norm_a=[0.3] * n,
        jacobian_norm_b=[0.2] * n,
        jacobian_norm_diff=j_diff,
        jacobian_norm_diff_se=[0.01] * n,
    )


def test_bernhard_sqrt_d_alleviates_reaches_every_outcome():
    f = rules.bernhard_sqrt_d_alleviates
    assert f(_alleviate([-0.4, -0.4], [0.1, 0.1]), check="c").verdict == Verdict.HOLDS
    assert f(_alleviate([-0.4, -0.4], [0.1, 0.0]), check="c").verdict == Verdict.CAVEAT
    assert f(_alleviate([-0.4, 0.0], [0.0, 0.1]), check="c").verdict == Verdict.CAVEAT
    assert f(_alleviate([-0.4, -0.4], [-0.1, -0.1]), check="c").verdict == Verdict.CAVEAT
    assert f(_alleviate([0.0, 0.1], [0.1, 0.1]), check="c").verdict == Verdict.FAILS
    assert f(_alleviate([0.0, 0.0], [0.1, 0.1]), check="c").verdict == Verdict.UNTESTABLE


def _scales(w, above, step=None, se=0.01):
    w = np.asarray(w, float)
    step = np.diff(w, prepend=w[0]) if step is None else np.asarray(step, float)
    return pd.DataFrame(
        {
            "wasserstein": w,
            "rise": w - w[0],
            "rise_se": se,
            "above_sqrt_d": above,
            "above_sqrt_d_se": se,
            "step": step,
            "step_se": se,
            "draws": 40,
        },
        index=pd.Index([1.0, 10.0, 100.0], name="query_scale"),
    )


def test_bernhard_small_logits_reaches_every_outcome():
    f = rules.bernhard_small_logits
    holds = f(_scales([0.05, 0.1, 0.6], [-0.4, -0.3, 0.1]), check="c")
    assert holds.verdict == Verdict.HOLDS and "between queries 10 and 100 times" in holds.measured
    early = _scales([0.05, 0.5, 0.6], [-0.4, 0.0, 0.1])
    coarse = f(early, check="c")  # reached between 1 and 10, around moderate 4
    assert coarse.verdict == Verdict.UNTESTABLE and "the grid cannot tell" in coarse.measured
    assert f(early, moderate=10.0, check="c").verdict == Verdict.CAVEAT
    assert f(early, moderate=0.5, check="c").verdict == Verdict.HOLDS
    bumpy = _scales([0.05, 0.3, 0.2], [-0.4, -0.3, -0.3], step=[0.0, 0.25, -0.1])
    assert f(bumpy, check="c").verdict == Verdict.CAVEAT
    small = f(_scales([0.05, 0.05, 0.05], [-0.4] * 3), check="c")
    assert small.verdict == Verdict.UNTESTABLE and "stay too small" in small.measured
    assert f(_scales([0.05, 0.05, 0.06], [-0.4, 0.0, 0.0]), check="c").verdict == Verdict.FAILS
    assert f(_scales([0.5, 0.6, 0.9], [0.2, 0.3, 0.5]), check="c").verdict == Verdict.FAILS


def test_bernhard_prescaled_same_reaches_both_outcomes():
    assert rules.bernhard_prescaled_same(1e-17, check="c").verdict == Verdict.HOLDS
    assert rules.bernhard_prescaled_same(1e-3, check="c").verdict == Verdict.FAILS
    with pytest.raises(ParameterError):
        rules.bernhard_prescaled_same(float("nan"), check="c")


def _steps(w, e, j):
    def col(name, values):
        values = np.asarray(values, float)
        return {
            f"{name}_from": values[:-1],
            f"{name}_to": values[1:],
            f"{name}_diff": np.diff(values),
            f"{name}_diff_se": np.full(len(values) - 1, 0.001),
        }

    return pd.DataFrame(
        {**col("wasserstein", w), **col("extreme_share", e), **col("jacobian_norm", j)}
    ).assign(draws=40)


def test_bernhard_distortion_signals_reaches_every_outcome():
    f = rules.bernhard_distortion_signals
    w = [0.05, 0.1, 0.3, 0.6]
    assert (
        f(_steps(w, [0.0, 0.1, 0.3, 0.6], [0.3, 0.25, 0.2, 0.1]), check="c").verdict
        == Verdict.HOLDS
    )
    peaked = _steps(w, [0.0, 0.1, 0.3, 0.6], [0.2, 0.3, 0.2, 0.1])
    assert f(peaked, check="c").verdict == Verdict.CAVEAT
    late = _steps(w, [0.0, 0.1, 0.3, 0.6], [0.3, 0.2, 0.1, 0.2])
    assert f(late, check="c").verdict == Verdict.FAILS
    against = _steps(w, [0.6, 0.3, 0.1, 0.0], [0.3, 0.25, 0.2, 0.1])
    assert f(against, check="c").verdict == Verdict.FAILS


def _w_pairs(diff, uniform=0.5):
    return _pairs(
        wasserstein_diff=diff,
        wasserstein_diff_se=[0.01, 0.01],
        effective_share_a=[uniform, uniform],
    )


def test_bernhard_conclusion_reaches_every_outcome():
    f = rules.bernhard_conclusion
    win, lose = _w_pairs([-0.2, -0.2]), _w_pairs([0.2, 0.2])
    assert f(win, win, check="c").verdict == Verdict.HOLDS
    uniform = f(win, _w_pairs([-0.2, -0.2], uniform=0.99), check="c")
    assert uniform.verdict == Verdict.HOLDS and "nearly uniform" in uniform.measured
    assert f(lose, win, check="c").verdict == Verdict.CAVEAT
    assert f(win, lose, check="c").verdict == Verdict.CAVEAT
    assert f(lose, lose, check="c").verdict == Verdict.FAILS
    unclear = _w_pairs([-0.01, -0.01])
    assert f(unclear, unclear, check="c").verdict == Verdict.UNTESTABLE


def _abstract(s_diff, e_diff, s_b=(0.3, 0.3), e_b=(0.3, 0.3), grad_a=(0.9, 0.9)):
    return _pairs(
        saturated_share_a=[0.0, 0.0],
        saturated_share_b=s_b,
        saturated_share_diff=s_diff,
        saturated_share_diff_se=[0.01, 0.01],
        extreme_share_a=[0.0, 0.0],
        extreme_share_b=e_b,
        extreme_share_diff=e_diff,
        extreme_share_diff_se=[0.01, 0.01],
        gradient_norm_a=grad_a,
        gradient_norm_b=[1.0, 1.0],
    )


def test_bernhard_abstract_reaches_every_outcome():
    f = rules.bernhard_abstract_more_effective
    assert f(_abstract([-0.3, -0.3], [-0.3, -0.3]), check="c").verdict == Verdict.HOLDS
    cheap = _abstract([-0.3, -0.3], [-0.3, -0.3], grad_a=(0.05, 0.05))
    assert f(cheap, check="c").verdict == Verdict.CAVEAT
    assert f(_abstract([-0.3, 0.0], [0.0, 0.3]), check="c").verdict == Verdict.CAVEAT
    assert f(_abstract([0.0, 0.0], [0.0, 0.3]), check="c").verdict == Verdict.FAILS
    few = _abstract([-0.3, 0.0], [0.0, 0.0])  # one clear win of two, 'many' read as 75 %
    assert f(few, check="c", many=0.75).verdict == Verdict.UNTESTABLE
    unclear = _abstract([-0.01, -0.01], [0.0, 0.0])
    assert f(unclear, check="c").verdict == Verdict.UNTESTABLE
    none = _abstract([0.0, 0.0], [0.0, 0.0], s_b=(0.0, 0.0), e_b=(0.0, 0.0))
    assert f(none, check="c").verdict == Verdict.UNTESTABLE


def test_review_findings_cover_the_review_claims():
    from attncore.claims import CLAIMS

    assert all(CLAIMS[c].chapter == "every_rescaling" for c in rules.REVIEW_EVIDENCE)
    assert all(CLAIMS[c].chapter == "k_total_alternatives" for c in rules.COMPARISON_EVIDENCE)


def test_the_summary_has_a_sentence_for_every_verdict_each_topic_can_reach():
    from attncore.claims import CLAIMS

    topics = {
        "section5": "bernhard-section5-worse",
        "n_sqrt_d": "bernhard-n-sqrt-d-other",
        "vaswani": "vaswani-small-gradients",
        "vanishing": "bernhard-vanishing-gradients",
        "distortion": "bernhard-d-n-range",
    }
    for topic, claim in topics.items():
        reachable = set(Verdict) - set(CLAIMS[claim].unreachable)
        mixed = {"where told"} if topic == "distortion" else set()  # the three claims disagree
        assert set(rules._SUMMARY[topic]) == reachable | mixed, topic


def test_the_heavy_tails_sentence_follows_the_draws():
    normal = pd.Series([0.040, 0.041, 0.042])
    assert "do cost it" in rules.heavy_tails_sentence(normal + 0.04, normal, 5)
    assert "they lower it" in rules.heavy_tails_sentence(normal - 0.02, normal, 5)
    unclear = rules.heavy_tails_sentence(normal.iloc[:2] + 0.001, normal.iloc[:2], 5)
    assert "two draws cannot tell" in unclear
    with pytest.raises(ParameterError):
        rules.heavy_tails_sentence(pd.Series([], dtype=float), normal, 5)
