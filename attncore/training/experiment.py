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
from attncore.intervals import binomial_interval
from attncore.training.data import SequenceData
from attncore.training.ensemble import RunSpec, train_runs
from attncore.training.model import ModelConfig
from attncore.training.train import TrainResult

__all__ = [
    "METHODS",
    "SETUPS",
    "curves_frame",
    "evaluations_frame",
    "init_table",
    "method_configs",
    "parameter_table",
    "run_methods",
    "runs_frame",
    "scan_table",
    "search_table",
    "summary_frame",
    "train_setups",
    "training_cost",
]


_RUN_OPTIONS = ("threads", "device", "cache", "engine", "compile_cache")


def _split(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split keyword arguments into :class:`RunSpec` fields and :func:`train_runs` options."""
    spec = {k: v for k, v in options.items() if k not in _RUN_OPTIONS}
    for name in ("eval_at", "test_at"):
        if name in spec:
            spec[name] = tuple(spec[name])
    return spec, {k: v for k, v in options.items() if k in _RUN_OPTIONS}


def run_methods(
    methods: Mapping[str, ModelConfig],
    data: SequenceData,
    *,
    seeds: Sequence[int],
    steps: int,
    progress: Callable[[TrainResult], None] | None = None,
    **train_options: Any,
) -> list[TrainResult]:
    """Train every ``method`` (name -> config) once per seed, as :func:`train_reversal` would
    alone; runs of one shape are trained together (:func:`attncore.training.ensemble.train_runs`,
    which also takes ``threads``, ``device``, ``cache``, ``engine`` and ``compile_cache``; the
    other options are those of :func:`train_reversal`).

    Every method sees the same seeds, so seed ``s`` gives all methods the same batch order
    (and the same draws of the weights they share in shape).
    """
    if not methods:
        raise ParameterError("methods must name at least one model configuration")
    if len(seeds) == 0:
        raise ParameterError("seeds must hold at least one seed")
    fields, options = _split(train_options)
    specs = [
        RunSpec(config, seed=seed, steps=steps, method=name, **fields)
        for name, config in methods.items()
        for seed in seeds
    ]
    results = train_runs(specs, data, **options)
    if progress is not None:
        for result in results:
            progress(result)
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
    the seeds that reached it, and how many did, with the 95 % Wilson interval of that
    share), final exact match, logit spread and mirrored weight at initialization and at
    the end, mean query length and learned scale (beta or gain, if any) at the end, test
    accuracy at the budgets where it was measured, and seconds per run."""
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
        low, high = binomial_interval(len(reached), len(runs))
        row["seeds reaching target"] = (
            f"{len(reached)}/{len(runs)} ({100 * low:.0f}–{100 * high:.0f} %)"
        )
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


SETUPS: dict[str, dict[str, Any]] = {
    "no LayerNorm, Keras-like init": {"layer_norm": False, "init": "keras"},
    "LayerNorm, PyTorch init": {"layer_norm": True, "init": "pytorch"},
}
"""The chapter's two setups: what most likely differs from Chuang's unpublished model."""

METHODS: dict[str, tuple[str, ...]] = {
    "all": (
        "sqrt_d",
        "constant",
        "learned",
        "k_total",
        "qk_norm",
        "qk_norm_learned",
        "cosine_learned",
        "mup",
    ),
    "core": ("sqrt_d", "constant", "k_total"),
}
"""The scalings trained by the chapter (``constant`` is the searched beta)."""


def method_configs(
    methods: Sequence[str], setup: Mapping[str, Any], shape: Mapping[str, Any], beta: float
) -> dict[str, ModelConfig]:
    """One configuration per scaling in ``methods``, ``beta`` for ``constant``.

    >>> sorted(method_configs(["sqrt_d", "constant"], SETUPS["LayerNorm, PyTorch init"], {}, 5.0))
    ['constant', 'sqrt_d']
    """
    return {
        name: ModelConfig(scaling=name, beta=beta if name == "constant" else None, **setup, **shape)
        for name in methods
    }


def parameter_table(methods: Sequence[str], shape: Mapping[str, Any]) -> pd.DataFrame:
    """Trained parameters per method (rows) and setup (columns).

    >>> parameter_table(["sqrt_d", "learned"], {}).to_numpy().tolist()
    [[4741, 4805], [4743, 4807]]
    """
    from attncore.training.model import parameter_count

    table = {
        setup: {
            name: parameter_count(config)
            for name, config in method_configs(methods, options, shape, 5.0).items()
        }
        for setup, options in SETUPS.items()
    }
    return pd.DataFrame(table).loc[list(methods)]


def init_table(shape: Mapping[str, Any], inputs: Any, seeds: Sequence[int]) -> pd.DataFrame:
    """Predicted and measured logit spread and mirrored weight at initialization, for the four
    combinations of LayerNorm and initialization, with ``1/sqrt(d)`` and ``beta = 5`` (means
    over ``seeds``; ``inputs`` a tensor of token ids)."""
    from attncore.training.init import predicted_logit_spread
    from attncore.training.train import attention_summary, build_model

    rows = []
    for layer_norm in (False, True):
        for init in ("keras", "pytorch"):
            for name, beta in (("sqrt_d", None), ("constant", 5.0)):
                config = ModelConfig(
                    scaling=name, beta=beta, layer_norm=layer_norm, init=init, **shape
                )
                measured = [attention_summary(build_model(config, s), inputs) for s in seeds]
                rows.append(
                    {
                        "LayerNorm": "yes" if layer_norm else "no",
                        "initialization": "Keras-like" if init == "keras" else "PyTorch",
                        "scaling": config.label,
                        "predicted spread": predicted_logit_spread(config),
                        "measured spread": float(np.mean([m[0] for m in measured])),
                        "weight on the mirrored key": float(np.mean([m[1] for m in measured])),
                    }
                )
    return pd.DataFrame(rows)


def training_cost(
    results: Mapping[str, Sequence[Any]], searches: Sequence[Any], method: str = "sqrt_d"
) -> dict[str, float]:
    """What the chapter's training cost, by the runs' own records: ``runs`` (every training
    run of ``results``, setup to runs, and every evaluation of ``searches``), ``minutes`` of
    training in all, and for ``method``'s runs the mean ``seconds`` per run and ``ms per
    step`` (evaluations included).

    >>> from types import SimpleNamespace as Run
    >>> results = {"a": [Run(method="sqrt_d", seconds=2.0, steps=100)]}
    >>> searches = [Run(evaluations=9, seconds=58.0)]
    >>> training_cost(results, searches)
    {'runs': 10, 'minutes': 1.0, 'seconds': 2.0, 'ms per step': 20.0}
    """
    runs = [run for setup_runs in results.values() for run in setup_runs]
    chosen = [run for run in runs if run.method == method]
    seconds = sum(run.seconds for run in runs) + sum(search.seconds for search in searches)
    return {
        "runs": len(runs) + sum(search.evaluations for search in searches),
        "minutes": seconds / 60,
        "seconds": float(np.mean([run.seconds for run in chosen])),
        "ms per step": float(1000 * np.mean([run.seconds / run.steps for run in chosen])),
    }


def search_table(searches: Mapping[tuple[str, int], Any], seed: int | None = None) -> pd.DataFrame:
    """One row per search (setup, steps per run, and ``seed`` if given): the beta found, its
    run's accuracy, how many of the search's runs scored as high and the lowest and highest
    beta among them, and what the search cost."""
    rows = []
    for (setup, budget), run in searches.items():
        history = np.array(run.result.history)
        top = history[history[:, 1] >= run.result.value - 1e-12, 0]
        rows.append(
            {
                "setup": setup,
                **({} if seed is None else {"seed": seed}),
                "steps per run": budget,
                "β found": run.beta,
                "its accuracy": run.result.value,
                "runs as high": len(top),
                "lowest β as high": top.min(),
                "highest β as high": top.max(),
                "training runs": run.evaluations,
                "training steps": run.training_steps,
                "seconds": run.seconds,
            }
        )
    return pd.DataFrame(rows)


def scan_table(searches: Mapping[tuple[str, int], Any]) -> pd.DataFrame:
    """One row per run a search trained (setup, steps per run, ``β``, its validation token
    ``accuracy`` and its logit ``spread at init``, NaN where the run diverged and recorded none):
    what each β of the decade scan and the later rounds did from the same start.

    >>> from types import SimpleNamespace as S
    >>> run = S(result=S(history=[(1.0, 0.9), (100.0, 0.01)]),
    ...         runs=(S(spreads=[0.8, 4.0]), None))
    >>> scan_table({("a", 100): run})["spread at init"].tolist()
    [0.8, nan]
    """
    rows = [
        {
            "setup": setup,
            "steps per run": budget,
            "β": float(beta),
            "accuracy": float(accuracy),
            "spread at init": float("nan") if trained is None else float(trained.spreads[0]),
        }
        for (setup, budget), search in searches.items()
        for (beta, accuracy), trained in zip(search.result.history, search.runs, strict=True)
    ]
    return pd.DataFrame(rows)


def train_setups(
    methods: Sequence[str],
    data: SequenceData,
    *,
    shape: Mapping[str, Any],
    searched_beta: Mapping[str, float],
    seeds: Sequence[int],
    short_steps: int,
    long_steps: int,
    eval_every: int,
    **train_options: Any,
) -> dict[str, list[TrainResult]]:
    """Every method of ``methods`` in every setup of :data:`SETUPS`, once per seed, for
    ``long_steps`` steps, scored at ``short_steps`` too; ``sqrt_d`` and ``constant`` (the
    searched beta of the setup) also on the test strings at both budgets. All runs go to one
    :func:`~attncore.training.ensemble.train_runs` call, so runs of one shape (across methods,
    seeds and setups) train together; ``cache`` (a folder) reuses finished runs."""
    if len(seeds) == 0:
        raise ParameterError("seeds must hold at least one seed")
    fields, options = _split(train_options)
    specs, where = [], []
    for setup, options_of_setup in SETUPS.items():
        configs = method_configs(methods, options_of_setup, shape, searched_beta[setup])
        for name, config in configs.items():
            scored = name in ("sqrt_d", "constant")
            for seed in seeds:
                specs.append(
                    RunSpec(
                        config,
                        seed=seed,
                        steps=long_steps,
                        eval_every=eval_every,
                        eval_at=(short_steps,),
                        test_at=(short_steps, long_steps) if scored else (),
                        method=name,
                        **fields,
                    )
                )
                where.append(setup)
    if not specs:
        raise ParameterError("methods must name at least one model configuration")
    trained = train_runs(specs, data, **options)
    results: dict[str, list[TrainResult]] = {setup: [] for setup in SETUPS}
    for setup, result in zip(where, trained, strict=True):
        results[setup].append(result)
    return results


def runs_frame(
    results: Mapping[str, Sequence[TrainResult]], budgets: Sequence[int]
) -> pd.DataFrame:
    """One row per run (setup, method, seed), the table the verdict rules of
    :mod:`attncore.claims.rules.training` read: accuracies at the budgets, test accuracies
    (NaN where not measured), steps to the target (NaN if never), logit spread, Chuang's
    sigma_X, sigma_Wq and sigma_Wk at initialization and at the end; also the validation exact
    match at the end and the test exact match (whole strings) at the budgets (NaN where not
    measured)."""
    rows = []
    for setup, runs in results.items():
        for r in runs:
            row: dict[str, Any] = {"setup": setup, "method": r.method, "seed": r.seed}
            for budget in budgets:
                row[f"accuracy at {budget} steps"] = r.accuracy_at(budget)
                test = r.test_at(budget)
                row[f"test accuracy at {budget} steps"] = test[0] if test else np.nan
            row["steps to target"] = np.nan if r.steps_to_target is None else r.steps_to_target
            row["exact match at end"] = r.exact_match
            for budget in budgets:
                test = r.test_at(budget)
                row[f"test exact at {budget} steps"] = test[1] if test else np.nan
            row["spread at init"], row["spread at end"] = r.spreads[0], r.spreads[-1]
            for when, sds in (("init", r.weight_sds[0]), ("end", r.weight_sds[-1])):
                for name, value in zip(("sigma_X", "sigma_Wq", "sigma_Wk"), sds, strict=True):
                    row[f"{name} at {when}"] = value
            rows.append(row)
    return pd.DataFrame(rows)


def evaluations_frame(results: Mapping[str, Sequence[TrainResult]]) -> pd.DataFrame:
    """One row per run (setup, method, seed) and evaluation (``step``, 0 = initialization):
    the logit spread and Chuang's ``sigma_X``, ``sigma_Wq``, ``sigma_Wk``, with the run's
    ``d_x`` (the width of the attention input) and ``d_k`` (the width of one head): the table
    the rules on Chuang's assumptions during training read.

    >>> from attncore.training.data import reversal_data
    >>> data = reversal_data(0, n_train=64, n_val=16, n_test=16, length=4, vocab=5)
    >>> config = ModelConfig(vocab=5, length=4, d_model=8)
    >>> runs = run_methods({"sqrt_d": config}, data, seeds=[0], steps=4, batch_size=8,
    ...                    eval_every=2)
    >>> frame = evaluations_frame({"a setup": runs})
    >>> frame[["step", "d_x", "d_k"]].to_numpy().tolist()
    [[0, 8, 4], [2, 8, 4], [4, 8, 4]]
    """
    rows = [
        {
            "setup": setup,
            "method": r.method,
            "seed": r.seed,
            "step": step,
            "d_x": r.config.d_model,
            "d_k": r.config.d_model // r.config.n_heads,
            "spread": spread,
            "sigma_X": sds[0],
            "sigma_Wq": sds[1],
            "sigma_Wk": sds[2],
        }
        for setup, runs in results.items()
        for r in runs
        for step, spread, sds in zip(r.eval_steps, r.spreads, r.weight_sds, strict=True)
    ]
    return pd.DataFrame(rows)
