"""The training chapter's verdict rules and conclusions, branch by branch, on synthetic runs."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from attncore.claims import Verdict
from attncore.claims.rules.training import (
    association,
    bernhard_q_norm_undesirable,
    bernhard_transformer_performance,
    chuang_96_half_data,
    chuang_25000_samples,
    chuang_assumptions_invalid,
    chuang_beta_only_at_init,
    chuang_not_memorizing,
    chuang_perfect_accuracy,
    chuang_sigma_w_moving_factors,
    chuang_string_reversal,
    example_evaluations,
    example_runs,
    gap_conclusion,
    gap_outcome,
    gaps,
    k_total_conclusion,
    mechanism,
    pace_story,
)

SHORT, LONG = 500, 3000


def test_gap_needs_every_seed():
    runs = example_runs()
    runs.loc[(runs["method"] == "sqrt_d") & (runs["seed"] == 1), "accuracy at 500 steps"] = 0.2
    assert not gaps(runs, [SHORT])["small init", SHORT]


@pytest.mark.parametrize(
    ("options", "verdict"),
    [
        ({}, Verdict.CAVEAT),
        ({"searched": 0.5}, Verdict.FAILS),
    ],
)
def test_chuang_string_reversal_caveat_and_fails(options, verdict):
    assert chuang_string_reversal(example_runs(**options), SHORT, LONG).verdict is verdict


def test_chuang_string_reversal_holds_when_the_gap_is_everywhere():
    runs = example_runs(sqrt_long=0.02)
    runs.loc[runs["method"] == "sqrt_d", ["accuracy at 500 steps", "accuracy at 3000 steps"]] = 0.01
    runs.loc[runs["method"] == "constant", ["accuracy at 500 steps", "accuracy at 3000 steps"]] = 1
    betas = {"small init": [5.0, 6.0], "LayerNorm": [4.0, 3.0]}
    finding = chuang_string_reversal(runs, SHORT, LONG, betas)
    assert finding.verdict is Verdict.HOLDS
    assert "searches over seeds and budgets: β = 5, 6" in finding.measured
    assert "about 5 (2.5 to 10) in all four searches" in finding.measured
    far = chuang_string_reversal(runs, SHORT, LONG, {"small init": [52.6, 5], "LayerNorm": [4]})
    assert far.verdict is Verdict.CAVEAT and "in two of the three searches" in far.measured


def test_a_setup_whose_search_finds_nothing_that_learns_cannot_test_the_gap():
    runs = example_runs(sqrt_long=0.02)
    budgets = ["accuracy at 500 steps", "accuracy at 3000 steps"]
    ln = runs["setup"] == "LayerNorm"
    runs.loc[ln & (runs["method"] == "constant"), budgets] = 0.03
    finding = chuang_string_reversal(runs, SHORT, LONG)
    assert finding.verdict is Verdict.HOLDS  # the gap at both budgets where it can be tested
    assert "“LayerNorm” cannot test the claim" in finding.measured
    assert "the verdict rests on “small init”" in finding.measured
    runs.loc[runs["method"] == "constant", budgets] = 0.03
    assert chuang_string_reversal(runs, SHORT, LONG).verdict is Verdict.UNTESTABLE


def test_conclusions_follow_the_budget_where_the_gap_closes_or_not():
    """Two budgets: at one the gap closes, at the other it does not (issue 10)."""
    closes, stays = example_runs(sqrt_long=0.99), example_runs(sqrt_long=0.24)
    assert gap_outcome(closes, "small init", SHORT, LONG) == "closes"
    assert gap_outcome(stays, "small init", SHORT, LONG) == "open"
    # the verdict is the same (the gap appears after the short budget in one setup); its
    # measured text says, in words, what the long budget makes of it
    for runs, words in ((closes, "closes in"), (stays, "is still open in")):
        finding = chuang_string_reversal(runs, SHORT, LONG)
        assert finding.verdict is Verdict.CAVEAT
        assert f"After {LONG} steps the gap {words} the setup “small init”" in finding.measured
    summary_closes = gap_conclusion(closes, SHORT, LONG)
    summary_stays = gap_conclusion(stays, SHORT, LONG)
    assert "learns the task there too" in summary_closes and "matter of speed" in summary_closes
    assert "cannot tell slow learning from failure" in summary_stays
    assert "matter of speed" not in summary_stays


def test_the_summary_draws_no_conclusion_about_a_gap_that_did_not_appear():
    """Issue 28: 1/√d learning by the long budget says nothing about speed without a gap."""
    runs = example_runs(searched=0.5, sqrt_long=0.99)
    text = gap_conclusion(runs, SHORT, LONG)
    assert "not reproduced" in text and "either setup" in text
    assert "matter of speed" not in text and "where the gap appears" not in text


def test_the_summary_says_where_the_gap_closes_when_it_closes_in_some_setups_only():
    runs = example_runs(sqrt_long=0.99)
    ln = runs["setup"] == "LayerNorm"
    runs.loc[ln & (runs["method"] == "sqrt_d"), "accuracy at 500 steps"] = 0.02
    runs.loc[ln & (runs["method"] == "constant"), "accuracy at 500 steps"] = 0.99
    runs.loc[ln & (runs["method"] == "sqrt_d"), "accuracy at 3000 steps"] = 0.3
    text = gap_conclusion(runs, SHORT, LONG)
    assert "learns the task in the setup “small init” but not in the other setups" in text
    runs.loc[ln & (runs["method"] == "sqrt_d"), "accuracy at 3000 steps"] = 0.99
    assert gap_conclusion(runs, SHORT, LONG).startswith(
        f"Chuang’s gap is reproduced after {SHORT} steps in both setups."
    )


def test_a_mechanism_is_offered_only_for_a_gap_that_follows_the_initial_logits():
    assert mechanism(example_runs(), SHORT).startswith("A mechanism that would fit")
    for runs in (example_runs(searched=0.5), example_runs(sqrt_short=0.99)):
        assert mechanism(runs, SHORT).startswith("These runs show no gap")
    assert "QK-norm" not in mechanism(example_runs(), SHORT)
    runs = example_runs()
    runs.loc[runs["method"] == "k_total", "method"] = "qk_norm"
    assert "QK-norm does not see the scale" in mechanism(runs, SHORT)


def test_no_gap_is_said_when_there_is_none():
    runs = example_runs(searched=0.5)
    assert gap_outcome(runs, "small init", SHORT, LONG) == "none"
    assert "not reproduced" in gap_conclusion(runs, SHORT, LONG)
    assert chuang_string_reversal(runs, SHORT, LONG).verdict is Verdict.FAILS


def test_summary_when_sqrt_d_learns_nowhere():
    runs = example_runs(sqrt_long=0.2)
    runs.loc[runs["method"] == "sqrt_d", "accuracy at 3000 steps"] = 0.2
    assert "does not learn the task where the gap appeared" in gap_conclusion(runs, SHORT, LONG)


def test_pace_story_groups_faster_same_slower_and_never():
    runs = example_runs()
    ln = runs["setup"] == "LayerNorm"
    runs.loc[ln & (runs["method"] == "constant"), "steps to target"] = 3000.0
    text = pace_story(runs, "LayerNorm", LONG, {"constant": "β", "k_total": "1/k"})
    assert "β slower" in text and "1/k does not within 3000" in text
    assert "step" not in text.replace("steps", "")  # the steps are the tables'
    runs.loc[ln & (runs["method"] == "constant"), "steps to target"] = 200.0
    assert "β faster" in pace_story(runs, "LayerNorm", LONG, {"constant": "β"})
    runs.loc[ln & (runs["method"] == "constant"), "steps to target"] = 1200.0
    assert "about the same pace" in pace_story(runs, "LayerNorm", LONG, {"constant": "β"})
    runs.loc[ln & (runs["method"] == "sqrt_d"), "steps to target"] = math.nan
    text = pace_story(runs, "LayerNorm", LONG, {"constant": "β"})
    assert "1/√d does not reach 95%" in text and "β reaches it" in text


def test_k_total_conclusion_names_where_it_learns_in_words():
    assert k_total_conclusion(example_runs(), LONG).endswith("in neither setup.")
    runs = example_runs(k_total=0.99)
    assert k_total_conclusion(runs, LONG).endswith("only in the setup “small init”.")
    runs.loc[runs["method"] == "k_total", "accuracy at 3000 steps"] = 0.99
    assert k_total_conclusion(runs, LONG).endswith("in both setups.")
    assert "%" not in k_total_conclusion(example_runs(), LONG).replace("95%", "")


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, "start smallest"),
        ({"searched": 0.5}, "in neither setup"),
    ],
)
def test_association_never_claims_a_cause(options, expected):
    text = association(example_runs(**options), SHORT)
    assert expected in text
    assert "drive" not in text and "because" not in text


def test_association_when_the_gap_does_not_follow_the_spread():
    runs = example_runs()
    runs.loc[runs["setup"] == "small init", "spread at init"] = 5.0
    assert "does not follow" in association(runs, SHORT)


def test_bernhard_performance_reaches_every_outcome_on_this_task():
    fails = bernhard_transformer_performance(example_runs(), LONG)
    assert fails.verdict is Verdict.FAILS and "names no task" in fails.check
    assert "on this task it does not perform well" in fails.measured
    caveat = bernhard_transformer_performance(example_runs(k_total=0.99), LONG)
    assert caveat.verdict is Verdict.CAVEAT and "not in “LayerNorm”" in caveat.measured
    runs = example_runs()
    runs.loc[runs["method"] == "k_total", "accuracy at 3000 steps"] = 0.99
    assert bernhard_transformer_performance(runs, LONG).verdict is Verdict.HOLDS
    runs.loc[runs["method"] == "sqrt_d", "accuracy at 3000 steps"] = 0.5
    baseless = bernhard_transformer_performance(runs, LONG)
    assert baseless.verdict is Verdict.UNTESTABLE and "no baseline" in baseless.measured
    none = bernhard_transformer_performance(example_runs().query("method != 'k_total'"), LONG)
    assert none.verdict is Verdict.UNTESTABLE


def _unit_start(runs, setups=("small init", "LayerNorm")):
    """The 1/√d spread at initialization set to 1 in ``setups``, the change kept."""
    runs = runs.copy()
    rows = runs["setup"].isin(setups)
    runs.loc[rows, "spread at end"] /= runs.loc[rows, "spread at init"]
    runs.loc[rows, "spread at init"] = 1.0
    return runs


def test_beta_only_at_init_is_untestable_when_no_setup_starts_from_the_premise():
    finding = chuang_beta_only_at_init(example_runs())  # spreads 0.002 and 0.4 at init
    assert finding.verdict is Verdict.UNTESTABLE
    assert (
        "No setup trained here starts with the 1/√d logit spread within a factor 2 of 1"
        in finding.measured
    )
    assert "rests on" not in finding.measured  # no setup to rest on
    assert finding.measured.count("premise unmet") == 2


@pytest.mark.parametrize(
    ("end", "verdict", "words"),
    [
        (3.0, Verdict.HOLDS, "1/√d stops being valid"),
        (1.5, Verdict.FAILS, "1/√d stays valid"),
        (0.3, Verdict.HOLDS, "1/√d stops being valid"),
    ],
)
def test_beta_only_at_init_holds_and_fails_from_a_unit_start(end, verdict, words):
    runs = _unit_start(example_runs())
    runs["spread at end"] = end
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is verdict and words in finding.measured
    assert "premise unmet" not in finding.measured


def test_beta_only_at_init_rests_on_the_setups_that_start_from_the_premise():
    runs = _unit_start(example_runs(), ["LayerNorm"])  # small init starts at 0.002
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is Verdict.CAVEAT
    assert "starts outside that band in: “small init”" in finding.measured
    assert "the verdict rests on: “LayerNorm”" in finding.measured
    # a counterexample where the premise holds decides, whatever the other setup does
    runs.loc[runs["setup"] == "LayerNorm", "spread at end"] = 1.0
    assert chuang_beta_only_at_init(runs).verdict is Verdict.FAILS


def test_beta_only_at_init_caveats_from_a_unit_start():
    # the spread leaves the band while σ_Wq σ_Wk stays
    runs = _unit_start(example_runs())
    runs["sigma_Wq at end"] = runs["sigma_Wq at init"]
    runs["sigma_Wk at end"] = runs["sigma_Wk at init"]
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is Verdict.CAVEAT and "something else moves it" in finding.measured
    # the seeds disagree: one leaves the band, one stays in it
    runs = _unit_start(example_runs())
    runs.loc[runs["seed"] == 1, "spread at end"] = 1.0
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is Verdict.CAVEAT and "the seeds disagree" in finding.measured


def test_a_premise_unmet_at_the_start_reads_the_same_in_both_rules():
    """Chuang's two claims about the start: neither is judged where no run starts from it."""
    beta = chuang_beta_only_at_init(example_runs())
    assumptions = chuang_assumptions_invalid(example_evaluations(unit_at_init=False))
    assert beta.verdict is assumptions.verdict is Verdict.UNTESTABLE
    for finding in (beta, assumptions):
        assert "no run starts from Chuang's premise" in finding.measured
        assert "cannot test the claim" in finding.check


