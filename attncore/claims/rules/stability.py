"""Verdict rules and readings of the chapter on training stability, on the tables of
:func:`attncore.training.stability.lr_sweep` (numbers: :mod:`attncore.evidence`). A difference
the seeds do not find clear is undecided, never the opposite; one seed decides nothing."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.evidence import stability as evidence
from attncore.evidence.statistics import FAMILY_LEVEL, clear

limits = thresholds_of("stability")

__all__ = [
    "LABELS",
    "SWEEPS",
    "entropy_with_instability",
    "logit_growth",
    "lower_sensitivity",
    "prevents_collapse",
    "sensitivity_order",
    "width_trend",
]

#: How the page names each method of :data:`attncore.training.stability.METHODS`.
LABELS: dict[str, str] = {
    "sqrt_d": "1/√d",
    "qk_layernorm": "qk-layernorm",
    "z_loss": "z-loss",
    "qk_norm": "QK-norm",
    "cosine": "cosine with learned τ",
    "soft_cap": "soft cap",
    "sigma_reparam": "σReparam",
    "log_n": "ln n/√d",
}
#: How a finding names the sweeps of a run table's column ``sweep``: this build's own, and
#: the kept sweep (:mod:`attncore.book.kept_runs`).
SWEEPS: dict[str, str] = {"build": "this build", "kept": "kept sweep"}


def _clear(found: tuple[float, float, int], side: str) -> bool:
    """Whether a paired difference (mean, standard error, seeds) is clearly on ``side``."""
    return bool(clear([found[0]], [found[1]], found[2], side).iloc[0])


@decided_by(limits.GROWTH)
def logit_growth(
    runs: pd.DataFrame,
    curves: pd.DataFrame,
    method: str = "sqrt_d",
    *,
    growth: float = limits.GROWTH,
) -> Finding:
    """``wortsman-small-models-unstable``: at the highest rate the logits grew more than
    ``growth`` times the best rate's in every seed, and the loss is clearly above the best
    rate's; fails where the highest rate is the best and the logits grew in no seed."""
    claim = "wortsman-small-models-unstable"
    table = evidence.capped(runs)
    if evidence.seeds(table, method) < 2:
        return Finding(claim, Verdict.UNTESTABLE, branch="one-seed")
    best, top = evidence.best_rates(table)[method], float(table["lr"].max())
    mean, se, n = rise = evidence.loss_rise(table, method, top, best)
    higher = top != best and _clear(rise, "above")
    ratio = evidence.logit_ratio(curves, method, top, best)
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
    """``claim``: ``method``'s learning-rate sensitivity against ``baseline``'s at every width
    of every sweep (``runs``' column ``sweep``, where it has one: :data:`SWEEPS`), paired by
    seed: clearly below at every one (holds: each test must reject, so no correction), below
    on average at every one (caveat), clearly above at some after Holm's correction over them
    (fails), else undecided; ``one-seed`` where one of them has a single seed."""
    table = runs if "sweep" in runs else runs.assign(sweep="build")
    places = list(table[["sweep", "width"]].drop_duplicates().itertuples(index=False, name=None))
    for place in places:
        at = table[(table["sweep"] == place[0]) & (table["width"] == place[1])]
        if min(evidence.seeds(at, method), evidence.seeds(at, baseline)) < 2:
            return Finding(claim, Verdict.UNTESTABLE, branch="one-seed")
    sens = evidence.lr_sensitivity(table).set_index(["sweep", "width", "method", "seed"])
    sens = sens["sensitivity"].sort_index()
    found = [evidence.paired(sens.loc[s, w, method], sens.loc[s, w, baseline]) for s, w in places]
    mean, se, n = (list(column) for column in zip(*found, strict=True))
    below = [_clear(f, "below") for f in found]
    above = clear(mean, se, n, "above")
    if all(below):
        verdict = Verdict.HOLDS
    elif bool(above.any()):
        verdict = Verdict.FAILS
    elif all(m < 0 for m in mean):
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.UNTESTABLE
    items = [
        {"width": int(w), "sweep": SWEEPS.get(s, s), "difference": m, "se": e}
        for (s, w), m, e in zip(places, mean, se, strict=True)
    ]
    # the place nearest to the other side: the least clear below, the clearest above
    t = [m / e if e > 0 else math.copysign(math.inf, m) for m, e in zip(mean, se, strict=True)]
    values = {
        "method": LABELS.get(method, method), "places": len(places), "above": int(above.sum()),
        "low": min(mean), "high": max(mean), "closest": [items[t.index(max(t))]],
    }  # fmt: skip
    return Finding(claim, verdict, values=values)


