"""What the rescalings' runs show, in numbers: clear paired differences over configurations,
spreads across d and n, crossings along a curve, and the counts and ranges their rules read.

>>> pairs = example_pairs()
>>> wins(pairs).tolist(), wins(pairs, "saturated_share", side="above").tolist()
([True, True], [False, False])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp
from numpy.typing import ArrayLike

from attncore.checks import ParameterError, finite_array, positive_real, table_with
from attncore.evidence.statistics import (
    FAMILY_LEVEL,
    MIN_DRAWS,
    clear,
    clear_side,
    exceeds_p,
    holm,
    one_sided_p,
    single,
)
from attncore.measures import ShapeReference

__all__ = [
    "CALLS",
    "MATCH_ATOL",
    "MATCH_RTOL",
    "alleviation",
    "avoidance",
    "beyond",
    "calls",
    "calls_by_family",
    "clearly_above",
    "clearly_below",
    "conclusion_counts",
    "corrected_calls",
    "distortion_signals",
    "distortion_values",
    "even_more_so",
    "example_pairs",
    "family_calls",
    "fewest_draws",
    "gradient_falls",
    "gradient_flow",
    "jacobian_refutations",
    "jacobian_table",
    "jacobian_values",
    "largest_gap_pct",
    "leaving",
    "leaving_tests",
    "lowest",
    "matched_calls",
    "matched_draws",
    "matched_factor",
    "matched_pairs",
    "matched_table",
    "matched_values",
    "mean_selectivity",
    "operation_groups",
    "places",
    "query_scale_crossing",
    "ratio_times_n",
    "saturation_values",
    "section5_counts",
    "section5_divisors",
    "section5_extra_operations",
    "section5_frame",
    "spread",
    "spread_calls",
    "spread_tests",
    "spreads",
    "stable_region",
    "tail_difference",
    "value_range",
    "wins",
    "worse_by_n",
    "worse_groups",
]

#: The calls of :func:`calls`, in the order tables give them.
CALLS = ("worse", "same", "better", "unclear")


def example_pairs() -> pd.DataFrame:
    """Two configurations of a made-up rescaling ``a`` against ``b`` over 10 draws, with every
    column the rules of the rescalings read, for their examples: ``a`` distorts clearly less,
    saturates clearly less, and passes about 1/n of ``b``'s gradient."""
    index = pd.MultiIndex.from_tuples([("N", 16, 8), ("N", 16, 64)], names=["family", "d", "n"])
    pairs = pd.DataFrame(index=index)
    for metric, a, b in [
        ("wasserstein", [0.1, 0.1], [0.3, 0.3]),
        ("selectivity", [1e-3, 1e-3], [0.1, 0.1]),
        ("saturated_share", [0.0, 0.0], [0.1, 0.3]),
    ]:
        pairs[f"{metric}_a"], pairs[f"{metric}_b"] = a, b
        pairs[f"{metric}_diff"] = np.subtract(a, b)
        pairs[f"{metric}_diff_se"] = 0.01
    pairs["effective_share_a"] = [0.99, 0.6]
    pairs["gradient_norm_a"], pairs["gradient_norm_b"] = [0.1, 0.01], 1.0
    return pairs.assign(draws=10)


def wins(
    pairs: pd.DataFrame,
    metric: str = "wasserstein",
    side: str = "below",
    level: float = FAMILY_LEVEL,
) -> pd.Series:
    """Where ``metric`` of ``a`` is clearly ``below`` (or ``above``) that of ``b``:
    Holm-corrected one-sided t tests over the configurations of ``pairs``."""
    diff, se = pairs[f"{metric}_diff"], pairs[f"{metric}_diff_se"]
    return clear(diff, se, pairs["draws"], side, level)


def fewest_draws(pairs: pd.DataFrame) -> dict[str, Any]:
    """The fewest draws of a configuration of ``pairs`` (``draws``) and whether that is fewer
    than :data:`~attncore.evidence.statistics.MIN_DRAWS` (``few``)."""
    fewest = int(pairs["draws"].min())
    return {"draws": fewest, "few": fewest < MIN_DRAWS}


def clearly_below(diff: pd.Series, se: pd.Series, draws: pd.Series | int, z: float) -> pd.Series:
    """Where ``diff`` is clearly below 0: a single difference over ``draws`` draws at the level
    of ``z`` standard errors (:func:`~attncore.evidence.statistics.single`).

    >>> clearly_below(pd.Series([-0.3, -0.1, -0.3]), pd.Series([0.1] * 3), [40, 40, 2], 2).tolist()
    [True, False, False]
    """
    return pd.Series(single(diff, se, draws, "below", z), index=diff.index)


def clearly_above(diff: pd.Series, se: pd.Series, draws: pd.Series | int, z: float) -> pd.Series:
    """Where ``diff`` is clearly above 0 (as :func:`clearly_below`, the other side)."""
    return pd.Series(single(diff, se, draws, "above", z), index=diff.index)


def beyond(diff: float, se: float, draws: int, z: float) -> bool:
    """Whether one difference is clearly above 0 (:func:`clearly_above` for a number)."""
    return clear_side(diff, se, draws, z) == "above"


def value_range(values: pd.Series) -> tuple[float, float]:
    """The smallest and the largest of ``values``."""
    return float(values.min()), float(values.max())


def places(index: pd.Index, most: int = 3) -> list[dict[str, Any]]:
    """The configurations of ``index``, each a record of its ``family``, ``d`` and ``n``; none
    beyond ``most`` of them (a count says how many)."""
    if len(index) > most:
        return []
    return [{"family": str(f), "d": int(d), "n": int(n)} for f, d, n in index]


def distortion_values(pairs: pd.DataFrame, won: pd.Series, uniform_share: float) -> dict[str, Any]:
    """What ``pairs`` show of a rescaling ``a`` against ``b`` where ``a`` clearly distorts less
    in ``won``: its ``wins``, the ranges of W₁ of both and of the selectivity ratio, how often
    ``a``'s attention keeps more than ``uniform_share`` of the keys, the configurations it did
    not win (``missed``, :func:`places`) and the draws."""
    ratio = pairs["selectivity_a"] / pairs["selectivity_b"]
    uniform = pairs["effective_share_a"] > uniform_share
    return {
        "wins": (int(won.sum()), len(pairs)),
        "w_a": value_range(pairs["wasserstein_a"]),
        "w_b": value_range(pairs["wasserstein_b"]),
        "ratio": value_range(ratio),
        "share_min": float(pairs["effective_share_a"].min()),
        "uniform": int(uniform.sum()),
        "missed": places(pairs.index[~won.to_numpy()]),
        **fewest_draws(pairs),
    }


