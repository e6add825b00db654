"""What the string-reversal runs show, in numbers: accuracies and steps to 95 % per setup and
method, means with their Student t intervals over seeds, the logit spread and Chuang's sigmas.

``runs`` has one row per training run (columns ``setup``, ``method``, ``seed``, ``accuracy at
B steps``, ``test accuracy at B steps``, ``steps to target``, ``spread at init`` / ``at end``
and ``sigma_X``, ``sigma_Wq``, ``sigma_Wk`` ``at init`` / ``at end``); ``evals`` one row per
run and evaluation (``step``, ``d_x``, ``spread``, ``sigma_X``, ``sigma_Wq``, ``sigma_Wk``).

>>> runs = example_runs()
>>> setups(runs), median_steps(runs, "small init", "sqrt_d")
(['small init', 'LayerNorm'], 2500.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from attncore.intervals import t_quantile

__all__ = [
    "GAP_OUTCOMES",
    "INTERVAL",
    "accuracy_at",
    "apart",
    "best_exact",
    "best_test_accuracy",
    "difference_se",
    "example_evaluations",
    "example_runs",
    "factor_paths",
    "fewest_seeds",
    "final",
    "init_spread",
    "largest_moves",
    "mean_and_half_width",
    "median_steps",
    "query_key_variances",
    "runs_of",
    "setups",
    "spread_record",
    "trained",
    "variance_record",
    "weight_product_change",
]

INTERVAL = 0.95
"""The coverage of the intervals over seeds the measured texts give (Student t)."""

GAP_OUTCOMES = ("none", "closes", "open")
"""What a run records of Chuang's training gap in a setup: no gap at the short budget, a gap
that the long budget closes, a gap still open after it
(:func:`attncore.claims.rules.training.gap_outcome`)."""


def mean_and_half_width(values: Sequence[float] | pd.Series) -> tuple[float, float]:
    """The mean of ``values`` over seeds and the half-width of its :data:`INTERVAL` Student t
    interval (NaN for a single seed).

    >>> [round(v, 4) for v in mean_and_half_width([0.97, 0.99, 1.0, 0.98, 0.99])]
    [0.986, 0.0142]
    >>> mean_and_half_width([0.5])
    (0.5, nan)
    """
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan
    t = float(t_quantile(INTERVAL, x.size - 1))
    return mean, t * float(x.std(ddof=1)) / math.sqrt(x.size)


def accuracy_at(budget: int, *, test: bool = False) -> str:
    """The column of the token accuracy after ``budget`` steps, on the validation strings or,
    with ``test``, on the test strings."""
    return f"test accuracy at {budget} steps" if test else f"accuracy at {budget} steps"


def runs_of(runs: pd.DataFrame, setup: str, method: str) -> pd.DataFrame:
    """The rows of ``runs`` of ``method`` in ``setup``."""
    return runs[(runs["setup"] == setup) & (runs["method"] == method)]


def setups(runs: pd.DataFrame) -> list[str]:
    """The setups of ``runs``, in order of appearance."""
    return list(dict.fromkeys(runs["setup"]))


def trained(runs: pd.DataFrame, method: str) -> list[str]:
    """The setups, in order, in which ``method`` has runs."""
    return [s for s in setups(runs) if len(runs_of(runs, s, method))]


def fewest_seeds(runs: pd.DataFrame) -> int:
    """The fewest seeds any method has in any setup."""
    return int(runs.groupby(["setup", "method"]).size().min())


def init_spread(runs: pd.DataFrame, setup: str) -> float:
    """The 1/√d logit spread at initialization in ``setup``, mean over seeds (NaN untrained)."""
    sqrt = runs_of(runs, setup, "sqrt_d")
    return float(sqrt["spread at init"].mean()) if len(sqrt) else math.nan


def median_steps(runs: pd.DataFrame, setup: str, method: str) -> float:
    """Median over seeds of the steps to 95%, NaN unless every seed got there."""
    steps = runs_of(runs, setup, method)["steps to target"]
    return float(steps.median()) if len(steps) and steps.notna().all() else math.nan


def apart(runs: pd.DataFrame, setup: str, method: str) -> int:
    """-1 where every seed of ``method`` reaches 95% in fewer steps than every seed of 1/√d in
    ``setup``, 1 where in more, 0 otherwise or with fewer than three seeds of either (apart by
    chance, with exchangeable seeds, at most one time in 20).

    >>> apart(example_runs(seeds=3), "small init", "constant")
    -1
    """
    mine = runs_of(runs, setup, method)["steps to target"]
    theirs = runs_of(runs, setup, "sqrt_d")["steps to target"]
    if min(len(mine), len(theirs)) < 3 or mine.isna().any() or theirs.isna().any():
        return 0
    return -1 if mine.max() < theirs.min() else 1 if mine.min() > theirs.max() else 0


def difference_se(a: pd.Series, b: pd.Series) -> float:
    """The standard error of the difference of the means of ``a`` and ``b`` (0 where either
    has a single seed)."""
    if min(len(a), len(b)) > 1:
        return math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return 0.0


def final(
    runs: pd.DataFrame, setup: str, methods: Sequence[str], budget: int
) -> tuple[dict[str, pd.Series], str]:
    """Every seed's token accuracy of each of ``methods`` in ``setup`` after ``budget`` steps:
    on the test strings where every run was scored there, else on the validation strings;
    with the name of the strings.

    >>> final(example_runs(), "LayerNorm", ["k_total"], 500)[1]
    'validation'
    """
    parts = {m: runs_of(runs, setup, m) for m in methods}
    test = accuracy_at(budget, test=True)
    if all(test in p and p[test].notna().all() for p in parts.values()):
        return {m: p[test] for m, p in parts.items()}, "test"
    return {m: p[accuracy_at(budget)] for m, p in parts.items()}, "validation"


def best_test_accuracy(runs: pd.DataFrame, budgets: Sequence[int]) -> float:
    """The best mean over seeds of a method's test token accuracy in a setup at ``budgets``
    (NaN where none was measured)."""
    columns = [c for c in (accuracy_at(b, test=True) for b in budgets) if c in runs]
    means = runs.groupby(["setup", "method"])[columns].mean() if columns else pd.DataFrame()
    return float(np.nanmax(means.to_numpy())) if means.size else math.nan


def best_exact(runs: pd.DataFrame, budgets: Sequence[int]) -> pd.DataFrame | None:
    """The runs scored on whole-string accuracy on the test strings (``test exact at B steps``)
    at some of ``budgets``, each with its ``best`` there; ``None`` where none was measured.

    >>> best_exact(example_runs(), [500]) is None
    True
    """
    columns = [f"test exact at {b} steps" for b in budgets if f"test exact at {b} steps" in runs]
    values = runs[columns].to_numpy(dtype=float) if columns else np.empty((0, 0))
    if not values.size or np.isnan(values).all():
        return None
    best = runs.assign(best=np.nanmax(np.where(np.isnan(values), -1.0, values), axis=1))
    return best[best["best"] >= 0]


def weight_product_change(part: pd.DataFrame) -> pd.Series:
    """The change of sigma_Wq sigma_Wk from initialization to the end, per run."""
    return (part["sigma_Wq at end"] * part["sigma_Wk at end"]) / (
        part["sigma_Wq at init"] * part["sigma_Wk at init"]
    )


def spread_record(part: pd.DataFrame, product: pd.Series) -> dict[str, float]:
    """The sigmas and the logit spread of one setup's 1/√d runs at initialization and at the
    end (means over seeds), the change of the spread and the change Chuang's relaxed formula
    gives with the measured sigmas (``product``: :func:`weight_product_change`)."""
    spread = part["spread at end"] / part["spread at init"]
    chuang = product * (part["sigma_X at end"] / part["sigma_X at init"]) ** 2
    mean = part.mean(numeric_only=True)
    return {
        "wq0": float(mean["sigma_Wq at init"]),
        "wq1": float(mean["sigma_Wq at end"]),
        "wk0": float(mean["sigma_Wk at init"]),
        "wk1": float(mean["sigma_Wk at end"]),
        "x0": float(mean["sigma_X at init"]),
        "x1": float(mean["sigma_X at end"]),
        "s0": float(mean["spread at init"]),
        "s1": float(mean["spread at end"]),
        "ratio": float(spread.mean()),
        "formula": float(chuang.mean()),
    }


def query_key_variances(evals: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Chuang's relaxed variances of the query and key entries, d_x sigma_X^2 sigma_W^2."""
    base = evals["d_x"] * evals["sigma_X"] ** 2
    return base * evals["sigma_Wq"] ** 2, base * evals["sigma_Wk"] ** 2


