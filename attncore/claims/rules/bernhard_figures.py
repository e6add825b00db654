"""Verdicts on the visual claims of Bernhard's Figures 1 and 2, as data: each rule returns the
values that decided it and the branch its claim's template says them with
(:mod:`attncore.claims.catalogue.bernhard`).

Every rule reads one table of per-draw statistics, the long table of
:func:`attncore.sources.bernhard.sweep` (columns ``seed``, ``panel``, ``sample`` and the
distortion statistics of each softmax panel), for one sample, ``"intended"`` or
``"published"``. A draw is one independent simulation of all six panels, so every comparison
of two panels is paired draw by draw, and every mean over draws carries its standard error:
a mean is *clearly* beyond a mark when it is beyond it by more than :data:`Z` standard errors.
Besides the means, each rule asks how often a single draw (what one printed figure shows)
agrees, against the share ``share_required``.

Each rule comes in two forms: ``assess_*`` returns an :class:`Assessment` (the
:class:`~attncore.claims.Finding` and the chapter's :class:`~attncore.claims.finding.Reading`
of it), and the plain rule returns only the finding. The numbers live in the finding, which
the chapter shows once, in its verdict line; the reading holds only what the chapter's
conclusion names (which marks, which panels), so that its sentence says what the numbers
mean without repeating them.

>>> import pandas as pd
>>> rows = [
...     {"seed": s, "panel": p, "sample": "intended", "wasserstein": w, "ks_statistic": w / 2,
...      "skewness_change": 3 * w, "q50": 1e-4, "mean_normalized_entropy": 0.9}
...     for s in range(4) for p, w in [("1b", 0.7 + s / 100), ("1c", 0.3 + s / 100)]
... ]
>>> sqrt_d_helps(pd.DataFrame(rows)).verdict.value
'holds'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attncore.checks import finite_array
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.bernhard_figures import (
    FAMILY_LEVEL,
    LAW_LEVEL,
    MUCH,
    NEAR_ZERO_WEIGHT,
    NOMINAL_LEVEL,
    SHARE_REQUIRED,
    SKEWED,
    Z,
)
from attncore.evidence.statistics import clear, single

__all__ = [
    "SAME_SAMPLE_SHARE",
    "Assessment",
    "Estimate",
    "assess_k_total_better",
    "assess_other_components_similar",
    "assess_sqrt_d_helps",
    "assess_unscaled_distorts",
    "changed_verdicts",
    "differing_share",
    "estimate",
    "fig1_vanishing_inference",
    "k_total_better",
    "other_components_similar",
    "published_agreement",
    "samples_differ",
    "sqrt_d_helps",
    "unscaled_distorts",
]


@dataclass(frozen=True)
class Estimate:
    """A mean over draws with its standard error (sample standard deviation / sqrt(n))."""

    mean: float
    se: float
    n: int

    def above(self, mark: float) -> bool:
        """Whether the mean is clearly above ``mark``: a t test over its ``n`` draws at the
        level of :data:`Z` standard errors (never with one draw).

        >>> Estimate(1.0, 0.1, 200).above(0.7), Estimate(1.0, 0.1, 2).above(0.7)
        (True, False)
        """
        return bool(single([self.mean - mark], [self.se], self.n, "above", Z)[0])

    def below(self, mark: float) -> bool:
        """Whether the mean is clearly below ``mark``."""
        return bool(single([self.mean - mark], [self.se], self.n, "below", Z)[0])

    @property
    def pair(self) -> tuple[float, float]:
        """``(mean, se)``, the value a template says as ``mean ± se`` (its ``pm`` filter).

        >>> Estimate(0.5, 0.25, 4).pair
        (0.5, 0.25)
        """
        return (self.mean, self.se)


def estimate(values: Sequence[float] | np.ndarray | pd.Series) -> Estimate:
    """Mean and standard error of ``values`` (at least two, all finite).

    >>> e = estimate([1.0, 2.0, 3.0, 4.0])
    >>> e.mean, round(e.se, 4), e.above(1.5), e.below(5.0)
    (2.5, 0.6455, False, True)
    """
    x = finite_array("values", values, ndim=1, min_size=2)
    return Estimate(float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)), int(x.size))


@dataclass(frozen=True)
class Assessment:
    """A rule's finding and the chapter's reading of it: the branch its conclusion takes and
    the few values the conclusion names (which marks, which panels), none of the numbers
    the page shows once, in the verdict line."""

    finding: Finding
    conclusion: Reading


def _assessed(finding: Finding, *names: str) -> Assessment:
    """``finding`` with the reading that names the values ``names`` of it (those it has)."""
    said = {name: finding.values[name] for name in names if name in finding.values}
    return Assessment(finding, Reading(finding.branch, said))


def _series(panels: pd.DataFrame, sample: str, panel: str, column: str) -> pd.Series:
    part = panels[(panels["panel"] == panel) & (panels["sample"] == sample)]
    return part.set_index("seed")[column].sort_index()


def _untestable(
    claim: str, series: Sequence[pd.Series], setting: Mapping[str, Any]
) -> Assessment | None:
    """The assessment of a rule whose ``series`` cannot be judged (branch ``one-draw``: fewer
    than two draws; ``no-value``: some draws have none), or ``None``; ``setting``, the values
    the claim's check says."""
    n = min(s.size for s in series)
    if n < 2:
        finding = Finding(
            claim, Verdict.UNTESTABLE, values={**setting, "draws": n}, branch="one-draw"
        )
        return _assessed(finding, "draws")
    if any(not np.all(np.isfinite(s.to_numpy(dtype=float))) for s in series):
        return _assessed(
            Finding(claim, Verdict.UNTESTABLE, values=dict(setting), branch="no-value")
        )
    return None


