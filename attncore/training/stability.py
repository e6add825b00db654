"""Learning-rate sweeps: the book's small model trained across learning rates with several
ways of forming the attention logits, after Wortsman et al. (wortsman2024small).

:func:`lr_sweep` trains every method of :data:`METHODS` (or a subset) at every learning rate
and seed, each learning rate one ensemble (:class:`~attncore.training.engine.Engine`: the
runs of one rate share the optimizer's rate, the methods and seeds are its models), each
ensemble one task of :func:`attncore.simulate.tasks.run_tasks`. The schedule is Wortsman et
al.'s shape: a linear warm-up over the first ``warmup`` share of the steps, then a cosine
decay to zero. Along the way every run records, on a fixed set of validation strings, the
largest attention logit (in absolute value, as it enters the softmax) and the attention
entropy (per head, the mean over rows of ``-sum p ln p``; the lowest head's); at the end its
validation loss. A run whose loss turns non-finite is marked diverged and keeps training with
the others (its weights are its own).

Wortsman et al.'s learning-rate sensitivity of these runs is computed from the tables by
:func:`attncore.evidence.stability.lr_sensitivity`.

>>> from attncore.training.data import reversal_data
>>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
>>> runs, curves = lr_sweep(data, ["sqrt_d", "soft_cap"], [1e-3, 1e-1], [0], steps=4,
...                         batch_size=8, records=2, model={"d_model": 8}, probe_strings=8)
>>> sorted(runs.columns)[:4], len(runs), sorted(set(curves["step"]))
(['diverged', 'final_loss', 'initial_loss', 'lr'], 4, [0, 2, 4])
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch.nn import functional as F

from attncore.checks import ParameterError, positive_int, positive_real
from attncore.simulate.tasks import run_tasks
from attncore.training.data import IGNORE, SequenceData
from attncore.training.engine import Engine, compile_cache_folder, ensemble_forward, resolve_engine
from attncore.training.ensemble import training_scheduler
from attncore.training.model import ModelConfig, model_scalings
from attncore.training.train import BatchOrder, DeviceData, build_model, torch_threads

__all__ = [
    "BASE_MODEL",
    "METHODS",
    "SOFT_CAP",
    "learning_rate",
    "lr_sweep",
    "method_config",
]

SOFT_CAP = 50.0
"""Gemma 2's cap on its attention logits (gemma2024gemma2), the default ``c``."""

METHODS: dict[str, dict[str, Any]] = {
    "sqrt_d": {"scaling": "sqrt_d"},
    "qk_norm": {"scaling": "qk_norm_learned"},
    "cosine": {"scaling": "cosine_learned"},
    "soft_cap": {"scaling": "sqrt_d", "logit_cap": SOFT_CAP},
    "sigma_reparam": {"scaling": "sqrt_d", "sigma_reparam": True},
    "log_n": {"scaling": "log_n"},
}
"""The methods of the sweep, by name: the model options each sets (a scaling of the registry,
:func:`attncore.training.model.model_scalings`, and the options of
:class:`~attncore.training.model.ModelConfig`). QK-norm is Henry et al.'s cosine with a
learned gain per head, the book's QK-norm (Wortsman et al. normalise q and k with a LayerNorm
and keep 1/√d); cosine is Swin Transformer v2's cosine over a temperature learned per head;
the soft cap acts on 1/√d's logits."""

BASE_MODEL: dict[str, Any] = {"layer_norm": True, "init": "pytorch"}
"""The book's small model as the sweep trains it: pre-LayerNorm (as Wortsman et al.'s models)
and PyTorch's initialization; sizes are the model's defaults unless a sweep overrides them."""