def even_more_so(
    pairs: pd.DataFrame, reference: pd.DataFrame, level: float = FAMILY_LEVEL
) -> pd.Series:
    """Per configuration of ``pairs``: is the gap ``W₁_b - W₁_a`` clearly larger than the gap of
    ``reference`` (indexed by ``d, n``) at the same ``d, n``? One-sided t tests on the
    difference of the two gaps (independent draws), Holm-corrected over the configurations.

    >>> idx = pd.MultiIndex.from_tuples([("f", 8, 4)], names=["family", "d", "n"])
    >>> ref = pd.DataFrame({"wasserstein_diff": [-0.1], "wasserstein_diff_se": [0.01]},
    ...                    index=pd.MultiIndex.from_tuples([(8, 4)], names=["d", "n"]))
    >>> pairs = pd.DataFrame({"wasserstein_diff": [-0.3], "wasserstein_diff_se": [0.01],
    ...                       "draws": [10]}, idx)
    >>> even_more_so(pairs, ref).tolist()
    [True]
    """
    table_with("pairs", pairs, ["wasserstein_diff", "wasserstein_diff_se", "draws"])
    ref = reference.reindex([(d, n) for _, d, n in pairs.index])
    gap = -pairs["wasserstein_diff"].to_numpy() + ref["wasserstein_diff"].to_numpy()
    se = np.hypot(
        pairs["wasserstein_diff_se"].fillna(0.0).to_numpy(),
        ref["wasserstein_diff_se"].fillna(0.0).to_numpy(),
    )
    return clear(pd.Series(gap, index=pairs.index), se, pairs["draws"], "above", level)


def section5_counts(
    alternatives: Mapping[str, pd.DataFrame], margin: float, level: float = FAMILY_LEVEL
) -> dict[str, Any]:
    """Section 5's alternatives against k_total (pairs ``a`` = k_total, ``b`` = an alternative,
    tests Holm-corrected over every comparison together): where k_total's W₁ is clearly below
    (``wins``) or above (``losses``) by more than ``margin`` times its own, where it is clearly
    less selective (``selective``), and per alternative its counts and median ratios
    (``rows``)."""
    every = pd.concat(list(alternatives.values()), keys=list(alternatives))
    large = every["wasserstein_diff"].abs() > margin * every["wasserstein_a"]
    won = wins(every, level=level) & large
    selective = wins(every, "selectivity", level=level)
    rows = [
        {
            "label": label,
            "won": int(won[label].sum()),
            "selective": int(selective[label].sum()),
            "configurations": len(p),
            "w_ratio": float((p["wasserstein_b"] / p["wasserstein_a"]).median()),
            "s_ratio": float((p["selectivity_b"] / p["selectivity_a"]).median()),
        }
        for label, p in alternatives.items()
    ]
    losses = wins(every, side="above", level=level) & large
    return {"every": every, "wins": won, "losses": losses, "selective": selective, "rows": rows}


def section5_divisors(n: int, p: float) -> dict[str, sp.Expr]:
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


def section5_extra_operations(n_values: tuple[int, int], p: float) -> dict[str, tuple[int, int]]:
    """Per alternative of :func:`section5_divisors`: how many more operations
    (``sympy.count_ops``) it takes than k_total at each of the two numbers of keys
    ``n_values``.

    >>> section5_extra_operations((4, 8), 3)["mean key length"]
    (1, 1)
    """
    counts = {
        n: {name: int(sp.count_ops(expr)) for name, expr in section5_divisors(n, p).items()}
        for n in n_values
    }
    small, large = n_values
    return {
        name: (
            counts[small][name] - counts[small]["k_total"],
            counts[large][name] - counts[large]["k_total"],
        )
        for name in counts[small]
        if name != "k_total"
    }


def operation_groups(
    extra: Mapping[str, tuple[int, int]], n_values: tuple[int, int]
) -> list[dict[str, Any]]:
    """The alternatives of ``extra`` (:func:`section5_extra_operations`) grouped by their
    extra operations: the ``names`` of each group, its extra count ``at_small`` and
    ``at_large``, and the two numbers of keys (``small``, ``large``)."""
    small, large = n_values
    alike: dict[tuple[int, int], list[str]] = {}
    for name, counts in extra.items():
        alike.setdefault(counts, []).append(name)
    return [
        {"names": names, "at_small": a, "at_large": b, "small": small, "large": large}
        for (a, b), names in alike.items()
    ]


def section5_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The ``rows`` of :func:`section5_counts` as a table, one row per alternative."""
    columns = {
        "w1_clearly_above_k_total": "won",
        "clearly_more_selective": "selective",
        "configurations": "configurations",
        "median_w1_ratio_to_k_total": "w_ratio",
        "median_selectivity_ratio": "s_ratio",
    }
    return pd.DataFrame({r["label"]: {c: r[k] for c, k in columns.items()} for r in rows}).T


def calls(pairs: pd.DataFrame, margin: float, level: float = FAMILY_LEVEL) -> pd.Series:
    """Per configuration, ``worse``, ``better``, ``same`` or ``unclear`` for ``a`` against
    ``b``: worse or better when the paired W₁ difference is clear (one-sided t tests,
    Holm-corrected over the configurations) and exceeds ``margin`` times ``b``'s W₁; the same
    when it is within that margin (near the uniform end both sit on the floor of the curve,
    where a paired test alone would call differences of 1e-4); unclear when it exceeds the
    margin but the draws cannot tell its sign.

    >>> pairs = pd.DataFrame({"wasserstein_diff": [0.05, -0.05, 0.001, 0.05],
    ...                       "wasserstein_diff_se": [0.001, 0.001, 0.0001, 0.1],
    ...                       "wasserstein_b": [0.1] * 4, "draws": [10] * 4})
    >>> calls(pairs, 0.1).tolist()
    ['worse', 'better', 'same', 'unclear']
    """
    table_with(
        "pairs", pairs, ["wasserstein_diff", "wasserstein_diff_se", "wasserstein_b", "draws"]
    )
    large = pairs["wasserstein_diff"].abs() > margin * pairs["wasserstein_b"]
    worse = wins(pairs, side="above", level=level) & large
    better = wins(pairs, side="below", level=level) & large
    named = np.where(worse, "worse", np.where(better, "better", np.where(large, "unclear", "same")))
    return pd.Series(named, index=pairs.index, name="call")


def family_calls(pairs: pd.DataFrame, called: pd.Series) -> list[dict[str, Any]]:
    """Per family of ``pairs``: the mean factor ratio ``factor_a / factor_b`` (``ratio``) and
    how many configurations got each of :data:`CALLS` in ``called``."""
    family = pairs.index.get_level_values("family")
    ratio = (pairs["factor_a"] / pairs["factor_b"]).groupby(family, sort=False).mean()
    return [
        {"family": str(f), "ratio": float(ratio[f])} | {k: int((c == k).sum()) for k in CALLS}
        for f, c in called.groupby(family, sort=False)
    ]


def calls_by_family(pairs: pd.DataFrame, called: pd.Series) -> pd.DataFrame:
    """Per family: the counts of each of :data:`CALLS` in ``called`` and the mean factor ratio
    ``c(n sqrt d) / c(k_total)`` (pairs ``a`` = n_sqrt_d, ``b`` = k_total)."""
    family = pairs.index.get_level_values("family")
    table = called.groupby(family, sort=False).value_counts().unstack(fill_value=0)
    table = table.reindex(columns=list(CALLS), fill_value=0)
    table["c(n√d) / c(k_total)"] = (
        (pairs["factor_a"] / pairs["factor_b"]).groupby(family, sort=False).mean()
    )
    return table


def worse_groups(table: pd.DataFrame, normal: str) -> dict[str, Any]:
    """Over the families of :func:`calls_by_family`'s ``table`` other than ``normal``: the
    ``groups`` of families worse in ``every``, ``some`` or ``no`` configuration (each a record
    of ``how`` and ``families``, none empty), and the ``worse`` calls of all ``calls``."""
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
    return {"groups": groups, "worse": worse.sum(), "calls": others[list(CALLS)].to_numpy().sum()}


def worse_by_n(called: pd.Series) -> list[dict[str, Any]]:
    """Per n of ``called``'s index: how many of its configurations are ``worse`` of all, a
    pair (``worse``), and ``n``."""
    is_worse = (called == "worse").groupby(called.index.get_level_values("n"))
    return [
        {"worse": (int(k), int(m)), "n": int(n)}
        for n, k, m in zip(is_worse.sum().index, is_worse.sum(), is_worse.size(), strict=True)
    ]


def jacobian_table(summary: pd.DataFrame, steady: float, falls_to: float, z: float) -> pd.DataFrame:
    """Per ``n`` of a standard normal grid: the softmax's own gradient without scaling and
    with ``1/sqrt(d)`` between the smallest and the largest ``d``, each difference clear at
    ``z`` standard errors.

    ``summary`` holds the rows of ``none`` and ``sqrt_d`` with the columns ``rescaling, d,
    n, jacobian_norm, saturated_share`` and their ``_se``, and ``draws``. Columns of the
    result: the ratio of the unscaled mean Jacobian norm at the last ``d`` to the first and
    whether it falls clearly or clearly stays above ``falls_to`` of its start, the unscaled
    saturated share at the first and last ``d`` and whether it rises clearly, and under
    ``1/sqrt(d)`` the largest over smallest Jacobian norm across ``d`` and whether it clearly
    stays within a factor ``steady`` or clearly moves beyond it; and at the largest ``d`` the
    ratio of the Jacobian norm with ``1/sqrt(d)`` to the unscaled one, and whether it is
    clearly above 1 (the scaling counteracts the small gradients there).
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
            high["jacobian_norm"] - steady * low["jacobian_norm"], spread_se, draws, z
        )
        rows.append(
            {
                "n": n,
                "none_j_ratio": last["jacobian_norm"] / first["jacobian_norm"],
                "none_j_falls": beyond(j_drop, j_se, draws, z),
                "none_j_stays": beyond(
                    last["jacobian_norm"] - falls_to * first["jacobian_norm"],
                    math.hypot(last["jacobian_norm_se"], falls_to * first["jacobian_norm_se"]),
                    draws,
                    z,
                ),
                "none_saturated_first": first["saturated_share"],
                "none_saturated_last": last["saturated_share"],
                "none_saturation_rises": beyond(s_rise, s_se, draws, z),
                "sqrt_d_j_spread": high["jacobian_norm"] / low["jacobian_norm"],
                "sqrt_d_j_stable": root_side == "below",
                "sqrt_d_j_moves": root_side == "above",
                "sqrt_d_saturated_max": float(root["saturated_share"].max()),
                "sqrt_d_over_none_last": root.iloc[-1]["jacobian_norm"] / last["jacobian_norm"],
                "sqrt_d_counteracts": beyond(
                    root.iloc[-1]["jacobian_norm"] - last["jacobian_norm"],
                    math.hypot(root.iloc[-1]["jacobian_norm_se"], last["jacobian_norm_se"]),
                    draws,
                    z,
                ),
            }
        )
    return pd.DataFrame(rows).set_index("n")