def _qualified(
    claim: str, values: Mapping[str, Any], few: bool, doubtful: bool, **doubt: Any
) -> Finding:
    """The finding of a rule whose claim is not refuted: holds with a caveat, branch
    ``caveat`` where a mean leaves it ``doubtful`` (with the ``doubt`` values, and ``few``:
    too few single draws show it as well), ``single-draws`` where only ``few`` do; otherwise
    holds."""
    if doubtful:
        return Finding(claim, Verdict.CAVEAT, values={**values, **doubt, "few": few})
    if few:
        return Finding(claim, Verdict.CAVEAT, values=values, branch="single-draws")
    return Finding(claim, Verdict.HOLDS, values=values)


def _state(e: Estimate, mark: float, side: str) -> str:
    """``"clearly"``, ``"against"`` or ``"borderline"`` for a mean meant to lie on ``side``."""
    if e.above(mark) if side == ">" else e.below(mark):
        return "clearly"
    if e.below(mark) if side == ">" else e.above(mark):
        return "against"
    return "borderline"


@decided_by(SHARE_REQUIRED, SKEWED, NEAR_ZERO_WEIGHT, Z)
def assess_unscaled_distorts(
    panels: pd.DataFrame,
    *,
    n_keys: int,
    ks_critical: float,
    share_required: float = SHARE_REQUIRED,
    sample: str = "intended",
    panel: str = "1b",
    skewed: float = SKEWED,
    near_zero_weight: float = NEAR_ZERO_WEIGHT,
) -> Assessment:
    """Bernhard, Figure 1(b): without scaling the softmax "severely distorts" the shape, which
    is "weighted heavily near 0 and has a pronounced right skew".

    Read as three marks, each on the mean over draws: a skewness change above ``skewed`` (a
    highly skewed sample by the usual convention: "pronounced"), a median weight below
    ``near_zero_weight`` of the uniform share ``1/n`` ("heavily near 0"), and a KS distance
    from the raw shape above ``ks_critical`` (a distortion no sampling noise explains). Holds
    if every mean is clearly beyond its mark and at least ``share_required`` of single draws
    pass all three; does not hold if a mean is clearly on the wrong side (branch ``fails``,
    value ``against``: those marks); otherwise holds with a caveat, branch ``caveat`` where a
    mean cannot be told from its mark (``borderline``; ``few``: too few single draws pass
    all three as well), ``single-draws`` where only too few single draws pass.

    >>> rows = [{"seed": s, "panel": "1b", "sample": "intended", "skewness_change": 5.0 + s,
    ...          "q50": 1e-4, "ks_statistic": 0.4} for s in range(3)]
    >>> found = assess_unscaled_distorts(pd.DataFrame(rows), n_keys=32, ks_critical=0.09)
    >>> found.finding.verdict, found.finding.values["passed_pct"]
    (<Verdict.HOLDS: 'holds'>, 100.0)
    """
    claim = "bernhard-fig1-unscaled-distorts"
    skew = _series(panels, sample, panel, "skewness_change")
    weight = _series(panels, sample, panel, "q50") * n_keys
    ks = _series(panels, sample, panel, "ks_statistic")
    setting = {"panel": panel, "sample": sample, "ks_critical": ks_critical}
    undecided = _untestable(claim, [skew, weight, ks], setting)
    if undecided:
        return undecided
    marks = {
        "skew": (estimate(skew), skewed, ">"),
        "weight": (estimate(weight), near_zero_weight, "<"),
        "ks": (estimate(ks), ks_critical, ">"),
    }
    states = {name: _state(e, mark, side) for name, (e, mark, side) in marks.items()}
    share = float(np.mean((skew > skewed) & (weight < near_zero_weight) & (ks > ks_critical)))
    values: dict[str, Any] = {
        **setting,
        "draws": skew.size,
        **{name: e.pair for name, (e, _, _) in marks.items()},
        "passed_pct": 100 * share,
    }
    against = [name for name, state in states.items() if state == "against"]
    borderline = [name for name, state in states.items() if state == "borderline"]
    few = share < share_required
    if against:
        finding = Finding(claim, Verdict.FAILS, values={**values, "against": against})
    else:
        finding = _qualified(claim, values, few, bool(borderline), borderline=borderline)
    return _assessed(finding, "against", "borderline", "few")


