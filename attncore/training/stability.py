"""Learning-rate sweeps across widths: the book's small model trained across learning rates
with several ways of forming the attention logits, in Wortsman et al.'s setup
(wortsman2024small).

:func:`lr_sweep` trains every method of :data:`METHODS` (or a subset) at every learning rate,
width and seed. The training is Wortsman et al.'s (their section 2): AdamW with
``betas = (0.9, 0.95)``, ``eps = 1e-8``, the gradient clipped to global norm 1, independent
weight decay 1e-4 (:class:`~attncore.training.optimizers.StackedAdamW`), a linear warm-up
over the first ``warmup`` share of the steps, then a cosine decay to ``lr_floor``; the
models are pre-LayerNorm with heads of ``head_dim`` entries, so wider models have more heads,
as theirs do. Methods that change the objective (z-loss) do so through the engine.

The runs of one width and one learning rate are one ensemble
(:class:`~attncore.training.engine.Engine`: methods and seeds are its models); on a GPU
(``device="cuda"``) all the rates of a width are one ensemble, each model at its own rate.
Each ensemble is one task of :func:`attncore.simulate.tasks.run_tasks`; which runs share an
ensemble depends on the device only, never on the number of workers. Along the way every run
records, on a fixed set of validation strings, the largest attention logit (in absolute
value, as it enters the softmax), the attention entropy (per head, the mean over rows of
``-sum p ln p``: the lowest head's, and the mean over the heads and layers, Zhai et al.'s
measure), and the mean ``log Z`` of the output logits (``Z`` the sum of their exponentials,
whose drift is Wortsman et al.'s output-logit divergence); at the end its validation loss. A
run whose loss turns non-finite is marked diverged and keeps training with the others (its
weights are its own).

Wortsman et al.'s learning-rate sensitivity of these runs is computed from the tables by
:mod:`attncore.evidence.stability`.

>>> from attncore.training.data import reversal_data
>>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
>>> runs, curves = lr_sweep(data, ["sqrt_d", "z_loss"], [1e-3, 1e-1], [0], steps=4,
...                         widths=[8, 16], batch_size=8, records=2, probe_strings=8)
>>> sorted(runs.columns)[:4], len(runs), sorted(set(curves["step"]))
(['diverged', 'final_loss', 'initial_loss', 'lr'], 8, [0, 2, 4])
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
from attncore.training.data import IGNORE, SequenceData, reversal_data
from attncore.training.engine import Engine, compile_cache_folder, ensemble_forward, resolve_engine
from attncore.training.ensemble import training_scheduler
from attncore.training.model import ModelConfig, model_scalings
from attncore.training.optimizers import StackedAdamW
from attncore.training.train import (
    BatchOrder,
    DeviceData,
    build_model,
    resolve_device,
    torch_threads,
)

__all__ = [
    "BASE_MODEL",
    "METHODS",
    "SOFT_CAP",
    "SWEEP_PARAMETERS",
    "Z_LOSS",
    "chapter_sweep",
    "learning_rate",
    "lr_sweep",
    "method_config",
]

SOFT_CAP = 50.0
"""Gemma 2's cap on its attention logits (gemma2024gemma2), the default ``c``."""

Z_LOSS = 1e-4
"""The coefficient of the auxiliary z-loss (chowdhery2022palm; wortsman2024small's default)."""

METHODS: dict[str, dict[str, Any]] = {
    "sqrt_d": {"scaling": "sqrt_d"},
    "qk_layernorm": {"scaling": "sqrt_d", "qk_layernorm": True},
    "z_loss": {"scaling": "sqrt_d", "z_loss": Z_LOSS},
    "qk_norm": {"scaling": "qk_norm_learned"},
    "cosine": {"scaling": "cosine_learned"},
    "soft_cap": {"scaling": "sqrt_d", "logit_cap": SOFT_CAP},
    "sigma_reparam": {"scaling": "sqrt_d", "sigma_reparam": True},
    "log_n": {"scaling": "log_n"},
}
"""The methods of the sweep, by name: the model options each sets (a scaling of the registry,
:func:`attncore.training.model.model_scalings`, and the options of
:class:`~attncore.training.model.ModelConfig`), and ``z_loss``, the coefficient of the z-loss
in the objective. qk-layernorm is Wortsman et al.'s: a LayerNorm on each head's queries and
keys, then 1/√d. QK-norm is Henry et al.'s cosine with a learned gain per head; cosine is
Swin Transformer v2's cosine over a temperature learned per head; the soft cap acts on 1/√d's
logits."""