def method_config(
    method: str, *, vocab: int, length: int, cap: float = SOFT_CAP, **model: Any
) -> ModelConfig:
    """The model of ``method`` (a key of :data:`METHODS`) for strings of ``length`` tokens
    from ``vocab`` symbols; ``cap`` is the soft cap's ``c``.

    >>> method_config("soft_cap", vocab=11, length=8, cap=5.0).label
    '1/√d, capped at 5'
    >>> method_config("tanh", vocab=11, length=8)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: method must be one of sqrt_d, qk_norm, ..., got 'tanh'
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    options = {**BASE_MODEL, **METHODS[method], **model}
    if "logit_cap" in METHODS[method]:
        options["logit_cap"] = positive_real("cap", cap)
    if options["scaling"] not in model_scalings():  # pragma: no cover - a registry without it
        raise ParameterError(f"method {method} needs the scaling {options['scaling']}")
    return ModelConfig(vocab=vocab, length=length, **options)


def learning_rate(step: int, steps: int, peak: float, warmup: float) -> float:
    """The rate of ``step`` (1 to ``steps``): linear warm-up to ``peak`` over the first
    ``warmup`` share of the steps, then a cosine decay to 0 at the last step.

    >>> [round(learning_rate(s, 10, 1.0, 0.2), 3) for s in (1, 2, 3, 10)]
    [0.5, 1.0, 0.962, 0.0]
    """
    rise = max(1, round(warmup * steps))
    if step <= rise:
        return peak * step / rise
    progress = (step - rise) / max(1, steps - rise)
    return peak * 0.5 * (1.0 + math.cos(math.pi * progress))


@dataclasses.dataclass(frozen=True)
class _Group:
    """One ensemble: every (method, seed) run at one learning rate."""

    lr: float
    runs: tuple[tuple[str, int], ...]
    configs: tuple[ModelConfig, ...]


def _attention_measures(engine: Engine, probe: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Per model: the largest absolute logit entering the softmax, and the lowest head's mean
    row entropy (nats), over every layer, on the strings ``probe``."""
    probes: list[tuple[torch.Tensor, ...]] = []
    m = engine.layout.models
    with torch.no_grad():
        ensemble_forward(engine.layout, engine.stack.weights, probe.expand(m, -1, -1), probes)
    largest = torch.stack([p[2].abs().flatten(1).amax(dim=1) for p in probes]).amax(dim=0)
    entropy = torch.stack(
        [torch.special.entr(p[3]).sum(dim=-1).mean(dim=(1, 3)).amin(dim=1) for p in probes]
    ).amin(dim=0)
    return largest.double().numpy(), entropy.double().numpy()


def _validation_losses(engine: Engine, inputs: torch.Tensor, targets: torch.Tensor) -> np.ndarray:
    """Mean token cross-entropy of every model on the validation strings (NaN where a model's
    weights are no longer finite)."""
    m = engine.layout.models
    total = torch.zeros(m, dtype=torch.float64)
    counted = 0
    with torch.no_grad():
        for start in range(0, len(inputs), 256):
            x, y = inputs[start : start + 256], targets[start : start + 256]
            logits = ensemble_forward(engine.layout, engine.stack.weights, x.expand(m, -1, -1))
            flat = y.reshape(-1).expand(m, -1)
            losses = F.cross_entropy(
                logits.reshape(m, -1, logits.shape[-1]).transpose(1, 2),
                flat,
                ignore_index=IGNORE,
                reduction="none",
            )
            total += losses.double().sum(dim=1)
            counted += int((flat[0] != IGNORE).sum())
    return (total / counted).numpy()


