"""Many training runs at once: runs of one shape trained together as one batched ensemble,
and an on-disk cache of finished runs.

:func:`train_runs` takes a list of :class:`RunSpec` (model configuration, seed, budget,
evaluations) and returns one :class:`~attncore.training.train.TrainResult` per spec, in order.
Runs whose models have the same structure outside their attention scalings (the same
parameter and buffer names and shapes: every scaling of one setup shares one) and the same
steps, batch size and learning rate are trained together: every model is built alone with its
own seed (:func:`build_model`), then an :class:`~attncore.training.engine.Engine` stacks their
weights and trains them as one computation with an explicit model axis, each model on its own
batch (its own :class:`~attncore.training.train.BatchOrder`) and with its own Adam state, as
if alone. (``torch.func.vmap`` over a ``functional_call`` of the model gives the same and was
tried first; on the 2-core CPUs this book is built on it was no faster than the runs one after
another for ensembles of 3 to 9 models.) Every evaluation scores all models of the group at
once, without gradients, in chunks of strings: the validation strings at the steps the runs
ask for, the test strings only for the runs that ask for them, at their steps.

A model trained in an ensemble follows its run alone up to float32 rounding: the batched
matrix products sum in another order than the single ones, so losses agree to about 1e-6
(``tests/test_ensemble.py`` checks the losses and accuracies at a few checkpoints), not bit
for bit. ``engine`` chooses eager or compiled arithmetic (:mod:`attncore.training.engine`,
which says what the compiled path guarantees). Each group is one task of
:func:`attncore.simulate.tasks.run_tasks`: large sets of runs spread over the cores
(:func:`training_scheduler`), with the same results as in one process.

**Cache.** With ``cache`` a folder, every finished run is stored as JSON under a key made of
everything that defines it (the spec, a fingerprint of the data and the engine, of the source
of ``attncore.training`` and of the registry of rescalings, the torch version, the device type
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

from attncore.checks import ParameterError, positive_int, positive_real, warn
from attncore.fingerprint import digest, files_fingerprint
from attncore.scratch import remove_orphans, scratch_file
from attncore.simulate.tasks import resolve_scheduler, run_tasks
from attncore.simulate.threads import available_cores
from attncore.training.data import SequenceData
from attncore.training.engine import Engine, compile_cache_folder, resolve_engine
from attncore.training.model import ModelConfig, ReversalTransformer
from attncore.training.train import (
    BatchOrder,
    DeviceData,
    Recorder,
    TrainResult,
    build_model,
    check_matches,
    resolve_device,
    torch_threads,
)
from attncore.untrusted import Refused, read_file

__all__ = [
    "AUTO_MODEL_STEPS",
    "TRAINED",
    "RunSpec",
    "cache_key",
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


def _data_fingerprint(data: SequenceData, engine: str) -> str:
    """A digest of the data and of the engine that trains on it (the compiled and the eager
    step round differently, so a run of one is not a run of the other)."""
    arrays = [
        getattr(data, f"{split}_{part}")
        for split in ("train", "val", "test")
        for part in ("inputs", "targets")
    ]
    return digest(
        f"{data.vocab},{data.length},{data.n_classes},{engine}".encode(),
        *(np.ascontiguousarray(a).tobytes() for a in arrays),
    )


def cache_key(spec: RunSpec, data_fingerprint: str, device: torch.device, threads: int) -> str:
    """The cache key of one run: a SHA-256 over the spec, the data and the engine
    (``data_fingerprint``), the source of ``attncore.training``, the torch version, the device
    type and the thread count.

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
    data: SequenceData,
    *,
    threads: int = 1,
    device: str = "cpu",
    cache: Path | None = None,
    diverged: str = "raise",
    progress: Callable[[int, TrainResult | None], None] | None = None,
    scheduler: object = None,
    engine: str = "eager",
    compile_cache: Path | None = None,
    pad_to: int = 1,
) -> list[TrainResult | None]:
    """Train every run of ``specs`` on ``data``, runs of one shape together; one result per
    spec, in order.

    ``threads`` and ``device`` as in :func:`train_reversal`. ``cache`` (a folder) stores and
    reuses finished runs. ``engine`` is how the ensembles compute (``eager``, ``compiled`` or
    ``auto``, :func:`attncore.training.engine.resolve_engine`); ``compile_cache`` (a folder)
    keeps the compiled code for the next process that needs it. A group of fewer than
    ``pad_to`` runs is filled up with copies of its first model, trained and thrown away, so
    that groups of one layout share one compiled shape. A run whose loss turns
    non-finite raises :class:`FloatingPointError` with ``diverged="raise"`` and gives None with
    ``diverged="none"``. ``progress(index, result)`` is called as each run is done (trained or
    read from the cache). Every group of runs trained together is one task of
    :func:`attncore.simulate.tasks.run_tasks`, sent where :func:`training_scheduler` says; a
    group computes the same wherever it runs, so the results do not depend on the scheduler.
    """
    if diverged not in ("raise", "none"):
        raise ParameterError(f"diverged must be one of raise, none, got {diverged!r}")
    threads = positive_int("threads", threads)
    pad_to = positive_int("pad_to", pad_to)
    where = resolve_device(device)
    engine = resolve_engine(engine)
    for spec in specs:
        _check(spec, data)
    fingerprint = _data_fingerprint(data, engine)
    store = _Cache(None if cache is None else Path(cache), fingerprint, where, threads)
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
        functools.partial(
            _train_group,
            data=data,
            device=where,
            threads=threads,
            engine=engine,
            compile_cache=compile_cache,
            pad_to=pad_to,
        ),
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


