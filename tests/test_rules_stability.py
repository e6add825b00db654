"""The stability chapter's rules, branch by branch, on synthetic sweeps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from drivers import Branches, C, Driver, Drivers, F, H, U
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

from attncore.book import figures_stability as figures
from attncore.claims import Verdict
from attncore.claims.rules import stability as rules
from attncore.evidence import stability as evidence


def noisy_lower(lr, seed):
    """1/√d's rises scaled by a factor per seed: smaller on average, with noise larger than
    the gap."""
    return 0.2 + (u_loss(lr, 0) - 0.2) * (0.5, 1.25, 0.95)[seed]


def narrow(lr: float, seed: int) -> float:
    """Best at 1e-2 alone, and near the initial loss at every other rate."""
    return (0.2 if lr == 1e-2 else 2.3) + 0.01 * seed


def wobbly(lr: float, seed: int) -> float:
    """1/√d's losses, shifted up or down by seed: a difference of either sign."""
    return u_loss(lr, seed) + (0.3, -0.2, 0.1)[seed] * (lr in (1e-3, 1e-1))


def unclear_rise(lr: float, seed: int) -> float:
    """Best at 1e-2; above it higher on average, within the seeds' noise."""
    return 0.2 if lr == 1e-2 else 0.25 + (0.1, -0.1, 0.0)[seed]


def collapses_once(lr: float, seed: int) -> float:
    """Collapsed at the highest rate alone."""
    return 0.01 + 0.001 * seed if lr >= 1.0 else 1.5 + 0.01 * seed


def barely(lr: float, seed: int) -> float:
    """Above collapse, and within the seeds' noise of 1/√d's collapsed entropy."""
    return (0.3, 0.0, 0.6)[seed] if lr > 1e-2 else 1.0 + 0.01 * seed


ENTROPY_RISING = {
    "sqrt_d": alike(u_loss),
    "qk_norm": alike(flat_loss),
    "sigma_reparam": alike(flat_loss),
}
"""Every method's entropy equal to its loss: highest, not lowest, where a run is unstable."""
ENTROPY_UNRELATED = {
    m: alike(loss, unrelated_entropy) for m, (loss, _, _) in ENTROPY_RISING.items()
}
"""The same losses, with an entropy nearly unrelated to them."""


def test_lr_sensitivity_is_wortsmans_mean_rise_over_the_best():
    runs, _ = sweep(seeds=1)
    sens = evidence.lr_sensitivity(runs).set_index("method")
    rises = [min(u_loss(lr, 0), 2.4) - u_loss(1e-2, 0) for lr in (1e-3, 1e-2, 1e-1, 1.0)]
    assert sens.loc["sqrt_d", "sensitivity"] == pytest.approx(sum(rises) / 4)
    assert sens.loc["sqrt_d", "best_lr"] == 1e-2 and sens.loc["sqrt_d", "diverged"] == 1


def test_logit_growth_needs_both_the_growth_and_the_loss():
    runs, curves = sweep()
    grows = rules.logit_growth(runs, curves)  # holds, for the instability it tests
    assert (grows.branch, grows.verdict) == ("holds", C)
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
    lower = rules.lower_sensitivity(claim, runs, method)  # holds, for what the sweep tests
    assert (lower.branch, lower.verdict) == ("holds", C)
    worse = (narrow, steady_logit, high_entropy)
    assert rules.lower_sensitivity(claim, sweep(**{method: worse})[0], method).verdict is F
    noisy = (noisy_lower, steady_logit, high_entropy)
    found = rules.lower_sensitivity(claim, sweep(**{method: noisy})[0], method)
    assert found.verdict is C, found.values
    assert rules.lower_sensitivity(claim, sweep(seeds=1)[0], method).verdict is U