def _train_group(
    group: _Group,
    data: SequenceData,
    steps: int,
    batch_size: int,
    warmup: float,
    record_at: tuple[int, ...],
    probe_strings: int,
    engine: str,
    compile_cache: Any,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Train one ensemble; its rows of the run table and of the curves."""
    with torch_threads(1), compile_cache_folder(compile_cache):
        return _train(group, data, steps, batch_size, warmup, record_at, probe_strings, engine)


def _train(
    group: _Group,
    data: SequenceData,
    steps: int,
    batch_size: int,
    warmup: float,
    record_at: tuple[int, ...],
    probe_strings: int,
    engine: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    device = torch.device("cpu")
    models = [build_model(c, seed) for c, (_, seed) in zip(group.configs, group.runs, strict=True)]
    ensemble = Engine(models, lr=group.lr, engine=engine)
    splits = DeviceData(data, device)
    probe = splits.val_x[:probe_strings]
    orders = [
        BatchOrder(seed, len(data.train_inputs), batch_size, device) for _, seed in group.runs
    ]
    m = len(models)
    curves: list[dict[str, Any]] = []
    window = np.zeros(m)
    counted = 0
    initial = np.full(m, np.nan)
    diverged = np.zeros(m, dtype=bool)

    def record(step: int) -> None:
        largest, entropy = _attention_measures(ensemble, probe)
        loss = window / counted if counted else np.full(m, np.nan)
        for i, (method, seed) in enumerate(group.runs):
            curves.append(
                {"method": method, "seed": seed, "lr": group.lr, "step": step,
                 "max_logit": largest[i], "entropy": entropy[i], "train_loss": loss[i]}
            )  # fmt: skip

    record(0)
    for step in range(1, steps + 1):
        for options in ensemble.optimizer.param_groups:
            options["lr"] = learning_rate(step, steps, group.lr, warmup)
        index = torch.stack([order.next(step) for order in orders])
        values = np.array(ensemble.step(splits.train_x[index], splits.train_y[index]))
        if step == 1:
            initial = values.copy()
        diverged |= ~np.isfinite(values)
        window += values
        counted += 1
        if step in record_at:
            record(step)
            window[:] = 0.0
            counted = 0
    final = _validation_losses(ensemble, splits.val_x, splits.val_y)
    diverged |= ~np.isfinite(final)
    runs = [
        {"method": method, "seed": seed, "lr": group.lr, "initial_loss": initial[i],
         "final_loss": np.nan if diverged[i] else final[i], "diverged": bool(diverged[i])}
        for i, (method, seed) in enumerate(group.runs)
    ]  # fmt: skip
    return runs, curves


def lr_sweep(
    data: SequenceData,
    methods: Sequence[str],
    lrs: Sequence[float],
    seeds: Sequence[int],
    *,
    steps: int,
    batch_size: int = 32,
    warmup: float = 0.1,
    records: int = 10,
    probe_strings: int = 64,
    cap: float = SOFT_CAP,
    model: Mapping[str, Any] | None = None,
    engine: str = "eager",
    compile_cache: Any = None,
    scheduler: object = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train every method at every learning rate of ``lrs`` with every seed on ``data``.

    Returns the run table (``method, seed, lr, initial_loss, final_loss, diverged``; the
    final loss is NaN for a diverged run) and the curves (``method, seed, lr, step,
    max_logit, entropy, train_loss``: at step 0 and at ``records`` evenly spaced steps, the
    training loss the mean since the last record). ``model`` overrides sizes of the model;
    ``engine``, ``compile_cache`` and ``scheduler`` as in
    :func:`attncore.training.ensemble.train_runs`.
    """
    for name in methods:
        if name not in METHODS:
            raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {name!r}")
    if not lrs or not seeds or not methods:
        raise ParameterError("methods, lrs and seeds must each name at least one value")
    for lr in lrs:
        positive_real("lr", lr)
    steps = positive_int("steps", steps)
    batch_size = positive_int("batch_size", batch_size)
    if batch_size > len(data.train_inputs):
        raise ParameterError(
            f"batch_size must be in [1, {len(data.train_inputs)}] (the training samples), "
            f"got {batch_size}"
        )
    records = positive_int("records", records)
    if not 0.0 <= warmup < 1.0:
        raise ParameterError(f"warmup must be a share in [0, 1), got {warmup!r}")
    probe_strings = min(positive_int("probe_strings", probe_strings), len(data.val_inputs))
    record_at = tuple(sorted({max(1, round(steps * (i + 1) / records)) for i in range(records)}))
    runs = tuple((method, int(seed)) for method in methods for seed in seeds)
    configs = tuple(
        method_config(method, vocab=data.vocab, length=data.length, cap=cap, **dict(model or {}))
        for method, _ in runs
    )
    groups = [_Group(float(lr), runs, configs) for lr in lrs]
    work = functools.partial(
        _train_group,
        data=data,
        steps=steps,
        batch_size=batch_size,
        warmup=warmup,
        record_at=record_at,
        probe_strings=probe_strings,
        engine=resolve_engine(engine),
        compile_cache=compile_cache,
    )
    where = training_scheduler(
        scheduler, steps * len(runs) * len(groups), len(groups), torch.device("cpu")
    )
    done = run_tasks(work, groups, keys=[f"lr {g.lr:g}" for g in groups], scheduler=where)
    table = pd.DataFrame([row for rows, _ in done for row in rows])
    curves = pd.DataFrame([row for _, rows in done for row in rows])
    return table, curves
