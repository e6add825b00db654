"""Verdict rules and conclusions of the chapter on training stability (wortsman2024small,
zhai2023stabilizing).

The rules read the two tables of :func:`attncore.training.stability.lr_sweep`: the runs
(``method, seed, lr, initial_loss, final_loss, diverged``) and the curves along training
(``method, seed, lr, step, max_logit, entropy, train_loss``). A run's *loss* is its final
loss capped at its initial loss (a diverged run counts as the untrained model), as in
Wortsman et al.'s learning-rate sensitivity; a method's *best rate* is the rate with the
lowest mean loss over the seeds. Differences are paired by seed and called clear by one-sided
t tests (:mod:`attncore.evidence.statistics`), corrected by Holm's method where several rates
are counted. Every rule needs two seeds; with one it returns "not testable here", and so it
does wherever the seeds cannot tell: a difference they do not find is undecided, never the
opposite.

>>> runs = pd.DataFrame({"method": "a", "seed": [0, 0], "lr": [0.1, 1.0],
...                      "initial_loss": 2.0, "final_loss": [0.5, np.nan],
...                      "diverged": [False, True]})
>>> capped(runs)["loss"].tolist(), best_rates(capped(runs))
([0.5, 2.0], {'a': 0.1})
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.stability import COLLAPSE, GROWTH
from attncore.evidence.statistics import FAMILY_LEVEL, clear, holm, one_sided_p

__all__ = [
    "LABELS",
    "best_rates",
    "capped",
    "entropy_with_instability",
    "logit_growth",
    "lower_sensitivity",
    "lr_sensitivity",
    "prevents_collapse",
    "sensitivity_order",
]

#: How the page names each method of :data:`attncore.training.stability.METHODS`.
LABELS: dict[str, str] = {
    "sqrt_d": "1/√d",
    "qk_norm": "QK-norm",
    "cosine": "cosine with learned τ",
    "soft_cap": "soft cap",
    "sigma_reparam": "σReparam",
    "log_n": "ln n/√d",
}


def _one_seed(claim: str) -> Finding:
    """The finding of a rule given a single seed: not testable here."""
    return Finding(claim, Verdict.UNTESTABLE, branch="one-seed")


def capped(runs: pd.DataFrame) -> pd.DataFrame:
    """The run table with ``loss``: the final loss capped at the initial loss (a diverged
    run's NaN becomes its initial loss)."""
    out = runs.copy()
    out["loss"] = np.fmin(out["final_loss"].to_numpy(float), out["initial_loss"].to_numpy(float))
    return out


def best_rates(runs: pd.DataFrame) -> dict[str, float]:
    """Per method, the rate with the lowest mean capped loss over the seeds (the run table
    after :func:`capped`)."""
    means = runs.groupby(["method", "lr"], sort=False)["loss"].mean()
    return {method: float(rates.idxmin()[1]) for method, rates in means.groupby(level=0)}


def _largest_logits(curves: pd.DataFrame) -> pd.Series:
    """The largest attention logit of every run over training (finite records only)."""
    finite = curves[np.isfinite(curves["max_logit"])]
    return finite.groupby(["method", "lr", "seed"])["max_logit"].max()


def _logits_at(curves: pd.DataFrame, method: str, lr: float) -> pd.Series:
    """The largest attention logit of each seed of ``method`` at rate ``lr`` (empty where none
    is finite)."""
    largest = _largest_logits(curves)
    keys = largest.index.to_frame(index=False)
    at = largest[((keys["method"] == method) & (keys["lr"] == lr)).to_numpy()]
    return at.droplevel(["method", "lr"])


def _lowest_entropy(curves: pd.DataFrame) -> pd.Series:
    """The lowest attention entropy of every run over training (finite records only)."""
    finite = curves[np.isfinite(curves["entropy"])]
    return finite.groupby(["method", "lr", "seed"])["entropy"].min()


def _paired(a: pd.Series, b: pd.Series) -> tuple[float, float, int]:
    """Mean and standard error of ``a - b`` over the seeds both have, and their number."""
    diff = (a - b).dropna()
    n = len(diff)
    se = float(diff.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return float(diff.mean()) if n else math.nan, se, n


def _seeds(runs: pd.DataFrame, method: str) -> int:
    return int(runs.loc[runs["method"] == method, "seed"].nunique())


def lr_sensitivity(runs: pd.DataFrame) -> pd.DataFrame:
    """Wortsman et al.'s learning-rate sensitivity of every (method, seed) curve of the run
    table: the mean over its rates of ``min(final, initial) - best``, with ``best`` the lowest
    of those values on the curve, so a diverged run counts at its initial loss (their section
    2.2, as the book reads it: the expected rise of the final loss over a range of rates above
    the best, with the loss at initialization as its ceiling); also the best rate and loss. One
    row per method and seed.

    >>> runs = pd.DataFrame({"method": "a", "seed": 0, "lr": [0.1, 1.0, 10.0],
    ...                      "initial_loss": 2.0, "final_loss": [0.5, 1.0, np.nan],
    ...                      "diverged": [False, False, True]})
    >>> lr_sensitivity(runs)[["sensitivity", "best_lr", "best_loss"]].round(3).values.tolist()
    [[0.667, 0.1, 0.5]]
    """
    rows = []
    for (method, seed), curve in runs.groupby(["method", "seed"], sort=False):
        capped = np.fmin(curve["final_loss"].to_numpy(), curve["initial_loss"].to_numpy())
        best = int(np.argmin(capped))
        rows.append(
            {"method": method, "seed": seed, "sensitivity": float(np.mean(capped - capped[best])),
             "best_lr": float(curve["lr"].iloc[best]), "best_loss": float(capped[best]),
             "diverged": int(curve["diverged"].sum())}
        )  # fmt: skip
    return pd.DataFrame(rows)


@decided_by(GROWTH)
def logit_growth(
    runs: pd.DataFrame, curves: pd.DataFrame, method: str = "sqrt_d", *, growth: float = GROWTH
) -> Finding:
    """``wortsman-small-models-unstable``: attention logits grow at the highest rate (in every
    seed, more than ``growth`` times the best rate's) and the loss there is clearly above the
    best rate's: holds if both, holds with a caveat if one; does not hold if the highest rate
    is the best (the loss does not rise) and the logits grew in no seed; not testable where
    the seeds cannot tell (the loss higher on average but not clearly, or the logits grown in
    some seeds only)."""
    claim = "wortsman-small-models-unstable"
    table = capped(runs)
    if _seeds(table, method) < 2:
        return _one_seed(claim)
    best, top = best_rates(table)[method], float(table["lr"].max())
    own = table[table["method"] == method].set_index(["lr", "seed"])["loss"]
    mean, se, n = _paired(own.loc[top], own.loc[best])
    higher = top != best and bool(clear([mean], [se], n, "above").iloc[0])
    ratio = (_logits_at(curves, method, top) / _logits_at(curves, method, best)).dropna()
    grew = top != best and len(ratio) > 0 and bool((ratio > growth).all())
    calm = len(ratio) > 0 and bool((ratio <= growth).all())
    if higher or grew:
        verdict = Verdict.HOLDS if higher and grew else Verdict.CAVEAT
    elif top == best and calm:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    values = {"best": best, "top": top, "rise": mean, "se": se, "seeds": n, "higher": higher}
    if not len(ratio):
        return Finding(claim, verdict, values=values, branch="no-logits")
    return Finding(claim, verdict, values={**values, "smallest": float(ratio.min())})


def lower_sensitivity(
    claim: str, runs: pd.DataFrame, method: str, baseline: str = "sqrt_d"
) -> Finding:
    """``claim``'s verdict: ``method``'s learning-rate sensitivity clearly below
    ``baseline``'s, paired by seed (holds), below on average (caveat), clearly above (fails);
    a difference the seeds cannot place on either side is undecided (not testable here)."""
    if min(_seeds(runs, method), _seeds(runs, baseline)) < 2:
        return _one_seed(claim)
    sens = lr_sensitivity(runs).set_index(["method", "seed"])["sensitivity"]
    mean, se, n = _paired(sens.loc[method], sens.loc[baseline])
    lower = bool(clear([mean], [se], n, "below").iloc[0])
    higher = bool(clear([mean], [se], n, "above").iloc[0])
    verdict = (
        Verdict.HOLDS
        if lower
        else Verdict.CAVEAT
        if mean < 0
        else Verdict.FAILS
        if higher
        else Verdict.UNTESTABLE
    )
    values = {"method": LABELS.get(method, method), "difference": mean, "se": se, "seeds": n}
    return Finding(claim, verdict, values=values)


def entropy_with_instability(runs: pd.DataFrame, curves: pd.DataFrame) -> Finding:
    """``zhai-low-entropy-unstable``: over the runs above their method's best rate, the
    lowest attention entropy during training against the capped final loss, Spearman's rank
    correlation clearly negative (holds), negative (caveat), clearly positive (fails); not
    testable where it is neither clearly positive nor negative (the runs cannot tell)."""
    claim = "zhai-low-entropy-unstable"
    table = capped(runs)
    if min(_seeds(table, m) for m in table["method"].unique()) < 2:
        return _one_seed(claim)
    best = best_rates(table)
    above = table[table["lr"] > table["method"].map(best)].set_index(["method", "lr", "seed"])
    joined = above.join(_lowest_entropy(curves).rename("entropy"), how="inner").dropna(
        subset=["entropy", "loss"]
    )
    if len(joined) < 4 or joined["loss"].nunique() < 2 or joined["entropy"].nunique() < 2:
        return Finding(claim, Verdict.UNTESTABLE, values={"runs": len(joined)}, branch="too-few")
    rho, p = stats.spearmanr(joined["entropy"], joined["loss"], alternative="less")
    _, p_positive = stats.spearmanr(joined["entropy"], joined["loss"], alternative="greater")
    if p < FAMILY_LEVEL:
        verdict = Verdict.HOLDS
    elif rho < 0:
        verdict = Verdict.CAVEAT
    elif p_positive < FAMILY_LEVEL:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    values = {
        "runs": len(joined),
        "rho": float(rho),
        "p": float(p),
        "p_positive": float(p_positive),
    }
    return Finding(claim, verdict, values=values)


@decided_by(COLLAPSE)
def prevents_collapse(
    runs: pd.DataFrame, curves: pd.DataFrame, length: int, *, collapse: float = COLLAPSE
) -> Finding:
    """``zhai-sigma-reparam-prevents-collapse``: at each rate above 1/√d's best where 1/√d's
    lowest entropy (mean over seeds) fell below ``collapse`` ln L and its loss rose clearly
    above the best rate's (Zhai et al.'s collapse comes with instability; a low entropy in a
    run that still learns is the task's solution), σReparam's entropy is clearly higher,
    paired by seed, Holm-corrected over those rates: holds at every such rate, holds with a
    caveat at some; does not hold where σReparam's collapsed too at every one; not testable
    where there is no such rate, or σReparam's did not collapse but the seeds cannot tell it
    higher."""
    claim = "zhai-sigma-reparam-prevents-collapse"
    table = capped(runs)
    if min(_seeds(table, "sqrt_d"), _seeds(table, "sigma_reparam")) < 2:
        return _one_seed(claim)
    best = best_rates(table)["sqrt_d"]
    entropy = _lowest_entropy(curves)
    rates = sorted(r for r in table["lr"].unique() if r > best)
    low = [r for r in rates if entropy.loc["sqrt_d", r].mean() < collapse * math.log(length)]
    own = table[table["method"] == "sqrt_d"].set_index(["lr", "seed"])["loss"]
    rises = [_paired(own.loc[r], own.loc[best]) for r in low]
    collapsed = [
        r
        for r, rise in zip(low, rises, strict=True)
        if bool(clear([rise[0]], [rise[1]], rise[2], "above").iloc[0])
    ]
    if not collapsed:
        branch = "solution" if low else "no-collapse"
        return Finding(claim, Verdict.UNTESTABLE, values={"best": best}, branch=branch)
    pairs = [_paired(entropy.loc["sigma_reparam", r], entropy.loc["sqrt_d", r]) for r in collapsed]
    higher = clear([p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs], "above")
    count = int(higher.sum())
    also = all(
        entropy.loc["sigma_reparam", r].mean() < collapse * math.log(length) for r in collapsed
    )
    verdict = (
        Verdict.HOLDS
        if count == len(collapsed)
        else Verdict.CAVEAT
        if count
        else Verdict.FAILS
        if also
        else Verdict.UNTESTABLE
    )
    differences = [
        {"rate": r, "difference": m, "se": s} for r, (m, s, _) in zip(collapsed, pairs, strict=True)
    ]
    values = {
        "collapsed": (len(collapsed), len(rates)),
        "higher": count,
        "differences": differences,
    }
    return Finding(claim, verdict, values=values)


def _groups(sensitivity: pd.Series, order: list[str]) -> list[list[str]]:
    """The methods of ``order`` (lowest mean sensitivity first) cut into groups, each clearly
    below the next: a cut between two neighbours only where every method before it is
    clearly below every method after it, paired by seed (``sensitivity`` is indexed by
    method and seed), two-sided t tests Holm-corrected over every pair of methods. Methods
    the seeds cannot tell apart stay in one group.

    >>> sens = pd.Series([0.1, 0.2, 0.1, 0.2, 0.5, 0.6], index=pd.MultiIndex.from_product(
    ...     [["a", "b", "c"], [0, 1]]))
    >>> _groups(sens, ["a", "b", "c"])
    [['a', 'b'], ['c']]
    """
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
    if not pairs:
        return [list(order)]
    tests = [_paired(sensitivity.loc[a], sensitivity.loc[b]) for a, b in pairs]
    mean, se, n = (np.array(column, dtype=float) for column in zip(*tests, strict=True))
    two_sided = 2 * np.minimum(one_sided_p(mean, se, n, "below"), one_sided_p(mean, se, n, "above"))
    told = holm(np.minimum(two_sided, 1.0))
    below = {pair for pair, m, t in zip(pairs, mean, told, strict=True) if t and m < 0}
    groups = [[order[0]]]
    for k in range(1, len(order)):
        if all((a, b) in below for a in order[:k] for b in order[k:]):
            groups.append([])
        groups[-1].append(order[k])
    return groups


def sensitivity_order(runs: pd.DataFrame, labels: Mapping[str, str] = LABELS) -> Reading:
    """Which methods' final loss depends least and most on the learning rate: the methods in
    groups by their learning-rate sensitivity, each group clearly below the next, paired by
    seed (:func:`_groups`). Branch ``ordered`` (values ``groups``, lowest first, each a
    record of its ``methods``; ``lowest`` and ``highest``, the first group's and the last's),
    ``alike`` where the seeds tell no group apart, ``one-seed`` where there is a single seed;
    every branch has the sweep's ``low`` and ``high`` rate, the ``seeds`` and the range of
    the mean sensitivities (``spread``).

    >>> runs = pd.DataFrame({"method": ["a", "a", "b", "b"] * 2, "seed": [0] * 4 + [1] * 4,
    ...                      "lr": [0.1, 1.0] * 4, "initial_loss": 2.0, "diverged": False,
    ...                      "final_loss": [0.5, 1.5, 0.5, 0.6, 0.6, 1.7, 0.6, 0.7]})
    >>> found = sensitivity_order(runs, {"a": "A", "b": "B"})
    >>> found.branch, found.values["groups"]
    ('ordered', [{'methods': ['B']}, {'methods': ['A']}])
    >>> sensitivity_order(runs[runs["seed"] == 0]).branch
    'one-seed'
    """
    sensitivity = lr_sensitivity(runs).set_index(["method", "seed"])["sensitivity"]
    means = sensitivity.groupby(level="method", sort=False).mean()
    order = list(means.sort_values(kind="stable").index)
    seeds = int(runs["seed"].nunique())
    groups = _groups(sensitivity, order) if seeds > 1 else [order]
    page = list(means.index)
    groups_named = [[labels.get(m, m) for m in sorted(g, key=page.index)] for g in groups]
    values: dict[str, Any] = {
        "low": float(runs["lr"].min()),
        "high": float(runs["lr"].max()),
        "seeds": seeds,
        "spread": (float(means.min()), float(means.max())),
        "groups": [
            {"methods": [labels.get(m, m) for m in sorted(g, key=page.index)]} for g in groups
        ],
    }
    values["lowest"], values["highest"] = groups_named[0], groups_named[-1]
    branch = "one-seed" if seeds < 2 else "alike" if len(groups) < 2 else "ordered"
    return Reading(branch, values)