def test_lower_sensitivity_reads_every_width():
    claim, worse = "wortsman-mitigations-effective", (narrow, steady_logit, high_entropy)
    noisy = (noisy_lower, steady_logit, high_entropy)
    flat = (flat_loss, steady_logit, high_entropy)
    both = sweep(widths=(16, 32))[0]
    assert rules.lower_sensitivity(claim, both, "qk_norm").branch == "holds"
    assert rules.lower_sensitivity(claim, both, "qk_norm").values["places"] == 2
    # clearly below at one width, below but not clearly at the other: a caveat
    mixed = sweep(widths=(16, 32), qk_norm={16: flat, 32: noisy})[0]
    assert rules.lower_sensitivity(claim, mixed, "qk_norm").verdict is C
    # clearly above at one width, clearly below at the other: it fails
    split = sweep(widths=(16, 32), qk_norm={16: flat, 32: worse})[0]
    found = rules.lower_sensitivity(claim, split, "qk_norm")
    assert (found.verdict, found.values["above"]) == (F, 1)


def test_lower_sensitivity_reads_every_width_of_every_sweep():
    claim, worse = "wortsman-mitigations-effective", (narrow, steady_logit, high_entropy)
    build = sweep(widths=(16, 32))[0].assign(sweep="build")
    kept = sweep(widths=(16, 64), qk_norm={16: worse, 64: worse})[0].assign(sweep="kept")
    alone = rules.lower_sensitivity(claim, build, "qk_norm")
    assert alone.branch == "holds"
    found = rules.lower_sensitivity(claim, pd.concat([build, kept], ignore_index=True), "qk_norm")
    assert (found.verdict, found.values["above"], found.values["places"]) == (F, 2, 4)
    assert found.values["closest"][0]["sweep"] == "kept sweep"  # the clearest above
    lone = sweep(widths=(16,), seeds=1)[0].assign(sweep="build")
    alone_seed = rules.lower_sensitivity(claim, pd.concat([lone, kept]), "qk_norm")
    assert alone_seed.branch == "one-seed"  # a single seed in one sweep decides nothing


def test_width_trend_per_branch():
    def table(base, mitigation):
        rows = []
        for method, (first, last) in (("sqrt_d", base), ("qk_layernorm", mitigation)):
            for width, value in ((16, first), (64, last)):
                rows.append({"width": width, "method": method, "lr_sensitivity": value,
                             "lr_sensitivity_low": value - 0.05,
                             "lr_sensitivity_high": value + 0.05, "seeds": 5})  # fmt: skip
        return pd.DataFrame(rows)

    assert rules.width_trend(table((0.4, 0.9), (0.2, 0.22))).branch == "grows-flattened"
    assert rules.width_trend(table((0.4, 0.9), (0.2, 0.5))).branch == "grows-both"
    assert rules.width_trend(table((0.4, 0.45), (0.2, 0.5))).branch == "no-growth"
    falling = rules.width_trend(table((0.9, 0.4), (0.2, 0.2)))
    assert (falling.branch, falling.values["baseline"]["change"]) == ("no-growth", "falls")
    one = table((0.4, 0.9), (0.2, 0.2)).query("width == 16")
    assert rules.width_trend(one).branch == "one-width"


def test_width_sensitivity_takes_the_cell_as_its_unit():
    runs, _ = sweep(seeds=4)
    table = evidence.width_sensitivity(runs, 0.95, draws=500).set_index("method")
    means = evidence.capped(runs).groupby(["method", "lr"])["loss"].mean()
    for method in ("sqrt_d", "qk_norm"):
        curve = means.loc[method]
        assert table.loc[method, "lr_sensitivity"] == pytest.approx(curve.mean() - curve.min())
        low, high = table.loc[method, ["lr_sensitivity_low", "lr_sensitivity_high"]]
        assert low <= table.loc[method, "lr_sensitivity"] <= high
    assert (table["seeds"] == 4).all()


def test_entropy_with_instability_per_branch():
    assert rules.entropy_with_instability(*sweep()).verdict is H
    assert rules.entropy_with_instability(*sweep(**ENTROPY_RISING)).verdict is F
    assert rules.entropy_with_instability(*sweep(**ENTROPY_UNRELATED)).verdict is C
    assert rules.entropy_with_instability(*sweep(seeds=1)).verdict is U


def level_loss(lr: float, seed: int) -> float:
    """The same loss at every rate: a method that learns wherever it is trained."""
    return 0.2 + 0.02 * seed


