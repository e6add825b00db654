"""A run that cannot tell does not read as a result: the rules of the chapters on length
generalization, the critical scale and training stability return "not testable here" where
their draws or seeds cannot decide, print no interval from fewer draws than it needs (never a
NaN), and order no methods whose measurements the seeds do not tell apart."""

from __future__ import annotations

import math

import length_tables as lt
import numpy as np
import pandas as pd
import pytest
from critical_tables import synthetic
from stability_tables import alike, flat_loss, steady_logit, sweep, u_loss

from attncore.book.figures_critical_scale import boundary_by
from attncore.claims import Verdict
from attncore.claims.rules import critical_scale as crit
from attncore.claims.rules import length_generalization as lengths
from attncore.claims.rules import stability as stab
from attncore.evidence import length_generalization as length_evidence
from attncore.evidence import stability as stab_evidence

U = Verdict.UNTESTABLE

# --- length generalization --------------------------------------------------------------------


def test_one_seed_prints_the_accuracy_and_no_interval_never_nan() -> None:
    table = lt.frame({"sqrt_d": [0.5], "log_n": [1.0], "sqrt_d + qwen": [1.0]})
    summary = length_evidence.summary(table)
    cells = [length_evidence.accuracy_text(row) for _, row in summary.iterrows()]
    assert cells[0] == "1.000 (one seed, no interval)"
    assert not any("nan" in cell for cell in cells)
    temperatures = length_evidence.temperature_table(table, {"sqrt_d + qwen": "Q"})
    text = " ".join(temperatures.to_numpy().ravel())
    assert "nan" not in text and "one seed, no interval" in text
    one = lt.frame({m: [0.5] for m in ("sqrt_d", "log_n", "k_total", "ssmax_learned")})
    for rule in (lengths.chiang_log_n, lengths.k_total_long, lengths.ssmax_flattening):
        found = rule(one, 10)
        assert found.verdict is U and found.branch == "one-seed"


def test_chiang_with_an_undecided_difference_is_not_a_failure() -> None:
    """ln n/√d clearly unsolved, but whether it is above 1/√d the seeds cannot tell: a
    caveat (clearly above) and a failure (clearly not) are both open."""
    found = lengths.chiang_log_n(
        lt.frame({"sqrt_d": [0.6, 0.95, 0.7], "log_n": [0.8, 0.82, 0.84]}), 10
    )
    assert found.verdict is U and found.branch == "untestable", found.values


def test_k_total_whose_interval_reaches_across_chance_is_not_a_failure() -> None:
    found = lengths.k_total_long(
        lt.frame({"sqrt_d": [0.5, 0.7, 0.6], "k_total": [0.45, 0.7, 0.6]}), 10
    )
    assert found.verdict is U and found.branch == "guessing", found.values
    at_chance = lengths.k_total_long(lt.frame({"sqrt_d": lt.MID, "k_total": [0.5] * 3}), 10)
    assert at_chance.verdict is U, at_chance.values  # a possibility one rescaling leaves open


def test_ssmax_whose_focus_the_seeds_cannot_place_is_not_a_failure() -> None:
    """1/√d clearly does not flatten, but whether SSMax is more focused is open."""
    table = lt.frame(
        {"sqrt_d": lt.GOOD, "ssmax_learned": lt.GOOD}, sqrt_d=lt.SAME, ssmax_learned=lt.SAME
    )
    longest = (table["method"] == "ssmax_learned") & (table["length"] == 1000)
    table.loc[longest, "largest"] = [0.95, 0.85, 0.9]
    found = lengths.ssmax_flattening(table, 10)
    assert found.verdict is U and found.branch == "untestable", found.values


def test_the_longest_reading_says_undecided_not_unsolved() -> None:
    table = lt.frame({"sqrt_d": [1.0, 0.6, 0.9], "log_n": lt.GOOD})
    found = lengths.longest_outcomes(table, {"sqrt_d": "A", "log_n": "B"})
    assert [(r.branch, r.values["methods"]) for r in found] == [
        ("solved", ["B"]),
        ("undecided", ["A"]),
    ]


# --- critical scale ---------------------------------------------------------------------------


def _two_draws(**each: dict) -> pd.DataFrame:
    """Two synthetic draws that disagree: draw 0 from ``each["first"]``, draw 1 from
    ``each["second"]`` (arguments of :func:`synthetic`), so the intervals are wide."""
    first = synthetic(draws=1, **each["first"])
    second = synthetic(draws=1, **each["second"]).assign(draw=1)
    return pd.concat([first, second], ignore_index=True)


def test_a_boundary_the_draws_cannot_place_is_not_a_failure() -> None:
    table = _two_draws(first={"centre": lambda n, rho: 1.0}, second={"centre": lambda n, rho: 1.4})
    found = crit.critical_log_n(table)
    assert found.verdict is U and found.branch == "untestable", found.values
    assert any(e["why"] == ["unclear"] for e in found.values["exceptions"])


def test_a_transition_the_draws_cannot_place_is_not_a_failure() -> None:
    table = _two_draws(first={}, second={"floor": lambda n, rho: 0.3})
    found = crit.phase_transition(table)
    assert found.verdict is U and found.branch == "untestable", found.values
    assert found.values["undecided"]