def unscaled_distorts(panels: pd.DataFrame, **options: object) -> Finding:
    """The finding of :func:`assess_unscaled_distorts`."""
    return assess_unscaled_distorts(panels, **options).finding  # type: ignore[arg-type]


def _paired(panels: pd.DataFrame, sample: str, base: str, other: str, column: str) -> pd.Series:
    """``column`` of panel ``base`` minus that of panel ``other``, draw by draw."""
    a, b = _series(panels, sample, base, column), _series(panels, sample, other, column)
    joined = pd.concat([a, b], axis=1, join="inner")
    return joined.iloc[:, 0] - joined.iloc[:, 1]


def _left_pct(difference: Estimate, base: Estimate) -> float:
    """How much of ``base``'s mean is left after ``difference``'s, in percent (NaN at 0)."""
    return 100 * (1 - difference.mean / base.mean) if base.mean else math.nan


@decided_by(SHARE_REQUIRED, Z)
def assess_sqrt_d_helps(
    panels: pd.DataFrame,
    *,
    share_required: float = SHARE_REQUIRED,
    sample: str = "intended",
    unscaled: str = "1b",
    scaled: str = "1c",
) -> Assessment:
    """Bernhard, Figure 1(c): dividing by sqrt(d) leaves "a mild right skew that was not present
    in the distribution before" but helps "preserve the general shape of the distribution
    compared to not scaling at all".

    "Mild" is read against panel 1b's "pronounced" skew, draw by draw: the skewness change of
    1c clearly smaller than that of 1b. "Helps" means the Wasserstein-1 and KS distortions of
    1c are both clearly smaller than those of 1b (paired per draw). Holds if both are true,
    a right skew is clearly there, and at least ``share_required`` of single draws show 1c
    less distorted on both distances; does not hold if 1c is not clearly less distorted or
    its skew is not clearly milder (value ``failing``: which); otherwise holds with a
    caveat, branch ``caveat`` where no right skew is clearly left (``few``: too few single
    draws show the improvement as well), ``single-draws`` where only too few do.

    >>> rows = [{"seed": s, "panel": p, "sample": "intended", "wasserstein": w,
    ...          "ks_statistic": w, "skewness_change": 10 * w}
    ...         for s in range(3) for p, w in [("1b", 0.7 - s / 50), ("1c", 0.7 + s / 50)]]
    >>> found = sqrt_d_helps(pd.DataFrame(rows))
    >>> found.verdict.value, found.values["failing"]
    ('does not hold', ['distortion', 'skew'])
    """
    claim = "bernhard-fig1-sqrt-d-helps"
    d_w = _paired(panels, sample, unscaled, scaled, "wasserstein")
    d_ks = _paired(panels, sample, unscaled, scaled, "ks_statistic")
    d_skew = _paired(panels, sample, unscaled, scaled, "skewness_change")
    skew = _series(panels, sample, scaled, "skewness_change")
    setting = {"sample": sample, "unscaled": unscaled, "scaled": scaled}
    undecided = _untestable(claim, [d_w, d_ks, d_skew, skew], setting)
    if undecided:
        return undecided
    e_w, e_ks, e_skew, e_right = estimate(d_w), estimate(d_ks), estimate(d_skew), estimate(skew)
    base_w = estimate(_series(panels, sample, unscaled, "wasserstein"))
    base_skew = estimate(_series(panels, sample, unscaled, "skewness_change"))
    share = float(np.mean((d_w > 0) & (d_ks > 0)))
    values: dict[str, Any] = {
        **setting,
        "draws": d_w.size,
        "w": e_w.pair,
        "w_left_pct": _left_pct(e_w, base_w),
        "ks": e_ks.pair,
        "both_pct": 100 * share,
        "skew": e_right.pair,
        "milder": e_skew.pair,
        "skew_left_pct": _left_pct(e_skew, base_skew),
    }
    helps = e_w.above(0) and e_ks.above(0)
    milder = e_skew.above(0)
    if not (helps and milder):
        failing = [name for name, ok in [("distortion", helps), ("skew", milder)] if not ok]
        finding = Finding(claim, Verdict.FAILS, values={**values, "failing": failing})
    else:
        finding = _qualified(claim, values, share < share_required, not e_right.above(0))
    return _assessed(finding, "failing", "few")


