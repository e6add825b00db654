"""How long a chapter will run and how much memory it needs, from its parameters, before it runs.

:func:`estimate` counts the work a chapter's dominant loops do (logit entries, Monte Carlo
components, model steps, ...) and converts it with constants measured on the 2-core machines
this book is built on (``benchmarks/budget_accuracy.py`` prints estimate against measured
time for both profiles of every chapter). It is an order of magnitude, not a promise: the
same run takes twice as long on a loaded machine. :func:`check_budget` refuses a run whose
memory estimate exceeds the memory the machine has free, and one whose time estimate exceeds
the time budget unless the caller confirms (``attncore run --yes``).

>>> full = estimate("softmax_saturation", {})  # the chapter's defaults
>>> full.seconds < 120, full.bytes < 4 * 2**30
(True, True)
>>> huge = estimate("softmax_saturation", {"n_rows": 1_000_000, "n_keys": 65536})
>>> huge.bytes > 2**40  # a terabyte: refused before any kernel starts
True
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attncore.book.kept_runs import STABILITY_WIDTHS, read_recipe
from attncore.book.runner import chapter_parameters, find_chapter
from attncore.checks import ParameterError
from attncore.simulate.study import study_families, study_rescalings
from attncore.simulate.threads import available_cores

__all__ = [
    "TIME_BUDGET",
    "Estimate",
    "available_memory",
    "check_budget",
    "estimate",
    "reversal_step_flops",
    "reversal_token_flops",
]

TIME_BUDGET = 30 * 60.0
"""Seconds a run may be estimated to take before ``attncore run`` asks for ``--yes``."""

_START = 10.0
"""Seconds every chapter spends whatever its parameters: the kernel, imports, figures."""

_BASE_BYTES = 345 * 2**20
"""Peak memory of a kernel with numpy, pandas, matplotlib and sympy imported that computes
little (measured 275 to 330 MiB for the first page, the ledger and the smoke chapters)."""

_CHUNKS = 8 * 8 * 2**20
"""Memory of the simulation engine's and the Monte Carlo's work in chunks: a handful of arrays
of about 2^20 float64 entries whatever the sweep's size (:mod:`attncore.simulate.engine`,
:mod:`attncore.simulate.montecarlo`), so the chapters that use them do not grow with it."""

_TORCH_BYTES = 256 * 2**20
"""What importing torch and building its first models adds to a kernel (measured about 250 MiB
for the training chapters at their smallest)."""

_CLUSTER_BYTES, _TRAINING_WORKER_BYTES = 350 * 2**20, 700 * 2**20
"""The embedded local cluster that the training chapters' groups go to from
``AUTO_MODEL_STEPS`` model steps: its scheduler and helper processes, and each of its worker
processes (one per core) with torch and a group's ensemble (measured: 1,650 MiB on 2 cores
above the kernel, the largest worker 642 MiB)."""


def _training_cluster(model_steps: float) -> float:
    """Bytes the local cluster adds when a training chapter's ``model_steps`` send its groups
    there (:func:`attncore.training.ensemble.training_scheduler`), else 0."""
    from attncore.training.ensemble import AUTO_MODEL_STEPS

    cores = available_cores()
    if model_steps < AUTO_MODEL_STEPS or cores < 2:
        return 0.0
    return _CLUSTER_BYTES + cores * _TRAINING_WORKER_BYTES


@dataclass(frozen=True)
class Estimate:
    """Wall time (seconds) and peak memory (bytes) a run is expected to need."""

    seconds: float
    bytes: float

    def describe(self) -> str:
        """The estimate in words.

        >>> Estimate(9000.0, 3 * 2**30).describe()
        'about 2.5 h and 3 GiB'
        """
        return f"about {_duration(self.seconds)} and {_size(self.bytes)}"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


def _size(size: float) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size / 2**20:.0f} MiB"


def _softmax_saturation(p: Mapping[str, Any]) -> Estimate:
    # one matrix of n_rows x n_keys logits per spread, the last decade of spreads again for
    # every slope seed, then n_rows x n at three spreads for every n of n_values; a few
    # float64 arrays of the widest at once
    widest = max(p["n_keys"], *p["n_values"])
    spreads = p["n_spreads"] * (1 + p["n_slope_seeds"] / 4)
    entries = p["n_rows"] * (spreads * p["n_keys"] + 3 * sum(p["n_values"]))
    return Estimate(_START + 1.5e-7 * entries, _BASE_BYTES + 6 * 8 * p["n_rows"] * widest)


def _monte_carlo(pairs: int, components: int, cases: int) -> float:
    """Seconds of ``cases`` Monte Carlo comparisons of ``pairs`` pairs of ``components``."""
    return 7e-8 * pairs * components * cases


def _why_sqrt_d(p: Mapping[str, Any]) -> Estimate:
    seconds = _START + _monte_carlo(p["n_pairs"], sum(p["d_values"]), 3)
    seconds += _monte_carlo(p["n_projected_pairs"], p["d_x"] * p["d_k"], len(p["sigma_w_values"]))
    seconds += _monte_carlo(p["n_projected_pairs"], p["d_k"], len(p["rho_values"]))
    # the Monte Carlo draws in chunks of 2^21 components, a few arrays of a chunk at once
    components = min(2**21, p["n_pairs"] * max(p["d_values"]))
    return Estimate(seconds, _BASE_BYTES + 6 * 8 * components + 3 * 8 * p["d_x"] * p["d_k"] * 2**10)


def _derivations(p: Mapping[str, Any]) -> Estimate:
    seconds = _START + _monte_carlo(p["n_pairs"], sum(p["d_values"]), 1)
    seconds += _monte_carlo(p["n_pairs"], p["n_keys"] * len(p["d_values"]), 1)
    return Estimate(seconds, _BASE_BYTES + 8 * 8 * p["n_pairs"] * max(1, p["n_keys"]))


def _bernhard_figures(p: Mapping[str, Any]) -> Estimate:
    # six panels of n_queries x n_keys logits in d_small or d_large, per seed, and a density
    # of kde_points for each
    logits = p["n_queries"] * p["n_keys"] * (p["d_small"] + p["d_large"]) * 3
    densities = p["n_queries"] * p["kde_points"] * 6
    seconds = _START + 2e-8 * (p["n_seeds"] + 1) * (logits + densities)
    # the explorable panels: two draws of the six panels per (n, d) of their grid
    ns = {*p["explore_n_values"], p["n_keys"]}
    ds = {*p["explore_d_values"], p["d_small"], p["d_large"]}
    cells = len(ns) * len(ds)
    explore = p["n_queries"] * sum(ns) * sum(6 * d + 3 * (p["d_small"] + p["d_large"]) for d in ds)
    seconds += 1.5e-9 * explore + 2e-8 * 2 * cells * densities  # 1.5 ns a term, measured
    panel = 8 * p["n_queries"] * p["n_keys"] * max(p["d_small"], p["d_large"])
    widest = 12 * 8 * (p["n_queries"] + max(ns)) * max(ds) + 12 * 8 * p["n_queries"] * max(ns)
    # measured: one panel's draws, then the explorable's widest cell over and above them
    return Estimate(seconds, _BASE_BYTES + panel + 1.2 * widest)


_COMPARED = 7
"""The rescalings the comparison chapter pairs (1/k_total and its alternatives)."""


def _study_sizes(p: Mapping[str, Any]) -> tuple[int, int]:
    """The rescalings and the query/key families of the study a chapter's parameters run,
    counted from the registry and the study (a newly registered rescaling counts)."""
    rescalings = study_rescalings(p.get("p_values", (3.0,)), p.get("ssmax_s", 0.5))
    return len(rescalings), len(study_families())


def _cell(queries: int, n: int, d: int, metrics: int, gradients: int) -> float:
    """The work of one draw at ``(d, n)``: the dot products and each gradient ``c J K`` cost
    ``n d`` a query, each rescaling's metrics ``n``."""
    return queries * n * (d * (1 + gradients) + metrics)


