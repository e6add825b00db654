"""Every branch of the rules on Bernhard's Figures 1 and 2, on small synthetic tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from drivers import Branches, C, Drivers, F, H, U

from attncore.checks import ParameterError
from attncore.claims import Finding, Verdict
from attncore.claims.rules import bernhard_figures as rules
from attncore.evidence import bernhard_figures as evidence
from attncore.evidence.bernhard_figures import estimate

N_KEYS, KS_CRIT = 32, 0.086


def table(columns: dict[str, dict[str, list[float]]], sample: str = "intended") -> pd.DataFrame:
    """Long table from {panel: {column: values per draw}}."""
    rows = []
    for panel, stats in columns.items():
        n = len(next(iter(stats.values())))
        for seed in range(n):
            row = {"seed": seed, "panel": panel, "sample": sample}
            rows.append({**row, **{k: v[seed] for k, v in stats.items()}})
    return pd.DataFrame(rows)


def noisy(centre: float, n: int = 20, spread: float = 0.01, seed: int = 0) -> list[float]:
    return list(centre + spread * np.random.default_rng(seed).standard_normal(n))


def unscaled(skew: list[float], q50: list[float], ks: list[float]) -> rules.Assessment:
    panels = table({"1b": {"skewness_change": skew, "q50": q50, "ks_statistic": ks}})
    return rules.assess_unscaled_distorts(panels, n_keys=N_KEYS, ks_critical=KS_CRIT)


def test_estimate_and_its_marks():
    e = estimate([1.0, 1.0, 1.0, 1.0])
    assert (e.mean, e.se, e.n) == (1.0, 0.0, 4)
    assert e.above(0.99) and not e.above(1.0) and e.below(1.01)
    with pytest.raises(ParameterError):
        estimate([1.0])
    with pytest.raises(ParameterError):
        estimate([1.0, np.nan])


def test_unscaled_holds_when_every_mark_is_passed_clearly_in_every_draw():
    a = unscaled(noisy(6.0), noisy(1e-4, spread=1e-6), noisy(0.4))
    assert a.finding.verdict is Verdict.HOLDS
    assert a.finding.branch == "holds" and a.finding.values["passed_pct"] == 100


def test_unscaled_caveat_when_single_draws_miss_a_mark():
    skew = [6.0] * 16 + [0.5] * 4  # mean clearly above 1, but 20 % of draws below it
    a = unscaled(skew, noisy(1e-4, spread=1e-6), noisy(0.4))
    assert a.finding.verdict is Verdict.CAVEAT
    assert a.conclusion.branch == "single-draws" and a.finding.values["passed_pct"] == 80


def test_unscaled_caveat_when_a_mean_sits_on_its_mark():
    a = unscaled(noisy(1.0, spread=0.5), noisy(1e-4, spread=1e-6), noisy(0.4))
    assert a.finding.verdict is Verdict.CAVEAT
    assert a.finding.branch == "caveat" and a.finding.values["borderline"] == ["skew"]


def test_unscaled_fails_when_the_weights_are_not_near_zero():
    a = unscaled(noisy(6.0), noisy(0.5 / N_KEYS, spread=1e-4), noisy(0.4))
    assert a.finding.verdict is Verdict.FAILS
    assert a.conclusion.values["against"] == ["weight"]


def test_unscaled_untestable_with_one_draw():
    a = unscaled([6.0], [1e-4], [0.4])
    assert a.finding.verdict is Verdict.UNTESTABLE
    assert a.finding.branch == "one-draw" and a.finding.values["draws"] == 1


def helps_table(w_1b, w_1c, skew_1b, skew_1c, sample="intended"):
    return table(
        {
            "1b": {"wasserstein": w_1b, "ks_statistic": w_1b, "skewness_change": skew_1b},
            "1c": {"wasserstein": w_1c, "ks_statistic": w_1c, "skewness_change": skew_1c},
        },
        sample,
    )


def test_sqrt_d_holds_when_less_distorted_and_milder_in_every_draw():
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.7), noisy(0.35), noisy(6.0), noisy(2.8)))
    assert a.finding.verdict is Verdict.HOLDS
    assert a.conclusion.branch == "holds" and round(a.finding.values["w_left_pct"]) == 50


def test_sqrt_d_is_judged_against_panel_1b_not_an_absolute_mark():
    # a skewness change of 2.8 is "highly skewed" by convention, but mild next to 6
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.7), noisy(0.35), noisy(6.0), noisy(2.8)))
    assert a.finding.verdict is Verdict.HOLDS


def test_sqrt_d_cannot_tell_when_the_skew_is_not_clearly_milder():
    # the same skew with and without scaling: not milder, but not clearly stronger either
    a = rules.assess_sqrt_d_helps(
        helps_table(noisy(0.7), noisy(0.35), noisy(3.0), noisy(3.0, seed=1))
    )
    assert a.finding.verdict is Verdict.UNTESTABLE and a.finding.branch == "cannot-tell"
    assert a.conclusion.values["unclear"] == ["skew-unclear"]


def test_sqrt_d_fails_when_the_skew_is_clearly_stronger_than_without_scaling():
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.7), noisy(0.35), noisy(3.0), noisy(4.0)))
    assert a.finding.verdict is Verdict.FAILS
    assert a.conclusion.values["failing"] == ["skew"]


def standardized(mean: float, se: float, n: int = 20) -> list[float]:
    """``n`` values with exactly this mean and standard error."""
    z = np.random.default_rng(3).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    return list(mean + se * np.sqrt(n) * z)


@pytest.mark.parametrize(("t", "verdict"), [(-2.2, Verdict.UNTESTABLE), (-4.0, Verdict.FAILS)])
def test_sqrt_d_corrects_the_three_differences_together(t, verdict):
    # a stronger skew at t = -2.2 over 20 draws (p = 0.02) is clear alone, not among three
    a = rules.assess_sqrt_d_helps(
        helps_table(noisy(0.7), noisy(0.35), standardized(6.0 + t * 0.1, 0.1), [6.0] * 20)
    )
    assert a.finding.verdict is verdict


def test_sqrt_d_fails_when_it_does_not_lower_the_distortion():
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.4), noisy(0.5), noisy(6.0), noisy(2.8)))
    assert a.finding.verdict is Verdict.FAILS
    assert "distortion" in a.finding.values["failing"]


def test_sqrt_d_caveat_when_no_right_skew_is_left():
    a = rules.assess_sqrt_d_helps(
        helps_table(noisy(0.7), noisy(0.35), noisy(6.0), noisy(0.0, spread=0.3))
    )
    assert a.finding.verdict is Verdict.CAVEAT
    assert a.finding.branch == "caveat" and not a.finding.values["few"]


def test_sqrt_d_caveat_when_single_draws_disagree():
    w_1c = [0.35] * 16 + [0.9] * 4
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.7), w_1c, noisy(6.0), noisy(2.8)))
    assert a.finding.verdict is Verdict.CAVEAT
    assert a.finding.branch == "single-draws" and a.finding.values["both_pct"] == 80


def test_sqrt_d_untestable_and_sample_choice():
    one = helps_table([0.7], [0.3], [6.0], [2.0])
    assert rules.assess_sqrt_d_helps(one).finding.verdict is Verdict.UNTESTABLE
    published = helps_table(noisy(0.7), noisy(0.35), noisy(6.0), noisy(2.8), "published")
    assert (
        rules.assess_sqrt_d_helps(published).finding.verdict is Verdict.UNTESTABLE
    )  # no intended rows
    assert rules.assess_sqrt_d_helps(published, sample="published").finding.verdict is Verdict.HOLDS


def k_table(w_2b, w_2c, entropy):
    return table(
        {
            "2b": {"wasserstein": w_2b, "ks_statistic": w_2b, "mean_normalized_entropy": entropy},
            "2c": {"wasserstein": w_2c, "ks_statistic": w_2c, "mean_normalized_entropy": entropy},
        }
    )


def test_k_total_holds_when_much_better_and_still_selective():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.05), noisy(0.9, spread=1e-3)))
    assert a.finding.verdict is Verdict.HOLDS
    assert a.conclusion.values["uniform"] is False


def test_k_total_nearly_uniform_rows_are_reported_not_held_against_shape():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.03), noisy(0.9999, spread=1e-6)))
    assert a.finding.verdict is Verdict.HOLDS
    assert a.conclusion.values["uniform"] is True and a.finding.values["uniform"] is True


def test_k_total_caveat_when_better_but_not_much_better():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.3), noisy(0.9, spread=1e-3)))
    assert a.finding.verdict is Verdict.CAVEAT
    assert a.finding.branch == "caveat" and a.finding.values["few"] is False


def test_k_total_fails_when_clearly_more_distorted():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.5, seed=1), noisy(0.9)))
    assert a.finding.verdict is Verdict.FAILS
    assert a.conclusion.branch == "fails"


def test_k_total_cannot_tell_when_not_clearly_better_nor_worse():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.4, seed=1), noisy(0.9)))
    assert a.finding.verdict is Verdict.UNTESTABLE
    assert a.conclusion.branch == "cannot-tell"


def test_k_total_untestable_with_one_draw():
    assert (
        rules.assess_k_total_better(k_table([0.4], [0.03], [0.9])).finding.verdict
        is Verdict.UNTESTABLE
    )


def test_published_agreement_both_ways():
    holds = Finding("bernhard-fig1-sqrt-d-helps", Verdict.HOLDS)
    fails = Finding("bernhard-fig1-sqrt-d-helps", Verdict.FAILS)
    assert rules.published_agreement([holds], [holds]).branch == "same"
    other = rules.published_agreement([holds], [fails])
    assert other.branch == "other"
    assert other.values["changed"] == [
        {"claim": "bernhard-fig1-sqrt-d-helps", "published": "does not hold", "intended": "holds"}
    ]


def test_samples_differ_both_ways():
    assert rules.samples_differ([0.2, 0.3], 0.1).branch == "differ"
    assert rules.samples_differ([0.01, 0.02], 0.1).branch == "alike"


# --- the other components -------------------------------------------------------------------


def components(
    first_shift: float = 0.0, ks: float = 0.0, n_seeds: int = 8, n_keys: int = 5
) -> pd.DataFrame:
    """Per-draw component rows: noisy statistics, key 1 shifted by ``first_shift``, every
    other key at KS distance ``ks`` from key 1."""
    rng = np.random.default_rng(0)
    rows = []
    for seed in range(n_seeds):
        for key in range(1, n_keys + 1):
            shift = first_shift if key == 1 else 0.0
            length = 4.0 + rng.normal(0, 0.3)  # exchangeable keys; sd follows key length
            rows.append(
                {
                    "seed": seed,
                    "panel": "1b",
                    "key": key,
                    "key_length": length,
                    "mean": 0.2 + shift + rng.normal(0, 0.01),
                    "sd": 0.1 + (length - 4.0) / 10,
                    "skewness": 2.0 + shift + rng.normal(0, 0.1),
                    "ks_to_first": 0.0 if key == 1 else ks,
                }
            )
    return pd.DataFrame(rows)


def similar(**options) -> rules.Assessment:
    return rules.assess_other_components_similar(components(**options), ks_critical=0.09)


def test_other_components_hold_when_alike_in_law_and_within_draws():
    result = similar()
    assert result.finding.verdict is Verdict.HOLDS
    assert result.conclusion.branch == "holds"


def test_other_components_caveat_when_a_draw_s_components_differ():
    result = similar(ks=0.3)
    assert result.finding.verdict is Verdict.CAVEAT
    assert result.conclusion.values == {"differing": ["1b"]}
    [panel] = result.finding.values["panels"]
    assert (panel["panel"], panel["share"], panel["share_se"]) == ("1b", 100, 0)


def test_other_components_do_not_hold_when_key_one_differs_in_law():
    result = similar(first_shift=1.0)
    assert result.finding.verdict is Verdict.FAILS
    assert [(b["panel"], b["statistic"]) for b in result.finding.values["broken"]] == [
        ("1b", "mean"),
        ("1b", "skewness"),
    ]
    assert result.conclusion.values["broken"] == [
        {"panel": "1b", "statistic": "mean"},
        {"panel": "1b", "statistic": "skewness"},
    ]


@pytest.mark.parametrize("kwargs", [{"n_seeds": 1}, {"n_keys": 1}])
def test_other_components_not_testable_without_two_draws_and_keys(kwargs):
    finding = rules.assess_other_components_similar(components(**kwargs), ks_critical=0.09).finding
    assert finding.verdict is Verdict.UNTESTABLE


def law_table(p_two_sided: float, n_seeds: int = 8) -> pd.DataFrame:
    """Two keys of one panel whose means differ, over the draws, by a paired difference whose
    two-sided t test has p value ``p_two_sided``; their sd and skewness agree exactly."""
    from scipy import stats

    wobble = np.array([1.0, -1.0] * (n_seeds // 2))  # sample sd of the differences: ~1
    se = wobble.std(ddof=1) / np.sqrt(n_seeds)
    shift = stats.t.isf(p_two_sided / 2, n_seeds - 1) * se
    return pd.DataFrame(
        {"seed": s, "panel": "1b", "key": key, "key_length": 4.0 + key,
         "mean": (shift + wobble[s]) if key == 1 else 0.0, "sd": 0.1, "skewness": 0.0,
         "ks_to_first": 0.0}
        for s in range(n_seeds)
        for key in (1, 2)
    )  # fmt: skip


def test_other_components_correct_their_tests_together_by_holm():
    """A difference clear alone at LAW_LEVEL (1 %) but not after Holm over the panel's three
    statistics does not break the law; one clear after the correction does."""
    alone = rules.assess_other_components_similar(law_table(0.005), ks_critical=0.09)
    assert alone.finding.verdict is Verdict.HOLDS
    corrected = rules.assess_other_components_similar(law_table(0.002), ks_critical=0.09)
    assert corrected.finding.verdict is Verdict.FAILS
    assert corrected.conclusion.values["broken"] == [{"panel": "1b", "statistic": "mean"}]


def test_the_signs_of_vanishing_gradients_are_corrected_by_holm_not_bonferroni():
    """Two-sided p of 0.04 and 0.001: Holm at 5 % finds both (0.001 <= 0.025, then 0.04 <=
    0.05), where Bonferroni's 2.5 % would have missed the first."""
    from scipy import stats

    draws, se = 1000, 0.1
    means = pd.Series(
        {"a": stats.t.isf(0.02, draws - 1) * se, "b": -stats.t.isf(0.0005, draws - 1) * se}
    )
    sides = evidence.clear_sides(means, pd.Series({"a": se, "b": se}), draws, 0.05)
    assert sides == {"a": "above", "b": "below"}
    assert evidence.clear_sides(means, pd.Series({"a": se, "b": se}), draws, 0.01) == {
        "a": None,
        "b": "below",
    }


