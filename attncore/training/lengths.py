"""Train short, test long: Chiang and Cholak's FIRST task (chiang2022overcoming) trained at one
length and scored exactly at any other.

**The task.** A string is ``[CLS] b_1 ... b_n`` with random bits; its label, read at the
``[CLS]`` position, is the first bit ``b_1``. The model is
:class:`~attncore.training.model.ReversalTransformer` with three position embeddings (``pos =
0``, ``pos = 1``, ``pos >= 2``: the authors' length-independent position features), so it reads
strings of any length. :func:`train_first` trains many models (methods x seeds) together as one
:class:`~attncore.training.engine.Engine` ensemble at one length; every seed draws one batch
order that all methods share.

**Scoring at any length, exactly.** Every position from 2 on with the same bit has the same
input, hence (by induction over the layers, since every query sees the same keys) the same
state in every layer; a string is therefore four kinds of positions (``[CLS]``, the first bit,
the later zeros, the later ones) with multiplicities ``1, 1, c_0, c_1``, and attention over
``n + 1`` keys is a softmax over the four kinds with ``ln(multiplicity)`` added to each logit.
:func:`score_lengths` runs that forward pass (:func:`kinds_forward`) for every ``c_1`` from 0 to
``n - 1`` and weighs the outcomes by their binomial probabilities: the accuracy over all
``2^n`` strings, without sampling, at ``n = 10^4`` as fast as at ``n = 10``
(``tests/test_lengths.py`` checks it against the engine's forward pass on whole strings).

**The logit scale at a new length.** A factor that the registry defines as a function of the
number of keys ``n`` (``ln n/sqrt(d)``, ``log_512 n/sqrt(d)``, SSMax's ``s ln n/sqrt(d)``) is
evaluated at the string's ``n``; what training learned (a ``beta``, a gain, a temperature)
stays as trained; ``1/k_total`` is computed from the keys of the string. An inference-time
temperature (:data:`TEMPERATURES`) multiplies the logits of a model trained with another
scaling. Both act as a factor on the queries.

>>> config = first_config("sqrt_d", length=4)
>>> trained = train_first({"sqrt_d": config}, seeds=[0], steps=2, batch_size=4, lr=1e-3)
>>> table = score_lengths(trained, [4, 100])
>>> list(table.columns), len(table)
(['method', 'seed', 'length', 'accuracy', 'entropy', 'largest', 'factor', 'scale'], 2)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from scipy import stats
from torch.nn import functional as F

from attncore.checks import ParameterError, positive_int, positive_real
from attncore.intervals import t_quantile
from attncore.rescalings import get_rescaling
from attncore.training.data import IGNORE
from attncore.training.engine import Engine, Layout, ScalingForm, ensemble_forward
from attncore.training.model import ModelConfig, model_scalings
from attncore.training.train import build_model

__all__ = [
    "CLS",
    "TEMPERATURES",
    "TrainedFirst",
    "first_config",
    "first_kinds",
    "first_strings",
    "kinds_forward",
    "length_factor",
    "score_lengths",
    "seed_interval",
    "train_first",
]

CLS = 2
"""The token at position 0, where the label is read (the bits are 0 and 1)."""


def _yarn(n: int, n_train: int) -> float:
    """YaRN's factor on the logits (peng2024yarn): ``(0.1 ln s + 1)^2`` with ``s`` the length
    extension ``n / n_train`` (1 up to the training length)."""
    return (0.1 * math.log(n / n_train) + 1.0) ** 2 if n > n_train else 1.0


def _qwen(n: int, n_train: int) -> float:
    """Qwen's log-n factor: a query that sees ``n > n_train`` keys multiplied by
    ``log_{n_train} n`` (in a model without a causal mask every query sees all ``n``)."""
    return math.log(n) / math.log(n_train) if n > n_train else 1.0


TEMPERATURES: dict[str, Callable[[int, int], float]] = {"yarn": _yarn, "qwen": _qwen}
"""Inference-time factors on the logits, ``factor(n, n_train)`` for ``n`` keys at test and
``n_train`` in training."""


def first_config(scaling: str, *, length: int, d_model: int = 16, n_layers: int = 2) -> ModelConfig:
    """The FIRST model of ``scaling`` for strings of ``length`` bits: one head, post-LayerNorm,
    PyTorch's initialization, three position embeddings, two classes (as the authors' code,
    without its feed-forward layers).

    >>> first_config("log_n", length=10).n_positions, first_config("log_n", length=10).length
    (3, 11)
    """
    positive_int("length", length, minimum=2)
    return ModelConfig(
        scaling=scaling,
        vocab=3,
        classes=2,
        length=length + 1,
        d_model=d_model,
        n_heads=1,
        n_layers=n_layers,
        layer_norm=True,
        norm_position="post",
        init="pytorch",
        position_buckets=3,
    )


def first_strings(rng: np.random.Generator, shape: tuple[int, ...], length: int) -> tuple:
    """Random FIRST strings of ``length`` bits, ``[CLS]`` in front, and their targets (the first
    bit at position 0, :data:`~attncore.training.data.IGNORE` elsewhere).

    >>> x, y = first_strings(np.random.default_rng(0), (2,), 4)
    >>> x[:, 0].tolist(), (y[:, 0] == x[:, 1]).all(), (y[:, 1:] == IGNORE).all()
    ([2, 2], np.True_, np.True_)
    """
    bits = rng.integers(0, 2, size=(*shape, length))
    tokens = np.concatenate([np.full((*shape, 1), CLS), bits], axis=-1)
    targets = np.full_like(tokens, IGNORE)
    targets[..., 0] = bits[..., 0]
    return tokens, targets


@dataclass
class TrainedFirst:
    """Models trained together: the engine holding them, per model its method and seed, the
    training length in bits, and each model's final training loss and training accuracy (on
    its last 100 batches)."""

    engine: Engine
    methods: list[str]
    seeds: list[int]
    configs: list[ModelConfig]
    length: int
    final_loss: np.ndarray
    train_accuracy: np.ndarray


def train_first(
    methods: Mapping[str, ModelConfig],
    *,
    seeds: Sequence[int],
    steps: int,
    batch_size: int,
    lr: float,
    engine: str = "eager",
) -> TrainedFirst:
    """Train every method with every seed on FIRST at the configurations' length, as one
    ensemble; seed ``s`` gives every method the same initial draw of the shared weights' seed
    and the same batches (paired comparisons)."""
    steps, batch_size = positive_int("steps", steps), positive_int("batch_size", batch_size)
    positive_real("lr", lr)
    if not methods or not seeds:
        raise ParameterError("methods and seeds must each name at least one")
    lengths = {c.length for c in methods.values()}
    if len(lengths) != 1:
        raise ParameterError(f"every method must have one length, got {sorted(lengths)}")
    bits = lengths.pop() - 1
    runs = [(name, seed) for name in methods for seed in seeds]
    models = [build_model(methods[name], seed) for name, seed in runs]
    ensemble = Engine(models, lr=lr, engine=engine)
    drawn = [first_strings(np.random.default_rng(s), (steps, batch_size), bits) for s in seeds]
    which = torch.tensor([list(seeds).index(s) for _, s in runs])
    tokens, targets = (torch.from_numpy(np.stack([d[part] for d in drawn])) for part in (0, 1))
    losses = np.zeros((steps, len(runs)))
    hits = np.zeros((steps, len(runs)))
    for step in range(steps):
        x, y = tokens[which, step], targets[which, step]
        losses[step] = ensemble.step(x, y)
        if step >= steps - 100:
            with torch.no_grad():
                hits[step] = _first_hits(ensemble, x, y)
    if not np.isfinite(losses).all():
        raise FloatingPointError("a FIRST run diverged (a non-finite loss)")
    tail = slice(max(0, steps - 100), steps)
    return TrainedFirst(
        ensemble,
        [name for name, _ in runs],
        [seed for _, seed in runs],
        [methods[name] for name, _ in runs],
        bits,
        losses[tail].mean(axis=0),
        hits[tail].mean(axis=0),
    )


def _first_hits(ensemble: Engine, tokens: torch.Tensor, targets: torch.Tensor) -> np.ndarray:
    """Share of each model's strings (``M x batch x length``) whose label is right."""
    logits = ensemble_forward(ensemble.layout, ensemble.stack.weights, tokens)
    return (logits[:, :, 0].argmax(dim=-1) == targets[:, :, 0]).double().mean(dim=1).numpy()


