"""Verdict rules of the chapters *Every rescaling, measured* and *1/k_total against the
alternatives*, and the readings the chapters state their results from (as data: the words
are the catalogue's templates and the chapters').

Every rule takes a table of paired comparisons of two rescalings on the same draws (one row
per configuration ``family, d, n``; columns ``<metric>_a``, ``<metric>_b``, the mean paired
difference ``<metric>_diff = a - b`` and its standard error ``<metric>_diff_se``, as made by
:func:`attncore.simulate.sweep.pair_rescalings`), or a summary with standard errors, and
returns a :class:`~attncore.claims.Finding`. A rule that counts configurations counts a
difference only when a one-sided t test over the draws finds it, Holm-corrected over the
configurations it counts (:func:`attncore.evidence.statistics.clear`, column ``draws``); a rule
that compares a few values along one curve or across d counts a single difference that
the same t test finds at the level of :data:`CLEAR` standard errors
(:func:`attncore.evidence.statistics.single`: far more than two with few draws).

>>> pairs = pd.DataFrame({"wasserstein_diff": [-0.3, -0.2], "wasserstein_diff_se": [0.01, 0.02],
...                       "wasserstein_a": [0.1, 0.1], "wasserstein_b": [0.4, 0.3],
...                       "selectivity_a": [1e-3, 1e-3], "selectivity_b": [0.1, 0.1],
...                       "effective_share_a": [0.5, 0.6], "draws": [10, 10]},
...                      index=pd.MultiIndex.from_tuples([("f", 8, 4), ("g", 8, 4)],
...                                                      names=["family", "d", "n"]))
>>> lower_distortion("bernhard-other-moments", pairs, "k_total", "sqrt_d", check="toy").verdict
<Verdict.HOLDS: 'holds'>
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from attncore.checks import ParameterError, table_with
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.rescalings import (
    CLEAR,
    FALLS_TO,
    FLAT,
    LEVEL,
    MANY,
    MARGIN,
    MODERATE,
    PRICE,
    ROUNDING,
    SAME_ORDER,
    STEADY,
    UNIFORM_SHARE,
)
from attncore.evidence.statistics import MIN_DRAWS, clear, clear_side, single
from attncore.rescalings import RESCALINGS

__all__ = [
    "COMPARISON_EVIDENCE",
    "REVIEW_EVIDENCE",
    "bernhard_abstract_more_effective",
    "bernhard_conclusion",
    "bernhard_distortion_signals",
    "bernhard_n_sqrt_d_other",
    "bernhard_other_families",
    "bernhard_prescaled_same",
    "bernhard_section5_worse",
    "bernhard_small_logits",
    "bernhard_sqrt_d_alleviates",
    "bernhard_vanishing_gradients",
    "blog_gradient_flow",
    "blog_stable_region",
    "clearly_above",
    "clearly_below",
    "comparison_findings",
    "curve_reading",
    "even_more_so",
    "few_draws",
    "heavy_tails_reading",
    "lower_distortion",
    "lowest_reading",
    "n_sqrt_d_by_family",
    "n_sqrt_d_calls",
    "n_sqrt_d_reading",
    "review_findings",
    "section5_complexity",
    "section5_table",
    "summary_readings",
    "vanishing_caveats",
    "vaswani_small_gradients",
    "vaswani_table",
]


def _wins(
    pairs: pd.DataFrame,
    metric: str = "wasserstein",
    side: str = "below",
    level: float = LEVEL,
) -> pd.Series:
    """Where ``metric`` of ``a`` is clearly ``below`` (or ``above``) that of ``b``:
    Holm-corrected one-sided t tests over the configurations of ``pairs``."""
    diff, se = pairs[f"{metric}_diff"], pairs[f"{metric}_diff_se"]
    return clear(diff, se, pairs["draws"], side, level)


def _draws(pairs: pd.DataFrame) -> dict[str, Any]:
    """How many draws each configuration had (``draws``, the fewest) and whether that is fewer
    than :data:`~attncore.evidence.statistics.MIN_DRAWS` (``few``; what that means, a page says
    once: :func:`few_draws`)."""
    fewest = int(pairs["draws"].min())
    return {"draws": fewest, "few": fewest < MIN_DRAWS}


def few_draws(draws: int) -> Reading:
    """What few draws mean for the corrected counts, for a page whose configurations have
    ``draws`` draws each: branch ``few`` below :data:`~attncore.evidence.statistics.MIN_DRAWS`
    (values ``draws`` and ``needed``, that number), ``enough`` otherwise (nothing to say).

    >>> few_draws(2)
    Reading(branch='few', values={'draws': 2, 'needed': 10})
    >>> few_draws(10).branch
    'enough'
    """
    return Reading("few" if draws < MIN_DRAWS else "enough", {"draws": draws, "needed": MIN_DRAWS})


def _se(se: pd.Series) -> pd.Series:
    return se.fillna(0.0)


def clearly_below(diff: pd.Series, se: pd.Series, draws: pd.Series | int) -> pd.Series:
    """Where ``diff`` is clearly below 0: a single difference over ``draws`` draws at the
    level of :data:`CLEAR` standard errors (:func:`~attncore.evidence.statistics.single`).

    >>> clearly_below(pd.Series([-0.3, -0.1, -0.3]), pd.Series([0.1] * 3), [40, 40, 2]).tolist()
    [True, False, False]
    """
    return pd.Series(single(diff, se, draws, "below", CLEAR), index=diff.index)


def clearly_above(diff: pd.Series, se: pd.Series, draws: pd.Series | int) -> pd.Series:
    """Where ``diff`` is clearly above 0 (as :func:`clearly_below`, the other side).

    >>> clearly_above(pd.Series([0.3, 0.1]), pd.Series([0.1, 0.1]), 40).tolist()
    [True, False]
    """
    return pd.Series(single(diff, se, draws, "above", CLEAR), index=diff.index)


def _beyond(diff: float, se: float, draws: int) -> bool:
    """Whether one difference is clearly above 0 (:func:`clearly_above` for a number)."""
    return clear_side(diff, se, draws, CLEAR) == "above"


def _range(values: pd.Series) -> tuple[float, float]:
    """The smallest and the largest of ``values``, a pair a template's ``range`` says."""
    return float(values.min()), float(values.max())


def _label(name: str) -> str:
    """A registered rescaling's label (``sqrt_d`` -> ``1/√d``), any other name as it is."""
    return RESCALINGS[name].label if name in RESCALINGS else name


def _where(index: pd.Index, most: int = 3) -> list[dict[str, Any]]:
    """The configurations of ``index``, each a record of its ``family``, ``d`` and ``n``; none
    beyond ``most`` of them (a count says how many)."""
    if len(index) > most:
        return []
    return [{"family": str(f), "d": int(d), "n": int(n)} for f, d, n in index]


_DISTORTION = [
    "wasserstein_a",
    "wasserstein_b",
    "wasserstein_diff",
    "wasserstein_diff_se",
    "selectivity_a",
    "selectivity_b",
    "effective_share_a",
    "draws",
]


def _distortion_verdict(wins: pd.Series, losses: pd.Series, clean: bool = True) -> Verdict:
    """A claim that one rescaling distorts less, over configurations: **holds** if it wins in
    every one (and ``clean``), **holds with a caveat** if in at least half (or everywhere,
    not ``clean``), **does not hold** if it loses somewhere and wins in fewer than half,
    **not testable here** if it wins in fewer than half and loses nowhere (the draws cannot
    tell)."""
    if wins.all():
        return Verdict.HOLDS if clean else Verdict.CAVEAT
    if wins.mean() >= 0.5:
        return Verdict.CAVEAT
    return Verdict.FAILS if losses.any() else Verdict.UNTESTABLE


def _optional(key: str, items: list[Any]) -> list[dict[str, Any]]:
    """``items`` as an optional clause of a template: one record holding them under ``key``
    (its ``items`` words say the clause), none where there are none (nothing is said)."""
    return [{key: items}] if items else []


def _describe(pairs: pd.DataFrame, better: str, worse: str, wins: pd.Series) -> dict[str, Any]:
    """The values a distortion claim says: W₁ of both, the selectivity ratio, how often
    ``better``'s attention is nearly uniform, the draws, and the configurations ``better``
    did not clearly win (``missed``, optional: a few only, a count says the rest)."""
    ratio = pairs["selectivity_a"] / pairs["selectivity_b"]
    missed = _where(pairs.index[~wins.to_numpy()])
    uniform = pairs["effective_share_a"] > UNIFORM_SHARE
    return {
        "better": _label(better),
        "worse": _label(worse),
        "wins": (int(wins.sum()), len(pairs)),
        "w_a": _range(pairs["wasserstein_a"]),
        "w_b": _range(pairs["wasserstein_b"]),
        "ratio": _range(ratio),
        "share_min": float(pairs["effective_share_a"].min()),
        "uniform": int(uniform.sum()),
        "missed": _optional("places", missed),
        **_draws(pairs),
    }


