"""The length-generalization chapter's rules, branch by branch, on synthetic score tables."""

from __future__ import annotations

import pandas as pd
import pytest
from drivers import Branches, C, Drivers, F, H, U
from length_tables import BAD, FLAT, FOCUSED, GOOD, MID, SAME, frame

from attncore.claims import Finding, Verdict
from attncore.claims.rules import length_generalization as rules
from attncore.claims.thresholds import thresholds_of
from attncore.evidence import length_generalization as evidence
from attncore.simulate.first_construction import cross_entropy_table

CONFIDENCE = thresholds_of("length_generalization").CONFIDENCE


@pytest.mark.parametrize(
    ("sqrt_d", "log_n", "branch", "verdict"),
    [
        (BAD, GOOD, "holds", Verdict.CAVEAT),  # the abstract's machine translation is untested
        (GOOD, GOOD, "both-solved", Verdict.CAVEAT),
        (BAD, MID, "above-unsolved", Verdict.CAVEAT),
        (MID, BAD, "fails", Verdict.FAILS),
    ],
)
def test_chiang_rule_reaches_each_verdict(sqrt_d, log_n, branch, verdict):
    found = rules.chiang_log_n(frame({"sqrt_d": sqrt_d, "log_n": log_n}), 10)
    assert (found.branch, found.verdict) == (branch, verdict), found.values


WIDE = [0.2, 1.0, 0.9]
"""Accuracies of three seeds too spread for an interval to settle anything."""


def undecided_attention() -> pd.DataFrame:
    """1/√d's entropy at the longest length spread too wide for the seeds to tell a change."""
    wide = {"entropy": 0.1, "largest": 0.9}
    table = frame({"sqrt_d": GOOD, "ssmax_learned": GOOD}, sqrt_d=wide, ssmax_learned=wide)
    table.loc[(table["length"] == 1000) & (table["seed"] == 0), "entropy"] = 0.9
    table.loc[(table["length"] == 1000) & (table["seed"] == 1), "entropy"] = 0.0
    return table


def test_undecided_seeds_make_a_rule_untestable_not_a_failure():
    chiang = rules.chiang_log_n(frame({"sqrt_d": WIDE, "log_n": WIDE}), 10)
    assert chiang.verdict == Verdict.UNTESTABLE and chiang.branch == "untestable"
    ssmax = rules.ssmax_flattening(undecided_attention(), 10)
    assert ssmax.verdict == Verdict.UNTESTABLE and ssmax.branch == "untestable"


def test_a_method_unsolved_at_the_training_length_leaves_the_claim_untestable():
    table = frame({"sqrt_d": BAD, "log_n": GOOD, "k_total": GOOD})
    table.loc[(table["method"] == "sqrt_d") & (table["length"] == 10), "accuracy"] = 0.7
    for rule in (rules.chiang_log_n, rules.k_total_long):
        found = rule(table, 10)
        assert found.verdict == Verdict.UNTESTABLE and found.branch == "not-learned"
        assert found.values["train_length"] == 10
        assert [m["method"] for m in found.values["unlearned"]] == ["1/√d"]


def test_rules_are_untestable_with_one_seed_or_no_longer_length():
    one = frame({"sqrt_d": [0.5], "log_n": [1.0], "ssmax_learned": [1.0], "k_total": [0.5]})
    assert rules.chiang_log_n(one, 10).verdict == Verdict.UNTESTABLE
    short = frame({"sqrt_d": BAD, "log_n": GOOD}, length=10)
    assert rules.chiang_log_n(short, 10).verdict == Verdict.UNTESTABLE
    assert rules.k_total_long(one, 10).verdict == Verdict.UNTESTABLE
    assert rules.ssmax_flattening(one, 10).verdict == Verdict.UNTESTABLE


def test_ssmax_rule_reaches_each_verdict():
    flat, focused, same = FLAT, FOCUSED, SAME
    holds = frame({"sqrt_d": MID, "ssmax_learned": GOOD}, sqrt_d=flat, ssmax_learned=focused)
    assert rules.ssmax_flattening(holds, 10).verdict == Verdict.HOLDS
    caveat = frame({"sqrt_d": MID, "ssmax_learned": GOOD}, sqrt_d=flat, ssmax_learned=flat)
    assert rules.ssmax_flattening(caveat, 10).verdict == Verdict.CAVEAT
    fails = frame({"sqrt_d": GOOD, "ssmax_learned": GOOD}, sqrt_d=same, ssmax_learned=same)
    assert rules.ssmax_flattening(fails, 10).verdict == Verdict.FAILS