def _nearest(values: Sequence[int], target: int) -> int:
    return min(values, key=lambda v: abs(math.log(v / target)))


def _every_rescaling(p: Mapping[str, Any]) -> Estimate:
    rescalings, families = _study_sizes(p)
    curves = rescalings + p["n_frontier"]
    q, n_main, d_main = p["n_queries"], p["n_main"], p["d_main"]
    # the main setting: every gradient for the standard normal family, three for the others
    main = _cell(q, n_main, d_main, curves, curves) + (families - 1) * _cell(
        q, n_main, d_main, curves, 3
    )
    # the grid: every rescaling on the row and the column through the main setting, the
    # unscaled softmax and 1/sqrt(d) elsewhere, every gradient
    ns, ds, gq = p["n_values"], p["d_values"], p["grid_queries"]
    d_ref, n_ref = _nearest(ds, d_main), _nearest(ns, n_main)
    grid = sum(_cell(gq, n, d_ref, rescalings, rescalings) for n in ns)
    grid += sum(_cell(gq, n_ref, d, rescalings, rescalings) for d in ds if d != d_ref)
    grid += sum(_cell(gq, n, d, 2, 2) for n in ns if n != n_ref for d in ds if d != d_ref)
    # the explorable curve: every rescaling and constant factor at every (d, n) of its grid
    eds, ens = {*p["explore_d_values"], d_main}, {*p["explore_n_values"], n_main}
    explore = sum(_cell(q, n, d, curves, 0) for n in ens for d in eds)
    # measured on 2 cores (CPU seconds of the run): 23 s smoke, 58 s full; its 13 figures,
    # tables and the explorable take about 10 s more than a kernel's start
    seconds = 2 * _START + 9e-10 * p["n_seeds"] * (main + grid + explore)
    widest = max(ns) * max(ds) + gq * max(ns)
    widest = max(widest, max(ens) * max(eds) + q * max(ens) * 4)
    return Estimate(seconds, _BASE_BYTES + min(8 * 8 * widest, _CHUNKS))


