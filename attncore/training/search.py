"""Chuang's beta search run for real: every evaluation is a short training run.

Chuang (chuang2023scaling, section 2) proposes to try ``beta in {10^N, 10^-N}`` for
``N = 0, 1, 2, ...`` and then to narrow the range by a binary search, "during the training";
he reports that on string reversal the search ends at a constant beta of about 5 (section
3). :func:`search_beta` runs it with the objective "validation token accuracy after ``steps``
training steps with the constant ``beta``", each evaluation a fresh model from the same seed,
so the search is repeatable and its cost is the training steps of all its runs, reported
with the seconds its runs took to train. Two readings of the narrowing, by ``strategy``:

- ``"rounds"`` (the default), :func:`attncore.sources.chuang.chuang_grid_search`: the decade
  scan as one round, then rounds of ``2 N`` candidates around the best, each round's
  candidates trained together as one ensemble (padded to the scan's ``2 N + 1`` models, so that
  every round has one shape and a compiled step is compiled once);
- ``"golden"``, :func:`attncore.sources.chuang.chuang_beta_search`: the decade scan trained
  together, then a golden-section bisection in ``log10 beta``, one lone run per evaluation;
- ``"halving"``, :func:`attncore.sources.chuang.halving_search`: every beta of a grid of
  spacing ``tolerance`` trained for a fraction of ``steps``, the better half for twice as long,
  and so on, ``steps`` only for the last two; each rung's runs are trained in groups of the
  rounds' width, so a compiled step is compiled once for every strategy. It finds the grid's
  best only where short runs rank the betas as full ones do; ``benchmarks/search_strategies.py``
  compares it with the rounds on the training chapter's setups.

Both return a beta within ``tolerance`` decades of the best of an objective with one maximum.
On a plateau (several beta that score alike, as short runs often do) they can stop at
different points of it (``tests/test_ensemble.py`` compares them on the same seeds, and
``benchmarks/training_speed.py`` at the chapter's sizes).

A run that diverges (a non-finite loss) scores 0.

>>> from attncore.training.data import reversal_data
>>> from attncore.training.model import ModelConfig
>>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
>>> run = search_beta(ModelConfig(vocab=5, length=4, d_model=8), data, steps=2,
...                   batch_size=8, tolerance=0.5, max_exponent=1)
>>> run.evaluations, len(run.runs), run.training_steps  # rounds of 3 and 2 candidates
(5, 5, 10)
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from attncore.checks import ParameterError, positive_int
from attncore.simulate.tasks import run_tasks
from attncore.sources.chuang import (
    BetaSearchResult,
    chuang_beta_search,
    chuang_grid_search,
    halving_search,
)
from attncore.training.data import SequenceData
from attncore.training.ensemble import RunSpec, train_runs, training_scheduler
from attncore.training.model import ModelConfig
from attncore.training.train import TrainResult, resolve_device

__all__ = ["STRATEGIES", "BetaSearchRun", "search_beta", "search_betas"]

STRATEGIES = ("rounds", "golden", "halving")
"""How :func:`search_beta` narrows the range after the decade scan."""


@dataclass(frozen=True)
class BetaSearchRun:
    """The search result, the training run behind every evaluation, and what it cost."""

    result: BetaSearchResult
    runs: tuple[TrainResult | None, ...]
    steps_per_run: int
    budgets: tuple[int, ...] = ()
    """The training steps of each evaluation, in order, where they differ (successive
    halving); empty where every evaluation trains ``steps_per_run``."""

    @property
    def beta(self) -> float:
        """The beta the search settled on."""
        return self.result.beta

    @property
    def evaluations(self) -> int:
        """Training runs the search needed."""
        return self.result.evaluations

    @property
    def training_steps(self) -> int:
        """Training steps spent by the whole search."""
        return sum(self.budgets) if self.budgets else self.evaluations * self.steps_per_run

    @property
    def seconds(self) -> float:
        """Seconds the runs it asked for (those :attr:`evaluations` counts) took to train, by
        their own records: a run read from the cache keeps the time it took when it was
        trained, not the moment it took to read it, and one trained in an ensemble its share of
        the ensemble's; a diverged run records none."""
        return sum(run.seconds for run in self.runs if run is not None)


