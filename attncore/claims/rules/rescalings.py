"""Verdict rules of *Every rescaling, measured* and *1/k_total against the alternatives*.

Most read paired comparisons of rescalings ``a`` and ``b`` per configuration ``family, d, n``
through :mod:`attncore.evidence.rescalings`: counts over configurations are Holm-corrected,
a single difference along a curve or across d is clear at ``CLEAR``.

>>> pairs = ev.example_pairs()
>>> lower_distortion("bernhard-other-moments", pairs, "k_total", "sqrt_d", check="toy").verdict
<Verdict.HOLDS: 'holds'>
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from attncore.checks import ParameterError, table_with
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.evidence import rescalings as ev
from attncore.evidence.statistics import MIN_DRAWS, holm
from attncore.rescalings import RESCALINGS

limits = thresholds_of("rescalings")

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
    "comparison_findings",
    "curve_reading",
    "few_draws",
    "heavy_tails_reading",
    "lower_distortion",
    "lowest_reading",
    "matched_reading",
    "matched_table",
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


def few_draws(draws: int) -> Reading:
    """Branch ``few`` below :data:`~attncore.evidence.statistics.MIN_DRAWS`, else ``enough``.

    >>> few_draws(2)
    Reading(branch='few', values={'draws': 2, 'needed': 10})
    """
    return Reading("few" if draws < MIN_DRAWS else "enough", {"draws": draws, "needed": MIN_DRAWS})


def _label(name: str) -> str:
    """A registered rescaling's label (``sqrt_d`` -> ``1/√d``), any other name as it is."""
    return RESCALINGS[name].label if name in RESCALINGS else name


def _optional(key: str, items: list[Any]) -> list[dict[str, Any]]:
    """``items`` as a template's optional clause: one record under ``key``, none if empty."""
    return [{key: items}] if items else []


_DISTORTION = ["wasserstein_a", "wasserstein_b", "wasserstein_diff", "wasserstein_diff_se"]
_DISTORTION += ["selectivity_a", "selectivity_b", "effective_share_a", "draws"]


def _distortion_verdict(won: pd.Series, lost: pd.Series, clean: bool = True) -> Verdict:
    """**Holds** if ``won`` everywhere (and ``clean``), a caveat if in at least half; else
    **fails** if ``lost`` anywhere, untestable if not."""
    if won.all():
        return Verdict.HOLDS if clean else Verdict.CAVEAT
    if won.mean() >= 0.5:
        return Verdict.CAVEAT
    return Verdict.FAILS if lost.any() else Verdict.UNTESTABLE


def _distortion(pairs: pd.DataFrame, better: str, worse: str, won: pd.Series) -> dict[str, Any]:
    """The values a distortion claim says, with the rescalings' labels."""
    values = {"better": _label(better), "worse": _label(worse)}
    values |= ev.distortion_values(pairs, won, limits.UNIFORM_SHARE)
    values["missed"] = _optional("places", values["missed"])
    return values


def _matched(
    verdict: Verdict,
    won: pd.Series,
    matched: pd.DataFrame | None,
    margin: float,
    level: float,
    many: float | None = None,
) -> tuple[Verdict, str, dict[str, Any]]:
    """Today's ``verdict`` on "``a`` distorts less" (``won``: where ``a`` clearly does), read
    beside the same comparison at ``a``'s selectivity (``matched``,
    :func:`~attncore.evidence.rescalings.matched_values`). Where the claim holds, with or
    without a caveat, and some wins are lost at matched selectivity (the same or higher; with
    ``many``, so many that fewer than that share of the configurations is left), a caveat:
    branch ``flatter-only`` if every win is lost, ``partly-flatter`` if some are. Otherwise
    ``verdict`` unchanged, with no branch and no values."""
    if matched is None or verdict not in (Verdict.HOLDS, Verdict.CAVEAT) or not won.any():
        return verdict, "", {}
    same_configurations = matched.index.is_unique and matched.index.isin(won.index).all()
    if len(matched) != len(won) or not same_configurations:
        raise ParameterError("matched must hold the configurations of pairs, once each")
    values = ev.matched_values(matched, won, margin, level)
    lost = values["same"] + values["higher"]
    left = (int(won.sum()) - lost) / len(won)
    if not lost or (many is not None and left >= many):
        return verdict, "", {}
    said = {"kept": values["kept"], "largest_pct": values["largest_pct"]}  # the rest: the table
    return Verdict.CAVEAT, "flatter-only" if lost == won.sum() else "partly-flatter", said