def jacobian_refutations(summary: pd.DataFrame, steady: float, falls_to: float) -> pd.DataFrame:
    """Per ``n`` of a :func:`jacobian_table` grid, the one-sided p values of the tests that can
    refute (columns ``n, test, p``): ``moves``, 1/sqrt(d)'s Jacobian norm at one d beyond
    ``steady`` times that at another (every ordered pair, :func:`exceeds_p`), and ``stays``,
    the unscaled norm at the last d above ``falls_to`` of the first."""
    rows = []
    for n, part in summary.groupby("n"):
        none = part[part["rescaling"] == "none"].sort_values("d")
        root = part[part["rescaling"] == "sqrt_d"].sort_values("d")
        draws = int(part["draws"].min())
        moves = exceeds_p(root["jacobian_norm"], root["jacobian_norm_se"], draws, steady)
        rows += [{"n": n, "test": "moves", "p": float(p)} for p in moves]
        first, last = none.iloc[0], none.iloc[-1]
        stay = last["jacobian_norm"] - falls_to * first["jacobian_norm"]
        se = math.hypot(last["jacobian_norm_se"], falls_to * first["jacobian_norm_se"])
        rows.append(
            {"n": n, "test": "stays", "p": float(one_sided_p([stay], [se], draws, "above")[0])}
        )
    return pd.DataFrame(rows, columns=["n", "test", "p"])


def jacobian_values(table: pd.DataFrame, ds: pd.Series, threshold: float) -> dict[str, Any]:
    """What :func:`jacobian_table` shows over every ``n``, with the grid's ``ds`` and the
    ``threshold`` above which a row counts as saturated: the ``d`` range, the number of n
    (``ns``), the range of the unscaled Jacobian ratio, where it ``falls``, the ranges of
    the unscaled saturation at the first and last d, where it ``rises``, 1/√d's largest
    ``spread`` and where it is ``stable``, and at the largest d the range of 1/√d's Jacobian
    norm over the unscaled one (``against``) and where it is clearly above (``counteracts``)."""
    d = sorted(ds.unique())
    return {
        "d": (int(d[0]), int(d[-1])),
        "ns": len(table),
        "ratio": value_range(table["none_j_ratio"]),
        "falls": int(table["none_j_falls"].sum()),
        "threshold": threshold,
        "sat_first": value_range(table["none_saturated_first"]),
        "sat_last": value_range(table["none_saturated_last"]),
        "rises": int(table["none_saturation_rises"].sum()),
        "spread": float(table["sqrt_d_j_spread"].max()),
        "stable": int(table["sqrt_d_j_stable"].sum()),
        "against": value_range(table["sqrt_d_over_none_last"]),
        "counteracts": int(table["sqrt_d_counteracts"].sum()),
    }


def ratio_times_n(pairs: pd.DataFrame) -> float:
    """The median over ``pairs`` of the gradient ratio ``gradient_norm_a / gradient_norm_b``
    times n."""
    ratio = pairs["gradient_norm_a"] / pairs["gradient_norm_b"]
    n = pairs.index.get_level_values("n").to_numpy(dtype=float)
    return float(np.median(ratio.to_numpy() * n))


def saturation_values(
    pairs: pd.DataFrame, uniform_share: float, level: float = FAMILY_LEVEL
) -> dict[str, Any]:
    """What ``pairs`` (``a`` against ``b``) show of saturation: the ranges of the saturated
    shares, where ``a``'s is clearly lower (``less``, of all) or higher (``more``), where its
    W₁ is clearly lower (``lower_w``), the gradient ratio ``a / b`` (range, ``median``,
    :func:`ratio_times_n`), how often ``a``'s attention keeps more than ``uniform_share`` of
    the keys, and the draws."""
    ratio = pairs["gradient_norm_a"] / pairs["gradient_norm_b"]
    uniform = pairs["effective_share_a"] > uniform_share
    return {
        "sat_a": value_range(pairs["saturated_share_a"]),
        "sat_b": value_range(pairs["saturated_share_b"]),
        "less": (int(wins(pairs, "saturated_share", "below", level).sum()), len(pairs)),
        "more": int(wins(pairs, "saturated_share", "above", level).sum()),
        "lower_w": int(wins(pairs, level=level).sum()),
        "ratio": value_range(ratio),
        "median": float(ratio.median()),
        "times_n": ratio_times_n(pairs),
        "share_min": float(pairs["effective_share_a"].min()),
        "uniform": int(uniform.sum()),
        **fewest_draws(pairs),
    }


