"""The training chapter's verdict rules and conclusions, branch by branch, on synthetic runs."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from drivers import Branches, C, Drivers, F, H, U

from attncore.claims import Finding, Verdict
from attncore.claims.rules.training import (
    association,
    bernhard_q_norm_undesirable,
    bernhard_transformer_performance,
    blog_large_logits_learning,
    chuang_96_half_data,
    chuang_25000_samples,
    chuang_assumptions_invalid,
    chuang_beta_only_at_init,
    chuang_compresses_time,
    chuang_not_memorizing,
    chuang_perfect_accuracy,
    chuang_sigma_w_moving_factors,
    chuang_string_reversal,
    embedding_dimension,
    gap_conclusion,
    gap_outcome,
    gaps,
    k_total_conclusion,
    mechanism,
    pace_story,
)
from attncore.evidence.training import example_evaluations, example_runs

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
    assert finding.values["setups"][0]["searches"] == [{"betas": [5.0, 6.0]}]
    assert finding.values["near"] == [{"near": (4, 4)}]
    far = chuang_string_reversal(runs, SHORT, LONG, {"small init": [52.6, 5], "LayerNorm": [4]})
    assert far.verdict is Verdict.CAVEAT and far.branch == "not-five"
    assert far.values["near"] == [{"near": (2, 3)}]


def test_a_setup_whose_search_finds_nothing_that_learns_cannot_test_the_gap():
    runs = example_runs(sqrt_long=0.02)
    budgets = ["accuracy at 500 steps", "accuracy at 3000 steps"]
    ln = runs["setup"] == "LayerNorm"
    runs.loc[ln & (runs["method"] == "constant"), budgets] = 0.03
    finding = chuang_string_reversal(runs, SHORT, LONG)
    assert finding.verdict is Verdict.HOLDS  # the gap at both budgets where it can be tested
    assert finding.values["rests"] == [{"untested": ["“LayerNorm”"], "tested": ["“small init”"]}]
    runs.loc[runs["method"] == "constant", budgets] = 0.03
    assert chuang_string_reversal(runs, SHORT, LONG).verdict is Verdict.UNTESTABLE


def test_conclusions_follow_the_budget_where_the_gap_closes_or_not():
    """Two budgets: at one the gap closes, at the other it does not (issue 10)."""
    closes, stays = example_runs(sqrt_long=0.99), example_runs(sqrt_long=0.24)
    assert gap_outcome(closes, "small init", SHORT, LONG) == "closes"
    assert gap_outcome(stays, "small init", SHORT, LONG) == "open"
    # the verdict is the same (the gap appears after the short budget in one setup); its
    # its values say what the long budget makes of it
    for runs, outcome in ((closes, "closes"), (stays, "open")):
        finding = chuang_string_reversal(runs, SHORT, LONG)
        assert finding.verdict is Verdict.CAVEAT
        assert finding.values["setups"][0]["outcome"] == [outcome]
    assert gap_conclusion(closes, SHORT, LONG).branch == "speed"
    assert gap_conclusion(stays, SHORT, LONG).branch == "slow"


def test_the_summary_draws_no_conclusion_about_a_gap_that_did_not_appear():
    """Issue 28: 1/√d learning by the long budget says nothing about speed without a gap."""
    runs = example_runs(searched=0.5, sqrt_long=0.99)
    found = gap_conclusion(runs, SHORT, LONG)
    assert found.branch == "none" and found.values["two"]


def test_the_summary_says_where_the_gap_closes_when_it_closes_in_some_setups_only():
    runs = example_runs(sqrt_long=0.99)
    ln = runs["setup"] == "LayerNorm"
    runs.loc[ln & (runs["method"] == "sqrt_d"), "accuracy at 500 steps"] = 0.02
    runs.loc[ln & (runs["method"] == "constant"), "accuracy at 500 steps"] = 0.99
    runs.loc[ln & (runs["method"] == "sqrt_d"), "accuracy at 3000 steps"] = 0.3
    found = gap_conclusion(runs, SHORT, LONG)
    assert found.branch == "some" and found.values["closes"] == ["“small init”"]
    runs.loc[ln & (runs["method"] == "sqrt_d"), "accuracy at 3000 steps"] = 0.99
    found = gap_conclusion(runs, SHORT, LONG)
    assert found.branch == "speed" and found.values["where"] == ["“small init”", "“LayerNorm”"]


def test_a_mechanism_is_offered_only_for_a_gap_that_follows_the_initial_logits():
    assert mechanism(example_runs(), SHORT).branch == "fits"
    for runs in (example_runs(searched=0.5), example_runs(sqrt_short=0.99)):
        assert mechanism(runs, SHORT).branch == "none"
    assert not mechanism(example_runs(), SHORT).values["qk_norm"]
    runs = example_runs()
    runs.loc[runs["method"] == "k_total", "method"] = "qk_norm"
    assert mechanism(runs, SHORT).values["qk_norm"]


def test_no_gap_is_said_when_there_is_none():
    runs = example_runs(searched=0.5)
    assert gap_outcome(runs, "small init", SHORT, LONG) == "none"
    assert gap_conclusion(runs, SHORT, LONG).branch == "none"
    assert chuang_string_reversal(runs, SHORT, LONG).verdict is Verdict.FAILS


def test_summary_when_sqrt_d_learns_nowhere():
    runs = example_runs(sqrt_long=0.2)
    runs.loc[runs["method"] == "sqrt_d", "accuracy at 3000 steps"] = 0.2
    assert gap_conclusion(runs, SHORT, LONG).branch == "slow"


def test_pace_story_groups_faster_same_slower_and_never():
    runs = example_runs()
    ln = runs["setup"] == "LayerNorm"
    runs.loc[ln & (runs["method"] == "constant"), "steps to target"] = 3000.0

    def paces(labels):
        found = pace_story(runs, "LayerNorm", LONG, labels)
        return found.branch, {g["pace"][0]: g["methods"] for g in found.values["groups"]}

    assert paces({"constant": "β", "k_total": "1/k"}) == (
        "reaches",
        {"slower": ["β"], "never": ["1/k"]},
    )
    runs.loc[ln & (runs["method"] == "constant"), "steps to target"] = 200.0
    assert paces({"constant": "β"})[1]["faster"] == ["β"]
    runs.loc[ln & (runs["method"] == "constant"), "steps to target"] = 1200.0
    assert paces({"constant": "β"})[1]["same"] == ["β"]  # two seeds each: too few to part
    runs.loc[ln & (runs["method"] == "sqrt_d"), "steps to target"] = math.nan
    branch, groups = paces({"constant": "β"})
    assert branch == "never" and groups["reached"] == ["β"]


def test_k_total_conclusion_names_where_it_learns_in_words():
    assert k_total_conclusion(example_runs(), LONG).values["learned"] == (0, 2)
    runs = example_runs(k_total=0.99)
    found = k_total_conclusion(runs, LONG)
    assert found.branch == "some" and found.values["good"] == ["“small init”"]
    runs.loc[runs["method"] == "k_total", "accuracy at 3000 steps"] = 0.99
    assert k_total_conclusion(runs, LONG).values["learned"] == (2, 2)
    untrained = k_total_conclusion(example_runs().query("method != 'k_total'"), LONG)
    assert untrained.branch == "untrained"


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, "follows"),
        ({"searched": 0.5}, "flat"),
    ],
)
def test_association_reads_where_the_gap_appears(options, expected):
    assert association(example_runs(**options), SHORT).branch == expected


def test_association_when_the_gap_does_not_follow_the_spread():
    runs = example_runs()
    runs.loc[runs["setup"] == "small init", "spread at init"] = 5.0
    assert association(runs, SHORT).branch == "apart"


def test_bernhard_performance_reaches_every_outcome_on_this_task():
    fails = bernhard_transformer_performance(example_runs(), LONG)
    assert fails.verdict is Verdict.FAILS
    assert fails.values["baseline"] == ["“small init”", "“LayerNorm”"] and not fails.values["good"]
    caveat = bernhard_transformer_performance(example_runs(k_total=0.99), LONG)
    assert caveat.verdict is Verdict.CAVEAT and caveat.values["missed"] == ["“LayerNorm”"]
    runs = example_runs()
    runs.loc[runs["method"] == "k_total", "accuracy at 3000 steps"] = 0.99
    assert bernhard_transformer_performance(runs, LONG).verdict is Verdict.HOLDS
    runs.loc[runs["method"] == "sqrt_d", "accuracy at 3000 steps"] = 0.5
    baseless = bernhard_transformer_performance(runs, LONG)
    assert baseless.verdict is Verdict.UNTESTABLE and baseless.branch == "untestable"
    assert not baseless.values["baseline"]
    none = bernhard_transformer_performance(example_runs().query("method != 'k_total'"), LONG)
    assert none.verdict is Verdict.UNTESTABLE and none.branch == "untrained"


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
    assert finding.values["rests"] == []  # no setup to rest on
    assert [r["status"] for r in finding.values["setups"]] == [["unmet"], ["unmet"]]


@pytest.mark.parametrize(
    ("end", "verdict", "status"),
    [
        (3.0, Verdict.HOLDS, "breaks"),
        (1.5, Verdict.FAILS, "stays"),
        (0.3, Verdict.HOLDS, "breaks"),
    ],
)
def test_beta_only_at_init_holds_and_fails_from_a_unit_start(end, verdict, status):
    runs = _unit_start(example_runs())
    runs["spread at end"] = end
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is verdict
    assert [r["status"] for r in finding.values["setups"]] == [[status], [status]]


def test_beta_only_at_init_rests_on_the_setups_that_start_from_the_premise():
    runs = _unit_start(example_runs(), ["LayerNorm"])  # small init starts at 0.002
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is Verdict.CAVEAT
    assert finding.values["rests"] == [{"unmet": ["“small init”"], "rest": ["“LayerNorm”"]}]
    # a counterexample where the premise holds decides, whatever the other setup does
    runs.loc[runs["setup"] == "LayerNorm", "spread at end"] = 1.0
    assert chuang_beta_only_at_init(runs).verdict is Verdict.FAILS


def test_beta_only_at_init_caveats_from_a_unit_start():
    # the spread leaves the band while σ_Wq σ_Wk stays
    runs = _unit_start(example_runs())
    runs["sigma_Wq at end"] = runs["sigma_Wq at init"]
    runs["sigma_Wk at end"] = runs["sigma_Wk at init"]
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is Verdict.CAVEAT
    assert finding.values["setups"][0]["status"] == ["alone"]
    # the seeds disagree: one leaves the band, one stays in it
    runs = _unit_start(example_runs())
    runs.loc[runs["seed"] == 1, "spread at end"] = 1.0
    finding = chuang_beta_only_at_init(runs)
    assert finding.verdict is Verdict.CAVEAT
    assert finding.values["setups"][0]["status"] == ["mixed"]


def test_a_premise_unmet_at_the_start_reads_the_same_in_both_rules():
    """Chuang's two claims about the start: neither is judged where no run starts from it."""
    beta = chuang_beta_only_at_init(example_runs())
    assumptions = chuang_assumptions_invalid(example_evaluations(unit_at_init=False))
    assert beta.verdict is assumptions.verdict is Verdict.UNTESTABLE
    for finding in (beta, assumptions):
        assert finding.branch == "untestable" and finding.values["rests"] == []
        assert {r["status"][0] for r in finding.values["setups"]} == {"unmet"}


