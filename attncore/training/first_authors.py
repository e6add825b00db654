"""Chiang and Cholak's own FIRST experiment (chiang2022overcoming), run as their code runs it.

The book's :mod:`attncore.training.lengths` trains the book's model; this module is the
published setup, so that the length chapter compares with the published numbers before it
varies anything. What the authors' ``first.py`` does, and this module with it:

* **The model.** A word embedding of ``[CLS]``, 0 and 1; one fixed position feature (the first
  coordinate is 1 at position 1, the first bit, and 0 everywhere else), so the model reads
  strings of any length; two post-LayerNorm encoder layers of PyTorch's
  ``TransformerEncoderLayer`` (one head, width 16, a ReLU feed-forward sublayer of width 64,
  no dropout, LayerNorm epsilon 1e-5; ``TransformerEncoder`` copies the first layer, so both
  start with the same weights); a linear map of the ``[CLS]`` state to one logit ``z``.
* **The loss.** ``-log sigmoid(z)`` when the first bit is 1, ``-log sigmoid(-z)`` when it is 0.
* **The scaled attention.** The query input (not the key's) is multiplied by ``ln n``, ``n`` the
  number of positions, ``[CLS]`` included, before the usual projection and the usual
  ``1/sqrt(d)``; the query's bias is not scaled.
* **The training.** Adam at 3e-4, one fresh random string per step, 100 epochs of 100 steps.

Weights are drawn by the PyTorch modules the authors use, under ``torch.manual_seed(seed)``;
the two methods of a seed share those weights and their strings (paired runs).
:class:`AuthorsSetup` also names the book's departures, one field each (batch, learning rate,
steps, no feed-forward sublayer, learned position embeddings), for runs that change one thing at
a time. All runs of a call train as one batch of models, each with its own weights and Adam
state (Adam is elementwise, so one optimizer over stacked weights is one per model), in one
thread.

:func:`score_authors` scores a trained model at any length exactly, over all strings, as
:mod:`attncore.training.lengths` does: the positions after the first bit that hold the same bit
have the same state, so a string is four kinds of positions with multiplicities, and attention
over them is a softmax with the log of each multiplicity added to its logit. The same forward
pass with every multiplicity 1 is the training forward on whole strings, and
``tests/test_first_authors.py`` checks it against PyTorch's own ``TransformerEncoderLayer``.

>>> trained = train_authors(AuthorsSetup(steps=30), train_length=6, seeds=[0, 1])
>>> table = score_authors(trained, [6, 50])
>>> list(table.columns), len(table)
(['method', 'seed', 'length', 'accuracy', 'cross_entropy'], 8)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch.nn import functional as F

from attncore.checks import ParameterError, positive_int, positive_real
from attncore.training.lengths import CLS, first_kinds
from attncore.training.train import torch_threads

__all__ = [
    "METHODS",
    "AuthorsSetup",
    "TrainedAuthors",
    "authors_forward",
    "initial_weights",
    "score_authors",
    "train_authors",
]

METHODS = ("standard", "log_n")
"""The authors' two attentions: ``q . k / sqrt(d)``, and the same with the query input
multiplied by ``ln n``."""

POSITIONS = ("fixed", "learned")


@dataclass(frozen=True)
class AuthorsSetup:
    """One run of the FIRST experiment: the authors' code's defaults, or a departure from them.

    ``positions`` is ``"fixed"`` (the authors' one feature at position 1) or ``"learned"``
    (three learned embeddings, for position 0, 1 and every later one: the book's model);
    ``d_ff = 0`` leaves out the feed-forward sublayers (the book's model has none).

    >>> AuthorsSetup().describe()
    'width 16, feed-forward 64, 2 layers, fixed position feature; Adam 0.0003, 1 string per \
step, 10,000 steps'
    """

    d_model: int = 16
    d_ff: int = 64
    n_layers: int = 2
    positions: str = "fixed"
    lr: float = 3e-4
    batch_size: int = 1
    steps: int = 10_000
    eps: float = 1e-5

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "batch_size", "steps"):
            positive_int(name, getattr(self, name))
        positive_int("d_ff", self.d_ff, minimum=0)
        positive_real("lr", self.lr)
        positive_real("eps", self.eps)
        if self.positions not in POSITIONS:
            raise ParameterError(
                f"positions must be one of {', '.join(POSITIONS)}, got {self.positions!r}"
            )

    def describe(self) -> str:
        """The setup in words, for a table of runs."""
        ff = f"feed-forward {self.d_ff}" if self.d_ff else "no feed-forward"
        strings = f"{self.batch_size} string{'s' if self.batch_size > 1 else ''} per step"
        return (
            f"width {self.d_model}, {ff}, {self.n_layers} layers, {self.positions} position "
            f"feature{'s' if self.positions == 'learned' else ''}; Adam {self.lr:g}, {strings}, "
            f"{self.steps:,} steps"
        )


def initial_weights(seed: int, setup: AuthorsSetup) -> dict[str, torch.Tensor]:
    """The weights the authors' modules draw under ``torch.manual_seed(seed)``, in the order
    their ``Model`` builds them (the global generator is restored afterwards). A setup without
    feed-forward sublayers draws them anyway and drops them, and learned positions are drawn
    last, so that every setup of a seed starts from the same attention weights.

    >>> w = initial_weights(0, AuthorsSetup())
    >>> bool(torch.equal(w["layer0.in_weight"], w["layer1.in_weight"]))  # a copied first layer
    True
    """
    d = setup.d_model
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        embedding = torch.nn.Embedding(3, d)
        layer = torch.nn.TransformerEncoderLayer(
            d, nhead=1, dim_feedforward=setup.d_ff or 64, dropout=0.0
        )
        layer.norm1.eps = layer.norm2.eps = setup.eps
        encoder = torch.nn.TransformerEncoder(layer, setup.n_layers, enable_nested_tensor=False)
        output = torch.nn.Linear(d, 1)
        learned = torch.nn.Embedding(3, d) if setup.positions == "learned" else None
    weights = {"embedding": embedding.weight, "output_weight": output.weight[0]}
    weights["output_bias"] = output.bias
    if learned is not None:
        weights["positions"] = learned.weight
    for i, block in enumerate(encoder.layers):
        parts = {
            "in_weight": block.self_attn.in_proj_weight,
            "in_bias": block.self_attn.in_proj_bias,
            "out_weight": block.self_attn.out_proj.weight,
            "out_bias": block.self_attn.out_proj.bias,
            "norm1_weight": block.norm1.weight,
            "norm1_bias": block.norm1.bias,
            "norm2_weight": block.norm2.weight,
            "norm2_bias": block.norm2.bias,
        }
        if setup.d_ff:
            parts |= {
                "ff1_weight": block.linear1.weight,
                "ff1_bias": block.linear1.bias,
                "ff2_weight": block.linear2.weight,
                "ff2_bias": block.linear2.bias,
            }
        weights |= {f"layer{i}.{name}": value for name, value in parts.items()}
    return {name: value.detach().clone() for name, value in weights.items()}


def _fixed_positions(d_model: int, dtype: torch.dtype) -> torch.Tensor:
    """The authors' position feature for positions 0, 1 and every later one: 1 in the first
    coordinate at position 1."""
    table = torch.zeros(3, d_model, dtype=dtype)
    table[1, 0] = 1.0
    return table


def authors_forward(
    weights: dict[str, torch.Tensor],
    setup: AuthorsSetup,
    tokens: torch.Tensor,
    counts: torch.Tensor,
    query_factor: torch.Tensor,
) -> torch.Tensor:
    """The logit ``z`` of stacked models (weights ``M x ...``) on strings given as kinds of
    positions: ``tokens`` (``M x cases x kinds`` or ``cases x kinds``; kind ``j`` at position
    ``min(j, 2)``) taken ``counts`` times (``cases x kinds``, 0 for an absent kind), with each
    model's query input multiplied by ``query_factor`` (``M``). Returns ``M x cases``."""
    embedding = weights["embedding"]
    m, d = embedding.shape[0], setup.d_model
    if tokens.dim() == 2:
        tokens = tokens.expand(m, *tokens.shape)
    kinds = tokens.shape[-1]
    rows = torch.arange(m)[:, None, None]
    position = torch.arange(kinds).clamp(max=2)
    if setup.positions == "learned":
        placed = weights["positions"][:, position][:, None]
    else:
        placed = _fixed_positions(d, embedding.dtype)[position]
    x = embedding[rows, tokens] + placed
    log_counts = torch.where(counts > 0, counts.to(x.dtype).log(), -math.inf)
    factor = query_factor.to(x.dtype)[:, None, None, None]

    def linear(inputs: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return inputs @ weight.transpose(-1, -2)[:, None] + bias[:, None, None]

    def norm(inputs: torch.Tensor, name: str) -> torch.Tensor:
        normed = F.layer_norm(inputs, (d,), eps=setup.eps)
        return (
            normed * weights[f"{name}_weight"][:, None, None]
            + weights[f"{name}_bias"][:, None, None]
        )

    for layer in range(setup.n_layers):
        p = f"layer{layer}."
        # (s x) W_q^T + b_q = s (x W_q^T) + b_q: one product for the query, key and value
        projected = x @ weights[p + "in_weight"].transpose(-1, -2)[:, None]
        b_q, b_k, b_v = weights[p + "in_bias"][:, None, None].chunk(3, dim=-1)
        q, k, v = projected.chunk(3, dim=-1)
        q, k, v = q * factor + b_q, k + b_k, v + b_v
        logits = q @ k.transpose(-1, -2) / math.sqrt(d) + log_counts[..., None, :]
        mixed = torch.softmax(logits, dim=-1) @ v
        x = norm(x + linear(mixed, weights[p + "out_weight"], weights[p + "out_bias"]), p + "norm1")
        if setup.d_ff:
            inner = torch.relu(linear(x, weights[p + "ff1_weight"], weights[p + "ff1_bias"]))
            x = x + linear(inner, weights[p + "ff2_weight"], weights[p + "ff2_bias"])
        x = norm(x, p + "norm2")
    return (x[:, :, 0] * weights["output_weight"][:, None]).sum(-1) + weights["output_bias"]


@dataclass
class TrainedAuthors:
    """Models trained together: their weights (stacked), setup, methods and seeds, the
    training length in bits, and per model its mean training loss and accuracy over the last
    100 steps."""

    weights: dict[str, torch.Tensor]
    setup: AuthorsSetup
    methods: list[str]
    seeds: list[int]
    length: int
    final_loss: np.ndarray
    train_accuracy: np.ndarray


def _query_factors(methods: Sequence[str], n_positions: int) -> torch.Tensor:
    return torch.tensor([math.log(n_positions) if m == "log_n" else 1.0 for m in methods])


def train_authors(
    setup: AuthorsSetup,
    *,
    train_length: int,
    seeds: Sequence[int],
    methods: Sequence[str] = METHODS,
) -> TrainedAuthors:
    """Train every method with every seed of ``seeds`` on FIRST strings of ``train_length``
    bits, as ``setup`` says; seed ``s`` gives every method the same initial weights and the
    same strings (drawn by numpy's PCG64 from ``(s, train_length)``)."""
    bits = positive_int("train_length", train_length, minimum=2)
    if not seeds or not methods:
        raise ParameterError("seeds and methods must each name at least one")
    for method in methods:
        if method not in METHODS:
            raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    runs = [(method, int(seed)) for method in methods for seed in seeds]
    first = {seed: initial_weights(seed, setup) for seed in seeds}
    shapes = {name: value.shape for name, value in first[seeds[0]].items()}
    # every weight of a model in one row, so that Adam updates one tensor per step
    flat = torch.cat(
        [torch.stack([first[s][name] for _, s in runs]).flatten(1) for name in shapes], dim=1
    ).requires_grad_()
    sizes = [math.prod(shape) for shape in shapes.values()]

    def unflatten(rows: torch.Tensor) -> dict[str, torch.Tensor]:
        parts = rows.split(sizes, dim=1)
        return {n: p.view(len(runs), *shapes[n]) for n, p in zip(shapes, parts, strict=True)}

    bits_drawn = np.stack([  # seeds x steps x B x bits, one byte a bit
        np.random.default_rng([seed, bits]).integers(
            0, 2, size=(setup.steps, setup.batch_size, bits), dtype=np.uint8
        )
        for seed in seeds
    ])  # fmt: skip
    cls = np.full((*bits_drawn.shape[:-1], 1), CLS, dtype=np.uint8)
    drawn = torch.from_numpy(np.concatenate([cls, bits_drawn], axis=-1))  # [CLS] once, not a step
    which = torch.tensor([list(seeds).index(seed) for _, seed in runs])
    factors = _query_factors([m for m, _ in runs], bits + 1)
    counts = torch.ones(setup.batch_size, bits + 1, dtype=torch.long)
    optimizer = torch.optim.Adam([flat], lr=setup.lr, fused=True)
    losses = np.zeros((setup.steps, len(runs)))
    tail = slice(max(0, setup.steps - 100), setup.steps)
    hits = np.zeros((setup.steps, len(runs)))
    with torch_threads(1):
        for step in range(setup.steps):
            tokens = drawn[which, step].long()
            z = authors_forward(unflatten(flat), setup, tokens, counts, factors)
            sign = 2.0 * tokens[..., 1].to(z.dtype) - 1.0
            loss = F.softplus(-sign * z).mean(dim=1)  # -log sigmoid(+-z), per model
            optimizer.zero_grad()
            loss.sum().backward()
            optimizer.step()
            losses[step] = loss.detach().numpy()
            if step >= tail.start:
                hits[step] = (sign * z > 0).double().mean(dim=1).detach().numpy()
    if not np.isfinite(losses).all():
        raise FloatingPointError("a FIRST run of the authors' setup diverged (a non-finite loss)")
    return TrainedAuthors(
        unflatten(flat.detach()),
        setup,
        [m for m, _ in runs],
        [s for _, s in runs],
        bits,
        losses[tail].mean(axis=0),
        hits[tail].mean(axis=0),
    )


def score_authors(trained: TrainedAuthors, lengths: Sequence[int]) -> pd.DataFrame:
    """Every trained model at every length of ``lengths`` (bits), exactly over all strings
    (:func:`~attncore.training.lengths.first_kinds`): the share of strings whose sign of ``z``
    is right (``accuracy``) and the mean of the loss ``-log sigmoid(+-z)`` (``cross_entropy``,
    nats), in double precision. One row per model and length."""
    weights = {name: value.double() for name, value in trained.weights.items()}
    rows = []
    for bits in lengths:
        positive_int("length", bits, minimum=2)
        tokens, counts, probability = first_kinds(bits)
        factors = _query_factors(trained.methods, bits + 1)
        with torch.no_grad():
            z = authors_forward(weights, trained.setup, tokens, counts, factors)
        sign = 2.0 * tokens[:, 1].double() - 1.0
        right = (sign * z > 0).double().numpy() @ probability
        loss = F.softplus(-sign * z).numpy() @ probability
        for i, (method, seed) in enumerate(zip(trained.methods, trained.seeds, strict=True)):
            rows.append(
                {"method": method, "seed": seed, "length": bits}
                | {"accuracy": float(right[i]), "cross_entropy": float(loss[i])}
            )
    return pd.DataFrame(rows)
