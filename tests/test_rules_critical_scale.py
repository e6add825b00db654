"""The critical-scale rules, branch by branch, on synthetic sweep tables.

A synthetic table has the columns of attncore.simulate.simplex.critical_sweep: its angle
ratio is a logistic curve in ln(gamma (1 - rho)) that reaches the boundary's level
(critical_level at odds 1) at a chosen centre, with a width that may shrink with n, and a
little noise per draw, so each verdict can be reached on purpose.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from critical_tables import synthetic, two_draws
from drivers import Branches, C, Drivers, F, H, U

from attncore.checks import ParameterError
from attncore.claims import Verdict
from attncore.claims.rules import critical_scale as rules
from attncore.claims.thresholds import thresholds_of
from attncore.evidence import critical_scale as evidence
from attncore.symbolic.critical import limit_angle_ratio

thresholds = thresholds_of("critical_scale")


def off(n, rho):
    """A boundary at ln n for every rho but the largest."""
    return 1.0 if rho < 0.6 else 1.6


def partly_collapsed(n, rho):
    """A floor above collapse at the smallest rho alone."""
    return 0.3 if rho == 0.2 else 0.0


def uniform(n, rho):
    """1/√d's angle ratio falls and its entropy rises with n."""
    return 1.0 - math.log(n) / 10, math.log(n) / 10


def half_uniform(n, rho):
    """1/√d's entropy rises with n, its angle ratio stays."""
    return 0.5, math.log(n) / 10


def flat_ratio(n, rho):
    """Neither moves with n."""
    return 0.5, 0.5


def test_the_level_is_the_derived_limit_of_the_angle_ratio():
    for rho in (0.1, 0.5, 0.9):
        for odds in (0.5, 1.0, 2.0):
            p = odds / (1 + odds)
            expected = limit_angle_ratio().evaluate(rho=rho, p=p)
            assert evidence.critical_level(rho, odds) == pytest.approx(expected, rel=1e-12)


def test_the_boundary_of_a_curve_reaching_the_level_at_a_known_place_is_found_there():
    """The curves reach the level at x = 1.1: the crossing is there, inside its interval
    (widened by the grid's allowance)."""
    table = synthetic(ns=(512,), width=lambda n: 0.2, centre=lambda n, rho: 1.1)
    bounds = evidence.boundary_table(table, odds=1.0)
    assert (bounds["x_low"] <= 1.1).all() and (bounds["x_high"] >= 1.1).all()
    assert bounds["x"].to_numpy() == pytest.approx(1.1, rel=2e-3)
    expected = 1.1 / (1 - bounds["rho"].to_numpy())
    assert bounds["gamma"].to_numpy() == pytest.approx(expected, rel=2e-3)


@pytest.mark.parametrize(
    ("centre", "verdict"),
    [
        (lambda n, rho: 1.0, Verdict.HOLDS),
        (off, Verdict.CAVEAT),
        (lambda n, rho: 1.6, Verdict.FAILS),
    ],
)
def test_critical_log_n_reaches_each_verdict(centre, verdict):
    finding = rules.critical_log_n(synthetic(centre=centre))
    assert finding.verdict is verdict and finding.branch == verdict.key
    assert finding.values["n"] == 4096
    if verdict is Verdict.CAVEAT:
        assert finding.values["exceptions"] == [{"why": ["outside"], "rhos": [0.8]}]


def test_critical_log_n_is_not_testable_without_a_bracketed_crossing_or_draws():
    high = synthetic(floor=lambda n, rho: 0.99)  # above every level from the grid's start
    found = rules.critical_log_n(high)
    assert found.verdict is Verdict.UNTESTABLE and found.branch == "no-crossing"
    one_draw = synthetic(draws=1)
    assert rules.critical_log_n(one_draw).verdict is Verdict.UNTESTABLE


def test_a_rho_the_grid_does_not_bracket_gives_a_caveat():
    table = synthetic(floor=lambda n, rho: 0.99 if rho == 0.8 else 0.0)
    finding = rules.critical_log_n(table)
    assert finding.verdict is Verdict.CAVEAT
    assert finding.values["exceptions"] == [{"why": ["unbracketed"], "rhos": [0.8]}]