@pytest.mark.parametrize(
    ("accuracy", "overlap", "verdict"),
    [
        (1.0, 0, Verdict.HOLDS),
        (0.97, 0, Verdict.HOLDS),
        (0.97, 50, Verdict.CAVEAT),
        (0.3, 0, Verdict.UNTESTABLE),
    ],
)
def test_not_memorizing_branches(accuracy, overlap, verdict):
    runs = example_runs()
    runs.loc[runs["method"] == "constant", "test accuracy at 500 steps"] = accuracy
    runs.loc[runs["method"] == "sqrt_d", "test accuracy at 500 steps"] = 0.1
    finding = chuang_not_memorizing(
        runs, [SHORT, LONG], vocab=101, length=20, parameters=4741, overlap=overlap, n_test=1000
    )
    assert finding.verdict is verdict
    assert (
        "101²⁰ ≈ 1.22 × 10⁴⁰" in finding.measured
        and "reading 'between 0 and 100' as 100" in finding.measured
    )


def _learned_early(runs):
    """Every seed of 1/√d at 99 % after the short budget too, on validation and test strings."""
    runs = runs.copy()
    sqrt = runs["method"] == "sqrt_d"
    runs.loc[sqrt, ["accuracy at 500 steps", "test accuracy at 500 steps"]] = 0.99
    return runs


