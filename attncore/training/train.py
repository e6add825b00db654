"""Train the reversal model with Adam and measure it: learning curve, accuracy, attention.

:func:`train_reversal` is the training entry point. It trains one model on one data set
and returns a :class:`TrainResult`: the validation token accuracy and whole-sequence exact
match every ``eval_every`` steps (the learning curve), the first step at which the token
accuracy reaches ``target`` (95% by default), the final accuracies, and two measurements of
the attention at every evaluation: the spread of the scaled logits (the mean over
attention rows of their standard deviation across keys; the softmax sees nothing else)
and the weight on the mirrored position (query ``i`` attending to key ``L - 1 - i``,
which is what reversal needs; uniform attention gives ``1/L``).

**Repeatability.** The weights are drawn under ``torch.manual_seed(seed)`` inside
:func:`torch.random.fork_rng` (the caller's generator state is left alone) and the batch
order comes from a numpy generator seeded with ``seed``, so one seed, one thread count and
one machine give bit-identical losses. Different thread counts or CPUs may sum in another
order and differ in the last bits, which training can amplify.

**Threads.** The model is tiny (a few thousand parameters, batches of 32 x 20 tokens), so a
step is dominated by per-operation overhead, not arithmetic. On the 2-core machines this book
is built on (``benchmarks/training_threads.py``), a second intra-op thread made steps about
15% faster on an otherwise idle machine, but 3 to 30 times slower as soon as another process
kept a core busy, and it changes the order of floating-point sums, so losses with 1 and 2
threads are not bit-identical. The default is ``threads=1``, restored to the caller's setting
afterwards.

>>> from attncore.training.data import reversal_data
>>> from attncore.training.model import ModelConfig
>>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
>>> config = ModelConfig(vocab=5, length=4, d_model=8)
>>> result = train_reversal(config, data, steps=3, batch_size=8, eval_every=2)
>>> result.eval_steps
(0, 2, 3)
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from attncore.checks import ParameterError, positive_int, positive_real
from attncore.training.data import IGNORE, SequenceData
from attncore.training.init import initialize
from attncore.training.model import (
    AttentionRecord,
    CosineTemperature,
    LearnedBeta,
    ModelConfig,
    QKNorm,
    ReversalTransformer,
)

__all__ = [
    "DEVICES",
    "TrainResult",
    "accuracy",
    "attention_summary",
    "build_model",
    "learned_scales",
    "resolve_device",
    "torch_threads",
    "train_reversal",
    "weight_sds",
]


@dataclass(frozen=True)
class TrainResult:
    """One training run: its setting, its learning curve and its attention measurements.

    ``eval_steps``, ``val_accuracy`` (token accuracy), ``val_exact`` (share of validation
    strings reversed without a single error), ``spreads``, ``mirror_weights`` and
    ``query_norms`` (mean ``||q||`` over layers, heads and queries) are aligned: one entry
    per evaluation, the first at step 0 (initialization), the last at ``steps``.
    ``weight_sds`` holds Chuang's ``(sigma_X, sigma_Wq, sigma_Wk)``: the standard deviations
    of the entries of the attention input (on the validation strings) and of the query and
    key weight matrices, mean over layers. ``losses`` holds the training loss of every step;
    ``test_scores`` holds ``(step, token accuracy, exact match)`` on the test split at the
    requested steps.
    """

    method: str
    config: ModelConfig
    seed: int
    steps: int
    batch_size: int
    lr: float
    parameters: int
    eval_steps: tuple[int, ...]
    val_accuracy: tuple[float, ...]
    val_exact: tuple[float, ...]
    spreads: tuple[float, ...]
    mirror_weights: tuple[float, ...]
    query_norms: tuple[float, ...]
    weight_sds: tuple[tuple[float, float, float], ...]
    losses: tuple[float, ...]
    target: float
    test_scores: tuple[tuple[int, float, float], ...]
    scales_end: tuple[float, ...]
    seconds: float

    @property
    def steps_to_target(self) -> int | None:
        """First evaluated step whose validation token accuracy is >= ``target``, or None."""
        for step, acc in zip(self.eval_steps, self.val_accuracy, strict=True):
            if acc >= self.target:
                return step
        return None

    @property
    def token_accuracy(self) -> float:
        """Validation token accuracy at the end."""
        return self.val_accuracy[-1]

    @property
    def exact_match(self) -> float:
        """Validation whole-string exact match at the end."""
        return self.val_exact[-1]

    def accuracy_at(self, step: int) -> float:
        """Validation token accuracy at the last evaluation at or before ``step``."""
        return self.val_accuracy[self._index(step)]

    def exact_at(self, step: int) -> float:
        """Validation exact match at the last evaluation at or before ``step``."""
        return self.val_exact[self._index(step)]

    def test_at(self, step: int) -> tuple[float, float] | None:
        """Test token accuracy and exact match at ``step``, if they were measured."""
        for at, token, exact in self.test_scores:
            if at == step:
                return token, exact
        return None

    def _index(self, step: int) -> int:
        index = int(np.searchsorted(self.eval_steps, step, side="right")) - 1
        if index < 0:
            raise ParameterError(f"step must be >= 0, got {step}")
        return index


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """PyTorch's intra-op threads set to ``threads`` while the block runs; the caller's
    setting is restored after it.

    >>> before = torch.get_num_threads()
    >>> with torch_threads(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def build_model(config: ModelConfig, seed: int) -> ReversalTransformer:
    """The model of ``config`` with weights drawn under ``torch.manual_seed(seed)``; the
    global torch generator is restored afterwards.

    >>> a, b = build_model(ModelConfig(), 3), build_model(ModelConfig(), 3)
    >>> bool(torch.equal(a.tokens.weight, b.tokens.weight))
    True
    """
    seed = _seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = ReversalTransformer(config)
        initialize(model, config.init)
    return model


DEVICES = ("cpu", "cuda", "auto")
"""The devices training accepts: ``auto`` is CUDA when PyTorch sees a GPU, else the CPU."""


def resolve_device(device: str) -> torch.device:
    """The torch device of ``device`` (one of :data:`DEVICES`).

    >>> resolve_device("cpu")
    device(type='cpu')
    >>> resolve_device("auto").type in ("cpu", "cuda")
    True
    """
    if device not in DEVICES:
        raise ParameterError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ParameterError("device cuda was asked for, but PyTorch sees no GPU")
    return torch.device(device)


def check_matches(config: ModelConfig, data: SequenceData) -> None:
    """Raise :class:`ParameterError` unless ``config`` reads and predicts what ``data`` holds.

    >>> from attncore.training.data import reversal_data
    >>> check_matches(ModelConfig(vocab=5), reversal_data(0, n_train=4, n_val=2, n_test=2))
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: config must match the data (vocab 101, ...), got vocab 5, ...
    """
    have = (config.vocab, config.length, config.n_classes)
    if have != (data.vocab, data.length, data.n_classes):
        raise ParameterError(
            f"config must match the data (vocab {data.vocab}, length {data.length}, "
            f"{data.n_classes} classes), got vocab {have[0]}, length {have[1]}, {have[2]} classes"
        )


def _step(name: str, step: object, steps: int) -> int:
    if isinstance(step, bool) or not isinstance(step, int | np.integer) or not 0 <= step <= steps:
        raise ParameterError(f"{name} must hold steps in [0, {steps}], got {step!r}")
    return int(step)


def _seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


def accuracy(
    model: ReversalTransformer, inputs: torch.Tensor, targets: torch.Tensor, chunk: int = 1_000
) -> tuple[float, float]:
    """Token accuracy and whole-string exact match of ``model`` (evaluated in chunks).

    >>> model = build_model(ModelConfig(vocab=5, length=4, d_model=8), 0)
    >>> x = torch.tensor([[0, 1, 2, 3]])
    >>> token, exact = accuracy(model, x, x.flip(1))
    >>> 0.0 <= token <= 1.0 and exact in (0.0, 1.0)
    True
    """
    correct_tokens, correct_strings = 0, 0
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for start in range(0, len(inputs), chunk):
            x, y = inputs[start : start + chunk], targets[start : start + chunk]
            hits = scored_hits(model(x), y)
            correct_tokens += int(hits.sum())
            correct_strings += int((hits | (y == IGNORE)).all(dim=1).sum())
    model.train(was_training)
    return correct_tokens / int((targets != IGNORE).sum()), correct_strings / len(targets)


def attention_summary(model: ReversalTransformer, inputs: torch.Tensor) -> tuple[float, float]:
    """Logit spread and mirrored-position weight of ``model`` on ``inputs``.

    The spread is the mean over layers, heads and queries of the standard deviation of a
    row of scaled logits across its keys. The mirrored weight is the softmax weight of
    query ``i`` on key ``L - 1 - i``, averaged over samples and queries, for the head (of
    any layer) where it is largest.

    >>> model = build_model(ModelConfig(vocab=5, length=4, d_model=8), 0)
    >>> spread, mirror = attention_summary(model, torch.tensor([[0, 1, 2, 3]]))
    >>> spread > 0, round(mirror, 1)  # uniform attention puts 1/4 on every key
    (True, 0.2)
    """
    return _measure(model, inputs, None)[2:4]


def _measure(
    model: ReversalTransformer, inputs: torch.Tensor, targets: torch.Tensor | None
) -> tuple[float, float, float, float, float]:
    """Token accuracy, exact match (NaN without targets), logit spread, mirrored weight and
    mean query length, from one forward pass."""
    records: list[AttentionRecord] = []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(inputs, records)
    model.train(was_training)
    token = exact = math.nan
    if targets is not None:
        hits = scored_hits(logits, targets)
        token = float(hits.sum() / (targets != IGNORE).sum())
        exact = float((hits | (targets == IGNORE)).all(dim=1).float().mean())
    length = inputs.shape[1]
    queries = torch.arange(length, device=inputs.device)
    spreads, mirrors, norms = [], [], []
    for record in records:
        spreads.append(float(_row_sd(record.logits).mean()))
        mirrored = record.weights[:, :, queries, length - 1 - queries]  # batch x heads x L
        mirrors.append(float(mirrored.mean(dim=(0, 2)).max()))
        norms.append(float(record.query_norms.mean()))
    return token, exact, float(np.mean(spreads)), max(mirrors), float(np.mean(norms))


def scored_hits(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Where ``logits`` score ``targets`` right: :func:`_hits` at the scored positions, False
    where the target is :data:`~attncore.training.data.IGNORE`.

    >>> scored_hits(torch.tensor([[[1.0, 0.0], [1.0, 0.0]]]), torch.tensor([[0, IGNORE]])).tolist()
    [[True, False]]
    """
    return _hits(logits, targets.clamp_min(0)) & (targets != IGNORE)


def _hits(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """``logits.argmax(dim=-1) == targets``, computed without ``argmax`` (which on the CPU
    is about five times slower than a maximum over rows of 101 classes): a target is a hit
    when its logit exceeds the largest of the other logits. Rows where the two are equal (a
    tie, rare) are settled by ``argmax``, which gives a tie to the smallest index. The target
    logits are set aside in place while the others' maximum is taken, and put back.

    >>> logits = torch.tensor([[[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]])
    >>> _hits(logits, torch.tensor([[2, 0]])).tolist()  # a tie goes to the first maximum
    [[False, True]]
    >>> targets = torch.tensor([[1, 0]])
    >>> torch.equal(_hits(logits, targets), logits.argmax(dim=-1) == targets)
    True
    """
    index = targets[..., None]
    own = logits.gather(-1, index)
    others = logits.scatter_(-1, index, -math.inf).amax(dim=-1)
    logits.scatter_(-1, index, own)
    own = own[..., 0]
    hits = own > others
    ties = own == others
    if bool(ties.any()):
        hits = torch.where(ties, logits.argmax(dim=-1) == targets, hits)
    return hits


def adam(parameters: list[torch.Tensor], lr: float) -> torch.optim.Adam:
    """The optimizer of every run, alone or trained together: Adam with PyTorch's defaults
    and the fused kernel (one pass per parameter instead of a dozen small operations, which
    is a quarter of a step of these tiny models on the CPU).

    >>> adam([torch.zeros(2, requires_grad=True)], 1e-3).defaults["fused"]
    True
    """
    return torch.optim.Adam(parameters, lr=lr, fused=True)


def _row_sd(values: torch.Tensor) -> torch.Tensor:
    """Standard deviation of every row (last axis), ``correction=0``: the two-pass formula,
    which agrees with ``Tensor.std`` to float32 rounding and is about six times faster on the
    CPU for rows of 20 (where evaluations spend their time).

    >>> x = torch.randn(5, 3, 20)
    >>> bool(torch.allclose(_row_sd(x), x.std(dim=-1, correction=0), rtol=1e-5))
    True
    """
    centred = values - values.mean(dim=-1, keepdim=True)
    return centred.square().mean(dim=-1).sqrt()


def weight_sds(model: ReversalTransformer, inputs: torch.Tensor) -> tuple[float, float, float]:
    """Chuang's ``(sigma_X, sigma_Wq, sigma_Wk)`` of ``model``: the standard deviation of the
    entries of the attention input on ``inputs`` and of the query and key weight matrices,
    each the mean over layers (chuang2023scaling, section 2).

    >>> model = build_model(ModelConfig(init="pytorch", layer_norm=True), 0)
    >>> [round(s, 2) for s in weight_sds(model, torch.zeros((2, 20), dtype=torch.long))]
    [1.0, 0.14, 0.14]
    """
    records: list[AttentionRecord] = []
    with torch.no_grad():
        model(inputs, records)
        sd_q = np.mean([float(a.query.weight.std(correction=0)) for a in model.attention])
        sd_k = np.mean([float(a.key.weight.std(correction=0)) for a in model.attention])
    sd_x = float(np.mean([r.input_sd for r in records]))
    sd_q, sd_k = float(sd_q), float(sd_k)
    return sd_x, sd_q, sd_k


def learned_scales(model: ReversalTransformer) -> tuple[float, ...]:
    """The learned betas, QK-norm gains or cosine logit scales ``1 / tau`` of every layer and
    head (empty if none).

    >>> learned_scales(build_model(ModelConfig(scaling="learned"), 0))
    (0.3535..., 0.3535...)
    """
    values: list[float] = []
    for attention in model.attention:
        scaling = attention.scaling
        if isinstance(scaling, LearnedBeta):
            values += scaling.betas.tolist()
        elif isinstance(scaling, QKNorm) and scaling.learn:
            values += scaling.gain.detach().tolist()
        elif isinstance(scaling, CosineTemperature):
            values += scaling.scales.tolist()
    return tuple(values)


def train_reversal(
    config: ModelConfig,
    data: SequenceData,
    *,
    steps: int,
    seed: int = 0,
    batch_size: int = 32,
    lr: float = 1e-3,
    eval_every: int = 100,
    eval_at: Sequence[int] = (),
    test_at: Sequence[int] = (),
    target: float = 0.95,
    threads: int = 1,
    method: str | None = None,
    callback: Callable[[int, float], None] | None = None,
    device: str = "cpu",
) -> TrainResult:
    """Train ``config`` on ``data`` for ``steps`` Adam steps and measure it.

    Batches of ``batch_size`` training strings are drawn without replacement, reshuffled
    every epoch; the loss is the mean cross-entropy over all positions. The learning rate
    ``lr`` (default 1e-3, Adam's usual default in Keras and PyTorch) is constant.
    The validation split is scored at step 0, every ``eval_every`` steps, at the steps
    ``eval_at`` and at the end; the test split at the steps ``test_at``. ``method`` names the run in
    tables (default ``config.label``); ``callback(step, accuracy)`` is called after each
    evaluation. ``device`` is ``"cpu"`` (the default and the tested path), ``"cuda"`` or
    ``"auto"`` (:func:`resolve_device`); the weights are drawn on the CPU either way.
    """
    seed = _seed(seed)
    steps = positive_int("steps", steps, minimum=0)
    batch_size = positive_int("batch_size", batch_size)
    if batch_size > len(data.train_inputs):
        raise ParameterError(
            f"batch_size must be in [1, {len(data.train_inputs)}] (the training samples), "
            f"got {batch_size}"
        )
    lr = positive_real("lr", lr)
    eval_every = positive_int("eval_every", eval_every)
    extra = {_step("eval_at", s, steps) for s in eval_at}
    tests = {_step("test_at", s, steps) for s in test_at}
    target = positive_real("target", target)
    if target > 1:
        raise ParameterError(f"target must be an accuracy in (0, 1], got {target}")
    threads = positive_int("threads", threads)
    where = resolve_device(device)
    check_matches(config, data)
    with torch_threads(threads):
        return _train(
            config,
            data,
            steps,
            seed,
            batch_size,
            lr,
            eval_every,
            extra | tests,
            tests,
            target,
            method,
            callback,
            where,
        )


def _train(
    config: ModelConfig,
    data: SequenceData,
    steps: int,
    seed: int,
    batch_size: int,
    lr: float,
    eval_every: int,
    extra: set[int],
    tests: set[int],
    target: float,
    method: str | None,
    callback: Callable[[int, float], None] | None,
    device: torch.device | None = None,
) -> TrainResult:
    start = time.perf_counter()
    device = device or torch.device("cpu")
    model = build_model(config, seed).to(device)
    optimizer = adam(list(model.parameters()), lr)
    splits = DeviceData(data, device)
    order = BatchOrder(seed, len(data.train_inputs), batch_size, device)
    recorder = Recorder(splits, eval_every, steps, extra, tests, callback)
    recorder.evaluate(model, 0)
    losses: list[float] = []
    model.train()
    for step in range(1, steps + 1):
        index = order.next(step)
        logits = model(splits.train_x[index])
        loss = F.cross_entropy(
            logits.reshape(-1, config.n_classes),
            splits.train_y[index].reshape(-1),
            ignore_index=IGNORE,
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if not math.isfinite(losses[-1]):
            raise FloatingPointError(f"training of {config.label} diverged at step {step}")
        if recorder.due(step):
            recorder.evaluate(model, step)
    return recorder.result(
        model,
        method=method or config.label,
        config=config,
        seed=seed,
        batch_size=batch_size,
        lr=lr,
        losses=losses,
        target=target,
        seconds=time.perf_counter() - start,
    )


class DeviceData:
    """The three splits of ``data`` as tensors on ``device``."""

    def __init__(self, data: SequenceData, device: torch.device) -> None:
        self.train_x = torch.from_numpy(data.train_inputs).to(device)
        self.train_y = torch.from_numpy(data.train_targets).to(device)
        self.val_x = torch.from_numpy(data.val_inputs).to(device)
        self.val_y = torch.from_numpy(data.val_targets).to(device)
        self.test_x = torch.from_numpy(data.test_inputs).to(device)
        self.test_y = torch.from_numpy(data.test_targets).to(device)


class BatchOrder:
    """The batch order of one run: a permutation per epoch from a numpy generator seeded
    with ``[seed, 1]``, batches taken in order (the same for a run alone or in an ensemble)."""

    def __init__(self, seed: int, samples: int, batch_size: int, device: torch.device) -> None:
        self.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 1])))
        self.samples, self.batch_size, self.device = samples, batch_size, device
        self.per_epoch = samples // batch_size
        self.order = torch.empty(0, dtype=torch.long)

    def next(self, step: int) -> torch.Tensor:
        """Indices of the training strings of ``step`` (steps counted from 1, in order)."""
        batch = (step - 1) % self.per_epoch
        if batch == 0:
            self.order = torch.from_numpy(self.rng.permutation(self.samples)).to(self.device)
        return self.order[batch * self.batch_size : (batch + 1) * self.batch_size]


class Recorder:
    """The evaluations of one run: when they are due and what they measured."""

    def __init__(
        self,
        splits: DeviceData,
        eval_every: int,
        steps: int,
        extra: set[int],
        tests: set[int],
        callback: Callable[[int, float], None] | None = None,
    ) -> None:
        self.splits, self.eval_every, self.steps = splits, eval_every, steps
        self.extra, self.tests, self.callback = extra, tests, callback
        self.curve: dict[str, list] = {
            k: [] for k in ("step", "acc", "exact", "spread", "mirror", "norm", "sds")
        }
        self.test_scores: list[tuple[int, float, float]] = []

    def due(self, step: int) -> bool:
        """Whether the run is scored after ``step``."""
        return step % self.eval_every == 0 or step == self.steps or step in self.extra

    def evaluate(self, model: ReversalTransformer, step: int) -> None:
        """Score ``model`` on the validation strings (and the test strings if asked)."""
        splits = self.splits
        measured = _measure(model, splits.val_x, splits.val_y)
        self.record(step, (*measured, weight_sds(model, splits.val_x[:100])))
        if step in self.tests:
            self.record_test(step, accuracy(model, splits.test_x, splits.test_y))

    def record(self, step: int, measured: tuple) -> None:
        """Keep what an evaluation at ``step`` measured: token accuracy, exact match, logit
        spread, mirrored weight, mean query length and Chuang's sigmas."""
        for key, value in zip(self.curve, (step, *measured), strict=True):
            self.curve[key].append(value)
        if self.callback is not None:
            self.callback(step, measured[0])

    def record_test(self, step: int, score: tuple[float, float]) -> None:
        """Keep the test token accuracy and exact match at ``step``."""
        self.test_scores.append((step, *score))

    def result(self, model: ReversalTransformer, **fields: Any) -> TrainResult:
        """The :class:`TrainResult` of the run, ``model`` as trained."""
        curve = self.curve
        return TrainResult(
            steps=self.steps,
            parameters=sum(p.numel() for p in model.parameters() if p.requires_grad),
            eval_steps=tuple(int(s) for s in curve["step"]),
            val_accuracy=tuple(curve["acc"]),
            val_exact=tuple(curve["exact"]),
            spreads=tuple(curve["spread"]),
            mirror_weights=tuple(curve["mirror"]),
            query_norms=tuple(curve["norm"]),
            weight_sds=tuple(curve["sds"]),
            test_scores=tuple(self.test_scores),
            scales_end=learned_scales(model),
            losses=tuple(fields.pop("losses")),
            **fields,
        )