def length_factor(config: ModelConfig, n_keys: int, n_train: int) -> float:
    """The factor on the logits at ``n_keys`` keys of a model trained at ``n_train``: the
    registry's factor at ``n_keys`` over its factor at ``n_train`` for a factor of ``n`` and
    ``d`` (a learned SSMax scales its trained ``s ln n``), 1 for what training learned, a
    cosine's gain and a factor of the keys.

    >>> round(length_factor(first_config("log_n", length=10), 1001, 11), 3)
    2.881
    >>> length_factor(first_config("learned", length=10), 1001, 11)
    1.0
    """
    scaling = model_scalings()[config.scaling]
    fixed_base = scaling.kind == "fixed" and scaling.rescaling != "constant"
    if not fixed_base:
        return 1.0
    rescaling = get_rescaling(scaling.rescaling, **dict(config.params))
    d_k = config.d_k
    return rescaling.factor(None, n_keys, d_k, **rescaling.params) / rescaling.factor(
        None, n_train, d_k, **rescaling.params
    )


def _weighted_key_norm(form: ScalingForm, lengths: torch.Tensor, counts: torch.Tensor):
    """``k_total`` of keys of lengths ``lengths`` (``... x kinds``) taken ``counts`` times."""
    if form.norm != "k_total":
        raise ParameterError(f"scoring by kinds supports the key norm k_total, got {form.norm!r}")
    return (lengths * counts).sum(dim=-1)