def test_prevents_collapse_per_branch():
    runs, curves = sweep()
    found = rules.prevents_collapse(runs, curves, LENGTH)
    assert (found.branch, found.verdict) == ("holds", C)  # a caveat by its part
    assert [t.name for t in found.thresholds] == ["collapse"]
    same = alike(u_loss, collapsing_entropy)  # σReparam collapses too, its loss rising
    assert rules.prevents_collapse(*sweep(sigma_reparam=same), LENGTH).verdict is F
    learns = alike(level_loss, collapsing_entropy)  # as low, but still learning: its solution
    found = rules.prevents_collapse(*sweep(sigma_reparam=learns), LENGTH)
    assert found.verdict is U and found.branch == "sigma-solution"
    once = alike(flat_loss, collapses_once)
    assert rules.prevents_collapse(*sweep(sigma_reparam=once), LENGTH).verdict is C
    calm = (u_loss, growing := steady_logit, high_entropy)
    assert rules.prevents_collapse(*sweep(sqrt_d=calm), LENGTH).verdict is U
    assert growing is steady_logit
    assert rules.prevents_collapse(*sweep(seeds=1), LENGTH).verdict is U
    solved = (unclear_rise, steady_logit, collapsing_entropy)  # low entropy, no clear rise
    found = rules.prevents_collapse(*sweep(sqrt_d=solved), LENGTH)
    assert found.verdict is U and found.branch == "solution"


def test_the_table_and_the_sentence_say_each_method_once():
    runs, _ = sweep()
    table = figures.sensitivity_table(runs)
    assert list(table["method"]) == ["1/√d", "QK-norm", "σReparam"]
    assert table.loc[0, "non-finite runs"] == "3 of 12"
    order = rules.sensitivity_order(runs)
    assert order.branch == "ordered"
    assert order.values["groups"] == [{"methods": ["QK-norm", "σReparam"]}, {"methods": ["1/√d"]}]
    assert isinstance(table, pd.DataFrame)


def test_a_difference_the_seeds_cannot_place_is_undecided_not_a_failure() -> None:
    found = rules.lower_sensitivity(
        "wortsman-mitigations-effective", sweep(qk_norm=alike(wobbly))[0], "qk_norm"
    )
    assert found.verdict == Verdict.UNTESTABLE and found.branch == "untestable", found.values


def test_sigma_reparam_that_does_not_collapse_but_is_not_clearly_higher_is_undecided() -> None:
    found = rules.prevents_collapse(*sweep(sigma_reparam=alike(flat_loss, barely)), LENGTH)
    assert found.verdict == Verdict.UNTESTABLE and found.branch == "untestable", found.values


# --- reachability drivers ---------------------------------------------------------------------


def sensitivity_drivers(claim: str, method: str) -> dict[Verdict, Driver]:
    return {
        C: lambda: rules.lower_sensitivity(claim, sweep(**{method: alike(noisy_lower)})[0], method),
        F: lambda: rules.lower_sensitivity(claim, sweep(**{method: alike(narrow)})[0], method),
        U: lambda: rules.lower_sensitivity(claim, sweep(seeds=1)[0], method),
    }


DRIVERS: Drivers = {
    "wortsman-small-models-unstable": {
        C: lambda: rules.logit_growth(*sweep(sqrt_d=(u_loss, steady_logit, high_entropy))),
        F: lambda: rules.logit_growth(*sweep(sqrt_d=alike(falling_loss, high_entropy))),
        U: lambda: rules.logit_growth(*sweep(seeds=1)),
    },
    "wortsman-mitigations-effective": sensitivity_drivers(
        "wortsman-mitigations-effective", "qk_norm"
    ),
    "zhai-sigma-reparam-robust": sensitivity_drivers("zhai-sigma-reparam-robust", "sigma_reparam"),
    # the rule is the same for any method: the tables hold QK-norm, which stands in for cosine
    "liu-cosine-attention-stability": sensitivity_drivers(
        "liu-cosine-attention-stability", "qk_norm"
    ),
    "zhai-low-entropy-unstable": {
        H: lambda: rules.entropy_with_instability(*sweep()),
        C: lambda: rules.entropy_with_instability(*sweep(**ENTROPY_UNRELATED)),
        F: lambda: rules.entropy_with_instability(*sweep(**ENTROPY_RISING)),
        U: lambda: rules.entropy_with_instability(*sweep(seeds=1)),
    },
    "zhai-sigma-reparam-prevents-collapse": {
        C: lambda: rules.prevents_collapse(
            *sweep(sigma_reparam=alike(flat_loss, collapses_once)), LENGTH
        ),
        F: lambda: rules.prevents_collapse(
            *sweep(sigma_reparam=alike(u_loss, collapsing_entropy)), LENGTH
        ),
        U: lambda: rules.prevents_collapse(*sweep(sqrt_d=alike(u_loss, high_entropy)), LENGTH),
    },
}
"""Per claim of the stability chapter: for each verdict its rule can return, an input that
returns it (collected by ``tests/test_reachability.py``)."""