def _check(spec: RunSpec, data: SequenceData) -> None:
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
    check_matches(spec.config, data)


def _structure(model: torch.nn.Module) -> tuple[tuple, str]:
    """Names, shapes and types of everything ``model`` computes with, split in two: all but
    its attention scalings (models alike there train together), and the scalings' own, as a
    key (runs of one group are ordered by it, so that models with one scaling are neighbours).
    """
    parts = [(n, tuple(p.shape), True) for n, p in model.named_parameters()]
    parts += [(n, tuple(b.shape), False) for n, b in model.named_buffers()]
    parts += [(n, type(m).__name__, _module_constants(m)) for n, m in model.named_modules()]
    outside = tuple(part for part in parts if not _in_scaling(part[0]))
    return outside, json.dumps([part for part in parts if _in_scaling(part[0])])


def _in_scaling(name: str) -> bool:
    """Whether a parameter, buffer or module name lies inside what forms an attention layer's
    logits: its scaling, its soft cap, its σReparam gains or its qk-layernorm."""
    return not {"scaling", "cap", "reparam", "q_norm", "k_norm"}.isdisjoint(name.split("."))


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
    specs: Sequence[RunSpec],
    data: SequenceData,
    device: torch.device,
    threads: int,
    engine: str,
    compile_cache: Path | None,
    pad_to: int,
) -> list[TrainResult | None]:
    """Train ``specs`` (one structure, steps, batch size and learning rate) together, with
    ``threads`` intra-op threads (the caller's setting is restored), compiled code kept in
    ``compile_cache`` and the group filled up to ``pad_to`` models."""
    with torch_threads(threads), compile_cache_folder(compile_cache):
        padded = [*specs, *[specs[0]] * (pad_to - len(specs))]
        return _train_together(padded, data, device, engine)[: len(specs)]


SD_STRINGS = 100
"""Validation strings on which Chuang's sigma_X is measured (the first ones)."""


def _train_together(
    specs: Sequence[RunSpec], data: SequenceData, device: torch.device, engine: str
) -> list[TrainResult | None]:
    start = time.perf_counter()
    first = specs[0]
    steps = first.steps
    models = [build_model(spec.config, spec.seed).to(device) for spec in specs]
    ensemble = Engine(models, lr=first.lr, engine=engine)
    splits = DeviceData(data, device)
    orders = [BatchOrder(s.seed, len(data.train_inputs), s.batch_size, device) for s in specs]
    recorders = [
        Recorder(splits, s.eval_every, steps, set(s.eval_at) | set(s.test_at), set(s.test_at))
        for s in specs
    ]
    alive = [True] * len(specs)

    def evaluate(step: int) -> None:
        due = [i for i, r in enumerate(recorders) if step == 0 or (alive[i] and r.due(step))]
        if not due:
            return
        measured = ensemble.measure(splits.val_x, splits.val_y, SD_STRINGS)
        tested = [i for i in due if step in recorders[i].tests]
        scores = ensemble.hits(tested, splits.test_x, splits.test_y) if tested else []
        for i in due:
            recorders[i].record(step, measured[i])
        for i, score in zip(tested, scores, strict=True):
            recorders[i].record_test(step, score)

    evaluate(0)
    losses: list[list[float]] = [[] for _ in specs]
    for step in range(1, steps + 1):
        index = torch.stack([order.next(step) for order in orders])
        values = ensemble.step(splits.train_x[index], splits.train_y[index])
        for i, value in enumerate(values):
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
        ensemble.stack.load(models[i], i)
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