def memorizing(accuracy: float, overlap: int) -> Finding:
    """The searched β at ``accuracy`` on test strings, ``overlap`` of them seen in training."""
    runs = example_runs()
    runs.loc[runs["method"] == "constant", "test accuracy at 500 steps"] = accuracy
    runs.loc[runs["method"] == "sqrt_d", "test accuracy at 500 steps"] = 0.1
    return chuang_not_memorizing(
        runs, [SHORT, LONG], vocab=101, length=20, parameters=4741, overlap=overlap, n_test=1000
    )


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
    finding = memorizing(accuracy, overlap)
    assert finding.verdict is verdict
    assert finding.values["strings"] == "101²⁰ ≈ 1.22 × 10⁴⁰" and finding.values["paper"]
    assert finding.values["seen"] == (overlap, 1000)


def _learned_early(runs):
    """Every seed of 1/√d at 99 % after the short budget too, on validation and test strings."""
    runs = runs.copy()
    sqrt = runs["method"] == "sqrt_d"
    runs.loc[sqrt, ["accuracy at 500 steps", "test accuracy at 500 steps"]] = 0.99
    return runs


def test_25000_samples_does_not_hold_only_where_sqrt_d_learns_within_the_short_budget():
    finding = chuang_25000_samples(_learned_early(example_runs()), SHORT, LONG, 15000)
    assert finding.verdict is Verdict.FAILS
    assert finding.values["n_train"] == 15000 and not finding.values["fewer"]
    record = finding.values["setups"][0]
    assert (record["short_strings"], record["long_strings"]) == ("test", "validation")
    fewer = chuang_25000_samples(_learned_early(example_runs()), SHORT, LONG, 10000)
    assert fewer.verdict is Verdict.FAILS and fewer.values["fewer"]
    late = chuang_25000_samples(example_runs(), SHORT, LONG, 15000)
    assert late.verdict is Verdict.UNTESTABLE and late.branch == "late"