@pytest.mark.parametrize(
    ("k_total", "verdict"),
    [(GOOD, Verdict.HOLDS), (MID, Verdict.CAVEAT), (BAD, Verdict.UNTESTABLE)],
)
def test_k_total_rule_reaches_each_verdict(k_total, verdict):
    """1/k_total failing to carry over leaves Bernhard's possibility open: not testable."""
    table = frame({"sqrt_d": MID if k_total is MID else GOOD, "k_total": k_total})
    found = rules.k_total_long(table, 10)
    assert found.verdict == verdict
    assert found.values["key_growth"] == pytest.approx(1001 / 11)
    assert found.values["fall"] == pytest.approx(1.0)


def test_the_chapters_readings_name_every_method():
    table = frame({"sqrt_d": BAD, "log_n": GOOD, "sqrt_d + qwen": GOOD})
    labels = {"sqrt_d": "A", "log_n": "B", "sqrt_d + qwen": "C"}
    found = rules.longest_outcomes(table, labels)
    assert [(r.branch, r.values["methods"], r.values["many"]) for r in found] == [
        ("solved", ["B", "C"], True),
        ("not solved", ["A"], False),
    ]
    reading = rules.temperature_reading(table, {"sqrt_d + qwen": "C"})
    assert reading.branch == "paired" and reading.values["longest"] == 1000
    assert reading.values["temperatures"] == [
        {"label": "C", "change": ["raises"], "gap": ["level"]}
    ]


def test_the_numbers_default_to_the_rules_confidence():
    assert evidence.LEVEL == CONFIDENCE


# --- reachability drivers ---------------------------------------------------------------------


def unlearned(method: str, other: str) -> pd.DataFrame:
    """A score table whose ``method`` did not solve FIRST at the training length."""
    table = frame({method: BAD, other: GOOD})
    table.loc[(table["method"] == method) & (table["length"] == 10), "accuracy"] = 0.7
    return table


def chiang(sqrt_d: list[float], log_n: list[float], **extra) -> Finding:
    return rules.chiang_log_n(frame({"sqrt_d": sqrt_d, "log_n": log_n}, **extra), 10)


def long_strings(sqrt_d: list[float], k_total: list[float], **extra) -> Finding:
    return rules.k_total_long(frame({"sqrt_d": sqrt_d, "k_total": k_total}, **extra), 10)


def flattening(table: pd.DataFrame) -> Finding:
    return rules.ssmax_flattening(table, 10)


def constructed(lengths=(10, 1000, 100_000), scales=(1.0, 100.0), eps=0.0) -> Finding:
    return rules.layer_norm_cross_entropy(cross_entropy_table(lengths, scales, eps), eps)


def test_layer_norm_rule_reads_one_scale_over_every_length():
    found = constructed()
    assert (found.branch, found.verdict) == ("holds", C)  # C: PARITY and their weights untested
    assert found.values["scale"] == 100.0 and found.values["plain"] > 0.99
    # PyTorch's default epsilon drowns the 1/n signal at long strings: no scale is enough
    failed = constructed(eps=1e-5)
    assert failed.verdict is F and failed.values["worst_length"] == 100_000
    # strings too short for Hahn's limitation: the plain network is as good
    assert constructed(lengths=(10, 20), scales=(1.0, 1000.0)).branch == "without-too"


DRIVERS: Drivers = {
    "chiang-first-log-n": {
        C: lambda: chiang(GOOD, GOOD),
        F: lambda: chiang(MID, BAD),
        U: lambda: chiang([0.5], [1.0]),
    },
    "nakanishi-ssmax-flattening": {
        H: lambda: flattening(
            frame({"sqrt_d": MID, "ssmax_learned": GOOD}, sqrt_d=FLAT, ssmax_learned=FOCUSED)
        ),
        C: lambda: flattening(
            frame({"sqrt_d": MID, "ssmax_learned": GOOD}, sqrt_d=FLAT, ssmax_learned=FLAT)
        ),
        F: lambda: flattening(
            frame({"sqrt_d": GOOD, "ssmax_learned": GOOD}, sqrt_d=SAME, ssmax_learned=SAME)
        ),
        U: lambda: flattening(frame({"sqrt_d": GOOD})),
    },
    "chiang-layer-norm-cross-entropy": {
        C: constructed,
        F: lambda: constructed(eps=1e-5),
    },
    "bernhard-k-total-long-strings": {
        H: lambda: long_strings(GOOD, GOOD),
        C: lambda: long_strings(MID, MID),
        U: lambda: long_strings(GOOD, GOOD, length=10),
    },
}
"""Per claim of the chapter on length generalization: for each verdict its rule can return, an
input that returns it (collected by ``tests/test_reachability.py``)."""