@decided_by(LEVEL)
def lower_distortion(
    claim: str,
    pairs: pd.DataFrame,
    better: str,
    worse: str,
    *,
    check: str,
    level: float = LEVEL,
) -> Finding:
    """The claim "``better`` distorts the shape less than ``worse``" (``a`` = ``better``), read
    on the claim's own measure, W₁, over the configurations of ``pairs``.

    **Holds** if ``better``'s W₁ is clearly below ``worse``'s in every configuration; **holds
    with a caveat** if in at least half; **does not hold** if it is clearly above somewhere
    and below in fewer than half; **not testable here** if it is below in fewer than half and
    above nowhere (the draws cannot tell). How often ``better``'s attention is nearly uniform
    (:data:`UNIFORM_SHARE`) is reported, not held against a claim about distortion.
    """
    table_with("pairs", pairs, _DISTORTION)
    wins = _wins(pairs, level=level)
    verdict = _distortion_verdict(wins, _wins(pairs, side="above", level=level))
    return Finding(claim, verdict, check=check, values=_describe(pairs, better, worse, wins))


def even_more_so(pairs: pd.DataFrame, reference: pd.DataFrame, level: float = LEVEL) -> pd.Series:
    """Per configuration of ``pairs``: is the gap ``W₁_b - W₁_a`` clearly larger than the gap of
    ``reference`` (indexed by ``d, n``, e.g. the standard normal family) at the same ``d, n``?
    One-sided t tests on the difference of the two gaps (independent draws), Holm-corrected
    over the configurations.

    >>> idx = pd.MultiIndex.from_tuples([("f", 8, 4)], names=["family", "d", "n"])
    >>> ref = pd.DataFrame({"wasserstein_diff": [-0.1], "wasserstein_diff_se": [0.01]},
    ...                    index=pd.MultiIndex.from_tuples([(8, 4)], names=["d", "n"]))
    >>> pairs = pd.DataFrame({"wasserstein_diff": [-0.3], "wasserstein_diff_se": [0.01],
    ...                       "draws": [10]}, idx)
    >>> even_more_so(pairs, ref).tolist()
    [True]
    """
    table_with("pairs", pairs, ["wasserstein_diff", "wasserstein_diff_se", "draws"])
    at = [(d, n) for _, d, n in pairs.index]
    ref = reference.reindex(at)
    gap = -pairs["wasserstein_diff"].to_numpy() + ref["wasserstein_diff"].to_numpy()
    se = np.hypot(
        _se(pairs["wasserstein_diff_se"]).to_numpy(), _se(ref["wasserstein_diff_se"]).to_numpy()
    )
    return clear(pd.Series(gap, index=pairs.index), se, pairs["draws"], "above", level)


@decided_by(LEVEL)
def bernhard_other_families(
    pairs: pd.DataFrame, reference: pd.DataFrame, *, check: str, level: float = LEVEL
) -> Finding:
    """Bernhard: the advantage of ``k_total`` over ``sqrt(d)`` in distortion holds "even more so"
    when the distribution family changes (``a`` = k_total, ``b`` = sqrt_d).

    As :func:`lower_distortion`, and "even more so" (:func:`even_more_so`, against the
    standard normal ``reference``) must hold in every configuration for a plain **holds**;
    where it does not, the verdict is at best **holds with a caveat** (the values name the
    families where it does not: ``not_more``, optional).
    """
    table_with("pairs", pairs, _DISTORTION)
    wins = _wins(pairs, level=level)
    more = even_more_so(pairs, reference, level)
    by_family = more.groupby(level="family", sort=False).all()
    not_more = [str(f) for f, ok in by_family.items() if not ok]
    verdict = _distortion_verdict(wins, _wins(pairs, side="above", level=level), not not_more)
    values = _describe(pairs, "k_total", "sqrt_d", wins)
    values["more"] = (int(more.sum()), len(more))
    values["not_more"] = _optional("families", not_more)
    return Finding("bernhard-other-families", verdict, check=check, values=values)


@decided_by(MARGIN, LEVEL)
def bernhard_section5_worse(
    alternatives: Mapping[str, pd.DataFrame],
    *,
    check: str,
    margin: float = MARGIN,
    level: float = LEVEL,
) -> Finding:
    """Bernhard's section 5: the mean key length, the root sum of squares and the p-norms of
    the key lengths "did not perform as well" as ``k_total``, read in his measure: they
    distort more.

    ``alternatives`` maps a label to the pairs ``a`` = k_total, ``b`` = the alternative.
    An alternative distorts more in a configuration if its W₁ is clearly above k_total's
    (Holm-corrected over every comparison together) and by more than ``margin`` times
    k_total's W₁ (near the uniform end both sit on the floor of the curve). With
    :func:`_distortion_verdict` over every comparison:
    **holds** if k_total's W₁ is clearly below every alternative's in every configuration;
    **holds with a caveat** if in at least half; **does not hold** if clearly above somewhere
    and below in fewer than half; **not testable here** otherwise. Each alternative divides
    by a norm of the key lengths no larger than their 1-norm, so it is a larger factor and
    lies further along the same curve: the measured text counts where it is also clearly more
    selective, the reason for its larger distortion.
    """
    if not alternatives:
        raise ParameterError("alternatives must name at least one alternative")
    for pairs in alternatives.values():
        table_with("pairs", pairs, [*_DISTORTION, "selectivity_diff", "selectivity_diff_se"])
    every = pd.concat(list(alternatives.values()), keys=list(alternatives))
    large = every["wasserstein_diff"].abs() > margin * every["wasserstein_a"]
    wins = _wins(every, level=level) & large
    selective = _wins(every, "selectivity", level=level)
    verdict = _distortion_verdict(wins, _wins(every, side="above", level=level) & large)
    parts = []
    for label, p in alternatives.items():
        parts.append(
            {
                "label": label,
                "won": int(wins[label].sum()),
                "configurations": len(p),
                "w_ratio": float((p["wasserstein_b"] / p["wasserstein_a"]).median()),
                "s_ratio": float((p["selectivity_b"] / p["selectivity_a"]).median()),
            }
        )
    values = {
        "alternatives": parts,
        "selective": (int(selective.sum()), len(selective)),
        **_draws(every),
    }
    return Finding("bernhard-section5-worse", verdict, check=check, values=values)


def _section5_divisors(n: int, p: float) -> dict[str, sp.Expr]:
    """k_total and the three alternatives of section 5, as sympy expressions of ``n`` key
    lengths (symbols ℓ₁ … ℓₙ, positive), with the p-norm's ``p``; the mean is kept as the
    sum divided by n (sympy would otherwise divide every term)."""
    lengths = sp.symbols(f"l1:{n + 1}", positive=True)
    return {
        "k_total": sp.Add(*lengths),
        "mean key length": sp.UnevaluatedExpr(sp.Add(*lengths)) / n,
        "√Σ‖k_i‖²": sp.sqrt(sp.Add(*[x**2 for x in lengths])),
        f"{p:g}-norm": sp.Add(*[x ** sp.nsimplify(p) for x in lengths]) ** (1 / sp.nsimplify(p)),
    }


def section5_complexity(n_values: tuple[int, int] = (4, 8), p: float = 3) -> Finding:
    """Bernhard's "These are more complicated" of the three alternatives of section 5 (the
    mean key length, the root sum of squares, the p-norm), against k_total = Σ‖k_i‖.

    Counted with sympy (``count_ops``) on the key lengths, at two numbers of keys
    ``n_values``: an alternative is more complicated if it takes more operations than
    k_total by an amount that grows with n (a constant extra, like one division, is the same
    computation). **Holds** if every alternative is; **holds with a caveat** if some are;
    **does not hold** if none is. ``p`` is the run's p-norm (its first, where it has several:
    the count does not depend on it).

    >>> section5_complexity().verdict.value, section5_complexity(p=1.5).verdict.value
    ('holds with a caveat', 'holds with a caveat')
    """
    counts = {
        n: {name: int(sp.count_ops(expr)) for name, expr in _section5_divisors(n, p).items()}
        for n in n_values
    }
    small, large = n_values
    extra = {
        name: (
            counts[small][name] - counts[small]["k_total"],
            counts[large][name] - counts[large]["k_total"],
        )
        for name in counts[small]
        if name != "k_total"
    }
    growing = [name for name, (a, b) in extra.items() if b > a]
    alike: dict[tuple[int, int], list[str]] = {}
    for name, counts in extra.items():
        alike.setdefault(counts, []).append(name)
    groups = [
        {"names": names, "at_small": a, "at_large": b, "small": small, "large": large}
        for (a, b), names in alike.items()
    ]
    same = [name for name in extra if name not in growing]
    if len(growing) == len(extra):
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.CAVEAT if growing else Verdict.FAILS
    values = {"groups": groups, "same": _optional("names", same), "small": small, "large": large}
    return Finding("bernhard-section5-more-complicated", verdict, values=values)