def kinds_forward(
    layout: Layout,
    weights: Mapping[str, torch.Tensor],
    tokens: torch.Tensor,
    counts: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The forward pass of stacked models on strings given as kinds of positions: ``tokens``
    (``cases x kinds``: each kind's token; kind ``j`` at position ``min(j, 2)``) taken
    ``counts`` times (``cases x kinds``, 0 for an absent kind). Returns the class logits of
    every kind (``M x cases x kinds x classes``), the attention of the last layer
    (``M x cases x heads x kinds x kinds``: the total weight each kind of query puts on each
    kind of key) and its factor on ``q . k`` (``M x cases x heads``; a cosine's gain)."""
    m = next(iter(weights.values())).shape[0]
    cases, kinds = tokens.shape
    width, heads = layout.d_model, layout.n_heads
    position = torch.arange(kinds).clamp(max=layout.position_buckets - 1)
    x = weights["tokens.weight"][:, tokens] + weights["positions.weight"][:, position][:, None]
    log_counts = torch.where(counts > 0, counts.double().log(), -math.inf).to(x.dtype)
    post = layout.norm_position == "post"

    def norm(name: str, inputs: torch.Tensor) -> torch.Tensor:
        if not layout.layer_norm:
            return inputs
        normed = F.layer_norm(inputs, (width,), eps=layout.eps)
        return (
            normed * weights[f"{name}.weight"][:, None, None]
            + weights[f"{name}.bias"][:, None, None]
        )

    def linear(inputs: torch.Tensor, name: str) -> torch.Tensor:
        out = inputs @ weights[f"{name}.weight"].transpose(1, 2)[:, None]
        return out + weights[f"{name}.bias"][:, None, None]

    def split(inputs: torch.Tensor) -> torch.Tensor:  # M x cases x heads x kinds x d_k
        return inputs.view(m, cases, kinds, heads, width // heads).transpose(2, 3)

    attention = scale = x.new_zeros(0)
    for layer in range(layout.n_layers):
        name = f"attention.{layer}"
        inputs = x if post else norm(f"norms.{layer}", x)
        q, k, v = (split(linear(inputs, f"{name}.{p}")) for p in ("query", "key", "value"))
        parts = [
            _kind_logits(forms[layer], f"{name}.scaling", weights, a, b, q[a:b], k[a:b], counts)
            for a, b, forms in layout.segments
        ]
        logits = torch.cat([p for p, _ in parts])
        scale = torch.cat([c.expand(*p.shape[:3]) for p, c in parts])
        attention = torch.softmax(logits + log_counts[None, :, None, None, :], dim=-1)
        mixed = (attention @ v).transpose(2, 3).reshape(m, cases, kinds, width)
        x = x + linear(mixed, f"{name}.out")
        if post:
            x = norm(f"norms.{layer}", x)
    out = x if post else norm("final_norm", x)
    return linear(out, "classifier"), attention, scale


def _kind_logits(
    form: ScalingForm,
    name: str,
    weights: Mapping[str, torch.Tensor],
    start: int,
    stop: int,
    q: torch.Tensor,
    k: torch.Tensor,
    counts: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The scaled logits of models ``start`` to ``stop - 1`` between kinds, as
    :mod:`attncore.training.engine` scales them (a key norm counts every key), and the factor
    on ``q . k`` (models x cases x heads, or a shape that broadcasts to it)."""
    dots = q @ k.transpose(-2, -1)
    if form.kind == "fixed":
        factor = weights[f"{name}.scale"][start:stop, None, None]
        return factor[..., None, None] * dots, factor
    if form.kind == "learned":
        factor = weights[f"{name}.log_beta"][start:stop, None, :].exp()
        return factor[..., None, None] * dots, factor
    if form.kind == "keys":
        size = _weighted_key_norm(form, k.norm(dim=-1), counts[None, :, None, :])
        factor = 1.0 / size.clamp_min(torch.finfo(k.dtype).tiny)
        return factor[..., None, None] * dots, factor
    tiny = 1e-12
    if form.kind == "temperature":
        ceiling = dict(form.params)["ceiling"]
        gain = weights[f"{name}.log_scale"][start:stop].clamp(max=ceiling).exp()
    else:
        gain = weights[f"{name}.gain"][start:stop]
    cosines = dots / (
        q.norm(dim=-1).clamp_min(tiny)[..., None] * k.norm(dim=-1).clamp_min(tiny)[..., None, :]
    )
    return gain[:, None, :, None, None] * cosines, gain[:, None, :]


NEGLIGIBLE = 1e-15
"""Probability below which a number of ones is left out of the exact score (the strings left
out weigh less than ``bits * NEGLIGIBLE`` together)."""


def first_kinds(bits: int) -> tuple[torch.Tensor, torch.Tensor, np.ndarray]:
    """Every kind of FIRST string of ``bits`` bits: the first bit ``b`` and the number of ones
    ``c_1`` among the others, as kinds (``[CLS]``, ``b``, 0, 1) with counts (1, 1, ``bits - 1 -
    c_1``, ``c_1``), and the probability of each under uniformly random bits; numbers of ones
    less likely than :data:`NEGLIGIBLE` are left out.

    >>> first_kinds(3)[1].tolist()
    [[1, 1, 2, 0], [1, 1, 1, 1], [1, 1, 0, 2], [1, 1, 2, 0], [1, 1, 1, 1], [1, 1, 0, 2]]
    """
    ones = np.arange(bits)
    ones = ones[stats.binom.pmf(ones, bits - 1, 0.5) >= NEGLIGIBLE]
    first = np.repeat([0, 1], len(ones))
    c1 = np.tile(ones, 2)
    tokens = np.stack(
        [np.full_like(first, CLS), first, np.zeros_like(first), np.ones_like(first)], 1
    )
    counts = np.stack([np.ones_like(first), np.ones_like(first), bits - 1 - c1, c1], 1)
    probability = 0.5 * stats.binom.pmf(c1, bits - 1, 0.5)
    return torch.from_numpy(tokens), torch.from_numpy(counts), probability


def score_lengths(
    trained: TrainedFirst,
    lengths: Sequence[int],
    temperatures: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every trained model at every length in ``lengths`` (bits), exactly over all strings:
    accuracy, the mean entropy of the ``[CLS]`` query's attention row in the last layer over
    ``ln n`` (``n`` keys), its mean largest weight, the factor applied to the logits at this
    length (``factor``) and the last layer's mean factor on ``q . k`` (``scale``; a cosine's
    gain). Each
    entry of ``temperatures`` (a name of :data:`TEMPERATURES` -> the method whose models it is
    applied to) adds those models once more under that factor, as method ``"<method> +
    <name>"``. One row per model, variant and length."""
    temperatures = dict(temperatures or {})
    for name, method in temperatures.items():
        if name not in TEMPERATURES:
            raise ParameterError(
                f"temperature must be one of {', '.join(TEMPERATURES)}, got {name!r}"
            )
        if method not in trained.methods:
            raise ParameterError(f"temperature {name} needs trained models of {method!r}")
    variants = [(i, trained.methods[i], None) for i in range(len(trained.methods))]
    for name, method in temperatures.items():
        variants += [
            (i, f"{method} + {name}", name) for i, m in enumerate(trained.methods) if m == method
        ]
    indices = [i for i, _, _ in variants]
    layout = trained.engine.layout.rows(indices)
    rows = []
    n_train = trained.length + 1
    for bits in lengths:
        positive_int("length", bits, minimum=2)
        n_keys = bits + 1
        factors = np.array(
            [
                length_factor(trained.configs[i], n_keys, n_train)
                * (TEMPERATURES[t](n_keys, n_train) if t else 1.0)
                for i, _, t in variants
            ]
        )
        weights = trained.engine.stack.rows(indices)
        on_q = torch.from_numpy(factors).to(weights["tokens.weight"].dtype)
        for layer in range(layout.n_layers):
            weights[f"attention.{layer}.query.weight"] *= on_q[:, None, None]
            weights[f"attention.{layer}.query.bias"] *= on_q[:, None]
        tokens, counts, probability = first_kinds(bits)
        block = max(1, SCORE_BLOCK // (len(indices) * tokens.shape[1] * layout.d_model))
        right, entropy, largest, scales = sum(
            _score_cases(
                layout, weights, *(x[a : a + block] for x in (tokens, counts, probability))
            )
            for a in range(0, len(tokens), block)
        )
        for j, (i, method, _) in enumerate(variants):
            rows.append(
                {
                    "method": method,
                    "seed": trained.seeds[i],
                    "length": bits,
                    "accuracy": float(right[j]),
                    "entropy": float(entropy[j]) / math.log(n_keys),
                    "largest": float(largest[j]),
                    "factor": float(factors[j]),
                    "scale": float(scales[j]) * _on_dots(layout, j, factors[j]),
                }
            )
    return pd.DataFrame(rows)


SCORE_BLOCK = 2**19
"""Entries of a model's activations (models x cases x kinds x width) scored at once: long test
strings have thousands of kinds of cases, scored in blocks so that memory stays near
``SCORE_BLOCK`` times the bytes of a float and the tensors the forward pass keeps alive (about
30, ``benchmarks/budget_accuracy.py`` measures the peak), whatever the length and the number
of models. A block's cases are summed as they are scored."""


def _score_cases(
    layout: Layout,
    weights: Mapping[str, torch.Tensor],
    tokens: torch.Tensor,
    counts: torch.Tensor,
    probability: np.ndarray,
) -> np.ndarray:
    """Per model (``4 x M``), summed over the cases weighted by their ``probability``: whether
    the model is right, the entropy of the ``[CLS]`` query's attention row (nats), its largest
    weight and the factor on ``q . k``."""
    with torch.no_grad():
        logits, attention, scale = kinds_forward(layout, weights, tokens, counts)
    right = (logits[:, :, 0].argmax(dim=-1) == tokens[:, 1]).double().numpy()
    row = attention[:, :, :, 0].double()  # M x cases x heads x kinds: [CLS]'s weights
    per_key = row / counts[:, None].double().clamp_min(1)
    logs = torch.where(row > 0, per_key.log(), 0.0)
    entropy = -(row * logs).sum(dim=-1).mean(dim=-1).numpy()
    largest = torch.where(counts[:, None] > 0, per_key, 0.0).amax(dim=-1).mean(dim=-1).numpy()
    scales = scale.double().mean(dim=-1).numpy()
    return np.stack([right, entropy, largest, scales]) @ probability


def _on_dots(layout: Layout, index: int, factor: float) -> float:
    """What a factor on the queries does to the scale of model ``index``'s last layer: it
    multiplies a scale of ``q . k`` and leaves a cosine's gain alone."""
    form = next(f for a, b, f in layout.segments if a <= index < b)[-1]
    return 1.0 if form.kind in ("cosine", "temperature") else float(factor)


def seed_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean over seeds and its two-sided Student-t interval at ``level`` (the seeds' spread;
    one seed gives an interval of zero width and says nothing about it).

    >>> seed_interval([0.5, 0.7, 0.9])
    (0.7, 0.203..., 1.196...)
    """
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if len(values) < 2:
        return mean, mean, mean
    half = t_quantile(level, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values))
    return mean, mean - float(half), mean + float(half)
