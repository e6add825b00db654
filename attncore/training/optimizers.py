"""AdamW for stacked models, with a learning rate per model: the optimizer of Wortsman et
al.'s runs (wortsman2024small, section 2) for an :class:`~attncore.training.engine.Engine`
whose models train at different peak rates in one batch.

Every model ``i`` of the stack takes the AdamW step of its own parameters: first its gradient
is clipped to a global norm of at most ``clip`` (over all of model ``i``'s parameters, as
``torch.nn.utils.clip_grad_norm_`` clips one model); then, in ``torch.optim.AdamW``'s
order, the *independent* weight decay and Adam's update at rate ``lr[i]``. The decay: the
matrices (embeddings and linear weights, not biases, LayerNorms or scalars) shrink by
``decay * lr[i] / peak[i]``, following the schedule but not the peak rate. Set
:attr:`StackedAdamW.lr` before each step; a model whose rate is 0 does not move.

>>> import torch
>>> w = torch.ones(2, 3, 3, requires_grad=True)  # two models' 3 x 3 matrices
>>> opt = StackedAdamW({"w": w}, peak=torch.tensor([0.1, 0.0]), decay=0.0)
>>> w.grad = torch.ones_like(w)
>>> opt.lr = opt.peak.clone()
>>> opt.step()
>>> [round(x, 4) for x in w[:, 0, 0].tolist()]
[0.9, 1.0]
"""

from __future__ import annotations

import math

import torch

from attncore.checks import ParameterError

__all__ = ["StackedAdamW"]


class StackedAdamW:
    """AdamW over stacked parameters ``params`` (name to ``M x ...`` tensor, the first axis the
    model) with peak rates ``peak`` (``M``), ``betas``, ``eps``, independent weight decay
    ``decay`` on the tensors whose per-model part is a matrix, and the gradient of each model
    clipped to global norm ``clip`` (None: no clipping). :attr:`lr` is the rate of the next
    step (``M``; the peak until changed).

    >>> w = torch.zeros(1, 2, requires_grad=True)
    >>> StackedAdamW({"w": w}, peak=torch.tensor([-1.0]))
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: peak must hold finite rates >= 0, got [-1.0]
    """

    def __init__(
        self,
        params: dict[str, torch.Tensor],
        *,
        peak: torch.Tensor,
        betas: tuple[float, float] = (0.9, 0.95),
        eps: float = 1e-8,
        decay: float = 1e-4,
        clip: float | None = 1.0,
    ) -> None:
        values = peak.tolist()
        if not all(math.isfinite(v) and v >= 0 for v in values):
            raise ParameterError(f"peak must hold finite rates >= 0, got {values}")
        self.params = dict(params)
        first = next(iter(self.params.values()))
        self.peak = peak.to(device=first.device, dtype=first.dtype)
        self.lr = self.peak.clone()
        self.betas, self.eps, self.decay, self.clip = betas, eps, decay, clip
        self.steps = 0
        self._moments = {
            n: (torch.zeros_like(p), torch.zeros_like(p)) for n, p in self.params.items()
        }
        self._decayed = {n for n, p in self.params.items() if p.dim() >= 3}

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients (as ``torch.optim.Optimizer.zero_grad``)."""
        for p in self.params.values():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def _per_model(self, values: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
        return values.view(-1, *[1] * (like.dim() - 1))

    @torch.no_grad()
    def step(self) -> None:
        """One AdamW step of every model at its rate :attr:`lr`."""
        grads = {n: p.grad for n, p in self.params.items() if p.grad is not None}
        if self.clip is not None and grads:
            squares = sum(g.reshape(len(g), -1).square().sum(dim=1) for g in grads.values())
            factor = (self.clip / (squares.sqrt() + 1e-6)).clamp(max=1.0)
            for g in grads.values():
                g.mul_(self._per_model(factor, g))
        self.steps += 1
        b1, b2 = self.betas
        first_fix = 1.0 - b1**self.steps
        second_fix = math.sqrt(1.0 - b2**self.steps)
        schedule = torch.where(self.peak > 0, self.lr / self.peak.clamp_min(1e-30), 0.0)
        for name, g in grads.items():
            p = self.params[name]
            m, v = self._moments[name]
            m.mul_(b1).add_(g, alpha=1.0 - b1)
            v.mul_(b2).addcmul_(g, g, value=1.0 - b2)
            if name in self._decayed and self.decay:
                p.mul_(1.0 - self.decay * self._per_model(schedule, p))
            update = (m / first_fix) / (v.sqrt() / second_fix + self.eps)
            p.sub_(update * self._per_model(self.lr, p))