@decided_by(limits.MATCHED_MARGIN, limits.LEVEL)
def lower_distortion(
    claim: str,
    pairs: pd.DataFrame,
    better: str,
    worse: str,
    *,
    check: str,
    matched: pd.DataFrame | None = None,
    matched_margin: float = limits.MATCHED_MARGIN,
    level: float = limits.LEVEL,
) -> Finding:
    """``better`` (``a``) distorts less than ``worse`` on W₁: :func:`_distortion_verdict` of its
    clear wins and losses, read beside ``matched`` (``a`` against ``worse`` at ``a``'s
    selectivity; ``None``: not compared) by :func:`_matched`."""
    table_with("pairs", pairs, _DISTORTION)
    won = ev.wins(pairs, level=level)
    verdict = _distortion_verdict(won, ev.wins(pairs, side="above", level=level))
    verdict, branch, flatter = _matched(verdict, won, matched, matched_margin, level)
    values = _distortion(pairs, better, worse, won) | flatter
    return Finding(claim, verdict, check=check, values=values, branch=branch)


@decided_by(limits.MATCHED_MARGIN, limits.LEVEL)
def bernhard_other_families(
    pairs: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    check: str,
    matched: pd.DataFrame | None = None,
    matched_margin: float = limits.MATCHED_MARGIN,
    level: float = limits.LEVEL,
) -> Finding:
    """bernhard-other-families (``a`` = k_total, ``b`` = sqrt_d): as :func:`lower_distortion`, at
    best a caveat where a family is not ``even_more_so`` than ``reference`` (``not_more``)."""
    table_with("pairs", pairs, _DISTORTION)
    won = ev.wins(pairs, level=level)
    more = ev.even_more_so(pairs, reference, level)
    by_family = more.groupby(level="family", sort=False).all()
    not_more = [str(f) for f, ok in by_family.items() if not ok]
    verdict = _distortion_verdict(won, ev.wins(pairs, side="above", level=level), not not_more)
    verdict, branch, flatter = _matched(verdict, won, matched, matched_margin, level)
    values = _distortion(pairs, "k_total", "sqrt_d", won)
    values["more"] = (int(more.sum()), len(more))
    values["not_more"] = _optional("families", not_more)
    values |= flatter
    return Finding("bernhard-other-families", verdict, check=check, values=values, branch=branch)


@decided_by(limits.MARGIN, limits.MATCHED_MARGIN, limits.LEVEL)
def bernhard_section5_worse(
    alternatives: Mapping[str, pd.DataFrame],
    *,
    check: str,
    matched: Mapping[str, pd.DataFrame] | None = None,
    margin: float = limits.MARGIN,
    matched_margin: float = limits.MATCHED_MARGIN,
    level: float = limits.LEVEL,
) -> Finding:
    """bernhard-section5-worse (label -> pairs ``a`` = k_total, ``b`` = the alternative):
    :func:`_distortion_verdict` over every comparison, beyond ``margin`` times k_total's W₁
    (near the uniform end both sit on the curve's floor), read beside ``matched`` (label ->
    k_total against the alternative at k_total's selectivity) by :func:`_matched`, with the
    matched counts per alternative (``matched``)."""
    if not alternatives:
        raise ParameterError("alternatives must name at least one alternative")
    for pairs in alternatives.values():
        table_with("pairs", pairs, [*_DISTORTION, "selectivity_diff", "selectivity_diff_se"])
    counts = ev.section5_counts(alternatives, margin, level)
    verdict = _distortion_verdict(counts["wins"], counts["losses"])
    shown = ("label", "won", "configurations", "w_ratio", "s_ratio")
    values = {
        "alternatives": [{k: row[k] for k in shown} for row in counts["rows"]],
        "selective": (int(counts["selective"].sum()), len(counts["selective"])),
        **ev.fewest_draws(counts["every"]),
    }
    branch = ""
    if matched is not None:
        every = pd.concat([matched[label] for label in alternatives], keys=list(alternatives))
        won = counts["wins"]
        verdict, branch, _ = _matched(verdict, won, every, matched_margin, level)
        if branch:
            label_of = won.index.get_level_values(0)
            values["matched"] = [
                {"label": label, "kept": found["kept"], "largest_pct": found["largest_pct"]}
                for label in alternatives
                if won[label_of == label].any()
                for found in [
                    ev.matched_values(every, won & (label_of == label), matched_margin, level)
                ]
            ]
    return Finding("bernhard-section5-worse", verdict, check=check, values=values, branch=branch)