def sqrt_d_helps(panels: pd.DataFrame, **options: object) -> Finding:
    """The finding of :func:`assess_sqrt_d_helps`."""
    return assess_sqrt_d_helps(panels, **options).finding  # type: ignore[arg-type]


@decided_by(SHARE_REQUIRED, MUCH, Z)
def assess_k_total_better(
    panels: pd.DataFrame,
    *,
    share_required: float = SHARE_REQUIRED,
    sample: str = "intended",
    base: str = "2b",
    other: str = "2c",
    much: float = MUCH,
    uniform_entropy: float = 0.99,
) -> Assessment:
    """Bernhard, Figure 2: pre-dividing by k_total "preserves the shape of the distribution
    much better than pre-dividing by sqrt(d)".

    Paired per draw: the W₁ and KS distortions of panel ``other`` (1/k_total) clearly below
    those of ``base`` (1/sqrt(d)) is "better"; "much better" is the book's reading that the
    mean ratio of the two distortions is clearly below ``much`` on both distances. Does not
    hold if not clearly better. Holds if much better and better in at least
    ``share_required`` of single draws; otherwise holds with a caveat, branch ``caveat``
    where it is not much better (``few``: too few single draws show it as well),
    ``single-draws`` where only too few do. Where the mean normalized entropy of the rows is
    at least ``uniform_entropy`` (value ``uniform``), the shape is kept because the softmax
    barely acts: the conclusion and the finding say so, but the verdict, on a claim about
    shape, does not hold it against the claim.

    >>> rows = [{"seed": s, "panel": p, "sample": "intended", "wasserstein": w,
    ...          "ks_statistic": w, "mean_normalized_entropy": h}
    ...         for s in range(3) for p, w, h in [("2b", 0.4 + s / 50, 0.87), ("2c", 0.03, 0.9999)]]
    >>> found = k_total_better(pd.DataFrame(rows))
    >>> found.verdict.value, found.values["uniform"]
    ('holds', True)
    """
    claim = "bernhard-fig2-k-total-better"
    d_w = _paired(panels, sample, base, other, "wasserstein")
    d_ks = _paired(panels, sample, base, other, "ks_statistic")
    w_base, w_other = (_series(panels, sample, p, "wasserstein") for p in (base, other))
    ks_base, ks_other = (_series(panels, sample, p, "ks_statistic") for p in (base, other))
    entropy = _series(panels, sample, other, "mean_normalized_entropy")
    setting = {"sample": sample, "base": base, "other": other, "uniform_entropy": uniform_entropy}
    undecided = _untestable(claim, [d_w, d_ks, entropy], setting)
    if undecided:
        return undecided
    e_w, e_ks, e_h = estimate(d_w), estimate(d_ks), estimate(entropy)
    e_rw, e_rks = (estimate((o / b).dropna()) for o, b in [(w_other, w_base), (ks_other, ks_base)])
    share = float(np.mean((d_w > 0) & (d_ks > 0)))
    values: dict[str, Any] = {
        **setting,
        "draws": d_w.size,
        "w": e_w.pair,
        "ks": e_ks.pair,
        "both_pct": 100 * share,
        "ratio_w": e_rw.pair,
        "ratio_ks": e_rks.pair,
        "entropy": e_h.pair,
    }
    if not (e_w.above(0) and e_ks.above(0)):
        return _assessed(Finding(claim, Verdict.FAILS, values=values))
    values["uniform"] = e_h.mean >= uniform_entropy
    much_better = e_rw.below(much) and e_rks.below(much)
    finding = _qualified(claim, values, share < share_required, not much_better)
    return _assessed(finding, "few", "uniform")