BASE_MODEL: dict[str, Any] = {"layer_norm": True, "init": "pytorch"}
"""The book's small model as the sweep trains it: pre-LayerNorm (as Wortsman et al.'s models)
and PyTorch's initialization; sizes are the sweep's (width, layers, head size)."""


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
    attncore.checks.ParameterError: method must be one of sqrt_d, qk_layernorm, ..., got 'tanh'
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    chosen = {k: v for k, v in METHODS[method].items() if k != "z_loss"}
    options = {**BASE_MODEL, **chosen, **model}
    if "logit_cap" in chosen:
        options["logit_cap"] = positive_real("cap", cap)
    if options["scaling"] not in model_scalings():  # pragma: no cover - a registry without it
        raise ParameterError(f"method {method} needs the scaling {options['scaling']}")
    return ModelConfig(vocab=vocab, length=length, **options)


def learning_rate(step: int, steps: int, peak: float, warmup: float, floor: float = 0.0) -> float:
    """The rate of ``step`` (1 to ``steps``): linear warm-up to ``peak`` over the first
    ``warmup`` share of the steps, then a cosine decay to ``min(floor, peak)`` at the last
    step.

    >>> [round(learning_rate(s, 10, 1.0, 0.2), 3) for s in (1, 2, 3, 10)]
    [0.5, 1.0, 0.962, 0.0]
    >>> learning_rate(10, 10, 1.0, 0.2, floor=1e-5)
    1e-05
    """
    rise = max(1, round(warmup * steps))
    if step <= rise:
        return peak * step / rise
    low = min(floor, peak)
    progress = (step - rise) / max(1, steps - rise)
    return low + (peak - low) * 0.5 * (1.0 + math.cos(math.pi * progress))


@dataclasses.dataclass(frozen=True)
class _Group:
    """One ensemble: every (method, seed) run of one width at the rates ``lrs``."""

    width: int
    lrs: tuple[float, ...]
    runs: tuple[tuple[str, int], ...]
    configs: tuple[ModelConfig, ...]

    @property
    def models(self) -> list[tuple[float, str, int, ModelConfig]]:
        """(rate, method, seed, configuration) of each model, in the ensemble's order: the
        rates of one run side by side, so models of one form stay together."""
        return [
            (lr, method, seed, config)
            for (method, seed), config in zip(self.runs, self.configs, strict=True)
            for lr in self.lrs
        ]


@dataclasses.dataclass(frozen=True)
class _Training:
    """What every ensemble of a sweep shares."""

    steps: int
    batch_size: int
    warmup: float
    lr_floor: float
    record_at: tuple[int, ...]
    probe_strings: int
    engine: str
    device: str


def _attention_measures(
    engine: Engine, probe: torch.Tensor
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per model, on the strings ``probe``: the largest absolute logit entering the softmax,
    the lowest head's and the mean head's mean row entropy (nats), over every layer, and the
    mean ``log Z`` of the output logits."""
    probes: list[tuple[torch.Tensor, ...]] = []
    m = engine.layout.models
    with torch.no_grad():
        logits = ensemble_forward(
            engine.layout, engine.stack.weights, probe.expand(m, -1, -1), probes
        )
    largest = torch.stack([p[2].abs().flatten(1).amax(dim=1) for p in probes]).amax(dim=0)
    heads = torch.stack([torch.special.entr(p[3]).sum(dim=-1).mean(dim=(1, 3)) for p in probes])
    log_z = torch.logsumexp(logits, dim=-1).flatten(1).mean(dim=1)
    return tuple(  # type: ignore[return-value]
        t.double().cpu().numpy()
        for t in (largest, heads.amin(dim=(0, 2)), heads.mean(dim=(0, 2)), log_z)
    )


def _validation_losses(engine: Engine, inputs: torch.Tensor, targets: torch.Tensor) -> np.ndarray:
    """Mean token cross-entropy of every model on the validation strings (NaN where a model's
    weights are no longer finite)."""
    m = engine.layout.models
    total = torch.zeros(m, dtype=torch.float64, device=inputs.device)
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
    return (total / counted).cpu().numpy()


class _Orders:
    """The batch orders of an ensemble's runs (:class:`~attncore.training.train.BatchOrder`,
    the same indices) as one ``models x batch`` tensor per step, the epoch's permutations
    stacked once per epoch."""

    def __init__(self, orders: list[BatchOrder]) -> None:
        self.orders = orders
        self.per_epoch, self.size = orders[0].per_epoch, orders[0].batch_size
        self.epoch = torch.empty(0, dtype=torch.long)

    def next(self, step: int) -> torch.Tensor:
        """The indices of ``step`` (counted from 1, in order) of every run."""
        batch = (step - 1) % self.per_epoch
        if batch == 0:
            for order in self.orders:
                order.next(step)
            self.epoch = torch.stack([order.order for order in self.orders])
        return self.epoch[:, batch * self.size : (batch + 1) * self.size]


def _train_group(
    group: _Group, data: SequenceData, training: _Training, compile_cache: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Train one ensemble; its rows of the run table and of the curves."""
    with torch_threads(1), compile_cache_folder(compile_cache):
        return _train(group, data, training)


