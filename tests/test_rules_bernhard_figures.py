"""Every branch of the rules on Bernhard's Figures 1 and 2, on small synthetic tables."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from attncore.checks import ParameterError
from attncore.claims import Finding, Verdict
from attncore.claims.rules import bernhard_figures as rules

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
    e = rules.estimate([1.0, 1.0, 1.0, 1.0])
    assert (e.mean, e.se, e.n) == (1.0, 0.0, 4)
    assert e.above(0.99) and not e.above(1.0) and e.below(1.01)
    with pytest.raises(ParameterError):
        rules.estimate([1.0])
    with pytest.raises(ParameterError):
        rules.estimate([1.0, np.nan])


def test_unscaled_holds_when_every_mark_is_passed_clearly_in_every_draw():
    a = unscaled(noisy(6.0), noisy(1e-4, spread=1e-6), noisy(0.4))
    assert a.finding.verdict is Verdict.HOLDS
    assert "not an artefact" in a.conclusion and "100 %" in a.finding.measured


def test_unscaled_caveat_when_single_draws_miss_a_mark():
    skew = [6.0] * 16 + [0.5] * 4  # mean clearly above 1, but 20 % of draws below it
    a = unscaled(skew, noisy(1e-4, spread=1e-6), noisy(0.4))
    assert a.finding.verdict is Verdict.CAVEAT
    assert "not unmistakably" in a.conclusion and "too few single draws" in a.conclusion
    assert "80 %" in a.finding.measured


def test_unscaled_caveat_when_a_mean_sits_on_its_mark():
    a = unscaled(noisy(1.0, spread=0.5), noisy(1e-4, spread=1e-6), noisy(0.4))
    assert a.finding.verdict is Verdict.CAVEAT
    assert "of its mark: skewness change" in a.finding.measured


def test_unscaled_fails_when_the_weights_are_not_near_zero():
    a = unscaled(noisy(6.0), noisy(0.5 / N_KEYS, spread=1e-4), noisy(0.4))
    assert a.finding.verdict is Verdict.FAILS
    assert "median weight" in a.conclusion


def test_unscaled_untestable_with_one_draw():
    a = unscaled([6.0], [1e-4], [0.4])
    assert a.finding.verdict is Verdict.UNTESTABLE
    assert "at least 2" in a.finding.measured


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
    assert "clearly milder" in a.conclusion and "left: 50 %" in a.finding.measured


def test_sqrt_d_is_judged_against_panel_1b_not_an_absolute_mark():
    # a skewness change of 2.8 is "highly skewed" by convention, but mild next to 6
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.7), noisy(0.35), noisy(6.0), noisy(2.8)))
    assert a.finding.verdict is Verdict.HOLDS


def test_sqrt_d_fails_when_the_skew_is_not_milder_than_without_scaling():
    a = rules.assess_sqrt_d_helps(
        helps_table(noisy(0.7), noisy(0.35), noisy(3.0), noisy(3.0, seed=1))
    )
    assert a.finding.verdict is Verdict.FAILS
    assert "not clearly milder" in a.conclusion
    assert "distortion of 1c is not clearly smaller" not in a.conclusion


def test_sqrt_d_fails_when_it_does_not_lower_the_distortion():
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.4), noisy(0.5), noisy(6.0), noisy(2.8)))
    assert a.finding.verdict is Verdict.FAILS
    assert "not clearly smaller" in a.conclusion


def test_sqrt_d_caveat_when_no_right_skew_is_left():
    a = rules.assess_sqrt_d_helps(
        helps_table(noisy(0.7), noisy(0.35), noisy(6.0), noisy(0.0, spread=0.3))
    )
    assert a.finding.verdict is Verdict.CAVEAT
    assert "no right skew" in a.conclusion


def test_sqrt_d_caveat_when_single_draws_disagree():
    w_1c = [0.35] * 16 + [0.9] * 4
    a = rules.assess_sqrt_d_helps(helps_table(noisy(0.7), w_1c, noisy(6.0), noisy(2.8)))
    assert a.finding.verdict is Verdict.CAVEAT
    assert "too few single draws" in a.conclusion and "80 %" in a.finding.measured


def test_sqrt_d_untestable_and_sample_choice():
    one = helps_table([0.7], [0.3], [6.0], [2.0])
    assert rules.sqrt_d_helps(one).verdict is Verdict.UNTESTABLE
    published = helps_table(noisy(0.7), noisy(0.35), noisy(6.0), noisy(2.8), "published")
    assert rules.sqrt_d_helps(published).verdict is Verdict.UNTESTABLE  # no intended rows
    assert rules.sqrt_d_helps(published, sample="published").verdict is Verdict.HOLDS


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
    assert "stay selective" in a.conclusion


def test_k_total_nearly_uniform_rows_are_reported_not_held_against_shape():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.03), noisy(0.9999, spread=1e-6)))
    assert a.finding.verdict is Verdict.HOLDS
    assert "nearly uniform" in a.conclusion and "not part of the claim" in a.finding.measured


def test_k_total_caveat_when_better_but_not_much_better():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.3), noisy(0.9, spread=1e-3)))
    assert a.finding.verdict is Verdict.CAVEAT
    assert "not by the factor" in a.conclusion


def test_k_total_fails_when_not_better():
    a = rules.assess_k_total_better(k_table(noisy(0.4), noisy(0.4, seed=1), noisy(0.9)))
    assert a.finding.verdict is Verdict.FAILS
    assert "does not clearly keep" in a.conclusion


def test_k_total_untestable_with_one_draw():
    assert rules.k_total_better(k_table([0.4], [0.03], [0.9])).verdict is Verdict.UNTESTABLE


def test_published_agreement_sentence_both_ways():
    holds = Finding("bernhard-fig1-sqrt-d-helps", Verdict.HOLDS, "", "")
    fails = Finding("bernhard-fig1-sqrt-d-helps", Verdict.FAILS, "", "")
    assert "same verdicts" in rules.published_agreement_sentence([holds], [holds])
    other = rules.published_agreement_sentence([holds], [fails])
    assert "other verdicts" in other and "does not hold (intended: holds)" in other


def test_samples_differ_sentence_both_ways():
    assert "not the same sample" in rules.samples_differ_sentence([0.2, 0.3], 0.1)
    assert "cannot tell" in rules.samples_differ_sentence([0.01, 0.02], 0.1)


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


def test_other_components_hold_when_alike_in_law_and_within_draws():
    result = rules.assess_other_components_similar(components(), ks_critical=0.09)
    assert result.finding.verdict is Verdict.HOLDS
    assert "no more components differ" in result.conclusion


def test_other_components_caveat_when_a_draw_s_components_differ():
    result = rules.assess_other_components_similar(components(ks=0.3), ks_critical=0.09)
    assert result.finding.verdict is Verdict.CAVEAT
    assert "panels 1b;" in result.conclusion and "holds in law" in result.conclusion
    assert "1b 100 % ± 0 %" in result.finding.measured


def test_other_components_do_not_hold_when_key_one_differs_in_law():
    result = rules.assess_other_components_similar(components(first_shift=1.0), ks_critical=0.09)
    assert result.finding.verdict is Verdict.FAILS
    assert "key 1 differs" in result.finding.measured
    assert "(in 1b mean, 1b skewness)" in result.conclusion


@pytest.mark.parametrize("kwargs", [{"n_seeds": 1}, {"n_keys": 1}])
def test_other_components_not_testable_without_two_draws_and_keys(kwargs):
    finding = rules.other_components_similar(components(**kwargs), ks_critical=0.09)
    assert finding.verdict is Verdict.UNTESTABLE


def test_other_components_on_simulated_draws():
    from attncore.random import spawn
    from attncore.sources.bernhard import ks_critical
    from attncore.sources.bernhard_components import component_sweep

    table = component_sweep(spawn(1, 6), n_queries=200, n_keys=8, d_small=16, d_large=256)
    finding = rules.other_components_similar(table, ks_critical=ks_critical(200))
    assert finding.verdict in {Verdict.HOLDS, Verdict.CAVEAT}


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:\.\d+)?(?: %)?", text))


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
        lambda: rules.assess_other_components_similar(components(ks=0.3), ks_critical=0.09),
        lambda: rules.assess_other_components_similar(components(first_shift=1.0), 0.09),
    ],
)
def test_a_conclusion_says_in_words_what_the_measured_text_says_in_numbers(assessment):
    a = assessment()
    shared = _numbers(a.conclusion) - {"1", "2"}  # panel names (1b, 2c) and Figure 1(b)
    assert not shared & _numbers(a.finding.measured), (a.conclusion, a.finding.measured)