def k_total_better(panels: pd.DataFrame, **options: object) -> Finding:
    """The finding of :func:`assess_k_total_better`."""
    return assess_k_total_better(panels, **options).finding  # type: ignore[arg-type]


#: The two signs of vanishing gradients, by column: the name the claim's words give each.
_SIGNS = {"jacobian_norm": "jacobian", "extreme_share": "extreme"}


def _signs(
    wide: Mapping[str, pd.DataFrame], draws: int, level: float
) -> tuple[pd.Series, pd.Series, dict[str, bool], dict[str, bool]]:
    """The paired differences (no scaling minus 1/√d) of the two signs: their means, standard
    errors, which are clearly on the side of vanishing gradients and which clearly opposite
    (one-sided t tests, Bonferroni over the two)."""
    diffs = {m: w["none"] - w["sqrt_d"] for m, w in wide.items()}
    means = pd.Series({m: float(v.mean()) for m, v in diffs.items()})
    ses = pd.Series({m: float(v.std(ddof=1) / math.sqrt(draws)) for m, v in diffs.items()})
    sides = {"jacobian_norm": "below", "extreme_share": "above"}
    found = {
        m: bool(clear(means[[m]], ses[[m]].to_numpy(), draws, sides[m], level / 2).iloc[0])
        for m in sides
    }
    opposite = {
        m: bool(
            clear(
                means[[m]],
                ses[[m]].to_numpy(),
                draws,
                "above" if sides[m] == "below" else "below",
                level / 2,
            ).iloc[0]
        )
        for m in sides
    }
    return means, ses, found, opposite


@decided_by(FAMILY_LEVEL)
def fig1_vanishing_inference(
    costs: pd.DataFrame, *, d: int, level: float = FAMILY_LEVEL
) -> Finding:
    """Bernhard, on Figure 1(b): "it is apparent that applying softmax to the unscaled dot
    product would be prone to vanishing gradient issues".

    ``costs`` is the per-draw table of :func:`attncore.sources.bernhard.sweep` (rescalings
    ``none`` and ``sqrt_d`` on the dot products of each draw, with ``jacobian_norm`` and
    ``extreme_share``); ``d`` is Figure 1's dimension. Paired over draws, with one-sided t
    tests Bonferroni-corrected over the two comparisons: without scaling the mean Jacobian
    norm of the rows is lower, and the share of first components near 0 or 1 (his section 6 sign of
    vanishing gradients) is higher, than with 1/√d. **Holds** if both; **holds with a
    caveat** if one (value ``shown``: which; ``missing``: the other, clearly opposite or
    not clear); **does not hold** if the opposite of one is clear and neither holds;
    **not testable here** with fewer than two draws (branch ``one-draw``) or when the draws
    cannot tell.

    >>> rows = [{"seed": s, "d": 16, "rescaling": r, "jacobian_norm": j + s / 100,
    ...          "extreme_share": e} for s in range(5)
    ...         for r, j, e in [("none", 0.2, 0.8 + s / 100), ("sqrt_d", 0.3, 0.1)]]
    >>> fig1_vanishing_inference(pd.DataFrame(rows), d=16).verdict.value
    'holds'
    """
    claim = "bernhard-fig1-vanishing-inference"
    part = costs[costs["d"] == d]
    wide = {
        m: part.pivot_table(index="seed", columns="rescaling", values=m)[["none", "sqrt_d"]]
        for m in _SIGNS
    }
    draws = len(wide["jacobian_norm"])
    if draws < 2:
        values = {"d": d, "draws": draws}
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="one-draw")
    means, ses, found, opposite = _signs(wide, draws, level)
    means_of = {m: w.mean() for m, w in wide.items()}
    values: dict[str, Any] = {
        "d": d,
        "draws": draws,
        "jacobian_none": float(means_of["jacobian_norm"]["none"]),
        "jacobian_sqrt_d": float(means_of["jacobian_norm"]["sqrt_d"]),
        "jacobian_difference": float(means["jacobian_norm"]),
        "jacobian_se": float(ses["jacobian_norm"]),
        "extreme_none": float(means_of["extreme_share"]["none"]),
        "extreme_sqrt_d": float(means_of["extreme_share"]["sqrt_d"]),
    }
    missing = [
        f"{_SIGNS[m]}-{'opposite' if opposite[m] else 'unclear'}"
        for m, ok in found.items()
        if not ok
    ]
    if all(found.values()):
        return Finding(claim, Verdict.HOLDS, values=values)
    if any(found.values()):
        shown = [_SIGNS[m] for m, ok in found.items() if ok]
        values = {**values, "shown": shown, "missing": missing}
        return Finding(claim, Verdict.CAVEAT, values=values)
    if any(opposite.values()):
        return Finding(claim, Verdict.FAILS, values={**values, "missing": missing})
    return Finding(claim, Verdict.UNTESTABLE, values=values)