def test_critical_log_n_near_its_tolerance_is_marked_fragile():
    near = rules.critical_log_n(synthetic(centre=lambda n, rho: 1.12))
    assert near.verdict is Verdict.HOLDS
    flips = {f.threshold: f for f in near.fragile}
    assert "tolerance" in flips and flips["tolerance"].verdict is not Verdict.HOLDS
    assert 0.075 < flips["tolerance"].value < 0.15
    if "odds" in flips:  # a boundary near the tolerance also moves out with the level
        assert 0.5 <= flips["odds"].value <= 2
    far = rules.critical_log_n(synthetic())
    assert not far.fragile and {t.name for t in far.thresholds} == {"odds", "tolerance"}


def test_the_odds_band_moves_the_boundary_by_about_ln_2_over_the_logistic_slope():
    base = evidence.boundary_table(synthetic(ns=(512,)), odds=1.0)["x"]
    more = evidence.boundary_table(synthetic(ns=(512,)), odds=2.0)["x"]
    assert (more > base).all()


@pytest.mark.parametrize(
    ("arguments", "verdict"),
    [
        ({}, Verdict.HOLDS),
        ({"floor": partly_collapsed}, Verdict.CAVEAT),
        ({"ns": (4096,)}, Verdict.CAVEAT),
        ({"width": lambda n: 0.3, "floor": lambda n, rho: 0.3}, Verdict.FAILS),
        ({"ns": (4096,), "floor": lambda n, rho: 0.3}, Verdict.UNTESTABLE),
    ],
)
def test_phase_transition_reaches_each_verdict(arguments, verdict):
    finding = rules.phase_transition(synthetic(**arguments))
    assert finding.verdict is verdict, finding.values
    if arguments.get("ns") == (4096,):
        assert finding.branch.startswith("one-n")


def test_a_transition_that_does_not_sharpen_gives_a_caveat():
    flat = rules.phase_transition(synthetic(width=lambda n: 0.15))
    assert flat.verdict is Verdict.CAVEAT
    assert flat.values["exceptions"] == [{"why": ["blunt"], "rhos": [0.2, 0.5, 0.8]}]


def test_phase_transition_is_not_testable_when_the_grid_misses_the_factors():
    short = synthetic(gammas=np.geomspace(1.5, 3.0, 10))
    found = rules.phase_transition(short)
    assert found.verdict is Verdict.UNTESTABLE and found.branch == "off-grid"


def test_phase_transition_reports_its_thresholds_and_fragility():
    table = synthetic(floor=lambda n, rho: 0.08 if n == 4096 else 0.2)
    finding = rules.phase_transition(table)
    assert finding.verdict is Verdict.HOLDS
    names = {t.name for t in finding.thresholds}
    assert names == {"below", "above", "collapsed", "identity", "steady"}
    flips = {(f.threshold, f.verdict) for f in finding.fragile}
    assert ("collapsed", Verdict.CAVEAT) in flips


@pytest.mark.parametrize(
    ("fixed", "verdict"),
    [
        (uniform, Verdict.HOLDS),
        (half_uniform, Verdict.CAVEAT),
        (flat_ratio, Verdict.FAILS),
        (lambda n, rho: (0.1 + math.log(n) / 10, 0.9 - math.log(n) / 10), Verdict.FAILS),
    ],
)
def test_uniform_as_n_grows_reaches_each_verdict(fixed, verdict):
    finding = rules.uniform_as_n_grows(synthetic(fixed=fixed))
    assert finding.verdict is verdict, finding.values


def test_a_clear_but_small_drift_with_n_is_no_collapse():
    """Changes clear over the draws but within what counts as no change (0.05) do not show
    attention collapsing toward uniformity."""
    drift = rules.uniform_as_n_grows(
        synthetic(fixed=lambda n, rho: (0.5 + 0.002 * math.log(n), 0.5 - 0.002 * math.log(n)))
    )
    assert drift.verdict is Verdict.FAILS, drift.values


def test_uniform_as_n_grows_needs_two_n():
    table = synthetic(ns=(512,), fixed=flat_ratio)
    one = rules.uniform_as_n_grows(table)
    assert one.verdict is Verdict.UNTESTABLE and one.values["count"] == 1
    none = rules.uniform_as_n_grows(synthetic())  # no such rows
    assert none.verdict is Verdict.UNTESTABLE and none.branch == "one-n"