def tail_difference(heavy: pd.Series, normal: pd.Series, z: float) -> dict[str, Any]:
    """W₁ per draw with heavy-tailed components (``heavy``) against standard normal ones
    (``normal``): the means, the heavy draws' range, the draws, and on which ``side`` of 0
    the difference of the means clearly lies at ``z`` standard errors (None where unclear)."""
    heavy, normal = heavy.dropna(), normal.dropna()
    if heavy.empty or normal.empty:
        raise ParameterError("heavy and normal must hold at least one W₁ each")
    se = math.hypot(heavy.sem(ddof=1), normal.sem(ddof=1))
    draws = min(len(heavy), len(normal))
    return {
        "heavy": float(heavy.mean()),
        "heavy_range": value_range(heavy),
        "normal": float(normal.mean()),
        "draws": draws,
        "side": clear_side(heavy.mean() - normal.mean(), se, draws, z),
    }


def spread(
    part: pd.DataFrame, metric: str, ratio: float | None, z: float, flat: float | None = None
) -> str:
    """Whether ``metric`` moves across the rows of ``part`` beyond a ``ratio`` (or, with
    none, by more than ``flat``): ``beyond`` or ``within`` where the draws show it clearly at
    ``z`` standard errors, ``unclear`` where they cannot tell."""
    hi, lo = part.loc[part[metric].idxmax()], part.loc[part[metric].idxmin()]
    draws = int(part["draws"].min())
    if ratio is None:
        excess = hi[metric] - lo[metric] - flat
        se = math.hypot(hi[f"{metric}_se"], lo[f"{metric}_se"])
    else:
        excess = hi[metric] - ratio * lo[metric]
        se = math.hypot(hi[f"{metric}_se"], ratio * lo[f"{metric}_se"])
    side = clear_side(excess, se, draws, z)
    return {"above": "beyond", "below": "within", None: "unclear"}[side]


def spread_tests(
    summary: pd.DataFrame,
    by: str,
    checks: list[tuple[str, float | None]],
    flat: float | None = None,
) -> pd.DataFrame:
    """The tests behind :func:`spreads` ``beyond`` (columns ``value, p``): per value of ``by``
    and ``(metric, ratio)`` in ``checks``, :func:`exceeds_p` over every ordered pair of rows."""
    rows = []
    for value, part in summary.groupby(by):
        draws = int(part["draws"].min())
        for metric, ratio in checks:
            extra = {"ratio": ratio} if ratio is not None else {"flat": flat or 0.0}
            p = exceeds_p(part[metric], part[f"{metric}_se"], draws, **extra)
            rows += [{"value": value, "p": float(x)} for x in p]
    return pd.DataFrame(rows, columns=["value", "p"])


def corrected_calls(across: Mapping[Any, str], beyond_at: set[Any]) -> dict[Any, str]:
    """:func:`spreads` calls with ``beyond`` only at the values in ``beyond_at`` (rejected
    after Holm); a spread beyond only uncorrected is ``unclear``."""
    return {
        value: "beyond" if value in beyond_at else ("unclear" if c == "beyond" else c)
        for value, c in across.items()
    }


def _rejected_values(tests: pd.DataFrame) -> set[Any]:
    """The ``value`` of every test of ``tests`` that :func:`holm` rejects."""
    if tests.empty:
        return set()
    return set(tests["value"][holm(tests["p"].to_numpy())])


def spreads(
    summary: pd.DataFrame,
    by: str,
    checks: list[tuple[str, float | None]],
    z: float,
    flat: float | None = None,
) -> dict[Any, str]:
    """:func:`spread` of every ``(metric, ratio)`` in ``checks`` per value of ``by``: the
    worst call per value (``beyond`` over ``unclear`` over ``within``)."""
    order = ["within", "unclear", "beyond"]
    return {
        value: max((spread(part, m, ratio, z, flat) for m, ratio in checks), key=order.index)
        for value, part in summary.groupby(by)
    }


def leaving(families: pd.DataFrame, normal: str, flat: float, z: float) -> list[str]:
    """The families (rows of ``families``) whose entropy / ln n differs clearly by more than
    ``flat`` from that of ``normal``."""
    ref = families.loc[normal]
    left = []
    for family, row in families.drop(index=normal).iterrows():
        gap = abs(row["normalized_entropy"] - ref["normalized_entropy"]) - flat
        se = math.hypot(row["normalized_entropy_se"], ref["normalized_entropy_se"])
        if beyond(gap, se, int(min(row["draws"], ref["draws"])), z):
            left.append(str(family))
    return left


def leaving_tests(families: pd.DataFrame, normal: str, flat: float) -> pd.DataFrame:
    """The tests behind :func:`leaving` (columns ``value, p``): per family, entropy / ln n
    above and below the normal's by more than ``flat`` (one-sided, each side)."""
    ref = families.loc[normal]
    rows = []
    for family, row in families.drop(index=normal).iterrows():
        gap = row["normalized_entropy"] - ref["normalized_entropy"]
        se = math.hypot(row["normalized_entropy_se"], ref["normalized_entropy_se"])
        draws = int(min(row["draws"], ref["draws"]))
        p = one_sided_p([gap - flat, -gap - flat], [se, se], draws, "above")
        rows += [{"value": str(family), "p": float(x)} for x in p]
    return pd.DataFrame(rows, columns=["value", "p"])


def gradient_falls(none: pd.DataFrame, z: float) -> list[bool]:
    """Per ``n`` of ``none``: whether the median gradient clearly falls from the smallest to
    the largest ``d``."""
    falls = []
    for _, part in none.groupby("n"):
        part = part.sort_values("d")
        first, last = part.iloc[0], part.iloc[-1]
        se = math.hypot(first["gradient_median_se"], last["gradient_median_se"])
        draws = int(min(first["draws"], last["draws"]))
        falls.append(beyond(first["gradient_median"] - last["gradient_median"], se, draws, z))
    return falls


def spread_calls(across: Mapping[Any, str]) -> dict[str, Any]:
    """How many values of :func:`spreads` are clearly ``within`` (of ``ns``), and which are
    ``beyond`` or ``unclear``."""
    at = {c: [int(n) for n, call in across.items() if call == c] for c in ("beyond", "unclear")}
    return {
        "within": sum(call == "within" for call in across.values()),
        "ns": len(across),
        **at,
    }