def changed_verdicts(
    intended: Sequence[Finding], published: Sequence[Finding]
) -> list[dict[str, str]]:
    """The claims whose verdict on the published samples differs from that on the intended
    ones: a record of each, its ``claim`` and its verdicts ``published`` and ``intended``.

    >>> a = Finding("bernhard-fig2-k-total-better", Verdict.HOLDS)
    >>> b = Finding("bernhard-fig2-k-total-better", Verdict.CAVEAT)
    >>> changed_verdicts([a], [a])
    []
    >>> changed_verdicts([a], [b])[0]["published"]
    'holds with a caveat'
    """
    by_claim = {f.claim: f for f in published}
    return [
        {
            "claim": f.claim,
            "published": by_claim[f.claim].verdict.value,
            "intended": f.verdict.value,
        }
        for f in intended
        if f.claim in by_claim and by_claim[f.claim].verdict != f.verdict
    ]


def published_agreement(intended: Sequence[Finding], published: Sequence[Finding]) -> Reading:
    """Whether the rules give the same verdicts on the published samples as on the intended
    ones (matched by claim): branch ``same``, or ``other`` with the ``changed`` verdicts
    (:func:`changed_verdicts`).

    >>> a = Finding("bernhard-fig2-k-total-better", Verdict.HOLDS)
    >>> b = Finding("bernhard-fig2-k-total-better", Verdict.CAVEAT)
    >>> published_agreement([a], [a]).branch, published_agreement([a], [b]).branch
    ('same', 'other')
    """
    changed = changed_verdicts(intended, published)
    return Reading("other", {"changed": changed}) if changed else Reading("same")


#: The share of draws whose two samples are farther apart than the KS critical value at and above
#: which the published and intended samples are called different samples (a majority).
SAME_SAMPLE_SHARE = 0.5


def differing_share(ks_distances: Sequence[float], ks_critical: float) -> float:
    """The share of draws whose intended and published samples lie farther apart than the
    critical value for two independent samples.

    >>> differing_share([0.01, 0.02, 0.2], 0.086)
    0.3333333333333333
    """
    return float(np.mean(np.asarray(ks_distances, dtype=float) > ks_critical))


def samples_differ(ks_distances: Sequence[float], ks_critical: float) -> Reading:
    """Whether the intended and published samples of one draw are the same sample, judged by
    their KS distances over draws against the critical value for independent samples:
    branch ``differ`` where at least :data:`SAME_SAMPLE_SHARE` of the draws lie farther
    apart than it, else ``alike`` (the share itself is :func:`differing_share`).

    >>> samples_differ([0.2, 0.3, 0.25], 0.086).branch, samples_differ([0.01, 0.2], 0.086).branch
    ('differ', 'differ')
    >>> samples_differ([0.01, 0.02, 0.2], 0.086).branch
    'alike'
    """
    differ = differing_share(ks_distances, ks_critical) >= SAME_SAMPLE_SHARE
    return Reading("differ" if differ else "alike")


#: The statistics of a component compared between key 1 and the other keys.
COMPONENT_STATISTICS = ("mean", "sd", "skewness")