def test_a_ragged_grid_is_refused():
    table = synthetic(ns=(64,), draws=2)
    with pytest.raises(ParameterError, match="same gamma grid"):
        evidence.crossings(table.drop(index=[3]))


def test_the_readings_follow_the_numbers():
    table = synthetic(ns=(64, 4096))
    bounds = evidence.boundary_table(table)
    span = rules.boundary_span(bounds)
    assert span.branch == "measured" and [s["n"] for s in span.values["spans"]] == [64, 4096]
    assert span.values["rhos"] == [0.2, 0.5, 0.8]
    assert rules.boundary_span(bounds.assign(x=np.nan)).branch == "none"
    scales = pd.DataFrame({"n": 4096, "scale": ["sqrt_d", "log_n"], "gamma": [1.0, 30.0]})
    root, log = rules.scale_places(scales, bounds)
    assert root.branch == "sides" and root.values["gamma"] == 1.0
    assert root.values["sides"] == [{"side": ["below"], "rhos": [0.2, 0.5, 0.8]}]
    assert log.branch == "above" and log.values == {"scale": "ln n/√d", "gamma": 30.0}


def test_the_numbers_default_to_the_rules_thresholds():
    assert evidence.ODDS == thresholds.ODDS and evidence.LEVEL == thresholds.CONFIDENCE


# --- reachability drivers ---------------------------------------------------------------------

DRIVERS: Drivers = {
    "chen-uniform-as-n-grows": {
        H: lambda: rules.uniform_as_n_grows(synthetic(fixed=uniform)),
        C: lambda: rules.uniform_as_n_grows(synthetic(fixed=half_uniform)),
        F: lambda: rules.uniform_as_n_grows(synthetic(fixed=flat_ratio)),
        U: lambda: rules.uniform_as_n_grows(synthetic(fixed=uniform, draws=1)),
    },
    "chen-phase-transition": {
        H: lambda: rules.phase_transition(synthetic()),
        C: lambda: rules.phase_transition(synthetic(ns=(4096,))),
        F: lambda: rules.phase_transition(synthetic(width=lambda n: 0.3, floor=lambda n, rho: 0.3)),
        U: lambda: rules.phase_transition(synthetic(gammas=np.geomspace(1.5, 3.0, 10))),
    },
    "chen-critical-log-n": {
        H: lambda: rules.critical_log_n(synthetic()),
        C: lambda: rules.critical_log_n(synthetic(centre=off)),
        F: lambda: rules.critical_log_n(synthetic(centre=lambda n, rho: 1.6)),
        U: lambda: rules.critical_log_n(synthetic(draws=1)),
    },
}
"""Per claim of the chapter on the critical scale: for each verdict its rule can return, an
input that returns it (collected by ``tests/test_reachability.py``)."""

BRANCHES: Branches = {
    "chen-uniform-as-n-grows": {
        "untestable": lambda: rules.uniform_as_n_grows(
            two_draws({"fixed": flat_ratio}, {"fixed": lambda n, rho: (0.8, 0.2)})
        ),
        "one-n": lambda: rules.uniform_as_n_grows(synthetic(ns=(512,), fixed=flat_ratio)),
    },
    "chen-phase-transition": {
        "caveat": lambda: rules.phase_transition(synthetic(width=lambda n: 0.15)),
        "untestable": lambda: rules.phase_transition(two_draws({}, {"floor": lambda n, rho: 0.3})),
        "one-n-partly": lambda: rules.phase_transition(
            synthetic(ns=(4096,), floor=partly_collapsed)
        ),
        "one-n-untestable": lambda: rules.phase_transition(
            synthetic(ns=(4096,), floor=lambda n, rho: 0.3)
        ),
    },
    "chen-critical-log-n": {
        "untestable": lambda: rules.critical_log_n(
            two_draws({"centre": lambda n, rho: 1.0}, {"centre": lambda n, rho: 1.4})
        ),
    },
}
"""Per claim of the chapter on the critical scale: for each branch of its rule that no
verdict's driver takes, an input that takes it (draws that cannot tell, a single n)."""
