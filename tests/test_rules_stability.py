"""The stability chapter's rules, branch by branch, on synthetic sweeps."""

from __future__ import annotations

import pandas as pd
import pytest
from stability_tables import (
    LENGTH,
    alike,
    collapsing_entropy,
    falling_loss,
    flat_loss,
    high_entropy,
    steady_logit,
    sweep,
    u_loss,
    unrelated_entropy,
)

from attncore.claims import Verdict
from attncore.claims.rules import stability as rules

H, C, F, U = Verdict.HOLDS, Verdict.CAVEAT, Verdict.FAILS, Verdict.UNTESTABLE


def noisy_lower(lr, seed):
    """1/√d's rises scaled by a factor per seed: smaller on average, with noise larger than
    the gap."""
    return 0.2 + (u_loss(lr, 0) - 0.2) * (0.5, 1.25, 0.95)[seed]


def test_lr_sensitivity_is_wortsmans_mean_rise_over_the_best():
    runs, _ = sweep(seeds=1)
    sens = rules.lr_sensitivity(runs).set_index("method")
    rises = [min(u_loss(lr, 0), 2.4) - u_loss(1e-2, 0) for lr in (1e-3, 1e-2, 1e-1, 1.0)]
    assert sens.loc["sqrt_d", "sensitivity"] == pytest.approx(sum(rises) / 4)
    assert sens.loc["sqrt_d", "best_lr"] == 1e-2 and sens.loc["sqrt_d", "diverged"] == 1


def test_logit_growth_needs_both_the_growth_and_the_loss():
    runs, curves = sweep()
    assert rules.logit_growth(runs, curves).verdict is H
    steady = (u_loss, steady_logit, high_entropy)
    assert rules.logit_growth(*sweep(sqrt_d=steady)).verdict is C
    assert rules.logit_growth(*sweep(sqrt_d=alike(falling_loss, high_entropy))).verdict is F
    assert rules.logit_growth(*sweep(seeds=1)).verdict is U


def test_growth_threshold_is_named_and_not_deciding_here():
    finding = rules.logit_growth(*sweep())
    assert [t.name for t in finding.thresholds] == ["growth"] and not finding.fragile


@pytest.mark.parametrize(
    ("method", "claim"),
    [("qk_norm", "wortsman-mitigations-effective"), ("sigma_reparam", "zhai-sigma-reparam-robust")],
)
def test_lower_sensitivity_per_branch(method, claim):
    runs, _ = sweep()
    assert rules.lower_sensitivity(claim, runs, method).verdict is H
    narrow = lambda lr, seed: (0.2 if lr == 1e-2 else 2.3) + 0.01 * seed  # noqa: E731
    worse = (narrow, steady_logit, high_entropy)
    assert rules.lower_sensitivity(claim, sweep(**{method: worse})[0], method).verdict is F
    noisy = (noisy_lower, steady_logit, high_entropy)
    found = rules.lower_sensitivity(claim, sweep(**{method: noisy})[0], method)
    assert found.verdict is C, found.values
    assert rules.lower_sensitivity(claim, sweep(seeds=1)[0], method).verdict is U


def test_entropy_with_instability_per_branch():
    assert rules.entropy_with_instability(*sweep()).verdict is H
    rising = {
        "sqrt_d": alike(u_loss),
        "qk_norm": alike(flat_loss),
        "sigma_reparam": alike(flat_loss),
    }
    assert rules.entropy_with_instability(*sweep(**rising)).verdict is F
    unrelated = {m: (loss, e, unrelated_entropy) for m, (loss, e, _) in rising.items()}
    assert rules.entropy_with_instability(*sweep(**unrelated)).verdict is C
    assert rules.entropy_with_instability(*sweep(seeds=1)).verdict is U


def test_prevents_collapse_per_branch():
    runs, curves = sweep()
    found = rules.prevents_collapse(runs, curves, LENGTH)
    assert found.verdict is H and [t.name for t in found.thresholds] == ["collapse"]
    same = (flat_loss, steady_logit, lambda lr, seed: 0.01 + 0.001 * seed if lr > 1e-2 else 1.0)
    assert rules.prevents_collapse(*sweep(sigma_reparam=same), LENGTH).verdict is F
    once = (flat_loss, steady_logit,
            lambda lr, seed: 0.01 + 0.001 * seed if lr >= 1.0 else 1.5 + 0.01 * seed)  # fmt: skip
    assert rules.prevents_collapse(*sweep(sigma_reparam=once), LENGTH).verdict is C
    calm = (u_loss, growing := steady_logit, high_entropy)
    assert rules.prevents_collapse(*sweep(sqrt_d=calm), LENGTH).verdict is U
    assert growing is steady_logit
    assert rules.prevents_collapse(*sweep(seeds=1), LENGTH).verdict is U

    def unclear_rise(lr, seed):
        return 0.2 if lr == 1e-2 else 0.25 + (0.1, -0.1, 0.0)[seed]

    solved = (unclear_rise, steady_logit, collapsing_entropy)  # low entropy, no clear rise
    found = rules.prevents_collapse(*sweep(sqrt_d=solved), LENGTH)
    assert found.verdict is U and found.branch == "solution"


def test_the_table_and_the_sentence_say_each_method_once():
    runs, _ = sweep()
    table = rules.sensitivity_table(runs)
    assert list(table["method"]) == ["1/√d", "QK-norm", "σReparam"]
    assert table.loc[0, "diverged runs"] == "3 of 12"
    order = rules.sensitivity_order(runs)
    assert order.branch == "ordered"
    assert order.values["groups"] == [{"methods": ["QK-norm", "σReparam"]}, {"methods": ["1/√d"]}]
    assert isinstance(table, pd.DataFrame)


def test_a_difference_the_seeds_cannot_place_is_undecided_not_a_failure() -> None:
    def wobbly(lr: float, seed: int) -> float:
        """1/√d's losses, shifted up or down by seed: a difference of either sign."""
        return u_loss(lr, seed) + (0.3, -0.2, 0.1)[seed] * (lr in (1e-3, 1e-1))

    found = rules.lower_sensitivity(
        "wortsman-mitigations-effective", sweep(qk_norm=alike(wobbly))[0], "qk_norm"
    )
    assert found.verdict == Verdict.UNTESTABLE and found.branch == "untestable", found.values


def test_sigma_reparam_that_does_not_collapse_but_is_not_clearly_higher_is_undecided() -> None:
    def barely(lr: float, seed: int) -> float:
        """Above collapse, and within the seeds' noise of 1/√d's collapsed entropy."""
        return (0.3, 0.0, 0.6)[seed] if lr > 1e-2 else 1.0 + 0.01 * seed

    found = rules.prevents_collapse(*sweep(sigma_reparam=alike(flat_loss, barely)), LENGTH)
    assert found.verdict == Verdict.UNTESTABLE and found.branch == "untestable", found.values