#: The calls of :func:`n_sqrt_d_calls`, in the order tables give them.
CALLS = ("worse", "same", "better", "unclear")


def n_sqrt_d_calls(pairs: pd.DataFrame, margin: float = MARGIN, level: float = LEVEL) -> pd.Series:
    """Per configuration, ``worse``, ``better``, ``same`` or ``unclear`` for ``a`` =
    n_sqrt_d against ``b`` = k_total: worse or better when the paired W₁ difference is clear
    (one-sided t tests, Holm-corrected over the configurations) and exceeds ``margin`` times
    k_total's W₁; the same when it is within that margin (near the uniform end both sit on
    the floor of the curve, where a paired test alone would call differences of 1e-4);
    unclear when it exceeds the margin but the draws cannot tell its sign.

    >>> pairs = pd.DataFrame({"wasserstein_diff": [0.05, -0.05, 0.001, 0.05],
    ...                       "wasserstein_diff_se": [0.001, 0.001, 0.0001, 0.1],
    ...                       "wasserstein_b": [0.1] * 4, "draws": [10] * 4})
    >>> n_sqrt_d_calls(pairs).tolist()
    ['worse', 'better', 'same', 'unclear']
    """
    table_with(
        "pairs", pairs, ["wasserstein_diff", "wasserstein_diff_se", "wasserstein_b", "draws"]
    )
    diff = pairs["wasserstein_diff"]
    large = diff.abs() > margin * pairs["wasserstein_b"]
    worse = _wins(pairs, side="above", level=level) & large
    better = _wins(pairs, side="below", level=level) & large
    calls = np.where(worse, "worse", np.where(better, "better", np.where(large, "unclear", "same")))
    return pd.Series(calls, index=pairs.index, name="call")


@decided_by(MARGIN, LEVEL)
def bernhard_n_sqrt_d_other(
    pairs: pd.DataFrame,
    normal: str,
    *,
    check: str,
    margin: float = MARGIN,
    level: float = LEVEL,
) -> Finding:
    """Bernhard: dividing by ``n sqrt(d)`` "does not behave as well" as ``k_total`` for
    distributions other than the standard normal (``a`` = n_sqrt_d, ``b`` = k_total).

    With :func:`n_sqrt_d_calls`: **holds** if n_sqrt_d is worse in every configuration of
    every family other than ``normal``; **holds with a caveat** if it is worse in some;
    **does not hold** if in none, every other call decided (same or better); **not testable
    here** if in none while some calls are unclear (too few draws).
    """
    table_with(
        "pairs",
        pairs,
        ["wasserstein_diff", "wasserstein_diff_se", "wasserstein_b", "factor_a", "factor_b"],
    )
    calls = n_sqrt_d_calls(pairs, margin, level)
    family = pairs.index.get_level_values("family")
    others = calls[family != normal]
    if others.empty:
        raise ParameterError(f"pairs must hold a family other than {normal!r}")
    if (others == "worse").all():
        verdict = Verdict.HOLDS
    elif (others == "worse").any():
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.UNTESTABLE if (others == "unclear").any() else Verdict.FAILS
    ratio = (pairs["factor_a"] / pairs["factor_b"]).groupby(family, sort=False).mean()
    families = [
        {"family": str(f), "ratio": float(ratio[f])} | {k: int((c == k).sum()) for k in CALLS}
        for f, c in calls.groupby(family, sort=False)
    ]
    values = {"families": families, **_draws(pairs)}
    return Finding("bernhard-n-sqrt-d-other", verdict, check=check, values=values)


def vaswani_table(
    summary: pd.DataFrame, steady: float = STEADY, falls_to: float = FALLS_TO
) -> pd.DataFrame:
    """Per ``n`` of a standard normal grid: the softmax's own gradient without scaling and
    with ``1/sqrt(d)`` between the smallest and the largest ``d``, with standard errors.

    ``summary`` holds the rows of ``none`` and ``sqrt_d`` with the columns ``rescaling, d,
    n, jacobian_norm, saturated_share`` and their ``_se``, and ``draws``. Columns of the
    result: the ratio of the unscaled mean Jacobian norm at the last ``d`` to the first and
    whether it falls clearly (:func:`clearly_above` on the difference) or clearly stays above
    ``falls_to`` of its start, the unscaled saturated
    share at the first and last ``d`` and whether it rises clearly, and under ``1/sqrt(d)``
    the largest over smallest Jacobian norm across ``d`` and whether it clearly stays within
    a factor ``steady`` or clearly moves beyond it.
    """
    columns = ["rescaling", "d", "n", "jacobian_norm", "jacobian_norm_se"]
    table_with("summary", summary, [*columns, "saturated_share", "saturated_share_se", "draws"])
    rows = []
    for n, part in summary.groupby("n"):
        none = part[part["rescaling"] == "none"].sort_values("d")
        root = part[part["rescaling"] == "sqrt_d"].sort_values("d")
        if len(none) < 2 or len(root) < 2:
            raise ParameterError("summary must hold none and sqrt_d at two d or more for each n")
        first, last = none.iloc[0], none.iloc[-1]
        j_se = math.hypot(first["jacobian_norm_se"], last["jacobian_norm_se"])
        s_se = math.hypot(first["saturated_share_se"], last["saturated_share_se"])
        draws = int(part["draws"].min())
        j_drop = first["jacobian_norm"] - last["jacobian_norm"]
        s_rise = last["saturated_share"] - first["saturated_share"]
        low, high = (
            root.loc[root["jacobian_norm"].idxmin()],
            root.loc[root["jacobian_norm"].idxmax()],
        )
        spread_se = math.hypot(low["jacobian_norm_se"], high["jacobian_norm_se"])
        root_side = clear_side(
            high["jacobian_norm"] - steady * low["jacobian_norm"], spread_se, draws, CLEAR
        )
        rows.append(
            {
                "n": n,
                "none_j_ratio": last["jacobian_norm"] / first["jacobian_norm"],
                "none_j_falls": _beyond(j_drop, j_se, draws),
                "none_j_stays": _beyond(
                    last["jacobian_norm"] - falls_to * first["jacobian_norm"],
                    math.hypot(last["jacobian_norm_se"], falls_to * first["jacobian_norm_se"]),
                    draws,
                ),
                "none_saturated_first": first["saturated_share"],
                "none_saturated_last": last["saturated_share"],
                "none_saturation_rises": _beyond(s_rise, s_se, draws),
                "sqrt_d_j_spread": high["jacobian_norm"] / low["jacobian_norm"],
                "sqrt_d_j_stable": root_side == "below",
                "sqrt_d_j_moves": root_side == "above",
                "sqrt_d_saturated_max": float(root["saturated_share"].max()),
            }
        )
    return pd.DataFrame(rows).set_index("n")


@decided_by(FALLS_TO, STEADY, CLEAR)
def vaswani_small_gradients(
    summary: pd.DataFrame,
    *,
    threshold: float,
    check: str,
    falls_to: float = FALLS_TO,
    steady: float = STEADY,
) -> Finding:
    """Vaswani et al. (hedged "We suspect"): for large ``d_k`` the dot products push the
    softmax into regions of extremely small gradients; ``1/sqrt(d_k)`` counteracts it.

    Read as a claim about the softmax's own gradient, its Jacobian ``ds/dz``, and its
    saturation (:func:`vaswani_table`), for every ``n``: **holds** if without scaling the
    mean Jacobian norm clearly falls to below ``falls_to`` of its value between the smallest
    and largest ``d``, the share of saturated rows clearly rises, and under ``1/sqrt(d)`` the
    Jacobian norm clearly stays within a factor ``steady``; **holds with a caveat** if
    ``1/sqrt(d)`` clearly keeps it stable and the unscaled Jacobian clearly falls or
    saturation clearly rises, but not all of the first reading, or if the unscaled softmax
    saturates as said but ``1/sqrt(d)`` does not clearly hold it steady; **does not hold**
    if, beyond that, the draws show something against the claim (``1/sqrt(d)`` clearly not
    steady, or at some ``n`` the unscaled Jacobian clearly above ``falls_to`` of its start
    while saturation does not clearly rise); **not testable here** if they show neither
    (too few draws to tell).
    """
    table = vaswani_table(summary, steady, falls_to)
    falls = table["none_j_falls"]
    halves = falls & (table["none_j_ratio"] < falls_to)
    rises = table["none_saturation_rises"]
    stable = table["sqrt_d_j_stable"]
    if halves.all() and rises.all() and stable.all():
        verdict = Verdict.HOLDS
    elif (stable.all() and (falls.all() or rises.all())) or (halves.all() and rises.all()):
        verdict = Verdict.CAVEAT
    elif table["sqrt_d_j_moves"].any() or (table["none_j_stays"] & ~rises).any():
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    d = sorted(summary["d"].unique())
    values = {
        "d": (int(d[0]), int(d[-1])),
        "ns": len(table),
        "ratio": _range(table["none_j_ratio"]),
        "falls": int(falls.sum()),
        "threshold": threshold,
        "sat_first": _range(table["none_saturated_first"]),
        "sat_last": _range(table["none_saturated_last"]),
        "rises": int(rises.sum()),
        "spread": float(table["sqrt_d_j_spread"].max()),
        "stable": int(stable.sum()),
    }
    return Finding("vaswani-small-gradients", verdict, check=check, values=values)


