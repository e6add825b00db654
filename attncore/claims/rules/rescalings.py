"""Verdict rules of the chapters *Every rescaling, measured* and *1/k_total against the
alternatives*, and the sentences that state their results.

Every rule takes a table of paired comparisons of two rescalings on the same draws (one row
per configuration ``family, d, n``; columns ``<metric>_a``, ``<metric>_b``, the mean paired
difference ``<metric>_diff = a - b`` and its standard error ``<metric>_diff_se``, as made by
:func:`attncore.simulate.sweep.pair_rescalings`), or a summary with standard errors, and
returns a :class:`~attncore.claims.Finding`. A rule that counts configurations counts a
difference only when a one-sided t test over the draws finds it, Holm-corrected over the
configurations it counts (:func:`attncore.claims.statistics.clear`, column ``draws``); a rule
that compares a few values along one curve or across d counts a single difference that
the same t test finds at the level of :data:`CLEAR` standard errors
(:func:`attncore.claims.statistics.single`: far more than two with few draws).

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

import numpy as np
import pandas as pd
import sympy as sp

from attncore.checks import ParameterError
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding
from attncore.claims.statistics import (
    FAMILY_LEVEL,
    MIN_DRAWS,
    clear,
    clear_side,
    level,
    margin,
    single,
)
from attncore.claims.thresholds import Threshold, decided_by
from attncore.claims.words import listing, number, share
from attncore.rescalings import RESCALINGS

__all__ = [
    "CLEAR",
    "COMPARISON_EVIDENCE",
    "FALLS_TO",
    "FLAT",
    "LEVEL",
    "MANY",
    "MARGIN",
    "MODERATE",
    "PRICE",
    "REVIEW_EVIDENCE",
    "ROUNDING",
    "SAME_ORDER",
    "STEADY",
    "UNIFORM_SHARE",
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
    "comparison_takeaways",
    "curve_sentence",
    "even_more_so",
    "few_draws_sentence",
    "heavy_tails_sentence",
    "lower_distortion",
    "lowest_sentence",
    "n_sqrt_d_by_family",
    "n_sqrt_d_calls",
    "n_sqrt_d_sentence",
    "review_findings",
    "section5_complexity",
    "section5_table",
    "summary_bullets",
    "takeaways",
    "vanishing_caveats",
    "vaswani_small_gradients",
    "vaswani_table",
]

CLEAR = Threshold(
    2.0,
    "clear",
    "two standard errors, the usual mark of a single comparison, where a rule compares a few "
    "values along one curve or across d; with few draws a t test over them at the same level "
    f"({100 * level(2.0):.1f} %) asks for more ({margin(2):.0f} with two draws, "
    f"{margin(10):.1f} with ten)",
    scale="fixed",
)
"""How many standard errors a single difference must exceed to count."""

LEVEL = Threshold(
    FAMILY_LEVEL,
    "level",
    "the family-wise 5 % of Holm's correction over the configurations a verdict counts",
    scale="fixed",
)
"""The level of the corrected tests of a count over configurations."""

UNIFORM_SHARE = Threshold(
    0.95,
    "uniform_share",
    "attention that keeps more than 95 % of the keys effectively in play is nearly uniform "
    "(the book's convention, reported beside distortion, never held against it)",
    scale="share",
)
"""Effective keys over ``n`` above which attention counts as nearly uniform."""


MANY = Threshold(
    0.5,
    "many",
    "'in many situations' read as in at least half of the configurations measured",
)
"""Share of configurations from which "in many situations" counts as borne out."""

STEADY = Threshold(
    1.25,
    "steady",
    "a quantity that moves by less than a quarter across d is steady (the book's reading of "
    "'stable' and of 'counteract')",
    scale="factor",
)
"""Largest over smallest value across d within which a quantity counts as steady."""

SAME_ORDER = Threshold(
    2.0,
    "same_order",
    "two values within a factor 2 of each other are of the same order",
    scale="factor",
)
"""Largest over smallest value within which a gradient counts as "of the same order"."""

FLAT = Threshold(
    0.05,
    "flat",
    "entropy / ln n and a share range from 0 to 1, and a change of 0.05 (a twentieth of that "
    "range) is the smallest a reader would call a change",
)
"""Absolute change of entropy / ln n or of a share within which it counts as flat."""

FALLS_TO = Threshold(
    0.5,
    "falls_to",
    "'extremely small gradients' read as a Jacobian norm that falls to below half between the "
    "smallest and the largest d",
)
"""The share of its value at the smallest d below which the unscaled Jacobian norm must fall."""

PRICE = Threshold(
    0.5,
    "price",
    "a median gradient reaching the query below half of 1/√d's is a price paid for less saturation",
)
"""Gradient ratio (to 1/√d's, median) below which a rescaling's lower saturation has a price."""


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


def _draws_note(pairs: pd.DataFrame) -> str:
    """How many draws each configuration had, and whether that is fewer than
    :data:`~attncore.claims.statistics.MIN_DRAWS` (what that means, a page says once:
    :func:`few_draws_sentence`)."""
    fewest = int(pairs["draws"].min())
    if fewest >= MIN_DRAWS:
        return f"{fewest} draws per configuration"
    return f"{fewest} draws per configuration (fewer than {MIN_DRAWS})"


def few_draws_sentence(draws: int) -> str:
    """What few draws mean for the corrected counts, for a page whose configurations have
    ``draws`` draws each; empty with :data:`~attncore.claims.statistics.MIN_DRAWS` or more.

    >>> few_draws_sentence(2)[:46]
    'With 2 draws per configuration, fewer than the'
    >>> few_draws_sentence(10)
    ''
    """
    if draws >= MIN_DRAWS:
        return ""
    return (
        f"With {draws} draws per configuration, fewer than the {MIN_DRAWS} a stable count "
        "needs, the corrected tests find little, and the counts may move from build to build."
    )


def _se(se: pd.Series) -> pd.Series:
    return se.fillna(0.0)


def clearly_below(diff: pd.Series, se: pd.Series, draws: pd.Series | int) -> pd.Series:
    """Where ``diff`` is clearly below 0: a single difference over ``draws`` draws at the
    level of :data:`CLEAR` standard errors (:func:`~attncore.claims.statistics.single`).

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


def _clearly_note(draws: int) -> str:
    """What "clearly" asked of a single difference over ``draws`` draws, in standard errors."""
    asked = margin(draws, CLEAR)
    if draws >= MIN_DRAWS:
        return f"{asked:.2g} se"
    return f"{asked:.3g} se: a t test over {number(draws)} draws"


def _span(values: pd.Series, fmt: str = ".3g") -> str:
    low, high = f"{values.min():{fmt}}", f"{values.max():{fmt}}"
    return low if low == high else f"{low} to {high}"


def _between(values: pd.Series, fmt: str = ".3g") -> str:
    low, high = f"{values.min():{fmt}}", f"{values.max():{fmt}}"
    return low if low == high else f"between {low} and {high}"


def _label(name: str) -> str:
    """A registered rescaling's label (``sqrt_d`` -> ``1/√d``), any other name as it is."""
    return RESCALINGS[name].label if name in RESCALINGS else name


def _where(index: pd.Index, most: int = 3) -> str:
    """The configurations of ``index`` by name; empty beyond ``most`` of them (a count says
    how many)."""
    if len(index) > most:
        return ""
    return ", ".join(f"{f} (d = {d}, n = {n})" for f, d, n in index)


def _need(table: pd.DataFrame, columns: list[str]) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ParameterError(f"table must have the columns {', '.join(missing)}")
    if table.empty:
        raise ParameterError("table must hold at least one configuration")


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


def _describe(pairs: pd.DataFrame, better: str, worse: str, wins: pd.Series) -> str:
    ratio = pairs["selectivity_a"] / pairs["selectivity_b"]
    losses = _where(pairs.index[~wins.to_numpy()])
    uniform = pairs["effective_share_a"] > UNIFORM_SHARE
    return (
        f"{_label(better)} clearly below {_label(worse)} (one-sided t tests over the draws, "
        f"Holm-corrected over the configurations, family-wise {LEVEL:.0%}) "
        f"in {share(int(wins.sum()), len(pairs), 'configuration')}"
        + (f" (not in: {losses})" if losses else "")
        + f"; W₁ {pairs['wasserstein_a'].min():.3f} to {pairs['wasserstein_a'].max():.3f} against "
        f"{pairs['wasserstein_b'].min():.3f} to {pairs['wasserstein_b'].max():.3f}; selectivity "
        f"of {_label(better)} {ratio.min():.2g} to {ratio.max():.2g} times that of "
        f"{_label(worse)}; effective keys / n of {_label(better)} "
        f"{pairs['effective_share_a'].min():.3f} or more (nearly uniform, above "
        f"{UNIFORM_SHARE:.0%}, in {number(int(uniform.sum()), zero='none')}, reported beside "
        f"the claim, not against it); {_draws_note(pairs)}"
    )


@decided_by(LEVEL)
def lower_distortion(
    claim: str,
    pairs: pd.DataFrame,
    better: str,
    worse: str,
    *,
    check: str,
    note: str = "",
    level: float = LEVEL,
) -> Finding:
    """The claim "``better`` distorts the shape less than ``worse``" (``a`` = ``better``), read
    on the claim's own measure, W₁, over the configurations of ``pairs``.

    **Holds** if ``better``'s W₁ is clearly below ``worse``'s in every configuration; **holds
    with a caveat** if in at least half; **does not hold** if it is clearly above somewhere
    and below in fewer than half; **not testable here** if it is below in fewer than half and
    above nowhere (the draws cannot tell). How often ``better``'s attention is nearly uniform
    (:data:`UNIFORM_SHARE`) is reported, not held against a claim about distortion. ``note``
    is appended to the measured text.
    """
    _need(pairs, _DISTORTION)
    wins = _wins(pairs, level=level)
    verdict = _distortion_verdict(wins, _wins(pairs, side="above", level=level))
    measured = _describe(pairs, better, worse, wins) + (f"; {note}" if note else "")
    return Finding(claim, verdict, measured, check)


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
    _need(pairs, ["wasserstein_diff", "wasserstein_diff_se", "draws"])
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
    where it does not, the verdict is at best **holds with a caveat**.
    """
    _need(pairs, _DISTORTION)
    wins = _wins(pairs, level=level)
    more = even_more_so(pairs, reference, level)
    by_family = more.groupby(level="family", sort=False).all()
    not_more = [f for f, ok in by_family.items() if not ok]
    verdict = _distortion_verdict(wins, _wins(pairs, side="above", level=level), not not_more)
    measured = (
        _describe(pairs, "k_total", "sqrt_d", wins) + f"; gap clearly larger than for N(0, 1) in "
        f"{share(int(more.sum()), len(more), 'configuration')}"
        + (f" (not everywhere for: {', '.join(not_more)})" if not_more else "")
    )
    return Finding("bernhard-other-families", verdict, measured, check)


MARGIN = Threshold(
    0.1,
    "margin",
    "near the uniform end both distortions sit on the floor of the curve, where a difference "
    "below a tenth of 1/k_total's W₁ is the floor's, not a rescaling's",
)
"""The share of 1/k_total's W₁ a difference must exceed to call 1/(n√d) worse or better."""


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
        _need(pairs, [*_DISTORTION, "selectivity_diff", "selectivity_diff_se"])
    every = pd.concat(list(alternatives.values()), keys=list(alternatives))
    large = every["wasserstein_diff"].abs() > margin * every["wasserstein_a"]
    wins = _wins(every, level=level) & large
    selective = _wins(every, "selectivity", level=level)
    verdict = _distortion_verdict(wins, _wins(every, side="above", level=level) & large)
    parts = []
    for label, p in alternatives.items():
        won = wins[label]
        w_ratio = float((p["wasserstein_b"] / p["wasserstein_a"]).median())
        s_ratio = float((p["selectivity_b"] / p["selectivity_a"]).median())
        parts.append(
            f"{label}: W₁ clearly above 1/k_total's (by more than {margin:.0%} of it) in "
            f"{int(won.sum())} of {len(p)} "
            f"configurations, median W₁ ratio {w_ratio:.1f}, median selectivity ratio "
            f"{s_ratio:.0f}"
        )
    measured = "; ".join(parts)
    measured += (
        f"; clearly more selective than 1/k_total in {int(selective.sum())} of {len(selective)}: "
        "each alternative is a larger factor (a norm of the key lengths below their sum), a "
        "point further along the same curve (Holm-corrected over all "
        f"{len(every)} comparisons; {_draws_note(every)})"
    )
    return Finding("bernhard-section5-worse", verdict, measured, check)


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
    measured = "; ".join(
        f"{' and '.join(names)}: {a} more operation{'s' if a != 1 else ''} than k_total at "
        f"n = {small}, {b} at n = {large}"
        for (a, b), names in alike.items()
    )
    same = [name for name in extra if name not in growing]
    if same:
        measured += (
            f"; no more complicated: {', '.join(same)} (a fixed number of operations more, "
            "whatever n; the mean key length is k_total/n)"
        )
    if len(growing) == len(extra):
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.CAVEAT if growing else Verdict.FAILS
    check = (
        "arithmetic operations of each divisor on the n key lengths, counted by sympy, at "
        f"n = {small} and {large}; more complicated = more operations by an amount that grows "
        "with n"
    )
    return Finding("bernhard-section5-more-complicated", verdict, measured, check)


CALLS = ("worse", "same", "better", "unclear")
"""The calls of :func:`n_sqrt_d_calls`, in the order tables give them."""


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
    _need(pairs, ["wasserstein_diff", "wasserstein_diff_se", "wasserstein_b", "draws"])
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
    _need(
        pairs, ["wasserstein_diff", "wasserstein_diff_se", "wasserstein_b", "factor_a", "factor_b"]
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
    measured = "; ".join(
        f"{f}: factor ratio {ratio[f]:.2f}, worse/same/better/unclear in "
        + "/".join(str(int((c == k).sum())) for k in CALLS)
        + " settings"
        for f, c in calls.groupby(family, sort=False)
    )
    measured += f" ({_draws_note(pairs)})"
    return Finding("bernhard-n-sqrt-d-other", verdict, measured, check)


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
    _need(summary, [*columns, "saturated_share", "saturated_share_se", "draws"])
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
                "none: J last d / first d": last["jacobian_norm"] / first["jacobian_norm"],
                "none: J falls clearly": _beyond(j_drop, j_se, draws),
                "none: J clearly stays": _beyond(
                    last["jacobian_norm"] - falls_to * first["jacobian_norm"],
                    math.hypot(last["jacobian_norm_se"], falls_to * first["jacobian_norm_se"]),
                    draws,
                ),
                "none: saturated, first d": first["saturated_share"],
                "none: saturated, last d": last["saturated_share"],
                "none: saturation rises clearly": _beyond(s_rise, s_se, draws),
                "sqrt_d: J max / min over d": high["jacobian_norm"] / low["jacobian_norm"],
                "sqrt_d: J clearly stable": root_side == "below",
                "sqrt_d: J clearly moves": root_side == "above",
                "sqrt_d: saturated, max over d": float(root["saturated_share"].max()),
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
    falls = table["none: J falls clearly"]
    halves = falls & (table["none: J last d / first d"] < falls_to)
    rises = table["none: saturation rises clearly"]
    stable = table["sqrt_d: J clearly stable"]
    if halves.all() and rises.all() and stable.all():
        verdict = Verdict.HOLDS
    elif (stable.all() and (falls.all() or rises.all())) or (halves.all() and rises.all()):
        verdict = Verdict.CAVEAT
    elif table["sqrt_d: J clearly moves"].any() or (table["none: J clearly stays"] & ~rises).any():
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    d = sorted(summary["d"].unique())
    measured = (
        f"standard normal, d {d[0]} to {d[-1]}: without scaling the mean softmax Jacobian norm "
        f"falls to {table['none: J last d / first d'].min():.3f} to "
        f"{table['none: J last d / first d'].max():.3f} of its value at d = {d[0]}, clearly "
        f"(> {_clearly_note(int(summary['draws'].min()))}) for {int(falls.sum())} of "
        f"{len(table)} n; the share of rows with largest probability > {threshold:g} rises from "
        f"{_between(table['none: saturated, first d'])} at d = {d[0]} to "
        f"{_between(table['none: saturated, last d'])} at d = {d[-1]}, clearly for "
        f"{int(rises.sum())} of {len(table)} n; with 1/√d the Jacobian norm varies "
        f"by a factor {table['sqrt_d: J max / min over d'].max():.2f} at most across d "
        f"(clearly within ×{steady:g} for {int(stable.sum())} of {len(table)} n)"
    )
    return Finding("vaswani-small-gradients", verdict, measured, check)


_VANISHING = ["saturated_share_diff", "saturated_share_diff_se", "wasserstein_diff"]
_VANISHING += ["wasserstein_diff_se", "effective_share_a", "gradient_norm_a", "gradient_norm_b"]
_VANISHING += ["draws"]


def vanishing_caveats(pairs: pd.DataFrame, price: float = PRICE) -> list[str]:
    """What qualifies 1/k_total's lower saturation (``a`` = k_total, ``b`` = sqrt_d), each in
    words (the numbers are the verdict's): more saturation elsewhere, a W₁ not clearly lower
    everywhere (Holm-corrected counts), a median gradient ``||ds/dq||`` below ``price`` times
    that of sqrt_d ("about 1/n" of it only where the ratio times n has a median within a
    factor 3 of 1).

    >>> index = pd.MultiIndex.from_tuples([("N", 16, 8), ("N", 16, 64)], names=["f", "d", "n"])
    >>> pairs = pd.DataFrame({"saturated_share_diff": [-0.1, -0.3],
    ...     "saturated_share_diff_se": [0.01, 0.01], "wasserstein_diff": [-0.2, -0.2],
    ...     "wasserstein_diff_se": [0.01, 0.01], "effective_share_a": [0.99, 0.6],
    ...     "gradient_norm_a": [0.1, 0.01], "gradient_norm_b": [1.0, 1.0], "draws": [10, 10]},
    ...     index=index)
    >>> vanishing_caveats(pairs)  # doctest: +NORMALIZE_WHITESPACE
    ['a gradient reaching the query below 0.5 times that under 1/√d (median), about 1/n of it']
    """
    _need(pairs, _VANISHING)
    more = _wins(pairs, "saturated_share", "above")
    lower_w = _wins(pairs)
    ratio = pairs["gradient_norm_a"] / pairs["gradient_norm_b"]
    caveats = ["clearly more saturated in some configurations"] if more.any() else []
    if not lower_w.all():
        caveats.append("a W₁ not clearly below that of 1/√d in some configurations")
    if float(ratio.median()) < price:
        about = ", about 1/n of it" if _about_one_over_n(pairs) else ""
        caveats.append(
            f"a gradient reaching the query below {price:g} times that under 1/√d (median){about}"
        )
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
    _need(pairs, [*_VANISHING, "saturated_share_a", "saturated_share_b"])
    less = _wins(pairs, "saturated_share", "below", level)
    more = _wins(pairs, "saturated_share", "above", level)
    uniform = pairs["effective_share_a"] > UNIFORM_SHARE
    ratio = pairs["gradient_norm_a"] / pairs["gradient_norm_b"]
    lower_w = _wins(pairs, level=level)
    if less.any():
        verdict = Verdict.CAVEAT if vanishing_caveats(pairs, price) else Verdict.HOLDS
    else:
        verdict = Verdict.FAILS if more.any() else Verdict.UNTESTABLE
    measured = (
        f"share of rows with largest probability > {threshold:g}: 1/k_total "
        f"{_span(pairs['saturated_share_a'])}, 1/√d "
        f"{_span(pairs['saturated_share_b'])}; 1/k_total "
        f"clearly less saturated in {share(int(less.sum()), len(pairs), 'configuration')} "
        f"and clearly more in {number(int(more.sum()), zero='none')} (Holm-corrected); W₁ "
        f"clearly lower in {number(int(lower_w.sum()), zero='none')}; the price: the gradient "
        f"reaching q, ‖ds/dq‖ with the factor, is {ratio.min():.2g} to {ratio.max():.2g} "
        "times that of 1/√d (median "
        f"{ratio.median():.2g}; times n: median {_ratio_times_n(pairs):.2g}); effective keys / n "
        f"under 1/k_total {pairs['effective_share_a'].min():.3f} or more (nearly uniform in "
        f"{int(uniform.sum())}); {_draws_note(pairs)}"
    )
    return Finding("bernhard-vanishing-gradients", verdict, measured, check)


def curve_sentence(largest_off_curve: float, tolerance: float = 0.02) -> str:
    """The sentence on how far the factor rescalings lie from the curve of constant factors.

    >>> curve_sentence(0.004)[:40]
    'Every rescaling that multiplies the logi'
    >>> "off the curve" in curve_sentence(0.3)
    True
    """
    if math.isnan(largest_off_curve):
        return (
            "Some rescaling lies outside the selectivity range of the grey curve here, so its "
            "distance from the curve is not measured; widen the range of constant factors."
        )
    if largest_off_curve <= tolerance:
        return (
            "Every rescaling that multiplies the logits by one factor sits on the grey curve: "
            "the largest distance of such a point from the curve, in W₁, is "
            f"{largest_off_curve:.3f} over all families, a difference left by averaging over "
            "draws whose factors differ slightly."
        )
    return (
        f"Some factor rescaling lies off the curve by up to {largest_off_curve:.3f} in W₁ over "
        "all families (the standard normal's distances are in the section's table), more than "
        f"the {tolerance:g} that averaging over draws with slightly different factors leaves: "
        "the curve is too coarse here (few constant factors, or few draws)."
    )


_PREDICATE = {v: "is not testable here" if v is Verdict.UNTESTABLE else v.value for v in Verdict}
"""A verdict as the predicate of "the claim …"."""

_SUMMARY = {
    "distortion": {
        Verdict.HOLDS: "1/k_total distorts the shape less than 1/√d in every configuration "
        "measured (under changed moments, other families and over the grid); {uniform}.",
        Verdict.CAVEAT: "1/k_total distorts the shape less than 1/√d, though not without "
        "qualification: the claim {verdicts}; {uniform}.",
        "where told": "Where the draws of this run can tell, 1/k_total distorts the shape "
        "less than 1/√d: the claim {verdicts}; {uniform}.",
        Verdict.FAILS: "1/k_total does not always distort the shape less than 1/√d: the claim "
        "{verdicts}.",
        Verdict.UNTESTABLE: "Whether 1/k_total distorts the shape less than 1/√d, the draws "
        "of this run cannot tell: the claim {verdicts}.",
    },
    "section5": {
        Verdict.HOLDS: "The section 5 alternatives distort more than 1/k_total everywhere: "
        "each is a larger factor, a point further along the same curve.",
        Verdict.CAVEAT: "The section 5 alternatives distort more than 1/k_total in at least "
        "half of the configurations ({verdict}): each is a larger factor, a point further "
        "along the same curve.",
        Verdict.FAILS: "The section 5 alternatives do not distort more than 1/k_total in most "
        "configurations measured.",
        Verdict.UNTESTABLE: "Whether the section 5 alternatives distort more than 1/k_total, "
        "the draws of this run cannot tell in most configurations.",
    },
    "n_sqrt_d": {
        Verdict.HOLDS: "1/(n√d) distorts more than 1/k_total for every family other than the "
        "standard normal.",
        Verdict.CAVEAT: "1/(n√d) distorts more than 1/k_total only for some families and "
        "settings ({verdict}): it differs from 1/k_total by √E[k_j²], so it is worse where the "
        "components have a larger second moment and the keys are few.",
        Verdict.FAILS: "1/(n√d) distorts no more than 1/k_total for any family other than the "
        "standard normal.",
        Verdict.UNTESTABLE: "Whether 1/(n√d) distorts more than 1/k_total for other families, "
        "the draws of this run cannot tell: it is clearly worse nowhere, and some differences "
        "beyond the margin are not clear to the tests.",
    },
    "vaswani": {
        Verdict.HOLDS: "The unscaled softmax saturates as d grows and its Jacobian shrinks, "
        "while 1/√d holds the Jacobian steady, as Vaswani et al. suspect.",
        Verdict.CAVEAT: "Vaswani et al.'s suspicion is borne out only in part ({verdict}): see "
        "the measured column of the ledger.",
        Verdict.FAILS: "Over the grid measured, the draws tell against Vaswani et al.'s "
        "suspicion: the unscaled softmax's Jacobian clearly does not shrink as far as the reading "
        "asks, or 1/√d does not hold it steady.",
        Verdict.UNTESTABLE: "The draws are too few to tell whether the unscaled softmax's "
        "Jacobian shrinks with d as Vaswani et al. suspect.",
    },
    "vanishing": {
        Verdict.HOLDS: "1/k_total saturates less than 1/√d, at no price in the gradient that "
        "reaches the query.",
        Verdict.CAVEAT: "In Bernhard's own sense (components near 0 or 1) 1/k_total saturates "
        "less than 1/√d, with a caveat: {caveats}.",
        Verdict.FAILS: "1/k_total does not saturate less than 1/√d where 1/√d saturates.",
        Verdict.UNTESTABLE: "Whether 1/k_total helps avoid saturation cannot be told from this "
        "run; its verdict line says why.",
    },
}


def summary_bullets(findings: Mapping[str, Finding], pairs: pd.DataFrame) -> str:
    """The results of *1/k_total against the alternatives* as Markdown bullets, one per topic
    (distortion, section 5, ``n sqrt(d)``, vanishing gradients), chosen by the verdicts.

    ``findings`` maps claim keys to the findings of the chapter's rules; ``pairs`` are
    1/k_total (``a``) against 1/√d (``b``) in every configuration compared, for how often
    its attention is nearly uniform and the caveats of its lower saturation
    (:func:`vanishing_caveats`).

    >>> f = {c: Finding(c, Verdict.CAVEAT, "", "") for c in ["bernhard-other-moments",
    ...      "bernhard-other-families", "bernhard-d-n-range", "bernhard-section5-worse",
    ...      "bernhard-n-sqrt-d-other", "bernhard-vanishing-gradients"]}
    >>> index = pd.MultiIndex.from_tuples([("N", 16, 8)], names=["f", "d", "n"])
    >>> pairs = pd.DataFrame({"saturated_share_diff": [-0.1], "saturated_share_diff_se": [0.01],
    ...     "wasserstein_diff": [-0.2], "wasserstein_diff_se": [0.01], "effective_share_a": [0.99],
    ...     "gradient_norm_a": [0.1], "gradient_norm_b": [1.0], "draws": [10]}, index=index)
    >>> summary_bullets(f, pairs).count("- ")
    4
    """
    return "\n".join(f"- {line}" for line in _summary_lines(findings, pairs))


def _summary_lines(findings: Mapping[str, Finding], pairs: pd.DataFrame) -> list[str]:
    """The sentences of :func:`summary_bullets`: distortion, section 5, ``n sqrt(d)`` and
    vanishing gradients, in that order."""
    keys = {
        "section5": "bernhard-section5-worse",
        "n_sqrt_d": "bernhard-n-sqrt-d-other",
        "vanishing": "bernhard-vanishing-gradients",
    }
    distortion = [
        findings[c]
        for c in ("bernhard-other-moments", "bernhard-other-families", "bernhard-d-n-range")
    ]
    verdicts = {f.verdict for f in distortion}
    if len(verdicts) == 1 and Verdict.CAVEAT not in verdicts:
        topic = next(iter(verdicts))
    elif Verdict.FAILS in verdicts:
        topic = Verdict.FAILS
    elif Verdict.UNTESTABLE in verdicts:
        topic = "where told"
    else:
        topic = Verdict.CAVEAT
    places = ("under changed moments", "for other families", "over the grid of d and n")
    words = ", ".join(
        f"{_PREDICATE[verdict]} "
        f"{listing([p for p, f in zip(places, distortion, strict=True) if f.verdict is verdict])}"
        for verdict in Verdict
        if verdict in verdicts
    )
    uniform = int((pairs["effective_share_a"] > UNIFORM_SHARE).sum())
    most = "every configuration" if uniform == len(pairs) else "most configurations"
    where = (
        f"in {most} it does so at the uniform end of the curve, where its lower "
        "distortion is that of a softmax that does almost nothing"
        if 2 * uniform >= len(pairs)
        else "its attention is nearly uniform in fewer than half of the configurations"
        if uniform
        else "its attention is nearly uniform in none of them"
    )
    lines = [_SUMMARY["distortion"][topic].format(verdicts=words, uniform=where)]
    caveats = "; ".join(vanishing_caveats(pairs)) or "see the ledger"
    for topic_name, claim in keys.items():
        verdict = findings[claim].verdict
        lines.append(_SUMMARY[topic_name][verdict].format(verdict=verdict.value, caveats=caveats))
    return lines


def takeaways(
    findings: Mapping[str, Finding], largest_off_curve: float, tolerance: float = 0.02
) -> str:
    """The takeaways of *Every rescaling, measured* as Markdown bullets: where the factor
    rescalings lie (from the largest distance of such a point from the curve of constant
    factors) and what the grid says of Vaswani et al.'s suspicion.

    >>> f = {"vaswani-small-gradients": Finding("vaswani-small-gradients", Verdict.HOLDS, "", "")}
    >>> text = takeaways(f, 0.004)
    >>> text.count("- "), "lies on one curve" in text
    (2, True)
    """
    if math.isnan(largest_off_curve):
        curve = (
            "Some rescaling lies outside the range of the curve of constant factors here, so "
            "where the rescalings lie on it is not measured."
        )
    elif largest_off_curve <= tolerance:
        curve = (
            "Every rescaling that multiplies the logits by one factor lies on one curve of "
            "distortion against selectivity ({ref}`sec-frontier`): a rescaling only chooses how "
            "close to uniform the attention is."
        )
    else:
        curve = (
            "The factor rescalings lie off the curve of constant factors by more than averaging "
            "over draws leaves ({ref}`sec-frontier`): the curve is too coarse here (few factors "
            "or draws) to read their positions on it."
        )
    verdict = findings["vaswani-small-gradients"].verdict
    vaswani = _SUMMARY["vaswani"][verdict].format(verdict=verdict.value)
    return "\n".join(f"- {line}" for line in (curve, vaswani))


def comparison_takeaways(findings: Mapping[str, Finding], pairs: pd.DataFrame) -> str:
    """The takeaways of *1/k_total against the alternatives*: the topics of
    :func:`summary_bullets` (with its ``pairs``), Bernhard's section 5 and ``n sqrt(d)`` in
    one bullet.

    >>> f = {c: Finding(c, Verdict.CAVEAT, "", "") for c in ["bernhard-other-moments",
    ...      "bernhard-other-families", "bernhard-d-n-range", "bernhard-section5-worse",
    ...      "bernhard-n-sqrt-d-other", "bernhard-vanishing-gradients"]}
    >>> index = pd.MultiIndex.from_tuples([("N", 16, 8)], names=["f", "d", "n"])
    >>> pairs = pd.DataFrame({"saturated_share_diff": [-0.1], "saturated_share_diff_se": [0.01],
    ...     "wasserstein_diff": [-0.2], "wasserstein_diff_se": [0.01], "effective_share_a": [0.99],
    ...     "gradient_norm_a": [0.1], "gradient_norm_b": [1.0], "draws": [10]}, index=index)
    >>> comparison_takeaways(f, pairs).count("- ")
    3
    """
    distortion, section5, n_sqrt_d, vanishing = _summary_lines(findings, pairs)
    return "\n".join(f"- {line}" for line in (distortion, vanishing, f"{section5} {n_sqrt_d}"))


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
                "W₁ clearly above k_total's": int(wins[label].sum()),
                "clearly more selective": int(selective[label].sum()),
                "configurations": len(p),
                "median W₁ ratio to k_total": float(
                    (p["wasserstein_b"] / p["wasserstein_a"]).median()
                ),
                "median selectivity ratio": float(
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


def n_sqrt_d_sentence(pairs: pd.DataFrame, normal: str) -> str:
    """Which families other than ``normal`` 1/(n√d) distorts more than 1/k_total for, and in
    how many settings at each n, in words ("in every setting for g and in no setting for h";
    the table of :func:`n_sqrt_d_by_family` gives the counts)."""
    table = n_sqrt_d_by_family(pairs)
    others = table.drop(index=normal, errors="ignore")
    worse = others["worse"]
    every = worse == others[list(CALLS)].sum(axis=1)
    groups = [
        ("in every setting for", others.index[every]),
        ("in some settings for", others.index[~every & (worse > 0)]),
        ("in no setting for", others.index[worse == 0]),
    ]
    where = [f"{words} {listing(list(names))}" for words, names in groups if len(names)]
    if not where:
        return "No family other than the standard normal was compared."
    head = f"1/(n√d) distorts more than 1/k_total {listing(where)}."
    if worse.sum() in (0, others[list(CALLS)].to_numpy().sum()):
        return head
    pairs = pairs[pairs.index.get_level_values("family") != normal]
    is_worse = (n_sqrt_d_calls(pairs) == "worse").groupby(pairs.index.get_level_values("n"))
    by_n = [
        f"{share(int(k), int(m), 'setting')} at n = {n}"
        for n, k, m in zip(is_worse.sum().index, is_worse.sum(), is_worse.size(), strict=True)
    ]
    return f"{head} By the number of keys it does in {listing(by_n)}."


def lowest_sentence(
    w_matrix: pd.DataFrame, s_matrix: pd.DataFrame, labels: Mapping[str, str]
) -> str:
    """How often k_total has the lowest distortion and the lowest selectivity of all
    rescalings (rows) across the families (columns), and which others are lowest elsewhere.

    >>> w = pd.DataFrame({"f": [0.1, 0.5], "g": [0.3, 0.2]}, index=["k_total", "sqrt_d"])
    >>> lowest_sentence(w, w, {"k_total": "1/k_total", "sqrt_d": "1/√d"})[:64]
    '1/k_total has the lowest W₁ of all rescalings in one of the two '
    """
    w_low, s_low = w_matrix.idxmin(axis=0), s_matrix.idxmin(axis=0)
    others = sorted({labels[r] for r in pd.concat([w_low, s_low]) if r != "k_total"})
    where = (
        f"where another rescaling is lower, it is {', '.join(others)}"
        if others
        else "no other rescaling is lower in any family"
    )
    families = w_matrix.shape[1]
    return (
        f"1/k_total has the lowest W₁ of all rescalings in "
        f"{share(int((w_low == 'k_total').sum()), families, 'family')} and the lowest "
        f"selectivity in {share(int((s_low == 'k_total').sum()), families, 'family')}; "
        f"{where}."
    )


def heavy_tails_sentence(heavy: pd.Series, normal: pd.Series, df: float) -> str:
    """Whether 1/k_total distorts more with Student t components of ``df`` degrees of freedom
    (W₁ per draw, ``heavy``) than with standard normal ones (``normal``): a single
    difference of the means over the draws, clear by
    :func:`~attncore.claims.statistics.clear_side`.

    >>> heavy_tails_sentence(pd.Series([0.08, 0.084]), pd.Series([0.04, 0.041]), 5)[:60]
    'With Student t components of 5 degrees of freedom, 1/k_total'
    """
    heavy, normal = heavy.dropna(), normal.dropna()
    if heavy.empty or normal.empty:
        raise ParameterError("heavy and normal must hold at least one W₁ each")
    se = math.hypot(heavy.sem(ddof=1), normal.sem(ddof=1))
    draws = min(len(heavy), len(normal))
    side = clear_side(heavy.mean() - normal.mean(), se, draws, CLEAR)
    head = (
        f"With Student t components of {df:g} degrees of freedom, 1/k_total has "
        f"W₁ = {heavy.mean():.3f} (draws from {heavy.min():.3f} to {heavy.max():.3f}), against "
        f"{normal.mean():.3f} with standard normal components"
    )
    if side == "above":
        return f"{head}: here the heavy tails do cost it distortion."
    if side == "below":
        return f"{head}: here the heavy tails cost it no distortion; they lower it."
    return f"{head}; {number(draws)} draws cannot tell whether the heavy tails cost it any."


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


def _calls_note(calls: Mapping[int, str], summary: pd.DataFrame) -> str:
    """Where :func:`_spreads` found a quantity clearly within its bound across d, clearly
    beyond it, or could not tell, per ``n``, and what "clearly" asked of the draws."""
    at = {c: [n for n, call in calls.items() if call == c] for c in ("within", "beyond", "unclear")}
    note = (
        f"clearly at {len(at['within'])} of {len(calls)} n "
        f"(> {_clearly_note(int(summary['draws'].min()))})"
    )
    if at["beyond"]:
        note += f"; clearly beyond it at n = {', '.join(map(str, at['beyond']))}"
    if at["unclear"]:
        note += f"; the draws cannot tell at n = {', '.join(map(str, at['unclear']))}"
    return note


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
    _need(summary, [*need, *[f"{m}_se" for m in need[2:]], "draws"])
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
    h = summary["normalized_entropy"]
    measured = (
        f"under 1/√d, compared across d at each n: Jacobian norm within {steady:g}× and "
        f"entropy / ln n and saturated share within {flat:g} {_calls_note(across_d, summary)}"
        f"; across n, entropy / ln n spans {h.min():.2f} to {h.max():.2f} and the saturated "
        f"share {_span(summary['saturated_share'])} (moves clearly at "
        f"{len(moving_n)} of {summary['d'].nunique()} d); other families whose entropy / ln n "
        f"differs clearly from the standard normal's: {', '.join(leaving) or 'none'}"
    )
    return Finding("blog-stable-responsive-region", verdict, measured, check)


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
    _need(summary, [*need, "gradient_norm_se", "gradient_median_se", "draws"])
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
    measured = (
        f"median ‖ds/dq‖ under 1/√d, largest over smallest across d: "
        f"{_span(ratio_d)} over the n measured (same order, within {same_order:g}× "
        f"{_calls_note(across_d, root)}); unscaled median falls clearly from the smallest to "
        f"the largest d at {sum(falls)} of "
        f"{len(falls)} n; under 1/√d the gradient moves beyond {same_order:g}× across n "
        f"at {len(moving_n)} of {root['d'].nunique()} d (mean {_span(root['gradient_norm'])})"
    )
    return Finding("blog-gradient-flow-preserved", verdict, measured, check)


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
    _need(pairs, [*[f"{m}_{s}" for m in cols for s in ("a", "b", "diff", "diff_se")], "draws"])
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
    measured = (
        f"1/√d against no scaling, paired over draws (Holm-corrected): clearly fewer first "
        f"components near 0 or 1 in {int(fewer.sum())} (clearly more in {int(more.sum())}) and "
        f"a clearly larger Jacobian norm in {int(larger.sum())} of {len(pairs)} configurations "
        f"(both in {int(both.sum())}); share near 0 or 1 {_span(pairs['extreme_share_a'])} "
        f"against {_span(pairs['extreme_share_b'])}; Jacobian norm "
        f"{_span(pairs['jacobian_norm_a'])} against {_span(pairs['jacobian_norm_b'])}; "
        f"{_draws_note(pairs)}"
    )
    return Finding("bernhard-sqrt-d-alleviates-vanishing", verdict, measured, check)


MODERATE = Threshold(
    4.0,
    "moderate",
    "'too large' is not defined: queries up to 4 times longer than drawn are the book's "
    "'moderate' (a query of norm about 4√d instead of √d)",
)
"""Query scale up to which reaching 1/√d's distortion counts against Bernhard's section 3."""


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
    _need(scales, [*need, "draws"])
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
    if not reached.any():
        where = f"at no scale up to {s.index.max():g}"
    elif at == 0:
        where = f"already at the smallest scale, {crossing:g}"
    else:
        where = f"between queries {before:g} and {crossing:g} times longer"
    measured = (
        f"1/k_total with every query multiplied by {s.index.min():g} to {s.index.max():g} (keys "
        f"fixed): W₁ {s['wasserstein'].iloc[0]:.3f} to {s['wasserstein'].iloc[-1]:.3f} (clear "
        f"rise: {'yes' if rises else 'no'}; steps clearly down: {int(down.sum())}); it reaches "
        f"the W₁ of 1/√d on the same draws {where} (the book's 'moderate': {moderate:g})"
    )
    if verdict is Verdict.UNTESTABLE:
        measured += (
            "; the scales measured stay too small for the distortion to rise"
            if not rises
            else "; the grid cannot tell whether that is within the book's 'moderate'"
        )
    return Finding("bernhard-small-logits-little-distortion", verdict, measured, check)


ROUNDING = Threshold(
    1e-12,
    "tolerance",
    "two float64 computations of the same softmax differ by rounding, a few units of 1e-16 "
    "per operation, far below 1e-12",
)
"""The largest difference of two computations of one attention that counts as rounding."""


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
    measured = (
        f"largest difference between softmax(QKᵀ/√d) on the raw dot products and the "
        f"engine's 1/√d attention: {gap:.1e} (tolerance {tolerance:.0e})"
    )
    return Finding("bernhard-prescaled-softmax-same", verdict, measured, check)


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
    _need(steps, [*(f"{m}_{s}" for m in metrics for s in parts), "draws"])
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
    measured = (
        f"along {len(steps) + 1} constant factors, smallest to largest, W₁ changes clearly on "
        f"{share(int((w_up | w_down).sum()), len(steps), 'step')} between them; on "
        f"{number(int(e_bad.sum()), zero='none')} of these the share of first components near 0 "
        f"or 1 moves the other way, and on {number(int(j_bad.sum()), zero='none')} the softmax "
        "Jacobian norm moves the same way as W₁ (more distortion with a larger gradient), "
        f"{number(late, zero='none')} of them after the Jacobian's peak "
        f"({levels.max():.3f} at factor {peak + 1} of {len(steps) + 1}); before the peak the "
        "attention is near uniform and no gradient vanishes"
    )
    return Finding("bernhard-distortion-signals-vanishing", verdict, measured, check)


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
    _need(sqrt_vs_none, ["wasserstein_diff", "wasserstein_diff_se", "draws"])
    _need(k_vs_sqrt, ["wasserstein_diff", "wasserstein_diff_se", "effective_share_a", "draws"])
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
    measured = (
        f"W₁ clearly lower (paired one-sided t tests, Holm-corrected): 1/√d than no scaling "
        f"in {int(first.sum())} of {len(first)} configurations, 1/k_total than 1/√d in "
        f"{int(second.sum())} of {len(second)} ('many' read as at least {many:.0%}); clearly "
        f"higher in {int(lost[0].sum())} and {int(lost[1].sum())}; where 1/k_total wins, its "
        f"attention is nearly uniform (effective keys above {UNIFORM_SHARE:.0%} of n) in "
        f"{int(uniform[second].sum())}; {_draws_note(k_vs_sqrt)}"
    )
    return Finding("bernhard-conclusion-k-total-better", verdict, measured, check)


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
    _need(pairs, [*need, "gradient_norm_a", "gradient_norm_b", "draws"])
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
    measured = (
        f"1/k_total against 1/√d, paired (Holm-corrected): clearly fewer saturated rows or "
        f"first components near 0 or 1 (and clearly more of neither) in "
        f"{int(better[present].sum())} of {int(present.sum())} configurations where 1/√d has "
        f"any ({share:.0%}; 'many' read as at least {many:.0%}), clearly more in "
        f"{int(worse.sum())}; the price: the median gradient reaching the query under "
        f"1/k_total is {ratio:.2g} times that under 1/√d; {_draws_note(pairs)}"
    )
    return Finding("bernhard-abstract-more-effective", verdict, measured, check)


REVIEW_EVIDENCE: dict[str, str] = {
    "bernhard-prescaled-softmax-same": "sec-measures",
    "bernhard-distortion-signals-vanishing": "sec-frontier",
    "blog-stable-responsive-region": "sec-gradients",
    "blog-gradient-flow-preserved": "sec-gradients",
    "bernhard-sqrt-d-alleviates-vanishing": "sec-gradients",
}
"""The claims :func:`review_findings` decides, with the section of *Every rescaling,
measured* that shows each."""

COMPARISON_EVIDENCE: dict[str, str] = {
    "bernhard-small-logits-little-distortion": "sec-query-scales",
    "bernhard-abstract-more-effective": "sec-k-total-gradients",
    "bernhard-conclusion-k-total-better": "sec-k-total-summary",
}
"""The claims :func:`comparison_findings` decides, with the section of *1/k_total against
the alternatives* that shows each."""


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
    ``grid_setting`` describe the main setting and the standard normal grid, for the check
    texts."""
    return {
        "bernhard-prescaled-softmax-same": bernhard_prescaled_same(
            prescaled_gap, check=f"one draw at the main setting ({main})"
        ),
        "bernhard-distortion-signals-vanishing": bernhard_distortion_signals(
            curve_steps, check=f"consecutive constant factors f/√d, paired over draws ({main})"
        ),
        "blog-stable-responsive-region": blog_stable_region(
            grid[grid["rescaling"] == "sqrt_d"],
            family_sqrt_d,
            normal=normal,
            check=f"{grid_setting}; every family at the main setting ({main})",
        ),
        "blog-gradient-flow-preserved": blog_gradient_flow(grid, check=grid_setting),
        "bernhard-sqrt-d-alleviates-vanishing": bernhard_sqrt_d_alleviates(
            sqrt_vs_none_grid,
            check=f"{grid_setting}; 'demonstrated time and again in its widespread use' is not "
            "testable here",
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
    ``every`` describe the main setting and every configuration, for the check texts."""
    return {
        "bernhard-small-logits-little-distortion": bernhard_small_logits(
            query_scales, check=f"queries scaled, keys of the same draws fixed ({main})"
        ),
        "bernhard-abstract-more-effective": bernhard_abstract_more_effective(
            k_vs_sqrt, check=every
        ),
        "bernhard-conclusion-k-total-better": bernhard_conclusion(
            sqrt_vs_none, k_vs_sqrt, check=every
        ),
    }
