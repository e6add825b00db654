"""Soft-capping, σReparam and qk-layernorm: each defined once (attncore.training.model),
computed alike by the lone model and the stacked engine, eager and compiled."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attncore.checks import ParameterError  # noqa: E402
from attncore.training import ModelConfig, RunSpec, reversal_data, train_runs  # noqa: E402
from attncore.training.engine import Stack, compiler_available, ensemble_forward  # noqa: E402
from attncore.training.ensemble import _shape_key  # noqa: E402
from attncore.training.model import SoftCap, spectral_norms  # noqa: E402
from attncore.training.train import build_model, train_reversal  # noqa: E402

TINY = {"vocab": 6, "length": 4, "d_model": 8, "layer_norm": True, "init": "pytorch"}
OPTIONS = [
    {"scaling": "sqrt_d"},
    {"scaling": "sqrt_d", "logit_cap": 0.5},
    {"scaling": "sqrt_d", "sigma_reparam": True},
    {"scaling": "qk_norm_learned", "logit_cap": 2.0, "sigma_reparam": True},
    {"scaling": "log_n", "logit_cap": 1.0},
    {"scaling": "cosine_learned", "sigma_reparam": True},
    {"scaling": "sqrt_d", "qk_layernorm": True},
    {"scaling": "qk_norm_learned", "qk_layernorm": True, "logit_cap": 2.0},
]


@pytest.fixture(scope="module")
def tiny_data():
    return reversal_data(3, n_train=256, n_val=64, n_test=64, length=4, vocab=6)


def test_the_soft_cap_bounds_the_logits_and_leaves_small_ones():
    cap = SoftCap(5.0)
    z = torch.tensor([-1e6, -50.0, 0.01, 3.0, 1e6])
    capped = cap(z)
    assert capped.abs().max() <= 5.0
    assert capped[2] == pytest.approx(0.01, rel=1e-5)
    assert torch.allclose(capped, 5.0 * torch.tanh(z / 5.0))
    with pytest.raises(ParameterError, match="logit_cap must be a finite real number > 0"):
        ModelConfig(logit_cap=0.0)


def test_a_capped_model_computes_capped_logits():
    model = build_model(ModelConfig(logit_cap=0.25, init="pytorch", **{"vocab": 6, "length": 4}), 0)
    records = []
    model(torch.tensor([[0, 1, 2, 3]]), records)
    assert records[0].logits.abs().max() < 0.25


def test_sigma_reparam_leaves_the_model_unchanged_at_initialization():
    tokens = torch.tensor([[0, 1, 2, 3], [3, 3, 1, 0]])
    plain = build_model(ModelConfig(**TINY), 4)
    reparam = build_model(ModelConfig(sigma_reparam=True, **TINY), 4)
    assert torch.allclose(plain(tokens), reparam(tokens), atol=1e-6)
    gains = reparam.attention[0].reparam
    assert gains.query.item() == pytest.approx(
        spectral_norms(plain.attention[0].query.weight).item()
    )


def test_sigma_reparam_computes_with_weights_of_spectral_norm_gamma():
    model = build_model(ModelConfig(sigma_reparam=True, **TINY), 1)
    layer = model.attention[0]
    tokens = torch.tensor([[0, 1, 2, 3]])
    before = model(tokens)
    with torch.no_grad():
        layer.reparam.query.fill_(3.0)
        effective = layer.reparam.weight("query", layer.query.weight)
    assert spectral_norms(effective).item() == pytest.approx(3.0, rel=1e-5)
    with torch.no_grad():  # the scale of W itself no longer matters
        layer.reparam.query.copy_(spectral_norms(layer.query.weight))
        layer.query.weight.mul_(7.0)
        layer.key.weight.mul_(0.1)
    assert torch.allclose(model(tokens), before, atol=1e-5)


def test_the_options_train_in_one_ensemble_with_plain_models():
    configs = [ModelConfig(**TINY, **o) for o in OPTIONS]
    assert len({_shape_key(RunSpec(c))[0] for c in configs}) == 1


def test_the_stacked_forward_equals_each_model(tiny_data):
    models = [build_model(ModelConfig(**TINY, **o), seed) for seed, o in enumerate(OPTIONS)]
    stack = Stack(models)
    x = torch.as_tensor(tiny_data.val_inputs[:5]).expand(len(models), -1, -1)
    together = ensemble_forward(stack.layout, stack.weights, x)
    for i, model in enumerate(models):
        assert torch.allclose(together[i], model(x[i]), atol=1e-5)


def specs(seed=0):
    return [
        RunSpec(ModelConfig(**TINY, **o), seed=seed, steps=40, batch_size=16, lr=3e-2,
                eval_every=20)
        for o in OPTIONS
    ]  # fmt: skip


def test_trained_together_they_follow_their_runs_alone(tiny_data):
    together = train_runs(specs(), tiny_data)
    for run, spec in zip(together, specs(), strict=True):
        alone = train_reversal(spec.config, tiny_data, **spec.options())
        np.testing.assert_allclose(run.losses, alone.losses, atol=1e-5)
    # the options change the training: a cap that binds moves the losses
    assert together[0].losses != together[1].losses


@pytest.mark.skipif(not compiler_available(), reason="torch.compile needs a C++ compiler")
def test_compiled_training_follows_the_eager_run(tiny_data):
    from pathlib import Path

    cache = Path(__file__).resolve().parent.parent / ".cache" / "compiled"
    eager = train_runs(specs(), tiny_data, engine="eager")
    compiled = train_runs(specs(), tiny_data, engine="compiled", compile_cache=cache)
    for e, c in zip(eager, compiled, strict=True):
        np.testing.assert_allclose(c.losses, e.losses, atol=1e-5)
        assert replace(c, seconds=0.0).eval_steps == e.eval_steps