_VANISHING = ["saturated_share_diff", "saturated_share_diff_se", "wasserstein_diff"]
_VANISHING += ["wasserstein_diff_se", "effective_share_a", "gradient_norm_a", "gradient_norm_b"]
_VANISHING += ["draws"]


def vanishing_caveats(pairs: pd.DataFrame, price: float = PRICE) -> list[str]:
    """What qualifies 1/k_total's lower saturation (``a`` = k_total, ``b`` = sqrt_d), as keys a
    page words (the numbers are the verdict's): ``more saturated`` elsewhere, a W₁ not clearly
    lower everywhere (``higher W₁``; Holm-corrected counts), a median gradient ``||ds/dq||``
    below ``price`` times that of sqrt_d (``price``; ``price 1/n`` where it is "about 1/n" of
    it: the ratio times n has a median within a factor 3 of 1).

    >>> index = pd.MultiIndex.from_tuples([("N", 16, 8), ("N", 16, 64)], names=["f", "d", "n"])
    >>> pairs = pd.DataFrame({"saturated_share_diff": [-0.1, -0.3],
    ...     "saturated_share_diff_se": [0.01, 0.01], "wasserstein_diff": [-0.2, -0.2],
    ...     "wasserstein_diff_se": [0.01, 0.01], "effective_share_a": [0.99, 0.6],
    ...     "gradient_norm_a": [0.1, 0.01], "gradient_norm_b": [1.0, 1.0], "draws": [10, 10]},
    ...     index=index)
    >>> vanishing_caveats(pairs)
    ['price 1/n']
    """
    table_with("pairs", pairs, _VANISHING)
    more = _wins(pairs, "saturated_share", "above")
    lower_w = _wins(pairs)
    ratio = pairs["gradient_norm_a"] / pairs["gradient_norm_b"]
    caveats = ["more saturated"] if more.any() else []
    if not lower_w.all():
        caveats.append("higher W₁")
    if float(ratio.median()) < price:
        caveats.append("price 1/n" if _about_one_over_n(pairs) else "price")
    return caveats


def _ratio_times_n(pairs: pd.DataFrame) -> float:
    """The median over ``pairs`` of the gradient ratio of k_total to sqrt_d times n."""
    ratio = pairs["gradient_norm_a"] / pairs["gradient_norm_b"]
    n = pairs.index.get_level_values("n").to_numpy(dtype=float)
    return float(np.median(ratio.to_numpy() * n))


def _about_one_over_n(pairs: pd.DataFrame) -> bool:
    """The gradient ratio of k_total to sqrt_d times n has a median within a factor 3 of 1."""
    return 1 / 3 <= _ratio_times_n(pairs) <= 3


@decided_by(PRICE, LEVEL)
def bernhard_vanishing_gradients(
    pairs: pd.DataFrame,
    *,
    threshold: float,
    check: str,
    price: float = PRICE,
    level: float = LEVEL,
) -> Finding:
    """Bernhard (sections 5 and 6): dividing by ``k_total`` decreases the distortion and
    "helps avoid vanishing gradients", which arise "when individual components resulting from
    applying softmax approach 0 or 1" (``a`` = k_total, ``b`` = sqrt_d).

    Read in his definition: the share of saturated rows (largest probability above
    ``threshold``), paired over the same draws, Holm-corrected over the configurations.
    **Does not hold** if k_total saturates clearly more than sqrt_d somewhere and clearly less
    nowhere; **not testable here** if clearly less nowhere and clearly more nowhere (nothing
    to avoid, or draws too few to tell); **holds with a caveat** if k_total saturates clearly
    less somewhere but with a caveat of :func:`vanishing_caveats` (more elsewhere, a W₁ not
    clearly lower everywhere, a median gradient reaching the query below ``price`` times
    sqrt_d's); **holds** otherwise. Nearly uniform attention is reported: it is not a
    vanishing gradient.
    """
    table_with("pairs", pairs, [*_VANISHING, "saturated_share_a", "saturated_share_b"])
    less = _wins(pairs, "saturated_share", "below", level)
    more = _wins(pairs, "saturated_share", "above", level)
    uniform = pairs["effective_share_a"] > UNIFORM_SHARE
    ratio = pairs["gradient_norm_a"] / pairs["gradient_norm_b"]
    lower_w = _wins(pairs, level=level)
    if less.any():
        verdict = Verdict.CAVEAT if vanishing_caveats(pairs, price) else Verdict.HOLDS
    else:
        verdict = Verdict.FAILS if more.any() else Verdict.UNTESTABLE
    values = {
        "threshold": threshold,
        "sat_a": _range(pairs["saturated_share_a"]),
        "sat_b": _range(pairs["saturated_share_b"]),
        "less": (int(less.sum()), len(pairs)),
        "more": int(more.sum()),
        "lower_w": int(lower_w.sum()),
        "ratio": _range(ratio),
        "median": float(ratio.median()),
        "times_n": _ratio_times_n(pairs),
        "share_min": float(pairs["effective_share_a"].min()),
        "uniform": int(uniform.sum()),
        **_draws(pairs),
    }
    return Finding("bernhard-vanishing-gradients", verdict, check=check, values=values)


def curve_reading(largest_off_curve: float, tolerance: float = 0.02) -> Reading:
    """How far the factor rescalings lie from the curve of constant factors: branch ``on``
    (within ``tolerance``, what averaging over draws leaves), ``off`` (beyond it) or
    ``unmeasured`` (some rescaling outside the curve's range: a NaN distance); values ``off``,
    the largest distance, and ``tolerance``.

    >>> curve_reading(0.004).branch, curve_reading(0.3).branch
    ('on', 'off')
    >>> curve_reading(float("nan")).branch
    'unmeasured'
    """
    if math.isnan(largest_off_curve):
        branch = "unmeasured"
    else:
        branch = "on" if largest_off_curve <= tolerance else "off"
    return Reading(branch, {"off": largest_off_curve, "tolerance": tolerance})


#: The distortion claims, each with the key of where it compares (a page words it).
_PLACES = {
    "bernhard-other-moments": "moments",
    "bernhard-other-families": "families",
    "bernhard-d-n-range": "grid",
}

#: The topics of :func:`summary_readings` that one claim's verdict decides.
_TOPICS = {
    "section5": "bernhard-section5-worse",
    "n_sqrt_d": "bernhard-n-sqrt-d-other",
    "vanishing": "bernhard-vanishing-gradients",
}


def _distortion_reading(findings: Mapping[str, Finding]) -> Reading:
    """What the three distortion claims say together: branch ``holds``, ``fails`` or
    ``untestable`` where all agree, ``fails`` where one fails, ``where-told`` where one is
    undecided and none fails, ``caveat`` otherwise; value ``verdicts``, a record per verdict
    reached (in the order of :class:`Verdict`): its ``verdict`` and the ``places`` of
    :data:`_PLACES` that reached it, as word keys."""
    verdicts = {findings[c].verdict for c in _PLACES}
    if len(verdicts) == 1 and Verdict.CAVEAT not in verdicts:
        topic = next(iter(verdicts)).key
    elif Verdict.FAILS in verdicts:
        topic = "fails"
    elif Verdict.UNTESTABLE in verdicts:
        topic = "where-told"
    else:
        topic = "caveat"
    records = [
        {
            "verdict": [verdict.key],
            "places": [p for c, p in _PLACES.items() if findings[c].verdict is verdict],
        }
        for verdict in Verdict
        if verdict in verdicts
    ]
    return Reading(topic, {"verdicts": records})