def variance_record(part: pd.DataFrame, var_q: pd.Series, var_k: pd.Series) -> dict[str, float]:
    """One setup's query and key variances (:func:`query_key_variances`) at its first and last
    evaluation and the logit spread there, means over seeds, with the last ``step``.

    >>> evals = example_evaluations().query("setup == 'LayerNorm'")
    >>> record = variance_record(evals, *query_key_variances(evals))
    >>> record["q0"], record["q1"], record["step"]
    (1.0, 4.0, 100)
    """
    at = part.groupby("step")
    ends = (part["step"] == part["step"].min(), part["step"] == part["step"].max())
    return {
        "q0": float(var_q[ends[0]].mean()),
        "k0": float(var_k[ends[0]].mean()),
        "q1": float(var_q[ends[1]].mean()),
        "k1": float(var_k[ends[1]].mean()),
        "step": int(part["step"].max()),
        "s0": float(at["spread"].mean().iloc[0]),
        "s1": float(at["spread"].mean().iloc[-1]),
    }


def factor_paths(part: pd.DataFrame) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per seed of one setup's evaluations (sorted by step), as factors of their value at the
    first evaluation: sigma_X, sigma_Wq sigma_Wk, and the measured logit spread over the one
    the relaxed formula predicts, d_x sigma_X^2 sigma_Wq sigma_Wk."""
    paths = []
    for _, run in part.groupby("seed"):
        x = run["sigma_X"].to_numpy() / run["sigma_X"].iloc[0]
        w = (run["sigma_Wq"] * run["sigma_Wk"]).to_numpy()
        predicted = (
            run["d_x"] * run["sigma_X"] ** 2 * run["sigma_Wq"] * run["sigma_Wk"]
        ).to_numpy()
        ratio = run["spread"].to_numpy() / predicted
        paths.append((x, w / w[0], ratio / ratio[0]))
    return paths


def largest_moves(
    paths: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]],
) -> dict[str, float]:
    """The largest move, up or down, over the seeds' :func:`factor_paths`: of sigma_X (``x``),
    of sigma_Wq sigma_Wk (``w``) and of the formula's ratio (``miss``).

    >>> largest_moves(factor_paths(example_evaluations(sigma_x_growth=0.5)))
    {'x': 2.0, 'w': 4.0, 'miss': 1.0}
    """

    def most(values: list[np.ndarray]) -> float:
        return float(max(max(v.max(), 1 / v.min()) for v in values))

    return {key: most([p[i] for p in paths]) for i, key in enumerate(("x", "w", "miss"))}


def example_runs(
    *,
    sqrt_short: float = 0.02,
    sqrt_long: float = 0.99,
    searched: float = 0.99,
    k_total: float = 0.02,
    spread_end: float = 3.0,
    seeds: int = 2,
) -> pd.DataFrame:
    """A small synthetic ``runs`` table for the examples and tests: two setups ("small init",
    "LayerNorm"), methods ``sqrt_d``, ``constant`` and ``k_total``, budgets 500 and 3000 steps.
    In "small init" 1/√d is at ``sqrt_short`` after 500 steps and ``sqrt_long`` after 3000; in
    "LayerNorm" every method but k_total learns by step 1000.

    >>> example_runs().shape
    (12, 15)
    """
    rows = []
    for setup in ("small init", "LayerNorm"):
        small = setup == "small init"
        for method in ("sqrt_d", "constant", "k_total"):
            if method == "sqrt_d":
                short, long = (sqrt_short, sqrt_long) if small else (0.3, 0.99)
            elif method == "constant":
                short, long = (searched, searched) if small else (0.3, 0.99)
            else:
                short, long = k_total if small else 0.03, k_total if small else 0.03
            # "steps to target" counts to 95 %
            to_target = (
                1000.0
                if long >= 0.95 and (not small or method != "sqrt_d")
                else (2500.0 if long >= 0.95 else math.nan)
            )
            for seed in range(seeds):
                rows.append(
                    {
                        "setup": setup,
                        "method": method,
                        "seed": seed,
                        "accuracy at 500 steps": short,
                        "accuracy at 3000 steps": long,
                        accuracy_at(500, test=True): short if method != "k_total" else math.nan,
                        "steps to target": to_target,
                        "spread at init": 0.002 if small else 0.4,
                        "spread at end": spread_end * (0.002 if small else 0.4),
                        "sigma_X at init": 0.03 if small else 1.0,
                        "sigma_X at end": 0.1 if small else 1.0,
                        "sigma_Wq at init": 0.25,
                        "sigma_Wq at end": 0.25 * (1.5 if spread_end != 1 else 1.0),
                        "sigma_Wk at init": 0.25,
                        "sigma_Wk at end": 0.25 * (1.5 if spread_end != 1 else 1.0),
                    }
                )
    return pd.DataFrame(rows)


def example_evaluations(
    *,
    sigma_x_growth: float = 1.0,
    sigma_w_growth: float = 2.0,
    spread_drift: float = 1.0,
    unit_at_init: bool = True,
    seeds: int = 2,
) -> pd.DataFrame:
    """A small synthetic ``evals`` table (one row per 1/√d run and evaluation, steps 0, 50,
    100): two setups, d_x = 16, d_k = 8. sigma_X grows by ``sigma_x_growth`` and sigma_Wq,
    sigma_Wk by ``sigma_w_growth`` from step 0 to step 50 and stay there; the spread follows
    the relaxed formula times ``spread_drift`` after step 0. With ``unit_at_init`` the query
    and key variances of the formula are 1 at step 0.

    >>> example_evaluations().shape
    (12, 10)
    """
    sigma_w0 = 0.25 if unit_at_init else 0.1
    rows = []
    for setup in ("small init", "LayerNorm"):
        for seed in range(seeds):
            for step in (0, 50, 100):
                moved = step > 0
                sigma_x = 1.0 * (sigma_x_growth if moved else 1.0)
                sigma_w = sigma_w0 * (sigma_w_growth if moved else 1.0)
                spread = 16 * sigma_x**2 * sigma_w**2 * (spread_drift if moved else 1.0)
                rows.append(
                    {
                        "setup": setup,
                        "method": "sqrt_d",
                        "seed": seed,
                        "step": step,
                        "d_x": 16,
                        "d_k": 8,
                        "spread": spread,
                        "sigma_X": sigma_x,
                        "sigma_Wq": sigma_w,
                        "sigma_Wk": sigma_w,
                    }
                )
    return pd.DataFrame(rows)