def test_25000_samples_is_untestable_where_sqrt_d_falls_short_or_trains_on_more():
    runs = example_runs()
    runs.loc[runs["method"] == "sqrt_d", "accuracy at 3000 steps"] = 0.5
    short = chuang_25000_samples(runs, SHORT, LONG, 15000)
    assert short.verdict is Verdict.UNTESTABLE
    assert short.branch == "untestable"
    runs = _learned_early(example_runs())  # one seed of one setup is enough to fall short
    one = (runs["method"] == "sqrt_d") & (runs["seed"] == 1)
    runs.loc[one, "test accuracy at 500 steps"] = 0.9
    assert chuang_25000_samples(runs, SHORT, LONG, 15000).verdict is Verdict.UNTESTABLE
    more = chuang_25000_samples(_learned_early(example_runs()), SHORT, LONG, 20000)
    assert more.verdict is Verdict.UNTESTABLE and more.branch == "more"
    none = chuang_25000_samples(example_runs().query("method != 'sqrt_d'"), SHORT, LONG, 15000)
    assert none.verdict is Verdict.UNTESTABLE and none.branch == "untrained"


def test_25000_samples_reads_the_test_strings_where_they_were_scored():
    runs = _learned_early(example_runs())
    runs.loc[runs["method"] == "sqrt_d", "test accuracy at 500 steps"] = 0.9
    finding = chuang_25000_samples(runs, SHORT, LONG, 15000)
    assert finding.verdict is Verdict.UNTESTABLE
    assert finding.values["setups"][0]["short_strings"] == "test"