def _uniform_reading(pairs: pd.DataFrame) -> Reading:
    """How often 1/k_total's attention is nearly uniform over ``pairs``: branch ``every`` or
    ``most`` (at least half), ``few`` (fewer than half), ``none``; values ``uniform`` and
    ``configurations``."""
    uniform = int((pairs["effective_share_a"] > UNIFORM_SHARE).sum())
    if 2 * uniform >= len(pairs):
        branch = "every" if uniform == len(pairs) else "most"
    else:
        branch = "few" if uniform else "none"
    return Reading(branch, {"uniform": uniform, "configurations": len(pairs)})


def summary_readings(findings: Mapping[str, Finding], pairs: pd.DataFrame) -> dict[str, Reading]:
    """The results of *1/k_total against the alternatives*, one reading per topic, chosen by
    the verdicts: ``distortion`` (:func:`_distortion_reading`), ``uniform`` (how often
    1/k_total's attention is nearly uniform over ``pairs``, 1/k_total (``a``) against 1/√d
    (``b``) in every configuration compared), and ``section5``, ``n_sqrt_d`` and
    ``vanishing``, each its claim's verdict key as branch (value ``verdict``, its words);
    ``vanishing`` has the ``caveats`` of :func:`vanishing_caveats` over ``pairs`` too (branch
    ``caveat-unnamed`` for a caveat with none of them).

    >>> f = {c: Finding(c, Verdict.CAVEAT) for c in ["bernhard-other-moments",
    ...      "bernhard-other-families", "bernhard-d-n-range", "bernhard-section5-worse",
    ...      "bernhard-n-sqrt-d-other", "bernhard-vanishing-gradients"]}
    >>> index = pd.MultiIndex.from_tuples([("N", 16, 8)], names=["f", "d", "n"])
    >>> pairs = pd.DataFrame({"saturated_share_diff": [-0.1], "saturated_share_diff_se": [0.01],
    ...     "wasserstein_diff": [-0.2], "wasserstein_diff_se": [0.01], "effective_share_a": [0.99],
    ...     "gradient_norm_a": [0.1], "gradient_norm_b": [1.0], "draws": [10]}, index=index)
    >>> {topic: r.branch for topic, r in summary_readings(f, pairs).items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'distortion': 'caveat', 'uniform': 'every', 'section5': 'caveat', 'n_sqrt_d': 'caveat',
     'vanishing': 'caveat'}
    """
    readings = {"distortion": _distortion_reading(findings), "uniform": _uniform_reading(pairs)}
    for topic, claim in _TOPICS.items():
        verdict = findings[claim].verdict
        readings[topic] = Reading(verdict.key, {"verdict": verdict.value})
    caveats = vanishing_caveats(pairs)
    vanishing = readings["vanishing"]
    branch = "caveat-unnamed" if vanishing.branch == "caveat" and not caveats else vanishing.branch
    readings["vanishing"] = Reading(branch, {**vanishing.values, "caveats": caveats})
    return readings