def matched_table(
    distortion: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    alternatives: Mapping[str, pd.DataFrame] | None = None,
    matched_alternatives: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """:func:`~attncore.evidence.rescalings.matched_table` at the rules' margins and level."""
    return ev.matched_table(
        distortion,
        alternatives,
        matched_alternatives,
        limits.MATCHED_MARGIN,
        limits.MARGIN,
        limits.LEVEL,
    )


def matched_reading(
    today: pd.DataFrame, matched: pd.DataFrame, margin: float = limits.MATCHED_MARGIN
) -> Reading:
    """Whether ``a`` keeps its lower distortion against ``b`` at its own selectivity
    (``matched``) where it is clearly lower today (``today``): branch ``kept`` (lower by more
    than ``margin`` of the matched W₁ wherever it wins today), ``partly`` (in some) or
    ``vanishes`` (in none), ``no-wins`` where it wins nowhere today; values the configurations
    kept of those won and the largest matched difference as a percentage.

    >>> pairs = ev.example_pairs()
    >>> matched = pairs.assign(wasserstein_b=0.1, wasserstein_diff=0.001, multiplier=0.01,
    ...                        wasserstein_diff_se=0.001)
    >>> matched_reading(pairs, matched).branch
    'vanishes'
    """
    won = ev.wins(today, level=limits.LEVEL)
    if not won.any():
        return Reading("no-wins", {"configurations": len(today)})
    values = ev.matched_values(matched, won, margin, limits.LEVEL)
    kept, of = values["kept"]
    branch = "kept" if kept == of else "partly" if kept else "vanishes"
    return Reading(branch, {"kept": values["kept"], "largest_pct": values["largest_pct"]})


def section5_table(alternatives: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per alternative: the counts and median ratios :func:`bernhard_section5_worse` reads."""
    return ev.section5_frame(ev.section5_counts(alternatives, limits.MARGIN, limits.LEVEL)["rows"])


def section5_complexity(n_values: tuple[int, int] = (4, 8), p: float = 3) -> Finding:
    """bernhard-section5-more-complicated: **holds** if every alternative's extra operations over
    k_total grow with n (one division more is the same computation), a caveat if some do.

    >>> section5_complexity().verdict.value
    'holds with a caveat'
    """
    extra = ev.section5_extra_operations(n_values, p)
    growing = [name for name, (a, b) in extra.items() if b > a]
    same = [name for name in extra if name not in growing]
    if len(growing) == len(extra):
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.CAVEAT if growing else Verdict.FAILS
    values = {"groups": ev.operation_groups(extra, n_values), "same": _optional("names", same)}
    values |= {"small": n_values[0], "large": n_values[1]}
    return Finding("bernhard-section5-more-complicated", verdict, values=values)


def n_sqrt_d_calls(
    pairs: pd.DataFrame, margin: float = limits.MARGIN, level: float = limits.LEVEL
) -> pd.Series:
    """:func:`~attncore.evidence.rescalings.calls` of ``a`` = n_sqrt_d against ``b`` = k_total.

    >>> n_sqrt_d_calls(ev.example_pairs()).tolist()
    ['better', 'better']
    """
    return ev.calls(pairs, margin, level)


@decided_by(limits.MARGIN, limits.LEVEL)
def bernhard_n_sqrt_d_other(
    pairs: pd.DataFrame,
    normal: str,
    *,
    check: str,
    margin: float = limits.MARGIN,
    level: float = limits.LEVEL,
) -> Finding:
    """bernhard-n-sqrt-d-other (``a`` = n_sqrt_d, ``b`` = k_total) on the families other than
    ``normal``: **holds** if all calls are worse, a caveat if some; if none, **fails** where
    every call is decided, untestable where some are unclear."""
    need = ["wasserstein_diff", "wasserstein_diff_se", "wasserstein_b", "factor_a", "factor_b"]
    table_with("pairs", pairs, need)
    called = n_sqrt_d_calls(pairs, margin, level)
    others = called[pairs.index.get_level_values("family") != normal]
    if others.empty:
        raise ParameterError(f"pairs must hold a family other than {normal!r}")
    if (others == "worse").all():
        verdict = Verdict.HOLDS
    elif (others == "worse").any():
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.UNTESTABLE if (others == "unclear").any() else Verdict.FAILS
    values = {"families": ev.family_calls(pairs, called), **ev.fewest_draws(pairs)}
    return Finding("bernhard-n-sqrt-d-other", verdict, check=check, values=values)


def n_sqrt_d_by_family(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per family: the counts of :func:`n_sqrt_d_calls` and the mean factor ratio."""
    return ev.calls_by_family(pairs, n_sqrt_d_calls(pairs))


def vaswani_table(
    summary: pd.DataFrame, steady: float = limits.STEADY, falls_to: float = limits.FALLS_TO
) -> pd.DataFrame:
    """Per ``n``: what :func:`vaswani_small_gradients` reads
    (:func:`~attncore.evidence.rescalings.jacobian_table` at the rule's thresholds)."""
    return ev.jacobian_table(summary, steady, falls_to, limits.CLEAR)


@decided_by(limits.FALLS_TO, limits.STEADY, limits.CLEAR)
def vaswani_small_gradients(
    summary: pd.DataFrame,
    *,
    threshold: float,
    check: str,
    falls_to: float = limits.FALLS_TO,
    steady: float = limits.STEADY,
) -> Finding:
    """vaswani-small-gradients per ``n`` of :func:`vaswani_table`: a caveat if 1/√d is steady and
    the unscaled Jacobian falls or saturation rises (or both, 1/√d not steady), or if all three
    hold but 1/√d's Jacobian is not clearly above the unscaled one at the largest d for every n
    (``counteract`` compares the two at one (d, n); all-n conditions need no correction);
    **fails** if Holm over every n's tests (:func:`_refuted`) finds 1/√d moving, or the
    unscaled Jacobian staying where saturation does not rise."""
    table = vaswani_table(summary, steady, falls_to)
    falls = table["none_j_falls"]
    halves = falls & (table["none_j_ratio"] < falls_to)
    rises = table["none_saturation_rises"]
    stable = table["sqrt_d_j_stable"]
    branch = ""
    if halves.all() and rises.all() and stable.all():
        verdict = Verdict.HOLDS
        if not table["sqrt_d_counteracts"].all():
            verdict, branch = Verdict.CAVEAT, "not-counteracted"
    elif (stable.all() and (falls.all() or rises.all())) or (halves.all() and rises.all()):
        verdict = Verdict.CAVEAT
    elif _refuted(summary, rises, steady, falls_to):
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    values = ev.jacobian_values(table, summary["d"], threshold)
    return Finding("vaswani-small-gradients", verdict, check=check, values=values, branch=branch)


def _refuted(summary: pd.DataFrame, rises: pd.Series, steady: float, falls_to: float) -> bool:
    """Whether :func:`~attncore.evidence.statistics.holm` over every n's refuting tests rejects one
    that counts (``stays`` only where saturation does not rise)."""
    tests = ev.jacobian_refutations(summary, steady, falls_to)
    hit = tests[holm(tests["p"].to_numpy())]
    counts = (hit["test"] == "moves") | ~hit["n"].map(rises).astype(bool)
    return bool(counts.any())


_VANISHING = ["saturated_share_diff", "saturated_share_diff_se", "wasserstein_diff"]
_VANISHING += ["wasserstein_diff_se", "effective_share_a", "gradient_norm_a", "gradient_norm_b"]
_VANISHING += ["draws"]


def vanishing_caveats(pairs: pd.DataFrame, price: float = limits.PRICE) -> list[str]:
    """What qualifies 1/k_total's lower saturation (``a`` = k_total, ``b`` = sqrt_d): ``more
    saturated`` somewhere, ``higher W₁``, a median gradient below ``price`` times sqrt_d's
    (``price``, or ``price 1/n`` where the ratio times n is within a factor 3 of 1).

    >>> vanishing_caveats(ev.example_pairs())
    ['price 1/n']
    """
    table_with("pairs", pairs, _VANISHING)
    caveats = ["more saturated"] if ev.wins(pairs, "saturated_share", "above").any() else []
    if not ev.wins(pairs).all():
        caveats.append("higher W₁")
    if float((pairs["gradient_norm_a"] / pairs["gradient_norm_b"]).median()) < price:
        caveats.append("price 1/n" if 1 / 3 <= ev.ratio_times_n(pairs) <= 3 else "price")
    return caveats


@decided_by(limits.PRICE, limits.LEVEL)
def bernhard_vanishing_gradients(
    pairs: pd.DataFrame,
    *,
    threshold: float,
    check: str,
    price: float = limits.PRICE,
    level: float = limits.LEVEL,
) -> Finding:
    """bernhard-vanishing-gradients (``a`` = k_total, ``b`` = sqrt_d; saturated: largest
    probability above ``threshold``): where k_total saturates clearly less somewhere, a caveat
    with :func:`vanishing_caveats`; else **fails** if clearly more somewhere."""
    table_with("pairs", pairs, [*_VANISHING, "saturated_share_a", "saturated_share_b"])
    values = {"threshold": threshold, **ev.saturation_values(pairs, limits.UNIFORM_SHARE, level)}
    if values["less"][0]:
        verdict = Verdict.CAVEAT if vanishing_caveats(pairs, price) else Verdict.HOLDS
    else:
        verdict = Verdict.FAILS if values["more"] else Verdict.UNTESTABLE
    return Finding("bernhard-vanishing-gradients", verdict, check=check, values=values)


def curve_reading(largest_off_curve: float, tolerance: float = 0.02) -> Reading:
    """The factor rescalings' largest distance from the curve of constant factors: branch
    ``on`` (within ``tolerance``), ``off`` or ``unmeasured`` (NaN).

    >>> curve_reading(0.004).branch
    'on'
    """
    off = largest_off_curve
    branch = "unmeasured" if math.isnan(off) else "on" if off <= tolerance else "off"
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
    """The :data:`_PLACES` claims together: their verdict where all agree (not a caveat),
    else ``fails`` where one fails, ``where-told`` where one is undecided, ``caveat``; value
    ``verdicts``, per verdict reached its ``places``."""
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
        {"verdict": [v.key], "places": [p for c, p in _PLACES.items() if findings[c].verdict is v]}
        for v in Verdict
        if v in verdicts
    ]
    return Reading(topic, {"verdicts": records})


def _uniform_reading(pairs: pd.DataFrame) -> Reading:
    """How often 1/k_total's attention is nearly uniform: ``every``, ``most`` (at least
    half), ``few`` or ``none``."""
    uniform = int((pairs["effective_share_a"] > limits.UNIFORM_SHARE).sum())
    if 2 * uniform >= len(pairs):
        branch = "every" if uniform == len(pairs) else "most"
    else:
        branch = "few" if uniform else "none"
    return Reading(branch, {"uniform": uniform, "configurations": len(pairs)})


def summary_readings(findings: Mapping[str, Finding], pairs: pd.DataFrame) -> dict[str, Reading]:
    """The chapter's results by topic: ``distortion``, ``uniform`` (over ``pairs``) and each of
    :data:`_TOPICS` as its claim's verdict key, ``vanishing`` with :func:`vanishing_caveats`
    (``caveat-unnamed`` for a caveat with none of them).

    >>> f = {c: Finding(c, Verdict.CAVEAT) for c in [*_PLACES, *_TOPICS.values()]}
    >>> summary_readings(f, ev.example_pairs())["vanishing"].values["caveats"]
    ['price 1/n']
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


def n_sqrt_d_reading(pairs: pd.DataFrame, normal: str) -> Reading:
    """Which families other than ``normal`` 1/(n√d) is worse for (``groups``): branch ``by-n``
    (with ``by_n``) where worse in some settings but not all, ``whole`` otherwise, ``none``
    where no other family was compared."""
    found = ev.worse_groups(n_sqrt_d_by_family(pairs), normal)
    groups = found["groups"]
    if not groups:
        return Reading("none", {})
    if found["worse"] in (0, found["calls"]):
        return Reading("whole", {"groups": groups})
    rest = n_sqrt_d_calls(pairs[pairs.index.get_level_values("family") != normal])
    return Reading("by-n", {"groups": groups, "by_n": ev.worse_by_n(rest)})


def lowest_reading(
    w_matrix: pd.DataFrame, s_matrix: pd.DataFrame, labels: Mapping[str, str]
) -> Reading:
    """How often k_total has the lowest distortion (``w_lowest``) and selectivity
    (``s_lowest``) of the rescalings (rows) across the families (columns): branch ``others``
    with the ``others`` lowest elsewhere, ``alone`` where none.

    >>> w = pd.DataFrame({"f": [0.1, 0.5], "g": [0.3, 0.2]}, index=["k_total", "sqrt_d"])
    >>> lowest_reading(w, w, {"k_total": "1/k_total", "sqrt_d": "1/√d"})
    Reading(branch='others', values={'w_lowest': (1, 2), 's_lowest': (1, 2), 'others': ['1/√d']})
    """
    values = ev.lowest(w_matrix, s_matrix, labels)
    if values["others"]:
        return Reading("others", values)
    return Reading("alone", {k: v for k, v in values.items() if k != "others"})


def heavy_tails_reading(heavy: pd.Series, normal: pd.Series, df: float) -> Reading:
    """Whether 1/k_total distorts clearly more (``costs``), less (``lowers``) or neither
    (``unclear``) with Student t components of ``df`` degrees of freedom (W₁ per draw,
    ``heavy``) than with standard normal ones (``normal``), at ``CLEAR``.

    >>> heavy_tails_reading(pd.Series([0.08, 0.084]), pd.Series([0.04, 0.041]), 5).branch
    'costs'
    """
    values = ev.tail_difference(heavy, normal, limits.CLEAR)
    side = values.pop("side")
    branch = {"above": "costs", "below": "lowers", None: "unclear"}[side]
    return Reading(branch, {"df": float(df), **values})


@decided_by(limits.MODERATE, limits.CLEAR)
def bernhard_small_logits(
    scales: pd.DataFrame, *, check: str, moderate: float = limits.MODERATE
) -> Finding:
    """bernhard-small-logits-little-distortion on :func:`attncore.simulate.study.query_scale_table`:
    **fails** if W₁ starts above 1/√d's or reaches it without rising; untestable if it neither
    rises nor reaches it, or the grid brackets ``moderate``; a caveat on a clear step down."""
    m = ev.query_scale_crossing(scales, limits.CLEAR)
    reached = m["at"] >= 0
    if m["first_above"] or (not m["rises"] and reached):
        verdict = Verdict.FAILS
    elif not m["rises"]:
        verdict = Verdict.UNTESTABLE
    elif m["down"] or m["crossing"] <= moderate:
        verdict = Verdict.CAVEAT
    elif m["before"] < moderate:
        verdict = Verdict.UNTESTABLE
    else:
        verdict = Verdict.HOLDS
    values: dict[str, Any] = {k: m[k] for k in ("scales", "w", "rises", "down")}
    if not reached:
        branch = "too-small" if verdict is Verdict.UNTESTABLE else "never"
    elif m["at"] == 0:
        branch = "at-once"
    else:
        branch = "coarse" if verdict is Verdict.UNTESTABLE else "between"
        values |= {"before": m["before"], "crossing": m["crossing"]}
    claim = "bernhard-small-logits-little-distortion"
    return Finding(claim, verdict, check=check, values=values, branch=branch)


@decided_by(limits.ROUNDING)
def bernhard_prescaled_same(
    gap: float, *, check: str, tolerance: float = limits.ROUNDING
) -> Finding:
    """bernhard-prescaled-softmax-same: **holds** if the two computations differ by at most
    ``tolerance``.

    >>> bernhard_prescaled_same(1e-16, check="toy").verdict.value
    'holds'
    """
    if not math.isfinite(gap) or gap < 0:
        raise ParameterError(f"gap must be a finite number >= 0, got {gap!r}")
    verdict = Verdict.HOLDS if gap <= tolerance else Verdict.FAILS
    return Finding("bernhard-prescaled-softmax-same", verdict, check=check, values={"gap": gap})


@decided_by(limits.CLEAR)
def bernhard_distortion_signals(steps: pd.DataFrame, *, check: str) -> Finding:
    """bernhard-distortion-signals-vanishing on :func:`attncore.simulate.study.curve_steps`: a
    caveat if only the Jacobian breaks it, before its peak (near the uniform end); untestable
    if W₁ moves clearly on no step. Breaks count after Holm over steps x metrics x sides."""
    values = ev.distortion_signals(steps, limits.CLEAR, corrected=True)
    if not values["moved"][0]:
        verdict = Verdict.UNTESTABLE
    elif not (values["against"] or values["with_w"]):
        verdict = Verdict.HOLDS
    elif not values["against"] and not values["late"]:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS
    return Finding("bernhard-distortion-signals-vanishing", verdict, check=check, values=values)


@decided_by(limits.MANY, limits.MATCHED_MARGIN, limits.LEVEL)
def bernhard_conclusion(
    sqrt_vs_none: pd.DataFrame,
    k_vs_sqrt: pd.DataFrame,
    *,
    check: str,
    matched: pd.DataFrame | None = None,
    many: float = limits.MANY,
    matched_margin: float = limits.MATCHED_MARGIN,
    level: float = limits.LEVEL,
) -> Finding:
    """bernhard-conclusion-k-total-better: each part borne out by clear wins in at least
    ``many`` of its configurations, refuted by as many losses; a caveat if one is borne out,
    **fails** if neither is and one is refuted. The second part ("even better") is read
    beside ``matched`` (k_total against 1/√d at k_total's selectivity) by :func:`_matched`,
    which must leave ``many`` of the configurations."""
    values = ev.conclusion_counts(sqrt_vs_none, k_vs_sqrt, limits.UNIFORM_SHARE, level)
    sqrt_of, k_of = values["sqrt_of"], values["k_of"]
    borne = [values["sqrt_wins"] / sqrt_of >= many, values["k_wins"] / k_of >= many]
    if all(borne):
        verdict = Verdict.HOLDS
    elif any(borne):
        verdict = Verdict.CAVEAT
    else:
        refuted = values["sqrt_losses"] / sqrt_of >= many or values["k_losses"] / k_of >= many
        verdict = Verdict.FAILS if refuted else Verdict.UNTESTABLE
    branch = ""
    if borne[1]:
        won = ev.wins(k_vs_sqrt, level=level)
        verdict, branch, flatter = _matched(verdict, won, matched, matched_margin, level, many)
        values |= flatter
    claim = "bernhard-conclusion-k-total-better"
    return Finding(claim, verdict, check=check, values=values, branch=branch)


@decided_by(limits.MANY, limits.PRICE, limits.LEVEL)
def bernhard_abstract_more_effective(
    pairs: pd.DataFrame,
    *,
    check: str,
    many: float = limits.MANY,
    price: float = limits.PRICE,
    level: float = limits.LEVEL,
) -> Finding:
    """bernhard-abstract-more-effective (``a`` = k_total, ``b`` = sqrt_d), where sqrt_d saturates:
    borne out by clear wins in at least ``many``, with a caveat if worse somewhere or at a
    ``price``; refuted (**fails**) by as many losses; untestable otherwise."""
    values = ev.avoidance(pairs, level)
    worse_share = values.pop("worse_share")
    if not values["present"]:
        verdict = Verdict.UNTESTABLE
    elif values["share"] >= many:
        caveat = values["worse"] or values["ratio"] < price
        verdict = Verdict.CAVEAT if caveat else Verdict.HOLDS
    elif worse_share >= many:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    return Finding("bernhard-abstract-more-effective", verdict, check=check, values=values)


@decided_by(limits.STEADY, limits.FLAT, limits.CLEAR)
def blog_stable_region(
    summary: pd.DataFrame,
    families: pd.DataFrame | None = None,
    *,
    normal: str,
    check: str,
    steady: float = limits.STEADY,
    flat: float = limits.FLAT,
) -> Finding:
    """blog-stable-responsive-region on the ``sqrt_d`` rows of a grid (``summary``) and of other
    ``families`` at one (d, n): **fails** if something moves clearly beyond its bound across d
    (Holm over n x metrics x pairs of d), untestable if not clearly within at every n; a caveat
    if it moves with n or with the family (Holm over d x metrics x pairs of n, and families)."""
    region = ev.stable_region(summary, families, normal, steady, flat, limits.CLEAR, corrected=True)
    values = _clauses(region)
    values["leaving"] = _optional("families", values["leaving"])
    if values["beyond"]:
        verdict = Verdict.FAILS
    elif values["unclear"]:
        verdict = Verdict.UNTESTABLE
    else:
        verdict = Verdict.CAVEAT if (values["moving_n"] or values["leaving"]) else Verdict.HOLDS
    return Finding("blog-stable-responsive-region", verdict, check=check, values=values)


def _clauses(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the n ``beyond`` or ``unclear`` of a spread as optional clauses."""
    return values | {c: _optional("ns", values[c]) for c in ("beyond", "unclear")}


@decided_by(limits.SAME_ORDER, limits.CLEAR)
def blog_gradient_flow(
    summary: pd.DataFrame, *, check: str, same_order: float = limits.SAME_ORDER
) -> Finding:
    """blog-gradient-flow-preserved on the ``none`` and ``sqrt_d`` rows of a grid: **fails** if
    1/√d's gradient moves clearly beyond ``same_order`` across d (Holm over n x metrics x pairs
    of d), untestable if not clearly within at every n; a caveat if 1/√d's moves with n (Holm
    over d x metrics x pairs of n) or the unscaled median does not clearly fall at every n."""
    need = ["rescaling", "d", "n", "gradient_norm", "gradient_median"]
    table_with("summary", summary, [*need, "gradient_norm_se", "gradient_median_se", "draws"])
    root = summary[summary["rescaling"] == "sqrt_d"]
    none = summary[summary["rescaling"] == "none"]
    if root.empty or none.empty:
        raise ParameterError("summary must hold the rows of none and sqrt_d")
    values = _clauses(ev.gradient_flow(root, none, same_order, limits.CLEAR, corrected=True))
    if values["beyond"]:
        verdict = Verdict.FAILS
    elif values["unclear"]:
        verdict = Verdict.UNTESTABLE
    else:
        moving = values["moving_n"] or values["falls"] < values["fall_ns"]
        verdict = Verdict.CAVEAT if moving else Verdict.HOLDS
    return Finding("blog-gradient-flow-preserved", verdict, check=check, values=values)


@decided_by(limits.LEVEL)
def bernhard_sqrt_d_alleviates(
    pairs: pd.DataFrame, *, check: str, level: float = limits.LEVEL
) -> Finding:
    """bernhard-sqrt-d-alleviates-vanishing (``a`` = sqrt_d, ``b`` = none): a caveat if sqrt_d
    has clearly fewer components near 0 or 1 in at least half (not everywhere with a larger
    Jacobian); **fails** if more somewhere and fewer in less than half."""
    values = ev.alleviation(pairs, level)
    if values["both"] == values["configurations"]:
        verdict = Verdict.HOLDS
    elif values["fewer"] / values["configurations"] >= 0.5:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS if values["more"] else Verdict.UNTESTABLE
    return Finding("bernhard-sqrt-d-alleviates-vanishing", verdict, check=check, values=values)


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
    """``finding`` with the ``setting`` its claim's ``check`` template says, in place of a
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
    """The findings of :data:`REVIEW_EVIDENCE` from the tables of
    :func:`attncore.simulate.study.review_tables`; ``main`` and ``grid_setting`` are what the
    check templates say."""
    stable = blog_stable_region(
        grid[grid["rescaling"] == "sqrt_d"], family_sqrt_d, normal=normal, check=""
    )
    at_main, on_grid = {"main": main}, {"setting": grid_setting}
    found = [
        (bernhard_prescaled_same(prescaled_gap, check=""), at_main),
        (bernhard_distortion_signals(curve_steps, check=""), at_main),
        (stable, on_grid | at_main),
        (blog_gradient_flow(grid, check=""), on_grid),
        (bernhard_sqrt_d_alleviates(sqrt_vs_none_grid, check=""), on_grid),
    ]
    return {finding.claim: _set(finding, **said) for finding, said in found}


def comparison_findings(
    *,
    query_scales: pd.DataFrame,
    sqrt_vs_none: pd.DataFrame,
    k_vs_sqrt: pd.DataFrame,
    main: str,
    every: str,
    matched: pd.DataFrame | None = None,
) -> dict[str, Finding]:
    """The findings of :data:`COMPARISON_EVIDENCE` from the tables of
    :func:`attncore.simulate.study.comparison_tables` and ``matched``, k_total against 1/√d
    at k_total's selectivity in every configuration (:func:`bernhard_conclusion`); ``main``
    and ``every`` are what the check templates say."""
    conclusion = bernhard_conclusion(sqrt_vs_none, k_vs_sqrt, matched=matched, check="")
    found = [
        (bernhard_small_logits(query_scales, check=""), {"main": main}),
        (bernhard_abstract_more_effective(k_vs_sqrt, check=""), {"every": every}),
        (conclusion, {"every": every}),
    ]
    return {finding.claim: _set(finding, **said) for finding, said in found}