def test_96_half_data_does_not_hold_only_where_the_searched_beta_needs_more_data():
    both = chuang_96_half_data(example_runs(), SHORT, LONG, 15000)
    assert both.verdict is Verdict.UNTESTABLE and both.branch == "both"
    assert {"setup": "“small init”", "budget": 3000} in both.values["both"]
    accuracies = ["accuracy at 500 steps", "accuracy at 3000 steps", "test accuracy at 500 steps"]
    runs = example_runs()
    runs.loc[runs["method"] == "sqrt_d", accuracies] = 0.99
    runs.loc[runs["method"] == "constant", accuracies] = 0.5
    fails = chuang_96_half_data(runs, SHORT, LONG, 15000)
    assert fails.verdict is Verdict.FAILS and not fails.values["both"]
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
        ({"spread_drift": 3.0}, Verdict.HOLDS),  # the formula's fit is reported, not decisive
        ({"sigma_x_growth": 3.0}, Verdict.CAVEAT),  # a second moving factor, learned input
        ({"sigma_w_growth": 1.0}, Verdict.FAILS),
    ],
)
def test_sigma_w_moving_factors_branches(options, verdict):
    finding = chuang_sigma_w_moving_factors(example_evaluations(**options))
    assert finding.verdict is verdict
    assert finding.claim == "chuang-sigma-w-moving-factors"


@pytest.mark.parametrize(
    ("column", "departure", "verdict"),
    [("sigma_X", "moved", Verdict.CAVEAT), ("spread", "missed", Verdict.HOLDS)],
)
def test_sigma_w_moving_factors_when_one_setup_departs(column, departure, verdict):
    """σ_X moving too is a caveat; the formula missing the spread is reported, not decisive."""
    evals = example_evaluations()
    later = (evals["setup"] == "small init") & (evals["step"] > 0)
    evals.loc[later, column] *= 3.0
    finding = chuang_sigma_w_moving_factors(evals)
    assert finding.verdict is verdict
    assert finding.values[departure] == [{"where": ["“small init”"]}]
    assert [t.name for t in finding.thresholds] == ["weight_change"]


def test_sigma_w_moving_factors_reads_only_sqrt_d_runs():
    evals = example_evaluations()
    other = example_evaluations(sigma_x_growth=3.0).assign(method="k_total")
    assert chuang_sigma_w_moving_factors(pd.concat([evals, other])).verdict is Verdict.HOLDS


@pytest.mark.parametrize(
    ("options", "verdict", "status"),
    [
        ({}, Verdict.HOLDS, "breaks"),
        ({"sigma_w_growth": 1.0}, Verdict.FAILS, "stays"),
        ({"unit_at_init": False}, Verdict.UNTESTABLE, "unmet"),
    ],
)
def test_assumptions_invalid_branches(options, verdict, status):
    finding = chuang_assumptions_invalid(example_evaluations(**options))
    assert finding.verdict is verdict
    assert {r["status"][0] for r in finding.values["setups"]} == {status}
    assert finding.values["rests"] == []