def _k_total_alternatives(p: Mapping[str, Any]) -> Estimate:
    settings = [
        (p["d_main"], p["n_main"]),
        *zip(p["family_d_values"], p["family_n_values"], strict=True),
    ]
    q = p["n_queries"]
    # every family at every setting and the whole grid, two gradients (1/sqrt(d), 1/k_total)
    _, count = _study_sizes(p)
    families = sum(count * _cell(q, n, d, _COMPARED, 2) for d, n in dict.fromkeys(settings))
    ns, ds = p["n_values"], p["d_values"]
    grid = sum(_cell(p["grid_queries"], n, d, _COMPARED, 2) for n in ns for d in ds)
    scales = _cell(q, p["n_main"], p["d_main"], len(p["query_scales"]) + 1, 0)
    # measured on 2 cores (CPU seconds of the run): 10 s smoke, 34 s full
    seconds = _START + 5.3e-10 * p["n_seeds"] * (families + grid + scales)
    widest = max(ns) * max(ds) + p["grid_queries"] * max(ns)
    widest = max(widest, max(n * d for d, n in settings) + q * p["n_main"] * 4)
    return Estimate(seconds, _BASE_BYTES + min(8 * 8 * widest, _CHUNKS))


def _beyond_initialization(p: Mapping[str, Any]) -> Estimate:
    growth = len(p["growth"]) * p["n_queries"] * p["n_keys"] * (p["d_x"] + p["d_k"])
    weights = p["n_weight_draws"] * p["d_x"] * p["d_k"] * 3
    # the aligned key: one chi-square length and n keys per query, whatever the width
    rows = p["n_align_queries"] * p["align_keys"]
    aligned = len(p["rho_values"]) * len(p["align_d"]) * 3 * rows * 20
    search = p["n_search_seeds"] * 40 * sum(p["noisy_items"]) * p["n_classes"] * 4
    inits = p["n_inits"] * p["n_tokens"] * p["d_x"] * p["d_k"] * 4
    seconds = _START + 4e-8 * (growth + weights + aligned + search + inits)
    widest = max(rows, p["n_queries"] * max(p["d_x"], p["n_keys"]), p["n_items"] * p["n_classes"])
    return Estimate(seconds, _BASE_BYTES + 8 * 6 * widest + 8 * weights)


