"""Many training runs at once: runs of one shape trained together as one batched ensemble,
and an on-disk cache of finished runs.

:func:`train_runs` takes a list of :class:`RunSpec` (model configuration, seed, budget,
evaluations) and returns one :class:`~attncore.training.train.TrainResult` per spec, in order.
Runs whose models have the same structure outside their attention scalings (the same
parameter and buffer names and shapes: every scaling of one setup shares one) and the same
steps, batch size and learning rate are trained together: every model is built alone with its
own seed (:func:`build_model`), then their weights are stacked by name (:func:`_stacked`, as
``torch.func.stack_module_state`` does, for models whose scalings hold different weights) and
one step of all of them is one forward pass with an explicit model axis
(:func:`ensemble_forward`: batched matrix products over the stacked weights; the scaled
logits are computed per segment of models with one scaling), each model on its own batch (its
own
:class:`~attncore.training.train.BatchOrder`), one backward pass of the sum of the models'
losses (each model's weights get the gradient of its own loss only), and one
``torch.optim.Adam`` over the stacked weights. (``torch.func.vmap`` over a ``functional_call``
of the model gives the same and was tried first; on the 2-core CPUs this book is built on it
was no faster than the runs one after another for ensembles of 3 to 9 models.) Adam is
elementwise, so that is one Adam per model, each with its own state, as if alone. Every
evaluation scores each model on its own with the code of
:func:`~attncore.training.train.train_reversal`.

A model trained in an ensemble follows its run alone up to float32 rounding: the batched
matrix products sum in another order than the single ones, so losses agree to about 1e-6
(``tests/test_ensemble.py`` checks the losses and accuracies at a few checkpoints), not bit
for bit. A lone run (a group of one) takes the same path, which is about twice as fast as
:func:`train_reversal`'s loop over the module. Each group is one task of
:func:`attncore.simulate.tasks.run_tasks`: large sets of runs spread over the cores
(:func:`training_scheduler`), with the same results as in one process.

**Cache.** With ``cache`` a folder, every finished run is stored as JSON under a key made of
everything that defines it (the spec, a fingerprint of the data, of the source of
``attncore.training`` and of the registry of rescalings, the torch version, the device type
and the thread count); a later call with the same key reads it instead of training, so adding
a method trains only that method. ``seconds`` of a run trained together is the ensemble's
wall time divided by its models. An entry carries the SHA-256 of its text: one that does not
match is reported by its file name, removed and trained again (:class:`_Cache`).

>>> from attncore.training.data import reversal_data
>>> from attncore.training.model import ModelConfig
>>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
>>> specs = [RunSpec(ModelConfig(vocab=5, length=4, d_model=8), seed=s, steps=3,
...                  batch_size=8, eval_every=2) for s in (0, 1)]
>>> [r.eval_steps for r in train_runs(specs, data)]
[(0, 2, 3), (0, 2, 3)]
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from attncore.checks import ParameterError, positive_int, positive_real, warn
from attncore.fingerprint import digest, files_fingerprint
from attncore.scratch import remove_orphans, scratch_file
from attncore.simulate.tasks import resolve_scheduler, run_tasks
from attncore.simulate.threads import available_cores
from attncore.training.data import ReversalData
from attncore.training.model import (
    KEY_NORMS,
    FixedFactor,
    KeyFactor,
    LearnedBeta,
    ModelConfig,
    QKNorm,
    ReversalTransformer,
)
from attncore.training.train import (
    BatchOrder,
    DeviceData,
    Recorder,
    TrainResult,
    adam,
    build_model,
    resolve_device,
)
from attncore.untrusted import Refused, read_file

__all__ = [
    "AUTO_MODEL_STEPS",
    "TRAINED",
    "RunSpec",
    "cache_key",
    "ensemble_forward",
    "train_runs",
    "training_scheduler",
]


@dataclass(frozen=True)
class RunSpec:
    """One training run: what :func:`train_reversal` takes besides the data."""

    config: ModelConfig
    seed: int = 0
    steps: int = 100
    batch_size: int = 32
    lr: float = 1e-3
    eval_every: int = 100
    eval_at: tuple[int, ...] = ()
    test_at: tuple[int, ...] = ()
    target: float = 0.95
    method: str | None = None

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`train_reversal` for this run."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        fields.pop("config")
        return fields

    def describe(self) -> dict[str, Any]:
        """Everything that defines the run, as JSON-ready values (sorted steps)."""
        described = self.options()
        described["eval_at"] = sorted(set(self.eval_at))
        described["test_at"] = sorted(set(self.test_at))
        config = dataclasses.asdict(self.config)
        config["params"] = dict(sorted(dict(self.config.params).items()))
        described["config"] = config
        return described


def _source_fingerprint() -> str:
    """SHA-256 of the source of ``attncore.training`` and the modules its models depend on."""
    root = Path(__file__).resolve().parent
    files = sorted(root.glob("*.py"))
    files += [root.parent / name for name in ("rescalings.py", "checks.py")]
    return files_fingerprint(files, root.parent)


def _data_fingerprint(data: ReversalData) -> str:
    arrays = (data.train_inputs, data.val_inputs, data.test_inputs)
    return digest(
        f"{data.vocab},{data.length}".encode(), *(np.ascontiguousarray(a).tobytes() for a in arrays)
    )


def cache_key(spec: RunSpec, data_fingerprint: str, device: torch.device, threads: int) -> str:
    """The cache key of one run: a SHA-256 over the spec, the data, the source of
    ``attncore.training``, the torch version, the device type and the thread count.

    >>> from attncore.training.model import ModelConfig
    >>> a = cache_key(RunSpec(ModelConfig(), seed=1), "data", torch.device("cpu"), 1)
    >>> b = cache_key(RunSpec(ModelConfig(), seed=2), "data", torch.device("cpu"), 1)
    >>> len(a), a != b
    (64, True)
    """
    described = {
        "run": spec.describe(),
        "data": data_fingerprint,
        "source": _source_fingerprint(),
        "torch": torch.__version__,
        "device": device.type,
        "threads": threads,
    }
    return digest(json.dumps(described, sort_keys=True, default=str).encode())


def _to_json(result: TrainResult | None) -> dict[str, Any]:
    if result is None:
        return {"diverged": True}
    stored = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    stored.pop("config")
    return stored


def _from_json(stored: dict[str, Any], spec: RunSpec) -> TrainResult | None:
    if stored.get("diverged"):
        return None

    def tuples(value: Any) -> Any:
        return tuple(tuples(v) for v in value) if isinstance(value, list) else value

    values = {k: tuples(v) for k, v in stored.items()}
    return TrainResult(config=spec.config, **values)


_ENTRY_LIMIT = 64 * 2**20
"""Bytes a cached run may hold (a long run's losses take a few hundred KiB)."""


def _read_entry(path: Path, spec: RunSpec) -> TrainResult | None:
    """The run stored in ``path``; :class:`~attncore.untrusted.Refused` if the file is not a
    regular file, is cut short or edited (its text does not match its SHA-256), or does not
    hold a training run."""
    try:
        entry = json.loads(read_file(path.parent, path.name, limit=_ENTRY_LIMIT))
        text, sha = entry["result"], entry["sha256"]
        if hashlib.sha256(text.encode()).hexdigest() != sha:
            raise Refused("its text does not match its SHA-256")
        return _from_json(json.loads(text), spec)
    except Refused:
        raise
    except (ValueError, TypeError, KeyError, AttributeError):  # not JSON, or not a run
        raise Refused("it does not hold a training run") from None


@dataclass
class _Cache:
    """Finished runs as files ``<key>.json`` in ``folder``: the run's JSON text and its
    SHA-256. A file that does not match (cut short, edited, a link, not a run) is reported
    by name, removed and its run trained again; a run that cannot be stored (a read-only or
    full disk) costs a warning, not the run."""

    folder: Path | None
    fingerprint: str
    device: torch.device
    threads: int
    keys: dict[int, str] = field(default_factory=dict)

    def path(self, index: int, spec: RunSpec) -> Path:
        assert self.folder is not None
        if index not in self.keys:
            self.keys[index] = cache_key(spec, self.fingerprint, self.device, self.threads)
        return self.folder / f"{self.keys[index]}.json"

    def load(self, index: int, spec: RunSpec) -> tuple[bool, TrainResult | None]:
        if self.folder is None:
            return False, None
        path = self.path(index, spec)
        if not os.path.lexists(path):
            return False, None
        try:
            return True, _read_entry(path, spec)
        except Refused as damage:
            warn(
                f"training cache entry {path} was damaged ({damage}); "
                "removed it, training the run again"
            )
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            return False, None

    def store(self, index: int, spec: RunSpec, result: TrainResult | None) -> None:
        if self.folder is None:
            return
        path = self.path(index, spec)
        text = json.dumps(_to_json(result), allow_nan=True)
        entry = json.dumps({"sha256": hashlib.sha256(text.encode()).hexdigest(), "result": text})
        scratch = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            remove_orphans(path.parent)
            handle, scratch = scratch_file(path.parent, "training", path.stem[:12])
            with os.fdopen(handle, "w") as file:
                file.write(entry)
            os.replace(scratch, path)
        except OSError as error:
            warn(
                f"a finished run could not be stored in the training cache {path.parent} "
                f"({error.strerror or error}); continuing without it"
            )
        finally:
            if scratch is not None:
                scratch.unlink(missing_ok=True)


def train_runs(
    specs: Sequence[RunSpec],
    data: ReversalData,
    *,
    threads: int = 1,
    device: str = "cpu",
    cache: Path | None = None,
    diverged: str = "raise",
    progress: Callable[[int, TrainResult | None], None] | None = None,
    scheduler: object = None,
) -> list[TrainResult | None]:
    """Train every run of ``specs`` on ``data``, runs of one shape together; one result per
    spec, in order.

    ``threads`` and ``device`` as in :func:`train_reversal`. ``cache`` (a folder) stores and
    reuses finished runs. A run whose loss turns non-finite raises
    :class:`FloatingPointError` with ``diverged="raise"`` and gives None with
    ``diverged="none"``. ``progress(index, result)`` is called as each run is done (trained or
    read from the cache). Every group of runs trained together is one task of
    :func:`attncore.simulate.tasks.run_tasks`, sent where :func:`training_scheduler` says; a
    group computes the same wherever it runs, so the results do not depend on the scheduler.
    """
    if diverged not in ("raise", "none"):
        raise ParameterError(f"diverged must be one of raise, none, got {diverged!r}")
    threads = positive_int("threads", threads)
    where = resolve_device(device)
    for spec in specs:
        _check(spec, data)
    store = _Cache(None if cache is None else Path(cache), _data_fingerprint(data), where, threads)
    results: list[TrainResult | None] = [None] * len(specs)
    groups: dict[tuple, list[tuple[str, int]]] = {}
    for index, spec in enumerate(specs):
        found, result = store.load(index, spec)
        if found:
            results[index] = _settle(result, spec, diverged)
            if progress is not None:
                progress(index, results[index])
            continue
        shape, scaling = _shape_key(spec)
        groups.setdefault(shape, []).append((scaling, index))
    # runs of one scaling next to each other (the segments of the forward pass), and the
    # costliest groups first, so that a cluster's workers finish close together
    batches = [[index for _, index in sorted(group)] for group in groups.values()]
    batches.sort(key=lambda g: -_group_cost([specs[i] for i in g]))
    TRAINED["runs"] += sum(len(indices) for indices in batches)
    model_steps = sum(specs[i].steps for indices in batches for i in indices)
    trained = run_tasks(
        functools.partial(_train_group, data=data, device=where, threads=threads),
        [[specs[i] for i in indices] for indices in batches],
        keys=[tuple(indices) for indices in batches],
        scheduler=training_scheduler(scheduler, model_steps, len(batches), where),
    )
    for indices, group in zip(batches, trained, strict=True):
        for index, result in zip(indices, group, strict=True):
            store.store(index, specs[index], result)
            results[index] = _settle(result, specs[index], diverged)
            if progress is not None:
                progress(index, results[index])
    return results


AUTO_MODEL_STEPS = 20_000
"""Model steps (runs x steps) from which ``"auto"`` sends groups of runs to the embedded local
cluster: about 40 s of one core's work, against the 3 to 5 s its worker processes take to
start and import torch."""


def training_scheduler(
    scheduler: object, model_steps: int, tasks: int, device: torch.device
) -> object:
    """Where :func:`train_runs` sends its groups (see
    :func:`attncore.simulate.tasks.resolve_scheduler`): an explicit scheduler as it is;
    ``"auto"`` means the local cluster when there are at least two tasks, at least
    :data:`AUTO_MODEL_STEPS` model steps, two cores and the CPU as device, else this process.

    >>> training_scheduler("auto", 10**6, 4, torch.device("cuda"))
    'synchronous'
    >>> training_scheduler("tcp://127.0.0.1:8786", 1, 1, torch.device("cpu"))
    'tcp://127.0.0.1:8786'
    """
    resolved = resolve_scheduler(scheduler)
    if resolved != "auto":
        return resolved
    worth_it = tasks >= 2 and model_steps >= AUTO_MODEL_STEPS and available_cores() >= 2
    return "local" if worth_it and device.type == "cpu" else "synchronous"


def _group_cost(specs: Sequence[RunSpec]) -> float:
    """A group's time in units of a lone model's step: a step of an ensemble costs about
    one lone step plus a quarter of one per model (measured on the book's model)."""
    return specs[0].steps * (1 + 0.25 * len(specs))


TRAINED = {"runs": 0}
"""How many runs :func:`train_runs` trained (rather than read from a cache) since import."""


def _settle(result: TrainResult | None, spec: RunSpec, diverged: str) -> TrainResult | None:
    if result is None and diverged == "raise":
        raise FloatingPointError(f"training of {spec.config.label} (seed {spec.seed}) diverged")
    return result


def _check(spec: RunSpec, data: ReversalData) -> None:
    """The checks of :func:`train_reversal`, before anything is trained."""
    if spec.seed is None or isinstance(spec.seed, bool) or int(spec.seed) < 0:
        raise ParameterError(f"seed must be an integer >= 0, got {spec.seed!r}")
    positive_int("steps", spec.steps, minimum=0)
    batch = positive_int("batch_size", spec.batch_size)
    if batch > len(data.train_inputs):
        raise ParameterError(
            f"batch_size must be in [1, {len(data.train_inputs)}] (the training samples), "
            f"got {batch}"
        )
    positive_real("lr", spec.lr)
    positive_int("eval_every", spec.eval_every)
    if (spec.config.vocab, spec.config.length) != (data.vocab, data.length):
        raise ParameterError(
            f"config must match the data (vocab {data.vocab}, length {data.length}), got "
            f"vocab {spec.config.vocab}, length {spec.config.length}"
        )


def _structure(model: torch.nn.Module) -> tuple[tuple, str]:
    """Names, shapes and types of everything ``model`` computes with, split in two: all but
    its attention scalings (models alike there train together), and the scalings' own, as a
    key (models with one key form one segment of the forward pass, :func:`ensemble_forward`).
    """
    parts = [(n, tuple(p.shape), True) for n, p in model.named_parameters()]
    parts += [(n, tuple(b.shape), False) for n, b in model.named_buffers()]
    parts += [(n, type(m).__name__, _module_constants(m)) for n, m in model.named_modules()]
    outside = tuple(part for part in parts if not _in_scaling(part[0]))
    return outside, json.dumps([part for part in parts if _in_scaling(part[0])])


def _in_scaling(name: str) -> bool:
    """Whether a parameter, buffer or module name lies inside an attention scaling."""
    return "scaling" in name.split(".")


def _module_constants(module: torch.nn.Module) -> str:
    """The plain attributes of a module that its forward reads (a key norm's name and
    parameters); buffers and parameters are stacked per model and do not count."""
    constants = {
        k: v
        for k, v in vars(module).items()
        if not k.startswith("_") and k not in ("training", "factor", "initial", "config")
    }
    return json.dumps(constants, sort_keys=True, default=str)


def _shape_key(spec: RunSpec) -> tuple[tuple, str]:
    """What runs trained together share (the structure outside the scalings, steps, batch
    size and learning rate), and the key of the run's scaling."""
    with torch.device("meta"):
        outside, scaling = _structure(ReversalTransformer(spec.config))
    return (outside, spec.steps, spec.batch_size, float(spec.lr)), scaling


def _train_group(
    specs: Sequence[RunSpec], data: ReversalData, device: torch.device, threads: int
) -> list[TrainResult | None]:
    """Train ``specs`` (one structure, steps, batch size and learning rate) together, with
    ``threads`` intra-op threads (the caller's setting is restored)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _train_together(specs, data, device)
    finally:
        torch.set_num_threads(previous)


def _train_together(
    specs: Sequence[RunSpec], data: ReversalData, device: torch.device
) -> list[TrainResult | None]:
    start = time.perf_counter()
    first = specs[0]
    steps, vocab = first.steps, first.config.vocab
    models = [build_model(spec.config, spec.seed).to(device) for spec in specs]
    base = copy.deepcopy(models[0]).to("meta")
    segments = _segments(models, [_structure(model)[1] for model in models])
    params, buffers = _stacked(models)
    optimizer = adam(list(params.values()), first.lr)
    splits = DeviceData(data, device)
    orders = [BatchOrder(s.seed, len(data.train_inputs), s.batch_size, device) for s in specs]
    recorders = [
        Recorder(splits, s.eval_every, steps, set(s.eval_at) | set(s.test_at), set(s.test_at))
        for s in specs
    ]

    weights = {**params, **buffers}

    def evaluate(step: int) -> None:
        for i, (model, recorder) in enumerate(zip(models, recorders, strict=True)):
            if step == 0 or (alive[i] and recorder.due(step)):
                _load(model, weights, i)
                recorder.evaluate(model, step)

    alive = [True] * len(specs)
    evaluate(0)
    losses: list[list[float]] = [[] for _ in specs]
    for step in range(1, steps + 1):
        index = torch.stack([order.next(step) for order in orders])
        logits = ensemble_forward(base, weights, splits.train_x[index], segments)
        targets = splits.train_y[index].reshape(-1)
        per_token = _CrossEntropy.apply(logits.reshape(-1, vocab), targets)
        values = per_token.view(len(specs), -1).mean(dim=1)
        optimizer.zero_grad(set_to_none=True)
        values.sum().backward()  # model i's weights get the gradient of its own loss only
        optimizer.step()
        for i, value in enumerate(values.tolist()):
            if alive[i]:
                losses[i].append(value)
                alive[i] = math.isfinite(value)
        if not any(alive):
            break
        evaluate(step)
    seconds = (time.perf_counter() - start) / len(specs)
    results: list[TrainResult | None] = []
    for i, spec in enumerate(specs):
        if not alive[i]:
            results.append(None)
            continue
        _load(models[i], weights, i)
        results.append(
            recorders[i].result(
                models[i],
                method=spec.method or spec.config.label,
                config=spec.config,
                seed=spec.seed,
                batch_size=spec.batch_size,
                lr=spec.lr,
                losses=losses[i],
                target=spec.target,
                seconds=seconds,
            )
        )
    return results


def ensemble_forward(
    base: ReversalTransformer,
    weights: dict[str, torch.Tensor],
    tokens: torch.Tensor,
    segments: Sequence[tuple[int, int, ReversalTransformer]] | None = None,
) -> torch.Tensor:
    """The forward pass of :class:`ReversalTransformer` for ``M`` models at once, with an
    explicit model axis: ``weights`` maps every parameter and buffer name of ``base`` (whose
    structure all models share; its own weights are not read) to the ``M`` models' values
    stacked, ``tokens`` is ``M x batch x length``; returns ``M x batch x length x vocab``
    logits. Each model sees only its own tokens and weights.

    >>> models = [build_model(ModelConfig(vocab=5, length=4, d_model=8), s) for s in (0, 1)]
    >>> params, buffers = _stacked(models)
    >>> x = torch.tensor([[[0, 1, 2, 3]], [[3, 2, 1, 0]]])
    >>> together = ensemble_forward(models[0], {**params, **buffers}, x)
    >>> bool(torch.allclose(together[1], models[1](x[1]), atol=1e-6))
    True
    """
    m, batch, length = tokens.shape
    config = base.config
    width, heads = config.d_model, config.n_heads
    which = torch.arange(m, device=tokens.device)[:, None, None]
    x = weights["tokens.weight"][which, tokens] + weights["positions.weight"][:, None, :length]
    x = x.reshape(m, batch * length, width)

    def linear(name: str, inputs: torch.Tensor) -> torch.Tensor:
        bias, weight = weights[f"{name}.bias"][:, None], weights[f"{name}.weight"]
        return torch.baddbmm(bias, inputs, weight.transpose(1, 2))

    def norm(name: str, inputs: torch.Tensor) -> torch.Tensor:
        if not config.layer_norm:
            return inputs
        normed = F.layer_norm(inputs, (width,), eps=base.final_norm.eps)
        return normed * weights[f"{name}.weight"][:, None] + weights[f"{name}.bias"][:, None]

    def split(inputs: torch.Tensor) -> torch.Tensor:  # M x batch x heads x length x d_k
        return inputs.view(m, batch, length, heads, width // heads).transpose(2, 3)

    for layer, attention in enumerate(base.attention):
        name = f"attention.{layer}"
        inputs = norm(f"norms.{layer}", x)
        q, k, v = (split(linear(f"{name}.{part}", inputs)) for part in ("query", "key", "value"))
        scaling = f"{name}.scaling"
        if segments is None:
            logits = _scaled(attention.scaling, scaling, weights, q, k)
        else:  # models [a, b) share one scaling, that of their ``model``
            logits = torch.cat(
                [
                    _scaled(
                        model.attention[layer].scaling,
                        scaling,
                        _rows(weights, scaling, a, b),
                        q[a:b],
                        k[a:b],
                    )
                    for a, b, model in segments
                ]
            )
        mixed = torch.softmax(logits, dim=-1) @ v
        x = x + linear(f"{name}.out", mixed.transpose(2, 3).reshape(m, batch * length, width))
    out = linear("classifier", norm("final_norm", x))
    return out.view(m, batch, length, config.vocab)


def _scaled(
    scaling: torch.nn.Module, name: str, weights: dict, q: torch.Tensor, k: torch.Tensor
) -> torch.Tensor:
    """The scaled logits of the scaling module ``scaling`` for ``M`` models (``q`` and ``k``:
    ``M x batch x heads x length x d_k``), with the stacked weights of ``weights``."""
    dots = q @ k.transpose(-2, -1)
    if isinstance(scaling, FixedFactor):
        return weights[f"{name}.scale"][:, None, None, None, None] * dots
    if isinstance(scaling, KeyFactor):
        size = KEY_NORMS[scaling.name](k.norm(dim=-1), **scaling.params)
        return dots / size.clamp_min(torch.finfo(k.dtype).tiny)[..., None, None]
    if isinstance(scaling, LearnedBeta):
        return weights[f"{name}.log_beta"].exp()[:, None, :, None, None] * dots
    if isinstance(scaling, QKNorm):
        cosines = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        return weights[f"{name}.gain"][:, None, :, None, None] * cosines
    raise TypeError(f"no batched form of the scaling {type(scaling).__name__}")


class _CrossEntropy(torch.autograd.Function):
    """Per-row cross-entropy of ``logits`` (rows x classes) against ``targets``, as
    ``F.cross_entropy(..., reduction="none")`` up to float rounding, with the backward pass
    ``softmax - one_hot`` from the exponentials the forward pass kept. PyTorch's
    ``log_softmax`` and its backward over 101 classes were a third of a step of an ensemble on
    the CPU; this takes about half their time.

    >>> logits = torch.tensor([[2.0, 0.0, -1.0]], requires_grad=True)
    >>> loss = _CrossEntropy.apply(logits, torch.tensor([0]))
    >>> bool(torch.allclose(loss, F.cross_entropy(logits, torch.tensor([0]), reduction="none")))
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


def _segments(
    models: Sequence[ReversalTransformer], keys: Sequence[str]
) -> list[tuple[int, int, ReversalTransformer]]:
    """The runs of consecutive models with one scaling key: ``(start, stop, first model)``.

    >>> models = [build_model(ModelConfig(scaling=s), 0) for s in ("sqrt_d", "mup", "k_total")]
    >>> [(a, b) for a, b, _ in _segments(models, ["x", "x", "y"])]
    [(0, 2), (2, 3)]
    """
    segments: list[tuple[int, int, ReversalTransformer]] = []
    for index, key in enumerate(keys):
        if index and key == keys[index - 1]:
            start, _, model = segments[-1]
            segments[-1] = (start, index + 1, model)
        else:
            segments.append((index, index + 1, models[index]))
    return segments


def _stacked(
    models: Sequence[torch.nn.Module],
) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """The weights of ``models`` stacked along a new first axis, by name, as
    ``torch.func.stack_module_state`` does, for models whose scalings differ: every name any
    model has, zeros for a model without it (its forward never reads them). A name that is a
    parameter in some model is a parameter of the stack; where another model holds it as a
    buffer (QK-norm's fixed gain beside a learned one), the gradient of that model's entry is
    masked to zero, so Adam, whose step is zero for a zero gradient, leaves it unchanged.

    >>> models = [build_model(ModelConfig(scaling=s), 0) for s in ("qk_norm", "qk_norm_learned")]
    >>> params, buffers = _stacked(models)
    >>> params["attention.0.scaling.gain"].shape, "attention.0.scaling.gain" in buffers
    (torch.Size([2, 2]), False)
    """
    states = [{**dict(m.named_parameters()), **dict(m.named_buffers())} for m in models]
    trained = [{name for name, _ in m.named_parameters()} for m in models]
    like: dict[str, torch.Tensor] = {}
    for state in states:
        for name, tensor in state.items():
            like.setdefault(name, tensor)
    params, buffers = {}, {}
    for name, template in like.items():
        stack = torch.stack(
            [s[name].detach() if name in s else torch.zeros_like(template) for s in states]
        )
        learned = [name in t for t in trained]
        if not any(learned):
            buffers[name] = stack
            continue
        stack.requires_grad_(True)
        if not all(learned):
            keep = torch.tensor(learned, dtype=stack.dtype, device=stack.device)
            keep = keep.reshape(-1, *[1] * (stack.dim() - 1))
            stack.register_hook(lambda grad, keep=keep: grad * keep)
        params[name] = stack
    return params, buffers


def _rows(
    weights: dict[str, torch.Tensor], module: str, start: int, stop: int
) -> dict[str, torch.Tensor]:
    """The stacked weights of the module named ``module``, of models ``start`` to ``stop - 1``."""
    return {n: value[start:stop] for n, value in weights.items() if n.startswith(f"{module}.")}


def _load(model: torch.nn.Module, weights: dict[str, torch.Tensor], index: int) -> None:
    """Copy model ``index`` of the stacked weights into ``model``."""
    with torch.no_grad():
        for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
            tensor.copy_(weights[name][index])