def test_assumptions_invalid_rests_on_the_setups_where_ii_holds_at_step_0():
    small = example_evaluations(unit_at_init=False).query("setup == 'small init'")
    finding = chuang_assumptions_invalid(
        pd.concat([small, example_evaluations().query("setup == 'LayerNorm'")])
    )
    assert finding.verdict is Verdict.CAVEAT
    assert finding.values["rests"] == [{"unmet": ["“small init”"], "rest": ["“LayerNorm”"]}]


def test_assumptions_invalid_caveat_when_it_breaks_only_later():
    evals = example_evaluations()
    evals.loc[evals["step"] == 50, ["sigma_Wq", "sigma_Wk"]] = 0.25
    finding = chuang_assumptions_invalid(evals)
    assert finding.verdict is Verdict.CAVEAT
    assert {r["status"][0] for r in finding.values["setups"]} == {"later"}


def test_perfect_accuracy_branches():
    runs = example_runs()
    untestable = chuang_perfect_accuracy(runs, [SHORT])
    assert untestable.verdict is Verdict.UNTESTABLE and untestable.branch == "unmeasured"
    runs["test exact at 500 steps"] = math.nan
    assert chuang_perfect_accuracy(runs, [SHORT]).verdict is Verdict.UNTESTABLE
    runs.loc[runs["method"] == "sqrt_d", "test exact at 500 steps"] = 0.999
    short = chuang_perfect_accuracy(runs, [SHORT])  # falling short cannot refute "achievable"
    assert short.verdict is Verdict.UNTESTABLE
    assert short.branch == "untestable" and short.values["perfect"] == (0, 4)
    runs.loc[runs.index[-1], "test exact at 500 steps"] = 1.0
    caveat = chuang_perfect_accuracy(runs, [SHORT])
    assert caveat.verdict is Verdict.CAVEAT
    assert caveat.values["perfect"] == (1, 5) and caveat.values["best"] == 1.0


def _with_qk_norm(runs, like):
    qk = runs[runs["method"] == like].assign(method="qk_norm")
    return pd.concat([runs, qk], ignore_index=True)


def test_q_norm_undesirable_branches():
    runs = example_runs()
    assert bernhard_q_norm_undesirable(runs, LONG).verdict is Verdict.UNTESTABLE
    worse = bernhard_q_norm_undesirable(_with_qk_norm(runs, "k_total"), LONG)
    assert worse.verdict is Verdict.CAVEAT
    assert worse.values["worse"] == ["“small init”", "“LayerNorm”"]
    same = bernhard_q_norm_undesirable(_with_qk_norm(runs, "sqrt_d"), LONG)
    assert (same.branch, same.verdict) == ("fails", Verdict.UNTESTABLE)  # no harm, via a proxy
    assert same.values["worse"] == []


def test_q_norm_undesirable_counts_slower_as_worse_and_noise_as_equal():
    runs = _with_qk_norm(example_runs(), "sqrt_d")
    qk = runs["method"] == "qk_norm"
    runs.loc[qk & (runs["setup"] == "LayerNorm"), "steps to target"] = 2000.0
    assert bernhard_q_norm_undesirable(runs, LONG).verdict is Verdict.CAVEAT
    runs = _with_qk_norm(example_runs(), "sqrt_d")
    qk = runs["method"] == "qk_norm"
    runs.loc[qk, "accuracy at 3000 steps"] -= 0.005
    assert bernhard_q_norm_undesirable(runs, LONG).branch == "fails"


def _qk_accuracies(values, setup="LayerNorm"):
    """Runs of three seeds with QK-norm copied from 1/√d (at 99 %), and QK-norm's accuracies
    in ``setup`` set to ``values`` (one per seed)."""
    runs = _with_qk_norm(example_runs(seeds=3), "sqrt_d")
    rows = (runs["method"] == "qk_norm") & (runs["setup"] == setup)
    runs.loc[rows, "accuracy at 3000 steps"] = values
    return runs


def test_q_norm_cannot_tell_where_the_seeds_place_it_neither_worse_nor_as_good():
    finding = bernhard_q_norm_undesirable(_qk_accuracies([0.99, 0.95, 0.93]), LONG)
    assert finding.verdict is Verdict.UNTESTABLE and finding.branch == "cannot-tell"
    assert finding.values["unclear"] == ["“LayerNorm”"] and finding.values["worse"] == []