def _components_by_panel(
    components: pd.DataFrame, ks_critical: float, z_law: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per panel: where key 1 differs from the other keys in law (a record of each panel and
    statistic whose paired difference lies beyond ``z_law`` standard errors: its ``mean`` and
    ``se``), and within a draw (a record of each panel: the share of the other components
    beyond ``ks_critical`` in percent, its standard error, and the rank correlation of their
    sd with the length of their key)."""
    broken, within = [], []
    for panel in sorted(components["panel"].unique()):
        part = components[components["panel"] == panel]
        first = part[part["key"] == 1].set_index("seed").sort_index()
        others = part[part["key"] != 1]
        rest = others.groupby("seed")[list(COMPONENT_STATISTICS)].mean().sort_index()
        for statistic in COMPONENT_STATISTICS:
            e = estimate(first[statistic] - rest[statistic])
            if abs(e.mean) > z_law * e.se:
                broken.append({"panel": panel, "statistic": statistic, "mean": e.mean, "se": e.se})
        share = estimate(
            others.assign(d=others["ks_to_first"] > ks_critical).groupby("seed")["d"].mean()
        )
        correlation = float(
            part.groupby("seed")[["sd", "key_length"]]
            .apply(lambda g: g["sd"].corr(g["key_length"], method="spearman"))
            .mean()
        )
        within.append(
            {
                "panel": panel,
                "share": 100 * share.mean,
                "share_se": 100 * share.se,
                "correlation": correlation,
                "differs": share.above(NOMINAL_LEVEL),
            }
        )
    return broken, within


@decided_by(LAW_LEVEL, NOMINAL_LEVEL, Z)
def assess_other_components_similar(components: pd.DataFrame, ks_critical: float) -> Assessment:
    """Bernhard: "By symmetry, the other components should look similar."

    ``components`` is :func:`attncore.sources.bernhard_components.component_sweep` (one row
    per draw, panel and key). Two readings, both measured:

    - *in law*: over draws, the mean, standard deviation and skewness of component 1 minus
      those of the other components (averaged over the other keys of the same draw) has
      mean 0. A mean clearly away from 0, beyond a two-sided Student t band (draws - 1
      degrees of freedom) at the family-wise level :data:`LAW_LEVEL`, Bonferroni-corrected
      over every panel and statistic, breaks the symmetry: **does not hold** (value
      ``broken``: those panels and statistics);
    - *within one draw*, which is what one figure shows: the share of components whose KS
      distance from component 1 exceeds ``ks_critical``. If in some panel it is clearly
      (:data:`Z` standard errors over draws) above :data:`NOMINAL_LEVEL`, the components of
      one fixed key set differ beyond chance: **holds with a caveat** (value ``differing``:
      those panels; the correlation of a component's standard deviation with the length of
      its key is reported as the reason);
    - otherwise **holds**; **not testable** with fewer than two draws or keys.

    >>> rows = [{"seed": s, "panel": "1b", "key": k, "key_length": 4.0, "mean": 0.1,
    ...          "sd": 0.1 + (s + k) % 3 / 100, "skewness": 1.0, "ks_to_first": 0.0}
    ...         for s in range(5) for k in (1, 2, 3)]
    >>> assess_other_components_similar(pd.DataFrame(rows), 0.09).finding.verdict.value
    'holds'
    """
    claim = "bernhard-other-components-similar"
    draws = components["seed"].nunique() if len(components) else 0
    keys = components["key"].nunique() if len(components) else 0
    values: dict[str, Any] = {"draws": draws, "keys": keys}
    if draws < 2 or keys < 2:
        return _assessed(Finding(claim, Verdict.UNTESTABLE, values=values), "draws", "keys")
    panels = components["panel"].nunique()
    # Student t (draws - 1 degrees of freedom): the standard errors come from few draws
    level = LAW_LEVEL / 2 / (panels * len(COMPONENT_STATISTICS))
    z_law = float(stats.t.ppf(1 - level, df=draws - 1))
    broken, within = _components_by_panel(components, ks_critical, z_law)
    values["panels"] = [{k: v for k, v in p.items() if k != "differs"} for p in within]
    if broken:
        finding = Finding(claim, Verdict.FAILS, values={**values, "broken": broken})
        named = [{"panel": b["panel"], "statistic": b["statistic"]} for b in broken]
        return Assessment(finding, Reading("fails", {"broken": named}))
    differing = [p["panel"] for p in within if p["differs"]]
    if differing:
        finding = Finding(claim, Verdict.CAVEAT, values={**values, "differing": differing})
        return _assessed(finding, "differing")
    return _assessed(Finding(claim, Verdict.HOLDS, values=values))


def other_components_similar(components: pd.DataFrame, ks_critical: float) -> Finding:
    """The finding of :func:`assess_other_components_similar`."""
    return assess_other_components_similar(components, ks_critical).finding