def test_25000_samples_does_not_hold_only_where_sqrt_d_learns_within_the_short_budget():
    finding = chuang_25000_samples(_learned_early(example_runs()), SHORT, LONG, 15000)
    assert finding.verdict is Verdict.FAILS
    assert "with 15,000 training strings" in finding.measured
    assert "already after 500 steps" in finding.measured
    assert "(test strings)" in finding.measured and "(validation)" in finding.measured
    fewer = chuang_25000_samples(_learned_early(example_runs()), SHORT, LONG, 10000)
    assert fewer.verdict is Verdict.FAILS and "fewer than Chuang's 15,000" in fewer.measured
    late = chuang_25000_samples(example_runs(), SHORT, LONG, 15000)
    assert late.verdict is Verdict.UNTESTABLE and "turns on the training length" in late.measured


def test_25000_samples_is_untestable_where_sqrt_d_falls_short_or_trains_on_more():
    runs = example_runs()
    runs.loc[runs["method"] == "sqrt_d", "accuracy at 3000 steps"] = 0.5
    short = chuang_25000_samples(runs, SHORT, LONG, 15000)
    assert short.verdict is Verdict.UNTESTABLE
    assert "cannot tell whether 25,000 strings would lift it" in short.measured
    runs = _learned_early(example_runs())  # one seed of one setup is enough to fall short
    one = (runs["method"] == "sqrt_d") & (runs["seed"] == 1)
    runs.loc[one, "test accuracy at 500 steps"] = 0.9
    assert chuang_25000_samples(runs, SHORT, LONG, 15000).verdict is Verdict.UNTESTABLE
    more = chuang_25000_samples(_learned_early(example_runs()), SHORT, LONG, 20000)
    assert more.verdict is Verdict.UNTESTABLE and "more strings than Chuang's" in more.measured
    none = chuang_25000_samples(example_runs().query("method != 'sqrt_d'"), SHORT, LONG, 15000)
    assert none.verdict is Verdict.UNTESTABLE and "not trained" in none.measured


