"""Train short, test long: the exact scoring by kinds of positions against the engine's forward
pass on whole strings and the factors at a new length (the chapter's rules are tested branch by
branch in ``tests/test_rules_length_generalization.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attncore.checks import ParameterError  # noqa: E402
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
