"""The arithmetic of many stacked models at once: one training step and the evaluation passes,
compiled or eager.

A :class:`Stack` holds ``M`` models of one structure (every attention scaling allowed: the
scalings may differ from model to model) as their weights stacked by name along a new first
axis, and the :class:`Layout` that says how to compute with them. :func:`ensemble_forward` is the
forward pass of all ``M`` models at once: batched matrix products over the stacked weights,
each model on its own tokens and weights; the scaled attention logits are one product
``q . k`` for every model, then each segment of models with one form of scaling
(:class:`ScalingForm`) multiplies or divides it. An :class:`Engine` trains a stack (``step``:
the models' losses, one backward pass of their sum, so that every model's weights get the
gradient of its own loss only, and one ``torch.optim.Adam`` over the stacked weights, which is
elementwise and so one Adam per model) and scores it without gradients, in chunks of strings
(``measure``: the learning curve's measurements; ``hits``: token and whole-string accuracy).

**Compiled or eager.** With ``engine="compiled"`` the loss and its gradient, and the evaluation
passes, run through ``torch.compile`` (inductor: on the CPU it writes C++ kernels that fuse the
elementwise work around the matrix products, and needs a C++ compiler, g++ here); ``"eager"``
runs the same functions one PyTorch operation at a time; ``"auto"`` (:func:`resolve_engine`)
is compiled where a compiler is found, else eager. The two differ only in how float32 sums are
ordered and rounded (``tests/test_engine_training.py`` checks a short run of each against the
other and against the models trained alone). Compiling costs time once per structure, number
of models and batch shape (tens of seconds; a few with inductor's on-disk cache, which the
``compile_cache`` of :func:`~attncore.training.ensemble.train_runs` places: for the book in
``.cache/compiled``, beside its other caches).

**What the compiled path guarantees.** Every compiled function has static shapes
(``dynamic=False``): the kernels depend only on the layout, the shapes and the machine's vector
instructions, never on which shapes a process happened to compile before, and a kernel read
from the cache is the one a fresh compile writes. So one seed gives the same numbers, bit for
bit, in any process and on any number of workers (one thread each, as
:func:`attncore.training.ensemble.train_runs` runs them); another engine, thread count, CPU or
torch build may differ in the last bits, which training can amplify. A compile that fails
raises; nothing falls back to eager silently.

>>> import math
>>> from attncore.training.model import ModelConfig
>>> from attncore.training.train import build_model
>>> models = [build_model(ModelConfig(vocab=5, length=4, d_model=8), s) for s in (0, 1)]
>>> engine = Engine(models, lr=1e-3, engine="eager")
>>> x = torch.tensor([[[0, 1, 2, 3]], [[3, 2, 1, 0]]])
>>> losses = engine.step(x, x.flip(-1))  # one per model, near ln 5 before any training
>>> len(losses), all(abs(loss - math.log(5)) < 0.1 for loss in losses)
(2, True)
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import logging
import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
)

from attncore.checks import ParameterError
from attncore.training.data import IGNORE
from attncore.training.model import (
    KEY_NORMS,
    CosineTemperature,
    FixedFactor,
    KeyFactor,
    LearnedBeta,
    QKNorm,
    ReversalTransformer,
    SelfAttention,
    SigmaReparam,
    SoftCap,
    spectral_norms,
)
from attncore.training.train import adam, scored_hits

__all__ = [
    "ENGINES",
    "Engine",
    "Layout",
    "ScalingForm",
    "Stack",
    "compile_cache_folder",
    "compiler_available",
    "ensemble_forward",
    "keep_freed_memory",
    "resolve_engine",
]

ENGINES = ("auto", "compiled", "eager")
"""How an ensemble computes: ``compiled`` (``torch.compile``), ``eager`` (one PyTorch operation
at a time) or ``auto`` (compiled where a C++ compiler is found, else eager)."""


@functools.cache
def compiler_available() -> bool:
    """Whether inductor finds the C++ compiler it needs on the CPU.

    >>> isinstance(compiler_available(), bool)
    True
    """
    from torch._inductor import cpp_builder

    try:
        cpp_builder.get_cpp_compiler()
    except Exception:  # any failure means no usable compiler
        return False
    return True


def resolve_engine(engine: str) -> str:
    """``compiled`` or ``eager`` for ``engine`` (one of :data:`ENGINES`).

    >>> resolve_engine("eager")
    'eager'
    >>> resolve_engine("auto") in ("compiled", "eager")
    True
    """
    if engine not in ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "auto":
        return "compiled" if compiler_available() else "eager"
    if engine == "compiled" and not compiler_available():
        raise ParameterError(
            "engine compiled needs a C++ compiler for torch.compile (g++), and none was "
            "found; use engine eager"
        )
    return engine


@functools.cache
def keep_freed_memory() -> bool:
    """Ask glibc's allocator to keep freed memory for the next allocation instead of handing
    it back to the system; True where it agreed (Linux with glibc), False elsewhere.

    By default an array of a few megabytes (a batch's logits, an evaluation chunk) is a fresh
    mapping of pages each time it is allocated, and every page faults when first written: on
    the CPUs this book is built on that made the chapter's matrix products two to four times
    slower inside a training step than alone (``benchmarks/training_speed.py``). Arrays up to
    the largest mapping threshold glibc accepts (32 MiB) now come from the heap, which is not
    trimmed; the process keeps the memory its largest step needed. Numbers do not change.

    >>> isinstance(keep_freed_memory(), bool)
    True
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    trim, mmap = -1, -3  # M_TRIM_THRESHOLD, M_MMAP_THRESHOLD of malloc.h
    return bool(mallopt(mmap, 32 * 2**20)) and bool(mallopt(trim, 2**30))


@contextlib.contextmanager
def compile_cache_folder(folder: Path | None) -> Iterator[None]:
    """Inductor's on-disk cache in ``folder`` while the block runs (the caller's setting
    otherwise; None leaves it alone). Compiled code is keyed by everything it depends on, so a
    shared folder serves every process that compiles the same functions."""
    if folder is None:
        yield
        return
    before = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(Path(folder).resolve())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = before


@dataclass(frozen=True)
class ScalingForm:
    """How one attention scaling turns ``q . k`` into logits: ``kind`` is ``fixed`` (a stacked
    ``scale`` per model), ``learned`` (``exp(log_beta)`` per head), ``keys`` (divided by the key
    norm ``norm`` of :data:`~attncore.training.model.KEY_NORMS` with ``params``) or ``cosine``
    (``gain`` per head times the cosine) or ``temperature`` (the cosine times ``exp(log_scale)``
    per head, ``log_scale`` clamped at ``ceiling``: Swin Transformer v2's ``1 / tau``).
    ``capped``: the logits are soft-capped (:class:`~attncore.training.model.SoftCap`);
    ``reparam``: the query and key weights are σReparam's
    (:class:`~attncore.training.model.SigmaReparam`); ``qk_layernorm``: each head's queries
    and keys pass through a LayerNorm first.

    >>> ScalingForm.of(FixedFactor(0.5)).kind
    'fixed'
    """

    kind: str
    norm: str = ""
    params: tuple[tuple[str, float], ...] = ()
    capped: bool = False
    reparam: bool = False
    qk_layernorm: bool = False

    @staticmethod
    def of_layer(attention: SelfAttention) -> ScalingForm:
        """The form of one attention layer: its scaling's, with its cap, σReparam and
        qk-layernorm."""
        return dataclasses.replace(
            ScalingForm.of(attention.scaling),
            capped=isinstance(attention.cap, SoftCap),
            reparam=isinstance(attention.reparam, SigmaReparam),
            qk_layernorm=isinstance(attention.q_norm, torch.nn.LayerNorm),
        )

    @staticmethod
    def of(scaling: torch.nn.Module) -> ScalingForm:
        """The form of the scaling module ``scaling``."""
        if isinstance(scaling, FixedFactor):
            return ScalingForm("fixed")
        if isinstance(scaling, LearnedBeta):
            return ScalingForm("learned")
        if isinstance(scaling, KeyFactor):
            return ScalingForm("keys", scaling.name, tuple(sorted(scaling.params.items())))
        if isinstance(scaling, QKNorm):
            return ScalingForm("cosine")
        if isinstance(scaling, CosineTemperature):
            return ScalingForm("temperature", params=(("ceiling", scaling.ceiling),))
        raise TypeError(f"no batched form of the scaling {type(scaling).__name__}")


@dataclass(frozen=True)
class Layout:
    """What the forward pass of a stack needs besides its weights (hashable: the key of its
    compiled functions): the model's configuration outside its scaling (sizes, LayerNorms and
    their place, position embeddings), and the segments ``(start, stop, forms)`` of
    consecutive models whose scalings have one form per layer."""

    n_layers: int
    d_model: int
    n_heads: int
    classes: int
    layer_norm: bool
    norm_position: str
    position_buckets: int | None
    eps: float
    segments: tuple[tuple[int, int, tuple[ScalingForm, ...]], ...]

    @staticmethod
    def of(models: Sequence[ReversalTransformer]) -> Layout:
        """The layout of ``models`` (one structure outside their scalings), in their order.

        >>> from attncore.training.model import ModelConfig
        >>> from attncore.training.train import build_model
        >>> models = [build_model(ModelConfig(scaling=s), 0) for s in ("sqrt_d", "mup", "k_total")]
        >>> [(a, b) for a, b, _ in Layout.of(models).segments]
        [(0, 2), (2, 3)]
        """
        config = models[0].config
        segments: list[tuple[int, int, tuple[ScalingForm, ...]]] = []
        for index, model in enumerate(models):
            forms = tuple(ScalingForm.of_layer(a) for a in model.attention)
            if segments and segments[-1][2] == forms:
                segments[-1] = (segments[-1][0], index + 1, forms)
            else:
                segments.append((index, index + 1, forms))
        eps = float(getattr(models[0].norms[0], "eps", 0.0))
        return Layout(
            config.n_layers,
            config.d_model,
            config.n_heads,
            config.n_classes,
            config.layer_norm,
            config.norm_position,
            config.position_buckets,
            eps,
            tuple(segments),
        )

    @property
    def models(self) -> int:
        """Number of models."""
        return self.segments[-1][1]

    def rows(self, indices: Sequence[int]) -> Layout:
        """The layout of the models ``indices`` (in that order)."""
        forms = [next(f for a, b, f in self.segments if a <= i < b) for i in indices]
        segments: list[tuple[int, int, tuple[ScalingForm, ...]]] = []
        for index, form in enumerate(forms):
            if segments and segments[-1][2] == form:
                segments[-1] = (segments[-1][0], index + 1, form)
            else:
                segments.append((index, index + 1, form))
        return dataclasses.replace(self, segments=tuple(segments))


class Stack:
    """The weights of ``models`` stacked along a new first axis, by name, as
    ``torch.func.stack_module_state`` does, for models whose scalings differ: every name any
    model has, zeros for a model without it (its forward never reads them). A name that is a
    parameter in some model is a parameter of the stack; where another model holds it as a
    buffer (QK-norm's fixed gain beside a learned one), the gradient of that model's entry is
    masked to zero, so Adam, whose step is zero for a zero gradient, leaves it unchanged.

    >>> from attncore.training.model import ModelConfig
    >>> from attncore.training.train import build_model
    >>> models = [build_model(ModelConfig(scaling=s), 0) for s in ("qk_norm", "qk_norm_learned")]
    >>> stack = Stack(models)
    >>> stack.params["attention.0.scaling.gain"].shape, "attention.0.scaling.gain" in stack.buffers
    (torch.Size([2, 2]), False)
    """

    def __init__(self, models: Sequence[ReversalTransformer]) -> None:
        self.layout = Layout.of(models)
        states = [{**dict(m.named_parameters()), **dict(m.named_buffers())} for m in models]
        trained = [{name for name, _ in m.named_parameters()} for m in models]
        like: dict[str, torch.Tensor] = {}
        for state in states:
            for name, tensor in state.items():
                like.setdefault(name, tensor)
        self.params: dict[str, torch.Tensor] = {}
        self.buffers: dict[str, torch.Tensor] = {}
        for name, template in like.items():
            stack = torch.stack(
                [s[name].detach() if name in s else torch.zeros_like(template) for s in states]
            )
            learned = [name in t for t in trained]
            if not any(learned):
                self.buffers[name] = stack
                continue
            stack.requires_grad_(True)
            if not all(learned):
                keep = torch.tensor(learned, dtype=stack.dtype, device=stack.device)
                keep = keep.reshape(-1, *[1] * (stack.dim() - 1))
                stack.register_hook(lambda grad, keep=keep: grad * keep)
            self.params[name] = stack

    @property
    def weights(self) -> dict[str, torch.Tensor]:
        """Every stacked parameter and buffer by name."""
        return {**self.params, **self.buffers}

    def load(self, model: torch.nn.Module, index: int) -> None:
        """Copy model ``index`` of the stack into ``model``."""
        weights = self.weights
        with torch.no_grad():
            for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
                tensor.copy_(weights[name][index])

    def rows(self, indices: Sequence[int]) -> dict[str, torch.Tensor]:
        """The stacked weights of the models ``indices`` (detached copies)."""
        index = torch.tensor(list(indices), device=self.params["tokens.weight"].device)
        return {n: t.detach().index_select(0, index) for n, t in self.weights.items()}


def ensemble_forward(
    layout: Layout,
    weights: dict[str, torch.Tensor],
    tokens: torch.Tensor,
    probes: list[tuple[torch.Tensor, ...]] | None = None,
) -> torch.Tensor:
    """The forward pass of :class:`~attncore.training.model.ReversalTransformer` for ``M``
    models at once: ``weights`` maps every parameter and buffer name to the ``M`` models' values
    stacked, ``tokens`` is ``M x batch x length``; returns ``M x batch x length x classes``
    logits. Each model sees only its own tokens and weights. With ``probes`` a list, every layer
    appends its attention input (``M x batch*length x width``), queries (``M x batch x heads x
    length x d_k``), scaled logits and softmax weights (``M x batch x heads x length x
    length``).

    >>> from attncore.training.model import ModelConfig
    >>> from attncore.training.train import build_model
    >>> models = [build_model(ModelConfig(vocab=5, length=4, d_model=8), s) for s in (0, 1)]
    >>> stack = Stack(models)
    >>> x = torch.tensor([[[0, 1, 2, 3]], [[3, 2, 1, 0]]])
    >>> together = ensemble_forward(stack.layout, stack.weights, x)
    >>> bool(torch.allclose(together[1], models[1](x[1]), atol=1e-6))
    True
    """
    return _padded_forward(layout, weights, tokens, probes)[..., : layout.classes]


def _padded_forward(
    layout: Layout,
    weights: dict[str, torch.Tensor],
    tokens: torch.Tensor,
    probes: list[tuple[torch.Tensor, ...]] | None = None,
) -> torch.Tensor:
    """:func:`ensemble_forward` with the classes padded to a multiple of 8 whose logits are
    -inf (which no maximum, softmax or gradient sees): rows of 104 floats instead of 101 are
    what the matrix product and the vectorized kernels after it handle fastest."""
    m, batch, length = tokens.shape
    width, heads = layout.d_model, layout.n_heads
    which = torch.arange(m, device=tokens.device)[:, None, None]
    if layout.position_buckets is None:
        positions = weights["positions.weight"][:, None, :length]
    else:  # positions from position_buckets - 1 on share the last embedding
        index = torch.arange(length, device=tokens.device).clamp(max=layout.position_buckets - 1)
        positions = weights["positions.weight"][:, None, index]
    x = (weights["tokens.weight"][which, tokens] + positions).reshape(m, batch * length, width)
    post = layout.norm_position == "post"

    def norm(name: str, inputs: torch.Tensor) -> torch.Tensor:
        if not layout.layer_norm:
            return inputs
        normed = F.layer_norm(inputs, (width,), eps=layout.eps)
        return normed * weights[f"{name}.weight"][:, None] + weights[f"{name}.bias"][:, None]

    def split(inputs: torch.Tensor) -> torch.Tensor:  # M x batch x heads x length x d_k
        return inputs.view(m, batch, length, heads, width // heads).transpose(2, 3)

    for layer in range(layout.n_layers):
        name = f"attention.{layer}"
        inputs = x if post else norm(f"norms.{layer}", x)
        parts = ("query", "key", "value")
        weight = torch.cat([_projection(layout, layer, weights, p) for p in parts], dim=1)
        bias = torch.cat([weights[f"{name}.{p}.bias"] for p in parts], dim=1)
        q, k, v = (split(t) for t in _linear(inputs, weight, bias).split(width, dim=-1))
        q, k = (_qk_normed(layout, layer, weights, p, t) for p, t in (("q", q), ("k", k)))
        factors = [
            _factors(forms[layer], f"{name}.scaling", weights, a, b, q[a:b], k[a:b])
            for a, b, forms in layout.segments
        ]
        on_q, on_k = (torch.cat(f) if len(f) > 1 else f[0] for f in zip(*factors, strict=True))
        logits = _capped(layout, layer, weights, (q * on_q[..., None]) @ (k * on_k[..., None]).mT)
        attention = torch.softmax(logits, dim=-1)
        if probes is not None:
            probes.append((inputs, q, logits, attention))
        mixed = (attention @ v).transpose(2, 3).reshape(m, batch * length, width)
        x = x + _linear(mixed, weights[f"{name}.out.weight"], weights[f"{name}.out.bias"])
        if post:
            x = norm(f"norms.{layer}", x)
    out = x if post else norm("final_norm", x)
    weight, bias = weights["classifier.weight"], weights["classifier.bias"]
    padding = -layout.classes % _CLASS_MULTIPLE
    if padding:
        weight = torch.cat([weight, weight.new_zeros(m, padding, width)], dim=1)
        bias = torch.cat([bias, bias.new_full((m, padding), -math.inf)], dim=1)
    return _linear(out, weight, bias).view(m, batch, length, layout.classes + padding)


_CLASS_MULTIPLE = 8
"""The classes of the logits are padded to a multiple of this (a vector of floats in AVX2)."""


def _linear(inputs: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``inputs @ weight.T + bias`` per model (``M x rows x in``, ``M x out x in``, ``M x
    out``): the product, then the bias, which a compiled step fuses into what follows."""
    return inputs @ weight.transpose(1, 2) + bias[:, None]


def _projection(
    layout: Layout, layer: int, weights: dict[str, torch.Tensor], part: str
) -> torch.Tensor:
    """The stacked weight of the query, key or value projection (``part``) of ``layer`` as the
    models compute with it: σReparam's ``(gamma / sigma(W)) W`` for the models that have it."""
    name = f"attention.{layer}"
    weight = weights[f"{name}.{part}.weight"]
    if part == "value" or not any(forms[layer].reparam for *_, forms in layout.segments):
        return weight
    gains = [
        weights[f"{name}.reparam.{part}"][a:b] / spectral_norms(weight[a:b])
        if forms[layer].reparam
        else weight.new_ones(b - a)
        for a, b, forms in layout.segments
    ]
    return weight * (torch.cat(gains) if len(gains) > 1 else gains[0])[:, None, None]


_QK_EPS = 1e-5
"""The epsilon of qk-layernorm's LayerNorms (``torch.nn.LayerNorm``'s default, which the
models' ``q_norm`` and ``k_norm`` use)."""


def _qk_normed(
    layout: Layout, layer: int, weights: dict[str, torch.Tensor], part: str, x: torch.Tensor
) -> torch.Tensor:
    """The queries (``part`` ``q``) or keys (``k``) of ``layer`` (``M x batch x heads x length
    x d_k``) after each head's LayerNorm, for the models whose layer has qk-layernorm."""
    if not any(forms[layer].qk_layernorm for *_, forms in layout.segments):
        return x
    name = f"attention.{layer}.{part}_norm"
    scale, shift = weights[f"{name}.weight"], weights[f"{name}.bias"]
    pieces = [
        F.layer_norm(x[a:b], x.shape[-1:], eps=_QK_EPS) * scale[a:b, None, None, None]
        + shift[a:b, None, None, None]
        if forms[layer].qk_layernorm
        else x[a:b]
        for a, b, forms in layout.segments
    ]
    return torch.cat(pieces) if len(pieces) > 1 else pieces[0]


def _capped(
    layout: Layout, layer: int, weights: dict[str, torch.Tensor], logits: torch.Tensor
) -> torch.Tensor:
    """The scaled logits of ``layer`` (``M x batch x heads x length x length``), soft-capped
    ``c tanh(z / c)`` for the models whose layer has a cap."""
    if not any(forms[layer].capped for *_, forms in layout.segments):
        return logits
    cap = weights[f"attention.{layer}.cap.value"]
    pieces = [
        cap[a:b, None, None, None, None]
        * torch.tanh(logits[a:b] / cap[a:b, None, None, None, None])
        if forms[layer].capped
        else logits[a:b]
        for a, b, forms in layout.segments
    ]
    return torch.cat(pieces) if len(pieces) > 1 else pieces[0]


def _factors(
    form: ScalingForm,
    name: str,
    weights: dict[str, torch.Tensor],
    start: int,
    stop: int,
    q: torch.Tensor,
    k: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The factors on the queries and on the keys (each ``models x batch x heads x length``)
    that turn ``q . k`` into the scaled logits of models ``start`` to ``stop - 1``, whose scaling
    ``name`` has the form ``form``: every form is ``(a_i q_i) . (b_j k_j)``, so the logits of all
    models are one product and the softmax after it is alike for all."""
    shape = q.shape[:-1]
    ones = q.new_ones(shape)
    if form.kind == "fixed":
        return weights[f"{name}.scale"][start:stop, None, None, None].expand(shape), ones
    if form.kind == "learned":
        return weights[f"{name}.log_beta"][start:stop, None, :, None].exp().expand(shape), ones
    if form.kind == "keys":
        size = KEY_NORMS[form.norm](k.norm(dim=-1), **dict(form.params))
        return (1.0 / size.clamp_min(torch.finfo(k.dtype).tiny))[..., None].expand(shape), ones
    # cosine: g q.k / (|q| |k|), each length floored as F.normalize floors it
    tiny = 1e-12
    if form.kind == "temperature":
        ceiling = dict(form.params)["ceiling"]
        gain = weights[f"{name}.log_scale"][start:stop, None, :, None].clamp(max=ceiling).exp()
    else:
        gain = weights[f"{name}.gain"][start:stop, None, :, None]
    return gain / q.norm(dim=-1).clamp_min(tiny), 1.0 / k.norm(dim=-1).clamp_min(tiny)


def _save_exponentials(_context: Any, operation: Any, *_args: Any, **_kwargs: Any) -> Any:
    """Keep the exponentials (the softmax's numerators) for the backward pass, recompute the
    rest: the compiler would otherwise compute ``exp`` of every logit twice, and on these CPUs
    an exponential costs as much as a dozen multiplications."""
    if operation == torch.ops.aten.exp.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


_keep_exponentials = functools.partial(create_selective_checkpoint_contexts, _save_exponentials)


def _token_losses(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Per-token cross-entropy of ``logits`` (rows x classes) against ``targets``, in the form a
    compiled step fuses best: the log of the summed exponentials shifted by the row maximum,
    minus the target's logit picked by a comparison (no gather and scatter; 32-bit integers,
    twice as many to a vector as 64-bit ones), so the gradient is ``softmax - one_hot`` from
    elementwise work only."""
    top = logits.detach().amax(dim=-1, keepdim=True)
    total = (logits - top).exp().sum(dim=-1).log() + top[:, 0]
    classes = torch.arange(logits.shape[-1], device=logits.device, dtype=torch.int32)
    picked = targets.to(torch.int32)[:, None] == classes
    return total - torch.where(picked, logits, 0.0).sum(dim=-1)


class _CrossEntropy(torch.autograd.Function):
    """Per-row cross-entropy of ``logits`` (rows x classes) against ``targets``, as
    ``F.cross_entropy(..., reduction="none")`` up to float rounding, with the backward pass
    ``softmax - one_hot`` from the exponentials the forward pass kept: the eager step's form.
    PyTorch's ``log_softmax`` and its backward over 101 classes were a third of an eager step of
    an ensemble on the CPU; this takes about half their time.

    >>> logits = torch.tensor([[2.0, 0.0, -1.0]], requires_grad=True)
    >>> loss = _CrossEntropy.apply(logits, torch.tensor([0]))
    >>> bool(torch.allclose(loss, F.cross_entropy(logits, torch.tensor([0]), reduction="none")))
    True
    >>> bool(torch.allclose(loss, _token_losses(logits, torch.tensor([0]))))
    True
    """

    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        top = logits.amax(dim=-1, keepdim=True)
        exps = (logits - top).exp_()
        total = exps.sum(dim=-1, keepdim=True)
        picked = logits.gather(-1, targets[:, None])
        ctx.save_for_backward(exps, total, targets)
        return (total.log().add_(top).sub_(picked))[:, 0]

    @staticmethod
    def backward(ctx: Any, upstream: torch.Tensor) -> tuple[torch.Tensor, None]:
        exps, total, targets = ctx.saved_tensors
        grad = exps.mul_(upstream[:, None] / total)
        grad.scatter_add_(-1, targets[:, None], -upstream[:, None])
        return grad, None


def _losses(
    layout: Layout,
    compiled: bool,
    weights: dict[str, torch.Tensor],
    tokens: torch.Tensor,
    targets: torch.Tensor,
    z_loss: torch.Tensor | None = None,
) -> torch.Tensor:
    """The mean token loss of every model (``M``) on its own batch, over its scored positions;
    with ``z_loss`` (``M`` coefficients), plus each model's coefficient times the mean of
    ``log^2 Z`` over those positions, ``Z`` the sum of the exponentiated class logits (the
    auxiliary z-loss of chowdhery2022palm that wortsman2024small use)."""
    logits = _padded_forward(layout, weights, tokens)
    logits = logits.reshape(-1, logits.shape[-1])
    flat = targets.reshape(-1)
    if compiled:  # the exponentials of the forward pass kept for the backward one
        per_token = checkpoint(
            _token_losses, logits, flat, use_reentrant=False, context_fn=_keep_exponentials
        )
    else:
        per_token = _CrossEntropy.apply(logits, flat.clamp_min(0))
    scored = (targets != IGNORE).to(per_token.dtype).view(layout.models, -1)
    losses = (per_token.view(layout.models, -1) * scored).sum(dim=1) / scored.sum(dim=1)
    if z_loss is None:
        return losses
    log_z = torch.logsumexp(logits, dim=-1).view(layout.models, -1)
    return losses + z_loss * (log_z.square() * scored).sum(dim=1) / scored.sum(dim=1)


def _measure_chunk(
    layout: Layout,
    compiled: bool,
    weights: dict[str, torch.Tensor],
    tokens: torch.Tensor,
    targets: torch.Tensor,
    valid: torch.Tensor,
    sd_rows: torch.Tensor,
) -> torch.Tensor:
    """Sums over the strings of one chunk (``tokens``, ``targets``: ``strings x length``, the
    same for every model; ``valid`` is 1 for a string that counts, 0 for padding; ``sd_rows`` 1
    for the strings whose attention input gives Chuang's sigma_X), per model (``M x`` the
    columns of :data:`_MEASURES`)."""
    m = layout.models
    probes: list[tuple[torch.Tensor, ...]] = []
    logits = _padded_forward(layout, weights, tokens.expand(m, -1, -1), probes)
    columns = _scores(logits, targets, valid, compiled)
    length = tokens.shape[-1]
    for inputs, q, scaled, attention in probes:
        entries = inputs.view(m, -1, length * layout.d_model)
        columns.append((entries.sum(dim=-1) * sd_rows).sum(dim=-1))
        columns.append((entries.square().sum(dim=-1) * sd_rows).sum(dim=-1))
        centred = scaled - scaled.mean(dim=-1, keepdim=True)
        spread = centred.square().mean(dim=-1).sqrt()  # batch x heads x queries, per model
        columns.append((spread.sum(dim=(2, 3)) * valid).sum(dim=-1))
        columns.append((q.norm(dim=-1).sum(dim=(2, 3)) * valid).sum(dim=-1))
        mirrored = attention.flip(-1).diagonal(dim1=-2, dim2=-1)  # weight of query i on L-1-i
        columns += list((mirrored.sum(dim=-1) * valid[:, None]).sum(dim=1).unbind(dim=-1))
    return torch.stack(columns, dim=1)


def _hits_chunk(
    layout: Layout,
    compiled: bool,
    weights: dict[str, torch.Tensor],
    tokens: torch.Tensor,
    targets: torch.Tensor,
    valid: torch.Tensor,
) -> torch.Tensor:
    """Right tokens, right strings and scored tokens of one chunk, per model (``M x 3``)."""
    logits = _padded_forward(layout, weights, tokens.expand(layout.models, -1, -1))
    return torch.stack(_scores(logits, targets, valid, compiled), dim=1)


def _scores(
    logits: torch.Tensor, targets: torch.Tensor, valid: torch.Tensor, compiled: bool
) -> list[torch.Tensor]:
    """Per model: right tokens, right strings (every scored position right) and scored tokens,
    over the valid strings. A hit is ``logits.argmax(dim=-1) == targets`` (a tie goes to the
    first maximum): the argmax in a compiled pass, where it fuses;
    :func:`~attncore.training.train.scored_hits`' faster test eagerly."""
    targets = targets.expand(logits.shape[0], -1, -1)
    scored = targets != IGNORE
    hit = (logits.argmax(dim=-1) == targets) if compiled else scored_hits(logits, targets)
    right = (hit | ~scored).float().amin(dim=-1)
    return [
        (hit.float().sum(dim=-1) * valid).sum(dim=-1),
        (right * valid).sum(dim=-1),
        (scored.float().sum(dim=-1) * valid).sum(dim=-1),
    ]


_COMPILED: dict[tuple[str, Layout], Callable[..., torch.Tensor]] = {}
"""The compiled functions of this process, by function and layout: one ``torch.compile`` per
pair, so a layout met again (the next round of a search) reuses its compiled code."""

_FUNCTIONS: dict[str, Callable[..., torch.Tensor]] = {
    "losses": _losses,
    "measure": _measure_chunk,
    "hits": _hits_chunk,
}

_RECOMPILE_LIMIT = 256
"""Compiled variants one function may have in a process (a layout and a set of shapes each);
torch's default of 8 would, once reached, run further variants eagerly."""


def _function(name: str, layout: Layout, compiled: bool) -> Callable[..., torch.Tensor]:
    """Function ``name`` of :data:`_FUNCTIONS` for ``layout``, compiled or eager."""
    if not compiled:
        return functools.partial(_FUNCTIONS[name], layout, False)
    key = (name, layout)
    if key not in _COMPILED:
        _COMPILED[key] = torch.compile(
            functools.partial(_FUNCTIONS[name], layout, True), fullgraph=True, dynamic=False
        )
    return _COMPILED[key]


@contextlib.contextmanager
def _compiling() -> Iterator[None]:
    """The settings under which compiled functions run (and compile, forward and backward):
    room for many variants, a compile that fails raises, and no warnings from torch's compiler
    about its own deprecated internals, which say nothing about this code and would land in a
    chapter's output."""
    limits = {"recompile_limit": _RECOMPILE_LIMIT, "fail_on_recompile_limit_hit": True}
    # torch logs a reminder that a checkpointed region must not compute in place (ours does
    # not: _token_losses)
    reminder = logging.getLogger("torch._higher_order_ops.wrap")
    level = reminder.level
    reminder.setLevel(logging.ERROR)
    try:
        with torch._dynamo.config.patch(**limits), warnings.catch_warnings():
            for category in (FutureWarning, DeprecationWarning):
                warnings.filterwarnings("ignore", category=category, module=r"torch\.")
            yield
    finally:
        reminder.setLevel(level)


_CHUNK_TOKENS = 2_048
"""Tokens of one model in one evaluation chunk (102 strings of 20): a chunk of 21 models' logits
(101 classes) takes about 17 MB."""

_MEASURES = (
    "token hits",
    "exact hits",
    "scored",
    "sum x",
    "sum x^2",
    "spread",
    "query norm",
    "mirror",
)
"""The columns :func:`_measure_chunk` sums (the first three once, the others per layer,
``mirror`` per head)."""


class Engine:
    """Train and score the stacked ``models`` (one structure outside their attention
    scalings) with Adam at learning rate ``lr``; ``engine`` as :func:`resolve_engine` takes it.
    ``optimizer``, where given, builds the optimizer from the stacked parameters by name in
    place of Adam (e.g. :class:`~attncore.training.optimizers.StackedAdamW`), and ``z_loss``
    (one coefficient per model) adds the auxiliary z-loss to each model's objective.

    ``step(tokens, targets)`` (both ``M x batch x length``) trains every model on its own batch
    and returns their losses; ``measure`` and ``hits`` score them on shared strings."""

    def __init__(
        self,
        models: Sequence[ReversalTransformer],
        *,
        lr: float,
        engine: str = "eager",
        optimizer: Callable[[dict[str, torch.Tensor]], Any] | None = None,
        z_loss: Sequence[float] | None = None,
    ) -> None:
        keep_freed_memory()
        self.stack = Stack(models)
        self.layout = self.stack.layout
        self.compiled = resolve_engine(engine) == "compiled"
        if optimizer is None:
            self.optimizer = adam(list(self.stack.params.values()), lr)
        else:
            self.optimizer = optimizer(self.stack.params)
        device = self.stack.params["tokens.weight"].device
        self._z_loss = (
            None
            if z_loss is None or not any(z_loss)
            else torch.tensor(list(z_loss), dtype=torch.float32, device=device)
        )
        self._losses = _function("losses", self.layout, self.compiled)

    def step(self, tokens: torch.Tensor, targets: torch.Tensor) -> list[float]:
        """One optimizer step of every model on its batch; the losses (the objectives, the
        z-loss included) before the step."""
        with self._context():
            weights = self.stack.params | self.stack.buffers
            losses = self._losses(weights, tokens, targets, self._z_loss)
            self.optimizer.zero_grad(set_to_none=True)
            losses.sum().backward()  # model i's weights get the gradient of its own loss only
        self.optimizer.step()
        return losses.tolist()

    def _context(self) -> contextlib.AbstractContextManager[None]:
        return _compiling() if self.compiled else contextlib.nullcontext()

    def measure(
        self, inputs: torch.Tensor, targets: torch.Tensor, sd_strings: int
    ) -> list[tuple[float, float, float, float, float, tuple[float, float, float]]]:
        """Every model on the strings ``inputs`` (``strings x length``): token accuracy, exact
        match, logit spread, mirrored weight and mean query length, as
        :func:`~attncore.training.train.train_reversal` measures them, and Chuang's ``(sigma_X,
        sigma_Wq, sigma_Wk)`` with sigma_X on the first ``sd_strings`` strings."""
        layout, (strings, length) = self.layout, inputs.shape
        chunk = _chunk(length, strings)
        function = _function("measure", layout, self.compiled)
        sums = np.zeros((layout.models, 3 + layout.n_layers * (4 + layout.n_heads)))
        weights = self.stack.weights
        with torch.no_grad(), self._context():
            for offset, tokens, labels, valid in _chunks(inputs, targets, chunk):
                place = offset + torch.arange(chunk, device=valid.device)
                sd_rows = valid * (place < sd_strings).to(valid.dtype)
                sums += function(weights, tokens, labels, valid, sd_rows).double().cpu().numpy()
        return _measurements(sums, layout, strings, length, min(sd_strings, strings), weights)

    def hits(
        self, indices: Sequence[int], inputs: torch.Tensor, targets: torch.Tensor
    ) -> list[tuple[float, float]]:
        """Token accuracy and exact match of the models ``indices`` on ``inputs``."""
        layout = self.layout.rows(indices)
        weights = self.stack.rows(indices)
        strings, length = inputs.shape
        function = _function("hits", layout, self.compiled)
        sums = np.zeros((len(indices), 3))
        with torch.no_grad(), self._context():
            chunk = _chunk(length, strings)
            for _, tokens, labels, valid in _chunks(inputs, targets, chunk):
                sums += function(weights, tokens, labels, valid).double().cpu().numpy()
        return [(float(t) / scored, float(e) / strings) for t, e, scored in sums]


def _chunk(length: int, strings: int) -> int:
    """Strings of ``length`` tokens per evaluation chunk: about :data:`_CHUNK_TOKENS` tokens per
    model, never more strings than there are."""
    return max(1, min(strings, _CHUNK_TOKENS // length))


def _chunks(
    inputs: torch.Tensor, targets: torch.Tensor, chunk: int
) -> Iterator[tuple[int, torch.Tensor, torch.Tensor, torch.Tensor]]:
    """``(offset, tokens, targets, valid)`` for every ``chunk`` strings of ``inputs``; the last
    chunk is filled up with the first string, marked 0 in ``valid``, so every chunk has one
    shape (one compiled function)."""
    strings = len(inputs)
    for offset in range(0, strings, chunk):
        tokens, labels = inputs[offset : offset + chunk], targets[offset : offset + chunk]
        valid = torch.ones(chunk, device=inputs.device)
        if len(tokens) < chunk:
            valid[len(tokens) :] = 0.0
            fill = chunk - len(tokens)
            tokens = torch.cat([tokens, inputs[:1].expand(fill, -1)])
            labels = torch.cat([labels, targets[:1].expand(fill, -1)])
        yield offset, tokens, labels, valid


def _measurements(
    sums: np.ndarray,
    layout: Layout,
    strings: int,
    length: int,
    sd_strings: int,
    weights: dict[str, torch.Tensor],
) -> list[tuple[float, float, float, float, float, tuple[float, float, float]]]:
    """The per-model measurements of :meth:`Engine.measure` from the chunks' sums."""
    heads, layers = layout.n_heads, layout.n_layers
    rows = strings * heads * length  # attention rows (and queries) of one layer
    entries = sd_strings * length * layout.d_model
    per_layer = sums[:, 3:].reshape(len(sums), layers, 4 + heads)
    mean_x = per_layer[:, :, 0] / entries
    sigma_x = np.sqrt(np.maximum(per_layer[:, :, 1] / entries - mean_x**2, 0.0)).mean(axis=1)
    spread = (per_layer[:, :, 2] / rows).mean(axis=1)
    norm = (per_layer[:, :, 3] / rows).mean(axis=1)
    mirror = (per_layer[:, :, 4:] / (strings * length)).max(axis=(1, 2))
    sd_w = [
        np.mean(
            [
                weights[f"attention.{layer}.{part}.weight"]
                .detach()
                .flatten(1)
                .std(dim=1, correction=0)
                .cpu()
                .numpy()
                for layer in range(layers)
            ],
            axis=0,
        )
        for part in ("query", "key")
    ]
    return [
        (
            float(sums[i, 0] / sums[i, 2]),
            float(sums[i, 1] / strings),
            float(spread[i]),
            float(mirror[i]),
            float(norm[i]),
            (float(sigma_x[i]), float(sd_w[0][i]), float(sd_w[1][i])),
        )
        for i in range(len(sums))
    ]