def test_25000_samples_reads_the_test_strings_where_they_were_scored():
    runs = _learned_early(example_runs())
    runs.loc[runs["method"] == "sqrt_d", "test accuracy at 500 steps"] = 0.9
    finding = chuang_25000_samples(runs, SHORT, LONG, 15000)
    assert finding.verdict is Verdict.UNTESTABLE and "(test strings)" in finding.measured


def test_96_half_data_does_not_hold_only_where_the_searched_beta_needs_more_data():
    both = chuang_96_half_data(example_runs(), SHORT, LONG, 15000)
    assert both.verdict is Verdict.UNTESTABLE
    assert "Both exceed 96% with 15,000 strings in “small init” after 3000 steps" in both.measured
    assert "learned β is its own addition" in both.check
    accuracies = ["accuracy at 500 steps", "accuracy at 3000 steps", "test accuracy at 500 steps"]
    runs = example_runs()
    runs.loc[runs["method"] == "sqrt_d", accuracies] = 0.99
    runs.loc[runs["method"] == "constant", accuracies] = 0.5
    fails = chuang_96_half_data(runs, SHORT, LONG, 15000)
    assert fails.verdict is Verdict.FAILS and "not half" in fails.measured
    # "can reach": one seed of the searched β above 96% at one budget is enough
    runs.loc[(runs["method"] == "constant") & (runs["seed"] == 0), "accuracy at 3000 steps"] = 0.97
    assert chuang_96_half_data(runs, SHORT, LONG, 15000).verdict is Verdict.UNTESTABLE
    # refuted at one budget only: the other budget leaves the claim open
    runs = example_runs()
    runs.loc[runs["method"] == "constant", "accuracy at 3000 steps"] = 0.5
    assert chuang_96_half_data(runs, SHORT, LONG, 15000).verdict is Verdict.UNTESTABLE