def noisy_top(lr: float, seed: int) -> float:
    """Best at 1e-2; at the highest rate higher on average, within the seeds' noise."""
    if lr == 1.0:
        return 0.2 + (0.5, -0.1, 0.1)[seed]
    return 0.2 if lr == 1e-2 else 0.6


def undecided_entropy(lr: float, seed: int) -> float:
    """Alternating with the rate, the same in every seed: a cell's mean varies, the loss not
    with it."""
    return 0.6 - 0.1 * (round(np.log10(lr)) % 2)


def other_entropy(lr: float, seed: int) -> float:
    return 0.5 + 0.1 * (round(np.log10(lr)) % 2)


def undecided_sensitivity(claim: str, method: str) -> dict[str, Driver]:
    return {
        "holds": lambda: rules.lower_sensitivity(claim, sweep()[0], method),
        "untestable": lambda: rules.lower_sensitivity(
            claim, sweep(**{method: alike(wobbly)})[0], method
        ),
        "one-seed": lambda: rules.lower_sensitivity(claim, sweep(seeds=1)[0], method),
    }


BRANCHES: Branches = {
    "wortsman-mitigations-effective": undecided_sensitivity(
        "wortsman-mitigations-effective", "qk_norm"
    ),
    "zhai-sigma-reparam-robust": undecided_sensitivity(
        "zhai-sigma-reparam-robust", "sigma_reparam"
    ),
    "liu-cosine-attention-stability": undecided_sensitivity(
        "liu-cosine-attention-stability", "qk_norm"
    ),
    "wortsman-small-models-unstable": {
        "holds": lambda: rules.logit_growth(*sweep()),
        "untestable": lambda: rules.logit_growth(
            *sweep(sqrt_d=(noisy_top, steady_logit, lambda lr, seed: 1.5))
        ),
        "no-logits": lambda: rules.logit_growth(
            *sweep(sqrt_d=(u_loss, lambda lr, seed: float("nan"), high_entropy))
        ),
    },
    "zhai-low-entropy-unstable": {
        "too-few": lambda: rules.entropy_with_instability(*sweep(lrs=(1e-2,))),
        "untestable": lambda: rules.entropy_with_instability(
            *sweep(
                sqrt_d=alike(u_loss, undecided_entropy),
                qk_norm=alike(flat_loss, undecided_entropy),
                sigma_reparam=alike(flat_loss, other_entropy),
            )
        ),
    },
    "zhai-sigma-reparam-prevents-collapse": {
        "holds": lambda: rules.prevents_collapse(*sweep(), LENGTH),  # a caveat by its part
        "no-collapse": lambda: rules.prevents_collapse(
            *sweep(sqrt_d=alike(u_loss, high_entropy)), LENGTH
        ),
        "solution": lambda: rules.prevents_collapse(
            *sweep(sqrt_d=(unclear_rise, steady_logit, collapsing_entropy)), LENGTH
        ),
        "untestable": lambda: rules.prevents_collapse(
            *sweep(sigma_reparam=alike(flat_loss, barely)), LENGTH
        ),
        "one-seed": lambda: rules.prevents_collapse(*sweep(seeds=1), LENGTH),
        "sigma-solution": lambda: rules.prevents_collapse(
            *sweep(sigma_reparam=alike(level_loss, collapsing_entropy)), LENGTH
        ),
    },
}
"""Per claim of the stability chapter: for each branch of its rule that no verdict's driver
takes, an input that takes it (one seed, no logits recorded, nothing to prevent)."""
