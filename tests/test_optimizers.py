"""The stacked AdamW: each model of a stack takes the step torch's AdamW takes for it alone,
with its own rate, its gradient clipped to global norm 1 and the independent weight decay;
and the z-loss objective of the engine is the cross-entropy plus the coefficient times the
mean log^2 Z."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from attncore.checks import ParameterError  # noqa: E402
from attncore.training.engine import Engine, ensemble_forward  # noqa: E402
from attncore.training.model import ModelConfig  # noqa: E402
from attncore.training.optimizers import StackedAdamW  # noqa: E402
from attncore.training.train import build_model  # noqa: E402


def _lone_adamw(matrix, bias, grads, lr, peak, decay, clip):
    """Torch's AdamW on one model's two tensors: the gradients clipped first, the decay
    independent of the peak rate (torch's is lr * weight_decay, so weight_decay = decay /
    peak), only on the matrix."""
    groups = [{"params": [matrix], "weight_decay": decay / peak},
              {"params": [bias], "weight_decay": 0.0}]  # fmt: skip
    opt = torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95), eps=1e-8)
    for g_matrix, g_bias in grads:
        matrix.grad, bias.grad = g_matrix.clone(), g_bias.clone()
        torch.nn.utils.clip_grad_norm_([matrix, bias], clip)
        opt.step()
    return matrix, bias


def test_each_stacked_model_takes_its_own_adamw_step():
    gen = torch.Generator().manual_seed(0)
    matrices = torch.randn(3, 4, 5, generator=gen)
    biases = torch.randn(3, 4, generator=gen)
    peak = torch.tensor([1e-2, 3e-1, 0.0])
    grads = [(torch.randn(3, 4, 5, generator=gen) * s, torch.randn(3, 4, generator=gen) * s)
             for s in (0.1, 5.0, 0.5)]  # fmt: skip  # the middle step is clipped
    w, b = matrices.clone().requires_grad_(), biases.clone().requires_grad_()
    opt = StackedAdamW({"w": w, "b": b}, peak=peak, decay=0.1, clip=1.0)
    for g_w, g_b in grads:
        w.grad, b.grad = g_w.clone(), g_b.clone()
        opt.lr = peak * 0.5  # a schedule at half the peak: the decay follows it too
        opt.step()
    for i in (0, 1):
        m, c = matrices[i].clone().requires_grad_(), biases[i].clone().requires_grad_()
        lone = [(g_w[i], g_b[i]) for g_w, g_b in grads]
        m, c = _lone_adamw(m, c, lone, float(peak[i]) * 0.5, float(peak[i]), 0.1, 1.0)
        assert torch.allclose(w[i], m, atol=1e-6) and torch.allclose(b[i], c, atol=1e-6)
    assert torch.equal(w[2], matrices[2])  # rate 0: the model does not move


def test_bad_rates_are_refused():
    with pytest.raises(ParameterError, match="peak must hold finite rates >= 0"):
        StackedAdamW({"w": torch.zeros(1, 2, 2)}, peak=torch.tensor([float("nan")]))


def test_the_z_loss_adds_its_coefficient_times_mean_log_squared_z():
    config = ModelConfig(vocab=5, length=4, d_model=8, layer_norm=True, init="pytorch")
    models = [build_model(config, s) for s in (0, 1)]
    tokens = torch.tensor([[[0, 1, 2, 3], [3, 3, 1, 0]]]).expand(2, -1, -1)
    targets = tokens.flip(-1)
    plain = Engine(models, lr=1e-3).step(tokens, targets)
    with_z = Engine(models, lr=1e-3, z_loss=[0.0, 0.5]).step(tokens, targets)
    fresh = Engine(models, lr=1e-3)
    with torch.no_grad():
        logits = ensemble_forward(fresh.layout, fresh.stack.weights, tokens)
        log_z = torch.logsumexp(logits[1], dim=-1)
    assert with_z[0] == pytest.approx(plain[0], abs=1e-6)
    assert with_z[1] == pytest.approx(plain[1] + 0.5 * float(log_z.square().mean()), rel=1e-5)