@pytest.mark.parametrize(
    ("options", "verdict"),
    [
        ({}, Verdict.HOLDS),
        ({"spread_drift": 3.0}, Verdict.FAILS),  # the sigmas do not explain the logits
        ({"sigma_x_growth": 3.0}, Verdict.CAVEAT),  # a second moving factor, learned input
        ({"sigma_w_growth": 1.0}, Verdict.FAILS),
    ],
)
def test_sigma_w_moving_factors_branches(options, verdict):
    finding = chuang_sigma_w_moving_factors(example_evaluations(**options))
    assert finding.verdict is verdict
    assert finding.claim == "chuang-sigma-w-moving-factors"


@pytest.mark.parametrize(
    ("column", "text"),
    [
        ("sigma_X", "σ_X moves too in the setup “small init”"),
        ("spread", "The formula misses the measured spread in the setup “small init”"),
    ],
)
def test_sigma_w_moving_factors_caveat_when_one_setup_departs(column, text):
    evals = example_evaluations()
    later = (evals["setup"] == "small init") & (evals["step"] > 0)
    evals.loc[later, column] *= 3.0
    finding = chuang_sigma_w_moving_factors(evals)
    assert finding.verdict is Verdict.CAVEAT
    assert finding.measured.endswith("rests on that setup alone, not on “small init”")
    assert text in finding.measured


def test_sigma_w_moving_factors_reads_only_sqrt_d_runs():
    evals = example_evaluations()
    other = example_evaluations(sigma_x_growth=3.0).assign(method="k_total")
    assert chuang_sigma_w_moving_factors(pd.concat([evals, other])).verdict is Verdict.HOLDS


@pytest.mark.parametrize(
    ("options", "verdict", "words"),
    [
        ({}, Verdict.HOLDS, "unmet from the first evaluation after it on"),
        ({"sigma_w_growth": 1.0}, Verdict.FAILS, "met at step 0 and still at the end"),
        ({"unit_at_init": False}, Verdict.UNTESTABLE, "No setup trained here meets (ii) at step 0"),
    ],
)
def test_assumptions_invalid_branches(options, verdict, words):
    finding = chuang_assumptions_invalid(example_evaluations(**options))
    assert finding.verdict is verdict
    assert words in finding.measured
    assert "rests on" not in finding.measured