def test_other_components_on_simulated_draws():
    from attncore.random import spawn
    from attncore.sources.bernhard import ks_critical
    from attncore.sources.bernhard_components import component_sweep

    table = component_sweep(spawn(1, 6), n_queries=200, n_keys=8, d_small=16, d_large=256)
    finding = rules.assess_other_components_similar(table, ks_critical=ks_critical(200)).finding
    assert finding.verdict in {Verdict.HOLDS, Verdict.CAVEAT}


@pytest.mark.parametrize(
    "assessment",
    [
        lambda: unscaled(noisy(6.0), noisy(1e-4, spread=1e-6), noisy(0.4)),
        lambda: unscaled([6.0] * 16 + [0.5] * 4, noisy(1e-4, spread=1e-6), noisy(0.4)),
        lambda: rules.assess_sqrt_d_helps(
            helps_table(noisy(0.7), [0.35] * 16 + [0.9] * 4, noisy(6.0), noisy(2.8))
        ),
        lambda: rules.assess_k_total_better(
            k_table(noisy(0.4), noisy(0.3), noisy(0.9999, spread=1e-6))
        ),
        lambda: rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.4, seed=1), noisy(0.9))),
        lambda: rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.5, seed=1), noisy(0.9))),
        lambda: helps(0.9, 2.0),
        lambda: helps(0.7, 2.0),
        lambda: similar(ks=0.3),
        lambda: similar(first_shift=1.0),
    ],
)
def test_a_conclusion_names_no_number_of_the_finding(assessment):
    a = assessment()
    assert a.conclusion.branch == a.finding.branch
    values = list(a.conclusion.values.values())
    named = [x for v in values if isinstance(v, list) for x in v]
    assert all(isinstance(v, (bool, list)) for v in values), a.conclusion
    assert all(isinstance(x, (str, dict)) for x in named), a.conclusion
    records = [y for x in named if isinstance(x, dict) for y in x.values()]
    assert all(isinstance(y, str) for y in records), a.conclusion