def test_q_norm_a_tie_of_seeds_alike_is_as_good_not_noise():
    # 99 % against 99 % in every seed of both: no spread, and no gap to be unsure of
    runs = _with_qk_norm(example_runs(seeds=3), "sqrt_d")
    finding = bernhard_q_norm_undesirable(runs, LONG)
    assert finding.branch == "fails"
    assert [r["se"] for r in finding.values["setups"]] == ["0.0%", "0.0%"]


def test_q_norm_lower_is_corrected_over_the_setups():
    # 2.2 points lower at t = -3.8 over three seeds (p = 0.031): below 5 % alone, not for two
    finding = bernhard_q_norm_undesirable(_qk_accuracies([0.978, 0.968, 0.958]), LONG)
    assert finding.branch == "cannot-tell"
    clear_drop = bernhard_q_norm_undesirable(_qk_accuracies([0.951, 0.95, 0.949]), LONG)
    assert clear_drop.verdict is Verdict.CAVEAT and clear_drop.values["worse"] == ["“LayerNorm”"]


def test_one_seed_cannot_show_that_qk_norm_trains_worse():
    """Issue 28: with one seed the rule has no standard error, so it calls nothing worse."""
    runs = example_runs(k_total=0.99, seeds=1)
    runs.loc[runs["method"] == "k_total", "method"] = "qk_norm"
    runs.loc[runs["method"] == "qk_norm", "accuracy at 3000 steps"] = 0.9
    finding = bernhard_q_norm_undesirable(runs, LONG)
    assert finding.verdict is Verdict.UNTESTABLE
    assert finding.branch == "one-seed"


def test_a_method_whose_every_seed_is_earlier_is_faster_even_within_the_factor():
    """Learned β at 700-1050 steps against 1/√d at 1150-1500 (medians a factor 1.39 apart,
    under FAST): no seed overlaps, so the pace is faster, not "about the same"."""
    steps = {"sqrt_d": [1150.0, 1250.0, 1500.0], "learned": [700.0, 900.0, 1050.0]}
    runs = pd.DataFrame(
        [
            {"setup": "LayerNorm", "method": m, "seed": i, "steps to target": s}
            for m, seeds in steps.items()
            for i, s in enumerate(seeds)
        ]
    )
    groups = pace_story(runs, "LayerNorm", LONG).values["groups"]
    assert groups == [{"methods": ["learned"], "pace": ["faster"]}]
    runs.loc[runs["method"] == "learned", "steps to target"] = [1100.0, 1200.0, 1300.0]
    groups = pace_story(runs, "LayerNorm", LONG).values["groups"]
    assert groups == [{"methods": ["learned"], "pace": ["same"]}]


# ---- reachability drivers ---------------------------------------------------------------------

ACCURACIES = ["accuracy at 500 steps", "accuracy at 3000 steps"]


def set_method(table: pd.DataFrame, method: str, columns, value) -> pd.DataFrame:
    table = table.copy()
    table.loc[table["method"] == method, columns] = value
    return table


def half(sqrt: float, searched: float) -> pd.DataFrame:
    table = set_method(example_runs(), "sqrt_d", [*ACCURACIES, "test accuracy at 500 steps"], sqrt)
    return set_method(table, "constant", [*ACCURACIES, "test accuracy at 500 steps"], searched)


def perfect(best: float) -> Finding:
    table = example_runs()
    table["test exact at 500 steps"] = 0.9
    table.loc[0, "test exact at 500 steps"] = best
    return chuang_perfect_accuracy(table, [SHORT])


def everywhere(betas: dict[str, list[float]]) -> Finding:
    """Chuang's gap in every setup at both budgets, with the searches' ``betas``."""
    table = set_method(example_runs(), "sqrt_d", ACCURACIES, 0.01)
    return chuang_string_reversal(set_method(table, "constant", ACCURACIES, 1), SHORT, LONG, betas)


def samples(table: pd.DataFrame, n_train: int = 15000) -> Finding:
    return chuang_25000_samples(table, SHORT, LONG, n_train)