BRANCHES: Branches = {
    "chiang-first-log-n": {
        "holds": lambda: chiang(BAD, GOOD),
        "not-clearly-above": lambda: chiang([1.0, 1.0, 0.7], GOOD),
        "above-unsolved": lambda: chiang(BAD, MID),
        "untestable": lambda: chiang(WIDE, WIDE),
        "no-models": lambda: rules.chiang_log_n(frame({"sqrt_d": GOOD}), 10),
        "no-longer-length": lambda: chiang(BAD, GOOD, length=10),
        "not-learned": lambda: rules.chiang_log_n(unlearned("sqrt_d", "log_n"), 10),
    },
    "nakanishi-ssmax-flattening": {
        "untestable": lambda: flattening(undecided_attention()),
        "one-seed": lambda: flattening(frame({"sqrt_d": [0.5], "ssmax_learned": [1.0]})),
        "no-longer-length": lambda: flattening(
            frame({"sqrt_d": GOOD, "ssmax_learned": GOOD}, length=10)
        ),
    },
    "chiang-layer-norm-cross-entropy": {
        "without-too": lambda: constructed(lengths=(10, 20), scales=(1.0, 1000.0)),
    },
    "bernhard-k-total-long-strings": {
        "fails": lambda: long_strings(GOOD, BAD),  # a possibility: not testable here
        "below": lambda: long_strings(GOOD, [0.97, 0.975, 0.98]),
        "chance": lambda: long_strings([0.5, 0.45, 0.55], [0.48, 0.48, 0.49]),
        "untestable": lambda: long_strings(GOOD, WIDE),
        "guessing": lambda: long_strings([0.5, 0.7, 0.6], [0.45, 0.7, 0.6]),
        "one-seed": lambda: long_strings([0.5], [0.5]),
        "no-models": lambda: rules.k_total_long(frame({"sqrt_d": GOOD}), 10),
        "not-learned": lambda: rules.k_total_long(unlearned("k_total", "sqrt_d"), 10),
    },
}
"""Per claim of the chapter on length generalization: for each branch of its rule that no
verdict's driver takes, an input that takes it (a caveat or an undecided run for another
reason, a run that cannot decide the rule)."""


@pytest.mark.parametrize(
    ("ours", "theirs", "side"),
    [
        ([0.5, 0.55, 0.52], [0.5, 0.56, 0.54, 0.52], "agrees"),
        ([0.9, 0.95, 0.92], [0.5, 0.56, 0.54, 0.52], "above"),
        ([0.2, 0.25, 0.22], [0.5, 0.56, 0.54, 0.52], "below"),
        ([0.9], [0.5, 0.56, 0.54, 0.52], "alone"),
    ],
)
def test_the_replication_comparison_reaches_each_side(ours, theirs, side):
    scores = pd.DataFrame({"train_length": 10, "method": "standard", "length": 1000,
                           "seed": range(len(ours)), "accuracy": ours})  # fmt: skip
    differences = evidence.replication_differences(scores, {("standard", 10): theirs}, 1000, 100)
    reading = rules.replication_agreement(differences)
    if side == "agrees":
        assert reading.branch == "alike" and reading.values["count"] == 1
    else:
        assert reading.branch == "compared" and reading.values["rows"][0]["side"] == [side]


def test_the_replication_comparison_says_none_without_a_published_row():
    scores = pd.DataFrame({"train_length": 7, "method": "standard", "length": 1000,
                           "seed": [0, 1], "accuracy": [0.5, 0.6]})  # fmt: skip
    differences = evidence.replication_differences(
        scores, {("standard", 10): [0.5, 0.6]}, 1000, 100
    )
    assert rules.replication_agreement(differences).branch == "none"


def test_the_welch_interval_is_scipys_where_the_runs_spread_more_than_their_strings():
    from scipy import stats

    ours, theirs = [0.5, 0.62, 0.71, 0.55], [0.45, 0.5, 0.61, 0.4, 0.52]
    scores = pd.DataFrame({"train_length": 10, "method": "standard", "length": 1000,
                           "seed": range(4), "accuracy": ours})  # fmt: skip
    row = evidence.replication_differences(scores, {("standard", 10): theirs}, 1000, 10**6).iloc[0]
    low, high = stats.ttest_ind(ours, theirs, equal_var=False).confidence_interval(0.95)
    assert (row["difference"] - row["half"], row["difference"] + row["half"]) == pytest.approx(
        (low, high)
    )


def test_runs_right_on_every_string_still_leave_room_for_a_difference():
    """1.000 here and 20 runs of 100 of 100 there: alike, not an interval of width 0 that a
    rounding error of 1e-15 would put clearly below."""
    scores = pd.DataFrame({"train_length": 100, "method": "log_n", "length": 1000,
                           "seed": range(20), "accuracy": 1.0 - 1e-15})  # fmt: skip
    differences = evidence.replication_differences(scores, {("log_n", 100): [1.0] * 20}, 1000, 100)
    assert rules.replication_agreement(differences).branch == "alike"
    assert differences["half"].iloc[0] > 1e-3