# --- reachability drivers ---------------------------------------------------------------------


def helps(w_1c: float, skew_1c: float, n: int = 20) -> rules.Assessment:
    return rules.assess_sqrt_d_helps(
        helps_table(noisy(0.7, n), noisy(w_1c, n, seed=1), noisy(8.0, n), noisy(skew_1c, n, seed=1))
    )


def better(w_2c: float, n: int = 20) -> rules.Assessment:
    return rules.assess_k_total_better(
        k_table(noisy(0.4, n), noisy(w_2c, n, 0.001, 1), noisy(0.9, n))
    )


def costs(j_none: float, e_none: float, draws: int = 10) -> Finding:
    noise = 0.01 * np.random.default_rng(0).standard_normal((draws, 2))
    rows = [
        {"seed": s, "d": 16, "rescaling": r, "jacobian_norm": j, "extreme_share": e}
        for s in range(draws)
        for r, j, e in [
            ("none", j_none + noise[s, 0], e_none + noise[s, 1]),
            ("sqrt_d", 0.3, 0.1),
        ]
    ]
    return rules.fig1_vanishing_inference(pd.DataFrame(rows), d=16)


def test_captions_hold_only_where_every_panel_draws_on_all_its_queries():
    published = {"1a": 16, "1b": 500}
    finding = rules.caption_queries(published, 500)
    assert finding.verdict is Verdict.FAILS and finding.values["panels"] == ["1a"]
    assert finding.values["published"] == 16
    assert rules.caption_queries({"1a": 500, "2c": 500}, 500).verdict is Verdict.HOLDS
    with pytest.raises(ParameterError, match="published_queries"):
        rules.caption_queries({}, 500)