def scan(big: float = 0.01, small: float = 0.97, spread: float = 90.0) -> pd.DataFrame:
    """Two setups' search runs at 100 steps (and at 50, where nothing learns yet): β 0.1
    starts spread by 0.9 and reaches ``small``; β 100 starts spread by ``spread`` and reaches
    ``big``."""
    rows = [
        {"setup": setup, "steps per run": steps, "β": beta, "accuracy": acc, "spread at init": s}
        for setup in ("a", "b")
        for steps in (50, 100)
        for beta, acc, s in ((0.1, small if steps == 100 else 0.1, 0.9), (100.0, big, spread))
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("kwargs", "branch", "verdict"),
    [
        ({}, "holds", Verdict.CAVEAT),  # the mechanism, the gradients, is not recorded
        ({"big": 0.96}, "fails", Verdict.FAILS),
        ({"small": 0.5}, "untestable", Verdict.UNTESTABLE),
        ({"spread": 5.0}, "no-contrast", Verdict.UNTESTABLE),
    ],
)
def test_large_logits_slow_learning_per_branch(kwargs, branch, verdict) -> None:
    found = blog_large_logits_learning(scan(**kwargs))
    assert (found.branch, found.verdict) == (branch, verdict), found.values
    assert found.values["shown"] == (2 if branch == "holds" else 0)


def paces(ln_sqrt_d: float = 1000.0, small_sqrt_d: float = 2500.0, cost: int = 0) -> Finding:
    """The time half of C25 on the example runs, 1/√d reaching 95 % at ``ln_sqrt_d`` steps in
    "LayerNorm" and ``small_sqrt_d`` in "small init" (the searched β at 1000 in both), its
    search costing ``cost`` steps in each setup."""
    runs = example_runs()
    for setup, steps in (("LayerNorm", ln_sqrt_d), ("small init", small_sqrt_d)):
        runs.loc[(runs["setup"] == setup) & (runs["method"] == "sqrt_d"), "steps to target"] = steps
    return chuang_compresses_time(runs, {"LayerNorm": cost, "small init": cost})


@pytest.mark.parametrize(
    ("kwargs", "branch", "verdict"),
    [
        ({"ln_sqrt_d": 5000.0, "small_sqrt_d": 5000.0}, "holds", Verdict.CAVEAT),  # data untested
        ({"cost": 9000}, "without-cost", Verdict.CAVEAT),
        ({"small_sqrt_d": 1000.0}, "fails", Verdict.FAILS),
    ],
)
def test_the_searched_beta_saves_time_only_if_its_search_is_free(kwargs, branch, verdict) -> None:
    found = paces(**kwargs)
    assert (found.branch, found.verdict) == (branch, verdict), found.values


def test_no_setup_with_both_methods_cannot_tell_the_time() -> None:
    runs = example_runs()
    found = chuang_compresses_time(runs[runs["method"] != "constant"], {})
    assert found.verdict is Verdict.UNTESTABLE


