"""Run several methods over several seeds and tabulate them (pandas), for the chapter.

>>> from attncore.training.data import reversal_data
>>> from attncore.training.model import ModelConfig
>>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
>>> methods = {"1/√d": ModelConfig(vocab=5, length=4, d_model=8)}
>>> results = run_methods(methods, data, seeds=[0, 1], steps=4, batch_size=8, eval_every=2)
>>> curves_frame(results).shape
(6, 9)
>>> summary_frame(results, budgets=[2, 4])["accuracy at 4 steps"].between(0, 1).all()
np.True_
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from attncore.checks import ParameterError, positive_int
from attncore.training.data import ReversalData
from attncore.training.model import ModelConfig
from attncore.training.train import TrainResult, train_reversal

__all__ = ["curves_frame", "run_methods", "summary_frame"]


def run_methods(
    methods: Mapping[str, ModelConfig],
    data: ReversalData,
    *,
    seeds: Sequence[int],
    steps: int,
    progress: Callable[[TrainResult], None] | None = None,
    **train_options: Any,
) -> list[TrainResult]:
    """Train every ``method`` (name -> config) once per seed with :func:`train_reversal`.

    Every method sees the same seeds, so seed ``s`` gives all methods the same batch order
    (and the same draws of the weights they share in shape).
    """
    if not methods:
        raise ParameterError("methods must name at least one model configuration")
    if len(seeds) == 0:
        raise ParameterError("seeds must hold at least one seed")
    results = []
    for name, config in methods.items():
        for seed in seeds:
            result = train_reversal(
                config, data, steps=steps, seed=seed, method=name, **train_options
            )
            if progress is not None:
                progress(result)
            results.append(result)
    return results


def curves_frame(results: Sequence[TrainResult]) -> pd.DataFrame:
    """One row per run and evaluation: method, seed, step, token accuracy, exact match,
    logit spread, mirrored weight, mean query length, parameters."""
    rows = [
        {
            "method": r.method,
            "seed": r.seed,
            "step": step,
            "token accuracy": acc,
            "exact match": exact,
            "logit spread": spread,
            "mirrored weight": mirror,
            "query norm": norm,
            "parameters": r.parameters,
        }
        for r in results
        for step, acc, exact, spread, mirror, norm in zip(
            r.eval_steps,
            r.val_accuracy,
            r.val_exact,
            r.spreads,
            r.mirror_weights,
            r.query_norms,
            strict=True,
        )
    ]
    return pd.DataFrame(rows)


def summary_frame(results: Sequence[TrainResult], budgets: Sequence[int]) -> pd.DataFrame:
    """One row per method (in order of first appearance): mean validation token accuracy
    at each budget (in steps), its minimum over seeds, steps to the target (median over
    the seeds that reached it, and how many did), final exact match, logit spread and
    mirrored weight at initialization and at the end, mean query length and learned scale
    (beta or gain, if any) at the end, test accuracy at the budgets where it was measured,
    and seconds per run."""
    budgets = [positive_int("budget", b) for b in budgets]
    rows = []
    for method in dict.fromkeys(r.method for r in results):
        runs = [r for r in results if r.method == method]
        if max(budgets) > min(r.steps for r in runs):
            raise ParameterError(
                f"budgets must be <= the steps of every run ({min(r.steps for r in runs)}), "
                f"got {max(budgets)}"
            )
        row: dict[str, Any] = {"method": method, "parameters": runs[0].parameters}
        for budget in budgets:
            accs = [r.accuracy_at(budget) for r in runs]
            row[f"accuracy at {budget} steps"] = float(np.mean(accs))
            row[f"worst seed at {budget} steps"] = float(np.min(accs))
        reached = [r.steps_to_target for r in runs if r.steps_to_target is not None]
        row["steps to target (median)"] = float(np.median(reached)) if reached else np.nan
        row["seeds reaching target"] = f"{len(reached)}/{len(runs)}"
        row["exact match at end"] = float(np.mean([r.exact_match for r in runs]))
        row["logit spread at init"] = float(np.mean([r.spreads[0] for r in runs]))
        row["logit spread at end"] = float(np.mean([r.spreads[-1] for r in runs]))
        row["mirrored weight at init"] = float(np.mean([r.mirror_weights[0] for r in runs]))
        row["mirrored weight at end"] = float(np.mean([r.mirror_weights[-1] for r in runs]))
        row["query norm at end"] = float(np.mean([r.query_norms[-1] for r in runs]))
        scales = [r.scales_end for r in runs if r.scales_end]
        row["learned β or g at end"] = float(np.mean(scales)) if scales else np.nan
        for budget in budgets:
            tests = [r.test_at(budget) for r in runs]
            if all(t is not None for t in tests):
                row[f"test accuracy at {budget} steps"] = float(np.mean([t[0] for t in tests]))
        row["seconds per run"] = float(np.mean([r.seconds for r in runs]))
        rows.append(row)
    return pd.DataFrame(rows)
