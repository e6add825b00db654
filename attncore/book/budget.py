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

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attncore.book.runner import chapter_parameters, find_chapter
from attncore.checks import ParameterError
from attncore.simulate.threads import available_cores

__all__ = ["TIME_BUDGET", "Estimate", "available_memory", "check_budget", "estimate"]

TIME_BUDGET = 30 * 60.0
"""Seconds a run may be estimated to take before ``attncore run`` asks for ``--yes``."""

_START = 10.0
"""Seconds every chapter spends whatever its parameters: the kernel, imports, figures."""

_BASE_BYTES = 600 * 2**20
"""Memory of a kernel with numpy, pandas, matplotlib and sympy imported (torch: more)."""


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
    pairs = max(p["n_pairs"], p["n_projected_pairs"])
    return Estimate(seconds, _BASE_BYTES + 8 * 8 * pairs + 3 * 8 * p["d_x"] * p["d_k"] * 2**10)


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
    return Estimate(seconds, _BASE_BYTES + max(4 * panel, widest))


_RESCALINGS, _FAMILIES = 14, 8


def _every_rescaling(p: Mapping[str, Any]) -> Estimate:
    settings = 1 + len(p["family_d_values"])
    families = _FAMILIES * settings * p["n_queries"] * p["n_main"] * (p["d_main"] + _RESCALINGS)
    grid = p["grid_queries"] * sum(p["n_values"]) * (sum(p["d_values"]) + _RESCALINGS)
    frontier = p["n_frontier"] * p["n_queries"] * p["n_main"]
    # the explorable curve: every rescaling and constant factor at every (d, n) of its grid
    ds, ns = {*p["explore_d_values"], p["d_main"]}, {*p["explore_n_values"], p["n_main"]}
    curves = _RESCALINGS + p["n_frontier"]
    explore = p["n_queries"] * sum(ns) * (sum(ds) + len(ds) * curves) / 3
    seconds = _START + 1.5e-8 * p["n_seeds"] * (families + grid + frontier + explore)
    widest = max(p["n_values"]) * max(p["d_values"]) + p["grid_queries"] * max(p["n_values"])
    widest = max(widest, max(ns) * max(ds) + p["n_queries"] * max(ns) * 4)
    return Estimate(seconds, _BASE_BYTES + 8 * 8 * widest)


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
    return Estimate(seconds, _BASE_BYTES + 8 * 6 * widest)


_SECONDS_PER_TOKEN_STEP = 2.5e-6 / 117
"""Training: seconds per token and unit of width per model step, from 2 ms per step of the
book's model (32 strings of 20 tokens, width 16, 101 classes) in ensembles on one core."""


def _string_reversal(p: Mapping[str, Any]) -> Estimate:
    methods = 7 if p["methods"] == "all" else 3
    runs = 2 * methods * p["n_seeds"]
    width = p["d_model"] * (4 * p["n_layers"] + 1) + p["vocab"]
    step = p["batch_size"] * p["length"] * width * _SECONDS_PER_TOKEN_STEP
    search = 2 * 20 * sum(p["search_steps"]) * p["search_seeds"]
    evaluations = runs * (p["long_steps"] // p["eval_every"] + 3)
    tokens = evaluations * p["n_val"] * p["length"] + 4 * p["n_seeds"] * p["n_test"] * p["length"]
    work = step * (runs * p["long_steps"] + search) + 2 * tokens * width * 4e-9
    data = 8 * p["length"] * (p["n_train"] + p["n_val"] + p["n_test"]) * 2
    batch = 4 * p["n_val"] * p["length"] * (p["vocab"] + 4 * p["length"] * p["n_heads"])
    cores = min(available_cores(), 2)  # one ensemble per setup, the two spread over the cores
    return Estimate(_START + work / cores, _BASE_BYTES + 2**29 + 3 * (data + batch))


def _critical_scale(p: Mapping[str, Any]) -> Estimate:
    # per draw, n and rho: one softmax row of n and one product of n_probes x n by d for every
    # gamma of the grid and the two rescalings; then the rules, whose thresholds are stressed
    # over their bands on the whole table, and the sympy limits
    layers = p["n_draws"] * sum(p["n_values"]) * len(p["rho_values"]) * (p["n_gamma"] + 2)
    work = layers * p["n_probes"] * (p["d"] + 20)
    curves = p["n_draws"] * len(p["n_values"]) * len(p["rho_values"]) * p["n_gamma"]
    seconds = _START + 5 + 6e-10 * work + 2e-4 * curves
    widest = max(p["n_values"]) * (3 * p["d"] + 4 * p["n_probes"])
    return Estimate(seconds, _BASE_BYTES + 8 * widest + 16 * 8 * curves)


def _fixed(p: Mapping[str, Any]) -> Estimate:
    return Estimate(_START, _BASE_BYTES)


_CHAPTERS: dict[str, Callable[[Mapping[str, Any]], Estimate]] = {
    "softmax_saturation": _softmax_saturation,
    "why_sqrt_d": _why_sqrt_d,
    "derivations": _derivations,
    "bernhard_figures": _bernhard_figures,
    "every_rescaling": _every_rescaling,
    "beyond_initialization": _beyond_initialization,
    "string_reversal": _string_reversal,
    "critical_scale": _critical_scale,
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