def reversal_token_flops(length: int, d_model: int, n_layers: int, vocab: int) -> float:
    """Floating-point operations of the training chapter's forward pass for one token, matrix
    products only: per layer the query, key, value and output products (``8 d^2``) and ``q . k``
    and the mixing over ``length`` keys (``4 L d``), then the classifier (``2 d V``).

    >>> reversal_token_flops(20, 16, 1, 101)
    6560
    """
    return n_layers * (8 * d_model**2 + 4 * length * d_model) + 2 * d_model * vocab


def reversal_step_flops(
    batch_size: int, length: int, d_model: int, n_layers: int, vocab: int
) -> float:
    """Floating-point operations of one training step of one model: the forward pass of its
    batch and the backward pass, counted as twice the forward (two products per product).

    >>> round(reversal_step_flops(32, 20, 16, 1, 101) / 1e6, 1)  # MFLOP
    12.6
    """
    return 3 * batch_size * length * reversal_token_flops(length, d_model, n_layers, vocab)


_RATES = {"compiled": (14e9, 12e9), "eager": (9.5e9, 7e9)}
"""Training: floating-point operations per second of one core, for a model's step and for the
forward pass of an evaluation, by engine (``benchmarks/training_speed.py`` prints both with the
chapter's model in an ensemble of 21)."""

_COMPILE = {"compiled": 3.5, "eager": 0.0}
"""Seconds to read one compiled function from the cache (compiling it the first time takes some
15 to 30 s more; the chapter has five per setup)."""