def entropy_with_instability(runs: pd.DataFrame, curves: pd.DataFrame) -> Finding:
    """``zhai-low-entropy-unstable``: Spearman's rank correlation of the lowest entropy with the
    capped loss over the (method, rate) cells above their best rate, each the mean of its
    seeds (:func:`evidence.cell_means`), clearly negative (holds), negative (caveat), clearly
    positive (fails)."""
    claim = "zhai-low-entropy-unstable"
    table = evidence.capped(runs)
    if min(evidence.seeds(table, m) for m in table["method"].unique()) < 2:
        return Finding(claim, Verdict.UNTESTABLE, branch="one-seed")
    joined = evidence.above_best(table, curves)
    cells = evidence.cell_means(joined)
    counts = {"cells": len(cells), "runs": len(joined)}
    if len(cells) < 4 or cells["loss"].nunique() < 2 or cells["entropy"].nunique() < 2:
        return Finding(claim, Verdict.UNTESTABLE, values=counts, branch="too-few")
    found = evidence.rank_correlation(cells)
    if found["p"] < FAMILY_LEVEL:
        verdict = Verdict.HOLDS
    elif found["rho"] < 0:
        verdict = Verdict.CAVEAT
    elif found["p_positive"] < FAMILY_LEVEL:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    return Finding(claim, verdict, values={**counts, **found})


@decided_by(limits.COLLAPSE)
def prevents_collapse(
    runs: pd.DataFrame, curves: pd.DataFrame, length: int, *, collapse: float = limits.COLLAPSE
) -> Finding:
    """``zhai-sigma-reparam-prevents-collapse``, over the rates above 1/√d's best where its mean
    lowest entropy fell below ``collapse`` ln L *and* its loss rose clearly (a low entropy in a
    run that still learns is the task's solution, not a collapse): σReparam's entropy clearly
    higher, paired by seed and Holm-corrected, at every such rate (holds) or some (caveat).
    σReparam collapsed too (fails) only where its loss also rose clearly above its own best
    rate's: the same exemption; a low entropy while it learns cannot tell (``sigma-solution``)."""
    claim = "zhai-sigma-reparam-prevents-collapse"
    table = evidence.capped(runs)
    if min(evidence.seeds(table, "sqrt_d"), evidence.seeds(table, "sigma_reparam")) < 2:
        return Finding(claim, Verdict.UNTESTABLE, branch="one-seed")
    best = evidence.best_rates(table)["sqrt_d"]
    entropy = evidence.lowest_entropy(curves)
    rates = sorted(r for r in table["lr"].unique() if r > best)
    floor = collapse * math.log(length)
    low = [r for r in rates if entropy.loc["sqrt_d", r].mean() < floor]
    collapsed = [r for r in low if _clear(evidence.loss_rise(table, "sqrt_d", r, best), "above")]
    if not collapsed:
        branch = "solution" if low else "no-collapse"
        return Finding(claim, Verdict.UNTESTABLE, values={"best": best}, branch=branch)
    pairs = [
        evidence.paired(entropy.loc["sigma_reparam", r], entropy.loc["sqrt_d", r])
        for r in collapsed
    ]
    higher = clear([p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs], "above")
    count = int(higher.sum())
    sigma_best = evidence.best_rates(table)["sigma_reparam"]
    low_sigma = [r for r in collapsed if entropy.loc["sigma_reparam", r].mean() < floor]
    rose = [
        r
        for r in low_sigma
        if r > sigma_best
        and _clear(evidence.loss_rise(table, "sigma_reparam", r, sigma_best), "above")
    ]
    branch = ""
    if count:
        verdict = Verdict.HOLDS if count == len(collapsed) else Verdict.CAVEAT
    elif low_sigma and len(rose) == len(collapsed):
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
        branch = "sigma-solution" if len(low_sigma) == len(collapsed) else ""
    differences = [
        {"rate": r, "difference": m, "se": s} for r, (m, s, _) in zip(collapsed, pairs, strict=True)
    ]
    values = {"collapsed": (len(collapsed), len(rates)), "higher": count}
    values |= {"differences": differences}
    return Finding(claim, verdict, values=values, branch=branch)