def stable_region(
    summary: pd.DataFrame,
    families: pd.DataFrame | None,
    normal: str,
    steady: float,
    flat: float,
    z: float,
    corrected: bool = False,
) -> dict[str, Any]:
    """Across the ``d`` of each ``n`` of ``summary``: the :func:`spread_calls` of the Jacobian
    norm against a factor ``steady`` and of entropy / ln n and the saturated share against
    ``flat``; the ranges of the last two, at how many ``d`` they move beyond ``flat`` across
    ``n`` (``moving_n``), the number of ``ds``, and the families :func:`leaving` the normal's
    entropy (none without ``families``). ``corrected``: a spread is beyond, a family leaving,
    only where :func:`holm` rejects, over the ``n`` (beyond) and over the ``d`` and families
    (moving, leaving)."""
    need = ["d", "n", "jacobian_norm", "normalized_entropy", "saturated_share"]
    table_with("summary", summary, [*need, *[f"{m}_se" for m in need[2:]], "draws"])
    flats: list[tuple[str, float | None]] = [
        ("normalized_entropy", None),
        ("saturated_share", None),
    ]
    checks_d: list[tuple[str, float | None]] = [("jacobian_norm", steady), *flats]
    across_d = spreads(summary, "n", checks_d, z, flat)
    across_n = spreads(summary, "d", flats, z, flat)
    if not corrected:
        left = [] if families is None else leaving(families, normal, flat, z)
    else:
        across_d = corrected_calls(
            across_d, _rejected_values(spread_tests(summary, "n", checks_d, flat))
        )
        moving = spread_tests(summary, "d", flats, flat).assign(kind="d")
        if families is not None:
            moving = pd.concat([moving, leaving_tests(families, normal, flat).assign(kind="f")])
        rejected = moving[holm(moving["p"].to_numpy())] if len(moving) else moving
        at_d = set(rejected.loc[rejected["kind"] == "d", "value"])
        across_n = corrected_calls(across_n, at_d)
        gone = set(rejected.loc[rejected["kind"] == "f", "value"])
        left = [] if families is None else [str(f) for f in families.index if str(f) in gone]
    return {
        **spread_calls(across_d),
        "entropy": value_range(summary["normalized_entropy"]),
        "saturation": value_range(summary["saturated_share"]),
        "moving_n": sum(call == "beyond" for call in across_n.values()),
        "ds": int(summary["d"].nunique()),
        "leaving": left,
    }


def gradient_flow(
    root: pd.DataFrame, none: pd.DataFrame, same_order: float, z: float, corrected: bool = False
) -> dict[str, Any]:
    """The gradient reaching the query under 1/√d (``root``) and without scaling (``none``):
    the range over ``n`` of 1/√d's largest over smallest median across ``d``, the
    :func:`spread_calls` of its mean and median across ``d`` against a factor ``same_order``,
    at how many ``n`` the unscaled median clearly falls (:func:`gradient_falls`, of
    ``fall_ns``), at how many ``d`` 1/√d's moves beyond ``same_order`` across ``n``
    (``moving_n``), the number of ``ds`` and the range of 1/√d's mean. ``corrected``: beyond
    only where :func:`holm` rejects, over the ``n`` (across d) and over the ``d`` (across n)."""
    checks: list[tuple[str, float | None]] = [
        ("gradient_norm", same_order),
        ("gradient_median", same_order),
    ]
    across_d, across_n = spreads(root, "n", checks, z), spreads(root, "d", checks, z)
    if corrected:
        across_d = corrected_calls(across_d, _rejected_values(spread_tests(root, "n", checks)))
        across_n = corrected_calls(across_n, _rejected_values(spread_tests(root, "d", checks)))
    falls = gradient_falls(none, z)
    ratio_d = root.groupby("n")["gradient_median"].agg(lambda g: g.max() / g.min())
    return {
        "ratio": value_range(ratio_d),
        **spread_calls(across_d),
        "falls": sum(falls),
        "fall_ns": len(falls),
        "moving_n": sum(call == "beyond" for call in across_n.values()),
        "ds": int(root["d"].nunique()),
        "mean": value_range(root["gradient_norm"]),
    }


def lowest(
    w_matrix: pd.DataFrame, s_matrix: pd.DataFrame, labels: Mapping[str, str]
) -> dict[str, Any]:
    """How often k_total has the lowest distortion (``w_lowest``) and selectivity
    (``s_lowest``) of the rescalings (rows) across the families (columns), each of all, and
    the ``labels`` of the ``others`` that are lowest somewhere."""
    w_low, s_low = w_matrix.idxmin(axis=0), s_matrix.idxmin(axis=0)
    families = w_matrix.shape[1]
    return {
        "w_lowest": (int((w_low == "k_total").sum()), families),
        "s_lowest": (int((s_low == "k_total").sum()), families),
        "others": sorted({labels[r] for r in pd.concat([w_low, s_low]) if r != "k_total"}),
    }


def query_scale_crossing(scales: pd.DataFrame, z: float) -> dict[str, Any]:
    """Along the query scales of ``scales`` (index: the factor on every query): the smallest
    and largest scale, W₁ at both (``w``), whether W₁ rises clearly from the one to the other
    (``rises``), the steps clearly down (``down``), whether the smallest already distorts
    clearly more than 1/√d (``first_above``), and the first scale at which W₁ is no longer
    clearly below 1/√d's (``crossing``, at position ``at``; NaN and -1 where none) with the
    scale before it (``before``)."""
    need = ["wasserstein", "rise", "rise_se", "above_sqrt_d", "above_sqrt_d_se", "step", "step_se"]
    table_with("scales", scales, [*need, "draws"])
    s = scales.sort_index()
    draws = s["draws"]
    reached = ~clearly_below(s["above_sqrt_d"], s["above_sqrt_d_se"], draws, z)
    at = int(np.argmax(reached.to_numpy())) if reached.any() else -1
    return {
        "scales": (float(s.index.min()), float(s.index.max())),
        "w": (float(s["wasserstein"].iloc[0]), float(s["wasserstein"].iloc[-1])),
        "rises": bool(clearly_above(s["rise"], s["rise_se"], draws, z).iloc[-1]),
        "down": int(clearly_below(s["step"], s["step_se"], draws, z).sum()),
        "first_above": bool(
            clearly_above(s["above_sqrt_d"], s["above_sqrt_d_se"], draws, z).iloc[0]
        ),
        "at": at,
        "crossing": float(s.index[at]) if reached.any() else math.nan,
        "before": float(s.index[at - 1]) if at > 0 else math.nan,
    }


def distortion_signals(steps: pd.DataFrame, z: float, corrected: bool = False) -> dict[str, Any]:
    """Along consecutive constant factors (``steps``): the ``factors``, the steps on which W₁
    moves clearly (``moved``, of all), those on which the share near 0 or 1 moves clearly
    against it (``against``) and the Jacobian norm clearly with it (``with_w``; ``late`` at or
    after its peak), and the Jacobian's ``peak`` and the factor it is at (``peak_at``).
    ``corrected``: a step counts against or with W₁ only where :func:`holm` rejects, over
    steps x (share, Jacobian) x sides, each a pair of moves (p: the larger of the two)."""
    metrics = ["wasserstein", "extreme_share", "jacobian_norm"]
    parts = ("from", "to", "diff", "diff_se")
    table_with("steps", steps, [*(f"{m}_{s}" for m in metrics for s in parts), "draws"])
    w_up, w_down, e_up, e_down, j_up, j_down = (
        side(steps[f"{m}_diff"], steps[f"{m}_diff_se"], steps["draws"], z)
        for m in metrics
        for side in (clearly_above, clearly_below)
    )
    e_bad = (w_up & e_down) | (w_down & e_up)
    j_bad = (w_up & j_up) | (w_down & j_down)
    if corrected:
        e_bad, j_bad = _paired_moves(steps)
    levels = pd.concat([steps["jacobian_norm_from"], steps["jacobian_norm_to"].iloc[-1:]])
    peak = int(np.argmax(levels.to_numpy()))
    before_peak = steps.reset_index(drop=True).index < peak
    return {
        "factors": len(steps) + 1,
        "moved": (int((w_up | w_down).sum()), len(steps)),
        "against": int(e_bad.sum()),
        "with_w": int(j_bad.sum()),
        "late": int((j_bad.to_numpy() & ~before_peak).sum()),
        "peak": float(levels.max()),
        "peak_at": peak + 1,
    }


