"""Chuang's beta search run for real: every evaluation is a short training run.

Chuang (chuang2023scaling, section 2) proposes to try ``beta in {10^N, 10^-N}`` for
``N = 0, 1, 2, ...`` and then to narrow the range by a binary search, "during the training";
he reports that on string reversal the search ends at a constant beta of about 5 (section
3). :func:`search_beta` runs :func:`attncore.sources.chuang.chuang_beta_search` (the decade
scan, then a golden-section bisection in ``log10 beta``) with the objective "validation
token accuracy after ``steps`` training steps with the constant ``beta``". Each evaluation
trains a fresh model from the same seed, so the search is repeatable and its cost is
``evaluations x steps`` training steps, reported with the wall time.

A run that diverges (a non-finite loss) scores 0.

>>> from attncore.training.data import reversal_data
>>> from attncore.training.model import ModelConfig
>>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
>>> run = search_beta(ModelConfig(vocab=5, length=4, d_model=8), data, steps=2,
...                   batch_size=8, tolerance=0.5, max_exponent=1)
>>> run.evaluations == len(run.runs), run.training_steps == 2 * run.evaluations
(True, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from attncore.checks import positive_int
from attncore.sources.chuang import BetaSearchResult, chuang_beta_search
from attncore.training.data import ReversalData
from attncore.training.ensemble import RunSpec, train_runs
from attncore.training.model import ModelConfig
from attncore.training.train import TrainResult

__all__ = ["BetaSearchRun", "search_beta"]


@dataclass(frozen=True)
class BetaSearchRun:
    """The search result, the training run behind every evaluation, and what it cost."""

    result: BetaSearchResult
    runs: tuple[TrainResult | None, ...]
    steps_per_run: int
    seconds: float

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
        return self.evaluations * self.steps_per_run


def search_beta(
    config: ModelConfig,
    data: ReversalData,
    *,
    steps: int,
    seed: int = 0,
    tolerance: float = 0.1,
    max_exponent: int = 3,
    threads: int = 1,
    device: str = "cpu",
    cache: Path | None = None,
    **train_options: Any,
) -> BetaSearchRun:
    """Search the constant beta of ``config`` (its other fields fixed) that maximizes the
    validation token accuracy after ``steps`` steps of
    :func:`~attncore.training.train.train_reversal`.

    ``tolerance`` is the final bracket in decades of beta (0.1 decade is 26% in beta);
    ``max_exponent`` bounds the decade scan (10^-N .. 10^N); further keyword arguments go
    to :func:`~attncore.training.train.train_reversal` (``batch_size``, ``lr``, ...).

    The candidates of the decade scan (``10^N`` and ``10^-N`` for every ``N`` up to
    ``max_exponent``) are trained together first
    (:func:`attncore.training.ensemble.train_runs`); the search then reads them as it asks
    for them, so its course and result are those of the search run one candidate at a time
    (up to float32 rounding), though the scan may train candidates it does not ask for. The
    bisection's candidates depend on the earlier ones and are trained one at a time.
    ``threads``, ``device`` and ``cache`` go to :func:`~attncore.training.ensemble.train_runs`.
    """
    steps = positive_int("steps", steps)
    max_exponent = positive_int("max_exponent", max_exponent, minimum=0)
    runs: list[TrainResult | None] = []
    options = {"threads": threads, "device": device, "cache": cache, "diverged": "none"}
    fields = {k: tuple(v) if k in ("eval_at", "test_at") else v for k, v in train_options.items()}

    def spec(beta: float) -> RunSpec:
        trial = replace(config, scaling="constant", beta=beta)
        return RunSpec(trial, seed=seed, steps=steps, eval_every=steps, **fields)

    start = time.perf_counter()
    scan = [10.0 ** float(n) for n in range(max_exponent + 1) for n in dict.fromkeys((n, -n))]
    ready = dict(zip(scan, train_runs([spec(b) for b in scan], data, **options), strict=True))

    def objective(beta: float) -> float:
        if beta in ready:
            run = ready.pop(beta)
        else:
            (run,) = train_runs([spec(beta)], data, **options)
        runs.append(run)
        return 0.0 if run is None else run.token_accuracy

    result = chuang_beta_search(objective, max_exponent=max_exponent, tolerance=tolerance)
    return BetaSearchRun(result, tuple(runs), steps, time.perf_counter() - start)