def test_assumptions_invalid_rests_on_the_setups_where_ii_holds_at_step_0():
    small = example_evaluations(unit_at_init=False).query("setup == 'small init'")
    finding = chuang_assumptions_invalid(
        pd.concat([small, example_evaluations().query("setup == 'LayerNorm'")])
    )
    assert finding.verdict is Verdict.CAVEAT
    assert "unmet already at step 0 in: “small init”" in finding.measured
    assert "the verdict rests on: “LayerNorm”" in finding.measured


def test_assumptions_invalid_caveat_when_it_breaks_only_later():
    evals = example_evaluations()
    evals.loc[evals["step"] == 50, ["sigma_Wq", "sigma_Wk"]] = 0.25
    finding = chuang_assumptions_invalid(evals)
    assert finding.verdict is Verdict.CAVEAT
    assert "broken only later" in finding.measured
    assert "not recorded" in finding.check


def test_perfect_accuracy_branches():
    runs = example_runs()
    untestable = chuang_perfect_accuracy(runs, [SHORT])
    assert untestable.verdict is Verdict.UNTESTABLE
    runs["test exact at 500 steps"] = math.nan
    assert chuang_perfect_accuracy(runs, [SHORT]).verdict is Verdict.UNTESTABLE
    runs.loc[runs["method"] == "sqrt_d", "test exact at 500 steps"] = 0.999
    short = chuang_perfect_accuracy(runs, [SHORT])  # falling short cannot refute "achievable"
    assert short.verdict is Verdict.UNTESTABLE
    assert "none of the four runs" in short.measured and "cannot show" in short.measured
    runs.loc[runs.index[-1], "test exact at 500 steps"] = 1.0
    caveat = chuang_perfect_accuracy(runs, [SHORT])
    assert caveat.verdict is Verdict.CAVEAT
    assert "one of the five runs" in caveat.measured
    assert "edge-case" in caveat.measured


def _with_qk_norm(runs, like):
    qk = runs[runs["method"] == like].assign(method="qk_norm")
    return pd.concat([runs, qk], ignore_index=True)


def test_q_norm_undesirable_branches():
    runs = example_runs()
    assert bernhard_q_norm_undesirable(runs, LONG).verdict is Verdict.UNTESTABLE
    worse = bernhard_q_norm_undesirable(_with_qk_norm(runs, "k_total"), LONG)
    assert worse.verdict is Verdict.CAVEAT
    assert "proxy" in worse.measured
    same = bernhard_q_norm_undesirable(_with_qk_norm(runs, "sqrt_d"), LONG)
    assert same.verdict is Verdict.FAILS  # no harm on this task, through the proxy
    assert "as well or better in every setup" in same.measured
    assert "proxy" in same.measured


def test_q_norm_undesirable_counts_slower_as_worse_and_noise_as_equal():
    runs = _with_qk_norm(example_runs(), "sqrt_d")
    qk = runs["method"] == "qk_norm"
    runs.loc[qk & (runs["setup"] == "LayerNorm"), "steps to target"] = 2000.0
    assert bernhard_q_norm_undesirable(runs, LONG).verdict is Verdict.CAVEAT
    runs = _with_qk_norm(example_runs(), "sqrt_d")
    qk = runs["method"] == "qk_norm"
    runs.loc[qk, "accuracy at 3000 steps"] -= 0.005
    assert bernhard_q_norm_undesirable(runs, LONG).verdict is Verdict.FAILS


def test_one_seed_cannot_show_that_qk_norm_trains_worse():
    """Issue 28: with one seed the rule has no standard error, so it calls nothing worse."""
    runs = example_runs(k_total=0.99, seeds=1)
    runs.loc[runs["method"] == "k_total", "method"] = "qk_norm"
    runs.loc[runs["method"] == "qk_norm", "accuracy at 3000 steps"] = 0.9
    finding = bernhard_q_norm_undesirable(runs, LONG)
    assert finding.verdict is Verdict.UNTESTABLE
    assert "no spread to judge a difference by" in finding.measured
