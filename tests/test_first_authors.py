"""The authors' FIRST setup against PyTorch's own encoder, and its exact score against every
string of a length enumerated."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from attncore.checks import ParameterError
from attncore.training.first_authors import (
    AuthorsSetup,
    authors_forward,
    initial_weights,
    score_authors,
    train_authors,
)
from attncore.training.lengths import CLS


def _pytorch_model(weights: dict[str, torch.Tensor], setup: AuthorsSetup):
    """PyTorch's modules, as the authors' code builds them, holding ``weights``."""
    d = setup.d_model
    layers = []
    for i in range(setup.n_layers):
        layer = torch.nn.TransformerEncoderLayer(
            d, nhead=1, dim_feedforward=setup.d_ff, dropout=0.0
        )
        layer.norm1.eps = layer.norm2.eps = setup.eps
        p = f"layer{i}."
        with torch.no_grad():
            layer.self_attn.in_proj_weight.copy_(weights[p + "in_weight"])
            layer.self_attn.in_proj_bias.copy_(weights[p + "in_bias"])
            layer.self_attn.out_proj.weight.copy_(weights[p + "out_weight"])
            layer.self_attn.out_proj.bias.copy_(weights[p + "out_bias"])
            for name in ("norm1", "norm2"):
                getattr(layer, name).weight.copy_(weights[f"{p}{name}_weight"])
                getattr(layer, name).bias.copy_(weights[f"{p}{name}_bias"])
            for name, key in (("linear1", "ff1"), ("linear2", "ff2")):
                getattr(layer, name).weight.copy_(weights[f"{p}{key}_weight"])
                getattr(layer, name).bias.copy_(weights[f"{p}{key}_bias"])
        layers.append(layer.eval())
    return layers


def _pytorch_logit(weights, setup, layers, string: list[int], scaled: bool) -> float:
    """The authors' forward pass: their position feature, their scaled query input, PyTorch's
    attention and layers, one string (sequence first, batch of one)."""
    w = torch.tensor([CLS, *string])
    n = len(w)
    position = torch.zeros(n, setup.d_model)
    position[1, 0] = 1.0
    x = (weights["embedding"][w] + position)[:, None]
    for layer in layers:
        query = x * math.log(n) if scaled else x
        mixed = layer.self_attn(query, x, x, need_weights=False)[0]
        x = layer.norm1(x + mixed)
        x = layer.norm2(x + layer.linear2(torch.relu(layer.linear1(x))))
    return float(x[0, 0] @ weights["output_weight"] + weights["output_bias"][0])


def _perturbed(seed: int, setup: AuthorsSetup) -> dict[str, torch.Tensor]:
    """Initial weights moved at random, so that the two layers differ (they start equal)."""
    generator = torch.Generator().manual_seed(seed)
    return {
        name: value + 0.3 * torch.randn(value.shape, generator=generator)
        for name, value in initial_weights(seed, setup).items()
    }


@pytest.mark.parametrize("scaled", [False, True])
def test_the_forward_pass_is_pytorchs_encoder_on_whole_strings(scaled):
    setup = AuthorsSetup()
    weights = _perturbed(4, setup)
    layers = _pytorch_model(weights, setup)
    rng = np.random.default_rng(1)
    strings = [rng.integers(0, 2, n).tolist() for n in (3, 9, 30)]
    for string in strings:
        tokens = torch.tensor([[CLS, *string]])
        counts = torch.ones_like(tokens)
        stacked = {name: value[None] for name, value in weights.items()}
        factor = torch.tensor([math.log(len(string) + 1) if scaled else 1.0])
        with torch.no_grad():
            z = float(authors_forward(stacked, setup, tokens, counts, factor)[0, 0])
            expected = _pytorch_logit(weights, setup, layers, string, scaled)
        assert z == pytest.approx(expected, rel=1e-4, abs=1e-5)


def test_the_initial_weights_are_the_authors_modules_under_the_seed():
    setup = AuthorsSetup()
    weights = initial_weights(7, setup)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(7)
        embedding = torch.nn.Embedding(3, 16)
        layer = torch.nn.TransformerEncoderLayer(16, nhead=1, dim_feedforward=64, dropout=0.0)
    assert torch.equal(weights["embedding"], embedding.weight.detach())
    assert torch.equal(weights["layer1.in_weight"], layer.self_attn.in_proj_weight.detach())
    assert torch.equal(weights["layer0.ff2_bias"], layer.linear2.bias.detach())
    assert not weights["layer0.in_bias"].any()  # PyTorch starts the projections' biases at 0
    plain = initial_weights(7, AuthorsSetup(d_ff=0, positions="learned"))
    assert "layer0.ff1_weight" not in plain and plain["positions"].shape == (3, 16)
    assert torch.equal(plain["layer0.in_weight"], weights["layer0.in_weight"])


@pytest.mark.parametrize(
    "setup",
    [AuthorsSetup(steps=40), AuthorsSetup(steps=40, d_ff=0, positions="learned", batch_size=4)],
)
def test_the_exact_score_is_the_mean_over_every_string_of_the_length(setup):
    trained = train_authors(setup, train_length=5, seeds=[3])
    bits = 6
    table = score_authors(trained, [bits]).set_index("method")
    strings = [list(s) for s in itertools.product([0, 1], repeat=bits)]
    tokens = torch.tensor([[CLS, *s] for s in strings])
    weights = {name: value.double() for name, value in trained.weights.items()}
    for i, method in enumerate(trained.methods):
        factor = torch.tensor([math.log(bits + 1) if method == "log_n" else 1.0])
        single = {name: value[i : i + 1] for name, value in weights.items()}
        with torch.no_grad():
            z = authors_forward(single, setup, tokens[None], torch.ones(1, bits + 1), factor)[0]
        sign = 2.0 * tokens[:, 1].double() - 1.0
        assert table.loc[method, "accuracy"] == pytest.approx(float((sign * z > 0).double().mean()))
        assert table.loc[method, "cross_entropy"] == pytest.approx(
            float(F.softplus(-sign * z).mean())
        )


def test_training_repeats_bit_for_bit_and_pairs_the_methods():
    setup = AuthorsSetup(steps=25)
    first, second = (train_authors(setup, train_length=4, seeds=[0, 1]) for _ in range(2))
    for name, value in first.weights.items():
        assert torch.equal(value, second.weights[name])
    assert first.methods == ["standard", "standard", "log_n", "log_n"]
    assert np.array_equal(first.final_loss, second.final_loss)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: AuthorsSetup(positions="sinusoid"), "positions must be one of fixed, learned"),
        (lambda: AuthorsSetup(d_ff=-1), "d_ff must be"),
        (lambda: train_authors(AuthorsSetup(steps=2), train_length=1, seeds=[0]), "train_length"),
        (
            lambda: train_authors(AuthorsSetup(steps=2), train_length=4, seeds=[]),
            "seeds and methods",
        ),
        (
            lambda: train_authors(AuthorsSetup(steps=2), train_length=4, seeds=[0], methods=["x"]),
            "method must be one of standard, log_n",
        ),
    ],
)
def test_bad_arguments_are_one_line_errors(call, message):
    with pytest.raises(ParameterError, match=message):
        call()