def sensitivity_order(runs: pd.DataFrame, labels: Mapping[str, str] = LABELS) -> Reading:
    """The methods in groups by learning-rate sensitivity, each clearly below the next
    (:func:`evidence.sensitivity_groups`): branch ``ordered``, ``alike`` where the seeds tell no
    group apart, or ``one-seed``.

    >>> runs = pd.DataFrame({"method": ["a", "a", "b", "b"] * 2, "seed": [0] * 4 + [1] * 4,
    ...                      "lr": [0.1, 1.0] * 4, "initial_loss": 2.0, "diverged": False,
    ...                      "final_loss": [0.5, 1.5, 0.5, 0.6, 0.6, 1.7, 0.6, 0.7]})
    >>> found = sensitivity_order(runs, {"a": "A", "b": "B"})
    >>> found.branch, found.values["groups"]
    ('ordered', [{'methods': ['B']}, {'methods': ['A']}])
    """
    means, groups = evidence.sensitivity_groups(runs)
    seeds = int(runs["seed"].nunique())
    page = list(means.index)
    named = [[labels.get(m, m) for m in sorted(g, key=page.index)] for g in groups]
    values: dict[str, Any] = {
        "low": float(runs["lr"].min()),
        "high": float(runs["lr"].max()),
        "seeds": seeds,
        "spread": (float(means.min()), float(means.max())),
        "groups": [{"methods": list(methods)} for methods in named],
    }
    values["lowest"], values["highest"] = named[0], named[-1]
    branch = "one-seed" if seeds < 2 else "alike" if len(groups) < 2 else "ordered"
    return Reading(branch, values)


def width_trend(
    table: pd.DataFrame, method: str = "sqrt_d", mitigation: str = "qk_layernorm"
) -> Reading:
    """How the learning-rate sensitivity of ``method`` and ``mitigation`` changes from the
    narrowest width to the widest (:func:`evidence.width_change`): branch ``grows-flattened``
    (``method`` rises, the mitigation does not), ``grows-both``, ``no-growth`` or
    ``one-width``.

    >>> table = pd.DataFrame({"width": [16, 32] * 2,
    ...                       "method": ["sqrt_d"] * 2 + ["qk_layernorm"] * 2,
    ...                       "lr_sensitivity": [0.4, 0.9, 0.2, 0.25],
    ...                       "lr_sensitivity_low": [0.3, 0.8, 0.1, 0.1],
    ...                       "lr_sensitivity_high": [0.5, 1.0, 0.3, 0.4], "seeds": 5})
    >>> width_trend(table).branch
    'grows-flattened'
    """
    widths = sorted(int(w) for w in table["width"].unique())
    values: dict[str, Any] = {"narrow": widths[0], "wide": widths[-1]}
    if len(widths) < 2:
        return Reading("one-width", values)
    for key, name in (("baseline", method), ("mitigation", mitigation)):
        values[key] = {"method": LABELS.get(name, name), **evidence.width_change(table, name)}
    if values["baseline"]["change"] != "rises":
        return Reading("no-growth", values)
    flattened = values["mitigation"]["change"] != "rises"
    return Reading("grows-flattened" if flattened else "grows-both", values)