DRIVERS: Drivers = {
    "chuang-compresses-data-and-time": {
        C: lambda: paces(cost=9000),
        F: lambda: paces(small_sqrt_d=1000.0),
        U: lambda: chuang_compresses_time(example_runs().query("method != 'constant'"), {}),
    },
    "blog-vanishing-gradients-learning": {
        F: lambda: blog_large_logits_learning(scan(big=0.96)),
        U: lambda: blog_large_logits_learning(scan(small=0.5)),
        C: lambda: blog_large_logits_learning(scan()),
    },
    "chuang-string-reversal": {
        H: lambda: everywhere({"small init": [5.0], "LayerNorm": [4.0]}),
        C: lambda: chuang_string_reversal(example_runs(), SHORT, LONG),
        F: lambda: chuang_string_reversal(example_runs(searched=0.5), SHORT, LONG),
        U: lambda: chuang_string_reversal(
            set_method(example_runs(), "constant", ACCURACIES, 0.03), SHORT, LONG
        ),
    },
    "chuang-25000-samples": {
        F: lambda: samples(_learned_early(example_runs())),
        U: lambda: samples(example_runs()),
    },
    "chuang-96-half-data": {
        F: lambda: chuang_96_half_data(half(0.99, 0.5), SHORT, LONG, 15000),
        U: lambda: chuang_96_half_data(example_runs(), SHORT, LONG, 15000),
    },
    "chuang-not-memorizing": {
        H: lambda: memorizing(0.99, 0),
        C: lambda: memorizing(0.99, 50),
        U: lambda: memorizing(0.3, 0),
    },
    "chuang-perfect-accuracy": {
        C: lambda: perfect(1.0),
        U: lambda: perfect(0.95),
    },
    "chuang-beta-only-at-init": {
        H: lambda: chuang_beta_only_at_init(_unit_start(example_runs())),
        C: lambda: chuang_beta_only_at_init(_unit_start(example_runs(), ["small init"])),
        F: lambda: chuang_beta_only_at_init(_unit_start(example_runs(spread_end=1.0))),
        U: lambda: chuang_beta_only_at_init(example_runs()),
    },
    "chuang-assumptions-invalid-in-training": {
        H: lambda: chuang_assumptions_invalid(example_evaluations()),
        C: lambda: chuang_assumptions_invalid(
            pd.concat(
                [
                    example_evaluations(unit_at_init=False).query("setup == 'small init'"),
                    example_evaluations().query("setup == 'LayerNorm'"),
                ]
            )
        ),
        F: lambda: chuang_assumptions_invalid(example_evaluations(sigma_w_growth=1.0)),
        U: lambda: chuang_assumptions_invalid(example_evaluations(unit_at_init=False)),
    },
    "chuang-sigma-w-moving-factors": {
        H: lambda: chuang_sigma_w_moving_factors(example_evaluations()),
        C: lambda: chuang_sigma_w_moving_factors(example_evaluations(sigma_x_growth=3.0)),
        F: lambda: chuang_sigma_w_moving_factors(example_evaluations(sigma_w_growth=1.0)),
        U: lambda: chuang_sigma_w_moving_factors(example_evaluations().query("method != 'sqrt_d'")),
    },
    "bernhard-transformer-performance": {
        H: lambda: bernhard_transformer_performance(
            set_method(example_runs(), "k_total", "accuracy at 3000 steps", 0.99), LONG
        ),
        C: lambda: bernhard_transformer_performance(example_runs(k_total=0.99), LONG),
        F: lambda: bernhard_transformer_performance(example_runs(), LONG),
        U: lambda: bernhard_transformer_performance(
            example_runs().query("method != 'k_total'"), LONG
        ),
    },
    "bernhard-q-norm-undesirable": {
        C: lambda: bernhard_q_norm_undesirable(_with_qk_norm(example_runs(), "k_total"), LONG),
        U: lambda: bernhard_q_norm_undesirable(example_runs(), LONG),
    },
    "blog-embedding-dimension": {
        C: lambda: embedding_dimension(16, 1),
        F: lambda: embedding_dimension(16, 2),
    },
}
"""Per claim of the string-reversal chapter: for each verdict its rule can return, an input
that returns it (collected by ``tests/test_reachability.py``)."""

BRANCHES: Branches = {
    "chuang-compresses-data-and-time": {
        "holds": lambda: paces(ln_sqrt_d=5000.0, small_sqrt_d=5000.0),
    },
    "blog-vanishing-gradients-learning": {
        "no-contrast": lambda: blog_large_logits_learning(scan(spread=5.0)),
    },
    "chuang-string-reversal": {
        "not-five": lambda: everywhere({"small init": [52.6, 5.0], "LayerNorm": [4.0]}),
    },
    "chuang-25000-samples": {
        "untestable": lambda: samples(
            set_method(example_runs(), "sqrt_d", "accuracy at 3000 steps", 0.5)
        ),
        "more": lambda: samples(_learned_early(example_runs()), 20000),
        "untrained": lambda: samples(example_runs().query("method != 'sqrt_d'")),
    },
    "chuang-96-half-data": {
        "untestable": lambda: chuang_96_half_data(half(0.5, 0.5), SHORT, LONG, 15000),
    },
    "chuang-not-memorizing": {
        "unmeasured": lambda: chuang_not_memorizing(
            example_runs().drop(columns="test accuracy at 500 steps"),
            [SHORT, LONG],
            vocab=101,
            length=20,
            parameters=4741,
            overlap=0,
            n_test=1000,
        ),
    },
    "chuang-perfect-accuracy": {
        "unmeasured": lambda: chuang_perfect_accuracy(example_runs(), [SHORT]),
    },
    "bernhard-transformer-performance": {
        "untestable": lambda: bernhard_transformer_performance(
            set_method(example_runs(), "sqrt_d", "accuracy at 3000 steps", 0.5), LONG
        ),
    },
    "bernhard-q-norm-undesirable": {
        "fails": lambda: bernhard_q_norm_undesirable(_with_qk_norm(example_runs(), "sqrt_d"), LONG),
        "one-seed": lambda: bernhard_q_norm_undesirable(
            _with_qk_norm(example_runs(k_total=0.99, seeds=1), "k_total"), LONG
        ),
        "cannot-tell": lambda: bernhard_q_norm_undesirable(
            _qk_accuracies([0.99, 0.95, 0.93]), LONG
        ),
    },
}
"""Per claim of the string-reversal chapter: for each branch of its rule that no verdict's
driver takes, an input that takes it (nothing trained or measured, one seed, another reason
for the same verdict)."""