def _paired_moves(steps: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per step, whether the share moves clearly against W₁ and the Jacobian clearly with it,
    after :func:`holm` over all of them (both sides each)."""

    def p(metric: str, side: str) -> np.ndarray:
        d, se = steps[f"{metric}_diff"], steps[f"{metric}_diff_se"]
        return one_sided_p(d, se, steps["draws"], side)

    w_up, w_down = p("wasserstein", "above"), p("wasserstein", "below")
    pairs = [
        np.maximum(w_up, p("extreme_share", "below")),
        np.maximum(w_down, p("extreme_share", "above")),
        np.maximum(w_up, p("jacobian_norm", "above")),
        np.maximum(w_down, p("jacobian_norm", "below")),
    ]
    rejected = holm(np.concatenate(pairs)).reshape(4, len(steps))
    index = steps.index
    return (
        pd.Series(rejected[0] | rejected[1], index=index),
        pd.Series(rejected[2] | rejected[3], index=index),
    )


def conclusion_counts(
    sqrt_vs_none: pd.DataFrame,
    k_vs_sqrt: pd.DataFrame,
    uniform_share: float,
    level: float = FAMILY_LEVEL,
) -> dict[str, Any]:
    """Clear W₁ wins and losses of sqrt_d against none and of k_total against sqrt_d (each
    Holm-corrected over its configurations), where k_total wins how often its attention keeps
    more than ``uniform_share`` of the keys (``uniform``), and the draws of the second."""
    table_with("sqrt_vs_none", sqrt_vs_none, ["wasserstein_diff", "wasserstein_diff_se", "draws"])
    need = ["wasserstein_diff", "wasserstein_diff_se", "effective_share_a", "draws"]
    table_with("k_vs_sqrt", k_vs_sqrt, need)
    first, second = wins(sqrt_vs_none, level=level), wins(k_vs_sqrt, level=level)
    uniform = k_vs_sqrt["effective_share_a"] > uniform_share
    return {
        "sqrt_wins": int(first.sum()),
        "sqrt_of": len(first),
        "k_wins": int(second.sum()),
        "k_of": len(second),
        "sqrt_losses": int(wins(sqrt_vs_none, side="above", level=level).sum()),
        "k_losses": int(wins(k_vs_sqrt, side="above", level=level).sum()),
        "uniform": int(uniform[second].sum()),
        **fewest_draws(k_vs_sqrt),
    }


def avoidance(pairs: pd.DataFrame, level: float = FAMILY_LEVEL) -> dict[str, Any]:
    """Where ``b`` has saturated rows or components near 0 or 1 (``present``): how often ``a``
    has clearly fewer of either and clearly more of neither (``better``, and its ``share`` of
    ``present``), where it has clearly more of either (``worse``, anywhere; ``worse_share`` of
    ``present``), the median gradient ratio ``a / b`` (``ratio``) and the draws."""
    cols = ["saturated_share", "extreme_share"]
    need = [f"{m}_{s}" for m in cols for s in ("a", "b", "diff", "diff_se")]
    table_with("pairs", pairs, [*need, "gradient_norm_a", "gradient_norm_b", "draws"])
    fewer = {m: wins(pairs, m, "below", level) for m in cols}
    more = {m: wins(pairs, m, "above", level) for m in cols}
    better = (fewer[cols[0]] | fewer[cols[1]]) & ~(more[cols[0]] | more[cols[1]])
    worse = more[cols[0]] | more[cols[1]]
    present = (pairs["saturated_share_b"] > 0) | (pairs["extreme_share_b"] > 0)
    some = bool(present.any())
    return {
        "better": int(better[present].sum()),
        "present": int(present.sum()),
        "share": float(better[present].mean()) if some else 0.0,
        "worse": int(worse.sum()),
        "ratio": float((pairs["gradient_norm_a"] / pairs["gradient_norm_b"]).median()),
        **fewest_draws(pairs),
        "worse_share": float(worse[present].mean()) if some else 0.0,
    }


def alleviation(pairs: pd.DataFrame, level: float = FAMILY_LEVEL) -> dict[str, Any]:
    """Where ``a`` has clearly fewer (``fewer``) or more (``more``) components near 0 or 1 than
    ``b``, a clearly larger Jacobian norm (``larger``) and both (``both``), of the
    ``configurations``; the ranges of both shares and norms, and the draws."""
    cols = ["extreme_share", "jacobian_norm"]
    need = [f"{m}_{s}" for m in cols for s in ("a", "b", "diff", "diff_se")]
    table_with("pairs", pairs, [*need, "draws"])
    fewer = wins(pairs, "extreme_share", "below", level)
    larger = wins(pairs, "jacobian_norm", "above", level)
    return {
        "fewer": int(fewer.sum()),
        "more": int(wins(pairs, "extreme_share", "above", level).sum()),
        "larger": int(larger.sum()),
        "configurations": len(pairs),
        "both": int((fewer & larger).sum()),
        "extreme_a": value_range(pairs["extreme_share_a"]),
        "extreme_b": value_range(pairs["extreme_share_b"]),
        "jacobian_a": value_range(pairs["jacobian_norm_a"]),
        "jacobian_b": value_range(pairs["jacobian_norm_b"]),
        **fewest_draws(pairs),
    }


def _shifted(name: str, logits: Sequence[ArrayLike]) -> list[np.ndarray]:
    """Each draw's logits (``m x n``, ``n >= 2``) less its row maxima, in float64."""
    if isinstance(logits, np.ndarray) or not len(logits):
        raise ParameterError(f"{name} must be a sequence of at least one array of logits")
    shifted = []
    for z in logits:
        x = finite_array(name, z, ndim=2).astype(np.float64, copy=False)
        if x.shape[1] < 2:
            raise ParameterError(f"{name} must have at least 2 keys per row, got {x.shape[1]}")
        shifted.append(x - x.max(axis=1, keepdims=True))
    return shifted


def _selectivity_slope(
    shifted: Sequence[np.ndarray], t: float, factors: Sequence[float] | None = None
) -> tuple[float, float, list[tuple[float, np.ndarray]]]:
    """The mean selectivity ``1 - H / ln n`` of ``softmax(t f_r z_r)`` over every row of every
    draw ``r`` of ``shifted`` (logits ``z_r`` less their row maxima; ``f_r`` of ``factors``,
    1 without) and its derivative in ``ln t``, the mean of ``Var_s(y) / ln n`` for the
    logits ``y = t f_r z_r`` (``dH/dt = -t Var_s(f_r z_r)``); and per draw its selectivity
    and the probabilities of key 1."""
    level = slope = 0.0
    per_draw = []
    for r, v in enumerate(shifted):
        y = np.multiply(v, t if factors is None else t * factors[r])
        e = np.exp(y)
        total = e.sum(axis=1)
        first = np.einsum("ij,ij->i", e, y) / total
        second = np.einsum("ij,ij->i", e, np.square(y, out=y)) / total
        log_n = math.log(v.shape[1])
        own = float(np.mean(1.0 - (np.log(total) - first) / log_n))
        per_draw.append((own, e[:, 0] / total))
        level += own
        slope += float(np.mean(np.maximum(second - first * first, 0.0))) / log_n
    return level / len(shifted), slope / len(shifted), per_draw


def mean_selectivity(logits: Sequence[ArrayLike], factor: float = 1.0) -> float:
    """The mean over every row of every draw of ``logits`` (one ``m x n`` array per draw) of
    the selectivity ``1 - H / ln n`` of ``softmax(factor * z)``: 0 for uniform attention, 1
    for one-hot, the chapter's measure of how sharply attention selects.

    >>> mean_selectivity([np.zeros((2, 4))]), round(mean_selectivity([[[0.0, 50.0]]]), 6)
    (0.0, 1.0)
    """
    return _selectivity_slope(_shifted("logits", logits), positive_real("factor", factor))[0]


#: How close a matched selectivity must come to its target: a share of the target, or an
#: absolute amount near float64's rounding of ``H / ln n`` where the target is tiny.
MATCH_RTOL, MATCH_ATOL = 1e-9, 1e-14


def _root(
    shifted: Sequence[np.ndarray], factors: Sequence[float] | None, goal: float, guess: float
) -> tuple[float, list[tuple[float, np.ndarray]]]:
    """:func:`matched_factor` on logits less their row maxima, each draw's times its factor;
    with each draw's selectivity and probabilities of key 1 at the factor found."""
    widest = max(
        float(-v.min()) * (1.0 if factors is None else factors[r]) for r, v in enumerate(shifted)
    )
    if widest == 0.0:
        raise ParameterError("logits must not be constant in every row (no factor selects)")
    top = math.log(1e150 / widest)  # (t z)² stays finite below t = e^top
    s = min(math.log(guess), top)
    low, high, reach = -math.inf, math.inf, 1.0  # ln t below and above the root; a step's cap
    for _ in range(200):
        level, slope, per_draw = _selectivity_slope(shifted, math.exp(s), factors)
        if abs(level - goal) <= MATCH_RTOL * goal + MATCH_ATOL or high - low < 1e-13:
            return math.exp(s), per_draw
        if level < goal and s >= top:
            raise ParameterError(
                f"target must be at most {level:.3g} (no factor selects more), got {goal!r}"
            )
        low, high = (s, high) if level < goal else (low, s)
        up = 1.0 if level < goal else -1.0
        newton = math.log(goal / level) * level / slope if level > 0 < slope else up * math.inf
        if math.isfinite(low) and math.isfinite(high):
            s = s + newton if low < s + newton < high else (low + high) / 2
        else:  # no bracket yet: Newton's step, capped by a reach that doubles each time
            s = min(s + up * min(abs(newton), reach), top)
            reach *= 2
    raise ParameterError(f"no factor was found for the target selectivity {goal!r}")


def matched_factor(logits: Sequence[ArrayLike], target: float, guess: float = 1.0) -> float:
    """The constant ``t > 0`` for which ``softmax(t z)`` over every row of every draw of
    ``logits`` has the mean selectivity ``target`` (:func:`mean_selectivity`): one number
    shared by the draws, found from ``guess`` by Newton steps in ``ln t``, kept inside the
    bracket of the values seen on either side and halving it where a step would leave it.
    The entropy of ``softmax(t z)`` falls as ``t`` grows (``dH/dt = -t Var_s(z)``), so the
    root is unique; a target no ``t`` reaches is an error.

    >>> z = [np.array([[0.0, 1.0, 2.0], [0.5, 0.0, -1.0]])]
    >>> round(matched_factor(z, mean_selectivity(z, 2.5)), 9)
    2.5
    >>> matched_factor([np.array([[0.0, 1.0, 1.0]])], 0.5)  # a tie: at most 1 - ln 2 / ln 3
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: target must be at most 0.369 (no factor selects more), got 0.5
    """
    shifted = _shifted("logits", logits)
    goal, start = positive_real("target", target), positive_real("guess", guess)
    return _root(shifted, None, goal, start)[0]


def matched_draws(
    dots: Sequence[ArrayLike],
    factors_a: ArrayLike,
    selectivity_a: ArrayLike,
    references: Mapping[str, ArrayLike],
) -> dict[str, dict[str, Any]]:
    """One configuration, each rescaling ``b`` of ``references`` at the selectivity of ``a``:
    on the raw dot products of each draw (``dots``, ``m x n``; the distortion is that of key
    1's column), where ``a`` multiplies the logits by ``factors_a`` and ``b`` by its factors
    (``references[b]``), the one constant ``t`` (``multiplier``, :func:`matched_factor`) that
    gives ``t b`` the mean selectivity of ``a`` over the draws, and per draw the
    ``selectivity`` and the W₁ (``wasserstein``) of ``t b``. ``selectivity_a`` is ``a``'s
    selectivity as measured per draw: the draws must reproduce it, or they are not the draws
    that were measured.

    One ``t`` per configuration, not per draw: on one draw a factor rescaling *is* ``b``
    times a constant (``factor_a / factor_b``), so a match per draw would give back ``a``
    itself; a constant shared by the draws is a fixed rescaling, ``b`` tuned to attend as
    sharply as ``a`` does on average.

    >>> rng = np.random.default_rng(0)
    >>> dots = [rng.standard_normal((50, 8)) for _ in range(3)]
    >>> seen = [mean_selectivity([z], 0.5 + 0.1 * r) for r, z in enumerate(dots)]
    >>> found = matched_draws(dots, [0.5, 0.6, 0.7], seen, {"b": [1.0, 1.0, 1.0]})["b"]
    >>> round(found["multiplier"], 3), len(found["wasserstein"])
    (0.59, 3)
    >>> bool(np.isclose(np.mean(found["selectivity"]), np.mean(seen), rtol=1e-8))
    True
    """
    shifted = _shifted("dots", dots)
    fa, seen = (
        finite_array("factors_a", factors_a, ndim=1),
        finite_array("selectivity_a", selectivity_a, ndim=1),
    )
    factors = {b: finite_array(f"references[{b!r}]", f, ndim=1) for b, f in references.items()}
    if not len(fa) == len(seen) == len(shifted) or any(len(f) != len(fa) for f in factors.values()):
        raise ParameterError(
            "dots, factors_a, selectivity_a and each reference must have one entry per draw"
        )
    if (fa <= 0).any() or any((f <= 0).any() for f in factors.values()):
        raise ParameterError("factors_a and the references' factors must be > 0")
    own = np.array([_selectivity_slope([v], f)[0] for v, f in zip(shifted, fa, strict=True)])
    if not np.allclose(own, seen, rtol=1e-4, atol=1e-9):
        raise ParameterError(
            "dots must be the draws whose selectivity_a was measured: their selectivity under "
            f"factors_a is {own.tolist()}, not {seen.tolist()}"
        )
    shapes = [ShapeReference(np.asarray(z, dtype=np.float64)[:, 0]) for z in dots]
    found = {}
    for b, fb in factors.items():
        t, at = _root(shifted, fb.tolist(), float(np.mean(seen)), float(np.mean(fa / fb)))
        found[b] = {
            "multiplier": t,
            "selectivity": [level for level, _ in at],
            "wasserstein": [
                shape.distortion(first).wasserstein
                for shape, (_, first) in zip(shapes, at, strict=True)
            ],
        }
    return found


def matched_pairs(per_draw: pd.DataFrame) -> pd.DataFrame:
    """Per configuration ``family, d, n`` of ``per_draw`` (one row per draw: W₁ and selectivity
    of ``a`` and of the matched reference ``b``, and the reference's ``multiplier``): the
    means ``<metric>_a`` and ``<metric>_b``, the mean paired difference ``<metric>_diff``
    (``a - b``) with its standard error ``<metric>_diff_se``, the ``multiplier`` and the
    ``draws``, as :func:`attncore.simulate.sweep.pair_rescalings` gives them.

    >>> rows = pd.DataFrame({"family": "f", "d": 8, "n": 4, "replicate": [0, 1],
    ...     "wasserstein_a": [0.1, 0.2], "wasserstein_b": [0.1, 0.3],
    ...     "selectivity_a": 0.01, "selectivity_b": 0.01, "multiplier": 0.5})
    >>> row = matched_pairs(rows).iloc[0]
    >>> float(row["wasserstein_diff"]), float(row["wasserstein_diff_se"]), int(row["draws"])
    (-0.05, 0.05, 2)
    """
    metrics = ["wasserstein", "selectivity"]
    need = [f"{m}_{s}" for m in metrics for s in "ab"]
    table_with("per_draw", per_draw, ["family", "d", "n", *need, "multiplier"])
    diffs = {f"{m}_diff": per_draw[f"{m}_a"] - per_draw[f"{m}_b"] for m in metrics}
    grouped = per_draw.assign(**diffs).groupby(["family", "d", "n"], sort=False)
    out = grouped[[*need, *diffs, "multiplier"]].mean()
    for name in diffs:
        out[f"{name}_se"] = grouped[name].sem(ddof=1)
    out["draws"] = grouped.size()
    return out


def matched_calls(matched: pd.DataFrame, margin: float, level: float = FAMILY_LEVEL) -> pd.Series:
    """Per configuration of ``a`` against ``b`` at ``a``'s selectivity: :func:`calls`'s
    ``better`` and ``worse``; ``same`` only where the draws show that ``a``'s advantage is
    smaller than ``margin`` times ``b``'s W₁ (the difference clearly above minus that, by
    Holm-corrected one-sided t tests), so that a lost advantage is a finding, not a
    difference the tests could not see; ``unclear`` otherwise.

    >>> pairs = pd.DataFrame({"wasserstein_diff": [0.0, 0.0, -0.05, 0.05],
    ...                       "wasserstein_diff_se": [0.001, 0.2, 0.001, 0.001],
    ...                       "wasserstein_b": [0.1] * 4, "draws": [10] * 4})
    >>> matched_calls(pairs, 0.1).tolist()
    ['same', 'unclear', 'better', 'worse']
    """
    called = calls(matched, margin, level)
    floor = matched["wasserstein_diff"] + margin * matched["wasserstein_b"]
    within = clear(floor, matched["wasserstein_diff_se"], matched["draws"], "above", level)
    decided = called.isin(["better", "worse"])
    same = np.where(within.to_numpy(), "same", "unclear")
    return called.where(decided, pd.Series(same, index=called.index))


def matched_values(
    matched: pd.DataFrame, won: pd.Series, margin: float, level: float = FAMILY_LEVEL
) -> dict[str, Any]:
    """What :func:`matched_pairs` (``a`` against ``b`` at ``a``'s selectivity) show where
    ``a`` clearly distorts less than ``b`` itself (``won``): per :func:`matched_calls` at
    ``margin``, where ``a`` stays lower (``kept``, of the wins), the same and higher, and the
    largest difference as a percentage of the matched W₁ (``largest_pct``,
    :func:`largest_gap_pct`); the rest is :func:`matched_table`'s.

    >>> pairs = example_pairs()
    >>> matched = pairs.assign(wasserstein_b=0.1, wasserstein_diff=0.001, multiplier=0.01,
    ...                        wasserstein_diff_se=0.001)
    >>> values = matched_values(matched, wins(pairs), 0.1)
    >>> values["kept"], values["same"], values["largest_pct"]
    ((0, 2), 2, 1.0)
    """
    need = ["wasserstein_diff", "wasserstein_diff_se", "wasserstein_b", "multiplier", "draws"]
    table_with("matched", matched, need)
    on = won.reindex(matched.index, fill_value=False).to_numpy(dtype=bool)
    if not on.any():
        raise ParameterError("won must hold at least one configuration of matched")
    called = matched_calls(matched, margin, level)[on]
    part = matched[on]
    return {
        "kept": (int((called == "better").sum()), int(on.sum())),
        "same": int((called == "same").sum()),
        "higher": int((called == "worse").sum()),
        "largest_pct": largest_gap_pct(part),
    }


def largest_gap_pct(matched: pd.DataFrame) -> float:
    """The largest difference of :func:`matched_pairs` as a percentage of the matched W₁.

    >>> largest_gap_pct(pd.DataFrame({"wasserstein_diff": [0.001, -0.004],
    ...                               "wasserstein_b": [0.1, 0.2]}))
    2.0
    """
    return float(100 * (matched["wasserstein_diff"].abs() / matched["wasserstein_b"]).max())


def _matched_row(
    today: pd.DataFrame, won: pd.Series, matched: pd.DataFrame, called: pd.Series
) -> dict[str, Any]:
    """One row of :func:`matched_table`: today's clear wins and the matched calls, each over
    every configuration, the largest matched difference and the range of the multiplier t."""
    return {
        "configurations": len(today),
        "draws": int(today["draws"].min()),
        "lower_today": int(won.sum()),
        **{call: int((called == call).sum()) for call in CALLS},
        "largest_pct": largest_gap_pct(matched),
        "multiplier_min": float(matched["multiplier"].min()),
        "multiplier_max": float(matched["multiplier"].max()),
    }


def matched_table(
    distortion: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    alternatives: Mapping[str, pd.DataFrame] | None,
    matched_alternatives: Mapping[str, pd.DataFrame] | None,
    margin: float,
    section5_margin: float,
    level: float = FAMILY_LEVEL,
) -> pd.DataFrame:
    """Today's comparison and the matched one side by side, one row per comparison: per label
    of ``distortion`` (today's pairs ``a`` against ``b``, and ``a`` against ``b`` at ``a``'s
    selectivity), and per section 5 alternative (``alternatives`` and
    ``matched_alternatives``, counted as :func:`section5_counts` counts them at
    ``section5_margin``): the configurations and draws, where ``a``'s W₁ is clearly lower today
    (``lower_today``), the :data:`CALLS` of ``a`` at matched selectivity (``better``: lower by
    more than ``margin`` of the matched W₁), the largest matched difference as a percentage of
    the matched W₁ and the range of the multiplier t.

    >>> pairs = example_pairs()
    >>> matched = pairs.assign(wasserstein_b=0.1, wasserstein_diff=0.001, multiplier=0.01,
    ...                        wasserstein_diff_se=0.001)
    >>> row = matched_table({"toy": (pairs, matched)}, None, None, 0.1, 0.1).loc["toy"]
    >>> int(row["lower_today"]), int(row["same"]), int(row["better"])
    (2, 2, 0)
    """
    rows = {}
    for label, (today, matched) in distortion.items():
        won = wins(today, level=level)
        rows[label] = _matched_row(today, won, matched, matched_calls(matched, margin, level))
    if alternatives and matched_alternatives:
        counts = section5_counts(alternatives, section5_margin, level)
        every = pd.concat([matched_alternatives[k] for k in alternatives], keys=list(alternatives))
        called = matched_calls(every, margin, level)
        for label, today in alternatives.items():
            rows[label] = _matched_row(
                today, counts["wins"][label], every.loc[label], called[label]
            )
    return pd.DataFrame.from_dict(rows, orient="index")