def _train(
    group: _Group, data: SequenceData, training: _Training
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    device = resolve_device(training.device)
    members = group.models
    models = [build_model(config, seed).to(device) for _, _, seed, config in members]
    peaks = torch.tensor([lr for lr, *_ in members], dtype=torch.float32)
    ensemble = Engine(
        models,
        lr=float(peaks.max()),
        engine=training.engine,
        optimizer=functools.partial(StackedAdamW, peak=peaks),
        z_loss=[METHODS[method].get("z_loss", 0.0) for _, method, _, _ in members],
    )
    optimizer: StackedAdamW = ensemble.optimizer
    splits = DeviceData(data, device)
    probe = splits.val_x[: training.probe_strings]
    orders = _Orders(
        [BatchOrder(seed, len(data.train_inputs), training.batch_size, device)
         for *_, seed, _ in members]
    )  # fmt: skip
    m = len(models)
    curves: list[dict[str, Any]] = []
    window = torch.zeros(m, dtype=torch.float64)
    counted = 0
    initial = _validation_losses(ensemble, splits.val_x, splits.val_y)
    diverged = np.zeros(m, dtype=bool)

    def record(step: int) -> None:
        largest, lowest, mean, log_z = _attention_measures(ensemble, probe)
        loss = (window / counted).numpy() if counted else np.full(m, np.nan)
        for i, (lr, method, seed, _) in enumerate(members):
            curves.append(
                {"width": group.width, "method": method, "seed": seed, "lr": lr, "step": step,
                 "max_logit": largest[i], "entropy": lowest[i], "mean_entropy": mean[i],
                 "log_z": log_z[i], "train_loss": loss[i]}
            )  # fmt: skip

    schedule = torch.tensor(
        [[learning_rate(step, training.steps, lr, training.warmup, training.lr_floor)
          for lr, *_ in members]
         for step in range(1, training.steps + 1)],
        dtype=optimizer.peak.dtype,
    ).to(device)  # fmt: skip
    record(0)
    for step in range(1, training.steps + 1):
        optimizer.lr = schedule[step - 1]
        index = orders.next(step)
        values = torch.tensor(ensemble.step(splits.train_x[index], splits.train_y[index]))
        diverged |= ~torch.isfinite(values).numpy()
        window += values.double()
        counted += 1
        if step in training.record_at:
            record(step)
            window.zero_()
            counted = 0
    final = _validation_losses(ensemble, splits.val_x, splits.val_y)
    diverged |= ~np.isfinite(final)
    runs = [
        {"width": group.width, "method": method, "seed": seed, "lr": lr,
         "initial_loss": initial[i], "final_loss": np.nan if diverged[i] else final[i],
         "diverged": bool(diverged[i])}
        for i, (lr, method, seed, _) in enumerate(members)
    ]  # fmt: skip
    return runs, curves


def lr_sweep(
    data: SequenceData,
    methods: Sequence[str],
    lrs: Sequence[float],
    seeds: Sequence[int],
    *,
    steps: int,
    widths: Sequence[int] = (16,),
    n_layers: int = 2,
    head_dim: int = 8,
    batch_size: int = 32,
    warmup: float = 0.05,
    lr_floor: float = 1e-5,
    records: int = 10,
    probe_strings: int = 64,
    cap: float = SOFT_CAP,
    engine: str = "eager",
    device: str = "cpu",
    compile_cache: Any = None,
    scheduler: object = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train every method at every learning rate of ``lrs``, width of ``widths`` (heads of
    ``head_dim`` entries, ``n_layers`` layers) and seed of ``seeds`` on ``data``.

    Returns the run table (``width, method, seed, lr, initial_loss, final_loss, diverged``:
    the validation loss before and after training, the final one NaN for a diverged run) and
    the curves (``width, method, seed, lr, step, max_logit, entropy, mean_entropy, log_z,
    train_loss``: at step 0 and at ``records`` evenly
    spaced steps, the training loss the mean objective since the last record). ``engine``,
    ``compile_cache`` and ``scheduler`` as in :func:`attncore.training.ensemble.train_runs`;
    ``device`` is ``cpu`` or ``cuda`` (where every rate of a width trains in one ensemble).
    """
    for name in methods:
        if name not in METHODS:
            raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {name!r}")
    if not lrs or not seeds or not methods or not widths:
        raise ParameterError("methods, lrs, seeds and widths must each name at least one value")
    for lr in lrs:
        positive_real("lr", lr)
    head_dim = positive_int("head_dim", head_dim)
    for width in widths:
        if positive_int("width", width) % head_dim:
            raise ParameterError(
                f"every width must be a multiple of head_dim ({head_dim}), got {width}"
            )
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
    place = resolve_device(device)
    training = _Training(
        steps=steps,
        batch_size=batch_size,
        warmup=warmup,
        lr_floor=max(0.0, float(lr_floor)),
        record_at=tuple(sorted({max(1, round(steps * (i + 1) / records)) for i in range(records)})),
        probe_strings=min(positive_int("probe_strings", probe_strings), len(data.val_inputs)),
        engine="eager" if place.type == "cuda" else resolve_engine(engine),
        device=place.type,
    )
    runs = tuple((method, int(seed)) for method in methods for seed in seeds)
    groups = []
    for width in widths:
        sizes = {"d_model": int(width), "n_heads": int(width) // head_dim, "n_layers": n_layers}
        configs = tuple(
            method_config(method, vocab=data.vocab, length=data.length, cap=cap, **sizes)
            for method, _ in runs
        )
        rates = [(float(lr),) for lr in lrs] if place.type == "cpu" else [tuple(map(float, lrs))]
        groups += [_Group(int(width), r, runs, configs) for r in rates]
    work = functools.partial(
        _train_group, data=data, training=training, compile_cache=compile_cache
    )
    model_steps = steps * len(runs) * len(lrs) * len(widths)
    where = training_scheduler(scheduler, model_steps, len(groups), place)
    keys = [f"width {g.width}, lr {g.lrs[0]:g}" for g in groups]
    done = run_tasks(work, groups, keys=keys, scheduler=where)
    table = pd.DataFrame([row for rows, _ in done for row in rows])
    curves = pd.DataFrame([row for _, rows in done for row in rows])
    return table, curves


SWEEP_PARAMETERS = (
    "lr_min", "lr_max", "n_rates", "n_seeds", "steps", "widths", "n_layers", "head_dim",
    "batch_size", "warmup", "vocab", "length", "n_train", "n_val", "cap", "records", "seed",
)  # fmt: skip
"""The stability chapter's parameters that define its sweep (:func:`chapter_sweep`)."""


def chapter_sweep(
    parameters: Mapping[str, Any],
    *,
    engine: str = "auto",
    device: str = "cpu",
    compile_cache: Any = None,
    scheduler: object = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sweep the stability chapter's ``parameters`` (every name of
    :data:`SWEEP_PARAMETERS`) describe: every method of :data:`METHODS` at ``n_rates`` peak
    rates evenly spaced in log from ``lr_min`` to ``lr_max``, seeds ``seed`` to ``seed +
    n_seeds - 1``, on the reversal strings drawn from ``seed``; the tables of
    :func:`lr_sweep`.
    """
    p = {name: parameters[name] for name in SWEEP_PARAMETERS}
    data = reversal_data(
        p["seed"], n_train=p["n_train"], n_val=p["n_val"], n_test=16, length=p["length"],
        vocab=p["vocab"],
    )  # fmt: skip
    rates = np.geomspace(p["lr_min"], p["lr_max"], p["n_rates"]).tolist()
    seeds = [p["seed"] + i for i in range(p["n_seeds"])]
    return lr_sweep(
        data, list(METHODS), rates, seeds, steps=p["steps"], widths=list(p["widths"]),
        n_layers=p["n_layers"], head_dim=p["head_dim"], batch_size=p["batch_size"],
        warmup=p["warmup"], records=p["records"], cap=p["cap"], engine=engine, device=device,
        compile_cache=compile_cache, scheduler=scheduler,
    )  # fmt: skip