def search_beta(
    config: ModelConfig,
    data: SequenceData,
    *,
    steps: int,
    seed: int = 0,
    tolerance: float = 0.1,
    max_exponent: int = 3,
    strategy: str = "rounds",
    threads: int = 1,
    device: str = "cpu",
    cache: Path | None = None,
    scheduler: object = None,
    engine: str = "eager",
    compile_cache: Path | None = None,
    **train_options: Any,
) -> BetaSearchRun:
    """Search the constant beta of ``config`` (its other fields fixed) that maximizes the
    validation token accuracy after ``steps`` steps of
    :func:`~attncore.training.train.train_reversal`.

    ``tolerance`` is the final precision in decades of beta (0.1 decade is 26% in beta);
    ``max_exponent`` bounds the decade scan (10^-N .. 10^N); ``strategy`` is one of
    :data:`STRATEGIES` (see the module's introduction); further keyword arguments go to
    :func:`~attncore.training.train.train_reversal` (``batch_size``, ``lr``, ...). ``threads``,
    ``device``, ``cache``, ``scheduler``, ``engine`` and ``compile_cache`` go to
    :func:`~attncore.training.ensemble.train_runs`.

    With ``"golden"`` the candidates of the decade scan are trained together first; the search
    then reads them as it asks for them, so its course and result are those of the search run
    one candidate at a time (up to float32 rounding), though the scan may train candidates it
    does not ask for. The bisection's candidates depend on the earlier ones and are trained one
    at a time.
    """
    steps = positive_int("steps", steps)
    if strategy not in STRATEGIES:
        raise ParameterError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    max_exponent = positive_int(
        "max_exponent", max_exponent, minimum=0 if strategy == "golden" else 1
    )
    runs: list[TrainResult | None] = []
    options = {"threads": threads, "device": device, "cache": cache, "diverged": "none"}
    options |= {"scheduler": scheduler, "engine": engine, "compile_cache": compile_cache}
    fields = {k: tuple(v) if k in ("eval_at", "test_at") else v for k, v in train_options.items()}

    def spec(beta: float, budget: int = steps) -> RunSpec:
        trial = replace(config, scaling="constant", beta=beta)
        return RunSpec(trial, seed=seed, steps=budget, eval_every=budget, **fields)

    def score(run: TrainResult | None) -> float:
        runs.append(run)
        return 0.0 if run is None else run.token_accuracy

    width = 2 * max_exponent + 1  # the decade scan's candidates: one compiled shape
    if strategy == "halving":

        def objective_at(betas: Sequence[float], budget: int) -> list[float]:
            groups = [betas[i : i + width] for i in range(0, len(betas), width)]
            trained = [
                run
                for group in groups
                for run in train_runs(
                    [spec(b, budget) for b in group], data, pad_to=width, **options
                )
            ]
            return [score(run) for run in trained]

        result, budgets = halving_search(
            objective_at, budget=steps, max_exponent=max_exponent, tolerance=tolerance
        )
        return BetaSearchRun(result, tuple(runs), steps, budgets)
    if strategy == "rounds":

        def objective_of_many(betas: Sequence[float]) -> list[float]:
            trained = train_runs([spec(b) for b in betas], data, pad_to=width, **options)
            return [score(run) for run in trained]

        result = chuang_grid_search(
            objective_of_many, max_exponent=max_exponent, tolerance=tolerance
        )
        return BetaSearchRun(result, tuple(runs), steps)
    scan = [10.0 ** float(n) for n in range(max_exponent + 1) for n in dict.fromkeys((n, -n))]
    ready = dict(zip(scan, train_runs([spec(b) for b in scan], data, **options), strict=True))

    def objective(beta: float) -> float:
        if beta in ready:
            return score(ready.pop(beta))
        (run,) = train_runs([spec(beta)], data, **options)
        return score(run)

    result = chuang_beta_search(objective, max_exponent=max_exponent, tolerance=tolerance)
    return BetaSearchRun(result, tuple(runs), steps)


def search_betas(
    configs: Mapping[Hashable, ModelConfig],
    data: SequenceData,
    *,
    budgets: Sequence[int],
    scheduler: object = None,
    **search_options: Any,
) -> dict[tuple[Hashable, int], BetaSearchRun]:
    """:func:`search_beta` for every configuration of ``configs`` (name -> config) and every
    budget (steps per evaluation) of ``budgets``, keyed ``(name, budget)``. The searches are
    independent, so each is one task of :func:`attncore.simulate.tasks.run_tasks`, sent where
    :func:`~attncore.training.ensemble.training_scheduler` says (a search trains some twenty
    runs of ``budget`` steps); inside a task its runs train in that task's process. The other
    keyword arguments go to :func:`search_beta`; ``device`` must be the same for all.

    >>> from attncore.training.data import reversal_data
    >>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
    >>> runs = search_betas({"a": ModelConfig(vocab=5, length=4, d_model=8)}, data,
    ...                     budgets=[2, 3], batch_size=8, tolerance=0.5, max_exponent=1)
    >>> sorted(runs), runs["a", 3].steps_per_run
    ([('a', 2), ('a', 3)], 3)
    """
    keys = [(name, positive_int("budget", budget)) for name in configs for budget in budgets]
    if not keys:
        raise ParameterError("configs and budgets must each name at least one search")
    device = resolve_device(search_options.get("device", "cpu"))
    model_steps = sum(budget * _EVALUATIONS_GUESS for _, budget in keys)
    where = training_scheduler(scheduler, model_steps, len(keys), device)
    search = functools.partial(_search_task, configs=configs, data=data, options=search_options)
    return dict(zip(keys, run_tasks(search, keys, keys=keys, scheduler=where), strict=True))


_EVALUATIONS_GUESS = 20
"""Training runs of one search, roughly (a decade scan of 7 and two rounds of 7, or a bisection
of about 12), for :func:`search_betas`' choice of scheduler."""


def _search_task(
    key: tuple[Hashable, int],
    configs: Mapping[Hashable, ModelConfig],
    data: SequenceData,
    options: Mapping[str, Any],
) -> BetaSearchRun:
    name, budget = key
    return search_beta(configs[name], data, steps=budget, scheduler="synchronous", **options)