def section5_table(alternatives: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per alternative of section 5 (pairs ``a`` = k_total, ``b`` = the alternative): the
    counts and median ratios that :func:`bernhard_section5_worse` reads (its tests,
    Holm-corrected over every comparison of every alternative together)."""
    every = pd.concat(list(alternatives.values()), keys=list(alternatives))
    large = every["wasserstein_diff"].abs() > MARGIN * every["wasserstein_a"]
    wins, selective = _wins(every) & large, _wins(every, "selectivity")
    return pd.DataFrame(
        {
            label: {
                "w1_clearly_above_k_total": int(wins[label].sum()),
                "clearly_more_selective": int(selective[label].sum()),
                "configurations": len(p),
                "median_w1_ratio_to_k_total": float(
                    (p["wasserstein_b"] / p["wasserstein_a"]).median()
                ),
                "median_selectivity_ratio": float(
                    (p["selectivity_b"] / p["selectivity_a"]).median()
                ),
            }
            for label, p in alternatives.items()
        }
    ).T


def n_sqrt_d_by_family(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per family: the counts of :func:`n_sqrt_d_calls` and the mean factor ratio
    ``c(n sqrt d) / c(k_total)`` (pairs ``a`` = n_sqrt_d, ``b`` = k_total)."""
    calls = n_sqrt_d_calls(pairs)
    family = pairs.index.get_level_values("family")
    table = calls.groupby(family, sort=False).value_counts().unstack(fill_value=0)
    table = table.reindex(columns=list(CALLS), fill_value=0)
    table["c(n√d) / c(k_total)"] = (
        (pairs["factor_a"] / pairs["factor_b"]).groupby(family, sort=False).mean()
    )
    return table


def n_sqrt_d_reading(pairs: pd.DataFrame, normal: str) -> Reading:
    """Which families other than ``normal`` 1/(n√d) distorts more than 1/k_total for, and in
    how many settings at each n (the table of :func:`n_sqrt_d_by_family` gives the counts).
    Value ``groups``: a record per non-empty group, its ``how`` (a word key: ``every``,
    ``some`` or ``no`` setting) and its ``families``; branch ``by-n`` where it is worse in
    some settings but not all, with ``by_n`` (a record per n: the ``worse`` settings of all,
    a pair, and ``n``), ``whole`` otherwise, ``none`` where no other family was compared."""
    table = n_sqrt_d_by_family(pairs)
    others = table.drop(index=normal, errors="ignore")
    worse = others["worse"]
    every = worse == others[list(CALLS)].sum(axis=1)
    groups = [
        {"how": [how], "families": [str(f) for f in names]}
        for how, names in [
            ("every", others.index[every]),
            ("some", others.index[~every & (worse > 0)]),
            ("no", others.index[worse == 0]),
        ]
        if len(names)
    ]
    if not groups:
        return Reading("none", {})
    if worse.sum() in (0, others[list(CALLS)].to_numpy().sum()):
        return Reading("whole", {"groups": groups})
    pairs = pairs[pairs.index.get_level_values("family") != normal]
    is_worse = (n_sqrt_d_calls(pairs) == "worse").groupby(pairs.index.get_level_values("n"))
    by_n = [
        {"worse": (int(k), int(m)), "n": int(n)}
        for n, k, m in zip(is_worse.sum().index, is_worse.sum(), is_worse.size(), strict=True)
    ]
    return Reading("by-n", {"groups": groups, "by_n": by_n})


def lowest_reading(
    w_matrix: pd.DataFrame, s_matrix: pd.DataFrame, labels: Mapping[str, str]
) -> Reading:
    """How often k_total has the lowest distortion (``w_lowest``) and the lowest selectivity
    (``s_lowest``) of all rescalings (rows) across the families (columns), each a pair of
    families; branch ``others`` with the ``others`` lowest elsewhere (their labels), ``alone``
    where no other is.

    >>> w = pd.DataFrame({"f": [0.1, 0.5], "g": [0.3, 0.2]}, index=["k_total", "sqrt_d"])
    >>> lowest_reading(w, w, {"k_total": "1/k_total", "sqrt_d": "1/√d"})
    Reading(branch='others', values={'w_lowest': (1, 2), 's_lowest': (1, 2), 'others': ['1/√d']})
    """
    w_low, s_low = w_matrix.idxmin(axis=0), s_matrix.idxmin(axis=0)
    others = sorted({labels[r] for r in pd.concat([w_low, s_low]) if r != "k_total"})
    families = w_matrix.shape[1]
    values = {
        "w_lowest": (int((w_low == "k_total").sum()), families),
        "s_lowest": (int((s_low == "k_total").sum()), families),
    }
    return Reading("others", {**values, "others": others}) if others else Reading("alone", values)


def heavy_tails_reading(heavy: pd.Series, normal: pd.Series, df: float) -> Reading:
    """Whether 1/k_total distorts more with Student t components of ``df`` degrees of freedom
    (W₁ per draw, ``heavy``) than with standard normal ones (``normal``): a single
    difference of the means over the draws, clear by
    :func:`~attncore.evidence.statistics.clear_side`. Branch ``costs`` (clearly more),
    ``lowers`` (clearly less) or ``unclear``; values ``df``, ``heavy`` (the mean), ``heavy_range``
    (the draws' smallest and largest), ``normal`` (the mean) and ``draws``.

    >>> heavy_tails_reading(pd.Series([0.08, 0.084]), pd.Series([0.04, 0.041]), 5).branch
    'costs'
    """
    heavy, normal = heavy.dropna(), normal.dropna()
    if heavy.empty or normal.empty:
        raise ParameterError("heavy and normal must hold at least one W₁ each")
    se = math.hypot(heavy.sem(ddof=1), normal.sem(ddof=1))
    draws = min(len(heavy), len(normal))
    side = clear_side(heavy.mean() - normal.mean(), se, draws, CLEAR)
    values = {
        "df": float(df),
        "heavy": float(heavy.mean()),
        "heavy_range": _range(heavy),
        "normal": float(normal.mean()),
        "draws": draws,
    }
    return Reading({"above": "costs", "below": "lowers", None: "unclear"}[side], values)


# ---- the claims added from the claim-by-claim review --------------------------------------


def _spread(part: pd.DataFrame, metric: str, ratio: float | None, flat: float = FLAT) -> str:
    """Whether ``metric`` moves across the rows of ``part`` beyond a ``ratio`` (or, with
    none, by more than ``flat``): ``beyond`` or ``within`` where the draws show it clearly,
    ``unclear`` where they cannot tell."""
    hi, lo = part.loc[part[metric].idxmax()], part.loc[part[metric].idxmin()]
    draws = int(part["draws"].min())
    if ratio is None:
        excess = hi[metric] - lo[metric] - flat
        se = math.hypot(hi[f"{metric}_se"], lo[f"{metric}_se"])
    else:
        excess = hi[metric] - ratio * lo[metric]
        se = math.hypot(hi[f"{metric}_se"], ratio * lo[f"{metric}_se"])
    side = clear_side(excess, se, draws, CLEAR)
    return {"above": "beyond", "below": "within", None: "unclear"}[side]


def _calls(calls: Mapping[int, str]) -> dict[str, Any]:
    """Where :func:`_spreads` found a quantity clearly within its bound across d (``within``
    of ``ns`` values of n), clearly beyond it (``beyond``) or could not tell (``unclear``),
    the last two optional clauses naming the n."""
    at = {c: [n for n, call in calls.items() if call == c] for c in ("within", "beyond", "unclear")}
    return {
        "within": len(at["within"]),
        "ns": len(calls),
        "beyond": _optional("ns", [int(n) for n in at["beyond"]]),
        "unclear": _optional("ns", [int(n) for n in at["unclear"]]),
    }


def _spreads(
    summary: pd.DataFrame, by: str, checks: list[tuple[str, float | None]], flat: float = FLAT
) -> dict:
    """:func:`_spread` of every ``(metric, ratio)`` in ``checks`` per value of ``by``: the
    worst call per value (``beyond`` over ``unclear`` over ``within``)."""
    order = ["within", "unclear", "beyond"]
    return {
        value: max((_spread(part, m, ratio, flat) for m, ratio in checks), key=order.index)
        for value, part in summary.groupby(by)
    }


@decided_by(STEADY, FLAT, CLEAR)
def blog_stable_region(
    summary: pd.DataFrame,
    families: pd.DataFrame | None = None,
    *,
    normal: str,
    check: str,
    steady: float = STEADY,
    flat: float = FLAT,
) -> Finding:
    """The blog: with ``1/sqrt(d_k)`` "the softmax stays in a stable, responsive region".

    ``summary`` holds the ``sqrt_d`` rows of a standard normal grid (columns ``d, n,
    jacobian_norm, normalized_entropy, saturated_share`` with ``_se``); ``families`` the
    ``sqrt_d`` rows of other families at one ``(d, n)`` (index ``family``), with ``normal``
    among them. **Does not hold** if at some ``n`` the Jacobian norm moves clearly beyond
    a factor ``steady`` across ``d``, or entropy / ln n or the saturated share clearly by more
    than ``flat``; **not testable here** if not, but the draws cannot show all of them
    clearly within those bounds at every ``n``; **holds with a caveat** if steady across
    ``d`` but entropy / ln n or the saturated share move clearly with ``n``, or another
    family's entropy / ln n differs clearly by more than ``flat`` from the standard normal's;
    **holds** otherwise.
    """
    need = ["d", "n", "jacobian_norm", "normalized_entropy", "saturated_share"]
    table_with("summary", summary, [*need, *[f"{m}_se" for m in need[2:]], "draws"])
    flats: list[tuple[str, float | None]] = [
        ("normalized_entropy", None),
        ("saturated_share", None),
    ]
    across_d = _spreads(summary, "n", [("jacobian_norm", steady), *flats], flat)
    moving_d = [n for n, call in across_d.items() if call == "beyond"]
    unclear_d = [n for n, call in across_d.items() if call == "unclear"]
    across_n = _spreads(summary, "d", flats, flat)
    moving_n = [d for d, call in across_n.items() if call == "beyond"]
    leaving: list[str] = []
    if families is not None:
        ref = families.loc[normal]
        for family, row in families.drop(index=normal).iterrows():
            gap = abs(row["normalized_entropy"] - ref["normalized_entropy"]) - flat
            se = math.hypot(row["normalized_entropy_se"], ref["normalized_entropy_se"])
            if _beyond(gap, se, int(min(row["draws"], ref["draws"]))):
                leaving.append(str(family))
    if moving_d:
        verdict = Verdict.FAILS
    elif unclear_d:
        verdict = Verdict.UNTESTABLE
    else:
        verdict = Verdict.CAVEAT if (moving_n or leaving) else Verdict.HOLDS
    values = {
        **_calls(across_d),
        "entropy": _range(summary["normalized_entropy"]),
        "saturation": _range(summary["saturated_share"]),
        "moving_n": len(moving_n),
        "ds": int(summary["d"].nunique()),
        "leaving": _optional("families", leaving),
    }
    return Finding("blog-stable-responsive-region", verdict, check=check, values=values)


@decided_by(SAME_ORDER, CLEAR)
def blog_gradient_flow(
    summary: pd.DataFrame, *, check: str, same_order: float = SAME_ORDER
) -> Finding:
    """The blog: with ``1/sqrt(d_k)`` "the gradient flow is preserved", read as the gradient
    reaching the query, ``||ds/dq|| = ||c J K||``.

    ``summary`` holds the ``none`` and ``sqrt_d`` rows of a standard normal grid (``d, n,
    gradient_norm, gradient_median`` with ``_se``). **Does not hold** if at some ``n`` the
    mean or median gradient under ``1/sqrt(d)`` moves clearly beyond a factor ``same_order``
    across ``d``; **not testable here** if not, but the draws cannot show it clearly within
    that factor at every ``n``; **holds with a caveat** if it stays of the same order but the
    unscaled median does not clearly fall from the smallest to the largest ``d`` at every
    ``n`` (nothing to preserve it from), or the ``1/sqrt(d)`` gradient moves clearly beyond
    ``same_order`` across ``n``; **holds** otherwise.
    """
    need = ["rescaling", "d", "n", "gradient_norm", "gradient_median"]
    table_with("summary", summary, [*need, "gradient_norm_se", "gradient_median_se", "draws"])
    root = summary[summary["rescaling"] == "sqrt_d"]
    none = summary[summary["rescaling"] == "none"]
    if root.empty or none.empty:
        raise ParameterError("summary must hold the rows of none and sqrt_d")
    checks: list[tuple[str, float | None]] = [
        ("gradient_norm", same_order),
        ("gradient_median", same_order),
    ]
    across_d = _spreads(root, "n", checks)
    moving_d = [n for n, call in across_d.items() if call == "beyond"]
    unclear_d = [n for n, call in across_d.items() if call == "unclear"]
    moving_n = [d for d, call in _spreads(root, "d", checks).items() if call == "beyond"]
    falls = []
    for _, part in none.groupby("n"):
        part = part.sort_values("d")
        first, last = part.iloc[0], part.iloc[-1]
        se = math.hypot(first["gradient_median_se"], last["gradient_median_se"])
        draws = int(min(first["draws"], last["draws"]))
        falls.append(_beyond(first["gradient_median"] - last["gradient_median"], se, draws))
    if moving_d:
        verdict = Verdict.FAILS
    elif unclear_d:
        verdict = Verdict.UNTESTABLE
    else:
        verdict = Verdict.CAVEAT if (moving_n or not all(falls)) else Verdict.HOLDS
    ratio_d = root.groupby("n")["gradient_median"].agg(lambda g: g.max() / g.min())
    values = {
        "ratio": _range(ratio_d),
        **_calls(across_d),
        "falls": sum(falls),
        "fall_ns": len(falls),
        "moving_n": len(moving_n),
        "ds": int(root["d"].nunique()),
        "mean": _range(root["gradient_norm"]),
    }
    return Finding("blog-gradient-flow-preserved", verdict, check=check, values=values)


@decided_by(LEVEL)
def bernhard_sqrt_d_alleviates(pairs: pd.DataFrame, *, check: str, level: float = LEVEL) -> Finding:
    """Bernhard: dividing by ``sqrt(d)`` "helps alleviate the vanishing gradient issue",
    in his section 6 sense (components near 0 or 1); ``a`` = sqrt_d, ``b`` = none.

    ``pairs`` has ``extreme_share`` and ``jacobian_norm`` pairs (and ``draws``); the tests
    are Holm-corrected over the configurations. In Bernhard's sense, sqrt_d alleviates in a
    configuration if it has clearly fewer components near 0 or 1; the Jacobian norm (the size
    of the gradient itself) is the check of that reading. **Holds** if sqrt_d has clearly
    fewer such components and a clearly larger Jacobian norm in every configuration; **holds
    with a caveat** if it has clearly fewer such components in at least half (the caveat:
    where the Jacobian norm is not larger, fewer saturated components did not mean a larger
    gradient); **does not hold** if it has clearly more somewhere and fewer in less than
    half; **not testable here** if fewer in less than half and more nowhere (the draws
    cannot tell).
    """
    cols = ["extreme_share", "jacobian_norm"]
    table_with(
        "pairs",
        pairs,
        [*[f"{m}_{s}" for m in cols for s in ("a", "b", "diff", "diff_se")], "draws"],
    )
    fewer = _wins(pairs, "extreme_share", "below", level)
    more = _wins(pairs, "extreme_share", "above", level)
    larger = _wins(pairs, "jacobian_norm", "above", level)
    both = fewer & larger
    if both.all():
        verdict = Verdict.HOLDS
    elif fewer.mean() >= 0.5:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS if more.any() else Verdict.UNTESTABLE
    values = {
        "fewer": int(fewer.sum()),
        "more": int(more.sum()),
        "larger": int(larger.sum()),
        "configurations": len(pairs),
        "both": int(both.sum()),
        "extreme_a": _range(pairs["extreme_share_a"]),
        "extreme_b": _range(pairs["extreme_share_b"]),
        "jacobian_a": _range(pairs["jacobian_norm_a"]),
        "jacobian_b": _range(pairs["jacobian_norm_b"]),
        **_draws(pairs),
    }
    return Finding("bernhard-sqrt-d-alleviates-vanishing", verdict, check=check, values=values)


@decided_by(MODERATE, CLEAR)
def bernhard_small_logits(
    scales: pd.DataFrame, *, check: str, moderate: float = MODERATE
) -> Finding:
    """Bernhard (section 3): under ``1/k_total``, "as long as the lengths of the queries don't
    get too large", the components "won't be distorted too much".

    ``scales`` is :func:`attncore.simulate.study.query_scale_table` (index: the factor ``a``
    on every query; paired ``rise`` against the smallest, ``above_sqrt_d`` against
    ``1/sqrt(d)``, ``step`` against the previous, each with ``_se``). "Too large" is not
    defined, so the rule reports the scales between which W₁ reaches 1/sqrt(d)'s. **Does
    not hold** if the unscaled queries already distort clearly more than 1/sqrt(d), or W₁
    reaches 1/sqrt(d)'s without rising clearly from the smallest scale to the largest (the
    query length does not control the distortion); **holds with a caveat** if it rises but
    not monotonically (a step clearly down), or reaches 1/sqrt(d)'s level at queries at most
    ``moderate`` times longer; **not testable here** if it neither rises nor reaches it (the
    scales measured stay too small to tell) or the grid brackets the crossing around
    ``moderate``; **holds** otherwise.
    """
    need = ["wasserstein", "rise", "rise_se", "above_sqrt_d", "above_sqrt_d_se", "step", "step_se"]
    table_with("scales", scales, [*need, "draws"])
    s = scales.sort_index()
    draws = s["draws"]
    rises = bool(clearly_above(s["rise"], s["rise_se"], draws).iloc[-1])
    first_above = bool(clearly_above(s["above_sqrt_d"], s["above_sqrt_d_se"], draws).iloc[0])
    reached = ~clearly_below(s["above_sqrt_d"], s["above_sqrt_d_se"], draws)
    at = int(np.argmax(reached.to_numpy())) if reached.any() else -1
    crossing = float(s.index[at]) if reached.any() else math.nan
    before = float(s.index[at - 1]) if at > 0 else math.nan
    down = clearly_below(s["step"], s["step_se"], draws)
    if first_above or (not rises and reached.any()):
        verdict = Verdict.FAILS
    elif not rises:
        verdict = Verdict.UNTESTABLE
    elif down.any() or crossing <= moderate:
        verdict = Verdict.CAVEAT
    elif before < moderate:
        verdict = Verdict.UNTESTABLE
    else:
        verdict = Verdict.HOLDS
    values: dict[str, Any] = {
        "scales": (float(s.index.min()), float(s.index.max())),
        "w": (float(s["wasserstein"].iloc[0]), float(s["wasserstein"].iloc[-1])),
        "rises": rises,
        "down": int(down.sum()),
    }
    if not reached.any():
        branch = "too-small" if verdict is Verdict.UNTESTABLE else "never"
    elif at == 0:
        branch = "at-once"
    else:
        branch = "coarse" if verdict is Verdict.UNTESTABLE else "between"
        values |= {"before": before, "crossing": crossing}
    claim = "bernhard-small-logits-little-distortion"
    return Finding(claim, verdict, check=check, values=values, branch=branch)


@decided_by(ROUNDING)
def bernhard_prescaled_same(gap: float, *, check: str, tolerance: float = ROUNDING) -> Finding:
    """Bernhard: viewing ``1/sqrt(d)`` as a prescaled softmax ``softmax(x / sqrt(d))`` of the
    raw dot products changes nothing for the Attention function. **Holds** if the largest
    difference ``gap`` of the two computations is within ``tolerance``, **does not hold**
    otherwise.

    >>> bernhard_prescaled_same(1e-16, check="toy").verdict.value
    'holds'
    """
    if not math.isfinite(gap) or gap < 0:
        raise ParameterError(f"gap must be a finite number >= 0, got {gap!r}")
    verdict = Verdict.HOLDS if gap <= tolerance else Verdict.FAILS
    return Finding("bernhard-prescaled-softmax-same", verdict, check=check, values={"gap": gap})


@decided_by(CLEAR)
def bernhard_distortion_signals(steps: pd.DataFrame, *, check: str) -> Finding:
    """Bernhard (section 6): vanishing gradients (components near 0 or 1) "can be seen in
    the distortion" of the shapes.

    ``steps`` are consecutive constant factors of the curve, in increasing order
    (:func:`attncore.simulate.study.curve_steps` with ``wasserstein``, ``extreme_share``
    and ``jacobian_norm``). On each step where W₁ moves clearly, the share near 0 or 1 must
    not move clearly the other way and the Jacobian norm not clearly the same way.
    **Holds** if no step breaks this; **holds with a caveat** if only the Jacobian breaks
    it, and only up to its peak (near the uniform end, where W₁ is least while the Jacobian
    is still below its peak); **does not hold** otherwise; **not testable here** if W₁
    moves clearly on no step (too few draws, or too close factors, to test anything).
    """
    metrics = ["wasserstein", "extreme_share", "jacobian_norm"]
    parts = ("from", "to", "diff", "diff_se")
    table_with("steps", steps, [*(f"{m}_{s}" for m in metrics for s in parts), "draws"])
    w_up, w_down, e_up, e_down, j_up, j_down = (
        side(steps[f"{m}_diff"], steps[f"{m}_diff_se"], steps["draws"])
        for m in metrics
        for side in (clearly_above, clearly_below)
    )
    e_bad = (w_up & e_down) | (w_down & e_up)
    j_bad = (w_up & j_up) | (w_down & j_down)
    levels = pd.concat([steps["jacobian_norm_from"], steps["jacobian_norm_to"].iloc[-1:]])
    peak = int(np.argmax(levels.to_numpy()))
    before_peak = steps.reset_index(drop=True).index < peak
    if not (w_up | w_down).any():
        verdict = Verdict.UNTESTABLE
    elif not (e_bad.any() or j_bad.any()):
        verdict = Verdict.HOLDS
    elif not e_bad.any() and not (j_bad.to_numpy() & ~before_peak).any():
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS
    late = int((j_bad.to_numpy() & ~before_peak).sum())
    values = {
        "factors": len(steps) + 1,
        "moved": (int((w_up | w_down).sum()), len(steps)),
        "against": int(e_bad.sum()),
        "with_w": int(j_bad.sum()),
        "late": late,
        "peak": float(levels.max()),
        "peak_at": peak + 1,
    }
    return Finding("bernhard-distortion-signals-vanishing", verdict, check=check, values=values)


@decided_by(MANY, LEVEL)
def bernhard_conclusion(
    sqrt_vs_none: pd.DataFrame,
    k_vs_sqrt: pd.DataFrame,
    *,
    check: str,
    many: float = MANY,
    level: float = LEVEL,
) -> Finding:
    """Bernhard's conclusion: ``1/sqrt(d)`` "alleviates this distortion well", and "in many
    situations" ``1/k_total`` "appears to preserve the shape ... even better".

    ``sqrt_vs_none`` pairs ``a`` = sqrt_d, ``b`` = none; ``k_vs_sqrt`` pairs ``a`` =
    k_total, ``b`` = sqrt_d, W₁ over every configuration (each Holm-corrected over its
    configurations). A part is borne out where its W₁ is clearly lower in at least ``many``
    of the configurations, refuted where clearly higher in at least ``many``. **Holds** if
    both parts are borne out; **holds with a caveat** if one is; **does not hold** if
    neither is and one is refuted; **not testable here** otherwise (the draws cannot tell).
    How often k_total's attention is nearly uniform where it wins is reported.
    """
    table_with("sqrt_vs_none", sqrt_vs_none, ["wasserstein_diff", "wasserstein_diff_se", "draws"])
    table_with(
        "k_vs_sqrt",
        k_vs_sqrt,
        ["wasserstein_diff", "wasserstein_diff_se", "effective_share_a", "draws"],
    )
    first, second = _wins(sqrt_vs_none, level=level), _wins(k_vs_sqrt, level=level)
    lost = [_wins(p, side="above", level=level) for p in (sqrt_vs_none, k_vs_sqrt)]
    borne = [first.mean() >= many, second.mean() >= many]
    refuted = [loss.mean() >= many for loss in lost]
    uniform = k_vs_sqrt["effective_share_a"] > UNIFORM_SHARE
    if all(borne):
        verdict = Verdict.HOLDS
    elif any(borne):
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS if any(refuted) else Verdict.UNTESTABLE
    values = {
        "sqrt_wins": int(first.sum()),
        "sqrt_of": len(first),
        "k_wins": int(second.sum()),
        "k_of": len(second),
        "sqrt_losses": int(lost[0].sum()),
        "k_losses": int(lost[1].sum()),
        "uniform": int(uniform[second].sum()),
        **_draws(k_vs_sqrt),
    }
    return Finding("bernhard-conclusion-k-total-better", verdict, check=check, values=values)


@decided_by(MANY, PRICE, LEVEL)
def bernhard_abstract_more_effective(
    pairs: pd.DataFrame,
    *,
    check: str,
    many: float = MANY,
    price: float = PRICE,
    level: float = LEVEL,
) -> Finding:
    """Bernhard's abstract: "in many situations" ``1/k_total`` "appears to be more effective
    at avoiding regions where applying softmax leads to vanishing gradients" than
    ``1/sqrt(d)`` (``a`` = k_total, ``b`` = sqrt_d).

    Per configuration where sqrt_d has saturated rows or components near 0 or 1, k_total
    avoids them better if it has clearly fewer of either and clearly more of neither
    (Holm-corrected over the configurations). As for Bernhard's conclusion
    (:func:`bernhard_conclusion`), "many" is borne out by clear wins in at least ``many`` of
    those configurations and refuted by clear losses in as many. **Holds** if borne out, with
    no loss and no price; **holds with a caveat** if borne out but worse somewhere or at a
    price (a median gradient reaching the query below ``price`` times that of sqrt_d); **does
    not hold** if refuted; **not testable here** if neither (a difference the tests do not
    find is undecided) or if sqrt_d has none anywhere.
    """
    cols = ["saturated_share", "extreme_share"]
    need = [f"{m}_{s}" for m in cols for s in ("a", "b", "diff", "diff_se")]
    table_with("pairs", pairs, [*need, "gradient_norm_a", "gradient_norm_b", "draws"])
    fewer = {m: _wins(pairs, m, "below", level) for m in cols}
    more = {m: _wins(pairs, m, "above", level) for m in cols}
    better = (fewer[cols[0]] | fewer[cols[1]]) & ~(more[cols[0]] | more[cols[1]])
    worse = more[cols[0]] | more[cols[1]]
    present = (pairs["saturated_share_b"] > 0) | (pairs["extreme_share_b"] > 0)
    ratio = float((pairs["gradient_norm_a"] / pairs["gradient_norm_b"]).median())
    share = float(better[present].mean()) if present.any() else 0.0
    if not present.any():
        verdict = Verdict.UNTESTABLE
    elif share >= many:
        verdict = Verdict.CAVEAT if worse.any() or ratio < price else Verdict.HOLDS
    elif float(worse[present].mean()) >= many:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    values = {
        "better": int(better[present].sum()),
        "present": int(present.sum()),
        "share": share,
        "worse": int(worse.sum()),
        "ratio": ratio,
        **_draws(pairs),
    }
    return Finding("bernhard-abstract-more-effective", verdict, check=check, values=values)


#: The claims :func:`review_findings` decides, with the section of *Every rescaling, measured* that
#: shows each.
REVIEW_EVIDENCE: dict[str, str] = {
    "bernhard-prescaled-softmax-same": "sec-measures",
    "bernhard-distortion-signals-vanishing": "sec-frontier",
    "blog-stable-responsive-region": "sec-gradients",
    "blog-gradient-flow-preserved": "sec-gradients",
    "bernhard-sqrt-d-alleviates-vanishing": "sec-gradients",
}

#: The claims :func:`comparison_findings` decides, with the section of *1/k_total against the
#: alternatives* that shows each.
COMPARISON_EVIDENCE: dict[str, str] = {
    "bernhard-small-logits-little-distortion": "sec-query-scales",
    "bernhard-abstract-more-effective": "sec-k-total-gradients",
    "bernhard-conclusion-k-total-better": "sec-k-total-summary",
}


def _set(finding: Finding, **setting: str) -> Finding:
    """``finding`` with the ``setting`` its claim's ``check`` template says (the main setting,
    the grid, every configuration: data strings of the chapter's tables), in place of a
    chapter's own check text."""
    return replace(finding, check="", values={**finding.values, **setting})


def review_findings(
    *,
    prescaled_gap: float,
    curve_steps: pd.DataFrame,
    grid: pd.DataFrame,
    family_sqrt_d: pd.DataFrame,
    sqrt_vs_none_grid: pd.DataFrame,
    normal: str,
    main: str,
    grid_setting: str,
) -> dict[str, Finding]:
    """The findings of :data:`REVIEW_EVIDENCE`'s claims from the tables of
    :func:`attncore.simulate.study.review_tables` (passed by name). ``main`` and
    ``grid_setting`` describe the main setting and the standard normal grid, which the
    claims' check templates say (values ``main`` and ``setting``)."""
    stable = blog_stable_region(
        grid[grid["rescaling"] == "sqrt_d"], family_sqrt_d, normal=normal, check=""
    )
    return {
        "bernhard-prescaled-softmax-same": _set(
            bernhard_prescaled_same(prescaled_gap, check=""), main=main
        ),
        "bernhard-distortion-signals-vanishing": _set(
            bernhard_distortion_signals(curve_steps, check=""), main=main
        ),
        "blog-stable-responsive-region": _set(stable, setting=grid_setting, main=main),
        "blog-gradient-flow-preserved": _set(
            blog_gradient_flow(grid, check=""), setting=grid_setting
        ),
        "bernhard-sqrt-d-alleviates-vanishing": _set(
            bernhard_sqrt_d_alleviates(sqrt_vs_none_grid, check=""), setting=grid_setting
        ),
    }


def comparison_findings(
    *,
    query_scales: pd.DataFrame,
    sqrt_vs_none: pd.DataFrame,
    k_vs_sqrt: pd.DataFrame,
    main: str,
    every: str,
) -> dict[str, Finding]:
    """The findings of :data:`COMPARISON_EVIDENCE`'s claims from the tables of
    :func:`attncore.simulate.study.comparison_tables` (passed by name). ``main`` and
    ``every`` describe the main setting and every configuration, which the claims' check
    templates say (values ``main`` and ``every``)."""
    return {
        "bernhard-small-logits-little-distortion": _set(
            bernhard_small_logits(query_scales, check=""), main=main
        ),
        "bernhard-abstract-more-effective": _set(
            bernhard_abstract_more_effective(k_vs_sqrt, check=""), every=every
        ),
        "bernhard-conclusion-k-total-better": _set(
            bernhard_conclusion(sqrt_vs_none, k_vs_sqrt, check=""), every=every
        ),
    }