DRIVERS: Drivers = {
    "bernhard-figure-captions-500-queries": {
        H: lambda: rules.caption_queries(dict.fromkeys(("1a", "2c"), 500), 500),
        F: lambda: rules.caption_queries(dict.fromkeys(("1a", "2c"), 16), 500),
    },
    "bernhard-fig1-unscaled-distorts": {
        H: lambda: unscaled(noisy(6.0), noisy(1e-4, spread=1e-6), noisy(0.4)),
        C: lambda: unscaled([6.0] * 16 + [0.5] * 4, noisy(1e-4, spread=1e-6), noisy(0.4)),
        F: lambda: unscaled(noisy(6.0), noisy(0.5 / N_KEYS, spread=1e-4), noisy(0.4)),
        U: lambda: unscaled([6.0], [1e-4], [0.4]),
    },
    "bernhard-fig1-sqrt-d-helps": {
        H: lambda: helps(0.3, 2.0),
        C: lambda: helps(0.3, 0.0),
        F: lambda: helps(0.9, 2.0),
        U: lambda: helps(0.3, 2.0, n=1),
    },
    "bernhard-fig2-k-total-better": {
        H: lambda: better(0.05),
        C: lambda: better(0.3),
        F: lambda: better(0.6),
        U: lambda: better(0.05, n=1),
    },
    "bernhard-other-components-similar": {
        H: lambda: similar(),
        C: lambda: similar(ks=0.3),
        F: lambda: similar(first_shift=1.0),
        U: lambda: similar(n_seeds=1),
    },
    "bernhard-fig1-vanishing-inference": {
        H: lambda: costs(0.2, 0.8),
        C: lambda: costs(0.3, 0.8),
        F: lambda: costs(0.5, 0.1),
        U: lambda: costs(0.3, 0.1),
    },
}
"""Per claim of the chapter on Bernhard's figures: for each verdict its rule can return, an
input that returns it (collected by ``tests/test_reachability.py``)."""