def _string_reversal(p: Mapping[str, Any]) -> Estimate:
    engine = p.get("engine", "eager")
    if engine == "auto":
        engine = "compiled" if shutil.which("g++") else "eager"
    step_rate, eval_rate = _RATES[engine]
    shape = (p["length"], p["d_model"], p["n_layers"], p["vocab"])
    step = reversal_step_flops(p["batch_size"], *shape) / step_rate
    token = reversal_token_flops(*shape) / eval_rate
    methods, setups = (8 if p["methods"] == "all" else 3), 2
    runs = setups * methods * p["n_seeds"]
    width = 2 * p["search_max_exponent"] + 1  # the rounds of a search, each padded to the scan
    narrowing = -math.log(p["search_tolerance"]) / math.log(p["search_max_exponent"] + 1)
    rounds = 1 + max(0, math.ceil(narrowing - 1e-9))
    slots = setups * p["search_seeds"] * width * rounds
    train = step * (runs * p["long_steps"] + slots * sum(p["search_steps"]))
    val = (runs * (p["long_steps"] // p["eval_every"] + 3) + 2 * slots) * p["n_val"]
    test = setups * 2 * p["n_seeds"] * 2 * p["n_test"]
    work = train + token * p["length"] * (val + test)
    cores = min(available_cores(), 2)  # one ensemble per setup, the two spread over the cores
    seconds = _START + _COMPILE[engine] * 5 * setups / cores + work / cores
    data = 8 * p["length"] * (p["n_train"] + p["n_val"] + p["n_test"]) * 2
    attention = 4 * p["length"] * p["n_heads"]
    batch = 4 * 102 * p["length"] * methods * p["n_seeds"] * (p["vocab"] + attention)
    cluster = _training_cluster(runs * p["long_steps"])
    return Estimate(seconds, _BASE_BYTES + _TORCH_BYTES + 3 * (data + batch) + cluster)


def _critical_scale(p: Mapping[str, Any]) -> Estimate:
    # per draw, n and rho: the softmax rows of n_probes x n and one product by the tokens for
    # every gamma of the grid and the two rescalings (at d; at the largest n, also at each d of
    # d_values), about 6.5e-11 s per probe, token and gamma times d + 195 on one core of this
    # machine; the gradient's products at each factor, about 4e-10 s times d + 50; then the
    # rules, whose thresholds are stressed over their bands on the whole table, and the limits
    n_max, rhos, probes = max(p["n_values"]), len(p["rho_values"]), p["n_probes"]
    main = sum(p["n_values"]) * (p["n_gamma"] + 2) * (p["d"] + 195)
    across = n_max * p["n_gamma"] * sum(d + 195 for d in p["d_values"])
    gradient = n_max * len(p["gradient_factors"]) * sum(d + 50 for d in p["d_values"])
    layers = p["n_draws"] * rhos * probes * (6.5e-11 * 1.4 * (main + across) + 4e-10 * gradient)
    curves = p["n_draws"] * (len(p["n_values"]) + len(p["d_values"])) * rhos * p["n_gamma"]
    seconds = _START + 5 + layers + 2e-4 * curves
    widest = n_max * (4 * max(p["d"], *p["d_values"]) + 2 * (p["n_gamma"] + 2) * probes)
    return Estimate(seconds, _BASE_BYTES + 8 * widest + 16 * 8 * curves)


def _length_generalization(p: Mapping[str, Any]) -> Estimate:
    # ten methods x seeds trained as one eager ensemble (about 0.4 ms per model-step on one
    # core of this machine, quiet), then an exact score per test length whose cost grows
    # with the square root of the length (the numbers of ones that carry weight)
    models = 10 * p["n_seeds"]
    tokens = p["batch_size"] * (p["train_length"] + 1)
    train = models * p["steps"] * (2e-4 + 2.5e-6 * tokens)
    cases = sum(2 * min(n, 20 * math.sqrt(n) + 10) for n in p["test_lengths"])
    score = 3e-6 * (models + 2 * p["n_seeds"]) * cases + 0.05 * len(p["test_lengths"])
    batches = 8 * p["n_seeds"] * p["steps"] * tokens * 2
    # each model's weights, gradients and Adam's moments with torch's working memory (about
    # 0.6 MiB a model, measured with 500), then the exact score, in blocks of at most
    # SCORE_BLOCK activations of some 230 bytes each with what a block's forward pass keeps
    from attncore.training.lengths import SCORE_BLOCK

    # activations: 12 models a seed (ten methods, two test-time factors) x cases (both first
    # bits, the likely numbers of ones) x 4 kinds of positions x width 16
    longest_cases = max(min(2 * n, 20 * math.sqrt(n) + 10) for n in p["test_lengths"])
    entries = 12 * p["n_seeds"] * longest_cases * 4 * 16
    score_bytes = 230 * min(SCORE_BLOCK, entries)
    need = _BASE_BYTES + _TORCH_BYTES + 0.6 * 2**20 * models + batches + score_bytes
    # the authors' setup: both methods x its seeds in one ensemble per training length, about
    # 5.8 ms a step plus 2.3 us per model and position (measured quiet: 6.8 ms at 40 models and
    # 11 positions, 15 ms at 101); then three runs of the ladder at the chapter's training
    authors = 2 * p["authors_seeds"]
    per_step = [5.8e-3 + 2.3e-6 * authors * (n + 1) for n in p["authors_lengths"]]
    shortest = min(p["authors_lengths"]) + 1
    ladder = 3 * p["steps"] * (5.8e-3 + 2.3e-6 * authors * p["batch_size"] * shortest)
    replication = p["authors_steps"] * sum(per_step) + ladder
    strings = p["authors_seeds"] * p["authors_steps"] * max(p["authors_lengths"])
    return Estimate(_START + 4 + train + score + replication, need + strings)


def _stability(p: Mapping[str, Any]) -> Estimate:
    # one ensemble per width and rate of every method (eight) and seed, spread over two
    # cores; each step of a model is a training step of the reversal model at its width, each
    # record a forward pass of 64 strings, the final loss one of the validation strings; then
    # the kept sweep's runs re-executed alone, at about _LONE_STEP seconds a step
    engine = p.get("engine", "eager")
    if engine == "auto":
        engine = "compiled" if shutil.which("g++") else "eager"
    step_rate, eval_rate = _RATES[engine]
    models = 8 * p["n_seeds"]
    work = 0.0
    for width in p["widths"]:
        shape = (p["length"], width, p["n_layers"], p["vocab"])
        step = reversal_step_flops(p["batch_size"], *shape) / step_rate
        token = reversal_token_flops(*shape) / eval_rate
        evaluation = token * p["length"] * (64 * (p["records"] + 1) + 2 * p["n_val"])
        work += p["n_rates"] * models * (p["steps"] * step + evaluation)
    cores = min(available_cores(), 2)
    runs = len(p["widths"]) * p["n_rates"] * models * p["steps"]
    cluster = _training_cluster(runs)
    workers = 4.0 if cluster else 0.0  # the cluster's workers start and import torch
    kept = read_recipe(STABILITY_WIDTHS)["steps"] * p["kept_checks"] * _LONE_STEP
    seconds = _START + workers + _COMPILE[engine] * cores * len(p["widths"]) + 1.6 * work / cores
    batch = 4 * p["batch_size"] * p["length"] * models * (p["vocab"] + 4 * p["length"])
    return Estimate(
        seconds + kept, _BASE_BYTES + _TORCH_BYTES + 8 * batch * max(p["widths"]) / 16 + cluster
    )


_LONE_STEP = 4e-3
"""Seconds of one training step of a kept run re-executed alone on one core (measured at
width 16: a lone model's step is mostly overhead, far from its arithmetic)."""


def _fixed(p: Mapping[str, Any]) -> Estimate:
    return Estimate(_START, _BASE_BYTES)


_CHAPTERS: dict[str, Callable[[Mapping[str, Any]], Estimate]] = {
    "softmax_saturation": _softmax_saturation,
    "why_sqrt_d": _why_sqrt_d,
    "derivations": _derivations,
    "bernhard_figures": _bernhard_figures,
    "every_rescaling": _every_rescaling,
    "k_total_alternatives": _k_total_alternatives,
    "beyond_initialization": _beyond_initialization,
    "string_reversal": _string_reversal,
    "critical_scale": _critical_scale,
    "length_generalization": _length_generalization,
    "stability": _stability,
    "introduction": _fixed,
    "claims_ledger": _fixed,
}


def estimate(chapter: str | Path, parameters: Mapping[str, Any]) -> Estimate:
    """The :class:`Estimate` of running ``chapter`` with ``parameters`` (validated values;
    the chapter's defaults fill the rest).

    >>> estimate("string_reversal", {"n_seeds": 20, "long_steps": 100000}).seconds > 3600
    True
    """
    source = find_chapter(chapter)
    if source.stem not in _CHAPTERS:
        raise ParameterError(f"chapter {source.stem} has no cost model in attncore.book.budget")
    values = {name: p.default for name, p in chapter_parameters(source).items()}
    values.update(parameters)
    return _CHAPTERS[source.stem](values)


def available_memory() -> float:
    """Bytes of memory the machine has free now (``MemAvailable``), or all of it where the
    system does not say.

    >>> available_memory() > 0
    True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def check_budget(
    chapter: str | Path,
    parameters: Mapping[str, Any],
    *,
    confirmed: bool = False,
    time_budget: float = TIME_BUDGET,
    memory: float | None = None,
) -> Estimate | None:
    """The estimate of the run, or a :class:`ParameterError` if it needs more memory than
    ``memory`` (default: :func:`available_memory`), or more time than ``time_budget``
    without ``confirmed``; None for a notebook outside the book (no cost model).

    >>> try:
    ...     check_budget("string_reversal", {"n_seeds": 20, "long_steps": 100000})
    ... except ParameterError as error:
    ...     print(str(error).split("; ")[-1])
    pass --yes to run it anyway
    >>> check_budget("string_reversal", {"n_seeds": 20}, confirmed=True).seconds > 60
    True
    """
    name = find_chapter(chapter).stem
    if name not in _CHAPTERS:
        return None
    need = estimate(chapter, parameters)
    free = available_memory() if memory is None else memory
    if need.bytes > free:
        raise ParameterError(
            f"{name} is estimated to need {_size(need.bytes)} of memory, more than the "
            f"{_size(free)} free here; lower its sizes (attncore params {name})"
        )
    if need.seconds > time_budget and not confirmed:
        raise ParameterError(
            f"{name} is estimated to take {need.describe()}, more than the budget of "
            f"{_duration(time_budget)}; pass --yes to run it anyway"
        )
    return need
