"""A small transformer for sequence tasks (string reversal first) whose attention-logit
scaling is a parameter.

The model is deliberately plain: token embeddings plus learned position embeddings,
``n_layers`` multi-head self-attention blocks (no causal mask, no feed-forward part), each
``x + attention(norm(x))`` with an optional pre-LayerNorm and a final LayerNorm (or, with
``norm_position="post"``, ``norm(x + attention(x))``), and a per-position linear classifier
over ``classes`` classes (the vocabulary by default). The defaults (``d_model = 16``, two heads
of ``d_k = 8``, one layer, vocabulary 101, length 20) keep it under the 8,000 parameters of
Chuang's model (chuang2023scaling, section 3). With ``position_buckets = k`` the positions
from ``k - 1`` on share one embedding, so the model reads strings of any length (Chiang and
Cholak's length-independent position features ``[pos = 0, pos = 1, pos >= 2]`` are ``k = 3``).

The scaling is what multiplies ``q . k`` before the softmax. Its one home is the registry
:data:`attncore.rescalings.RESCALINGS`: :func:`model_scalings` derives the model's scalings
from it (names, sources and factors), and the torch modules here only do what the registry's
factor of one key matrix cannot do per batch:

- :class:`FixedFactor`: a factor of ``n`` and ``d`` only (``sqrt_d``, ``constant``, ``mup``,
  ``n_sqrt_d``, ``log_n``, ...), computed once by the registry for ``n = length``;
- :class:`KeyFactor`: a factor of the keys (``k_total`` and the other key-length norms of
  :data:`KEY_NORMS`), per head and sequence;
- :class:`QKNorm`: the cosine of QK-norm, with a fixed or a learned gain;
- :class:`LearnedBeta`: ``beta_h q . k`` with ``beta_h`` trained per head (the book's
  addition, see :data:`LEARNED`);
- :class:`CosineTemperature`: Swin Transformer v2's ``cos(q, k) / tau_h`` with ``tau_h``
  trained per head and kept at or above :data:`TAU_MIN`.

Three model options act on every scaling, because they are not a factor of ``q . k``:
``logit_cap`` caps the scaled logits softly, ``c tanh(z / c)`` (:class:`SoftCap`, Gemma 2's
attention soft-capping, gemma2024gemma2), ``sigma_reparam`` reparametrizes the query
and key weights by their spectral norm (:class:`SigmaReparam`, zhai2023stabilizing), and
``qk_layernorm`` passes each head's queries and keys through a LayerNorm before the scaling
(dehghani2023scaling's and wortsman2024small's qk-layernorm).

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from attncore.checks import ParameterError, finite_real, positive_int, positive_real
from attncore.rescalings import RESCALINGS, Rescaling, get_rescaling
from attncore.training.init import INITS

__all__ = [
    "KEY_NORMS",
    "LEARNED",
    "NORM_POSITIONS",
    "TAU_MIN",
    "AttentionRecord",
    "CosineTemperature",
    "FixedFactor",
    "KeyFactor",
    "LearnedBeta",
    "ModelConfig",
    "ModelScaling",
    "QKNorm",
    "ReversalTransformer",
    "SigmaReparam",
    "SoftCap",
    "make_scaling",
    "model_scalings",
    "parameter_count",
    "position_index",
]

NORM_POSITIONS = ("pre", "post")
"""Where the LayerNorms sit: before every attention block and the classifier, or after every
residual sum."""


def _dots(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """``q . k`` for every query and key: ``(..., L, d) x (..., L, d) -> (..., L, L)``."""
    return q @ k.transpose(-2, -1)


class FixedFactor(nn.Module):
    """``c q . k`` with a factor ``c`` fixed before training: every registered rescaling whose
    factor depends only on the sequence length and ``d_k`` (``1/sqrt(d)``, ``beta``, ``1/d``,
    ``ln n/sqrt(d)``, ...), computed once by the registry.

    >>> FixedFactor(0.5)(torch.ones(1, 1, 1, 4), torch.ones(1, 1, 2, 4)).tolist()
    [[[[2.0, 2.0]]]]
    """

    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = positive_real("factor", factor)
        # a buffer (float32, as the float the product would be computed in) rather than a
        # Python number, so that models with different factors share one structure and can be
        # trained together (attncore.training.ensemble)
        self.register_buffer("scale", torch.tensor(self.factor, dtype=torch.float32))

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return self.scale * _dots(q, k)


def _sum_lengths(lengths: torch.Tensor) -> torch.Tensor:
    return lengths.sum(dim=-1)


def _mean_lengths(lengths: torch.Tensor) -> torch.Tensor:
    return lengths.mean(dim=-1)


def _rss_lengths(lengths: torch.Tensor) -> torch.Tensor:
    return lengths.square().sum(dim=-1).sqrt()


def _p_norm_lengths(lengths: torch.Tensor, p: float = 2.0) -> torch.Tensor:
    top = lengths.amax(dim=-1, keepdim=True).clamp_min(torch.finfo(lengths.dtype).tiny)
    return top[..., 0] * (lengths / top).pow(p).sum(dim=-1).pow(1.0 / p)


KEY_NORMS: dict[str, Callable[..., torch.Tensor]] = {
    "k_total": _sum_lengths,
    "mean_key_length": _mean_lengths,
    "key_rss": _rss_lengths,
    "key_p_norm": _p_norm_lengths,
}
"""Torch forms of the registered rescalings whose factor depends on the keys: each maps the
key lengths ``||k_j||`` (``... x n``) to the norm ``N`` of the factor ``c = 1/N``, per head and
sequence (the registry's numpy factor takes one key matrix at a time). The tests check each
against :data:`attncore.rescalings.RESCALINGS`."""


class KeyFactor(nn.Module):
    """``q . k / N(||k_1||, ..., ||k_n||)`` with the norm ``N`` of :data:`KEY_NORMS`, one
    number per head and sequence. Without a causal mask every query of a sequence sees all
    keys. Gradients flow through ``N``; it is floored at the smallest positive float. With
    ``k_total`` (bernhard2023alternatives, section 3):

    >>> keys = torch.tensor([[[[3.0, 4.0], [6.0, 8.0]]]])
    >>> KeyFactor("k_total")(torch.tensor([[[[15.0, 0.0]]]]), keys).tolist()
    [[[[3.0, 6.0]]]]
    """

    def __init__(self, name: str, **params: float) -> None:
        super().__init__()
        if name not in KEY_NORMS:
            raise ParameterError(f"name must be one of {', '.join(KEY_NORMS)}, got {name!r}")
        self.name, self.params = name, params

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        norm = KEY_NORMS[self.name](k.norm(dim=-1), **self.params)
        return _dots(q, k) / norm.clamp_min(torch.finfo(k.dtype).tiny)[..., None, None]


class LearnedBeta(nn.Module):
    """``beta_h q . k`` with one trained ``beta_h = exp(log_beta_h)`` per head, started at
    ``beta``. This is the book's addition, not Chuang's algorithm: Chuang
    (chuang2023scaling, section 2) measures sigma_Wq and sigma_Wk, or searches beta, during
    training; here beta is trained by backpropagation like any weight. The log keeps it
    positive.

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


class QKNorm(nn.Module):
    """``g cos(q, k)`` (henry2020querykey), with a fixed gain or one trained gain per head.

    Henry et al. learn the gain and start it at ``log2(L^2 - L)`` for sequences of length
    ``L`` (8.57 for L = 20), the registry's default. The logits are bounded by the gain.

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


class SoftCap(nn.Module):
    """Soft-capping of the scaled logits: ``z -> c tanh(z / c)``, which is ``z`` for ``|z|``
    well below ``c`` and never reaches ``c`` (Gemma 2, gemma2024gemma2, caps its attention
    logits at ``c = 50``). The cap is a buffer, so models with other caps train together.

    >>> [round(x, 5) for x in SoftCap(50.0)(torch.tensor([1.0, 1000.0])).tolist()]
    [0.99987, 50.0]
    """

    def __init__(self, cap: float) -> None:
        super().__init__()
        self.register_buffer("value", torch.tensor(positive_real("logit_cap", cap)))

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return self.value * torch.tanh(logits / self.value)


def spectral_norms(weights: torch.Tensor) -> torch.Tensor:
    """The largest singular value of each matrix (``... x out x in``), with its gradient
    ``u v^T`` (the top singular vectors).

    On a GPU the values come from cuSOLVER's batched ``gesvda``, one call for the whole
    stack (the default driver loops over the matrices once they are wider than 32, which
    made σReparam's ensembles past width 32 several times slower); they agree with the
    CPU's within float32 rounding. Where ``gesvda`` does not converge (an ill-conditioned
    matrix of a run at a high rate), that step's stack is decomposed on the CPU.

    A matrix with a non-finite entry (a run that diverged, training on beside the others)
    has a NaN norm; the decomposition of the others goes on.

    >>> spectral_norms(torch.diag(torch.tensor([3.0, -4.0]))).item()
    4.0
    >>> spectral_norms(torch.tensor([[[1.0, 0.0], [0.0, 2.0]], [[float("nan"), 0.0], [0.0, 1.0]]]))
    tensor([2., nan])
    """
    finite = weights.isfinite().all(dim=-1).all(dim=-1)
    # in place of a non-finite matrix, one with distinct singular values, which every
    # driver decomposes
    diagonal = torch.arange(1, weights.shape[-1] + 1, dtype=weights.dtype)
    stand_in = (torch.eye(*weights.shape[-2:], dtype=weights.dtype) * diagonal).to(finite.device)
    weights = torch.where(finite[..., None, None], weights, stand_in)
    norms = None
    if weights.is_cuda:
        try:
            norms = torch.linalg.svdvals(weights, driver="gesvda")[..., 0]
        except torch.linalg.LinAlgError:  # gesvda does not converge on every matrix
            weights = weights.cpu()
    if norms is None:
        norms = torch.linalg.matrix_norm(weights, ord=2).to(finite.device)
    return torch.where(finite, norms, torch.nan)


class SigmaReparam(nn.Module):
    """σReparam on the query and key weights (zhai2023stabilizing): the layer computes with
    ``(gamma / sigma(W)) W`` in place of ``W``, ``sigma(W)`` the spectral norm of ``W`` and
    ``gamma`` a trained scalar per weight (``query``, ``key``), started at ``sigma(W_0)``, so
    that the model is unchanged at initialization (:meth:`start`, which
    :func:`attncore.training.init.initialize` calls after drawing the weights). Zhai et al.
    reparametrize every linear layer and estimate ``sigma`` by one power-iteration step per
    training step; here only ``W_q`` and ``W_k`` are, and ``sigma`` is computed exactly (the
    matrices are ``d_model x d_model``), its gradient the one power iteration converges to.

    >>> layer = nn.Linear(4, 4)
    >>> reparam = SigmaReparam()
    >>> reparam.start(layer.weight, layer.weight)
    >>> bool(torch.allclose(reparam.weight("query", layer.weight), layer.weight))
    True
    """

    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Parameter(torch.ones(()))
        self.key = nn.Parameter(torch.ones(()))

    def start(self, query: torch.Tensor, key: torch.Tensor) -> None:
        """Start the gains at the spectral norms of the weights ``query`` and ``key``."""
        with torch.no_grad():
            self.query.copy_(spectral_norms(query))
            self.key.copy_(spectral_norms(key))

    def weight(self, part: str, weight: torch.Tensor) -> torch.Tensor:
        """The weight the layer computes with for ``part`` (``query`` or ``key``)."""
        return getattr(self, part) / spectral_norms(weight) * weight


TAU_MIN = 0.01
"""The smallest temperature of Swin Transformer v2's cosine attention (liu2022swin)."""


class CosineTemperature(nn.Module):
    """``cos(q, k) / tau_h`` (liu2022swin), one trained temperature ``tau_h`` per head, started
    at ``tau`` and kept at or above :data:`TAU_MIN`. As in the paper's code the trained number
    is the log of the logit scale, ``log(1 / tau_h)``, clamped at ``log(1 / TAU_MIN)`` (whose
    gradient is zero beyond it). The logits are bounded by ``1 / tau_h``.

    >>> scaling = CosineTemperature(n_heads=2, tau=0.1)
    >>> [round(x, 4) for x in scaling.scales.tolist()]
    [10.0, 10.0]
    >>> scaling(torch.ones(1, 2, 1, 3), -torch.ones(1, 2, 1, 3)).flatten().tolist()
    [-10.0, -10.0]
    """

    def __init__(self, n_heads: int, tau: float) -> None:
        super().__init__()
        self.initial = positive_real("tau", tau)
        if tau < TAU_MIN:
            raise ParameterError(f"tau must be >= {TAU_MIN} for cosine attention, got {tau!r}")
        self.ceiling = -math.log(TAU_MIN)
        self.log_scale = nn.Parameter(torch.empty(n_heads))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with torch.no_grad():
            self.log_scale.fill_(-math.log(self.initial))

    @property
    def scales(self) -> torch.Tensor:
        """The logit scales ``1 / tau_h``."""
        return self.log_scale.detach().clamp(max=self.ceiling).exp()

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        cosines = _dots(F.normalize(q, dim=-1), F.normalize(k, dim=-1))
        return self.log_scale.clamp(max=self.ceiling).exp()[:, None, None] * cosines


LEARNED: dict[str, tuple[str, str]] = {
    "learned": ("constant", "this book (a trained beta per head; after chuang2023scaling)"),
    "qk_norm_learned": ("qk_norm", "henry2020querykey"),
    "cosine_learned": ("cosine", "liu2022swin"),
    "ssmax_learned": ("ssmax", "nakanishi2025scalable"),
}
"""Scalings that exist only in a trained model: name -> (the registered rescaling it starts
from, its source). Their plot labels come from ``attncore.book.plotting.method_style``."""


@dataclass(frozen=True)
class ModelScaling:
    """One scaling the model accepts: ``rescaling`` is the registered rescaling it computes
    (or starts from, when ``learned``), ``kind`` is ``"fixed"`` (a factor of ``n`` and ``d``
    only), ``"keys"`` (a factor of the keys, :data:`KEY_NORMS`) or ``"cosine"`` (QK-norm)."""

    name: str
    rescaling: str
    kind: str
    learned: bool
    source: str


_PROBES = (np.ones((4, 2)), np.linspace(0.5, 3.0, 8).reshape(4, 2))


def _depends_on_keys(rescaling: Rescaling) -> bool:
    """Whether the factor differs between two different key matrices of one shape."""
    try:
        values = {rescaling.factor(keys, 4, 2, **rescaling.params) for keys in _PROBES}
    except (ParameterError, ArithmeticError):  # pragma: no cover - a factor that rejects a probe
        return True
    return len(values) > 1


def model_scalings() -> dict[str, ModelScaling]:
    """Every scaling the model accepts, derived from :data:`attncore.rescalings.RESCALINGS` at
    call time: a registered rescaling is usable when its factor depends only on the sequence
    length and ``d_k`` (computed once by the registry), when it is a cosine (QK-norm), or when
    its factor of the keys has a torch form in :data:`KEY_NORMS`; :data:`LEARNED` adds the
    trained variants. Registering a rescaling of ``n`` and ``d`` makes it a model scaling.

    >>> scalings = model_scalings()
    >>> scalings["k_total"].kind, scalings["mup"].kind, scalings["learned"].source[:9]
    ('keys', 'fixed', 'this book')
    """
    found = {}
    for name, rescaling in RESCALINGS.items():
        if rescaling.cosine:
            kind = "cosine"
        elif not _depends_on_keys(rescaling):
            kind = "fixed"
        elif name in KEY_NORMS:
            kind = "keys"
        else:
            continue
        found[name] = ModelScaling(name, name, kind, False, rescaling.source)
    for name, (base, source) in LEARNED.items():
        found[name] = ModelScaling(name, base, found[base].kind, True, source)
    return found


def _known_scalings(name: str) -> dict[str, ModelScaling]:
    """Every model scaling, after checking that ``name`` is one; a registered rescaling of the
    keys that has no torch form yet is named as such, with the table to add it to."""
    scalings = model_scalings()
    if name in RESCALINGS and name not in scalings:
        raise ParameterError(
            f"scaling {name!r} is a rescaling of the keys with no torch form: add one to "
            "KEY_NORMS in attncore/training/model.py to train it"
        )
    if name not in scalings:
        raise ParameterError(f"scaling must be one of {', '.join(scalings)}, got {name!r}")
    return scalings


def _rescaling(name: str, beta: float | None, gain: float | None, params: Mapping) -> Rescaling:
    """The registered rescaling behind scaling ``name``, with its parameters filled in."""
    scaling = model_scalings()[name]
    values = dict(params)
    if scaling.rescaling == "constant" and beta is not None:
        values["beta"] = beta
    if scaling.rescaling == "qk_norm" and gain is not None:
        values["g"] = gain
    return get_rescaling(scaling.rescaling, **values)


def make_scaling(
    name: str,
    *,
    d_k: int,
    n_heads: int,
    length: int,
    beta: float | None = None,
    gain: float | None = None,
    params: Mapping[str, float] | None = None,
) -> nn.Module:
    """The scaling module called ``name`` (a key of :func:`model_scalings`).

    ``beta`` is required by ``constant`` and is the starting value of ``learned``
    (default ``1/sqrt(d_k)``); ``gain`` is QK-norm's (default ``log2(length^2 - length)``);
    ``params`` are the parameters of other registered rescalings (``{"p": 3.0}``). A fixed
    factor is the registry's factor for ``n = length`` keys of dimension ``d_k``.

    >>> make_scaling("n_sqrt_d", d_k=4, n_heads=2, length=5).factor
    0.1
    >>> make_scaling("constant", d_k=8, n_heads=2, length=20)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: beta must be given (a finite real number > 0) for ...
    """
    scalings = _known_scalings(name)
    if name == "constant" and beta is None:
        raise ParameterError("beta must be given (a finite real number > 0) for scaling constant")
    if name == "learned":
        return LearnedBeta(n_heads, 1.0 / math.sqrt(d_k) if beta is None else beta)
    scaling = scalings[name]
    rescaling = _rescaling(name, beta, gain, params or {})
    if scaling.kind == "keys":
        return KeyFactor(name, **rescaling.params)
    if scaling.learned and scaling.rescaling == "cosine":
        return CosineTemperature(n_heads, rescaling.params["tau"])
    if scaling.learned and scaling.rescaling == "ssmax":  # s ln(n)/sqrt(d_k), s trained
        return LearnedBeta(n_heads, rescaling.factor(None, length, d_k, **rescaling.params))
    factor = rescaling.factor(None, length, d_k, **rescaling.params)
    if scaling.kind == "cosine":
        return QKNorm(n_heads, factor, learn=scaling.learned)
    return FixedFactor(finite_real(f"factor of {name}", factor))


@dataclass(frozen=True)
class ModelConfig:
    """Everything that defines a model before training.

    ``scaling`` is a key of :func:`model_scalings`; ``beta`` and ``gain`` are the parameters
    of ``constant``/``learned`` and of QK-norm, ``params`` those of any other registered
    rescaling. ``init`` is ``"keras"`` (uniform +-0.05 embeddings, Glorot-uniform linear
    layers, zero biases) or ``"pytorch"`` (PyTorch's defaults); see
    :mod:`attncore.training.init`. ``norm_position`` places the LayerNorms (``"pre"``: before
    every attention and the classifier; ``"post"``: after every residual sum), ``classes`` is
    the number of output classes (None: ``vocab``), ``position_buckets`` the number of position
    embeddings when they do not follow ``length`` (None: one per position up to ``length``).
    ``logit_cap`` soft-caps the scaled logits at ``c`` (:class:`SoftCap`; None: no cap),
    ``sigma_reparam`` reparametrizes the query and key weights (:class:`SigmaReparam`) and
    ``qk_layernorm`` normalizes each head's queries and keys with a LayerNorm over its ``d_k``
    entries (a learned scale and bias per entry, shared by the heads of a layer) before the
    scaling.

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
    params: Mapping[str, float] = field(default_factory=dict)
    norm_position: str = "pre"
    classes: int | None = None
    position_buckets: int | None = None
    logit_cap: float | None = None
    sigma_reparam: bool = False
    qk_layernorm: bool = False

    def __post_init__(self) -> None:
        _known_scalings(self.scaling)
        if self.init not in INITS:
            raise ParameterError(f"init must be one of {', '.join(INITS)}, got {self.init!r}")
        if not isinstance(self.layer_norm, bool):
            raise ParameterError(f"layer_norm must be true or false, got {self.layer_norm!r}")
        for name, minimum in (("n_layers", 1), ("d_model", 1), ("n_heads", 1), ("vocab", 2)):
            positive_int(name, getattr(self, name), minimum=minimum)
        positive_int("length", self.length, minimum=2)
        if self.norm_position not in NORM_POSITIONS:
            raise ParameterError(
                f"norm_position must be one of {', '.join(NORM_POSITIONS)}, got "
                f"{self.norm_position!r}"
            )
        for name in ("classes", "position_buckets"):
            if getattr(self, name) is not None:
                positive_int(name, getattr(self, name), minimum=2 if name == "classes" else 1)
        if self.d_model % self.n_heads:
            raise ParameterError(
                f"n_heads must divide d_model ({self.d_model}), got {self.n_heads}"
            )
        if self.beta is not None:
            positive_real("beta", self.beta)
        if self.gain is not None:
            positive_real("gain", self.gain)
        if self.logit_cap is not None:
            positive_real("logit_cap", self.logit_cap)
        for name in ("sigma_reparam", "qk_layernorm"):
            if not isinstance(getattr(self, name), bool):
                raise ParameterError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.scaling == "constant" and self.beta is None:
            raise ParameterError(
                "beta must be given (a finite real number > 0) for scaling constant"
            )
        _rescaling(self.scaling, self.beta, self.gain, self.params)  # checks the parameters

    @property
    def d_k(self) -> int:
        """Query and key dimension of one head."""
        return self.d_model // self.n_heads

    @property
    def n_classes(self) -> int:
        """Number of output classes.

        >>> ModelConfig().n_classes, ModelConfig(vocab=3, classes=2).n_classes
        (101, 2)
        """
        return self.vocab if self.classes is None else self.classes

    @property
    def n_positions(self) -> int:
        """Number of position embeddings."""
        return self.length if self.position_buckets is None else self.position_buckets

    @property
    def rescaling(self) -> Rescaling:
        """The registered rescaling this scaling computes (or starts from, if learned)."""
        return _rescaling(self.scaling, self.beta, self.gain, self.params)

    @property
    def label(self) -> str:
        """The registry's label of the scaling (the name, for a learned one); plots take
        theirs from ``attncore.book.plotting.method_style``."""
        return self._scaling_label + self._options_label

    @property
    def _scaling_label(self) -> str:
        scaling = model_scalings()[self.scaling]
        if scaling.learned:
            return self.scaling
        if scaling.kind == "cosine" and self.gain is None:
            return self.rescaling.with_params(g=math.log2(self.length**2 - self.length)).label
        return self.rescaling.label

    @property
    def _options_label(self) -> str:
        """The options that act on every scaling, as a suffix of the label.

        >>> ModelConfig(logit_cap=50.0, sigma_reparam=True).label
        '1/√d, σReparam, capped at 50'
        >>> ModelConfig(qk_layernorm=True).label
        '1/√d, qk-layernorm'
        """
        cap = "" if self.logit_cap is None else f", capped at {self.logit_cap:g}"
        norm = ", qk-layernorm" if self.qk_layernorm else ""
        return (", σReparam" if self.sigma_reparam else "") + norm + cap

    def make_scaling(self) -> nn.Module:
        """A fresh scaling module for one attention layer."""
        return make_scaling(
            self.scaling,
            d_k=self.d_k,
            n_heads=self.n_heads,
            length=self.length,
            beta=self.beta,
            gain=self.gain,
            params=self.params,
        )


@dataclass
class AttentionRecord:
    """What one attention layer computed: the scaled logits and the softmax weights (both
    ``batch x heads x queries x keys``), the query lengths ``||q||`` (``batch x heads x
    queries``) and the standard deviation of the entries of its input ``X`` (Chuang's
    sigma_X)."""

    logits: torch.Tensor
    weights: torch.Tensor
    query_norms: torch.Tensor
    input_sd: float


class SelfAttention(nn.Module):
    """Multi-head self-attention whose logits come from a scaling module."""

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        scaling: nn.Module,
        cap: float | None = None,
        sigma_reparam: bool = False,
        qk_layernorm: bool = False,
    ) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)
        self.scaling = scaling
        self.cap = nn.Identity() if cap is None else SoftCap(cap)
        self.reparam = SigmaReparam() if sigma_reparam else nn.Identity()
        d_k = d_model // n_heads
        self.q_norm = nn.LayerNorm(d_k) if qk_layernorm else nn.Identity()
        self.k_norm = nn.LayerNorm(d_k) if qk_layernorm else nn.Identity()

    def start_reparam(self) -> None:
        """Start σReparam's gains at the spectral norms of the current weights (no-op
        without σReparam)."""
        if isinstance(self.reparam, SigmaReparam):
            self.reparam.start(self.query.weight, self.key.weight)

    def _project(self, part: str, x: torch.Tensor) -> torch.Tensor:
        layer = getattr(self, part)
        if part == "value" or not isinstance(self.reparam, SigmaReparam):
            return layer(x)
        return F.linear(x, self.reparam.weight(part, layer.weight), layer.bias)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        return x.view(batch, length, self.n_heads, width // self.n_heads).transpose(1, 2)

    def forward(
        self, x: torch.Tensor, records: list[AttentionRecord] | None = None
    ) -> torch.Tensor:
        q, k, v = (self._heads(self._project(p, x)) for p in ("query", "key", "value"))
        q, k = self.q_norm(q), self.k_norm(k)
        logits = self.cap(self.scaling(q, k))
        weights = torch.softmax(logits, dim=-1)
        if records is not None:
            records.append(
                AttentionRecord(
                    logits.detach(),
                    weights.detach(),
                    q.detach().norm(dim=-1),
                    float(x.detach().std(correction=0)),
                )
            )
        mixed = (weights @ v).transpose(1, 2).reshape(x.shape)
        return self.out(mixed)


class ReversalTransformer(nn.Module):
    """Embeddings, ``n_layers`` residual attention blocks, a per-position classifier.

    Call it on a ``batch x length`` tensor of token ids; it returns ``batch x length x
    classes`` class logits. Pass a list as ``records`` to collect each layer's
    :class:`AttentionRecord`. PyTorch's default initialization is applied at
    construction; :func:`attncore.training.init.initialize` applies ``config.init``.

    >>> post = ReversalTransformer(ModelConfig(layer_norm=True, norm_position="post",
    ...                                        vocab=3, classes=2, position_buckets=3))
    >>> post(torch.zeros((1, 50), dtype=torch.long)).shape  # any length, two classes
    torch.Size([1, 50, 2])
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.tokens = nn.Embedding(config.vocab, config.d_model)
        self.positions = nn.Embedding(config.n_positions, config.d_model)
        norm = nn.LayerNorm if config.layer_norm else nn.Identity
        self.norms = nn.ModuleList([norm(config.d_model) for _ in range(config.n_layers)])
        self.attention = nn.ModuleList(
            [
                SelfAttention(
                    config.d_model,
                    config.n_heads,
                    config.make_scaling(),
                    config.logit_cap,
                    config.sigma_reparam,
                    config.qk_layernorm,
                )
                for _ in range(config.n_layers)
            ]
        )
        final = norm if config.norm_position == "pre" else nn.Identity
        self.final_norm = final(config.d_model)
        self.classifier = nn.Linear(config.d_model, config.n_classes)

    def forward(
        self, tokens: torch.Tensor, records: list[AttentionRecord] | None = None
    ) -> torch.Tensor:
        index = position_index(self.config, tokens.shape[-1], tokens.device)
        x = self.tokens(tokens) + self.positions(index)
        for norm, attention in zip(self.norms, self.attention, strict=True):
            if self.config.norm_position == "post":
                x = norm(x + attention(x, records))
            else:
                x = x + attention(norm(x), records)
        return self.classifier(self.final_norm(x))


def position_index(
    config: ModelConfig, length: int, device: torch.device | None = None
) -> torch.Tensor:
    """The position embedding each of ``length`` positions reads.

    >>> position_index(ModelConfig(position_buckets=3), 5).tolist()
    [0, 1, 2, 2, 2]
    """
    positions = torch.arange(length, device=device)
    if config.position_buckets is None:
        return positions
    return positions.clamp(max=config.position_buckets - 1)


def parameter_count(config: ModelConfig) -> int:
    """Number of trained parameters of the model ``config`` describes.

    >>> parameter_count(ModelConfig(layer_norm=True, n_layers=2, scaling="learned"))
    5929
    """
    model = ReversalTransformer(config)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