BRANCHES: Branches = {
    "bernhard-fig1-unscaled-distorts": {
        "caveat": lambda: unscaled(noisy(1.0, spread=0.5), noisy(1e-4, spread=1e-6), noisy(0.4)),
        "no-value": lambda: unscaled([6.0, float("nan"), 6.0], [1e-4] * 3, [0.4] * 3),
    },
    "bernhard-fig1-sqrt-d-helps": {
        "single-draws": lambda: rules.assess_sqrt_d_helps(
            helps_table(noisy(0.7), [0.35] * 16 + [0.9] * 4, noisy(6.0), noisy(2.8))
        ),
        "no-value": lambda: helps(float("nan"), 2.0),
        "cannot-tell": lambda: helps(0.7, 2.0),
    },
    "bernhard-fig2-k-total-better": {
        "single-draws": lambda: rules.assess_k_total_better(
            k_table(noisy(0.4, 40), [0.05] * 37 + [0.5] * 3, noisy(0.9, 40))
        ),
        "no-value": lambda: better(float("nan")),
        "cannot-tell": lambda: better(0.4),
    },
    "bernhard-fig1-vanishing-inference": {"one-draw": lambda: costs(0.2, 0.8, draws=1)},
}
"""Per claim of the same chapter: for each branch of its rule that no verdict's driver takes,
an input that takes it (a mean on its mark, too few single draws, a draw with no value, a
single draw, a difference the draws cannot place on either side of 0)."""