def test_a_change_with_n_the_draws_cannot_place_is_not_a_failure() -> None:
    table = _two_draws(
        first={"fixed": lambda n, rho: (0.5, 0.5)}, second={"fixed": lambda n, rho: (0.8, 0.2)}
    )
    found = crit.uniform_as_n_grows(table)
    assert found.verdict is U and found.branch == "untestable", found.values
    assert found.values["undecided"]
    flat = crit.uniform_as_n_grows(synthetic(fixed=lambda n, rho: (0.5, 0.5)))
    assert flat.verdict is Verdict.FAILS and [t.name for t in flat.thresholds] == ["steady"]


def test_a_scale_inside_the_boundarys_interval_is_not_put_on_a_side() -> None:
    table = pd.DataFrame({"n": 512, "scale": ["sqrt_d", "log_n"], "gamma": [1.3, 8.0]})
    bounds = pd.DataFrame(
        {"n": 512, "rho": [0.2, 0.8], "gamma": [1.33, 5.1], "gamma_low": [1.2, 5.0],
         "gamma_high": [1.5, 5.2]}
    )  # fmt: skip
    root, log = crit.scale_places(table, bounds)
    assert root.branch == "sides" and root.values["gamma"] == 1.3
    assert root.values["sides"] == [
        {"side": ["below"], "rhos": [0.8]},
        {"side": ["unclear"], "rhos": [0.2]},
    ]
    assert log.branch == "above" and log.values["gamma"] == 8.0


def test_a_boundary_from_one_draw_prints_no_interval() -> None:
    bounds = pd.DataFrame(
        {"n": 64, "rho": [0.2, 0.5], "gamma_c": [1.25, 2.0], "x": [1.01, np.nan],
         "x_low": [np.nan, np.nan], "x_high": [np.nan, np.nan], "draws": [1, 0]}
    )  # fmt: skip
    cells = boundary_by(bounds)["n = 64"].tolist()
    assert cells == ["1.010 (one draw, no interval)", "not bracketed"]


# --- training stability -----------------------------------------------------------------------


def test_one_seed_orders_no_methods() -> None:
    runs, _ = sweep(seeds=1)
    assert stab.sensitivity_order(runs).branch == "one-seed"


def test_sensitivities_all_zero_are_not_ranked() -> None:
    """Every method reaches its best loss at every rate over three seeds: 0.000 ± 0.000."""
    same = alike(lambda lr, seed: 0.3 + 0.01 * seed)
    runs, _ = sweep(sqrt_d=same, qk_norm=same, sigma_reparam=same)
    assert (stab_evidence.lr_sensitivity(runs)["sensitivity"] == 0).all()
    order = stab.sensitivity_order(runs)
    assert order.branch == "alike" and order.values["spread"] == (0.0, 0.0)
    found = stab.lower_sensitivity("wortsman-mitigations-effective", runs, "qk_norm")
    assert found.verdict is U, found.values


def test_a_loss_rise_the_seeds_cannot_place_is_not_a_failure() -> None:
    def noisy_top(lr: float, seed: int) -> float:
        """Best at 1e-2; at the highest rate higher on average, within the seeds' noise."""
        if lr == 1.0:
            return 0.2 + (0.5, -0.1, 0.1)[seed]
        return 0.2 if lr == 1e-2 else 0.6

    found = stab.logit_growth(*sweep(sqrt_d=(noisy_top, steady_logit, lambda lr, s: 1.5)))
    assert found.verdict is U and found.branch == "untestable", found.values


def test_a_correlation_neither_clearly_negative_nor_positive_is_not_a_failure() -> None:
    def entropy(lr: float, seed: int) -> float:  # the cell, the unit, alternates with the rate
        return 0.6 - 0.1 * (round(math.log10(lr)) % 2)

    def other(lr: float, seed: int) -> float:
        return 0.5 + 0.1 * (round(math.log10(lr)) % 2)

    losses = {"sqrt_d": u_loss, "qk_norm": flat_loss, "sigma_reparam": flat_loss}
    shapes = {"sqrt_d": entropy, "qk_norm": entropy, "sigma_reparam": other}
    behaviour = {method: alike(loss, shapes[method]) for method, loss in losses.items()}
    found = stab.entropy_with_instability(*sweep(**behaviour))
    assert found.verdict is U and found.branch == "untestable", found.values


@pytest.mark.parametrize(
    "rule",
    [
        lambda runs, curves: stab.logit_growth(runs, curves),
        lambda runs, curves: stab.lower_sensitivity(
            "zhai-sigma-reparam-robust", runs, "sigma_reparam"
        ),
        lambda runs, curves: stab.entropy_with_instability(runs, curves),
        lambda runs, curves: stab.prevents_collapse(runs, curves, 10),
    ],
)
def test_every_stability_rule_says_why_one_seed_cannot_tell(rule) -> None:
    found = rule(*sweep(seeds=1))
    assert found.verdict is U and found.branch == "one-seed"
