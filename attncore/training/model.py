"""A small transformer for string reversal whose attention-logit scaling is a parameter.

The model is deliberately plain: token embeddings plus learned positional embeddings,
``n_layers`` multi-head self-attention blocks (no causal mask, no feed-forward part), each
``x + attention(norm(x))`` with an optional pre-LayerNorm, an optional final LayerNorm and a
per-position linear classifier over the vocabulary. The defaults (``d_model = 16``, two
heads of ``d_k = 8``, one layer, vocabulary 101, length 20) keep it under the 8,000
parameters of Chuang's model (chuang2023scaling, section 3).

The scaling is what multiplies ``q . k`` before the softmax, one small ``nn.Module`` per
rescaling of :mod:`attncore.rescalings` that applies to a trained model, under the same
names where they match, plus Chuang's dynamic beta as a learned beta per head:

- ``sqrt_d``: ``q . k / sqrt(d_k)`` (vaswani2017attention);
- ``constant``: ``beta q . k`` (chuang2023scaling);
- ``learned``: ``beta_h q . k`` with ``beta_h`` trained per head, log-parametrized
  (chuang2023scaling, the dynamic beta of section 2);
- ``k_total``: ``q . k / sum_j ||k_j||``, per head and sequence (bernhard2023alternatives);
- ``qk_norm``: ``g cos(q, k)`` with a fixed gain (henry2020querykey);
- ``qk_norm_learned``: ``g_h cos(q, k)`` with the gain trained per head (henry2020querykey);
- ``mup``: ``q . k / d_k`` (yang2022tensor).

>>> config = ModelConfig(scaling="k_total")
>>> parameter_count(config)
4741
>>> import torch
>>> model = ReversalTransformer(config)
>>> model(torch.zeros((3, 20), dtype=torch.long)).shape
torch.Size([3, 20, 101])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from attncore.checks import ParameterError, positive_int, positive_real
from attncore.rescalings import RESCALINGS
from attncore.training.init import INITS

__all__ = [
    "SCALINGS",
    "AttentionRecord",
    "ConstantBeta",
    "InverseD",
    "InverseKTotal",
    "InverseSqrtD",
    "LearnedBeta",
    "ModelConfig",
    "QKNorm",
    "ReversalTransformer",
    "make_scaling",
    "parameter_count",
]


def _dots(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """``q . k`` for every query and key: ``(..., L, d) x (..., L, d) -> (..., L, L)``."""
    return q @ k.transpose(-2, -1)


class InverseSqrtD(nn.Module):
    """``q . k / sqrt(d_k)``, the scaled dot product (vaswani2017attention).

    >>> InverseSqrtD(4)(torch.ones(1, 1, 1, 4), torch.ones(1, 1, 2, 4)).tolist()
    [[[[2.0, 2.0]]]]
    """

    def __init__(self, d_k: int) -> None:
        super().__init__()
        self.factor = 1.0 / math.sqrt(d_k)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return self.factor * _dots(q, k)


class ConstantBeta(nn.Module):
    """``beta q . k`` with a constant inverse temperature (chuang2023scaling, whose search
    ends near beta = 5 on this task).

    >>> ConstantBeta(5.0)(torch.ones(1, 1, 1, 2), torch.ones(1, 1, 1, 2)).item()
    10.0
    """

    def __init__(self, beta: float) -> None:
        super().__init__()
        self.beta = positive_real("beta", beta)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return self.beta * _dots(q, k)


class LearnedBeta(nn.Module):
    """``beta_h q . k`` with one trained ``beta_h = exp(log_beta_h)`` per head, started at
    ``beta``: the gradient version of Chuang's dynamic beta, "updated after each iteration"
    (chuang2023scaling, section 2). The log keeps it positive.

    >>> scaling = LearnedBeta(n_heads=2, beta=0.5)
    >>> scaling.betas.tolist()
    [0.5, 0.5]
    """

    def __init__(self, n_heads: int, beta: float) -> None:
        super().__init__()
        self.initial = positive_real("beta", beta)
        self.log_beta = nn.Parameter(torch.empty(n_heads))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with torch.no_grad():
            self.log_beta.fill_(math.log(self.initial))

    @property
    def betas(self) -> torch.Tensor:
        return self.log_beta.detach().exp()

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return self.log_beta.exp()[:, None, None] * _dots(q, k)


class InverseKTotal(nn.Module):
    """``q . k / k_total`` with ``k_total = sum_j ||k_j||`` over the keys a query sees
    (bernhard2023alternatives, section 3). Without a causal mask every query of a sequence
    sees all keys, so ``k_total`` is one number per head and sequence. Gradients flow
    through ``k_total``; it is floored at the smallest positive float.

    >>> keys = torch.tensor([[[[3.0, 4.0], [6.0, 8.0]]]])
    >>> InverseKTotal()(torch.tensor([[[[15.0, 0.0]]]]), keys).tolist()
    [[[[3.0, 6.0]]]]
    """

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        k_total = k.norm(dim=-1).sum(dim=-1).clamp_min(torch.finfo(k.dtype).tiny)
        return _dots(q, k) / k_total[..., None, None]


class QKNorm(nn.Module):
    """``g cos(q, k)`` (henry2020querykey), with a fixed gain or one trained gain per head.

    Henry et al. learn the gain and start it at ``log2(L^2 - L)`` for sequences of length
    ``L`` (8.57 for L = 20): the default here. The logits are bounded by the gain.

    >>> QKNorm(n_heads=1, gain=2.0)(torch.ones(1, 1, 1, 3), -torch.ones(1, 1, 1, 3)).item()
    -2.0
    """

    def __init__(self, n_heads: int, gain: float, learn: bool = False) -> None:
        super().__init__()
        self.initial = positive_real("gain", gain)
        self.learn = learn
        if learn:
            self.gain = nn.Parameter(torch.empty(n_heads))
        else:
            self.register_buffer("gain", torch.empty(n_heads))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with torch.no_grad():
            self.gain.fill_(self.initial)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        cosines = _dots(F.normalize(q, dim=-1), F.normalize(k, dim=-1))
        return self.gain[:, None, None] * cosines


class InverseD(nn.Module):
    """``q . k / d_k``, muP's attention scaling (yang2022tensor).

    >>> InverseD(4)(torch.ones(1, 1, 1, 4), torch.ones(1, 1, 1, 4)).item()
    1.0
    """

    def __init__(self, d_k: int) -> None:
        super().__init__()
        self.factor = 1.0 / d_k

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return self.factor * _dots(q, k)


SCALINGS: dict[str, tuple[str, str]] = {
    "sqrt_d": (RESCALINGS["sqrt_d"].label, "vaswani2017attention"),
    "constant": ("β = {beta:g}", "chuang2023scaling"),
    "learned": ("learned β per head", "chuang2023scaling"),
    "k_total": (RESCALINGS["k_total"].label, "bernhard2023alternatives"),
    "qk_norm": ("QK-norm (g = {gain:.3g})", "henry2020querykey"),
    "qk_norm_learned": ("QK-norm, learned g", "henry2020querykey"),
    "mup": (RESCALINGS["mup"].label, "yang2022tensor"),
}
"""Every scaling the model accepts: name -> (plot label format, BibTeX key of its source)."""


def make_scaling(
    name: str,
    *,
    d_k: int,
    n_heads: int,
    length: int,
    beta: float | None = None,
    gain: float | None = None,
) -> nn.Module:
    """The scaling module called ``name`` (a key of :data:`SCALINGS`).

    ``beta`` is required by ``constant`` and is the starting value of ``learned``
    (default ``1/sqrt(d_k)``); ``gain`` is QK-norm's (default ``log2(length^2 - length)``).

    >>> make_scaling("constant", d_k=8, n_heads=2, length=20)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: beta must be given (a finite real number > 0) for ...
    """
    if name not in SCALINGS:
        raise ParameterError(f"scaling must be one of {', '.join(SCALINGS)}, got {name!r}")
    if name == "sqrt_d":
        return InverseSqrtD(d_k)
    if name == "constant":
        if beta is None:
            raise ParameterError(
                "beta must be given (a finite real number > 0) for scaling constant"
            )
        return ConstantBeta(beta)
    if name == "learned":
        return LearnedBeta(n_heads, 1.0 / math.sqrt(d_k) if beta is None else beta)
    if name == "k_total":
        return InverseKTotal()
    if name == "mup":
        return InverseD(d_k)
    default_gain = math.log2(length * length - length)
    return QKNorm(n_heads, default_gain if gain is None else gain, learn=name == "qk_norm_learned")


@dataclass(frozen=True)
class ModelConfig:
    """Everything that defines a model before training.

    ``init`` is ``"keras"`` (uniform +-0.05 embeddings, Glorot-uniform linear layers, zero
    biases) or ``"pytorch"`` (PyTorch's defaults); see :mod:`attncore.training.init`.

    >>> ModelConfig(scaling="constant", beta=5.0).label
    'β = 5'
    >>> ModelConfig(n_heads=3)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: n_heads must divide d_model (16), got 3
    """

    scaling: str = "sqrt_d"
    beta: float | None = None
    gain: float | None = None
    layer_norm: bool = False
    init: str = "keras"
    n_layers: int = 1
    d_model: int = 16
    n_heads: int = 2
    vocab: int = 101
    length: int = 20

    def __post_init__(self) -> None:
        if self.scaling not in SCALINGS:
            raise ParameterError(
                f"scaling must be one of {', '.join(SCALINGS)}, got {self.scaling!r}"
            )
        if self.init not in INITS:
            raise ParameterError(f"init must be one of {', '.join(INITS)}, got {self.init!r}")
        if not isinstance(self.layer_norm, bool):
            raise ParameterError(f"layer_norm must be true or false, got {self.layer_norm!r}")
        for name, minimum in (("n_layers", 1), ("d_model", 1), ("n_heads", 1), ("vocab", 2)):
            positive_int(name, getattr(self, name), minimum=minimum)
        positive_int("length", self.length, minimum=2)
        if self.d_model % self.n_heads:
            raise ParameterError(
                f"n_heads must divide d_model ({self.d_model}), got {self.n_heads}"
            )
        if self.beta is not None:
            positive_real("beta", self.beta)
        if self.gain is not None:
            positive_real("gain", self.gain)
        if self.scaling == "constant" and self.beta is None:
            raise ParameterError(
                "beta must be given (a finite real number > 0) for scaling constant"
            )

    @property
    def d_k(self) -> int:
        """Query and key dimension of one head."""
        return self.d_model // self.n_heads

    @property
    def label(self) -> str:
        """Short label of the scaling for plots."""
        gain = self.gain if self.gain is not None else math.log2(self.length**2 - self.length)
        return SCALINGS[self.scaling][0].format(beta=self.beta or 0.0, gain=gain)

    def make_scaling(self) -> nn.Module:
        """A fresh scaling module for one attention layer."""
        return make_scaling(
            self.scaling,
            d_k=self.d_k,
            n_heads=self.n_heads,
            length=self.length,
            beta=self.beta,
            gain=self.gain,
        )


@dataclass
class AttentionRecord:
    """What one attention layer computed: the scaled logits and the softmax weights (both
    ``batch x heads x queries x keys``) and the query lengths ``||q||`` (``batch x heads x
    queries``)."""

    logits: torch.Tensor
    weights: torch.Tensor
    query_norms: torch.Tensor


class SelfAttention(nn.Module):
    """Multi-head self-attention whose logits come from a scaling module."""

    def __init__(self, d_model: int, n_heads: int, scaling: nn.Module) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)
        self.scaling = scaling

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        return x.view(batch, length, self.n_heads, width // self.n_heads).transpose(1, 2)

    def forward(
        self, x: torch.Tensor, records: list[AttentionRecord] | None = None
    ) -> torch.Tensor:
        q, k, v = self._heads(self.query(x)), self._heads(self.key(x)), self._heads(self.value(x))
        logits = self.scaling(q, k)
        weights = torch.softmax(logits, dim=-1)
        if records is not None:
            records.append(
                AttentionRecord(logits.detach(), weights.detach(), q.detach().norm(dim=-1))
            )
        mixed = (weights @ v).transpose(1, 2).reshape(x.shape)
        return self.out(mixed)


class ReversalTransformer(nn.Module):
    """Embeddings, ``n_layers`` residual attention blocks, a per-position classifier.

    Call it on a ``batch x length`` tensor of token ids; it returns ``batch x length x
    vocab`` class logits. Pass a list as ``records`` to collect each layer's
    :class:`AttentionRecord`. PyTorch's default initialization is applied at
    construction; :func:`attncore.training.init.initialize` applies ``config.init``.
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.tokens = nn.Embedding(config.vocab, config.d_model)
        self.positions = nn.Embedding(config.length, config.d_model)
        norm = nn.LayerNorm if config.layer_norm else nn.Identity
        self.norms = nn.ModuleList([norm(config.d_model) for _ in range(config.n_layers)])
        self.attention = nn.ModuleList(
            [
                SelfAttention(config.d_model, config.n_heads, config.make_scaling())
                for _ in range(config.n_layers)
            ]
        )
        self.final_norm = norm(config.d_model)
        self.classifier = nn.Linear(config.d_model, config.vocab)

    def forward(
        self, tokens: torch.Tensor, records: list[AttentionRecord] | None = None
    ) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.tokens(tokens) + self.positions(positions)
        for norm, attention in zip(self.norms, self.attention, strict=True):
            x = x + attention(norm(x), records)
        return self.classifier(self.final_norm(x))


def parameter_count(config: ModelConfig) -> int:
    """Number of trained parameters of the model ``config`` describes.

    >>> parameter_count(ModelConfig(layer_norm=True, n_layers=2, scaling="learned"))
    5929
    """
    model = ReversalTransformer(config)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
