"""Train short, test long: the exact scoring by kinds of positions against the engine's forward
pass on whole strings, the factors at a new length, and the chapter's rules per branch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from length_tables import BAD, FLAT, FOCUSED, GOOD, MID, SAME, frame

torch = pytest.importorskip("torch")

from attncore.checks import ParameterError  # noqa: E402
from attncore.claims import Verdict  # noqa: E402
from attncore.claims.rules import length_generalization as rules  # noqa: E402
from attncore.training.engine import ensemble_forward  # noqa: E402
from attncore.training.lengths import (  # noqa: E402
    TEMPERATURES,
    first_config,
    first_strings,
    kinds_forward,
    length_factor,
    score_lengths,
    train_first,
)

METHODS = ("sqrt_d", "log_n", "learned", "ssmax_learned", "k_total", "qk_norm", "cosine_learned")


@pytest.fixture(scope="module")
def trained():
    configs = {name: first_config(name, length=6) for name in METHODS}
    return train_first(configs, seeds=[0, 1], steps=40, batch_size=8, lr=1e-2)


def test_scoring_by_kinds_is_the_engines_forward_pass_on_every_string(trained):
    """All 2^7 strings of 7 bits through the engine, against their four kinds of positions."""
    bits = 7
    grid = np.array([[(i >> j) & 1 for j in range(bits)] for i in range(2**bits)])
    tokens = torch.from_numpy(np.concatenate([np.full((len(grid), 1), 2), grid], axis=1))
    layout, weights = trained.engine.layout, trained.engine.stack.weights
    m = layout.models
    whole = ensemble_forward(layout, weights, tokens.expand(m, -1, -1))[:, :, 0]
    ones = grid[:, 1:].sum(axis=1)
    kinds = torch.from_numpy(
        np.stack([np.full(len(grid), 2), grid[:, 0], 0 * ones, 0 * ones + 1], 1)
    )
    counts = torch.from_numpy(np.stack([ones * 0 + 1, ones * 0 + 1, bits - 1 - ones, ones], 1))
    with torch.no_grad():
        by_kinds, attention, _ = kinds_forward(layout, weights, kinds, counts)
    torch.testing.assert_close(by_kinds[:, :, 0], whole, atol=2e-5, rtol=1e-4)
    assert torch.allclose(attention.sum(dim=-1), torch.ones(()), atol=1e-5)
    # the accuracy over all strings is the exact score's
    exact = score_lengths(trained, [bits])
    right = (whole.argmax(dim=-1) == tokens[:, 1]).double().mean(dim=1).numpy()
    np.testing.assert_allclose(exact["accuracy"].to_numpy(), right, atol=1e-12)


def test_scoring_in_blocks_gives_the_numbers_of_one_pass(trained, monkeypatch):
    """Long strings are scored a block of cases at a time: one case a block against all at once."""
    from attncore.training import lengths

    columns = ["accuracy", "entropy", "largest", "scale"]
    monkeypatch.setattr(lengths, "SCORE_BLOCK", 10**12)
    whole = score_lengths(trained, [6, 3000], {"qwen": "sqrt_d"})
    monkeypatch.setattr(lengths, "SCORE_BLOCK", 1)
    blocks = score_lengths(trained, [6, 3000], {"qwen": "sqrt_d"})
    np.testing.assert_allclose(blocks[columns], whole[columns], rtol=1e-12, atol=1e-15)


def test_factors_at_a_new_length_follow_the_registry():
    log_n = first_config("log_n", length=10)
    assert length_factor(log_n, 1001, 11) == pytest.approx(math.log(1001) / math.log(11))
    ssmax = first_config("ssmax_learned", length=10)
    assert length_factor(ssmax, 1001, 11) == pytest.approx(math.log(1001) / math.log(11))
    for name in ("sqrt_d", "mup", "learned", "k_total", "qk_norm", "cosine_learned"):
        assert length_factor(first_config(name, length=10), 1001, 11) == 1.0
    assert TEMPERATURES["yarn"](1100, 11) == pytest.approx((0.1 * math.log(100) + 1) ** 2)
    assert TEMPERATURES["qwen"](121, 11) == pytest.approx(2.0)
    assert TEMPERATURES["qwen"](5, 11) == TEMPERATURES["yarn"](5, 11) == 1.0


def test_a_temperature_multiplies_the_logits_of_its_models_only(trained):
    table = score_lengths(trained, [6, 500], {"qwen": "sqrt_d"})
    plain = table[(table["method"] == "sqrt_d") & (table["length"] == 500)]
    warm = table[(table["method"] == "sqrt_d + qwen") & (table["length"] == 500)]
    assert warm["factor"].to_numpy() == pytest.approx(math.log(501) / math.log(7))
    assert warm["scale"].to_numpy() == pytest.approx(plain["scale"].to_numpy() * warm["factor"])
    with pytest.raises(ParameterError, match="temperature must be one of"):
        score_lengths(trained, [6], {"rope": "sqrt_d"})


def test_first_strings_label_the_first_bit():
    x, y = first_strings(np.random.default_rng(1), (5, 3), 4)
    assert x.shape == y.shape == (5, 3, 5)
    assert (x[..., 0] == 2).all() and (y[..., 0] == x[..., 1]).all() and (y[..., 1:] == -1).all()


@pytest.mark.parametrize(
    ("sqrt_d", "log_n", "verdict"),
    [
        (BAD, GOOD, Verdict.HOLDS),
        (GOOD, GOOD, Verdict.CAVEAT),
        (BAD, MID, Verdict.CAVEAT),
        (MID, BAD, Verdict.FAILS),
    ],
)
def test_chiang_rule_reaches_each_verdict(sqrt_d, log_n, verdict):
    found = rules.chiang_log_n(frame({"sqrt_d": sqrt_d, "log_n": log_n}), 10)
    assert found.verdict == verdict, found.values


WIDE = [0.2, 1.0, 0.9]
"""Accuracies of three seeds too spread for an interval to settle anything."""


def test_undecided_seeds_make_a_rule_untestable_not_a_failure():
    chiang = rules.chiang_log_n(frame({"sqrt_d": WIDE, "log_n": WIDE}), 10)
    assert chiang.verdict == Verdict.UNTESTABLE and chiang.branch == "untestable"
    wide = {"entropy": 0.1, "largest": 0.9}
    spread = frame({"sqrt_d": GOOD, "ssmax_learned": GOOD}, sqrt_d=wide, ssmax_learned=wide)
    spread.loc[(spread["length"] == 1000) & (spread["seed"] == 0), "entropy"] = 0.9
    spread.loc[(spread["length"] == 1000) & (spread["seed"] == 1), "entropy"] = 0.0
    ssmax = rules.ssmax_flattening(spread, 10)
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
    [(GOOD, Verdict.HOLDS), (MID, Verdict.CAVEAT), (BAD, Verdict.FAILS)],
)
def test_k_total_rule_reaches_each_verdict(k_total, verdict):
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
